//! Cancellation bookkeeping: the state change and its events in one transaction, and the
//! durable job that follows a cancellation until SAT's status says it is final.
//!
//! The PAC's answer to a request (`201`, "Petición de cancelación realizada exitosamente")
//! only says the request was received. What SAT decided is read from its status service
//! (`get_sat_status`), right after the request and then every 15 minutes by
//! [`SeguirCancelacion`]: SOLICITADA (SAT still shows the invoice in force) and PENDIENTE (SAT
//! waits for the receiver) keep the invoice TIMBRADO; SIN_ACEPTACION, ACEPTADA and
//! PLAZO_VENCIDO make it CANCELADO; RECHAZADA keeps it TIMBRADO and allows a new request.

use std::time::Duration;
use timbra_store::ids::{CfdiId, EmpresaId};

use serde_json::json;
use time::OffsetDateTime;

use crate::idempotency::Answer;
use http::StatusCode;
use timbra_cfdi::tipos::FolioFiscal;

use crate::cfdi::pac_log::{self, PacCall};
use crate::cfdi::{credenciales, fecha_cfdi, hora_local, tipos};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::Cancelacion;
use crate::events::{self, Event};
use crate::idempotency;
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};
use timbra_store::estados::{EstadoCancelacion, EstadoCfdi};
use timbra_store::{Tx, cfdis};

/// The Idempotency-Key operation name of an invoice's cancellation.
pub const OPERACION: &str = "cfdi.cancelar";

/// What SAT's status fields say about a cancellation the PAC accepted (PROTOCOLS.md §3:
/// `Estado`, `EsCancelable`, `EstatusCancelacion`).
pub fn estado_de_sat(sat: &timbra_pac::EstadoSat) -> EstadoCancelacion {
    let estatus = sat.estatus_cancelacion.trim().to_lowercase();
    let estado = sat.estado.trim().to_lowercase();
    if estatus == "plazo vencido" {
        EstadoCancelacion::PlazoVencido
    } else if estatus.starts_with("cancelado con") {
        EstadoCancelacion::Aceptada
    } else if estatus.starts_with("cancelado sin") {
        EstadoCancelacion::SinAceptacion
    } else if estado == "cancelado" {
        // Cancelled without the detail: EsCancelable says which way it went.
        if sat.es_cancelable.to_lowercase().contains("con aceptación") {
            EstadoCancelacion::Aceptada
        } else {
            EstadoCancelacion::SinAceptacion
        }
    } else if estatus == "en proceso" {
        EstadoCancelacion::Pendiente
    } else if estatus.contains("rechazada") {
        EstadoCancelacion::Rechazada
    } else {
        // Vigente with no cancellation status, or not found yet.
        EstadoCancelacion::Solicitada
    }
}

/// The events a move from `anterior` (`None`: a new request) to `estado` emits. They follow
/// SAT's real state: `factura.cancelada` only when SAT says cancelled,
/// The document type whose cancellation effects apply to a CFDI of `tipo_comprobante`.
fn tipo_de(tipo_comprobante: &str) -> ApiResult<&'static tipos::TipoDocumento> {
    tipos::por_tipo_comprobante(tipo_comprobante).ok_or_else(|| {
        ApiError::internal("cancellation", format!("no document type stamps TipoDeComprobante {tipo_comprobante:?}"))
    })
}

/// `factura.cancelacion_pendiente` only when SAT waits for the receiver.
fn eventos(estado: EstadoCancelacion, anterior: Option<EstadoCancelacion>) -> &'static [fn(Cancelacion) -> Event] {
    if anterior == Some(estado) {
        return &[];
    }
    match estado {
        EstadoCancelacion::Solicitada => &[],
        EstadoCancelacion::Pendiente => &[Event::FacturaCancelacionPendiente],
        EstadoCancelacion::SinAceptacion => &[Event::FacturaCancelada],
        // The receiver's silence past the deadline counts as acceptance.
        EstadoCancelacion::Aceptada | EstadoCancelacion::PlazoVencido => {
            &[Event::FacturaCancelacionAceptada, Event::FacturaCancelada]
        }
        EstadoCancelacion::Rechazada => &[Event::FacturaCancelacionRechazada],
    }
}

