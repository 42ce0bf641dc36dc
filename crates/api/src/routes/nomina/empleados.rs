//! Employees (empleados) of a company: create, list with search, get, update, deactivate.
//! Records are never deleted: DELETE deactivates (`activo: false`, `fechaBaja`), PATCH with
//! `activo: true` re-activates.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Deserializer};
use time::UtcOffset;
use utoipa::ToSchema;

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::clientes::{ListParams, check_search};
use timbra_cfdi::tipos::{CampoTexto, Esquema, Persona, Rfc};
use timbra_nomina::catalogos;
use timbra_nomina::identificadores::{validar_curp, validar_nss};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_services::nomina::{Empleado, PeriodicidadPago, leer_fecha};
use timbra_services::validate;
use timbra_services::validate::RawAmount;
use timbra_store::AsExec;
use timbra_store::empleados::{self, Empleados};
use timbra_store::ids;
use timbra_store::scoped;
use timbra_store::search::like_pattern;

/// A catalog key sent as a string or a whole number (`riesgoPuesto: 1` or `"1"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clave(Result<String, &'static str>);

impl<'de> Deserialize<'de> for Clave {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        Ok(Self(match Value::deserialize(deserializer)? {
            Value::String(text) => Ok(text.trim().to_owned()),
            Value::Number(n) if n.is_u64() => Ok(n.to_string()),
            Value::Number(_) => Err("a number that is not a whole number"),
            Value::Bool(_) => Err("a boolean"),
            Value::Array(_) => Err("an array"),
            Value::Object(_) => Err("an object"),
            Value::Null => Err("null"),
        }))
    }
}

impl Clave {
    fn texto(texto: &str) -> Self {
        Self(Ok(texto.to_owned()))
    }
}

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
}

/// The employee's fields, checked.
struct Valid {
    num_empleado: String,
    nombre: String,
    rfc: String,
    curp: String,
    nss: Option<String>,
    codigo_postal: String,
    fecha_inicio_rel_laboral: String,
    salario_diario: rust_decimal::Decimal,
    salario_diario_integrado: rust_decimal::Decimal,
    periodicidad: &'static str,
    tipo_contrato: String,
    tipo_jornada: Option<String>,
    tipo_regimen: String,
    riesgo_puesto: String,
    departamento: Option<String>,
    puesto: Option<String>,
    banco: Option<String>,
    cuenta_bancaria: Option<String>,
    clave_ent_fed: String,
    activo: bool,
    fecha_baja: Option<String>,
}

/// A catalog key: present (when `required`) and in `catalogo`.
fn clave(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<&Clave>,
    catalogo: &[&str],
    nombre: &str,
    required: bool,
) -> Option<String> {
    match value.map(|c| &c.0) {
        None => {
            if required {
                problems.push(FieldProblem::new(field, format!("{field} is required")));
            }
            None
        }
        Some(Err(kind)) => {
            problems.push(FieldProblem::new(field, format!("{field} must be a key of {nombre}, not {kind}")));
            None
        }
        Some(Ok(texto)) if texto.is_empty() && !required => None,
        Some(Ok(texto)) => {
            let texto = texto.to_uppercase();
            if catalogo.contains(&texto.as_str()) {
                Some(texto)
            } else {
                let ejemplos = catalogo.iter().take(12).copied().collect::<Vec<_>>().join(", ");
                problems.push(FieldProblem::new(
                    field,
                    format!(
                        "{texto:?} is not a key of SAT's catalog {nombre} ({ejemplos}{})",
                        if catalogo.len() > 12 { ", …" } else { "" }
                    ),
                ));
                None
            }
        }
    }
}

/// A required text, trimmed and uppercased.
fn requerido(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>) -> String {
    let value = value.map(|v| v.trim().to_uppercase()).unwrap_or_default();
    if value.is_empty() {
        problems.push(FieldProblem::new(field, format!("{field} is required")));
    }
    value
}

/// A CLABE's check digit (weights 3, 7, 1 over the first 17 digits).
fn clabe_valida(clabe: &str) -> bool {
    let d: Vec<u32> = clabe.chars().filter_map(|c| c.to_digit(10)).collect();
    if d.len() != 18 {
        return false;
    }
    let suma: u32 = d[..17].iter().zip([3, 7, 1].iter().cycle()).map(|(x, w)| (x * w) % 10).sum();
    (10 - suma % 10) % 10 == d[17]
}

