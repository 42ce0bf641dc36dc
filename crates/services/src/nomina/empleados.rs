//! Employees (empleados) of a company: their rules over the shared CRUD of [`crate::scoped`],
//! and deactivation (records are never deleted).

use serde::{Deserialize, Deserializer};
use timbra_cfdi::tipos::{CampoTexto, Esquema, Persona, Rfc};
use timbra_nomina::catalogos;
use timbra_nomina::identificadores::{validar_curp, validar_nss};
use timbra_store::empleados::{self, EmpleadoRow};
use timbra_store::empleados_movimientos;
use timbra_store::ids::{EmpleadoId, EmpresaId};
use timbra_store::{AsExec, DbResult, Tx};
use time::{OffsetDateTime, UtcOffset};

use super::{Empleado, PeriodicidadPago, leer_fecha};
use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::scoped::Resource;
use crate::validate::{self, RawAmount};

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
    /// A key read from storage.
    pub fn texto(texto: &str) -> Self {
        Self(Ok(texto.to_owned()))
    }
}

/// An employee's fields as sent (see the API's body for which are required); on update what is
/// left out keeps its value, and an empty string clears an optional field.
#[derive(Default)]
pub struct Campos {
    /// The employer's number (NumEmpleado).
    pub num_empleado: Option<String>,
    /// Name as in the Constancia de Situación Fiscal.
    pub nombre: Option<String>,
    /// RFC of a persona física.
    pub rfc: Option<String>,
    /// CURP.
    pub curp: Option<String>,
    /// NSS (NumSeguridadSocial).
    pub nss: Option<String>,
    /// Postal code of the fiscal domicile.
    pub codigo_postal: Option<String>,
    /// Start of the employment, AAAA-MM-DD.
    pub fecha_inicio_rel_laboral: Option<String>,
    /// Daily wage, as sent.
    pub salario_diario: Option<RawAmount>,
    /// Salario diario integrado (Art. 27 LSS), as sent.
    pub salario_diario_integrado: Option<RawAmount>,
    /// SEMANAL, CATORCENAL, QUINCENAL or MENSUAL.
    pub periodicidad: Option<String>,
    /// c_TipoContrato.
    pub tipo_contrato: Option<Clave>,
    /// c_TipoJornada.
    pub tipo_jornada: Option<Clave>,
    /// c_TipoRegimen, default 02.
    pub tipo_regimen: Option<Clave>,
    /// c_RiesgoPuesto.
    pub riesgo_puesto: Option<Clave>,
    /// Department.
    pub departamento: Option<String>,
    /// Position.
    pub puesto: Option<String>,
    /// c_Banco.
    pub banco: Option<Clave>,
    /// Account, card or CLABE.
    pub cuenta_bancaria: Option<String>,
    /// c_Estado where the employee works.
    pub clave_ent_fed: Option<String>,
    /// `false` deactivates, `true` re-activates.
    pub activo: Option<bool>,
    /// With `activo: false`, the termination date.
    pub fecha_baja: Option<String>,
    /// Trabajador de confianza (PTU, LFT Art. 127 fr. II).
    pub confianza: Option<bool>,
    /// Director, administrador or gerente general (no PTU, LFT Art. 127 fr. I).
    pub director: Option<bool>,
    /// Where the receipts are e-mailed (`""` clears it).
    pub email: Option<String>,
    /// Effective date of the IMSS movement an update causes (a salary change, 07; a
    /// re-activation, 08), AAAA-MM-DD; default today in Mexico City. Not stored on the employee.
    pub fecha_movimiento: Option<String>,
}