/// The invoice being cancelled.
pub struct Datos<'a> {
    /// Invoice id.
    pub cfdi_id: &'a CfdiId,
    /// UUID as the API shows it.
    pub uuid: &'a str,
    /// c_MotivoCancelacion.
    pub motivo: &'a str,
    /// Its c_TipoDeComprobante: whose cancellation effects apply ([`tipos`]).
    pub tipo_comprobante: &'a str,
    /// Sandbox: no PAC follows a cancellation in progress; the receiver's answer or its
    /// deadline settles it (`cfdi::receptor`).
    pub sandbox: bool,
}

/// Records a cancellation request in `tx` in the state SAT showed right after it: the invoice
/// becomes CANCELADO only when SAT says so (a payment CFDI then gives its amounts back to the
/// invoices it paid, in this same transaction); the events of that state are emitted; a state
/// that is not final enqueues [`SeguirCancelacion`].
pub async fn registrar(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    datos: &Datos<'_>,
    estado: EstadoCancelacion,
    folio_sustitucion: Option<&str>,
    acuse_url: Option<&str>,
) -> ApiResult<()> {
    let status = estado.cancelado().then_some(timbra_store::estados::EstadoCfdi::Cancelado.as_str());
    let cancelacion = cfdis::Cancelacion {
        status,
        estado: estado.as_str(),
        motivo: datos.motivo,
        folio_sustitucion,
        acuse_url,
        fecha_cancelacion: estado.cancelado().then_some(now),
    };
    cfdis::registrar_cancelacion(tx, empresa_id, datos.cfdi_id, &cancelacion).await?;
    if estado.cancelado() {
        (tipo_de(datos.tipo_comprobante)?.al_cancelar)(tx, empresa_id, datos.cfdi_id, now).await?;
        crate::correo::aviso_de_cancelacion(tx, now, empresa_id, datos.cfdi_id).await?;
    }
    let data = Cancelacion {
        cfdi_id: datos.cfdi_id.as_str().to_owned(),
        uuid: datos.uuid.to_owned(),
        motivo: Some(datos.motivo.to_owned()),
        cancellation_status: estado.as_str().to_owned(),
    };
    for evento in eventos(estado, None) {
        events::emit(tx, now, empresa_id, &evento(data.clone())).await?;
    }
    if estado.en_curso() && !datos.sandbox {
        let payload = Seguimiento { cfdi_id: datos.cfdi_id.to_owned() };
        let job =
            NewJob::of::<SeguirCancelacion>(&payload).for_empresa(empresa_id).at(now + SeguirCancelacion::INTERVALO);
        jobs::enqueue(tx, now, job).await?;
    }
    Ok(())
}

