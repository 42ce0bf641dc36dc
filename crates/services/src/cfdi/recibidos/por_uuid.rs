//! Download by UUID (`POST /api/cfdi/descargar-por-uuid`) and the background retries of
//! invoices SAT gives only metadata for.
//!
//! A UUID the company holds with its XML is answered from the database (`cache`, free). Any
//! other runs as a [`DescargarPorUuid`] job (its `descargas_uuid` row and the job written in one
//! transaction): `SolicitaDescargaFolio`, polls for at most 5 minutes, downloads, reads and
//! stores. The request waits for the job's answer `TIMBRA_SAT_WAIT_SECONDS` (30 s); when SAT
//! takes longer it answers 202 with the `jobId`, and `GET /api/cfdi/descargar-por-uuid/{jobId}`
//! gives the same answer once it is there.
//!
//! SAT keeps retentions (CFDI de Retenciones e Información de Pagos) on another service: a
//! UUID SAT's CFDI service has nothing for (5004) is asked again of the retention service, and
//! a retention found there is stored as a received retention.
//!
//! A metadata-only result is stored as METADATA_ONLY with a [`ReintentarXml`] job due at
//! `xmlNextRetryAt`. Each retry that brings no XML schedules the next (8 at most, 30 minutes to
//! 56 hours apart: about 5 days in all); after the 8th the invoice is PERMANENT_METADATA_ONLY.
//! When the XML arrives (by a retry, a new download or a sync) the row is completed with the
//! same id and `cfdi.xml_disponible` is emitted in that transaction.

use serde::{Deserialize, Serialize};
use timbra_sat::SatError;
use timbra_store::ids::{CfdiId, DescargaId, EmpresaId};
use time::OffsetDateTime;

use super::{Empresa, cuota};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};
use timbra_store::{self as db, descargas_uuid, recibidos};

/// Minutes from a metadata-only result (then from each failed retry) to the next retry:
/// 8 retries over 7,170 minutes, about 5 days.
pub const ESPERAS_MINUTOS: [i64; 8] = [30, 60, 120, 240, 480, 960, 1_920, 3_360];

/// How long SAT gets to finish a folio request (VERIFICA_TIMEOUT after that).
const VENTANA_VERIFICACION: std::time::Duration = std::time::Duration::from_secs(300);

/// Where the answer came from (`source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fuente {
    /// Downloaded from SAT now.
    SatPortal,
    /// Held already with its XML; SAT not contacted.
    Cache,
    /// SAT gave only the metadata.
    SatMetadataOnly,
}

/// A download's outcome: the invoice it concerns (the route renders it with fresh links).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descargado {
    /// `source`.
    pub source: Fuente,
    /// The received invoice's id.
    pub cfdi_id: CfdiId,
    /// Size of the XML downloaded (`sat_portal`).
    pub xml_bytes: Option<i64>,
    /// Why there is no XML (`sat_metadata_only`).
    pub warning: Option<String>,
}

/// An answer as kept for `GET /api/cfdi/descargar-por-uuid/{jobId}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Guardada {
    Ok(Descargado),
    Error { code: String, message: String, details: serde_json::Value },
}

impl Guardada {
    fn de(resultado: &Result<Descargado, ApiError>) -> Self {
        match resultado {
            Ok(descargado) => Guardada::Ok(descargado.clone()),
            Err(error) => Guardada::Error {
                code: error.code.as_str().to_owned(),
                message: error.message.clone(),
                details: error.details.clone(),
            },
        }
    }

    fn resultado(self) -> Result<Descargado, ApiError> {
        match self {
            Guardada::Ok(descargado) => Ok(descargado),
            Guardada::Error { code, message, details } => {
                let code = Code::ALL.iter().copied().find(|c| c.as_str() == code).unwrap_or(Code::Internal);
                Err(ApiError::new(code, message).with_details(details))
            }
        }
    }
}

/// What the request gets.
#[derive(Debug)]
pub enum Respuesta {
    /// The answer (a SAT refusal is an error here).
    Lista(Result<Descargado, ApiError>),
    /// SAT is taking longer: poll this job.
    EnCurso {
        /// `jobId`.
        job_id: String,
    },
}

