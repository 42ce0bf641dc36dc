//! The annual ISR adjustment (Art. 97 LISR): `POST /api/nomina/ajuste-anual` writes it into a
//! calculated period, `GET /api/nomina/ajuste-anual/{ejercicio}` shows it
//! (`timbra_services::nomina::ajuste_anual`).

use axum::extract::State;
use axum::response::IntoResponse;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::nomina::ajuste_anual::{self, AjusteAnual};

/// An adjustment to apply.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct AjusteBody {
    /// Required. The fiscal year, 2025 to this one.
    #[schema(value_type = Option<i64>)]
    ejercicio: Option<serde_json::Value>,
    /// Required. A calculated period of the company, not stamped, whose receipts carry the
    /// adjustment (e.g. the December aguinaldo).
    periodo_id: Option<String>,
}

/// Applies the annual ISR adjustment (CONTADOR or higher; key scope `nomina:manage`): per
/// employee eligible under Art. 97, the year's taxable income from the stamped receipts, the
/// Art. 152 annual ISR less the subsidy applied, against the ISR withheld; a balance due
/// becomes a Deduccion 002 "ISR ajuste anual", a balance in favour an OtroPago 004 with
/// CompensacionSaldosAFavor, in the employee's receipt of `periodoId`. Applying it again
/// replaces the previous one.
#[utoipa::path(post, path = "/nomina/ajuste-anual", tag = "nomina", request_body = AjusteBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "ejercicio, periodoId, items [{empleadoId, isrAnual, isrRetenido, saldoACargo, saldoAFavor, aplicado, ...}]", body = Envelope<AjusteAnual>),
        (status = 400, description = "NOMINA_001 bad fields; NOMINA_036 no stamped receipts in the ejercicio", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 404, description = "NOT_FOUND the period (also another company's)", body = ErrorBody),
        (status = 409, description = "NOMINA_011 the period is ABIERTO; NOMINA_003 it (or the previous adjustment's target) has stamped receipts", body = ErrorBody),
    ))]
pub async fn aplicar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<AjusteBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let campos = ajuste_anual::Campos { ejercicio: body.ejercicio, periodo_id: body.periodo_id };
    Ok(ok(ajuste_anual::aplicar(&app, &empresa_id, campos).await?))
}

/// The annual adjustment of an ejercicio as applied (CONTADOR or higher; `nomina:view`): one item
/// per employee with stamped receipts in it; empty when none was applied.
#[utoipa::path(get, path = "/nomina/ajuste-anual/{ejercicio}", tag = "nomina",
    params(("ejercicio" = i32, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "ejercicio, periodoId, items", body = Envelope<AjusteAnual>),
        (status = 400, description = "NOMINA_001 not a year", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
    ))]
pub async fn consultar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(ejercicio): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    Ok(ok(ajuste_anual::consultar(&app, &empresa_id, &ejercicio).await?))
}
