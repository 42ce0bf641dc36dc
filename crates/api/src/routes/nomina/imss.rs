//! `GET /api/nomina/imss/{año}/{mes}`: a month of IMSS and INFONAVIT dues per worker and branch
//! (`timbra_services::nomina::imss`).

use axum::extract::State;
use axum::response::IntoResponse;

use crate::envelope::{Path, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::nomina::imss::{self, CuotasImss};

/// A month's IMSS dues (CONTADOR or higher; key scope `nomina:view`): every employee registered
/// some day of the month with SBC, days, worker and employer dues and each branch (the
/// bimonthly retiro, CEAV and INFONAVIT as the month's share), and the totals.
#[utoipa::path(get, path = "/nomina/imss/{anio}/{mes}", tag = "nomina",
    params(("anio" = i32, Path, description = "year"), ("mes" = u8, Path, description = "month 1–12"), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "trabajadores [{empleadoId, nss, sbc, dias, cuotasObrero, cuotasPatronal, porRamo}], totales", body = Envelope<CuotasImss>),
        (status = 400, description = "NOMINA_001 a bad year or month, or the company has no primaRiesgo", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
    ))]
pub async fn cuotas(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path((anio, mes)): Path<(String, String)>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    Ok(ok(imss::cuotas(&app, &empresa_id, &anio, &mes).await?))
}
