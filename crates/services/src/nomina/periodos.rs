//! Pay periods: created ABIERTO after checking their dates (NOMINA_001, every problem at once)
//! and that no other period of the periodicidad covers any of their days (NOMINA_004).

use timbra_nomina::Parametros;
use timbra_store::ids;
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

fn check(body: Campos) -> Result<Valid, ApiError> {
    let mut problems = Vec::new();
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

/// Creates a pay period of company `empresa_id`, ABIERTO.
pub async fn create(app: &AppContext, empresa_id: &str, body: Campos) -> Result<PeriodoRow, ApiError> {
    let valid = check(body)?;
    let id = ids::new_id();
    let nuevo = NuevoPeriodo {
        fecha_inicio: &valid.fecha_inicio,
        fecha_fin: &valid.fecha_fin,
        fecha_pago: &valid.fecha_pago,
        periodicidad: valid.periodicidad.as_str(),
        dias_pagados: valid.dias_pagados,
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
    let row = nomina::periodo(&mut tx, empresa_id, &id).await?.ok_or_else(|| ApiError::not_found("payroll period"))?;
    tx.commit().await?;
    Ok(row)
}
