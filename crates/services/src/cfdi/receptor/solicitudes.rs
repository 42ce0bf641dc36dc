//! Cancellation requests where the company is the receiver: `GET /api/cancelaciones/pendientes`
//! and `POST /api/cancelaciones/pendientes/{uuid}`.
//!
//! Live, the PAC knows them (Finkok `get_pending`): the listing and [`BuscarSolicitudes`] (every
//! `TIMBRA_RECEPTOR_POLL_MINUTES`) record each new UUID once, with `factura.cancelacion_recibida`
//! in the same transaction; `fechaSolicitud` is when the service first saw it (the PAC gives no
//! date). The answer is SAT's `SolicitudAceptacionRechazo` signed with the company's CSD and
//! sent through the PAC (`accept_reject_signature`).
//!
//! Sandbox plays both sides: a sandbox company cancelling a CFDI that needs acceptance
//! ([`super::cancelable`]) leaves it PENDIENTE and puts the request in the list of every sandbox
//! company of the installation whose RFC is the receiver's ([`solicitar_sandbox`]); the answer
//! completes (ACEPTADA, CANCELADO) or refuses (RECHAZADA, TIMBRADO) the issuer's cancellation;
//! with no answer, [`VencerPlazo`] cancels it when the three business days pass (PLAZO_VENCIDO),
//! except a request after a rejection, which SAT leaves without an automatic deadline.

use std::collections::HashSet;
use timbra_store::ids::{CfdiId, EmpresaId};

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use timbra_cfdi::aceptacion_rechazo::{self, FolioRespuesta, Respuesta, SolicitudAceptacionRechazo};
use timbra_cfdi::timbre::uuid_valido;
use timbra_store::Paging;
use timbra_store::cfdis::PorCancelar;
use timbra_store::estados::EstadoCancelacion;
use timbra_store::solicitudes_cancelacion::{self as db, Nueva, SolicitudRow};
use timbra_store::{Money, Tx, empresas, ids};

use crate::cfdi::cancelacion::{self, Movimiento};
use crate::cfdi::pac_log::{self, PacCall};
use crate::cfdi::plazos;
use crate::cfdi::{credenciales, fecha_cfdi, hora_local};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::{CancelacionRecibida, CancelacionRespondida};
use crate::events::{self, Event};
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};

/// RFC of the PAC that sends a live answer (`RfcPacEnviaSolicitud`; Finkok's, PROTOCOLS.md §2.1).
pub const RFC_PAC_FINKOK: &str = "CVD110412TF6";

/// `origen` of requests the PAC lists.
const PAC: &str = "PAC";
/// `origen` of requests a sandbox company of this installation made.
const SANDBOX: &str = "SANDBOX";

/// A cancellation request waiting for the company's answer. Every key is always present
/// (`null` when unknown).
#[derive(Serialize, ToSchema, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SolicitudOut {
    /// The CFDI's UUID (as its XML carries it).
    pub uuid: String,
    /// The issuer's RFC: the stored received CFDI's (sandbox: the issuing company's); `null`
    /// when the service does not have the CFDI.
    pub rfc_emisor: Option<String>,
    /// When the request was made, or first seen when the PAC gives no date.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub fecha_solicitud: OffsetDateTime,
    /// The received CFDI stored in this company (`GET /api/cfdi/{id}`), or `null`.
    pub cfdi_id: Option<String>,
    /// Its `Total`, or `null`.
    pub total: Option<String>,
    /// The issuer's name, or `null`.
    pub nombre_emisor: Option<String>,
    /// `fechaSolicitud` plus three business days: with no answer by then SAT cancels the CFDI.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub plazo_vence: OffsetDateTime,
}

impl From<SolicitudRow> for SolicitudOut {
    fn from(row: SolicitudRow) -> Self {
        Self {
            uuid: row.uuid,
            rfc_emisor: row.rfc_emisor,
            fecha_solicitud: hora_local(row.fecha_solicitud),
            cfdi_id: row.cfdi_id.map(String::from),
            total: row.total.map(|total| total.0.to_string()),
            nombre_emisor: row.nombre_emisor,
            plazo_vence: hora_local(row.plazo_vence),
        }
    }
}

