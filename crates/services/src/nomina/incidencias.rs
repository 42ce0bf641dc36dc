//! Incidences of a company's employees: recorded PENDIENTE after checking their fields and the
//! employee (INCIDENCIA_001, every problem at once), then approved or rejected once
//! (INCIDENCIA_002). Only APROBADA incidences dated within a period feed its calculation.

use rust_decimal::Decimal;
use timbra_cfdi::tipos::{CampoTexto, Esquema};
use timbra_nomina::catalogos;
use timbra_store::empleados::Empleados;
use timbra_store::ids;
use timbra_store::ids::{EmpresaId, IncidenciaId};
use timbra_store::incidencias::{self, IncidenciaRow};
use timbra_store::{Money, scoped};

use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::nomina::leer_fecha;
use crate::validate;
use crate::validate::RawAmount;

/// The kinds of incidence and the fields each takes.
pub const TIPOS: [(&str, &[&str]); 7] = [
    ("HORAS_EXTRA", &["horas"]),
    ("INCAPACIDAD", &["dias", "tipoIncapacidad"]),
    ("FALTA", &["dias"]),
    ("VACACIONES", &["dias"]),
    ("PRIMA_DOMINICAL", &["domingos"]),
    ("PERCEPCION", &["tipoPercepcion", "concepto", "importe", "gravado", "exento"]),
    ("DEDUCCION", &["tipoDeduccion", "concepto", "importe"]),
];

/// An incidence as sent. Every kind has `tipo`, `empleado_id` and `fecha`; the others belong
/// to one kind each ([`TIPOS`]).
#[derive(Debug, Default)]
pub struct Campos {
    /// HORAS_EXTRA, INCAPACIDAD, FALTA, VACACIONES, PRIMA_DOMINICAL, PERCEPCION or DEDUCCION.
    pub tipo: Option<String>,
    /// An active employee of the company.
    pub empleado_id: Option<String>,
    /// The day, AAAA-MM-DD (a datetime's date is taken).
    pub fecha: Option<String>,
    /// HORAS_EXTRA: whole hours, 1 to 24.
    pub horas: Option<i64>,
    /// INCAPACIDAD (1 to 366), FALTA and VACACIONES (1 to 31).
    pub dias: Option<i64>,
    /// INCAPACIDAD: c_TipoIncapacidad.
    pub tipo_incapacidad: Option<String>,
    /// PRIMA_DOMINICAL: Sundays worked, 1 to 5.
    pub domingos: Option<i64>,
    /// PERCEPCION: c_TipoPercepcion.
    pub tipo_percepcion: Option<String>,
    /// DEDUCCION: c_TipoDeduccion.
    pub tipo_deduccion: Option<String>,
    /// PERCEPCION, DEDUCCION: the receipt's Concepto.
    pub concepto: Option<String>,
    /// PERCEPCION, DEDUCCION: the amount, more than 0.
    pub importe: Option<RawAmount>,
    /// PERCEPCION: the taxable part.
    pub gravado: Option<RawAmount>,
    /// PERCEPCION: the exempt part.
    pub exento: Option<RawAmount>,
}

/// The checked fields of a new incidence.
struct Valid {
    empleado_id: String,
    tipo: &'static str,
    fecha: String,
    horas: Option<i64>,
    dias: Option<i64>,
    tipo_incapacidad: Option<String>,
    domingos: Option<i64>,
    clave_sat: Option<String>,
    concepto: Option<String>,
    importe: Option<Decimal>,
    gravado: Option<Decimal>,
    exento: Option<Decimal>,
}

/// A whole number in `rango`, required.
fn entero(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<i64>,
    rango: std::ops::RangeInclusive<i64>,
) -> Option<i64> {
    match value {
        None => problems.push(FieldProblem::new(field, format!("{field} is required for this tipo"))),
        Some(v) if rango.contains(&v) => return Some(v),
        Some(v) => problems.push(FieldProblem::new(
            field,
            format!("{field} must be a whole number from {} to {}, not {v}", rango.start(), rango.end()),
        )),
    }
    None
}