/// The UUID in `entrada`: a UUID, or a SAT verification URL carrying it in its `id=`
/// parameter. INVALID_UUID otherwise. Gives it upper case (as SAT and the XML write it).
pub fn leer_uuid(entrada: &str) -> ApiResult<String> {
    let entrada = entrada.trim();
    let candidato = if entrada.contains("://") || entrada.contains('?') {
        let consulta = entrada.split_once('?').map_or("", |(_, consulta)| consulta);
        consulta
            .split('&')
            .filter_map(|par| par.split_once('='))
            .find(|(nombre, _)| nombre.eq_ignore_ascii_case("id"))
            .map(|(_, valor)| valor.trim().to_owned())
            .ok_or_else(|| {
                ApiError::new(
                    Code::InvalidUuid,
                    "the URL has no id= parameter with the UUID (SAT's verification URL carries it)",
                )
            })?
    } else {
        entrada.to_owned()
    };
    let uuid = candidato.to_uppercase();
    if !timbra_cfdi::timbre::uuid_valido(&uuid) {
        return Err(ApiError::new(
            Code::InvalidUuid,
            format!(
                "{candidato:?} is not a UUID: send XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX (hexadecimal) or SAT's verification URL"
            ),
        ));
    }
    Ok(uuid)
}

/// Downloads `uuid` for the company (its FIEL checked first): from what it holds, or through a
/// job it waits on for `TIMBRA_SAT_WAIT_SECONDS`.
pub async fn descargar(app: &AppContext, empresa: &Empresa, uuid: &str) -> ApiResult<Respuesta> {
    // SPEC.md: downloads need a configured FIEL in force, the cache's answers too.
    crate::cfdi::fiel::revisar(app, &empresa.id, &empresa.rfc).await?;
    let mut conn = app.db.conn().await?;
    if let Some(guardada) = recibidos::por_uuid(&mut conn, &empresa.id, uuid).await?
        && guardada.xml_download_status.as_deref() == Some(recibidos::COMPLETE)
    {
        return Ok(Respuesta::Lista(Ok(Descargado {
            source: Fuente::Cache,
            cfdi_id: guardada.id,
            xml_bytes: None,
            warning: None,
        })));
    }
    drop(conn);
    let cuota = cuota::leer(app, &empresa.rfc).await?;
    if cuota.restantes() == 0 {
        return Err(cuota.agotada());
    }
    // FIEL problems are answered now, not by the job.
    super::cliente(app, empresa).await?;
    let now = app.clock.now();
    let job_id = timbra_store::ids::new_id();
    let mut tx = app.db.begin().await?;
    descargas_uuid::crear(&mut tx, &DescargaId::from(&job_id), &empresa.id, uuid, now).await?;
    let job = NewJob::of::<DescargarPorUuid>(&PorUuid { descarga_id: job_id.clone() }).for_empresa(&empresa.id);
    jobs::enqueue_with_id(&mut tx, now, &job_id, job).await?;
    tx.commit().await?;

    let limite = tokio::time::Instant::now() + app.config.sat_espera;
    loop {
        if let Some(respuesta) = respuesta_de(app, &empresa.id, &job_id).await? {
            return Ok(respuesta);
        }
        if tokio::time::Instant::now() >= limite {
            return Ok(Respuesta::EnCurso { job_id });
        }
        tokio::time::sleep(std::time::Duration::from_millis(50).min(app.config.sat_espera)).await;
    }
}

/// The answer of job `job_id` of the company: `None` while it runs; DESCARGA_004 when the
/// company has no such job.
pub async fn consultar(app: &AppContext, empresa_id: &EmpresaId, job_id: &str) -> ApiResult<Respuesta> {
    Ok(respuesta_de(app, empresa_id, job_id).await?.unwrap_or(Respuesta::EnCurso { job_id: job_id.to_owned() }))
}

async fn respuesta_de(app: &AppContext, empresa_id: &EmpresaId, job_id: &str) -> ApiResult<Option<Respuesta>> {
    let mut conn = app.db.conn().await?;
    let Some(descarga) = descargas_uuid::de_empresa(&mut conn, empresa_id, &DescargaId::from(job_id)).await? else {
        return Err(ApiError::new(Code::Descarga004, "no download job with this id in this company"));
    };
    let Some(texto) = descarga.respuesta.filter(|_| descarga.estado == "DONE") else {
        return Ok(None);
    };
    let guardada: Guardada = serde_json::from_str(&texto).map_err(|e| ApiError::internal("descarga answer", e))?;
    Ok(Some(Respuesta::Lista(guardada.resultado())))
}

/// The job of one download by UUID.
pub struct DescargarPorUuid;

/// What [`DescargarPorUuid`] carries.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PorUuid {
    /// The `descargas_uuid` row (the job's id).
    pub descarga_id: String,
}

