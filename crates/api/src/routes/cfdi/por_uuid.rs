//! `POST /api/cfdi/descargar-por-uuid` and `GET /api/cfdi/descargar-por-uuid/{jobId}`: one
//! received invoice by UUID. The work is `cfdi::recibidos::por_uuid`.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use timbra_store::ids::EmpresaId;
use utoipa::ToSchema;

use super::list::cfdi_out;
use super::recibidos::endpoint_sat;
use crate::envelope::{Path, accepted, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::{Caller, EmpresaAccess};
use timbra_services::cfdi::recibidos::Empresa;
use timbra_services::cfdi::recibidos::por_uuid::{self, Descargado, Fuente, Respuesta};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// `POST /api/cfdi/descargar-por-uuid` body.
#[derive(serde::Deserialize, ToSchema)]
pub struct DescargarBody {
    /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`, or SAT's verification URL carrying it as `id=`.
    pub uuid: String,
}

/// SAT takes longer than `TIMBRA_SAT_WAIT_SECONDS`: poll the job.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescargaEnCurso {
    job_id: String,
}

/// The answer: `source` (sat_portal, cache, sat_metadata_only) and its fields.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescargaOut {
    /// sat_portal (fetched from SAT now), cache (held already; SAT not contacted),
    /// sat_metadata_only (only SAT's metadata; background retries scheduled).
    source: String,
    /// Size of the XML downloaded (sat_portal).
    #[serde(skip_serializing_if = "Option::is_none")]
    xml_bytes: Option<i64>,
    /// Why there is no XML (sat_metadata_only).
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
    /// The invoice with its lines and a fresh signed link (1 hour).
    #[schema(value_type = Object)]
    cfdi: Value,
    /// sat_metadata_only: `{ retryCount, nextRetryAt }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    retry_status: Option<Value>,
}

/// Renders a download's outcome with fresh links (the synchronous answer and the job's are
/// the same `data`).
async fn data(
    app: &AppContext,
    empresa_id: &EmpresaId,
    descargado: Descargado,
    ve_nomina: bool,
) -> HttpResult<DescargaOut> {
    let (row, conceptos) = super::cargar(app, empresa_id, descargado.cfdi_id.as_str(), ve_nomina).await?;
    let links = Some((app.cfdi.link_secret()?, app.clock.now().unix_timestamp()));
    let mut out = cfdi_out(row, links);
    out.conceptos = Some(serde_json::from_str(&conceptos).map_err(|e| ApiError::internal("conceptos", e))?);
    let cfdi = serde_json::to_value(&out).map_err(|e| ApiError::internal("cfdi", e))?;
    let source = match descargado.source {
        Fuente::SatPortal => "sat_portal",
        Fuente::Cache => "cache",
        Fuente::SatMetadataOnly => "sat_metadata_only",
    };
    let retry_status = (descargado.source == Fuente::SatMetadataOnly)
        .then(|| json!({ "retryCount": cfdi["xmlRetryCount"], "nextRetryAt": cfdi["xmlNextRetryAt"] }));
    Ok(DescargaOut {
        source: source.into(),
        xml_bytes: descargado.xml_bytes,
        warning: descargado.warning,
        cfdi,
        retry_status,
    })
}

/// The answer of a download; a payroll receipt (type N) is shown only to a caller with
/// `nomina:view`.
async fn responder(
    app: &AppContext,
    empresa_id: &EmpresaId,
    respuesta: Respuesta,
    ve_nomina: bool,
) -> HttpResult<Response> {
    Ok(match salida(app, empresa_id, respuesta, ve_nomina).await? {
        Ok(descarga) => ok(descarga).into_response(),
        Err(en_curso) => accepted(en_curso).into_response(),
    })
}

/// The `data` of a download: the invoice, or (`Err`) the job still waiting for SAT.
async fn salida(
    app: &AppContext,
    empresa_id: &EmpresaId,
    respuesta: Respuesta,
    ve_nomina: bool,
) -> HttpResult<Result<DescargaOut, DescargaEnCurso>> {
    match respuesta {
        Respuesta::Lista(resultado) => Ok(Ok(data(app, empresa_id, resultado?, ve_nomina).await?)),
        Respuesta::EnCurso { job_id } => Ok(Err(DescargaEnCurso { job_id })),
    }
}

/// Downloads the invoice `uuid` (or SAT's verification URL) received by the company, as
/// `POST /api/cfdi/descargar-por-uuid` and the MCP tool `descargar_por_uuid` do it.
pub(crate) async fn descargar(
    app: &AppContext,
    caller: &Caller,
    empresa: &Empresa,
    access: &EmpresaAccess,
    bytes: &[u8],
) -> HttpResult<Result<DescargaOut, DescargaEnCurso>> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::new(Code::Descarga001, format!("the body is not valid JSON ({e}): send {{ \"uuid\": \"...\" }}"))
    })?;
    let uuid = value.get("uuid").and_then(Value::as_str).ok_or_else(|| {
        ApiError::new(Code::Descarga002, "uuid is required, a string: the invoice's UUID or SAT's verification URL")
    })?;
    let uuid = por_uuid::leer_uuid(uuid)?;
    let respuesta = por_uuid::descargar(app, empresa, &uuid).await?;
    salida(app, &empresa.id, respuesta, super::ve_nomina(caller, access)).await
}

