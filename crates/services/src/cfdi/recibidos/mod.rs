//! Received invoices from SAT's descarga masiva (PROTOCOLS.md §1), signed with the company's
//! FIEL:
//!
//! * [`sincronizacion`]: `sync-recibidos`, a durable job that requests a month's received CFDI,
//!   polls, downloads, reads and stores every package, resuming from its saved progress;
//! * [`por_uuid`]: download by UUID (answered inline, or as a job to poll after
//!   `TIMBRA_SAT_WAIT_SECONDS`), metadata-only results and their background retries;
//! * [`cuota`]: the daily download quota per RFC;
//! * here: the SAT client for a company, [`leer_paquete`] (a package read off the async
//!   runtime, under the configured limits) and [`guardar`], which stores the documents of a
//!   package (row and XML in one transaction with the quota they spend).
//!
//! Received retentions (CFDI de Retenciones e Información de Pagos 2.0, from SAT's retention
//! service: `ClienteSat::retenciones`) are stored like received CFDI: the XML in storage, a
//! `cfdis` row of tipo RECIBIDA with tipo_comprobante `RET` (invoice listings leave RET out),
//! and a `retenciones` row, so `GET /api/retenciones?tipo=RECIBIDA` lists them.

pub mod cuota;
pub mod por_uuid;
pub mod sincronizacion;

use std::sync::Arc;
use timbra_store::ids::{CfdiId, EmpresaId};

use timbra_sat::{
    ClienteSat, DocumentoCfdi, DocumentoIlegible, DocumentoRetencion, EstadoSello, EstadoTimbre, Paquete, SatError,
};
use time::OffsetDateTime;

use super::pipeline::{Cabecera, Fila};
use super::{fiel, leer_fecha_cfdi};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult};
use crate::events::{self, payloads};
use timbra_store::cfdi_xml;
use timbra_store::{self as db, Tx};

/// The company a download works for.
#[derive(Clone, Debug)]
pub struct Empresa {
    /// Id.
    pub id: EmpresaId,
    /// RFC: the receiver the invoices must name, and the quota's key.
    pub rfc: String,
}

/// The company `empresa_id`.
pub async fn empresa(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Empresa> {
    let mut conn = app.db.conn().await?;
    let emisora = db::empresas::emisora(&mut conn, empresa_id).await?;
    Ok(Empresa { id: emisora.id, rfc: emisora.rfc })
}

/// A descarga masiva client signing with the company's FIEL (MISSING_FIEL, FIEL_EXPIRED,
/// FIEL_RFC_MISMATCH, FIEL_DECRYPT when it cannot), on the service's clock. The FIEL is checked
/// on every call and opened once per upload.
pub async fn cliente(app: &AppContext, empresa: &Empresa) -> ApiResult<ClienteSat> {
    let revisada = fiel::revisar(app, &empresa.id, &empresa.rfc).await?;
    if let Ok(clientes) = app.cfdi.sat_clientes.lock()
        && let Some((fiel_id, cliente)) = clientes.get(empresa.id.as_str())
        && *fiel_id == revisada.id
    {
        return Ok(cliente.clone());
    }
    let fiel_id = revisada.id.clone();
    let credencial = revisada.abrir(app, &empresa.id).await?;
    let clock = app.clock.clone();
    let cliente = ClienteSat::new(app.config.sat.clone(), credencial)
        .map_err(|error| ApiError::sat(&error))?
        .con_reloj(Arc::new(move || clock.now()));
    if let Ok(mut clientes) = app.cfdi.sat_clientes.lock() {
        clientes.insert(empresa.id.as_str().to_owned(), (fiel_id, cliente.clone()));
    }
    Ok(cliente)
}

/// Reads a downloaded package on the blocking pool: inflating and verifying every seal is CPU
/// work (seconds for a large package) that must not hold an async worker, and the reader
/// stops at the first of the configured limits (`TIMBRA_SAT_PACKAGE_MAX_*`). The outer error
/// is the blocking task's own failure; the inner one is the package's (map it with
/// `ApiError::sat`).
pub async fn leer_paquete(cliente: &ClienteSat, bytes: Vec<u8>) -> ApiResult<Result<Paquete, SatError>> {
    let cliente = cliente.clone();
    tokio::task::spawn_blocking(move || cliente.leer_paquete(&bytes))
        .await
        .map_err(|error| ApiError::internal("reading a SAT package", error))
}

/// How many verification polls fit in `ventana` with the configured pause.
pub fn consultas(app: &AppContext, ventana: std::time::Duration) -> u32 {
    let pausa = app.config.sat.pausa_verificacion.as_secs_f64().max(0.01);
    let consultas = (ventana.as_secs_f64() / pausa).ceil();
    // Bounded: a zero pause in tests must not mean millions of calls.
    if consultas >= 1000.0 { 1000 } else { (consultas as u32).max(1) }
}

/// Where the XML of a received invoice is stored (its `xmlUrl`).
pub fn ruta_xml(empresa_id: &EmpresaId, uuid: &str) -> String {
    format!("recibidas/{empresa_id}/{uuid}.xml")
}

fn sello(estado: &EstadoSello) -> &'static str {
    match estado {
        EstadoSello::Verificado => "VERIFICADO",
        EstadoSello::Invalido(_) => "INVALIDO",
    }
}