impl Job for DescargarPorUuid {
    type Context = AppContext;
    const KIND: &'static str = "sat.descargar_por_uuid";
    // Every outcome is an answer; more runs only recover from a stopped process.
    const MAX_ATTEMPTS: i64 = 3;
    type Payload = PorUuid;

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let PorUuid { descarga_id } = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        let hecho = async {
            let mut conn = app.db.conn().await?;
            let Some(descarga) = descargas_uuid::leer(&mut conn, &descarga_id).await? else {
                return Ok(());
            };
            drop(conn);
            if descarga.estado == "DONE" {
                return Ok(());
            }
            let resultado = match super::empresa(&app, &descarga.empresa_id).await {
                Ok(empresa) => obtener(&app, &empresa, &descarga.uuid).await,
                Err(error) => Err(error),
            };
            let status = match &resultado {
                Ok(_) => 200,
                Err(error) => i64::from(error.code.status().as_u16()),
            };
            let texto = serde_json::to_string(&Guardada::de(&resultado)).unwrap_or_default();
            let mut conn = app.db.conn().await?;
            descargas_uuid::terminar(&mut conn, &descarga_id, status, &texto, app.clock.now()).await?;
            Ok::<(), timbra_store::DbError>(())
        }
        .await;
        match hecho {
            Ok(()) => Attempt::ok(serde_json::Value::Null),
            Err(error) => Attempt::retry(error.to_string(), serde_json::Value::Null),
        }
    }
}

fn sat(error: SatError) -> ApiError {
    ApiError::sat(&error)
}

/// What one service answered a folio request.
enum Folio {
    /// The packages, read.
    Paquete(timbra_sat::Paquete),
    /// SAT has nothing for it on this service (5004): the error to answer if no service has.
    SinInformacion(SatError),
}

/// `SolicitaDescargaFolio` for `uuid` on `cliente`'s service, polled and every package read.
async fn pedir_folio(app: &AppContext, cliente: &timbra_sat::ClienteSat, uuid: &str) -> ApiResult<Folio> {
    let aceptada =
        crate::metrics::metrics().sat_call("solicitud_folio", cliente.solicitar_folio(uuid)).await.map_err(sat)?;
    let verificacion = match crate::metrics::metrics()
        .sat_call("verificacion", cliente.esperar(&aceptada.id_solicitud, super::consultas(app, VENTANA_VERIFICACION)))
        .await
    {
        Ok(verificacion) => verificacion,
        Err(error) if matches!(&error, SatError::Solicitud { estado: 5, codigo_estado, .. } if codigo_estado == "5004") =>
        {
            return Ok(Folio::SinInformacion(error));
        }
        Err(error) => return Err(sat(error)),
    };
    if verificacion.ids_paquetes.is_empty() || verificacion.numero_cfdis == 0 {
        return Err(ApiError::new(
            Code::CfdiNotFound,
            "SAT finished the request without any CFDI for this UUID; check the UUID, or try again later",
        ));
    }
    let mut paquete = timbra_sat::Paquete::default();
    for id_paquete in &verificacion.ids_paquetes {
        let bytes = crate::metrics::metrics().sat_call("descarga", cliente.descargar(id_paquete)).await.map_err(sat)?;
        let leido = super::leer_paquete(cliente, bytes).await?.map_err(sat)?;
        paquete.documentos.extend(leido.documentos);
        paquete.retenciones.extend(leido.retenciones);
        paquete.ilegibles.extend(leido.ilegibles);
        paquete.metadatos.extend(leido.metadatos);
    }
    Ok(Folio::Paquete(paquete))
}

