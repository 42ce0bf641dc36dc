//! `POST /api/nomina/empleados/{id}/baja`: the finiquito or liquidación of an employee who
//! leaves, as a FINIQUITO period with its receipt (`timbra_services::nomina::baja`).

use axum::extract::State;
use axum::response::IntoResponse;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::nomina::baja::{self, Baja};

/// A baja.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct BajaBody {
    /// Required. Exit date, AAAA-MM-DD, not before fechaInicioRelLaboral.
    fecha: Option<String>,
    /// Required. RENUNCIA, DESPIDO_JUSTIFICADO, DESPIDO_INJUSTIFICADO, MUTUO_ACUERDO, MUERTE or
    /// INCAPACIDAD: decides the prima de antigüedad (LFT Art. 162) and whether an indemnización
    /// may be paid.
    motivo: Option<String>,
    /// Pay the indemnización, 90 days + 20 days per year of the SDI (a liquidación), on
    /// DESPIDO_INJUSTIFICADO or MUTUO_ACUERDO. Default false.
    incluir_indemnizacion: Option<bool>,
    /// Payment date, on or after fecha (default fecha): its UMA and tariff apply.
    fecha_pago: Option<String>,
    /// Days of salary not yet paid (default 0), perception 001.
    #[schema(value_type = Option<f64>)]
    dias_sueldo_pendientes: Option<serde_json::Value>,
    /// Vacation days of earlier years still owed (default 0).
    #[schema(value_type = Option<f64>)]
    dias_vacaciones_pendientes: Option<serde_json::Value>,
    /// An agreed gratificación for the separation (default 0), perception 023.
    #[schema(value_type = Option<f64>)]
    gratificacion_separacion: Option<serde_json::Value>,
}

/// Records an employee's baja (CONTADOR or higher; key scope `nomina:manage`): calculates the
/// finiquito (salary owed, proportional aguinaldo, vacations and their prima, the prima de
/// antigüedad where the law grants it, the indemnización when asked and allowed), writes it as
/// an EXTRAORDINARIA period of concepto FINIQUITO with the receipt CALCULADO, and deactivates
/// the employee at `fecha`. Stamp the receipt with `POST /api/nomina/periodos/{periodoId}/timbrar`.
#[utoipa::path(post, path = "/nomina/empleados/{id}/baja", tag = "nomina", request_body = BajaBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "periodoId, reciboId, the employee (inactive), the finiquito and the calculation", body = Envelope<Baja>),
        (status = 400, description = "NOMINA_001 with `details.fields`: a fecha before the hire date, a bad motivo, an employee already inactive", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for another company's employee)", body = ErrorBody),
    ))]
pub async fn baja(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    Json(body): Json<BajaBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let campos = baja::Campos {
        fecha: body.fecha,
        motivo: body.motivo,
        incluir_indemnizacion: body.incluir_indemnizacion,
        fecha_pago: body.fecha_pago,
        dias_sueldo_pendientes: body.dias_sueldo_pendientes,
        dias_vacaciones_pendientes: body.dias_vacaciones_pendientes,
        gratificacion_separacion: body.gratificacion_separacion,
    };
    Ok(created(baja::dar_de_baja(&app, &empresa_id, &id, campos).await?))
}
