//! The public gross-to-net calculator `POST /api/nomina/calcular`.

use axum::response::IntoResponse;
use timbra_nomina::{CalculoNomina, calcular_solicitud};
use time::{OffsetDateTime, UtcOffset};

use crate::envelope::{Json, ok};
use crate::error::HttpResult;
use crate::openapi::ErrorBody;
use timbra_services::error::{ApiError, Code, FieldProblem};

/// Today in Mexico City. Since the 2022 reform Mexico keeps no daylight-saving time outside the
/// northern border strip, so Centro is UTC−6 all year.
fn today_in_mexico_city() -> time::Date {
    let offset = UtcOffset::from_hms(-6, 0, 0).unwrap_or(UtcOffset::UTC);
    OffsetDateTime::now_utc().to_offset(offset).date()
}

/// Gross-to-net for one employee and period (public, no credentials): ISR (Art. 96 LISR, 2026
/// tariffs), subsidio para el empleo, IMSS worker quotas, extra perceptions and deductions.
/// Parameters are those in force on `fechaPago` (default today in Mexico City).
#[utoipa::path(post, path = "/nomina/calcular", tag = "nomina",
    request_body(content = Object, description = "salarioDiario, salarioDiarioIntegrado, diasPagados, periodicidad, riesgoPuesto, \
        optional percepciones [{tipo, concepto, importe, gravado?, exento?, domingos?}], deducciones [{tipo, concepto, importe}], zona, fechaPago",
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
    calcular_solicitud(body, today_in_mexico_city()).map_err(|problemas| {
        ApiError::fields(
            Code::Nomina001,
            problemas.into_iter().map(|p| FieldProblem::new(p.campo, p.mensaje)).collect(),
        )
        .into()
    })
}
