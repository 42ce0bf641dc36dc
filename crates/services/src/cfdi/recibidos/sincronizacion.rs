//! `sync-recibidos`: one month of received CFDI from SAT, as a durable job.
//!
//! A synchronization asks one of SAT's services: CFDI (invoices, the default) or, with
//! `tipo: "retenciones"` in its body, the retention service (CFDI de Retenciones e Información
//! de Pagos, its own hosts and token), whose documents are stored as received retentions. Each
//! is its own run (one at a time per company), resumed against the service its row names.
//!
//! The request starts a [`SincronizarRecibidos`] job and its `sincronizaciones` row (same id)
//! in one transaction. The job's progress lives in that row and is written as soon as each
//! step is done: SAT's `IdSolicitud` once accepted, the package ids once the request
//! finished, and each package counted in the transaction that stores its CFDI. A job that
//! stops anywhere (kill -9, a lost lease) resumes from the row: it never asks SAT again for a
//! request it holds, nor downloads a package it stored.
//!
//! States (`syncStatus`): IDLE (never synchronized, or the last synchronization finished),
//! RUNNING (a job is working or waiting for SAT between polls), FAILED (the last one ended with
//! an error: its code and message are shown; synchronizing again starts a new one).

use serde::{Deserialize, Serialize};
pub use timbra_sat::Servicio;
use timbra_sat::{EstadoComprobante, Periodo, SatError, SolicitudRecibidos, TipoSolicitud};
use timbra_store::ids::EmpresaId;
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

use super::{Empresa, cuota};
use crate::cfdi::hora_local;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};
use timbra_store::{self as db, sincronizaciones};

/// The job of one synchronization (payload: the synchronization's id, which is the job's).
pub struct SincronizarRecibidos;

/// What the job carries.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sincronizar {
    /// The `sincronizaciones` row.
    pub sincronizacion_id: String,
}

impl Job for SincronizarRecibidos {
    type Context = AppContext;
    const KIND: &'static str = "sat.sincronizar_recibidos";
    // SAT may take hours (days, in 2025) to finish a request: the job comes back to poll.
    const MAX_ATTEMPTS: i64 = 200;
    type Payload = Sincronizar;

    /// 5 s, 15 s, 45 s, … up to an hour: a blip is retried soon, a slow SAT polled less often.
    fn backoff(attempt: i64) -> std::time::Duration {
        let exponent = u32::try_from(attempt.clamp(1, 10) - 1).unwrap_or(0);
        std::time::Duration::from_secs(5 * 3u64.pow(exponent)).min(std::time::Duration::from_secs(3600))
    }

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let payload = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        let id = payload.sincronizacion_id;
        let ultimo = job.attempts >= job.max_attempts;
        match avanzar(&app, &id).await {
            Ok(Paso::Terminada) => Attempt::ok(serde_json::json!({ "sincronizacion": id })),
            Ok(Paso::Pendiente) if !ultimo => {
                Attempt::retry("SAT has not finished the request yet", serde_json::Value::Null)
            }
            Ok(Paso::Pendiente) => {
                let error = ApiError::new(Code::VerificaTimeout, "SAT did not finish the request in time");
                fallar(&app, &id, &error).await
            }
            Err(Falla::Transitoria(error)) if !ultimo => Attempt::retry(error, serde_json::Value::Null),
            Err(Falla::Transitoria(error)) => {
                fallar(&app, &id, &ApiError::new(Code::SatUnavailable, format!("SAT kept failing: {error}"))).await
            }
            Err(Falla::Definitiva(error)) => fallar(&app, &id, &error).await,
        }
    }
}

async fn fallar(app: &AppContext, id: &str, error: &ApiError) -> Attempt {
    let terminada = async {
        let mut conn = app.db.conn().await?;
        sincronizaciones::terminar(
            &mut conn,
            id,
            sincronizaciones::FAILED,
            Some((error.code.as_str(), &error.message)),
            app.clock.now(),
        )
        .await
    }
    .await;
    match terminada {
        Ok(_) => {
            tracing::info!(sincronizacion.id = %id, error.code = error.code.as_str(), "sync-recibidos failed");
            Attempt::fail(format!("{}: {}", error.code.as_str(), error.message))
        }
        Err(db_error) => Attempt::retry(db_error.to_string(), serde_json::Value::Null),
    }
}

