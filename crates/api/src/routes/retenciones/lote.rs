//! `POST /api/retenciones/lote` and `GET /api/retenciones/lote/{jobId}`: a platform's month of
//! retentions in one call, stamped by a durable job (`cfdi::retenciones::lote`).

use axum::body::Body;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::Deserialize;

use crate::envelope::{Path, accepted, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::parse_body;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::retenciones::lote::{self, EstadoLote, LoteCreado};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// The body limit of this route alone (its own, above `TIMBRA_MAX_BODY_BYTES`): 10,000
/// retentions of a platform's sellers.
pub const LOTE_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Whether `path` is this route's (the body limit middleware gives it [`LOTE_MAX_BYTES`]).
pub fn es_lote(path: &str) -> bool {
    matches!(path, "/api/retenciones/lote" | "/retenciones/lote")
}

#[derive(Deserialize)]
struct LoteBody {
    retenciones: Vec<serde_json::Value>,
}

/// Stamps up to 10,000 retentions as a durable batch (FACTURADOR or higher): `{ "retenciones":
/// [ bodies of /api/retenciones/timbrar ] }`, at most 16 MiB. An invalid body never stops the
/// others.
#[utoipa::path(post, path = "/retenciones/lote", tag = "retenciones", request_body = Object,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 202, description = "Accepted: follow data.jobId", body = Envelope<LoteCreado>),
        (status = 400, description = "RETENCION_001 no bodies or more than 10,000; REQUEST_001 malformed JSON", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body over 16 MiB", body = ErrorBody),
    ))]
pub async fn crear(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    body: Body,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
    let bytes = axum::body::to_bytes(body, LOTE_MAX_BYTES).await.map_err(|_| {
        ApiError::new(Code::Request002, format!("the batch is larger than {LOTE_MAX_BYTES} bytes; send it in parts"))
    })?;
    let LoteBody { retenciones } = parse_body(&bytes)?;
    let creado = lote::crear(&app, &empresa_id, &caller.user_id, &retenciones, app.clock.now()).await?;
    Ok(accepted(creado).with_mode(access.mode()))
}

/// A batch's progress (CONSULTA or higher).
#[utoipa::path(get, path = "/retenciones/lote/{jobId}", tag = "retenciones",
    params(("jobId" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Progress: status PENDIENTE | EN_PROCESO | TERMINADO, errores by 0-based indice", body = Envelope<EstadoLote>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also another company's)", body = ErrorBody),
    ))]
pub async fn estado(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(job_id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    Ok(ok(lote::estado(&app, &empresa_id, &job_id).await?).with_mode(access.mode()))
}