fn check(body: EmpleadoBody, hoy: time::Date) -> HttpResult<Valid> {
    let mut problems = Vec::new();
    let num_empleado = body.num_empleado.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if num_empleado.is_empty() {
        problems.push(FieldProblem::new("numEmpleado", "numEmpleado is required"));
    } else if num_empleado.chars().count() > 15 || num_empleado.contains('|') {
        problems.push(FieldProblem::new("numEmpleado", "numEmpleado has 1 to 15 characters and no '|' (Nómina 1.2)"));
    }
    let nombre = validate::sat_text(&mut problems, "nombre", body.nombre.as_deref(), CampoTexto::NOMBRE);

    let rfc = requerido(&mut problems, "rfc", body.rfc.as_deref());
    if !rfc.is_empty() {
        match Rfc::new(&rfc) {
            Err(error) => problems.push(FieldProblem::new("rfc", error.to_string())),
            Ok(r) if r.persona() != Persona::Fisica || r.es_generico() => problems.push(FieldProblem::new(
                "rfc",
                "an employee's RFC is a persona física's: 13 characters, not a generic RFC (Nómina 1.2 NOM8)",
            )),
            Ok(r) if !r.digito_verificador_valido() => problems.push(FieldProblem::new(
                "rfc",
                format!("the RFC's check digit should be {}; check the RFC", r.digito_verificador()),
            )),
            Ok(_) => {}
        }
    }
    let curp = requerido(&mut problems, "curp", body.curp.as_deref());
    if !curp.is_empty()
        && let Err(error) = validar_curp(&curp)
    {
        problems.push(FieldProblem::new("curp", error));
    }

    let tipo_contrato = clave(
        &mut problems,
        "tipoContrato",
        body.tipo_contrato.as_ref(),
        &catalogos::TIPOS_CONTRATO,
        "c_TipoContrato",
        true,
    );
    let con_imss = tipo_contrato.as_deref().is_some_and(catalogos::contrato_con_imss);
    let nss = body.nss.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
    match &nss {
        Some(n) => {
            if let Err(error) = validar_nss(n) {
                problems.push(FieldProblem::new("nss", error));
            }
        }
        None if con_imss => problems.push(FieldProblem::new(
            "nss",
            "nss is required for tipoContrato 01–08: the receipt carries the worker's NumSeguridadSocial (NOM44)",
        )),
        None => {}
    }
    let codigo_postal = validate::codigo_postal(&mut problems, "codigoPostal", body.codigo_postal.as_deref());
    let fecha_inicio_rel_laboral = match body.fecha_inicio_rel_laboral.as_deref().map(str::trim) {
        None | Some("") => {
            problems.push(FieldProblem::new("fechaInicioRelLaboral", "fechaInicioRelLaboral is required"));
            String::new()
        }
        Some(texto) => match leer_fecha(texto) {
            Some(fecha) if fecha <= hoy => fecha.to_string(),
            Some(fecha) => {
                problems.push(FieldProblem::new(
                    "fechaInicioRelLaboral",
                    format!("fechaInicioRelLaboral {fecha} is in the future; register the employee once hired"),
                ));
                String::new()
            }
            None => {
                problems.push(FieldProblem::new(
                    "fechaInicioRelLaboral",
                    "fechaInicioRelLaboral must be a date AAAA-MM-DD",
                ));
                String::new()
            }
        },
    };
    let positivo = |problems: &mut Vec<FieldProblem>, field: &str, raw: Option<&RawAmount>| {
        let value = validate::amount(problems, field, raw, Esquema::IMPORTE, true)?;
        if value <= rust_decimal::Decimal::ZERO {
            problems.push(FieldProblem::new(field, format!("{field} must be more than 0")));
            return None;
        }
        Some(value)
    };
    let salario_diario = positivo(&mut problems, "salarioDiario", body.salario_diario.as_ref());
    let salario_diario_integrado =
        positivo(&mut problems, "salarioDiarioIntegrado", body.salario_diario_integrado.as_ref());
    if let (Some(sd), Some(sdi)) = (salario_diario, salario_diario_integrado)
        && sdi < sd
    {
        problems.push(FieldProblem::new(
            "salarioDiarioIntegrado",
            format!(
                "salarioDiarioIntegrado cannot be less than salarioDiario ({sd}): it adds benefits to it (Art. 27 LSS)"
            ),
        ));
    }
    let periodicidad = match body.periodicidad.as_deref().map(str::trim) {
        None | Some("") => {
            problems.push(FieldProblem::new("periodicidad", "periodicidad is required"));
            None
        }
        Some(texto) => PeriodicidadPago::parse(texto).or_else(|| {
            problems.push(FieldProblem::new(
                "periodicidad",
                format!("{texto:?} is not a periodicidad; use SEMANAL, CATORCENAL, QUINCENAL or MENSUAL"),
            ));
            None
        }),
    };
    let tipo_jornada = clave(
        &mut problems,
        "tipoJornada",
        body.tipo_jornada.as_ref(),
        &catalogos::TIPOS_JORNADA,
        "c_TipoJornada",
        false,
    );
    let tipo_regimen = match &body.tipo_regimen {
        None => Some("02".to_owned()),
        Some(_) => clave(
            &mut problems,
            "tipoRegimen",
            body.tipo_regimen.as_ref(),
            &catalogos::TIPOS_REGIMEN,
            "c_TipoRegimen",
            true,
        ),
    };
    if con_imss
        && let Some(regimen) = &tipo_regimen
        && !["02", "03", "04"].contains(&regimen.as_str())
    {
        problems.push(FieldProblem::new(
            "tipoRegimen",
            format!("tipoRegimen {regimen} does not fit tipoContrato 01–08; use 02, 03 or 04 (Nómina 1.2 NOM57)"),
        ));
    }
    let riesgo_puesto = clave(
        &mut problems,
        "riesgoPuesto",
        body.riesgo_puesto.as_ref(),
        &["1", "2", "3", "4", "5"],
        "c_RiesgoPuesto (1 to 5)",
        true,
    );
    let departamento = validate::optional_sat_text(
        &mut problems,
        "departamento",
        body.departamento.as_deref(),
        CampoTexto::DESCRIPCION,
    );
    let puesto = validate::optional_sat_text(&mut problems, "puesto", body.puesto.as_deref(), CampoTexto::DESCRIPCION);
    for (field, value) in [("departamento", &departamento), ("puesto", &puesto)] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 100) {
            problems.push(FieldProblem::new(field, format!("{field} has at most 100 characters (Nómina 1.2)")));
        }
    }
    let banco = clave(&mut problems, "banco", body.banco.as_ref(), &catalogos::BANCOS, "c_Banco", false);
    let cuenta_bancaria = body.cuenta_bancaria.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
    if let Some(cuenta) = &cuenta_bancaria {
        let digitos = cuenta.chars().all(|c| c.is_ascii_digit());
        match cuenta.len() {
            18 if digitos => {
                if !clabe_valida(cuenta) {
                    problems.push(FieldProblem::new(
                        "cuentaBancaria",
                        "the CLABE's check digit does not match; check the CLABE",
                    ));
                }
                if banco.is_some() {
                    problems.push(FieldProblem::new(
                        "banco",
                        "leave banco out with a CLABE: the CLABE names the bank (Nómina 1.2)",
                    ));
                }
            }
            10 | 11 | 16 if digitos => {
                if banco.is_none() && body.banco.is_none() {
                    problems.push(FieldProblem::new(
                        "banco",
                        "banco is required with an account of 10, 11 or 16 digits (Nómina 1.2)",
                    ));
                }
            }
            _ => problems.push(FieldProblem::new(
                "cuentaBancaria",
                "cuentaBancaria is an account (10 or 11 digits), a card (16) or a CLABE (18)",
            )),
        }
    }
    let clave_ent_fed = requerido(&mut problems, "claveEntFed", body.clave_ent_fed.as_deref());
    if !clave_ent_fed.is_empty() && !catalogos::ESTADOS.contains(&clave_ent_fed.as_str()) {
        problems.push(FieldProblem::new(
            "claveEntFed",
            format!("{clave_ent_fed:?} is not a state of SAT's catalog c_Estado (AGU, BCN, … CMX, … ZAC)"),
        ));
    }
    let activo = body.activo.unwrap_or(true);
    let fecha_baja = if activo {
        None
    } else {
        match body.fecha_baja.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            None => Some(hoy.to_string()),
            Some(texto) => match leer_fecha(texto) {
                Some(fecha) => Some(fecha.to_string()),
                None => {
                    problems.push(FieldProblem::new("fechaBaja", "fechaBaja must be a date AAAA-MM-DD"));
                    None
                }
            },
        }
    };
    match (salario_diario, salario_diario_integrado, periodicidad, tipo_contrato, tipo_regimen, riesgo_puesto) {
        (
            Some(salario_diario),
            Some(salario_diario_integrado),
            Some(periodicidad),
            Some(tipo_contrato),
            Some(tipo_regimen),
            Some(riesgo_puesto),
        ) if problems.is_empty() => Ok(Valid {
            num_empleado,
            nombre,
            rfc,
            curp,
            nss,
            codigo_postal,
            fecha_inicio_rel_laboral,
            salario_diario,
            salario_diario_integrado,
            periodicidad: periodicidad.as_str(),
            tipo_contrato,
            tipo_jornada,
            tipo_regimen,
            riesgo_puesto,
            departamento,
            puesto,
            banco,
            cuenta_bancaria,
            clave_ent_fed,
            activo,
            fecha_baja,
        }),
        _ => Err(ApiError::fields(Code::Empleado001, problems).into()),
    }
}

