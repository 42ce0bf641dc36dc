//! Pay periods: created ABIERTO after checking their dates (NOMINA_001, every problem at once)
//! and that no other period of the periodicidad covers any of their days (NOMINA_004).
//!
//! An EXTRAORDINARIA period (issue 35) has a concepto (AGUINALDO here; PTU and FINIQUITO are
//! created by `POST /api/nomina/ptu` and `POST /api/nomina/empleados/{id}/baja`, which carry
//! what they need), periodicidad `99` (c_PeriodicidadPago "Otra Periodicidad", TipoNomina E),
//! no fixed days (each receipt carries its own) and covers every active employee whatever
//! their periodicidad; its fechaInicio and fechaFin default to fechaPago.

use timbra_nomina::Parametros;
use timbra_store::ids;
use timbra_store::ids::{EmpresaId, PeriodoId};
use timbra_store::nomina::{self, NuevoPeriodo, PeriodoRow};

use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::nomina::{PeriodicidadPago, leer_fecha};

/// A period as sent (SPEC: all required).
#[derive(Debug, Default)]
pub struct Campos {
    /// First day: AAAA-MM-DD or a datetime (its date is taken).
    pub fecha_inicio: Option<String>,
    /// Last day, not before fechaInicio.
    pub fecha_fin: Option<String>,
    /// Payment day, not before fechaFin; selects the tariffs, UMA and minimum wage in force.
    pub fecha_pago: Option<String>,
    /// SEMANAL, CATORCENAL, QUINCENAL or MENSUAL.
    pub periodicidad: Option<String>,
    /// 7, 14, 15 or 30, as the periodicidad pays (a JSON value: a wrong type is named).
    pub dias_pagados: Option<serde_json::Value>,
    /// ORDINARIA (default) or EXTRAORDINARIA.
    pub tipo: Option<String>,
    /// An EXTRAORDINARIA period's concepto: AGUINALDO (PTU and FINIQUITO have their own routes).
    pub concepto: Option<String>,
    /// Stamping its receipts e-mails each one (XML and PDF) to its employee's `email`.
    pub enviar_correo: Option<bool>,
}

/// A period's tipo.
pub const ORDINARIA: &str = "ORDINARIA";
/// An extraordinary period (TipoNomina E).
pub const EXTRAORDINARIA: &str = "EXTRAORDINARIA";
/// The stored periodicidad of an extraordinary period: c_PeriodicidadPago 99.
pub const PERIODICIDAD_OTRA: &str = "99";

/// The concepto of an EXTRAORDINARIA period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Concepto {
    /// Gratificación anual (LFT Art. 87), Percepcion 002.
    Aguinaldo,
    /// Participación de utilidades (LFT Arts. 117–127), Percepcion 003.
    Ptu,
    /// Finiquito or liquidación of one employee.
    Finiquito,
}

impl Concepto {
    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Aguinaldo => "AGUINALDO",
            Self::Ptu => "PTU",
            Self::Finiquito => "FINIQUITO",
        }
    }

    /// Reads a name in any case.
    pub fn parse(texto: &str) -> Option<Self> {
        match texto.trim().to_uppercase().as_str() {
            "AGUINALDO" => Some(Self::Aguinaldo),
            "PTU" => Some(Self::Ptu),
            "FINIQUITO" => Some(Self::Finiquito),
            _ => None,
        }
    }
}

/// Calendar days a period of each periodicidad may span: weeks and fortnights exactly, half
/// months 13 to 16 days, months 28 to 31.
fn dias_calendario(periodicidad: PeriodicidadPago) -> std::ops::RangeInclusive<i64> {
    match periodicidad {
        PeriodicidadPago::Semanal => 7..=7,
        PeriodicidadPago::Catorcenal => 14..=14,
        PeriodicidadPago::Quincenal => 13..=16,
        PeriodicidadPago::Mensual => 28..=31,
    }
}

