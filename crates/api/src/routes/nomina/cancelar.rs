//! `POST /api/nomina/periodos/{id}/cancelar`: cancels one stamped receipt of the period
//! (`cfdi::nomina::cancelar_recibo`, with the invoices' cancellation rules).

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use timbra_store::ids::PeriodoId;

use crate::envelope::{Path, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::nomina::{self, CancelacionRecibo, CancelarReciboBody};
use timbra_services::context::AppContext;

/// Cancels a stamped receipt (CONTADOR or higher; `nomina:manage`); the period keeps its
/// status.
#[utoipa::path(post, path = "/nomina/periodos/{id}/cancelar", tag = "nomina", request_body = CancelarReciboBody,
    params(("id" = String, Path, description = "period"), ("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 200, description = "CANCELADO with SAT's acuse (sandbox: a sandbox acuse); TIMBRADO with cancellationStatus SOLICITADA or PENDIENTE while SAT decides", body = Envelope<CancelacionRecibo>),
        (status = 400, description = "CANCEL_001 invalid motivo or folioSustitucion; CANCEL_004 motivo 01 without folioSustitucion; \
            CANCEL_003 a cancellation in progress; NOMINA_012 the receipt is not stamped or already cancelled; REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / SCOPE_002 (needs nomina:manage) / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no such period, or receipt in it, in this company (the period is looked up before the body is read)", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC or SAT refused (details.pacCode); PAC_002 no usable answer: the receipt is unchanged", body = ErrorBody),
    ))]
pub async fn cancelar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    body: Bytes,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    nomina::exigir_periodo(&app, &empresa_id, &PeriodoId::from(&id)).await?;
    let body: CancelarReciboBody = crate::routes::cfdi::parse_body(&body)?;
    let data = nomina::cancelar_recibo(&app, &empresa_id, &PeriodoId::from(&id), &body, &caller.user_id).await?;
    Ok(ok(data).with_mode(access.mode()).into_response())
}