enum Paso {
    Terminada,
    Pendiente,
}

enum Falla {
    /// Worth another run (network, database, SAT's own 5006/404).
    Transitoria(String),
    /// Ends the synchronization as FAILED with this error.
    Definitiva(ApiError),
}

impl From<timbra_store::DbError> for Falla {
    fn from(error: timbra_store::DbError) -> Self {
        Falla::Transitoria(error.to_string())
    }
}

impl From<ApiError> for Falla {
    fn from(error: ApiError) -> Self {
        match error.code {
            Code::Internal | Code::Busy001 | Code::SatUnavailable => Falla::Transitoria(error.message),
            _ => Falla::Definitiva(error),
        }
    }
}

fn sat(error: SatError) -> Falla {
    match error.cod_estatus() {
        Some("404" | "5006") => Falla::Transitoria(error.to_string()),
        _ => ApiError::sat(&error).into(),
    }
}

/// The month's period in Mexico City time, its end capped at `now` (SAT takes no future).
pub fn periodo(anio: i32, mes: u8, now: OffsetDateTime) -> Option<(PrimitiveDateTime, PrimitiveDateTime)> {
    let mes = Month::try_from(mes).ok()?;
    let inicio = Date::from_calendar_date(anio, mes, 1).ok()?.midnight();
    let siguiente = match mes {
        Month::December => Date::from_calendar_date(anio + 1, Month::January, 1).ok()?,
        _ => Date::from_calendar_date(anio, mes.next(), 1).ok()?,
    };
    let fin_mes = siguiente.previous_day()?.with_time(Time::from_hms(23, 59, 59).ok()?);
    let local = hora_local(now);
    let ahora = PrimitiveDateTime::new(local.date(), local.time().replace_nanosecond(0).ok()?);
    let fin = fin_mes.min(ahora);
    (inicio < fin).then_some((inicio, fin))
}

/// One step of the work, from where the row says it stopped.
async fn avanzar(app: &AppContext, id: &str) -> Result<Paso, Falla> {
    let mut conn = app.db.conn().await?;
    let Some(fila) = sincronizaciones::leer(&mut conn, id).await? else {
        return Ok(Paso::Terminada);
    };
    drop(conn);
    if fila.estado != sincronizaciones::RUNNING {
        return Ok(Paso::Terminada);
    }
    let empresa = super::empresa(app, &fila.empresa_id).await?;
    let cliente = super::cliente(app, &empresa).await?.para(servicio(&fila.servicio));

    let id_solicitud = match fila.id_solicitud.clone() {
        Some(id_solicitud) => id_solicitud,
        None => {
            let cuota = cuota::leer(app, &empresa.rfc).await?;
            if cuota.restantes() == 0 {
                return Err(Falla::Definitiva(cuota.agotada()));
            }
            let anio = i32::try_from(fila.anio).unwrap_or(0);
            let mes = u8::try_from(fila.mes).unwrap_or(0);
            let (inicio, fin) = periodo(anio, mes, app.clock.now())
                .ok_or_else(|| Falla::Definitiva(ApiError::new(Code::Sync001, "the month has not started yet")))?;
            let mut periodo = Periodo::new(inicio, fin, TipoSolicitud::Cfdi);
            // SAT gives the XML of received invoices in force only (v1.5).
            periodo.estado_comprobante = Some(EstadoComprobante::Vigente);
            let aceptada = crate::metrics::metrics()
                .sat_call(
                    "solicitud_recibidos",
                    cliente.solicitar_recibidos(&SolicitudRecibidos { periodo, rfc_emisor: None }),
                )
                .await
                .map_err(sat)?;
            let mut conn = app.db.conn().await?;
            sincronizaciones::solicitud(&mut conn, id, &aceptada.id_solicitud, app.clock.now()).await?;
            aceptada.id_solicitud
        }
    };

    let paquetes: Vec<String> = match fila.paquetes.as_deref() {
        Some(texto) => serde_json::from_str(texto).map_err(|e| Falla::Transitoria(e.to_string()))?,
        None => {
            // Poll within half the lease; after that the job comes back later.
            let consultas = super::consultas(app, app.config.jobs.lease / 2);
            let (ids, total) = match crate::metrics::metrics()
                .sat_call("verificacion", cliente.esperar(&id_solicitud, consultas))
                .await
            {
                Ok(verificacion) => (verificacion.ids_paquetes, verificacion.numero_cfdis),
                Err(SatError::VerificaTimeout { .. }) => return Ok(Paso::Pendiente),
                // SAT rejects a request that matches nothing with 5004: a month without invoices.
                Err(SatError::Solicitud { estado: 5, codigo_estado, .. }) if codigo_estado == "5004" => (Vec::new(), 0),
                Err(error) => return Err(sat(error)),
            };
            let texto = serde_json::to_string(&ids).map_err(|e| Falla::Transitoria(e.to_string()))?;
            let total = i64::try_from(total).unwrap_or(i64::MAX);
            let mut conn = app.db.conn().await?;
            sincronizaciones::paquetes(&mut conn, id, &texto, total, app.clock.now()).await?;
            ids
        }
    };

    let hechos = usize::try_from(fila.paquetes_hechos).unwrap_or(0);
    for id_paquete in paquetes.iter().skip(hechos) {
        let bytes = crate::metrics::metrics().sat_call("descarga", cliente.descargar(id_paquete)).await.map_err(sat)?;
        // A package over a limit ends the synchronization FAILED (PAQUETE_001) before anything
        // of it is stored: the package is stored whole, in one transaction, or not at all.
        let leido = super::leer_paquete(&cliente, bytes).await?.map_err(sat)?;
        let guardado =
            super::guardar(app, &empresa, &leido.documentos, &leido.retenciones, &leido.ilegibles, Some(id)).await?;
        tracing::info!(
            sincronizacion.id = %id, sat.id_paquete = %id_paquete, cfdi.nuevos = guardado.nuevos.len(),
            cfdi.ya_guardados = guardado.ya_guardados.len(), cfdi.sin_cuota = guardado.sin_cuota,
            "sync-recibidos: package stored"
        );
        if guardado.sin_cuota > 0 {
            let cuota = cuota::leer(app, &empresa.rfc).await?;
            let mut error = cuota.agotada();
            error.message = format!(
                "{} CFDI were not stored: {}; synchronize the month again after the reset (stored UUIDs are skipped)",
                guardado.sin_cuota, error.message
            );
            return Err(Falla::Definitiva(error));
        }
    }
    let mut conn = app.db.conn().await?;
    sincronizaciones::terminar(&mut conn, id, sincronizaciones::DONE, None, app.clock.now()).await?;
    Ok(Paso::Terminada)
}

