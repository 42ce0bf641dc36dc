//! `POST /api/nomina/ptu`: the PTU of an ejercicio distributed as a PTU period with one receipt
//! per participating employee (`timbra_services::nomina::ptu`).

use axum::extract::State;
use axum::response::IntoResponse;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::envelope::{Json, created};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::nomina::ptu::{self, Ptu};

/// A PTU to distribute.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct PtuBody {
    /// Required. The fiscal year whose profit is shared; it must have ended.
    #[schema(value_type = Option<i64>)]
    ejercicio: Option<serde_json::Value>,
    /// Required. The amount to distribute (10 % of the taxable profit), more than 0.
    #[schema(value_type = Option<f64>)]
    monto: Option<serde_json::Value>,
    /// Payment date, AAAA-MM-DD, after the ejercicio (default today in Mexico City): its UMA
    /// sets the 15 UMA exemption.
    fecha_pago: Option<String>,
}

/// Distributes the PTU (CONTADOR or higher; key scope `nomina:manage`): half by days worked in
/// the ejercicio, half by salary earned, LFT Art. 127 exclusions (eventual workers with fewer
/// than 60 days) and caps; writes a PTU period (EXTRAORDINARIA) with its receipts CALCULADO.
/// Stamp them with `POST /api/nomina/periodos/{periodoId}/timbrar`.
#[utoipa::path(post, path = "/nomina/ptu", tag = "nomina", request_body = PtuBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "periodoId, the distribution and the period's calculation", body = Envelope<Ptu>),
        (status = 400, description = "NOMINA_001: monto ≤ 0, an ejercicio not ended (today's year or later), no participant", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 409, description = "NOMINA_035 the ejercicio's PTU was already distributed (details.periodoId)", body = ErrorBody),
    ))]
pub async fn repartir(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<PtuBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let campos = ptu::Campos { ejercicio: body.ejercicio, monto: body.monto, fecha_pago: body.fecha_pago };
    Ok(created(ptu::repartir(&app, &empresa_id, campos).await?))
}