/// Checks a cancellation request of `fila` (motivo, folioSustitucion, the invoice's state) and
/// gives the motivo and the replacing UUID as stored.
///
/// # Errors
/// CANCEL_001 motivo or folioSustitucion invalid (not 01–04; a replacement that is not a
/// stamped invoice of the company, or sent without motivo 01); CANCEL_004 motivo 01 without
/// folioSustitucion; CANCEL_003 a cancellation in progress, or the invoice is not in force.
pub async fn revisar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    fila: &cfdis::PorCancelar,
    motivo: &str,
    folio_sustitucion: Option<&str>,
) -> ApiResult<(String, Option<String>)> {
    let motivo = motivo.trim().to_owned();
    if !["01", "02", "03", "04"].contains(&motivo.as_str()) {
        return Err(ApiError::new(
            Code::Cancel001,
            format!("motivo must be 01, 02, 03 or 04 (c_MotivoCancelacion), not «{motivo}»"),
        ));
    }
    let sustitucion = folio_sustitucion.map(str::trim).filter(|f| !f.is_empty());
    match (&sustitucion, motivo.as_str()) {
        (None, "01") => {
            return Err(ApiError::new(
                Code::Cancel004,
                "motivo 01 requires folioSustitucion: the UUID of the replacing invoice",
            ));
        }
        (Some(_), m) if m != "01" => {
            return Err(ApiError::new(Code::Cancel001, "folioSustitucion is only sent with motivo 01"));
        }
        _ => {}
    }
    let sustitucion = match sustitucion.map(FolioFiscal::leer).transpose() {
        Ok(folio) => folio.map(|folio| folio.as_str().to_owned()),
        Err(error) => return Err(ApiError::new(Code::Cancel001, format!("folioSustitucion: {error}"))),
    };
    if let Some(folio) = &sustitucion {
        // Anexo 20 / Guía de llenado de la cancelación: motivo 01 names the invoice that
        // replaces this one, which must exist, be stamped and come from the same issuer.
        let propio = fila.uuid_xml.to_uppercase();
        let estado = {
            let mut conn = app.db.conn().await?;
            cfdis::status_emitida(&mut conn, empresa_id, folio).await?
        };
        let problema = match estado.as_deref() {
            _ if *folio == propio => Some("is this same invoice; name the invoice that replaces it"),
            None => Some("is not an invoice issued by this company"),
            Some(status) if EstadoCfdi::parse(status).is_some_and(EstadoCfdi::vigente) => None,
            Some(_) => Some("is not a stamped invoice (it is cancelled or was never stamped)"),
        };
        if let Some(problema) = problema {
            return Err(ApiError::new(
                Code::Cancel001,
                format!("folioSustitucion {folio} {problema}; stamp the replacing invoice first and send its UUID"),
            )
            .with_details(serde_json::json!({ "field": "folioSustitucion" })));
        }
    }
    if let Some(estado) = fila.estado_cancelacion.as_deref().and_then(EstadoCancelacion::parse)
        && estado.en_curso()
    {
        return Err(ApiError::new(
            Code::Cancel003,
            format!(
                "a cancellation of this invoice is in progress ({}): SAT has not decided yet; \
                 its state follows SAT's, see cancellationStatus",
                estado.as_str()
            ),
        ));
    }
    if !EstadoCfdi::parse(&fila.status).is_some_and(EstadoCfdi::vigente) {
        return Err(ApiError::new(
            Code::Cancel003,
            format!("only stamped invoices can be cancelled; this one is {}", fila.status),
        ));
    }
    Ok((motivo, sustitucion))
}

/// A live cancellation request the PAC received.
pub struct Solicitada {
    /// What SAT's status said right after it.
    pub estado: EstadoCancelacion,
    /// Where SAT's acuse is stored.
    pub acuse_path: String,
    /// The acuse, as the PAC gave it.
    pub acuse: String,
}