/// The employee's fields, checked.
pub struct Valid {
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
    confianza: bool,
    director: bool,
    email: Option<String>,
    fecha_movimiento: String,
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

/// EMPLEADO_001 with every field problem; `hoy` bounds fechaInicioRelLaboral and is the default
/// fechaBaja.
pub fn check(campos: Campos, hoy: time::Date) -> Result<Valid, ApiError> {
    // A bad address is CORREO_002, as everywhere an address is taken.
    let email = campos.email.as_deref().map(|email| email.trim_matches(' ')).filter(|email| !email.is_empty());
    if let Some(email) = email
        && !crate::correo::direccion::direccion_valida(email)
    {
        return Err(ApiError::new(
            Code::Correo002,
            format!("email is not a valid e-mail address ({email:?}): send one address like nombre@dominio.com"),
        )
        .with_details(serde_json::json!({ "campo": "email", "direccion": email })));
    }
    let email = email.map(str::to_owned);
    let mut problems = Vec::new();
    let num_empleado = campos.num_empleado.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if num_empleado.is_empty() {
        problems.push(FieldProblem::new("numEmpleado", "numEmpleado is required"));
    } else if num_empleado.chars().count() > 15 || num_empleado.contains('|') {
        problems.push(FieldProblem::new("numEmpleado", "numEmpleado has 1 to 15 characters and no '|' (Nómina 1.2)"));
    }
    let nombre = validate::sat_text(&mut problems, "nombre", campos.nombre.as_deref(), CampoTexto::NOMBRE);

    let rfc = requerido(&mut problems, "rfc", campos.rfc.as_deref());
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
    let curp = requerido(&mut problems, "curp", campos.curp.as_deref());
    if !curp.is_empty()
        && let Err(error) = validar_curp(&curp)
    {
        problems.push(FieldProblem::new("curp", error));
    }

    let tipo_contrato = clave(
        &mut problems,
        "tipoContrato",
        campos.tipo_contrato.as_ref(),
        &catalogos::TIPOS_CONTRATO,
        "c_TipoContrato",
        true,
    );
    let con_imss = tipo_contrato.as_deref().is_some_and(catalogos::contrato_con_imss);
    let nss = campos.nss.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
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
    let codigo_postal = validate::codigo_postal(&mut problems, "codigoPostal", campos.codigo_postal.as_deref());
    let fecha_inicio_rel_laboral = match campos.fecha_inicio_rel_laboral.as_deref().map(str::trim) {
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
    let salario_diario = positivo(&mut problems, "salarioDiario", campos.salario_diario.as_ref());
    let salario_diario_integrado =
        positivo(&mut problems, "salarioDiarioIntegrado", campos.salario_diario_integrado.as_ref());
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
    let periodicidad = match campos.periodicidad.as_deref().map(str::trim) {
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
        campos.tipo_jornada.as_ref(),
        &catalogos::TIPOS_JORNADA,
        "c_TipoJornada",
        false,
    );
    let tipo_regimen = match &campos.tipo_regimen {
        None => Some("02".to_owned()),
        Some(_) => clave(
            &mut problems,
            "tipoRegimen",
            campos.tipo_regimen.as_ref(),
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
        campos.riesgo_puesto.as_ref(),
        &["1", "2", "3", "4", "5"],
        "c_RiesgoPuesto (1 to 5)",
        true,
    );
    let departamento = validate::optional_sat_text(
        &mut problems,
        "departamento",
        campos.departamento.as_deref(),
        CampoTexto::DESCRIPCION,
    );
    let puesto =
        validate::optional_sat_text(&mut problems, "puesto", campos.puesto.as_deref(), CampoTexto::DESCRIPCION);
    for (field, value) in [("departamento", &departamento), ("puesto", &puesto)] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 100) {
            problems.push(FieldProblem::new(field, format!("{field} has at most 100 characters (Nómina 1.2)")));
        }
    }
    let banco = clave(&mut problems, "banco", campos.banco.as_ref(), &catalogos::BANCOS, "c_Banco", false);
    let cuenta_bancaria = campos.cuenta_bancaria.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
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
                if banco.is_none() && campos.banco.is_none() {
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
    let clave_ent_fed = requerido(&mut problems, "claveEntFed", campos.clave_ent_fed.as_deref());
    if !clave_ent_fed.is_empty() && !catalogos::ESTADOS.contains(&clave_ent_fed.as_str()) {
        problems.push(FieldProblem::new(
            "claveEntFed",
            format!("{clave_ent_fed:?} is not a state of SAT's catalog c_Estado (AGU, BCN, … CMX, … ZAC)"),
        ));
    }
    let activo = campos.activo.unwrap_or(true);
    let fecha_baja = if activo {
        None
    } else {
        match campos.fecha_baja.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
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
    let fecha_movimiento = match campos.fecha_movimiento.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        None => hoy.to_string(),
        Some(texto) => match leer_fecha(texto) {
            Some(fecha) if fecha.to_string() < fecha_inicio_rel_laboral => {
                problems.push(FieldProblem::new(
                    "fechaMovimiento",
                    format!("fechaMovimiento {fecha} is before fechaInicioRelLaboral {fecha_inicio_rel_laboral}"),
                ));
                String::new()
            }
            Some(fecha) => fecha.to_string(),
            None => {
                problems.push(FieldProblem::new("fechaMovimiento", "fechaMovimiento must be a date AAAA-MM-DD"));
                String::new()
            }
        },
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
            confianza: campos.confianza.unwrap_or(false),
            director: campos.director.unwrap_or(false),
            email,
            fecha_movimiento,
        }),
        _ => Err(ApiError::fields(Code::Empleado001, problems)),
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
            confianza: self.confianza,
            director: self.director,
            email: self.email.as_deref(),
        }
    }
}