/// The company's answer, as recorded.
#[derive(Serialize, ToSchema, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct RespuestaOut {
    /// The CFDI's UUID.
    pub uuid: String,
    /// `aceptar` or `rechazar`.
    pub respuesta: String,
    /// SAT's `EstatusCancelacion` after the answer: `Cancelado con aceptación` or
    /// `Solicitud rechazada`.
    pub estatus: String,
    /// The acuse (XML): SAT's, as the PAC returned it; in sandbox the service's.
    pub acuse: String,
}

/// The company (`id`, RFC, name, sandbox).
async fn empresa(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<empresas::EmpresaEmisora> {
    let mut conn = app.db.conn().await?;
    Ok(empresas::emisora(&mut conn, empresa_id).await?)
}

/// Records `uuid` as a new request of company `empresa_id` (unless one is open) and emits
/// `factura.cancelacion_recibida`, in `tx`; whether it was new.
#[allow(clippy::too_many_arguments)]
async fn recibir(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    uuid: &str,
    origen: &str,
    emisor: Option<(&str, &str, Money)>,
    cfdi_emitido_id: Option<&str>,
) -> ApiResult<bool> {
    let id = ids::new_id();
    let plazo_vence = plazos::plazo_vence(now);
    let nueva = Nueva {
        id: &id,
        empresa_id,
        uuid,
        origen,
        rfc_emisor: emisor.map(|(rfc, _, _)| rfc),
        nombre_emisor: emisor.map(|(_, nombre, _)| nombre),
        total: emisor.map(|(_, _, total)| total),
        cfdi_emitido_id,
        fecha_solicitud: now,
        plazo_vence,
    };
    if db::insertar(tx, &nueva, now).await? == 0 {
        return Ok(false);
    }
    // The issuer's RFC as the listing shows it: the stored received CFDI's, else the request's.
    let rfc_emisor = db::ultima(tx, empresa_id, uuid).await?.and_then(|fila| fila.rfc_emisor);
    let evento = CancelacionRecibida {
        uuid: uuid.to_owned(),
        rfc_emisor,
        fecha_solicitud: hora_local(now),
        plazo_vence: hora_local(plazo_vence),
    };
    events::emit(tx, now, empresa_id, &Event::FacturaCancelacionRecibida(evento)).await?;
    Ok(true)
}

/// Live: asks the PAC which requests wait for company `empresa_id` (RFC `rfc`), records the new
/// ones once and closes the ones the PAC no longer lists; how many were new.
///
/// # Errors
/// LIVE_001 no PAC; PAC_001/PAC_002 the PAC refused or did not answer.
pub async fn sincronizar(app: &AppContext, empresa_id: &EmpresaId, rfc: &str) -> ApiResult<usize> {
    let pac = app.pac.clone().ok_or_else(|| {
        ApiError::new(
            Code::Live001,
            "live cancellation requests come from the PAC: the installation must set TIMBRA_PAC_URL",
        )
    })?;
    // The open requests are read before the PAC is asked: one recorded meanwhile by a concurrent
    // poll (from a newer list than this one) is never closed for missing from this list.
    let abiertas: HashSet<String> = {
        let mut conn = app.db.conn().await?;
        db::uuids_abiertos(&mut conn, empresa_id, PAC).await?.into_iter().collect()
    };
    let llamada =
        PacCall::new("get_pending", empresa_id).recovery(|_| "nothing recorded; asked again on the next poll");
    let pendientes = pac_log::logged(llamada, pac.pendientes(rfc))
        .await
        .map_err(|error| ApiError::pac(&error, "nothing was recorded, try again"))?;
    let pendientes: Vec<String> = pendientes.iter().map(|uuid| uuid.trim().to_uppercase()).collect();
    let now = app.clock.now();
    let mut nuevas = 0;
    let mut tx = app.db.begin().await?;
    for uuid in pendientes.iter().filter(|uuid| !abiertas.contains(*uuid)) {
        // An answer SAT has not reflected yet is not a new request; a request after a
        // rejection a day ago or more is.
        if let Some(ultima) = db::ultima(&mut tx, empresa_id, uuid).await?
            && let Some(respondida) = ultima.respondida_en
            && (ultima.respuesta.as_deref() == Some("aceptar") || now - respondida < time::Duration::days(1))
        {
            continue;
        }
        if recibir(&mut tx, now, empresa_id, uuid, PAC, None, None).await? {
            nuevas += 1;
        }
    }
    let listadas: HashSet<&String> = pendientes.iter().collect();
    for uuid in abiertas.iter().filter(|uuid| !listadas.contains(uuid)) {
        db::cerrar(&mut tx, empresa_id, uuid, "Sin solicitud pendiente en el SAT", now).await?;
    }
    tx.commit().await?;
    Ok(nuevas)
}

/// `GET /api/cancelaciones/pendientes`: one page of the requests waiting for the company's
/// answer, the nearest deadline first (live: asked to the PAC first).
///
/// # Errors
/// Live: LIVE_001, PAC_001/PAC_002.
pub async fn listar(app: &AppContext, empresa_id: &EmpresaId, paging: Paging) -> ApiResult<(Vec<SolicitudOut>, i64)> {
    let empresa = empresa(app, empresa_id).await?;
    if !empresa.sandbox {
        sincronizar(app, empresa_id, &empresa.rfc).await?;
    }
    let mut conn = app.db.conn().await?;
    let (filas, total) = db::abiertas(&mut conn, empresa_id, paging.page_size, paging.offset()).await?;
    Ok((filas.into_iter().map(SolicitudOut::from).collect(), total))
}

/// The answer as the API names it.
fn respuesta_de(texto: &str) -> ApiResult<(Respuesta, &'static str)> {
    match texto.trim() {
        "aceptar" => Ok((Respuesta::Aceptacion, "aceptar")),
        "rechazar" => Ok((Respuesta::Rechazo, "rechazar")),
        otro => Err(ApiError::new(
            Code::Cancelacion003,
            format!(
                "respuesta must be \"aceptar\" (the CFDI is cancelled) or \"rechazar\" (it stays valid), not {otro:?}"
            ),
        )
        .with_details(serde_json::json!({ "field": "respuesta" }))),
    }
}

fn sin_solicitud(uuid: &str, porque: &str) -> ApiError {
    ApiError::new(
        Code::Cancelacion001,
        format!("no cancellation request waits for this company's answer for {uuid}: {porque}"),
    )
}

fn ya_respondida(fila: &SolicitudRow) -> ApiError {
    ApiError::new(
        Code::Cancelacion002,
        format!(
            "the cancellation request for {} was already answered ({}); SAT takes one answer per request",
            fila.uuid,
            fila.respuesta.as_deref().unwrap_or("by another channel")
        ),
    )
    .with_details(serde_json::json!({
        "respuesta": fila.respuesta,
        "respondidaEn": fila.respondida_en.map(crate::cfdi::credenciales::rfc3339),
    }))
}

/// The open request for `uuid`, or why there is none.
fn abierta(fila: Option<SolicitudRow>, uuid: &str) -> ApiResult<SolicitudRow> {
    match fila {
        None => Err(sin_solicitud(uuid, "no supplier asked to cancel it (see GET /api/cancelaciones/pendientes)")),
        Some(fila) if fila.respuesta.is_some() => Err(ya_respondida(&fila)),
        Some(fila) if fila.cerrada_en.is_some() => Err(sin_solicitud(
            uuid,
            &format!(
                "the request ended without this company's answer ({})",
                fila.estatus.as_deref().unwrap_or("closed")
            ),
        )),
        Some(fila) => Ok(fila),
    }
}

/// The signed `SolicitudAceptacionRechazo` for `uuid`.
fn firmar(
    csd: &credenciales::Csd,
    rfc_receptor: &str,
    rfc_pac: &str,
    uuid: &str,
    respuesta: Respuesta,
    now: OffsetDateTime,
) -> ApiResult<String> {
    let solicitud = SolicitudAceptacionRechazo {
        rfc_receptor: rfc_receptor.to_owned(),
        rfc_pac_envia_solicitud: rfc_pac.to_owned(),
        fecha: fecha_cfdi(hora_local(now.replace_nanosecond(0).unwrap_or(now))),
        folios: vec![FolioRespuesta { uuid: uuid.to_owned(), respuesta }],
    };
    aceptacion_rechazo::firmar_aceptacion_rechazo(&solicitud, &csd.credential).map_err(|error| match error {
        aceptacion_rechazo::ErrorAceptacionRechazo::OtroRfc { certificado, receptor } => ApiError::new(
            Code::Cfdi002,
            format!(
                "the company's CSD is of {certificado}, not of the receiver {receptor}: upload the company's own CSD"
            ),
        ),
        otro => ApiError::internal("aceptacion_rechazo", otro),
    })
}

/// SAT's `EstatusCancelacion` after an answer.
fn estatus_tras(respuesta: Respuesta) -> &'static str {
    match respuesta {
        Respuesta::Aceptacion => "Cancelado con aceptación",
        Respuesta::Rechazo => "Solicitud rechazada",
    }
}

