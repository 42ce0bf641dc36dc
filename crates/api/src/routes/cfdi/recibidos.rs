//! `POST /api/cfdi/sync-recibidos` (start synchronizing a month of received invoices) and
//! `GET /api/cfdi/sync-recibidos` (its status). The work is `cfdi::recibidos::sincronizacion`.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use timbra_store::ids::EmpresaId;
use utoipa::ToSchema;

use crate::envelope::ok;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::{Caller, EmpresaAccess};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::credenciales::rfc3339;
use timbra_services::cfdi::recibidos::{self, Empresa, cuota, sincronizacion};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};

/// `POST /api/cfdi/sync-recibidos` body.
#[derive(serde::Deserialize, ToSchema)]
pub struct SyncBody {
    /// Year, e.g. 2026.
    pub year: i64,
    /// Month, 1 to 12.
    pub month: i64,
    /// `cfdi` (received invoices, the default) or `retenciones` (received CFDI de Retenciones
    /// e Información de Pagos, from SAT's retention service; listed at
    /// `GET /api/retenciones?tipo=RECIBIDA`).
    #[serde(default)]
    pub tipo: Option<String>,
}

/// A synchronization started.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncStarted {
    /// The job (also in `GET /api/jobs`).
    job_id: String,
    /// `started`.
    status: &'static str,
    year: i64,
    month: i64,
}

/// How far the latest synchronization got.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncProgress {
    /// Packages stored.
    paquetes_hechos: i64,
    /// Packages SAT prepared (null until SAT finished the request).
    paquetes_total: Option<i64>,
    /// CFDI read from the packages stored.
    cfdi_hechos: i64,
    /// CFDI SAT counted (null until SAT finished the request).
    cfdi_total: Option<i64>,
    /// CFDI stored new (the rest were held already, or unreadable).
    cfdi_nuevos: i64,
    /// CFDI read but not stored: not a readable CFDI 4.0, or a folio fiscal that is not SAT's
    /// form (listed in `ilegibles`).
    cfdi_ilegibles: i64,
}

/// A CFDI of the latest synchronization that was not stored.
#[derive(Serialize, ToSchema)]
pub struct SyncIlegible {
    /// The entry's name in SAT's package (its author's text: display it escaped).
    nombre: String,
    /// Why it was not stored.
    motivo: String,
}

/// Why the latest synchronization failed.
#[derive(Serialize, ToSchema)]
pub struct SyncError {
    code: String,
    message: String,
}

/// The company's synchronization status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    /// IDLE (never synchronized, or the last synchronization finished), RUNNING (a job works or
    /// waits for SAT), FAILED (the last one ended with `error`; start another to retry).
    sync_status: &'static str,
    /// When the last successful synchronization finished.
    last_sync_at: Option<String>,
    /// Received invoices the company holds.
    total_recibidos: i64,
    /// The latest synchronization's job.
    job_id: Option<String>,
    year: Option<i64>,
    month: Option<i64>,
    /// What the latest synchronization asked SAT for: `cfdi` or `retenciones`.
    tipo: Option<&'static str>,
    progress: Option<SyncProgress>,
    error: Option<SyncError>,
    /// The latest synchronization's CFDI that were read but not stored, with the reason (the
    /// first 100; `progress.cfdiIlegibles` counts them all).
    ilegibles: Vec<SyncIlegible>,
}

/// A SAT endpoint: authorizes cfdi:descargar, runs `respuesta` for the company and adds the
/// RFC's quota headers (`X-SAT-Downloads-*`) to its answer, errors included.
pub(super) async fn endpoint_sat(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    respuesta: impl AsyncFnOnce(&Empresa, &EmpresaAccess) -> HttpResult<Response>,
) -> HttpResult<Response> {
    let (empresa, access) = acceso_sat(app, caller, empresa_id).await?;
    let mut response = match respuesta(&empresa, &access).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    };
    match cuota::leer(app, &empresa.rfc).await {
        Ok(cuota) => cuota.cabeceras(response.headers_mut()),
        Err(error) => tracing::warn!(error.message = %error.message, "quota headers not added"),
    }
    Ok(response)
}

/// The company of a SAT endpoint and the caller's access there (cfdi:descargar).
pub(crate) async fn acceso_sat(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
) -> HttpResult<(Empresa, EmpresaAccess)> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiDescargar).await?;
    Ok((recibidos::empresa(app, empresa_id).await?, access))
}

