//! The PTU of an ejercicio (issue 35, PAYROLL_EXTRAS_2026.md §2): `timbra_nomina::ptu`
//! distributes the amount among the employees who worked in the year (active or not since),
//! half by days worked (less approved FALTA days of the year) and half by salary earned, with
//! the Art. 127 exclusions and caps; the result is an EXTRAORDINARIA period of concepto PTU
//! with one receipt per participating employee (Percepcion 003, 15 UMA exempt, ISR by the
//! company's method), CALCULADO, written with `nomina.calculada` in one transaction.

use std::collections::HashMap;
use timbra_store::ids::EmpresaId;

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::calculo::{Calculado, Omitido};
use super::extraordinaria::{self, Pago};
use super::periodos::{self, Concepto};
use super::{empleados::hoy, leer_fecha};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_nomina::ptu::{self, EntradaPtu, ErrorPtu, TrabajadorPtu};
use timbra_store::{self as database, Money};

/// A PTU as sent.
#[derive(Debug, Default)]
pub struct Campos {
    /// The fiscal year whose profit is shared; it must have ended.
    pub ejercicio: Option<serde_json::Value>,
    /// The amount to distribute (10 % of the taxable profit), more than 0.
    pub monto: Option<serde_json::Value>,
    /// Payment date (default today in Mexico City), after the ejercicio.
    pub fecha_pago: Option<String>,
}

/// The answer of `POST /api/nomina/ptu`.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Ptu {
    /// The PTU period (`GET /api/nomina/periodos/{id}`; stamp with `/timbrar`).
    pub periodo_id: String,
    /// The distribution as `timbra_nomina::ptu` gives it: ejercicio, monto, totalDias,
    /// totalSalarios, totalPagado, remanente and `trabajadores` (each with `empleadoId`,
    /// dias, porDias, porSalario, ptu, exento, gravado, isr, neto, or `excluido`).
    #[schema(value_type = Object)]
    pub reparto: serde_json::Value,
    /// The period's calculation.
    pub calculo: Calculado,
}