/// `POST /api/cancelaciones/pendientes/{uuid}`: answers the request for `uuid` with
/// `respuesta` (`aceptar` or `rechazar`), signed with the company's CSD; the acuse is stored.
///
/// # Errors
/// CANCELACION_003 another word; CANCELACION_001 no request waits (also a malformed UUID);
/// CANCELACION_002 answered before; CFDI_002/CFDI_003 the CSD (live); LIVE_001, PAC_001/PAC_002.
pub async fn responder(
    app: &AppContext,
    empresa_id: &EmpresaId,
    uuid: &str,
    respuesta: &str,
) -> ApiResult<RespuestaOut> {
    let (respuesta, palabra) = respuesta_de(respuesta)?;
    let uuid = uuid.trim().to_uppercase();
    let uuid = uuid.strip_prefix("SANDBOX-").unwrap_or(&uuid).to_owned();
    if !uuid_valido(&uuid) {
        return Err(sin_solicitud(&uuid, "it is not a UUID"));
    }
    let empresa = empresa(app, empresa_id).await?;
    let mut fila = {
        let mut conn = app.db.conn().await?;
        db::ultima(&mut conn, empresa_id, &uuid).await?
    };
    if !empresa.sandbox && fila.as_ref().is_none_or(|fila| fila.respuesta.is_some() || fila.cerrada_en.is_some()) {
        // A request the listing has not shown yet.
        sincronizar(app, empresa_id, &empresa.rfc).await?;
        let mut conn = app.db.conn().await?;
        fila = db::ultima(&mut conn, empresa_id, &uuid).await?;
    }
    let fila = abierta(fila, &uuid)?;
    let now = app.clock.now();
    if empresa.sandbox {
        responder_sandbox(app, &empresa, &fila, respuesta, palabra, now).await
    } else {
        responder_live(app, &empresa, &fila, respuesta, palabra, now).await
    }
}