struct Valid {
    fecha_inicio: String,
    fecha_fin: String,
    fecha_pago: String,
    periodicidad: PeriodicidadPago,
    dias_pagados: i64,
}

/// The dates of an extraordinary period: fechaPago required, fechaInicio and fechaFin default
/// to it; fechaInicio ≤ fechaFin ≤ fechaPago.
pub(crate) fn fechas_extraordinarias(
    problems: &mut Vec<FieldProblem>,
    fecha_inicio: Option<&str>,
    fecha_fin: Option<&str>,
    fecha_pago: Option<&str>,
) -> Option<(time::Date, time::Date, time::Date)> {
    let mut fecha =
        |field: &str, value: Option<&str>, required: bool| match value.map(str::trim).filter(|v| !v.is_empty()) {
            None if required => {
                problems.push(FieldProblem::new(field, format!("{field} is required")));
                Err(())
            }
            None => Ok(None),
            Some(texto) => leer_fecha(texto).map(Some).ok_or_else(|| {
                problems.push(FieldProblem::new(field, format!("{field} must be a date AAAA-MM-DD or a datetime")));
            }),
        };
    let pago = fecha("fechaPago", fecha_pago, true);
    let inicio = fecha("fechaInicio", fecha_inicio, false);
    let fin = fecha("fechaFin", fecha_fin, false);
    let (Ok(Some(pago)), Ok(inicio), Ok(fin)) = (pago, inicio, fin) else { return None };
    let (inicio, fin) = (inicio.unwrap_or(pago), fin.unwrap_or(pago));
    let mut ok = true;
    if fin < inicio {
        problems.push(FieldProblem::new("fechaFin", "fechaFin cannot be before fechaInicio"));
        ok = false;
    }
    if pago < fin {
        problems.push(FieldProblem::new("fechaPago", "fechaPago must be on or after fechaFin"));
        ok = false;
    }
    if let Err(error) = Parametros::vigentes(pago) {
        problems.push(FieldProblem::new("fechaPago", error.to_string()));
        ok = false;
    }
    ok.then_some((inicio, fin, pago))
}

/// The checks of an EXTRAORDINARIA period created by `POST /api/nomina/periodos`.
fn check_extraordinaria(body: &Campos) -> Result<(Valid, Concepto), ApiError> {
    let mut problems = Vec::new();
    let concepto = match body.concepto.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        None => {
            problems.push(FieldProblem::new(
                "concepto",
                "an EXTRAORDINARIA period needs concepto: AGUINALDO, PTU or FINIQUITO",
            ));
            None
        }
        Some(texto) => match Concepto::parse(texto) {
            Some(Concepto::Aguinaldo) => Some(Concepto::Aguinaldo),
            Some(Concepto::Ptu) => {
                problems.push(FieldProblem::new(
                    "concepto",
                    "a PTU period is created by POST /api/nomina/ptu with { ejercicio, monto, fechaPago }, which \
                     distributes the amount",
                ));
                None
            }
            Some(Concepto::Finiquito) => {
                problems.push(FieldProblem::new(
                    "concepto",
                    "a FINIQUITO period is created by POST /api/nomina/empleados/{id}/baja with { fecha, motivo, \
                     incluirIndemnizacion }, which deactivates the employee",
                ));
                None
            }
            None => {
                problems.push(FieldProblem::new(
                    "concepto",
                    format!("{texto:?} is not a concepto; use AGUINALDO, PTU or FINIQUITO"),
                ));
                None
            }
        },
    };
    if let Some(texto) = body.periodicidad.as_deref().map(str::trim).filter(|v| !v.is_empty())
        && texto != PERIODICIDAD_OTRA
    {
        problems.push(FieldProblem::new(
            "periodicidad",
            format!(
                "an EXTRAORDINARIA period pays every active employee whatever their periodicidad: omit periodicidad \
                 or send \"99\" (c_PeriodicidadPago Otra Periodicidad), not {texto:?}"
            ),
        ));
    }
    if body.dias_pagados.as_ref().is_some_and(|d| !d.is_null()) {
        problems.push(FieldProblem::new(
            "diasPagados",
            "an EXTRAORDINARIA period has no diasPagados: each receipt carries the days it pays for",
        ));
    }
    let fechas = fechas_extraordinarias(
        &mut problems,
        body.fecha_inicio.as_deref(),
        body.fecha_fin.as_deref(),
        body.fecha_pago.as_deref(),
    );
    match (fechas, concepto) {
        (Some((inicio, fin, pago)), Some(concepto)) if problems.is_empty() => Ok((
            Valid {
                fecha_inicio: inicio.to_string(),
                fecha_fin: fin.to_string(),
                fecha_pago: pago.to_string(),
                periodicidad: PeriodicidadPago::Mensual,
                dias_pagados: 0,
            },
            concepto,
        )),
        _ => Err(ApiError::fields(Code::Nomina001, problems)),
    }
}