/// The SAT service a `sincronizaciones.servicio` names.
pub fn servicio(texto: &str) -> Servicio {
    if texto == sincronizaciones::RETENCIONES { Servicio::Retenciones } else { Servicio::Cfdi }
}

/// What `sincronizaciones.servicio` keeps for `servicio`.
pub fn servicio_texto(servicio: Servicio) -> &'static str {
    match servicio {
        Servicio::Cfdi => sincronizaciones::CFDI,
        Servicio::Retenciones => sincronizaciones::RETENCIONES,
    }
}

/// What starting a synchronization gives.
#[derive(Clone, Debug)]
pub struct Iniciada {
    /// The job's id.
    pub job_id: String,
}

/// Starts synchronizing `anio`-`mes` of `servicio` for the company (FIEL checked first): the
/// row and its job in one transaction. SYNC_002 while another one (of either service) runs.
pub async fn iniciar(
    app: &AppContext,
    empresa: &Empresa,
    anio: i64,
    mes: i64,
    servicio: Servicio,
) -> ApiResult<Iniciada> {
    let now = app.clock.now();
    let (anio_i32, mes_u8) = (i32::try_from(anio).unwrap_or(0), u8::try_from(mes).unwrap_or(0));
    if !(1..=12).contains(&mes) || periodo(anio_i32, mes_u8, now).is_none() {
        return Err(ApiError::new(Code::Sync001, "year and month must name a month that has started (month 1 to 12)"));
    }
    // SAT looks back six years at most (PROTOCOLS.md §1.9).
    let local = hora_local(now);
    if anio * 12 + mes < i64::from(local.year() - 6) * 12 + i64::from(u8::from(local.month())) + 1 {
        return Err(ApiError::new(Code::Sync001, "SAT keeps the last six years only: choose a later month"));
    }
    super::cliente(app, empresa).await?;
    let mut tx = app.db.begin().await?;
    if let Some(en_curso) = sincronizaciones::en_curso(&mut tx, &empresa.id).await? {
        return Err(ApiError::new(
            Code::Sync002,
            format!("a synchronization ({}-{:02}) is already running for this company", en_curso.anio, en_curso.mes),
        )
        .with_details(serde_json::json!({ "jobId": en_curso.id })));
    }
    let job_id = timbra_store::ids::new_id();
    if let Err(error) =
        sincronizaciones::crear(&mut tx, &job_id, &empresa.id, anio, mes, servicio_texto(servicio), now).await
    {
        if error.is_duplicate() {
            return Err(ApiError::new(Code::Sync002, "a synchronization is already running for this company"));
        }
        return Err(error.into());
    }
    let mut job = NewJob::of::<SincronizarRecibidos>(&Sincronizar { sincronizacion_id: job_id.clone() })
        .for_empresa(&empresa.id)
        .dedupe(format!("{}:{job_id}", SincronizarRecibidos::KIND));
    job.max_attempts = SincronizarRecibidos::MAX_ATTEMPTS;
    jobs::enqueue_with_id(&mut tx, now, &job_id, job).await?;
    tx.commit().await?;
    tracing::info!(
        empresa.id = %empresa.id, sincronizacion.id = %job_id, anio, mes, sat.servicio = servicio.como_texto(),
        "sync-recibidos started"
    );
    Ok(Iniciada { job_id })
}