/// Live: signs the cancellation of `fila` with the company's CSD, sends it through the PAC,
/// stores SAT's acuse next to the XML and asks SAT's status at once. Nothing is recorded: the
/// caller records the state in its transaction ([`registrar`]).
///
/// # Errors
/// CFDI_002/CFDI_003 the CSD; LIVE_001 no PAC; PAC_001/PAC_002 the PAC refused or did not
/// answer (the invoice is unchanged).
pub async fn solicitar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fila: &cfdis::PorCancelar,
    motivo: &str,
    sustitucion: Option<&str>,
    now: OffsetDateTime,
) -> ApiResult<Solicitada> {
    let csd = credenciales::csd_live(app, empresa_id, now).await?;
    let pac = app.pac.clone().ok_or_else(|| {
        ApiError::new(Code::Live001, "cancelling live invoices needs a PAC: the installation must set TIMBRA_PAC_URL")
    })?;
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let llamada = |operation| PacCall::new(operation, empresa_id).cfdi(id, fila.serie.as_deref(), fila.folio_num);
    let folios = [timbra_credentials::xmldsig::CancelacionFolio {
        uuid: fila.uuid_xml.clone(),
        motivo: motivo.to_owned(),
        folio_sustitucion: sustitucion.map(str::to_owned),
    }];
    // A CFDI de Retenciones goes to the PAC's retention service, its request in the retention
    // namespace; SAT cancels it without the receiver's acceptance.
    let tipo = super::tipos::por_tipo_comprobante(&fila.tipo_comprobante);
    let servicio = tipo.map_or(timbra_pac::Servicio::Cfdi, |tipo| tipo.servicio_pac);
    let ns = match servicio {
        timbra_pac::Servicio::Cfdi => timbra_credentials::xmldsig::NS_CANCELACION,
        timbra_pac::Servicio::Retenciones => timbra_credentials::xmldsig::NS_CANCELACION_RETENCIONES,
    };
    let firmada = timbra_credentials::xmldsig::sign_cancelacion_en(
        &csd.credential,
        ns,
        csd.credential.certificate().rfc(),
        &fecha_cfdi(fecha_local),
        &folios,
    )
    .map_err(|e| ApiError::internal("cancelacion", e))?;
    let solicitud = llamada("cancel_signature").recovery(|_| "invoice unchanged; the client is told to retry");
    let acuse = pac_log::logged(solicitud, pac.cancelar_en(servicio, &firmada))
        .await
        .map_err(|error| ApiError::pac(&error, "the invoice is unchanged, try again"))?;
    let acuse_path = guardar_acuse(app, empresa_id, id, fila, acuse.acuse.clone()).await?;
    if tipo.is_some_and(|tipo| tipo.cancela_sin_aceptacion()) {
        // SAT's retention service answers 1201 once it has cancelled (1202: cancelled
        // before); there is no acceptance to wait for and no status service to ask.
        return Ok(Solicitada { estado: EstadoCancelacion::SinAceptacion, acuse_path, acuse: acuse.acuse });
    }
    // The PAC's answer (201/202, "Petición de cancelación realizada exitosamente") says only
    // that the request was received: SAT's status says what became of it.
    let consulta = timbra_pac::ConsultaEstado {
        rfc_emisor: fila.emisor_rfc.clone(),
        rfc_receptor: fila.receptor_rfc.clone(),
        uuid: fila.uuid_xml.clone(),
        total: fila.total.0.to_string(),
    };
    let consultar = llamada("get_sat_status").recovery(|_| "recorded SOLICITADA; the follow-up job asks again");
    let estado = match consultar_sat(pac.as_ref(), consultar, &consulta).await {
        // A rejection right after a new request is the previous request's: the receiver has
        // not seen this one yet.
        Ok(sat) => match estado_de_sat(&sat) {
            EstadoCancelacion::Rechazada => EstadoCancelacion::Solicitada,
            estado => estado,
        },
        // The request was accepted: record it and let the job learn SAT's answer.
        Err(_) => EstadoCancelacion::Solicitada,
    };
    Ok(Solicitada { estado, acuse_path, acuse: acuse.acuse })
}

/// Stores an acuse next to the invoice's XML (`….acuse.xml`); its path.
pub async fn guardar_acuse(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fila: &cfdis::PorCancelar,
    acuse: String,
) -> ApiResult<String> {
    let base = fila
        .xml_url
        .as_deref()
        .and_then(|p| p.strip_suffix(".xml"))
        .map(str::to_owned)
        .unwrap_or_else(|| format!("cfdi/{empresa_id}/acuses/{id}"));
    let acuse_path = format!("{base}.acuse.xml");
    app.cfdi.storage.put(&acuse_path, acuse.into_bytes()).await.map_err(|e| ApiError::internal("storage put", e))?;
    Ok(acuse_path)
}

/// Stores a cancellation's answer under its Idempotency-Key and commits `tx`; when a concurrent
/// request with the same key committed first, answers as that one did.
#[allow(clippy::too_many_arguments)]
pub async fn cerrar(
    app: &AppContext,
    mut tx: Tx,
    empresa_id: &EmpresaId,
    clave: Option<&idempotency::Key>,
    uso: idempotency::Uso<'_>,
    answer: String,
    now: OffsetDateTime,
    reservada: bool,
) -> ApiResult<Answer> {
    if !idempotency::store_answer(&mut tx, empresa_id, clave, uso, StatusCode::OK, &answer, now, reservada).await?
        && let Some(clave) = clave
    {
        drop(tx);
        return idempotency::winner(&app.db, empresa_id, clave, Some(uso), now).await;
    }
    tx.commit().await?;
    Ok(idempotency::answer(StatusCode::OK, answer))
}

/// A cancellation moving from one state to the next (SAT's status, or in sandbox the
/// receiver's answer or its deadline).
#[derive(Clone, Copy)]
pub struct Movimiento<'a> {
    /// The issuer's company.
    pub empresa_id: &'a EmpresaId,
    /// The invoice.
    pub cfdi_id: &'a CfdiId,
    /// Its UUID as the API shows it.
    pub uuid: &'a str,
    /// c_MotivoCancelacion of the request.
    pub motivo: Option<&'a str>,
    /// c_TipoDeComprobante: whose cancellation effects apply.
    pub tipo_comprobante: &'a str,
    /// The state it is in.
    pub anterior: EstadoCancelacion,
    /// The state it moves to.
    pub nuevo: EstadoCancelacion,
}