/// Records the answer and its event in `tx`; CANCELACION_002 when another answer won.
async fn registrar_respuesta(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    fila: &SolicitudRow,
    palabra: &str,
    estatus: &str,
    acuse: &str,
    now: OffsetDateTime,
) -> ApiResult<()> {
    let registro = db::Respuesta { respuesta: palabra, estatus, acuse };
    if db::responder(tx, &fila.id, &registro, now).await? != 1 {
        return Err(ApiError::new(
            Code::Cancelacion002,
            format!("the cancellation request for {} was answered or closed meanwhile", fila.uuid),
        ));
    }
    let evento = CancelacionRespondida {
        uuid: fila.uuid.clone(),
        respuesta: palabra.to_owned(),
        estatus: estatus.to_owned(),
        cfdi_id: fila.cfdi_id.clone().map(String::from),
    };
    events::emit(tx, now, empresa_id, &Event::FacturaCancelacionRespondida(evento)).await?;
    Ok(())
}

async fn responder_live(
    app: &AppContext,
    empresa: &empresas::EmpresaEmisora,
    fila: &SolicitudRow,
    respuesta: Respuesta,
    palabra: &str,
    now: OffsetDateTime,
) -> ApiResult<RespuestaOut> {
    let csd = credenciales::csd_live(app, &empresa.id, now).await?;
    let pac = app.pac.clone().ok_or_else(|| {
        ApiError::new(
            Code::Live001,
            "answering live cancellation requests needs a PAC: the installation must set TIMBRA_PAC_URL",
        )
    })?;
    let firmada = firmar(&csd, &empresa.rfc, RFC_PAC_FINKOK, &fila.uuid, respuesta, now)?;
    let llamada = PacCall::new("accept_reject_signature", &empresa.id)
        .recovery(|_| "nothing recorded; the answer can be sent again");
    let contestacion = pac_log::logged(llamada, pac.aceptar_rechazar(&firmada))
        .await
        .map_err(|error| ApiError::pac(&error, "the answer was not recorded; send it again"))?;
    let folio = contestacion.folio(&fila.uuid).ok_or_else(|| {
        ApiError::new(
            Code::Pac001,
            format!(
                "the PAC did not answer for {}{}; nothing was recorded",
                fila.uuid,
                contestacion.error.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
            ),
        )
    })?;
    match folio.codigo.as_str() {
        timbra_pac::CODIGO_RESPUESTA_RECIBIDA => {}
        codigo @ ("1001" | "1002") => {
            let mut tx = app.db.begin().await?;
            let estatus = format!("{codigo} - {}", folio.mensaje());
            db::cerrar(&mut tx, &empresa.id, &fila.uuid, &estatus, now).await?;
            tx.commit().await?;
            let codigo_api = if codigo == "1001" { Code::Cancelacion001 } else { Code::Cancelacion002 };
            return Err(ApiError::new(codigo_api, format!("SAT answered {codigo}: «{}»", folio.mensaje()))
                .with_details(serde_json::json!({ "satCodigo": codigo })));
        }
        codigo => {
            return Err(ApiError::new(
                Code::Pac001,
                format!("SAT refused the answer ({codigo}): «{}»; nothing was recorded", folio.mensaje()),
            )
            .with_details(serde_json::json!({ "pacCode": codigo })));
        }
    }
    let estatus = estatus_tras(respuesta);
    let acuse = contestacion.acuse.clone().unwrap_or(firmada);
    let mut tx = app.db.begin().await?;
    registrar_respuesta(&mut tx, &empresa.id, fila, palabra, estatus, &acuse, now).await?;
    tx.commit().await?;
    Ok(RespuestaOut { uuid: fila.uuid.clone(), respuesta: palabra.to_owned(), estatus: estatus.to_owned(), acuse })
}