impl Valid {
    fn datos(&self) -> empleados::Datos<'_> {
        empleados::Datos {
            num_empleado: &self.num_empleado,
            nombre: &self.nombre,
            rfc: &self.rfc,
            curp: &self.curp,
            nss: self.nss.as_deref(),
            codigo_postal: &self.codigo_postal,
            fecha_inicio_rel_laboral: &self.fecha_inicio_rel_laboral,
            salario_diario: self.salario_diario,
            salario_diario_integrado: self.salario_diario_integrado,
            periodicidad: self.periodicidad,
            tipo_contrato: &self.tipo_contrato,
            tipo_jornada: self.tipo_jornada.as_deref(),
            tipo_regimen: &self.tipo_regimen,
            riesgo_puesto: &self.riesgo_puesto,
            departamento: self.departamento.as_deref(),
            puesto: self.puesto.as_deref(),
            banco: self.banco.as_deref(),
            cuenta_bancaria: self.cuenta_bancaria.as_deref(),
            clave_ent_fed: &self.clave_ent_fed,
            activo: self.activo,
            fecha_baja: self.fecha_baja.as_deref(),
        }
    }
}

/// Today in Mexico City (UTC−6 all year since 2022), from the app's clock.
pub fn hoy(app: &AppContext) -> time::Date {
    let offset = UtcOffset::from_hms(-6, 0, 0).unwrap_or(UtcOffset::UTC);
    app.clock.now().to_offset(offset).date()
}