fn check(body: Campos) -> Result<Valid, ApiError> {
    let mut problems = Vec::new();
    if let Some(concepto) = body.concepto.as_deref().filter(|c| !c.trim().is_empty()) {
        problems.push(FieldProblem::new(
            "concepto",
            format!("an ORDINARIA period has no concepto ({concepto:?}); send tipo EXTRAORDINARIA"),
        ));
    }
    let mut fecha = |field: &str, value: Option<&str>| match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => {
            problems.push(FieldProblem::new(field, format!("{field} is required")));
            None
        }
        Some(texto) => leer_fecha(texto).or_else(|| {
            problems.push(FieldProblem::new(field, format!("{field} must be a date AAAA-MM-DD or a datetime")));
            None
        }),
    };
    let inicio = fecha("fechaInicio", body.fecha_inicio.as_deref());
    let fin = fecha("fechaFin", body.fecha_fin.as_deref());
    let pago = fecha("fechaPago", body.fecha_pago.as_deref());
    let periodicidad = match body.periodicidad.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        None => {
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
    let dias_pagados = match &body.dias_pagados {
        None => {
            problems.push(FieldProblem::new("diasPagados", "diasPagados is required"));
            None
        }
        Some(valor) => match valor.as_i64().filter(|d| [7, 14, 15, 30].contains(d)) {
            None => {
                problems.push(FieldProblem::new("diasPagados", format!("diasPagados is 7, 14, 15 or 30, not {valor}")));
                None
            }
            Some(dias) => {
                if let Some(p) = periodicidad
                    && i64::from(p.dias()) != dias
                {
                    problems.push(FieldProblem::new(
                        "diasPagados",
                        format!("a {} period pays {} days, not {dias}", p.as_str(), p.dias()),
                    ));
                }
                Some(dias)
            }
        },
    };
    if let (Some(inicio), Some(fin)) = (inicio, fin) {
        let dias = (fin - inicio).whole_days() + 1;
        if fin < inicio {
            problems.push(FieldProblem::new("fechaFin", "fechaFin cannot be before fechaInicio"));
        } else if let Some(p) = periodicidad
            && !dias_calendario(p).contains(&dias)
        {
            let rango = dias_calendario(p);
            problems.push(FieldProblem::new(
                "fechaFin",
                format!(
                    "a {} period spans {} calendar days, not {dias} (fechaInicio to fechaFin, both included)",
                    p.as_str(),
                    if rango.start() == rango.end() {
                        rango.start().to_string()
                    } else {
                        format!("{} to {}", rango.start(), rango.end())
                    }
                ),
            ));
        }
    }
    if let (Some(fin), Some(pago)) = (fin, pago)
        && pago < fin
    {
        problems.push(FieldProblem::new("fechaPago", "fechaPago must be on or after fechaFin"));
    }
    if let Some(pago) = pago
        && let Err(error) = Parametros::vigentes(pago)
    {
        problems.push(FieldProblem::new("fechaPago", error.to_string()));
    }
    match (inicio, fin, pago, periodicidad, dias_pagados) {
        (Some(inicio), Some(fin), Some(pago), Some(periodicidad), Some(dias_pagados)) if problems.is_empty() => {
            Ok(Valid {
                fecha_inicio: inicio.to_string(),
                fecha_fin: fin.to_string(),
                fecha_pago: pago.to_string(),
                periodicidad,
                dias_pagados,
            })
        }
        _ => Err(ApiError::fields(Code::Nomina001, problems)),
    }
}