/// The service's acuse of a sandbox answer (SAT's shape, code `1000`).
fn acuse_sandbox(rfc_receptor: &str, uuid: &str, respuesta: Respuesta, fecha: &str) -> String {
    format!(
        "<AcuseAceptacionRechazo xmlns=\"http://cancelacfd.sat.gob.mx\" Fecha=\"{fecha}\" RfcReceptor=\"{}\" \
         Modo=\"SANDBOX\"><Folios><UUID>{uuid}</UUID><EstatusUUID>{}</EstatusUUID><Respuesta>{}</Respuesta></Folios>\
         </AcuseAceptacionRechazo>",
        timbra_cfdi::escritura::escapar_atributo(rfc_receptor),
        timbra_pac::CODIGO_RESPUESTA_RECIBIDA,
        respuesta.texto()
    )
}

async fn responder_sandbox(
    app: &AppContext,
    empresa: &empresas::EmpresaEmisora,
    fila: &SolicitudRow,
    respuesta: Respuesta,
    palabra: &str,
    now: OffsetDateTime,
) -> ApiResult<RespuestaOut> {
    // Signed as live (the whole path runs), with the company's sandbox CSD.
    let csd = credenciales::csd_sandbox(app, &empresa.id, &empresa.rfc, &empresa.razon_social).await?;
    firmar(&csd, &empresa.rfc, credenciales::RFC_PAC_SANDBOX, &fila.uuid, respuesta, now)?;
    let acuse = acuse_sandbox(&empresa.rfc, &fila.uuid, respuesta, &fecha_cfdi(hora_local(now)));
    let estatus = estatus_tras(respuesta);
    let mut tx = app.db.begin().await?;
    registrar_respuesta(&mut tx, &empresa.id, fila, palabra, estatus, &acuse, now).await?;
    if let Some(emitido) = fila.cfdi_emitido_id.as_deref() {
        let nuevo = match respuesta {
            Respuesta::Aceptacion => EstadoCancelacion::Aceptada,
            Respuesta::Rechazo => EstadoCancelacion::Rechazada,
        };
        if !completar_emisor(&mut tx, &CfdiId::from(emitido), nuevo, now).await? {
            drop(tx);
            return Err(sin_solicitud(&fila.uuid, "the issuer's cancellation is no longer waiting for an answer"));
        }
        // Other sandbox companies with the same RFC got the same request: it is answered.
        db::cerrar_de_emitido(&mut tx, &CfdiId::from(emitido), estatus, now).await?;
    }
    tx.commit().await?;
    Ok(RespuestaOut { uuid: fila.uuid.clone(), respuesta: palabra.to_owned(), estatus: estatus.to_owned(), acuse })
}

