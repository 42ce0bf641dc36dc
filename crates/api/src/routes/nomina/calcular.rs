//! The public gross-to-net calculator `POST /api/nomina/calcular`.

use axum::response::IntoResponse;
use timbra_nomina::CalculoNomina;

use crate::envelope::{Json, ok};
use crate::error::HttpResult;
use crate::openapi::ErrorBody;

/// Gross-to-net for one employee and period (public, no credentials): ISR (Art. 96 LISR, 2026
/// tariffs), subsidio para el empleo, IMSS worker quotas, extra perceptions and deductions.
/// Parameters are those in force on `fechaPago` (default today in Mexico City).
#[utoipa::path(post, path = "/nomina/calcular", tag = "nomina",
    request_body(content = CalculoNomina, description = "salarioDiario, diasPagados and periodicidad required; amounts as JSON numbers or strings",
        example = json!({"salarioDiario": 500, "salarioDiarioIntegrado": 522.6, "diasPagados": 15, "periodicidad": "quincenal", "riesgoPuesto": "1", "fechaPago": "2026-03-15"})),
    responses(
        (status = 200, description = "data: percepciones, deducciones, otrosPagos, netoAPagar, desglose", body = Object),
        (status = 400, description = "NOMINA_001 with `details.fields`", body = ErrorBody),
    ))]
pub async fn calcular(Json(body): Json<CalculoNomina>) -> HttpResult<impl IntoResponse> {
    Ok(ok(neto(&body)?))
}

/// Gross to net, as `POST /api/nomina/calcular` and the MCP tool `calcular_nomina` compute it.
pub(crate) fn neto(body: &CalculoNomina) -> HttpResult<timbra_nomina::ResultadoNomina> {
    Ok(timbra_services::nomina::calcular_neto(body)?)
}