/// The company's pay period `id`, or NOT_FOUND (also for another company's).
pub async fn leer(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<PeriodoRow, ApiError> {
    nomina::periodo(&mut app.db.conn().await?, empresa_id, &PeriodoId::from(id))
        .await?
        .ok_or_else(|| ApiError::not_found("payroll period"))
}

/// A page of the company's pay periods, the most recent first, of `status` when given
/// (ABIERTO, CALCULADO, TIMBRADO or TIMBRADO_PARCIAL; REQUEST_001 otherwise), and how many
/// match.
pub async fn listar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    status: Option<&str>,
    paging: &timbra_store::Paging,
) -> Result<(Vec<PeriodoRow>, i64), ApiError> {
    let status = status.map(|s| s.trim().to_uppercase()).unwrap_or_default();
    if !["", "ABIERTO", "CALCULADO", "TIMBRADO", "TIMBRADO_PARCIAL"].contains(&status.as_str()) {
        return Err(ApiError::new(Code::Request001, "status is ABIERTO, CALCULADO, TIMBRADO or TIMBRADO_PARCIAL"));
    }
    let mut conn = app.db.conn().await?;
    Ok(nomina::periodos(&mut conn, empresa_id, &status, paging).await?)
}

/// The receipts of the company's period `id`, with signed links to their files when `links`
/// gives the secret and the time.
pub async fn recibos(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    links: Option<([u8; 32], i64)>,
) -> Result<Vec<crate::nomina::recibo::ReciboOut>, ApiError> {
    let rows = nomina::recibos(&mut app.db.conn().await?, empresa_id, &PeriodoId::from(id)).await?;
    rows.into_iter().map(|row| crate::nomina::recibo::ReciboOut::from_row(row, links)).collect()
}

/// Creates a pay period of company `empresa_id`, ABIERTO; with `enviarCorreo` (CORREO_001
/// without e-mail configured) its receipts are e-mailed as they are stamped.
pub async fn create(app: &AppContext, empresa_id: &EmpresaId, body: Campos) -> Result<PeriodoRow, ApiError> {
    let enviar = body.enviar_correo.unwrap_or(false);
    if enviar {
        crate::correo::exigir_smtp(app)?;
    }
    let row = crear(app, empresa_id, body).await?;
    if !enviar {
        return Ok(row);
    }
    ajustar_correo(app, empresa_id, row.id.as_str(), true).await
}

/// Sets whether stamping period `id`'s receipts e-mails each one to its employee (the receipt's
/// XML and PDF to the employee's `email`, in the stamp's own transaction): CORREO_001 to turn it
/// on without e-mail configured, NOT_FOUND for another company's period.
pub async fn ajustar_correo(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    enviar: bool,
) -> Result<PeriodoRow, ApiError> {
    if enviar {
        crate::correo::exigir_smtp(app)?;
    }
    let mut conn = app.db.conn().await?;
    if nomina::set_enviar_correo(&mut conn, empresa_id, id, enviar, app.clock.now()).await? == 0 {
        return Err(ApiError::not_found("payroll period"));
    }
    nomina::periodo(&mut conn, empresa_id, &PeriodoId::from(id))
        .await?
        .ok_or_else(|| ApiError::not_found("payroll period"))
}

