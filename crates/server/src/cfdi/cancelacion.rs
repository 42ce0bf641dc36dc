//! Cancellation bookkeeping: the state change and its events in one transaction, and the
//! durable job that follows a cancellation waiting for the receiver's acceptance until SAT
//! reports it accepted, cancelled because the receiver's deadline passed, or rejected.

use std::time::Duration;

use serde_json::json;
use time::OffsetDateTime;

use crate::db::Tx;
use crate::error::ApiResult;
use crate::events::payloads::Cancelacion;
use crate::events::{self, Event};
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};
use crate::sql;
use crate::state::AppState;

/// The invoice being cancelled.
pub struct Datos<'a> {
    /// Invoice id.
    pub cfdi_id: &'a str,
    /// UUID as the API shows it.
    pub uuid: &'a str,
    /// c_MotivoCancelacion.
    pub motivo: &'a str,
}

/// Records a cancellation answer in `tx`: `SIN_ACEPTACION` cancels the invoice and emits
/// `factura.cancelada`; `PENDIENTE` keeps it TIMBRADO, emits `factura.cancelacion_pendiente`
/// and enqueues [`SeguirCancelacion`].
pub async fn registrar(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &str,
    datos: &Datos<'_>,
    estado: &str,
    folio_sustitucion: Option<&str>,
    acuse_url: Option<&str>,
) -> ApiResult<()> {
    let pendiente = estado == "PENDIENTE";
    let status = if pendiente { None } else { Some("CANCELADO") };
    sql!(
        execute * tx,
        "UPDATE cfdis SET status = COALESCE($1, status), cancellation_status = $2, cancel_motivo = $3, \
         cancel_folio_sustitucion = $4, acuse_url = $5, cancelled_at = $6 WHERE id = $7 AND empresa_id = $8",
        status,
        estado,
        datos.motivo,
        folio_sustitucion,
        acuse_url,
        (!pendiente).then_some(now),
        datos.cfdi_id,
        empresa_id
    )?;
    let data = Cancelacion {
        cfdi_id: datos.cfdi_id.to_owned(),
        uuid: datos.uuid.to_owned(),
        motivo: Some(datos.motivo.to_owned()),
        cancellation_status: estado.to_owned(),
    };
    if pendiente {
        events::emit(tx, now, empresa_id, &Event::FacturaCancelacionPendiente(data)).await?;
        let payload = Seguimiento { cfdi_id: datos.cfdi_id.to_owned() };
        let job =
            NewJob::of::<SeguirCancelacion>(&payload).for_empresa(empresa_id).at(now + SeguirCancelacion::INTERVALO);
        jobs::enqueue(tx, now, job).await?;
    } else {
        events::emit(tx, now, empresa_id, &Event::FacturaCancelada(data)).await?;
    }
    Ok(())
}

#[derive(sqlx::FromRow)]
struct Pendiente {
    empresa_id: String,
    uuid: String,
    uuid_xml: String,
    emisor_rfc: String,
    receptor_rfc: String,
    total: crate::db::Money,
    cancel_motivo: Option<String>,
    cancellation_status: Option<String>,
}

/// Asks SAT (through the PAC) every [`SeguirCancelacion::INTERVALO`] how a pending
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
    pub cfdi_id: String,
}

impl Job for SeguirCancelacion {
    const KIND: &'static str = "cfdi.seguir_cancelacion";
    type Payload = Seguimiento;
    // 700 × 15 min ≈ 7 days: beyond SAT's three business days (five calendar days over a
    // weekend, more with a holiday), after which an unanswered request is cancelled.
    const MAX_ATTEMPTS: i64 = 700;

    fn backoff(_attempt: i64) -> Duration {
        Self::INTERVALO
    }

    async fn run(app: AppState, job: Claimed) -> Attempt {
        match seguir(&app, &job).await {
            Ok(Some(info)) => Attempt::ok(info),
            Ok(None) => Attempt::retry("the receiver has not answered yet", serde_json::Value::Null),
            Err(error) => Attempt::retry(error, serde_json::Value::Null),
        }
    }
}

/// `Some` when the cancellation reached a final state (or there is nothing left to follow).
async fn seguir(app: &AppState, job: &Claimed) -> Result<Option<serde_json::Value>, String> {
    let Seguimiento { cfdi_id } = job.payload::<SeguirCancelacion>()?;
    let fila = {
        let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
        sql!(fetch_optional conn, Pendiente,
            "SELECT empresa_id, uuid, uuid_xml, emisor_rfc, receptor_rfc, total, cancel_motivo, cancellation_status \
             FROM cfdis WHERE id = $1", &cfdi_id)
        .map_err(|e| e.to_string())?
    };
    let Some(fila) = fila.filter(|f| f.cancellation_status.as_deref() == Some("PENDIENTE")) else {
        return Ok(Some(json!({ "skipped": "not pending" })));
    };
    let pac = app.pac.clone().ok_or("no PAC configured (TIMBRA_PAC_URL)")?;
    let consulta = timbra_pac::ConsultaEstado {
        rfc_emisor: fila.emisor_rfc.clone(),
        rfc_receptor: fila.receptor_rfc.clone(),
        uuid: fila.uuid_xml.clone(),
        total: fila.total.0.to_string(),
    };
    let estado = pac.estatus_cancelacion(&consulta).await.map_err(|e| e.to_string())?;
    // The receiver's silence past the deadline counts as acceptance ("Plazo vencido"); the
    // status says which of the two it was.
    type Evento = fn(Cancelacion) -> Event;
    let aceptada: Evento = Event::FacturaCancelacionAceptada;
    let cancelada: Evento = Event::FacturaCancelada;
    let rechazada: Evento = Event::FacturaCancelacionRechazada;
    let (nuevo, eventos): (&str, &[Evento]) = match estado.cancelacion() {
        timbra_pac::EstadoCancelacion::Cancelado
            if estado.estatus_cancelacion.to_lowercase().contains("plazo vencido") =>
        {
            ("PLAZO_VENCIDO", &[aceptada, cancelada])
        }
        timbra_pac::EstadoCancelacion::Cancelado => ("ACEPTADA", &[aceptada, cancelada]),
        timbra_pac::EstadoCancelacion::Rechazado => ("RECHAZADA", &[rechazada]),
        _ => return Ok(None),
    };
    let now = app.clock.now();
    let escribir = async {
        let mut tx = app.db.begin().await?;
        let cambiadas = if nuevo != "RECHAZADA" {
            sql!(execute tx,
                "UPDATE cfdis SET status = 'CANCELADO', cancellation_status = $1, cancelled_at = $2 \
                 WHERE id = $3 AND cancellation_status = 'PENDIENTE'", nuevo, now, &cfdi_id)?
        } else {
            sql!(execute tx,
                "UPDATE cfdis SET cancellation_status = $1 WHERE id = $2 AND cancellation_status = 'PENDIENTE'",
                nuevo, &cfdi_id)?
        };
        if cambiadas == 1 {
            let data = Cancelacion {
                cfdi_id: cfdi_id.clone(),
                uuid: fila.uuid.clone(),
                motivo: fila.cancel_motivo.clone(),
                cancellation_status: nuevo.to_owned(),
            };
            for evento in eventos {
                events::emit(&mut tx, now, &fila.empresa_id, &evento(data.clone())).await?;
            }
        }
        tx.commit().await?;
        Ok::<_, sqlx::Error>(())
    };
    escribir.await.map_err(|e| e.to_string())?;
    Ok(Some(json!({ "cancellationStatus": nuevo, "estatusSat": estado.estatus_cancelacion })))
}