/// Sandbox: moves the issuer's invoice `cfdi_id` from PENDIENTE to `nuevo` in `tx` (with its
/// events in the issuer's company); `false` when it is no longer PENDIENTE.
async fn completar_emisor(
    tx: &mut Tx,
    cfdi_id: &CfdiId,
    nuevo: EstadoCancelacion,
    now: OffsetDateTime,
) -> ApiResult<bool> {
    let Some((empresa_id, fila)) = timbra_store::cfdis::por_cancelar_de_cualquiera(tx, cfdi_id.as_str()).await? else {
        return Ok(false);
    };
    if fila.estado_cancelacion.as_deref() != Some(EstadoCancelacion::Pendiente.as_str()) {
        return Ok(false);
    }
    let motivo = motivo_de(tx, cfdi_id).await?;
    let movimiento = Movimiento {
        empresa_id: &EmpresaId::from(&empresa_id),
        cfdi_id,
        uuid: &fila.uuid,
        motivo: motivo.as_deref(),
        tipo_comprobante: &fila.tipo_comprobante,
        anterior: EstadoCancelacion::Pendiente,
        nuevo,
    };
    cancelacion::mover(tx, now, &movimiento).await
}

async fn motivo_de(tx: &mut Tx, cfdi_id: &CfdiId) -> ApiResult<Option<String>> {
    Ok(timbra_store::cfdis::por_seguir(tx, cfdi_id.as_str()).await?.and_then(|fila| fila.motivo_cancelacion))
}

/// Sandbox, in the issuer's cancellation transaction: the request for invoice `cfdi_id`
/// (`fila`, now PENDIENTE) reaches every sandbox company of the installation whose RFC is the
/// receiver's, with `factura.cancelacion_recibida` in each; unless `sin_plazo` (a request after
/// a rejection), [`VencerPlazo`] settles it when the three business days pass.
pub async fn solicitar_sandbox(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    fila: &PorCancelar,
    sin_plazo: bool,
) -> ApiResult<()> {
    let uuid = fila.uuid_xml.to_uppercase();
    for receptor in empresas::sandbox_por_rfc(tx, &fila.receptor_rfc).await? {
        let emisor = Some((fila.emisor_rfc.as_str(), fila.emisor_nombre.as_str(), fila.total));
        recibir(tx, now, &EmpresaId::from(&receptor), &uuid, SANDBOX, emisor, Some(cfdi_id.as_str())).await?;
    }
    if !sin_plazo {
        let payload = Plazo { cfdi_id: cfdi_id.to_owned() };
        let job = NewJob::of::<VencerPlazo>(&payload).for_empresa(empresa_id).at(plazos::plazo_vence(now));
        jobs::enqueue(tx, now, job).await?;
    }
    Ok(())
}