/// Asks SAT for `uuid` and stores what it gives: the XML (COMPLETE; a metadata-only row is
/// completed), or its metadata (METADATA_ONLY with the first retry scheduled). A UUID the CFDI
/// service has nothing for is asked of the retention service.
pub async fn obtener(app: &AppContext, empresa: &Empresa, uuid: &str) -> ApiResult<Descargado> {
    let cliente = super::cliente(app, empresa).await?;
    let cuota = cuota::leer(app, &empresa.rfc).await?;
    if cuota.restantes() == 0 {
        return Err(cuota.agotada());
    }
    let paquete = match pedir_folio(app, &cliente, uuid).await? {
        Folio::Paquete(paquete) => paquete,
        // Not an invoice SAT knows: perhaps a retention (SAT's other service).
        Folio::SinInformacion(error) => match pedir_folio(app, &cliente.retenciones(), uuid).await? {
            Folio::Paquete(paquete) => paquete,
            Folio::SinInformacion(_) => return Err(sat(error)),
        },
    };
    let ajeno = |receptor: &str| {
        ApiError::new(
            Code::ReceptorMismatch,
            format!(
                "this invoice was issued to RFC {receptor}, not to this company ({}): only received invoices are downloaded",
                empresa.rfc
            ),
        )
    };
    if let Some(documento) = paquete.documentos.iter().find(|d| d.uuid.eq_ignore_ascii_case(uuid)) {
        if !documento.comprobante.receptor.rfc.eq_ignore_ascii_case(&empresa.rfc) {
            return Err(ajeno(&documento.comprobante.receptor.rfc));
        }
        let guardado = super::guardar(app, empresa, std::slice::from_ref(documento), &[], &[], None).await?;
        if guardado.sin_cuota > 0 {
            return Err(cuota::leer(app, &empresa.rfc).await?.agotada());
        }
        let (cfdi_id, _) =
            guardado.nuevos.into_iter().chain(guardado.completados).chain(guardado.ya_guardados).next().ok_or_else(
                || ApiError::new(Code::ParseError, "SAT's XML could not be read as a CFDI 4.0 (amounts or dates)"),
            )?;
        return Ok(Descargado {
            source: Fuente::SatPortal,
            cfdi_id,
            xml_bytes: Some(documento.xml.len() as i64),
            warning: None,
        });
    }
    if let Some(documento) = paquete.retenciones.iter().find(|d| d.uuid.eq_ignore_ascii_case(uuid)) {
        if !documento.rfc_receptor().is_some_and(|rfc| rfc.eq_ignore_ascii_case(&empresa.rfc)) {
            return Err(ajeno(documento.rfc_receptor().unwrap_or("(a foreign receiver)")));
        }
        let guardado = super::guardar(app, empresa, &[], std::slice::from_ref(documento), &[], None).await?;
        if guardado.sin_cuota > 0 {
            return Err(cuota::leer(app, &empresa.rfc).await?.agotada());
        }
        let (cfdi_id, _) = guardado.nuevos.into_iter().chain(guardado.ya_guardados).next().ok_or_else(|| {
            ApiError::new(Code::ParseError, "SAT's XML could not be read as a Retenciones 2.0 (amounts or dates)")
        })?;
        return Ok(Descargado {
            source: Fuente::SatPortal,
            cfdi_id,
            xml_bytes: Some(documento.xml.len() as i64),
            warning: None,
        });
    }
    if let Some(ilegible) = paquete.ilegibles.iter().find(|i| i.nombre.to_uppercase().contains(uuid)) {
        return Err(ApiError::new(Code::ParseError, format!("SAT's XML could not be read: {}", ilegible.motivo)));
    }
    let Some(metadato) = paquete.metadatos.iter().find(|m| m.uuid.eq_ignore_ascii_case(uuid)) else {
        return Err(ApiError::new(
            Code::UuidNotFound,
            "SAT's answer does not contain this UUID: it must be an invoice received by this company",
        ));
    };
    if !metadato.rfc_receptor.eq_ignore_ascii_case(&empresa.rfc) {
        return Err(ajeno(&metadato.rfc_receptor));
    }
    let warning = Some(
        "SAT has only the metadata of this invoice for now; the XML is retried automatically (up to 8 times over about \
         5 days, see xmlNextRetryAt) and cfdi.xml_disponible is sent when it arrives"
            .to_owned(),
    );
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    if let Some(guardada) = recibidos::por_uuid(&mut tx, &empresa.id, uuid).await? {
        return Ok(Descargado { source: Fuente::SatMetadataOnly, cfdi_id: guardada.id, xml_bytes: None, warning });
    }
    let proximo = now + time::Duration::minutes(ESPERAS_MINUTOS[0]);
    let Some(cfdi_id) = super::guardar_metadatos(&mut tx, empresa, metadato, proximo, now).await? else {
        return Err(ApiError::new(Code::Busy001, "the invoice was being stored by another request; retry"));
    };
    programar(&mut tx, &empresa.id, &cfdi_id, 1, proximo, now).await?;
    tx.commit().await?;
    Ok(Descargado { source: Fuente::SatMetadataOnly, cfdi_id, xml_bytes: None, warning })
}

/// Enqueues retry number `numero` (from 1) of `cfdi_id` at `at`.
async fn programar(
    tx: &mut db::Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    numero: i64,
    at: OffsetDateTime,
    now: OffsetDateTime,
) -> timbra_store::DbResult<()> {
    let job = NewJob::of::<ReintentarXml>(&Reintento { cfdi_id: cfdi_id.to_owned() })
        .for_empresa(empresa_id)
        .at(at)
        .dedupe(format!("{}:{cfdi_id}:{numero}:{}", ReintentarXml::KIND, at.unix_timestamp()));
    jobs::enqueue(tx, now, job).await.map(|_| ())
}