/// Downloads one received invoice from SAT by UUID (cfdi:descargar, CONTADOR or higher; a valid
/// FIEL). Waits for SAT up to `TIMBRA_SAT_WAIT_SECONDS` (30 s), then answers 202 with a
/// `jobId` to poll at `GET /api/cfdi/descargar-por-uuid/{jobId}`. SAT's refusals answer 200
/// with the error envelope (SAT_5004, CFDI_NOT_FOUND, VERIFICA_TIMEOUT, EMPTY_PACKAGE,
/// PARSE_ERROR, SAT_ESTADO_n, SAT_REJECTED).
#[utoipa::path(post, path = "/cfdi/descargar-por-uuid", tag = "cfdi", request_body = DescargarBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "source sat_portal / cache / sat_metadata_only; or a SAT outcome code in the error \
            envelope (quota headers X-SAT-Downloads-* on every answer)", body = Envelope<DescargaOut>),
        (status = 202, description = "SAT is taking longer: poll the jobId", body = Envelope<DescargaEnCurso>),
        (status = 400, description = "DESCARGA_001 not JSON; DESCARGA_002 uuid missing or not a string; INVALID_UUID; \
            FIEL_RFC_MISMATCH", body = ErrorBody),
        (status = 403, description = "RECEPTOR_MISMATCH the invoice's receiver is another RFC; SCOPE_001 / SCOPE_002 / \
            AUTH_003", body = ErrorBody),
        (status = 404, description = "UUID_NOT_FOUND SAT's answer has no received invoice with this UUID", body = ErrorBody),
        (status = 412, description = "MISSING_FIEL / FIEL_EXPIRED", body = ErrorBody),
        (status = 429, description = "SAT_QUOTA the day's 1,800 downloads are used (Retry-After)", body = ErrorBody),
        (status = 502, description = "SAT_UNAVAILABLE / SAT_AUTH", body = ErrorBody),
    ))]
pub async fn descargar_por_uuid(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    body: Bytes,
) -> HttpResult<Response> {
    endpoint_sat(&app, &caller, &empresa_id, async |empresa, access| {
        Ok(match descargar(&app, &caller, empresa, access, &body).await? {
            Ok(descarga) => ok(descarga).into_response(),
            Err(en_curso) => accepted(en_curso).into_response(),
        })
    })
    .await
}

/// The answer of a download that outlasted the wait: 202 `{ jobId }` while SAT works, then 200
/// with the same `data` (or error) the request would have had.
#[utoipa::path(get, path = "/cfdi/descargar-por-uuid/{jobId}", tag = "cfdi",
    params(("jobId" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The answer", body = Envelope<DescargaOut>),
        (status = 202, description = "Still running", body = Envelope<DescargaEnCurso>),
        (status = 404, description = "DESCARGA_004 no such job in this company", body = ErrorBody),
    ))]
pub async fn descarga_por_uuid_job(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(job_id): Path<String>,
) -> HttpResult<Response> {
    endpoint_sat(&app, &caller, &empresa_id, async |empresa, access| {
        if job_id.trim().is_empty() {
            return Err(sin_job().into());
        }
        let respuesta = por_uuid::consultar(&app, &empresa.id, job_id.trim()).await?;
        responder(&app, &empresa.id, respuesta, super::ve_nomina(&caller, access)).await
    })
    .await
}

fn sin_job() -> ApiError {
    ApiError::new(Code::Descarga003, "the jobId is missing: GET /api/cfdi/descargar-por-uuid/{jobId}")
}

/// `GET /api/cfdi/descargar-por-uuid` without a job: DESCARGA_003.
#[utoipa::path(get, path = "/cfdi/descargar-por-uuid", tag = "cfdi",
    responses((status = 400, description = "DESCARGA_003 jobId missing in the path", body = ErrorBody)))]
pub async fn descarga_sin_job() -> crate::error::HttpError {
    sin_job().into()
}