fn timbre(estado: &EstadoTimbre) -> &'static str {
    match estado {
        EstadoTimbre::Verificado { .. } => "VERIFICADO",
        EstadoTimbre::NoVerificado { .. } => "NO_VERIFICADO",
        EstadoTimbre::Invalido(_) => "INVALIDO",
        EstadoTimbre::SinTimbre => "SIN_TIMBRE",
    }
}

/// What [`guardar`] did with a package's documents.
#[derive(Clone, Debug, Default)]
pub struct Guardado {
    /// Documents stored new: (invoice id, UUID).
    pub nuevos: Vec<(CfdiId, String)>,
    /// Metadata-only invoices completed with their XML (`cfdi.xml_disponible` emitted).
    pub completados: Vec<(CfdiId, String)>,
    /// Documents the company already held with their XML (skipped, free).
    pub ya_guardados: Vec<(CfdiId, String)>,
    /// Documents left unstored because the day's quota ran out.
    pub sin_cuota: i64,
    /// Documents of another receiver (never stored).
    pub ajenos: i64,
    /// Documents not stored because they could not be read (the package's, and those whose
    /// amounts or dates could not be read).
    pub ilegibles: i64,
}

impl Guardado {
    /// Documents read (stored, completed, held already, or not stored for a reason).
    pub fn leidos(&self) -> i64 {
        (self.nuevos.len() + self.completados.len() + self.ya_guardados.len()) as i64
            + self.sin_cuota
            + self.ajenos
            + self.ilegibles
    }
}

/// One document ready to be written.
struct PorGuardar<'a> {
    documento: &'a DocumentoCfdi,
    fila: Fila,
    /// The metadata-only row it completes (id, retries made).
    completa: Option<(CfdiId, i64)>,
}

/// One retention ready to be written.
struct RetencionPorGuardar<'a> {
    documento: &'a DocumentoRetencion,
    fila: Fila,
}

