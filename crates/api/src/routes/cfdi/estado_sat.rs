//! `GET /api/cfdi/{id}/estado-sat`: SAT's status of an invoice of the company, issued or
//! received, stored on the record. The operation is `timbra_services::cfdi::receptor::estado_sat`.

use axum::extract::State;
use axum::response::IntoResponse;
use timbra_store::ids::EmpresaId;

use crate::envelope::{Path, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::receptor::estado_sat::{self, EstadoSatOut};
use timbra_services::context::AppContext;

/// Asks SAT's ConsultaCFDIService about an invoice (CONTADOR or higher; scope `cfdi:view`, and
/// `nomina:view` for a payroll receipt). Sandbox companies get the answer from the service's own
/// records and SAT's rules (`fuente: "sandbox"`), never from SAT.
#[utoipa::path(get, path = "/cfdi/{id}/estado-sat", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "SAT's status, in SAT's words; stored on the invoice (estadoSat, estadoSatConsultadoEn)", body = Envelope<EstadoSatOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003 (below CONTADOR)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for ids of other companies, and for a payroll receipt without nomina:view)", body = ErrorBody),
        (status = 502, description = "SAT_CONSULTA_002 SAT refused the query (N - 601)", body = ErrorBody),
        (status = 503, description = "SAT_CONSULTA_001 SAT unreachable; nothing changed (Retry-After)", body = ErrorBody),
    ))]
pub async fn estado_sat(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    let (data, mode) = consultar(&app, &caller, &empresa_id, &id).await?;
    Ok(ok(data).with_mode(mode))
}

/// SAT's status of an invoice and the company's mode, as `GET /api/cfdi/{id}/estado-sat` and
/// the MCP tool `estado_sat` ask it.
pub(crate) async fn consultar(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    id: &str,
) -> HttpResult<(EstadoSatOut, &'static str)> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiEstadoSat).await?;
    let ve_nomina = super::ve_nomina(caller, &access);
    Ok((estado_sat::consultar(app, empresa_id, id, ve_nomina).await?, access.mode()))
}