/// A background retry of a METADATA_ONLY invoice's XML.
pub struct ReintentarXml;

/// What [`ReintentarXml`] carries.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reintento {
    /// The received invoice.
    pub cfdi_id: CfdiId,
}

impl Job for ReintentarXml {
    type Context = AppContext;
    const KIND: &'static str = "sat.reintentar_xml";
    type Payload = Reintento;

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let Reintento { cfdi_id } = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        match reintentar(&app, &cfdi_id).await {
            Ok(info) => Attempt::ok(info),
            Err(error) => Attempt::retry(error.message, serde_json::Value::Null),
        }
    }
}

async fn reintentar(app: &AppContext, cfdi_id: &CfdiId) -> ApiResult<serde_json::Value> {
    let mut conn = app.db.conn().await?;
    let fila = recibidos::por_reintentar(&mut conn, cfdi_id).await?;
    drop(conn);
    let Some(fila) = fila.filter(|f| f.xml_download_status.as_deref() == Some(recibidos::METADATA_ONLY)) else {
        return Ok(serde_json::json!({ "skipped": "not METADATA_ONLY" }));
    };
    let empresa = super::empresa(app, &fila.empresa_id).await?;
    let now = app.clock.now();
    let cuota = cuota::leer(app, &empresa.rfc).await?;
    if cuota.restantes() == 0 {
        // Not an attempt: the same retry runs after the reset.
        let at = now + time::Duration::seconds(cuota.reinicio + 60);
        let mut tx = app.db.begin().await?;
        recibidos::reintento_fallido(&mut tx, &empresa.id, cfdi_id, fila.xml_retry_count, Some(at)).await?;
        programar(&mut tx, &empresa.id, cfdi_id, fila.xml_retry_count + 1, at, now).await?;
        tx.commit().await?;
        return Ok(serde_json::json!({ "postponed": "quota" }));
    }
    // This attempt counts whatever it brings (the completed row keeps the count).
    let hechos = fila.xml_retry_count + 1;
    let mut conn = app.db.conn().await?;
    recibidos::contar_reintento(&mut conn, &empresa.id, cfdi_id, hechos).await?;
    drop(conn);
    let resultado = obtener(app, &empresa, &fila.uuid_xml).await;
    if let Ok(Descargado { source: Fuente::SatPortal, .. }) = &resultado {
        return Ok(serde_json::json!({ "xml": "stored", "retry": hechos }));
    }
    let proximo = usize::try_from(hechos)
        .ok()
        .and_then(|n| ESPERAS_MINUTOS.get(n))
        .map(|minutos| now + time::Duration::minutes(*minutos));
    let mut tx = app.db.begin().await?;
    recibidos::reintento_fallido(&mut tx, &empresa.id, cfdi_id, hechos, proximo).await?;
    if let Some(at) = proximo {
        programar(&mut tx, &empresa.id, cfdi_id, hechos + 1, at, now).await?;
    }
    tx.commit().await?;
    let motivo = match resultado {
        Ok(_) => "metadata only".to_owned(),
        Err(error) => error.code.as_str().to_owned(),
    };
    tracing::info!(cfdi.id = %cfdi_id, cfdi.reintentos = hechos, motivo = %motivo, "received xml retry brought no xml");
    Ok(serde_json::json!({ "retry": hechos, "outcome": motivo }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_or_sat_url() {
        let uuid = "5fb2822e-396d-4725-8521-cdc4bdd20ccf";
        assert_eq!(leer_uuid(uuid).unwrap(), uuid.to_uppercase());
        let url = format!(
            "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id={uuid}&re=XIA190128J61&rr=EKU9003173C9&tt=1160.00&fe=AbCd1234"
        );
        assert_eq!(leer_uuid(&url).unwrap(), uuid.to_uppercase());
        for malo in ["", "not-a-uuid", "https://x.mx/?re=EKU9003173C9", "5fb2822e396d47258521cdc4bdd20ccf"] {
            assert_eq!(leer_uuid(malo).unwrap_err().code, Code::InvalidUuid, "{malo}");
        }
    }

    #[test]
    fn retries_span_about_five_days() {
        let total: i64 = ESPERAS_MINUTOS.iter().sum();
        assert_eq!(ESPERAS_MINUTOS.len(), 8);
        assert!((4 * 24 * 60..=5 * 24 * 60).contains(&total), "{total}");
    }
}