/// Stores `documentos` and `retenciones` (received by `empresa`) in one transaction: each new
/// UUID's row and XML (a retention's `retenciones` row too), metadata-only rows completed
/// (same id, `cfdi.xml_disponible`), UUIDs already stored skipped; the quota spent for what is
/// written, never beyond the day's limit. A retention to a foreign receiver, or to another
/// RFC, is another receiver's.
/// `sincronizacion` counts the package as done in the same transaction, with the package's
/// `ilegibles` (entries refused by the reader) and the documents whose amounts or dates could
/// not be read listed with their reason.
pub async fn guardar(
    app: &AppContext,
    empresa: &Empresa,
    documentos: &[DocumentoCfdi],
    retenciones: &[DocumentoRetencion],
    ilegibles_paquete: &[DocumentoIlegible],
    sincronizacion: Option<&str>,
) -> ApiResult<Guardado> {
    let now = app.clock.now();
    let mut guardado = Guardado { ilegibles: ilegibles_paquete.len() as i64, ..Guardado::default() };
    let mut ilegibles: Vec<db::sincronizaciones::Ilegible> = ilegibles_paquete
        .iter()
        .map(|i| db::sincronizaciones::Ilegible { nombre: i.nombre.clone(), motivo: i.motivo.clone() })
        .collect();
    let mut tx = app.db.begin().await?;
    let mut pendientes = Vec::with_capacity(documentos.len());
    for documento in documentos {
        if !documento.comprobante.receptor.rfc.eq_ignore_ascii_case(&empresa.rfc) {
            tracing::warn!(empresa.id = %empresa.id, cfdi.uuid = %documento.uuid, "sat delivered a cfdi of another receiver");
            guardado.ajenos += 1;
            continue;
        }
        let existente = db::recibidos::por_uuid(&mut tx, &empresa.id, &documento.uuid).await?;
        let completa = match existente {
            Some(row) if row.xml_download_status.as_deref() == Some(db::recibidos::COMPLETE) => {
                guardado.ya_guardados.push((row.id, documento.uuid.clone()));
                continue;
            }
            Some(row) => Some((row.id, row.xml_retry_count)),
            None => None,
        };
        match Fila::de(&documento.comprobante, &*app.catalogos.indice) {
            Ok(fila) => pendientes.push(PorGuardar { documento, fila, completa }),
            Err(_) => {
                guardado.ilegibles += 1;
                ilegibles.push(db::sincronizaciones::Ilegible {
                    nombre: documento.nombre.clone(),
                    motivo: "amounts or dates could not be read".to_owned(),
                });
            }
        }
    }
    let mut retenciones_pendientes = Vec::with_capacity(retenciones.len());
    for documento in retenciones {
        if !documento.rfc_receptor().is_some_and(|rfc| rfc.eq_ignore_ascii_case(&empresa.rfc)) {
            tracing::warn!(empresa.id = %empresa.id, cfdi.uuid = %documento.uuid, "sat delivered a retention of another receiver");
            guardado.ajenos += 1;
            continue;
        }
        if let Some(row) = db::recibidos::por_uuid(&mut tx, &empresa.id, &documento.uuid).await? {
            guardado.ya_guardados.push((row.id, documento.uuid.clone()));
            continue;
        }
        match super::retenciones::fila_recibida(&documento.retencion, &*app.catalogos.indice) {
            Ok(fila) => retenciones_pendientes.push(RetencionPorGuardar { documento, fila }),
            Err(_) => {
                guardado.ilegibles += 1;
                ilegibles.push(db::sincronizaciones::Ilegible {
                    nombre: documento.nombre.clone(),
                    motivo: "amounts or dates could not be read".to_owned(),
                });
            }
        }
    }
    let pedidas = (pendientes.len() + retenciones_pendientes.len()) as i64;
    let concedidas = cuota::reservar(&mut tx, &empresa.rfc, pedidas, now).await?;
    guardado.sin_cuota = pedidas - concedidas;
    let mut usadas = 0;
    let mut restantes = usize::try_from(concedidas).unwrap_or(0);
    let para_cfdi = restantes.min(pendientes.len());
    restantes -= para_cfdi;
    for pendiente in retenciones_pendientes.into_iter().take(restantes) {
        let documento = pendiente.documento;
        let cfdi_id = CfdiId::new();
        let ruta = ruta_xml(&empresa.id, &documento.uuid);
        let timbrado_en = documento.retencion.timbre().and_then(|tfd| leer_fecha_cfdi(&tfd.fecha_timbrado));
        let mut valores = pendiente.fila.valores_de(&Cabecera {
            cfdi_id: &cfdi_id,
            empresa_id: &empresa.id,
            tipo: "RECIBIDA",
            origen: "SAT_DESCARGA",
            sandbox: false,
            uuid_api: &documento.uuid,
            uuid_xml: &documento.uuid,
            serie: None,
            folio: documento.retencion.folio_int.clone(),
            folio_num: None,
            timbrado_en,
            status: timbra_store::estados::EstadoCfdi::Timbrado.as_str(),
            cliente_id: None,
            xml_path: Some(&ruta),
            now,
        });
        valores.extend(db::recibidos::extra(
            db::recibidos::COMPLETE,
            0,
            None,
            Some(sello(&documento.sello)),
            Some(timbre(&documento.timbre)),
        ));
        if !db::recibidos::insertar(&mut tx, valores).await? {
            guardado.ya_guardados.push((cfdi_id, documento.uuid.clone()));
            continue;
        }
        super::retenciones::guardar_recibida(&mut tx, &pendiente.fila, &cfdi_id, &empresa.id, now).await?;
        cfdi_xml::guardar(&mut tx, &cfdi_id, &empresa.id, &ruta, &cfdi_xml::comprimir(&documento.xml), now).await?;
        usadas += 1;
        guardado.nuevos.push((cfdi_id, documento.uuid.clone()));
    }
    for pendiente in pendientes.into_iter().take(para_cfdi) {
        let documento = pendiente.documento;
        let (cfdi_id, reintentos) = match &pendiente.completa {
            Some((id, reintentos)) => {
                db::recibidos::quitar_metadatos(&mut tx, &empresa.id, id).await?;
                (id.clone(), *reintentos)
            }
            None => (CfdiId::new(), 0),
        };
        let ruta = ruta_xml(&empresa.id, &documento.uuid);
        let timbrado_en = documento.comprobante.timbre().and_then(|tfd| leer_fecha_cfdi(&tfd.fecha_timbrado));
        let mut valores = pendiente.fila.valores_de(&Cabecera {
            cfdi_id: &cfdi_id,
            empresa_id: &empresa.id,
            tipo: "RECIBIDA",
            origen: "SAT_DESCARGA",
            sandbox: false,
            uuid_api: &documento.uuid,
            uuid_xml: &documento.uuid,
            serie: documento.comprobante.serie.clone(),
            folio: documento.comprobante.folio.clone(),
            folio_num: None,
            timbrado_en,
            status: timbra_store::estados::EstadoCfdi::Timbrado.as_str(),
            cliente_id: None,
            xml_path: Some(&ruta),
            now,
        });
        valores.extend(db::recibidos::extra(
            db::recibidos::COMPLETE,
            reintentos,
            None,
            Some(sello(&documento.sello)),
            Some(timbre(&documento.timbre)),
        ));
        if !db::recibidos::insertar(&mut tx, valores).await? {
            // Stored meanwhile by another job: nothing spent.
            guardado.ya_guardados.push((cfdi_id, documento.uuid.clone()));
            continue;
        }
        cfdi_xml::guardar(&mut tx, &cfdi_id, &empresa.id, &ruta, &cfdi_xml::comprimir(&documento.xml), now).await?;
        usadas += 1;
        if pendiente.completa.is_some() {
            let evento = payloads::Event::CfdiXmlDisponible(payloads::XmlDisponible {
                cfdi_id: cfdi_id.as_str().to_owned(),
                uuid: documento.uuid.clone(),
                emisor_rfc: pendiente.fila.emisor_rfc().to_owned(),
                xml_url: ruta,
                xml_retry_count: reintentos,
            });
            events::emit(&mut tx, now, &empresa.id, &evento).await?;
            guardado.completados.push((cfdi_id, documento.uuid.clone()));
        } else {
            guardado.nuevos.push((cfdi_id, documento.uuid.clone()));
        }
    }
    cuota::devolver(&mut tx, &empresa.rfc, concedidas - usadas, now).await?;
    if let Some(id) = sincronizacion {
        db::sincronizaciones::agregar_ilegibles(&mut tx, id, &ilegibles, now).await?;
        db::sincronizaciones::paquete_hecho(
            &mut tx,
            id,
            guardado.leidos(),
            (guardado.nuevos.len() + guardado.completados.len()) as i64,
            guardado.ilegibles,
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(guardado)
}

/// Writes a metadata-only row for a received invoice SAT has no XML of yet, with its first
/// background retry due at `proximo` (the caller enqueues it in `tx`). Gives its id.
pub async fn guardar_metadatos(
    tx: &mut Tx,
    empresa: &Empresa,
    metadato: &timbra_sat::Metadato,
    proximo: OffsetDateTime,
    now: OffsetDateTime,
) -> ApiResult<Option<CfdiId>> {
    let formato = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
    let local = |texto: &str| {
        time::PrimitiveDateTime::parse(texto.trim(), formato).ok().map(|f| f.assume_offset(super::OFFSET_CENTRO))
    };
    let fecha = local(&metadato.fecha_emision)
        .ok_or_else(|| ApiError::internal("metadata FechaEmision", &metadato.fecha_emision))?;
    let total: rust_decimal::Decimal =
        metadato.monto.trim().parse().map_err(|e| ApiError::internal("metadata Monto", e))?;
    let fila = Fila::solo_metadatos(
        &metadato.efecto_comprobante,
        fecha,
        total,
        &metadato.rfc_emisor,
        &metadato.nombre_emisor,
        &metadato.rfc_receptor,
        &metadato.nombre_receptor,
    );
    let cfdi_id = CfdiId::new();
    let status = if metadato.vigente() {
        timbra_store::estados::EstadoCfdi::Timbrado
    } else {
        timbra_store::estados::EstadoCfdi::Cancelado
    };
    let mut valores = fila.valores_de(&Cabecera {
        cfdi_id: &cfdi_id,
        empresa_id: &empresa.id,
        tipo: "RECIBIDA",
        origen: "SAT_DESCARGA",
        sandbox: false,
        uuid_api: &metadato.uuid,
        uuid_xml: &metadato.uuid,
        serie: None,
        folio: None,
        folio_num: None,
        timbrado_en: local(&metadato.fecha_certificacion_sat),
        status: status.as_str(),
        cliente_id: None,
        xml_path: None,
        now,
    });
    valores.extend(db::recibidos::extra(db::recibidos::METADATA_ONLY, 0, Some(proximo), None, None));
    Ok(db::recibidos::insertar(tx, valores).await?.then_some(cfdi_id))
}