/// EMPLEADO_002 when another employee of the company has the RFC or the number.
async fn check_unique(conn: &mut impl AsExec, empresa_id: &str, valid: &Valid, except_id: &str) -> HttpResult<()> {
    let (rfc, num) = empleados::ocupados(conn, empresa_id, &valid.rfc, &valid.num_empleado, except_id).await?;
    let mut problems = Vec::new();
    if rfc {
        problems.push(FieldProblem::new(
            "rfc",
            format!("an employee with RFC {} already exists in this company", valid.rfc),
        ));
    }
    if num {
        problems.push(FieldProblem::new(
            "numEmpleado",
            format!("employee number {} is already used in this company", valid.num_empleado),
        ));
    }
    if problems.is_empty() { Ok(()) } else { Err(ApiError::fields(Code::Empleado002, problems).into()) }
}

fn duplicate() -> ApiError {
    ApiError::new(Code::Empleado002, "an employee with this RFC or employee number already exists in this company")
}

async fn load_in(conn: &mut impl AsExec, empresa_id: &str, id: &str) -> HttpResult<Empleado> {
    Ok(scoped::get::<Empleados>(conn, empresa_id, id)
        .await?
        .map(Empleado::from)
        .ok_or_else(|| ApiError::not_found("employee"))?)
}

/// Registers an employee (CONTADOR or higher; key scope `nomina:manage`).
#[utoipa::path(post, path = "/nomina/empleados", tag = "nomina", request_body = EmpleadoBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Employee created, activo true", body = Envelope<Empleado>),
        (status = 400, description = "EMPLEADO_001 with every problem in `details.fields`; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "AUTH_003 (below CONTADOR) / SCOPE_002", body = ErrorBody),
        (status = 409, description = "EMPLEADO_002 RFC or numEmpleado already used in the company", body = ErrorBody),
    ))]
pub async fn create(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<EmpleadoBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let valid = check(EmpleadoBody { activo: Some(true), fecha_baja: None, ..body }, hoy(&app))?;
    let id = ids::new_id();
    let mut tx = app.db.begin().await?;
    check_unique(&mut tx, &empresa_id, &valid, &id).await?;
    match empleados::insert(&mut tx, &empresa_id, &id, &valid.datos(), app.clock.now()).await {
        Err(error) if error.is_duplicate() => return Err(crate::error::HttpError(duplicate())),
        other => other?,
    };
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    Ok(created(out))
}