/// Distributes the PTU of `ejercicio` as a PTU period of company `empresa_id`.
///
/// # Errors
/// NOMINA_001 a monto ≤ 0, an ejercicio not ended, no participant; NOMINA_035 a PTU of the
/// ejercicio already exists (not cancelled).
pub async fn repartir(app: &AppContext, empresa_id: &EmpresaId, campos: Campos) -> ApiResult<Ptu> {
    let now = app.clock.now();
    let hoy = hoy(app);
    let mut problems = Vec::new();
    let ejercicio = match campos.ejercicio.as_ref().and_then(serde_json::Value::as_i64) {
        Some(anio) if anio >= hoy.year().into() => {
            problems.push(FieldProblem::new(
                "ejercicio",
                format!("the ejercicio {anio} has not ended (today is {hoy}); PTU is shared after the year's return"),
            ));
            None
        }
        Some(anio) if anio < 2000 => {
            problems.push(FieldProblem::new("ejercicio", format!("{anio} is not a fiscal year timbra can pay")));
            None
        }
        Some(anio) => i32::try_from(anio).ok(),
        None => {
            problems.push(FieldProblem::new("ejercicio", "ejercicio is required: the fiscal year, e.g. 2025"));
            None
        }
    };
    let monto = match &campos.monto {
        Some(serde_json::Value::Number(n)) => n.to_string().parse::<Decimal>().ok(),
        Some(serde_json::Value::String(t)) => t.trim().parse::<Decimal>().ok(),
        _ => None,
    };
    let monto = match monto {
        Some(m) if m > Decimal::ZERO && m.scale() <= 2 => Some(m),
        _ => {
            problems.push(FieldProblem::new(
                "monto",
                "monto is the amount to distribute, more than 0 with at most 2 decimals",
            ));
            None
        }
    };
    let fecha_pago = match campos.fecha_pago.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => Some(hoy),
        Some(texto) => leer_fecha(texto).or_else(|| {
            problems.push(FieldProblem::new("fechaPago", "fechaPago must be a date AAAA-MM-DD"));
            None
        }),
    };
    if let (Some(anio), Some(pago)) = (ejercicio, fecha_pago)
        && pago.year() <= anio
    {
        problems.push(FieldProblem::new("fechaPago", format!("fechaPago {pago} must be after the ejercicio {anio}")));
    }
    let (Some(ejercicio), Some(monto), Some(fecha_pago), true) = (ejercicio, monto, fecha_pago, problems.is_empty())
    else {
        return Err(ApiError::fields(Code::Nomina001, problems));
    };
    let mut tx = app.db.begin().await?;
    if let Some(otro) =
        database::nomina::del_ejercicio(&mut tx, empresa_id, Concepto::Ptu.as_str(), i64::from(ejercicio)).await?
    {
        return Err(ApiError::new(
            Code::Nomina035,
            format!(
                "the PTU of {ejercicio} was already distributed in period {otro}; cancel its receipts to distribute it again"
            ),
        )
        .with_details(serde_json::json!({ "periodoId": otro, "ejercicio": ejercicio })));
    }
    let ajustes = extraordinaria::ajustes(&mut tx, empresa_id).await?;
    let (desde, hasta) = (format!("{ejercicio:04}-01-01"), format!("{ejercicio:04}-12-31"));
    let empleados = database::empleados::empleados_entre(&mut tx, empresa_id, &desde, &hasta).await?;
    let mut faltas: HashMap<String, u32> = HashMap::new();
    for incidencia in database::incidencias::aprobadas(&mut tx, empresa_id, &desde, &hasta).await? {
        if incidencia.tipo == "FALTA" {
            *faltas.entry(incidencia.empleado_id.clone()).or_default() +=
                incidencia.dias.and_then(|d| u32::try_from(d).ok()).unwrap_or(0);
        }
    }
    let mut trabajadores = Vec::with_capacity(empleados.len());
    for row in &empleados {
        let fecha = |texto: &str| leer_fecha(texto).ok_or_else(|| ApiError::internal("empleados date", &row.id));
        trabajadores.push(TrabajadorPtu {
            clave: row.id.clone(),
            salario_diario: row.salario_diario.0,
            fecha_alta: fecha(&row.fecha_inicio_rel_laboral)?,
            fecha_baja: row.fecha_baja.as_deref().map(fecha).transpose()?,
            tipo_contrato: row.tipo_contrato.clone(),
            dias_falta: faltas.get(&row.id).copied().unwrap_or(0),
            confianza: row.confianza,
            director: row.director,
            domestico: false,
            promedio_ptu_tres_anios: None,
        });
    }
    let entrada =
        EntradaPtu { ejercicio, monto, fecha_pago, metodo: ajustes.metodo, salario_referencia_confianza: None };
    let reparto = ptu::repartir_ptu(&entrada, &trabajadores).map_err(|error| match error {
        ErrorPtu::SinParticipantes => ApiError::new(
            Code::Nomina001,
            format!("no employee of the company takes part in the PTU of {ejercicio} (none worked in it, or all are excluded)"),
        ),
        otro => ApiError::new(Code::Nomina001, otro.to_string()),
    })?;
    let pago_texto = fecha_pago.to_string();
    let periodo = periodos::insertar_extraordinario(
        &mut tx,
        now,
        empresa_id,
        (&desde, &hasta, &pago_texto),
        Concepto::Ptu,
        None,
        Some(i64::from(ejercicio)),
    )
    .await?;
    let (mut recibos, mut omitidos) = (Vec::new(), Vec::new());
    for (row, fila) in empleados.iter().zip(&reparto.trabajadores) {
        if let Some(excluido) = fila.excluido {
            let motivo = serde_json::to_value(excluido).ok().and_then(|v| v.as_str().map(str::to_owned));
            omitidos.push(Omitido {
                empleado_id: row.id.clone(),
                empleado_nombre: row.nombre.clone(),
                motivo: format!(
                    "excluded from the PTU (LFT Art. 127): {} ({} days worked in {ejercicio})",
                    motivo.unwrap_or_default(),
                    fila.dias
                ),
            });
            continue;
        }
        if fila.ptu <= Decimal::ZERO {
            continue;
        }
        let pago = Pago {
            row,
            tipo: ptu::TIPO_PERCEPCION,
            concepto: "Participación de los trabajadores en las utilidades",
            gravado: fila.gravado,
            exento: fila.exento,
            isr: fila.isr,
            dias_pagados: Decimal::from(fila.dias),
        };
        let mut calculo = serde_json::to_value(fila).map_err(|e| ApiError::internal("PTU JSON", e))?;
        calculo["concepto"] = serde_json::json!("PTU");
        calculo["isrRetenido"] = calculo["isr"].clone();
        calculo["netoAPagar"] = calculo["neto"].clone();
        let entrada = serde_json::json!({ "concepto": "PTU", "ejercicio": ejercicio, "monto": monto.to_string(),
            "fechaPago": pago_texto, "metodoIsrExtraordinario": ajustes.metodo });
        let texto = |v: &serde_json::Value| serde_json::to_string(v).map_err(|e| ApiError::internal("PTU JSON", e));
        let exento = (!fila.exento.is_zero()).then_some(Money(fila.exento));
        recibos.push(extraordinaria::nuevo_recibo(&pago, texto(&calculo)?, texto(&entrada)?, None, exento)?);
    }
    let mut reparto_json = serde_json::to_value(&reparto).map_err(|e| ApiError::internal("PTU JSON", e))?;
    if let Some(filas) = reparto_json["trabajadores"].as_array_mut() {
        for (fila, row) in filas.iter_mut().zip(&empleados) {
            fila["empleadoId"] = serde_json::json!(row.id);
            fila["empleadoNombre"] = serde_json::json!(row.nombre);
        }
    }
    let calculo = extraordinaria::escribir(tx, app, empresa_id, &periodo.id, recibos, omitidos, now).await?;
    Ok(Ptu { periodo_id: String::from(periodo.id), reparto: reparto_json, calculo })
}