/// How many packages SAT gave synchronization `s` (its stored list of ids), once it said.
pub fn paquetes_total(s: &sincronizaciones::Sincronizacion) -> Option<i64> {
    s.paquetes.as_deref().and_then(|t| serde_json::from_str::<Vec<String>>(t).ok()).map(|v| v.len() as i64)
}

/// The company's synchronization status.
#[derive(Clone, Debug)]
pub struct Estado {
    /// IDLE, RUNNING or FAILED.
    pub sync_status: &'static str,
    /// When the last successful synchronization ended.
    pub last_sync_at: Option<OffsetDateTime>,
    /// Received invoices the company holds.
    pub total_recibidos: i64,
    /// The latest synchronization, if any.
    pub ultima: Option<sincronizaciones::Sincronizacion>,
    /// The latest synchronization's CFDI that were read but not stored, with the reason (the
    /// first [`sincronizaciones::ILEGIBLES_LISTADOS`]).
    pub ilegibles: Vec<sincronizaciones::Ilegible>,
}

/// The company's synchronization status.
pub async fn estado(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Estado> {
    let mut conn = app.db.conn().await?;
    let ultima = sincronizaciones::ultima(&mut conn, empresa_id).await?;
    let sync_status = match ultima.as_ref().map(|s| s.estado.as_str()) {
        Some(sincronizaciones::RUNNING) => "RUNNING",
        Some(sincronizaciones::FAILED) => "FAILED",
        _ => "IDLE",
    };
    let ilegibles = match &ultima {
        Some(ultima) if ultima.cfdi_ilegibles > 0 => sincronizaciones::ilegibles(&mut conn, &ultima.id).await?,
        _ => Vec::new(),
    };
    Ok(Estado {
        sync_status,
        last_sync_at: sincronizaciones::ultima_terminada(&mut conn, empresa_id).await?,
        total_recibidos: db::recibidos::total(&mut conn, empresa_id).await?,
        ultima,
        ilegibles,
    })
}

#[cfg(test)]
mod tests {
    use time::macros::{datetime, format_description};

    use super::*;

    #[test]
    fn a_month_is_mexico_city_time_and_never_the_future() {
        let now = datetime!(2026-11-20 18:00 UTC);
        let texto = |f: PrimitiveDateTime| {
            f.format(format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]")).unwrap()
        };
        let (inicio, fin) = periodo(2026, 10, now).unwrap();
        assert_eq!((texto(inicio), texto(fin)), ("2026-10-01T00:00:00".into(), "2026-10-31T23:59:59".into()));
        let (_, fin) = periodo(2026, 11, now).unwrap();
        assert_eq!(texto(fin), "2026-11-20T12:00:00");
        let (_, fin) = periodo(2025, 12, now).unwrap();
        assert_eq!(texto(fin), "2025-12-31T23:59:59");
        assert!(periodo(2026, 12, now).is_none());
        assert!(periodo(2026, 13, now).is_none());
    }
}