/// Sandbox: when the receiver's three business days pass with the issuer's cancellation still
/// PENDIENTE, SAT cancels the CFDI ("Plazo vencido"): PLAZO_VENCIDO, CANCELADO, the events of
/// the issuer, and the receivers' requests closed.
pub struct VencerPlazo;

/// What a [`VencerPlazo`] job carries.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plazo {
    /// The issuer's invoice.
    pub cfdi_id: CfdiId,
}

impl Job for VencerPlazo {
    type Context = AppContext;
    const KIND: &'static str = "cfdi.plazo_cancelacion";
    type Payload = Plazo;

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let Plazo { cfdi_id } = match job.payload::<VencerPlazo>() {
            Ok(plazo) => plazo,
            Err(error) => return Attempt::fail(error),
        };
        let vencer = async {
            let now = app.clock.now();
            let mut tx = app.db.begin().await?;
            let movida = completar_emisor(&mut tx, &cfdi_id, EstadoCancelacion::PlazoVencido, now).await?;
            if movida {
                db::cerrar_de_emitido(&mut tx, &cfdi_id, "Plazo vencido", now).await?;
            }
            tx.commit().await?;
            Ok::<_, ApiError>(movida)
        };
        match vencer.await {
            Ok(true) => Attempt::ok(serde_json::json!({ "cancellationStatus": "PLAZO_VENCIDO" })),
            Ok(false) => Attempt::ok(serde_json::json!({ "skipped": "answered before the deadline" })),
            Err(error) => {
                Attempt::retry(format!("{}: {}", error.code.as_str(), error.message), serde_json::Value::Null)
            }
        }
    }
}

/// Live: asks the PAC for new cancellation requests of every live company with a CSD and
/// records each once (`factura.cancelacion_recibida`); then writes its next run
/// (`TIMBRA_RECEPTOR_POLL_MINUTES` later). Seeded daily, so a lost chain restarts.
pub struct BuscarSolicitudes;

impl Job for BuscarSolicitudes {
    type Context = AppContext;
    const KIND: &'static str = "cfdi.buscar_solicitudes";
    type Payload = crate::jobs::Day;
    const MAX_ATTEMPTS: i64 = 3;

    async fn run(app: AppContext, _job: Claimed) -> Attempt {
        let buscar = async {
            if app.pac.is_none() {
                return Ok(serde_json::json!({ "skipped": "no PAC (TIMBRA_PAC_URL)" }));
            }
            let companias = {
                let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
                empresas::live_con_csd(&mut conn).await.map_err(|e| e.to_string())?
            };
            let (mut nuevas, mut fallidas) = (0, 0);
            for (empresa_id, rfc) in &companias {
                match sincronizar(&app, &EmpresaId::from(empresa_id), rfc).await {
                    Ok(n) => nuevas += n,
                    Err(error) => {
                        tracing::warn!(empresa.id = %empresa_id, error.message = %error.message, "pending cancellation requests not read");
                        fallidas += 1;
                    }
                }
            }
            Ok::<_, String>(serde_json::json!({ "empresas": companias.len(), "nuevas": nuevas, "fallidas": fallidas }))
        };
        let resultado = buscar.await;
        let siguiente = super::estado_sat::siguiente::<Self>(&app).await;
        match (resultado, siguiente) {
            (Ok(info), Ok(())) => Attempt::ok(info),
            (Err(error), _) | (_, Err(error)) => Attempt::retry(error, serde_json::Value::Null),
        }
    }
}