/// Starts the synchronization of `bytes` (a [`SyncBody`]) for the company, as
/// `POST /api/cfdi/sync-recibidos` and the MCP tool `sincronizar_recibidos` do it.
pub(crate) async fn iniciar(app: &AppContext, empresa: &Empresa, bytes: &[u8]) -> HttpResult<SyncStarted> {
    let body = leer_body(bytes)?;
    let servicio = match body.tipo.as_deref() {
        Some("retenciones") => sincronizacion::Servicio::Retenciones,
        _ => sincronizacion::Servicio::Cfdi,
    };
    let iniciada = sincronizacion::iniciar(app, empresa, body.year, body.month, servicio).await?;
    Ok(SyncStarted { job_id: iniciada.job_id, status: "started", year: body.year, month: body.month })
}

/// Starts downloading a month of the company's received invoices from SAT (CONTADOR or
/// higher, a valid FIEL). Answers at once; follow it with `GET /api/cfdi/sync-recibidos`.
#[utoipa::path(post, path = "/cfdi/sync-recibidos", tag = "cfdi", request_body = SyncBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Started (quota headers X-SAT-Downloads-*)", body = Envelope<SyncStarted>),
        (status = 400, description = "SYNC_001 year/month; FIEL_RFC_MISMATCH", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / SCOPE_002 / AUTH_003", body = ErrorBody),
        (status = 409, description = "SYNC_002 a synchronization is already running (details.jobId)", body = ErrorBody),
        (status = 412, description = "MISSING_FIEL / FIEL_EXPIRED", body = ErrorBody),
        (status = 500, description = "FIEL_DECRYPT", body = ErrorBody),
    ))]
pub async fn sync_recibidos(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    body: Bytes,
) -> HttpResult<Response> {
    endpoint_sat(&app, &caller, &empresa_id, async |empresa, _| {
        Ok(ok(iniciar(&app, empresa, &body).await?).into_response())
    })
    .await
}

fn leer_body(bytes: &[u8]) -> HttpResult<SyncBody> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::new(Code::Request001, format!("send a JSON body {{ year, month }}: {e}")))?;
    let mut problems = Vec::new();
    let mut field = |name: &str| match value.get(name).and_then(serde_json::Value::as_i64) {
        Some(n) => n,
        None => {
            problems.push(FieldProblem::new(name, "required, a whole number"));
            0
        }
    };
    let (year, month) = (field("year"), field("month"));
    if problems.is_empty() && !(1..=12).contains(&month) {
        problems.push(FieldProblem::new("month", "must be 1 to 12"));
    }
    let tipo = match value.get("tipo") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(tipo)) if tipo == "cfdi" || tipo == "retenciones" => Some(tipo.clone()),
        Some(_) => {
            problems.push(FieldProblem::new("tipo", "cfdi (received invoices, the default) or retenciones"));
            None
        }
    };
    if problems.is_empty() {
        Ok(SyncBody { year, month, tipo })
    } else {
        Err(ApiError::fields(Code::Sync001, problems).into())
    }
}

/// The company's synchronization status: `syncStatus`, `lastSyncAt`, `totalRecibidos`, and the
/// latest synchronization's progress (packages and CFDI done of total), its error, and the CFDI
/// it read but did not store (`ilegibles`, each with its reason).
#[utoipa::path(get, path = "/cfdi/sync-recibidos", tag = "cfdi", params(("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Status (quota headers X-SAT-Downloads-*)", body = Envelope<SyncStatus>),
        (status = 403, description = "SCOPE_001 / SCOPE_002 / AUTH_003", body = ErrorBody),
    ))]
pub async fn sync_recibidos_status(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
) -> HttpResult<Response> {
    endpoint_sat(&app, &caller, &empresa_id, async |empresa, _| {
        let estado = sincronizacion::estado(&app, &empresa.id).await?;
        let ultima = estado.ultima;
        Ok(ok(SyncStatus {
            sync_status: estado.sync_status,
            last_sync_at: estado.last_sync_at.map(rfc3339),
            total_recibidos: estado.total_recibidos,
            job_id: ultima.as_ref().map(|s| s.id.clone()),
            year: ultima.as_ref().map(|s| s.anio),
            month: ultima.as_ref().map(|s| s.mes),
            tipo: ultima.as_ref().map(|s| sincronizacion::servicio(&s.servicio).como_texto()),
            progress: ultima.as_ref().map(|s| SyncProgress {
                paquetes_hechos: s.paquetes_hechos,
                paquetes_total: sincronizacion::paquetes_total(s),
                cfdi_hechos: s.cfdi_hechos,
                cfdi_total: s.cfdi_total,
                cfdi_nuevos: s.cfdi_nuevos,
                cfdi_ilegibles: s.cfdi_ilegibles,
            }),
            error: ultima.as_ref().and_then(|s| {
                Some(SyncError { code: s.error_code.clone()?, message: s.error_message.clone().unwrap_or_default() })
            }),
            ilegibles: estado
                .ilegibles
                .into_iter()
                .map(|i| SyncIlegible { nombre: i.nombre, motivo: i.motivo })
                .collect(),
        })
        .into_response())
    })
    .await
}