/// Moves a cancellation in `tx` (the invoice CANCELADO with its type's effects when the new
/// state is final and cancelled) and emits the events of the new state; `false` when someone
/// else moved it first (nothing written).
pub async fn mover(tx: &mut Tx, now: OffsetDateTime, movimiento: &Movimiento<'_>) -> ApiResult<bool> {
    let Movimiento { empresa_id, cfdi_id, uuid, motivo, tipo_comprobante, anterior, nuevo } = *movimiento;
    let tipo = tipo_de(tipo_comprobante)?;
    let movidas =
        cfdis::avanzar_cancelacion(tx, cfdi_id.as_str(), anterior.as_str(), nuevo.as_str(), nuevo.cancelado(), now)
            .await?;
    if movidas != 1 {
        return Ok(false);
    }
    if nuevo.cancelado() {
        // What the type holds goes back with the CANCELADO it becomes (a payment's amounts, a
        // payroll receipt's status).
        (tipo.al_cancelar)(tx, empresa_id, cfdi_id, now).await?;
        crate::correo::aviso_de_cancelacion(tx, now, empresa_id, cfdi_id).await?;
    }
    let data = Cancelacion {
        cfdi_id: cfdi_id.as_str().to_owned(),
        uuid: uuid.to_owned(),
        motivo: motivo.map(str::to_owned),
        cancellation_status: nuevo.as_str().to_owned(),
    };
    for evento in eventos(nuevo, Some(anterior)) {
        events::emit(tx, now, empresa_id, &evento(data.clone())).await?;
    }
    Ok(true)
}

/// What the follow-up job does when SAT's status cannot be read (`pac.recovery`).
fn reintenta_el_seguimiento(_: &timbra_pac::PacError) -> &'static str {
    "the follow-up job asks again in 15 minutes"
}

/// Asks SAT (through the PAC) how the cancellation of an invoice stands, logging the call.
///
/// # Errors
/// The PAC's failure; the caller keeps the state it had.
pub async fn consultar_sat(
    pac: &dyn timbra_pac::Pac,
    llamada: PacCall<'_>,
    consulta: &timbra_pac::ConsultaEstado,
) -> Result<timbra_pac::EstadoSat, timbra_pac::PacError> {
    pac_log::logged(llamada, pac.estatus_cancelacion(consulta)).await
}

/// Asks SAT (through the PAC) every [`SeguirCancelacion::INTERVALO`] how a requested or pending
/// cancellation stands, for longer than the receiver's deadline of three business days.
pub struct SeguirCancelacion;

impl SeguirCancelacion {
    /// Time between status queries.
    pub const INTERVALO: Duration = Duration::from_secs(15 * 60);
}

/// What a [`SeguirCancelacion`] job carries.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seguimiento {
    /// The invoice whose cancellation is followed.
    pub cfdi_id: CfdiId,
}

impl Job for SeguirCancelacion {
    type Context = AppContext;
    const KIND: &'static str = "cfdi.seguir_cancelacion";
    type Payload = Seguimiento;
    // 700 × 15 min ≈ 7 days: beyond SAT's three business days (five calendar days over a
    // weekend, more with a holiday), after which an unanswered request is cancelled.
    const MAX_ATTEMPTS: i64 = 700;

    fn backoff(_attempt: i64) -> Duration {
        Self::INTERVALO
    }

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        match seguir(&app, &job).await {
            Ok(Some(info)) => Attempt::ok(info),
            Ok(None) => Attempt::retry("SAT has not decided yet (SOLICITADA or PENDIENTE)", serde_json::Value::Null),
            Err(error) => Attempt::retry(error, serde_json::Value::Null),
        }
    }
}