/// Today in Mexico City (UTC−6 all year since 2022), from the app's clock.
pub fn hoy(app: &AppContext) -> time::Date {
    let offset = UtcOffset::from_hms(-6, 0, 0).unwrap_or(UtcOffset::UTC);
    app.clock.now().to_offset(offset).date()
}

/// EMPLEADO_002 when another employee of the company has the RFC or the number.
async fn check_unique(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    valid: &Valid,
    except_id: &str,
) -> Result<(), ApiError> {
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
    if problems.is_empty() { Ok(()) } else { Err(ApiError::fields(Code::Empleado002, problems)) }
}

fn duplicate() -> ApiError {
    ApiError::new(Code::Empleado002, "an employee with this RFC or employee number already exists in this company")
}

/// The employees, for [`crate::scoped`]; their delete is [`desactivar`].
pub struct Empleados;

impl Resource for Empleados {
    type Table = empleados::Empleados;
    type Fields = Campos;
    type Valid = Valid;
    const NOUN: &'static str = "employee";

    async fn check(app: &AppContext, campos: Campos, current: Option<EmpleadoRow>) -> Result<Valid, ApiError> {
        let Some(current) = current.map(Empleado::from) else {
            // A new employee is active.
            return check(Campos { activo: Some(true), fecha_baja: None, ..campos }, hoy(app));
        };
        let activo = campos.activo.unwrap_or(current.activo);
        // Staying inactive keeps the recorded termination date unless a new one is sent.
        let fecha_baja = if activo { None } else { campos.fecha_baja.or(current.fecha_baja) };
        let merged = Campos {
            num_empleado: campos.num_empleado.or(Some(current.num_empleado)),
            nombre: campos.nombre.or(Some(current.nombre)),
            rfc: campos.rfc.or(Some(current.rfc)),
            curp: campos.curp.or(Some(current.curp)),
            nss: campos.nss.or(current.nss),
            codigo_postal: campos.codigo_postal.or(Some(current.codigo_postal)),
            fecha_inicio_rel_laboral: campos.fecha_inicio_rel_laboral.or(Some(current.fecha_inicio_rel_laboral)),
            salario_diario: campos.salario_diario.or(Some(RawAmount::from_decimal(current.salario_diario))),
            salario_diario_integrado: campos
                .salario_diario_integrado
                .or(Some(RawAmount::from_decimal(current.salario_diario_integrado))),
            periodicidad: campos.periodicidad.or(Some(current.periodicidad)),
            tipo_contrato: campos.tipo_contrato.or(Some(Clave::texto(&current.tipo_contrato))),
            tipo_jornada: campos.tipo_jornada.or(current.tipo_jornada.as_deref().map(Clave::texto)),
            tipo_regimen: campos.tipo_regimen.or(Some(Clave::texto(&current.tipo_regimen))),
            riesgo_puesto: campos.riesgo_puesto.or(Some(Clave::texto(&current.riesgo_puesto))),
            departamento: campos.departamento.or(current.departamento),
            puesto: campos.puesto.or(current.puesto),
            banco: campos.banco.or(current.banco.as_deref().map(Clave::texto)),
            cuenta_bancaria: campos.cuenta_bancaria.or(current.cuenta_bancaria),
            clave_ent_fed: campos.clave_ent_fed.or(Some(current.clave_ent_fed)),
            activo: Some(activo),
            fecha_baja,
            confianza: campos.confianza.or(Some(current.confianza)),
            director: campos.director.or(Some(current.director)),
            email: campos.email.or(current.email),
            fecha_movimiento: campos.fecha_movimiento,
        };
        check(merged, hoy(app))
    }