fn check(body: Campos) -> Result<Valid, Vec<FieldProblem>> {
    let mut problems = Vec::new();
    let tipo_texto = body.tipo.as_deref().map(|t| t.trim().to_uppercase()).unwrap_or_default();
    let tipo = TIPOS.iter().find(|(nombre, _)| *nombre == tipo_texto);
    match tipo {
        None if tipo_texto.is_empty() => problems.push(FieldProblem::new("tipo", "tipo is required")),
        None => problems.push(FieldProblem::new(
            "tipo",
            format!(
                "{tipo_texto:?} is not a kind of incidence; use one of {}",
                TIPOS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        )),
        Some(_) => {}
    }
    let empleado_id = body.empleado_id.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if empleado_id.is_empty() {
        problems.push(FieldProblem::new("empleadoId", "empleadoId is required"));
    }
    let fecha = match body.fecha.as_deref().map(str::trim) {
        None | Some("") => {
            problems.push(FieldProblem::new("fecha", "fecha is required"));
            String::new()
        }
        Some(texto) => leer_fecha(texto).map(|f| f.to_string()).unwrap_or_else(|| {
            problems.push(FieldProblem::new("fecha", "fecha must be a date AAAA-MM-DD"));
            String::new()
        }),
    };
    let Some((tipo, campos)) = tipo else {
        return Err(problems);
    };
    // Fields of another kind are a mistake worth saying, not something to ignore.
    let enviados = [
        ("horas", body.horas.is_some()),
        ("dias", body.dias.is_some()),
        ("tipoIncapacidad", body.tipo_incapacidad.is_some()),
        ("domingos", body.domingos.is_some()),
        ("tipoPercepcion", body.tipo_percepcion.is_some()),
        ("tipoDeduccion", body.tipo_deduccion.is_some()),
        ("concepto", body.concepto.is_some()),
        ("importe", body.importe.is_some()),
        ("gravado", body.gravado.is_some()),
        ("exento", body.exento.is_some()),
    ];
    for (campo, enviado) in enviados {
        if enviado && !campos.contains(&campo) {
            problems.push(FieldProblem::new(campo, format!("{campo} does not apply to tipo {tipo}")));
        }
    }
    let mut valid = Valid {
        empleado_id,
        tipo,
        fecha,
        horas: None,
        dias: None,
        tipo_incapacidad: None,
        domingos: None,
        clave_sat: None,
        concepto: None,
        importe: None,
        gravado: None,
        exento: None,
    };
    match *tipo {
        "HORAS_EXTRA" => valid.horas = entero(&mut problems, "horas", body.horas, 1..=24),
        "FALTA" | "VACACIONES" => valid.dias = entero(&mut problems, "dias", body.dias, 1..=31),
        "INCAPACIDAD" => {
            valid.dias = entero(&mut problems, "dias", body.dias, 1..=366);
            let clave = body.tipo_incapacidad.as_deref().map(str::trim).unwrap_or_default();
            if catalogos::TIPOS_INCAPACIDAD.contains(&clave) {
                valid.tipo_incapacidad = Some(clave.to_owned());
            } else {
                problems.push(FieldProblem::new(
                    "tipoIncapacidad",
                    "tipoIncapacidad is required: c_TipoIncapacidad 01 riesgo de trabajo, 02 enfermedad general, 03 maternidad, 04 cuidados de hijos con cáncer",
                ));
            }
        }
        "PRIMA_DOMINICAL" => valid.domingos = entero(&mut problems, "domingos", body.domingos, 1..=5),
        _ => {
            let percepcion = *tipo == "PERCEPCION";
            let (campo, valor) = if percepcion {
                ("tipoPercepcion", body.tipo_percepcion.as_deref())
            } else {
                ("tipoDeduccion", body.tipo_deduccion.as_deref())
            };
            let clave = valor.map(str::trim).unwrap_or_default().to_owned();
            let en_catalogo = if percepcion {
                catalogos::TIPOS_PERCEPCION.contains(&clave.as_str())
            } else {
                catalogos::es_tipo_deduccion(&clave)
            };
            let calculadas: &[&str] = if percepcion { &["001", "019", "020", "021"] } else { &["001", "002"] };
            if clave.is_empty() {
                problems.push(FieldProblem::new(campo, format!("{campo} is required for tipo {tipo}")));
            } else if !en_catalogo {
                let catalogo = if percepcion { "c_TipoPercepcion" } else { "c_TipoDeduccion" };
                problems.push(FieldProblem::new(
                    campo,
                    format!("{clave:?} is not a key of SAT's catalog {catalogo} (3 digits)"),
                ));
            } else if calculadas.contains(&clave.as_str()) {
                problems.push(FieldProblem::new(
                    campo,
                    format!(
                        "{clave} is computed by the period (sueldo from the days paid, ISR, IMSS; overtime, primas from HORAS_EXTRA, VACACIONES, PRIMA_DOMINICAL); record the incidence of that kind instead"
                    ),
                ));
            } else {
                valid.clave_sat = Some(clave.clone());
            }
            let concepto = body.concepto.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(|c| {
                let texto = validate::sat_text(&mut problems, "concepto", Some(c), CampoTexto::DESCRIPCION);
                if texto.chars().count() > 100 {
                    problems.push(FieldProblem::new("concepto", "concepto has at most 100 characters (Nómina 1.2)"));
                }
                texto
            });
            valid.concepto = Some(
                concepto.unwrap_or_else(|| format!("{} {clave}", if percepcion { "Percepción" } else { "Deducción" })),
            );
            let importe = validate::amount(&mut problems, "importe", body.importe.as_ref(), Esquema::IMPORTE, true);
            if importe.is_some_and(|i| i.is_zero()) {
                problems.push(FieldProblem::new("importe", "importe must be more than 0"));
            }
            let gravado = validate::amount(&mut problems, "gravado", body.gravado.as_ref(), Esquema::IMPORTE, false);
            let exento = validate::amount(&mut problems, "exento", body.exento.as_ref(), Esquema::IMPORTE, false);
            match (importe, gravado, exento) {
                (Some(i), Some(g), Some(e)) if g + e != i => problems
                    .push(FieldProblem::new("gravado", format!("gravado + exento must add up to importe ({i})"))),
                (_, Some(_), None) | (_, None, Some(_)) => {
                    problems.push(FieldProblem::new("gravado", "send gravado and exento together, or neither"))
                }
                _ => {}
            }
            // Revision E (NOM109): 038 "otros ingresos por salarios" is wholly taxable.
            if clave == "038" && exento.is_some_and(|e| !e.is_zero()) {
                problems.push(FieldProblem::new(
                    "exento",
                    "perception 038 is wholly taxable (Nómina 1.2 revision E); exento must be 0",
                ));
            }
            // Separation payments' exemption depends on years of service (Art. 93 fr. XIII).
            if ["022", "023", "025"].contains(&clave.as_str()) && gravado.is_none() {
                problems.push(FieldProblem::new(
                    "exento",
                    "separation payments (022, 023, 025) need gravado and exento: their exemption depends on the years of service",
                ));
            }
            if (percepcion && clave == "014") || (!percepcion && clave == "006") {
                // Both need the Incapacidades node: record the INCAPACIDAD incidence instead.
                problems.push(FieldProblem::new(
                    campo,
                    format!("{clave} goes with a disability; record an INCAPACIDAD incidence"),
                ));
            }
            valid.importe = importe;
            valid.gravado = gravado;
            valid.exento = exento;
        }
    }
    if problems.is_empty() { Ok(valid) } else { Err(problems) }
}

/// Records an incidence of company `empresa_id`, PENDIENTE.
pub async fn create(app: &AppContext, empresa_id: &EmpresaId, body: Campos) -> Result<IncidenciaRow, ApiError> {
    let checked = check(body);
    let mut tx = app.db.begin().await?;
    let empleado_id = match &checked {
        Ok(valid) => valid.empleado_id.clone(),
        Err(_) => String::new(),
    };
    let mut problems = checked.as_ref().err().cloned().unwrap_or_default();
    if !empleado_id.is_empty() {
        match scoped::get::<Empleados>(&mut tx, empresa_id, &empleado_id).await? {
            None => {
                problems.push(FieldProblem::new("empleadoId", format!("no employee {empleado_id} in this company")))
            }
            Some(e) if !e.activo => problems.push(FieldProblem::new(
                "empleadoId",
                format!(
                    "employee {} is inactive since {}; re-activate it first",
                    e.num_empleado,
                    e.fecha_baja.unwrap_or_default()
                ),
            )),
            Some(_) => {}
        }
    }
    let valid = match checked {
        Ok(valid) if problems.is_empty() => valid,
        _ => return Err(ApiError::fields(Code::Incidencia001, problems)),
    };
    let id = ids::new_id();
    let datos = incidencias::Datos {
        empleado_id: &valid.empleado_id,
        tipo: valid.tipo,
        fecha: &valid.fecha,
        horas: valid.horas,
        dias: valid.dias,
        tipo_incapacidad: valid.tipo_incapacidad.as_deref(),
        domingos: valid.domingos,
        clave_sat: valid.clave_sat.as_deref(),
        concepto: valid.concepto.as_deref(),
        importe: valid.importe.map(Money),
        gravado: valid.gravado.map(Money),
        exento: valid.exento.map(Money),
    };
    incidencias::insert(&mut tx, empresa_id, &id, &datos, app.clock.now()).await?;
    let row = incidencias::get(&mut tx, empresa_id, &IncidenciaId::from(&id))
        .await?
        .ok_or_else(|| ApiError::not_found("incidence"))?;
    tx.commit().await?;
    Ok(row)
}

/// Approves or rejects (`status` APROBADA or RECHAZADA) the PENDIENTE incidence `id`.
pub async fn decide(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    status: Option<&str>,
) -> Result<IncidenciaRow, ApiError> {
    let mut tx = app.db.begin().await?;
    // Another company's id is not found, whatever the body says.
    let current = incidencias::get(&mut tx, empresa_id, &IncidenciaId::from(id))
        .await?
        .ok_or_else(|| ApiError::not_found("incidence"))?;
    let status = status.map(|s| s.trim().to_uppercase()).unwrap_or_default();
    if status != "APROBADA" && status != "RECHAZADA" {
        return Err(ApiError::fields(
            Code::Incidencia001,
            vec![FieldProblem::new("status", "status must be APROBADA or RECHAZADA")],
        ));
    }
    if !incidencias::decidir(&mut tx, empresa_id, id, &status, app.clock.now()).await? {
        return Err(ApiError::new(
            Code::Incidencia002,
            format!(
                "incidence {id} is already {}; only a PENDIENTE incidence can be approved or rejected",
                current.status
            ),
        ));
    }
    let row = incidencias::get(&mut tx, empresa_id, &IncidenciaId::from(id))
        .await?
        .ok_or_else(|| ApiError::not_found("incidence"))?;
    tx.commit().await?;
    Ok(row)
}