/// `Some` when the cancellation reached a final state (or there is nothing left to follow).
async fn seguir(app: &AppContext, job: &Claimed) -> Result<Option<serde_json::Value>, String> {
    let Seguimiento { cfdi_id } = job.payload::<SeguirCancelacion>()?;
    let fila = {
        let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
        cfdis::por_seguir(&mut conn, cfdi_id.as_str()).await.map_err(|e| e.to_string())?
    };
    let anterior = fila.as_ref().and_then(|f| f.estado_cancelacion.as_deref()).and_then(EstadoCancelacion::parse);
    let (Some(fila), Some(anterior)) = (fila, anterior.filter(|e| e.en_curso())) else {
        return Ok(Some(json!({ "skipped": "no cancellation in progress" })));
    };
    let pac = app.pac.clone().ok_or("no PAC configured (TIMBRA_PAC_URL)")?;
    let consulta = timbra_pac::ConsultaEstado {
        rfc_emisor: fila.emisor_rfc.clone(),
        rfc_receptor: fila.receptor_rfc.clone(),
        uuid: fila.uuid_xml.clone(),
        total: fila.total.0.to_string(),
    };
    let llamada = PacCall::new("get_sat_status", &fila.empresa_id)
        .cfdi(cfdi_id.as_str(), fila.serie.as_deref(), fila.folio_num)
        .recovery(reintenta_el_seguimiento);
    let estado = consultar_sat(pac.as_ref(), llamada, &consulta).await.map_err(|e| pac_log::summary(&e))?;
    let nuevo = estado_de_sat(&estado);
    // SAT showing the invoice in force while the receiver decides says nothing new.
    if nuevo == anterior || nuevo == EstadoCancelacion::Solicitada {
        return Ok(None);
    }
    let now = app.clock.now();
    let movimiento = Movimiento {
        empresa_id: &fila.empresa_id,
        cfdi_id: &cfdi_id,
        uuid: &fila.uuid,
        motivo: fila.motivo_cancelacion.as_deref(),
        tipo_comprobante: &fila.tipo_comprobante,
        anterior,
        nuevo,
    };
    let escribir = async {
        let mut tx = app.db.begin().await?;
        mover(&mut tx, now, &movimiento).await?;
        tx.commit().await?;
        Ok::<_, ApiError>(())
    };
    escribir.await.map_err(|e| format!("{}: {}", e.code.as_str(), e.message))?;
    if nuevo.en_curso() {
        // SOLICITADA → PENDIENTE recorded; SAT now waits for the receiver.
        return Ok(None);
    }
    Ok(Some(json!({ "cancellationStatus": nuevo.as_str(), "estatusSat": estado.estatus_cancelacion })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sat(estado: &str, es_cancelable: &str, estatus: &str) -> timbra_pac::EstadoSat {
        timbra_pac::EstadoSat {
            codigo_estatus: "S - Comprobante obtenido satisfactoriamente.".into(),
            estado: estado.into(),
            es_cancelable: es_cancelable.into(),
            estatus_cancelacion: estatus.into(),
        }
    }

    #[test]
    fn only_sat_status_decides_and_every_text_has_its_state() {
        use EstadoCancelacion::*;
        let con = "Cancelable con aceptación";
        let sin = "Cancelable sin aceptación";
        for (campos, esperado) in [
            (sat("Vigente", sin, ""), Solicitada),
            (sat("No Encontrado", "", ""), Solicitada),
            (sat("Vigente", con, "En proceso"), Pendiente),
            (sat("Cancelado", sin, "Cancelado sin aceptación"), SinAceptacion),
            (sat("Cancelado", con, "Cancelado con aceptación"), Aceptada),
            (sat("Cancelado", con, "Plazo vencido"), PlazoVencido),
            (sat("Vigente", con, "Solicitud rechazada"), Rechazada),
            (sat("Cancelado", con, ""), Aceptada),
            (sat("Cancelado", sin, ""), SinAceptacion),
        ] {
            assert_eq!(estado_de_sat(&campos), esperado, "{campos:?}");
            assert_eq!(EstadoCancelacion::parse(esperado.as_str()), Some(esperado));
        }
        assert!(Solicitada.en_curso() && Pendiente.en_curso() && !Rechazada.en_curso());
        assert!(!Rechazada.cancelado() && PlazoVencido.cancelado() && !Solicitada.cancelado());
        assert!(eventos(Pendiente, Some(Pendiente)).is_empty());
        assert!(eventos(Solicitada, None).is_empty());
        assert_eq!(eventos(Aceptada, Some(Pendiente)).len(), 2);
    }
}