async fn crear(app: &AppContext, empresa_id: &EmpresaId, body: Campos) -> Result<PeriodoRow, ApiError> {
    let tipo = body.tipo.as_deref().map(|t| t.trim().to_uppercase()).filter(|t| !t.is_empty());
    match tipo.as_deref() {
        None | Some(ORDINARIA) => {}
        Some(EXTRAORDINARIA) => {
            let (valid, concepto) = check_extraordinaria(&body)?;
            return crear_extraordinario(app, empresa_id, &valid, concepto, None).await;
        }
        Some(otro) => {
            return Err(ApiError::fields(
                Code::Nomina001,
                vec![FieldProblem::new("tipo", format!("{otro:?} is not a tipo; use ORDINARIA or EXTRAORDINARIA"))],
            ));
        }
    }
    let valid = check(body)?;
    let id = ids::new_id();
    let nuevo = NuevoPeriodo {
        fecha_inicio: &valid.fecha_inicio,
        fecha_fin: &valid.fecha_fin,
        fecha_pago: &valid.fecha_pago,
        periodicidad: valid.periodicidad.as_str(),
        dias_pagados: valid.dias_pagados,
        tipo: ORDINARIA,
        concepto: None,
        empleado_id: None,
        ejercicio: None,
    };
    let mut tx = app.db.begin().await?;
    let periodicidad = valid.periodicidad.as_str();
    if let Some(otro) =
        nomina::traslapado(&mut tx, empresa_id, periodicidad, &valid.fecha_inicio, &valid.fecha_fin).await?
    {
        return Err(ApiError::new(
            Code::Nomina004,
            format!(
                "period {} ({periodicidad}, {} to {}) already covers some of these dates; an employee is paid once per day",
                otro.id, otro.fecha_inicio, otro.fecha_fin
            ),
        ));
    }
    nomina::insert_periodo(&mut tx, empresa_id, &id, &nuevo, app.clock.now()).await?;
    let row = nomina::periodo(&mut tx, empresa_id, &PeriodoId::from(&id))
        .await?
        .ok_or_else(|| ApiError::not_found("payroll period"))?;
    tx.commit().await?;
    Ok(row)
}

/// Creates an EXTRAORDINARIA period of `concepto`, ABIERTO.
async fn crear_extraordinario(
    app: &AppContext,
    empresa_id: &EmpresaId,
    valid: &Valid,
    concepto: Concepto,
    empleado_id: Option<&str>,
) -> Result<PeriodoRow, ApiError> {
    let mut tx = app.db.begin().await?;
    let row = insertar_extraordinario(
        &mut tx,
        app.clock.now(),
        empresa_id,
        (&valid.fecha_inicio, &valid.fecha_fin, &valid.fecha_pago),
        concepto,
        empleado_id,
        None,
    )
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// Writes an EXTRAORDINARIA period of `concepto` in the caller's transaction; its row.
pub(crate) async fn insertar_extraordinario(
    tx: &mut timbra_store::Tx,
    now: time::OffsetDateTime,
    empresa_id: &EmpresaId,
    (fecha_inicio, fecha_fin, fecha_pago): (&str, &str, &str),
    concepto: Concepto,
    empleado_id: Option<&str>,
    ejercicio: Option<i64>,
) -> Result<PeriodoRow, ApiError> {
    let id = ids::new_id();
    let nuevo = NuevoPeriodo {
        fecha_inicio,
        fecha_fin,
        fecha_pago,
        periodicidad: PERIODICIDAD_OTRA,
        dias_pagados: 0,
        tipo: EXTRAORDINARIA,
        concepto: Some(concepto.as_str()),
        empleado_id,
        ejercicio,
    };
    nomina::insert_periodo(tx, empresa_id, &id, &nuevo, now).await?;
    nomina::periodo(tx, empresa_id, &PeriodoId::from(&id)).await?.ok_or_else(|| ApiError::not_found("payroll period"))
}
