//! Employees (empleados) of a company: create, list with search, get, update, deactivate.
//! Records are never deleted: DELETE deactivates (`activo: false`, `fechaBaja`), PATCH with
//! `activo: true` re-activates.

use axum::response::IntoResponse;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::envelope::{Json, Page, Path, Query, created, ok};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::scoped::{self, ListParams, Routed};
use timbra_services::auth::roles::Permission;
use timbra_services::nomina::Empleado;
use timbra_services::nomina::empleados::{self, Campos, Clave, Empleados};
use timbra_services::validate::RawAmount;

/// Employee body for create (see each field) and update (all optional: what is left out keeps
/// its value; an empty string clears an optional field).
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct EmpleadoBody {
    /// Required. The employer's number, unique in the company (Nómina 1.2 NumEmpleado: 1 to 15
    /// characters, no `|`).
    num_empleado: Option<String>,
    /// Required. Name as in the employee's Constancia de Situación Fiscal.
    nombre: Option<String>,
    /// Required. RFC of a persona física (13 characters, valid check digit), unique in the
    /// company.
    rfc: Option<String>,
    /// Required. CURP (18 characters, RENAPO check digit).
    curp: Option<String>,
    /// NSS, 11 digits with its check digit; required for tipoContrato 01–08.
    nss: Option<String>,
    /// Required. Postal code of the employee's fiscal domicile (DomicilioFiscalReceptor).
    codigo_postal: Option<String>,
    /// Required. Start of the employment, AAAA-MM-DD (a datetime's date is taken).
    fecha_inicio_rel_laboral: Option<String>,
    /// Required. Daily wage, MXN, more than 0.
    #[schema(value_type = Option<f64>)]
    salario_diario: Option<RawAmount>,
    /// Required. Salario diario integrado (Art. 27 LSS), not less than salarioDiario.
    #[schema(value_type = Option<f64>)]
    salario_diario_integrado: Option<RawAmount>,
    /// Required. SEMANAL, CATORCENAL, QUINCENAL or MENSUAL.
    periodicidad: Option<String>,
    /// Required. c_TipoContrato (01 indefinite … 99).
    #[schema(value_type = Option<String>)]
    tipo_contrato: Option<Clave>,
    /// c_TipoJornada (01 diurna, 02 nocturna, 03 mixta, …); sets the hours of the jornada
    /// overtime is paid by (8, 7, 7.5).
    #[schema(value_type = Option<String>)]
    tipo_jornada: Option<Clave>,
    /// c_TipoRegimen, default 02 (sueldos); 02, 03 or 04 for tipoContrato 01–08.
    #[schema(value_type = Option<String>)]
    tipo_regimen: Option<Clave>,
    /// Required. c_RiesgoPuesto class 1 to 5.
    #[schema(value_type = Option<String>)]
    riesgo_puesto: Option<Clave>,
    /// Department.
    departamento: Option<String>,
    /// Position.
    puesto: Option<String>,
    /// c_Banco (3 digits); required with an account of 10, 11 or 16 digits, absent with a CLABE.
    #[schema(value_type = Option<String>)]
    banco: Option<Clave>,
    /// Account (10 or 11 digits), card (16) or CLABE (18, with its check digit).
    cuenta_bancaria: Option<String>,
    /// Required. c_Estado where the employee works (AGU … ZAC, CMX).
    clave_ent_fed: Option<String>,
    /// `false` deactivates (as DELETE), `true` re-activates and clears fechaBaja.
    activo: Option<bool>,
    /// With `activo: false`: the termination date, AAAA-MM-DD (default today in Mexico City).
    fecha_baja: Option<String>,
    /// Trabajador de confianza (default false): in the PTU, salary capped at the highest base
    /// worker's + 20 % (LFT Art. 127 fr. II).
    confianza: Option<bool>,
    /// Director, administrador or gerente general (default false): no PTU (LFT Art. 127 fr. I).
    director: Option<bool>,
    /// Where the employee's receipts are e-mailed (`POST /api/cfdi/{id}/correo`'s default and a
    /// period's `enviarCorreo`); one address, `""` clears it. A bad address is CORREO_002.
    email: Option<String>,
    /// Update only: effective date of the IMSS movement the update causes (a new
    /// salarioDiario or salarioDiarioIntegrado: 07; a re-activation: 08), AAAA-MM-DD, not
    /// before fechaInicioRelLaboral; default today in Mexico City. See `GET /api/nomina/imss/movimientos`.
    fecha_movimiento: Option<String>,
}

