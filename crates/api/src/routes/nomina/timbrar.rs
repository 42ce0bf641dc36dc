//! `POST /api/nomina/periodos/{id}/timbrar`: stamps the period's calculated and pending
//! receipts (`cfdi::nomina::timbrar_periodo`).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use timbra_store::ids::PeriodoId;

use crate::envelope::{Path, created};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::nomina::{self, TimbradoPeriodo};
use timbra_services::context::AppContext;

/// Stamps a calculated period's receipts, one CFDI tipo N (Nómina 1.2) each (CONTADOR or
/// higher; `nomina:manage`). A receipt that fails its checks becomes PENDIENTE with the reason
/// in `detalleErrores` and the others go on; calling again stamps the PENDIENTE ones.
#[utoipa::path(post, path = "/nomina/periodos/{id}/timbrar", tag = "nomina",
    params(("id" = String, Path, description = "period"), ("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Stamped (period TIMBRADO) or partly stamped (TIMBRADO_PARCIAL, see detalleErrores)", body = Envelope<TimbradoPeriodo>),
        (status = 400, description = "NOMINA_002 the company has no registroPatronal; CFDI_002/CFDI_003 CSD missing or expired (live)", body = ErrorBody),
        (status = 402, description = "TIMBRE_001 the stamp balance cannot cover the receipts to stamp (live): nothing was stamped", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / SCOPE_002 (needs nomina:manage) / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no such period in this company (also for ids of other companies)", body = ErrorBody),
        (status = 409, description = "NOMINA_011 the period is ABIERTO: calculate it first", body = ErrorBody),
        (status = 500, description = "NOMINA_999 unexpected failure (logged); stamped receipts stay stamped, call again", body = ErrorBody),
    ))]
pub async fn timbrar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let data = nomina::timbrar_periodo(&app, &empresa_id, &PeriodoId::from(&id), &caller.user_id).await?;
    Ok(created(data).with_mode(access.mode()).into_response())
}