/// Lists employees, newest first, with `q` over number, name, RFC and CURP (active and
/// inactive; see `activo`).
#[utoipa::path(get, path = "/nomina/empleados", tag = "nomina", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<Empleado>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002 (`nomina:view`)", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    check_search("q", params.q.as_deref())?;
    let pattern = like_pattern(params.q.as_deref());
    let mut conn = app.db.conn().await?;
    let (rows, total) = scoped::page::<Empleados>(&mut conn, &empresa_id, &pattern, &paging).await?;
    Ok(ok(Page::new(rows.into_iter().map(Empleado::from).collect(), total, paging)))
}

/// One employee.
#[utoipa::path(get, path = "/nomina/empleados/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The employee", body = Envelope<Empleado>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    Ok(ok(load_in(&mut app.db.conn().await?, &empresa_id, &id).await?))
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
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    Json(body): Json<EmpleadoBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let mut tx = app.db.begin().await?;
    let current = load_in(&mut tx, &empresa_id, &id).await?;
    let activo = body.activo.unwrap_or(current.activo);
    // Staying inactive keeps the recorded termination date unless a new one is sent.
    let fecha_baja = if activo { None } else { body.fecha_baja.or(current.fecha_baja) };
    let merged = EmpleadoBody {
        num_empleado: body.num_empleado.or(Some(current.num_empleado)),
        nombre: body.nombre.or(Some(current.nombre)),
        rfc: body.rfc.or(Some(current.rfc)),
        curp: body.curp.or(Some(current.curp)),
        nss: body.nss.or(current.nss),
        codigo_postal: body.codigo_postal.or(Some(current.codigo_postal)),
        fecha_inicio_rel_laboral: body.fecha_inicio_rel_laboral.or(Some(current.fecha_inicio_rel_laboral)),
        salario_diario: body.salario_diario.or(Some(RawAmount::from_decimal(current.salario_diario))),
        salario_diario_integrado: body
            .salario_diario_integrado
            .or(Some(RawAmount::from_decimal(current.salario_diario_integrado))),
        periodicidad: body.periodicidad.or(Some(current.periodicidad)),
        tipo_contrato: body.tipo_contrato.or(Some(Clave::texto(&current.tipo_contrato))),
        tipo_jornada: body.tipo_jornada.or(current.tipo_jornada.as_deref().map(Clave::texto)),
        tipo_regimen: body.tipo_regimen.or(Some(Clave::texto(&current.tipo_regimen))),
        riesgo_puesto: body.riesgo_puesto.or(Some(Clave::texto(&current.riesgo_puesto))),
        departamento: body.departamento.or(current.departamento),
        puesto: body.puesto.or(current.puesto),
        banco: body.banco.or(current.banco.as_deref().map(Clave::texto)),
        cuenta_bancaria: body.cuenta_bancaria.or(current.cuenta_bancaria),
        clave_ent_fed: body.clave_ent_fed.or(Some(current.clave_ent_fed)),
        activo: Some(activo),
        fecha_baja,
    };
    let valid = check(merged, hoy(&app))?;
    check_unique(&mut tx, &empresa_id, &valid, &id).await?;
    match empleados::update(&mut tx, &empresa_id, &id, &valid.datos(), app.clock.now()).await {
        Err(error) if error.is_duplicate() => return Err(crate::error::HttpError(duplicate())),
        other => other?,
    };
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    Ok(ok(out))
}

/// Deactivates an employee (`activo: false`, `fechaBaja` today in Mexico City): the record and
/// its receipts stay; PATCH `activo: true` re-activates. Inactive employees get no receipts.
#[utoipa::path(delete, path = "/nomina/empleados/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The deactivated employee", body = Envelope<Empleado>),
        (status = 403, description = "AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let mut tx = app.db.begin().await?;
    if !empleados::desactivar(&mut tx, &empresa_id, &id, &hoy(&app).to_string(), app.clock.now()).await? {
        return Err(ApiError::not_found("employee").into());
    }
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    Ok(ok(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clabes() {
        assert!(clabe_valida("002010077777777771"));
        assert!(!clabe_valida("002010077777777772"));
        assert!(!clabe_valida("00201007777777777"));
    }
}