impl Routed for Empleados {
    type Out = Empleado;
    const VIEW: Permission = Permission::NominaView;
    const CREATE: Permission = Permission::NominaManage;
    const EDIT: Permission = Permission::NominaManage;
    // DELETE deactivates (`delete` below), with the permission of every other write.
    const DELETE: Permission = Permission::NominaManage;
}

impl From<EmpleadoBody> for Campos {
    fn from(body: EmpleadoBody) -> Self {
        Self {
            num_empleado: body.num_empleado,
            nombre: body.nombre,
            rfc: body.rfc,
            curp: body.curp,
            nss: body.nss,
            codigo_postal: body.codigo_postal,
            fecha_inicio_rel_laboral: body.fecha_inicio_rel_laboral,
            salario_diario: body.salario_diario,
            salario_diario_integrado: body.salario_diario_integrado,
            periodicidad: body.periodicidad,
            tipo_contrato: body.tipo_contrato,
            tipo_jornada: body.tipo_jornada,
            tipo_regimen: body.tipo_regimen,
            riesgo_puesto: body.riesgo_puesto,
            departamento: body.departamento,
            puesto: body.puesto,
            banco: body.banco,
            cuenta_bancaria: body.cuenta_bancaria,
            clave_ent_fed: body.clave_ent_fed,
            activo: body.activo,
            fecha_baja: body.fecha_baja,
            confianza: body.confianza,
            director: body.director,
            email: body.email,
            fecha_movimiento: body.fecha_movimiento,
        }
    }
}

/// Registers an employee (CONTADOR or higher; key scope `nomina:manage`).
#[utoipa::path(post, path = "/nomina/empleados", tag = "nomina", request_body = EmpleadoBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Employee created, activo true", body = Envelope<Empleado>),
        (status = 400, description = "EMPLEADO_001 with every problem in `details.fields`; CORREO_002 email is not one address (details.campo, details.direccion); EMPRESA_003", body = ErrorBody),
        (status = 403, description = "AUTH_003 (below CONTADOR) / SCOPE_002", body = ErrorBody),
        (status = 409, description = "EMPLEADO_002 RFC or numEmpleado already used in the company", body = ErrorBody),
    ))]
pub async fn create(scope: EmpresaScope, Json(body): Json<EmpleadoBody>) -> HttpResult<impl IntoResponse> {
    Ok(created(scoped::create::<Empleados>(&scope, body.into()).await?))
}

/// Lists employees, newest first, with `q` over number, name, RFC and CURP (active and
/// inactive; see `activo`).
#[utoipa::path(get, path = "/nomina/empleados", tag = "nomina", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<Empleado>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002 (`nomina:view`)", body = ErrorBody),
    ))]
pub async fn list(scope: EmpresaScope, Query(params): Query<ListParams>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::list::<Empleados>(&scope, &params).await?))
}

/// One employee.
#[utoipa::path(get, path = "/nomina/empleados/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The employee", body = Envelope<Empleado>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::get::<Empleados>(&scope, &id).await?))
}

/// Updates an employee: every field; what is left out keeps its value. `activo: false`
/// deactivates (with `fechaBaja`, default today), `activo: true` re-activates and clears
/// fechaBaja.
#[utoipa::path(patch, path = "/nomina/empleados/{id}", tag = "nomina", request_body = EmpleadoBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The updated employee", body = Envelope<Empleado>),
        (status = 400, description = "EMPLEADO_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "EMPLEADO_002", body = ErrorBody),
    ))]
pub async fn update(
    scope: EmpresaScope,
    Path(id): Path<String>,
    Json(body): Json<EmpleadoBody>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::update::<Empleados>(&scope, &id, body.into()).await?))
}

/// Deactivates an employee (`activo: false`, `fechaBaja` today in Mexico City): the record and
/// its receipts stay; PATCH `activo: true` re-activates. Inactive employees get no receipts.
#[utoipa::path(delete, path = "/nomina/empleados/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The deactivated employee", body = Envelope<Empleado>),
        (status = 403, description = "AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Empleados::DELETE).await?;
    Ok(ok(empleados::desactivar(&scope.app, &scope.empresa_id, &id).await?))
}