    async fn check_stored(tx: &mut Tx, empresa_id: &EmpresaId, id: &str, valid: &Valid) -> Result<(), ApiError> {
        check_unique(tx, empresa_id, valid, id).await
    }

    async fn insert(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        let insertados = empleados::insert(tx, empresa_id, id, &valid.datos(), now).await?;
        let alta = movimiento(id, "ALTA", &valid.fecha_inicio_rel_laboral, valid, None);
        registrar_movimiento(tx, empresa_id, &alta, now).await?;
        Ok(insertados)
    }

    async fn update(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        let antes = empleados::empleado(&mut *tx, empresa_id, &EmpleadoId::from(id)).await?;
        let cambiados = empleados::update(tx, empresa_id, id, &valid.datos(), now).await?;
        let Some(antes) = antes else { return Ok(cambiados) };
        // The IMSS movement the change causes (IDSE): an exit, a re-hire, or a salary change.
        let fecha_baja = valid.fecha_baja.clone().unwrap_or_else(|| valid.fecha_movimiento.clone());
        let nuevo = match (antes.activo, valid.activo) {
            (true, false) => Some(movimiento(id, "BAJA", &fecha_baja, valid, None)),
            (false, true) => Some(movimiento(id, "ALTA", &valid.fecha_movimiento, valid, None)),
            (true, true)
                if antes.salario_diario.0 != valid.salario_diario
                    || antes.salario_diario_integrado.0 != valid.salario_diario_integrado =>
            {
                Some(movimiento(id, "MODIFICACION", &valid.fecha_movimiento, valid, None))
            }
            _ => None,
        };
        if let Some(nuevo) = nuevo {
            registrar_movimiento(tx, empresa_id, &nuevo, now).await?;
        }
        Ok(cambiados)
    }

    fn duplicate(_valid: &Valid) -> Option<ApiError> {
        Some(duplicate())
    }
}

fn movimiento<'a>(
    empleado_id: &'a str,
    tipo: &'a str,
    fecha: &'a str,
    valid: &Valid,
    motivo: Option<&'a str>,
) -> empleados_movimientos::Movimiento<'a> {
    empleados_movimientos::Movimiento {
        empleado_id,
        tipo,
        fecha,
        salario_diario: valid.salario_diario,
        salario_diario_integrado: valid.salario_diario_integrado,
        motivo,
    }
}

/// Records an IMSS movement of an employee (the IDSE history), in the caller's transaction.
pub async fn registrar_movimiento(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    m: &empleados_movimientos::Movimiento<'_>,
    now: OffsetDateTime,
) -> DbResult<()> {
    empleados_movimientos::insert(tx, empresa_id, &timbra_store::ids::new_id(), m, now).await?;
    Ok(())
}

/// Records the BAJA of employee `row` (who was active) on `fecha`, with the baja's `motivo`.
pub async fn registrar_baja(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    row: &EmpleadoRow,
    fecha: &str,
    motivo: Option<&str>,
    now: OffsetDateTime,
) -> DbResult<()> {
    let baja = empleados_movimientos::Movimiento {
        empleado_id: &row.id,
        tipo: "BAJA",
        fecha,
        salario_diario: row.salario_diario.0,
        salario_diario_integrado: row.salario_diario_integrado.0,
        motivo,
    };
    registrar_movimiento(tx, empresa_id, &baja, now).await
}

/// Deactivates employee `id` (`activo: false`, `fechaBaja` today in Mexico City, or the one it
/// already had) and answers it; NOT_FOUND when the company has no such employee. Deactivating
/// an active employee records its IMSS exit (BAJA, without motivo).
pub async fn desactivar(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<Empleado, ApiError> {
    let mut tx = app.db.begin().await?;
    let antes = empleados::empleado(&mut tx, empresa_id, &EmpleadoId::from(id)).await?;
    let hoy = hoy(app).to_string();
    if !empleados::desactivar(&mut tx, empresa_id, id, &hoy, app.clock.now()).await? {
        return Err(ApiError::not_found("employee"));
    }
    if let Some(antes) = antes.filter(|e| e.activo) {
        registrar_baja(&mut tx, empresa_id, &antes, &hoy, None, app.clock.now()).await?;
    }
    let row = crate::scoped::get_in::<Empleados>(&mut tx, empresa_id, id).await?;
    tx.commit().await?;
    Ok(Empleado::from(row))
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
