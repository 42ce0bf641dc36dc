//! An employee's baja (issue 35, PAYROLL_EXTRAS_2026.md §3): the finiquito or liquidación
//! calculated by `timbra_nomina::finiquito`, written as an EXTRAORDINARIA period of concepto
//! FINIQUITO with the employee's one receipt (CALCULADO, stamped by the period's stamping with
//! TipoNomina E and, with perceptions 022, 023 or 025, the SeparacionIndemnizacion node), and
//! the employee deactivated at `fecha`, in one transaction with the `nomina.calculada` event.

use rust_decimal::Decimal;
use serde::Serialize;
use timbra_store::ids::{EmpleadoId, EmpresaId};
use utoipa::ToSchema;

use super::calculo::Calculado;
use super::extraordinaria::{self, Pago};
use super::periodos::{self, Concepto};
use super::{Empleado, leer_fecha};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_nomina::entrada::Zona;
use timbra_nomina::finiquito::{self, EntradaFiniquito, ErrorFiniquito, MotivoBaja, PRIMA_VACACIONAL_MINIMA};
use timbra_nomina::periodo::{LineaDeduccion, LineaPercepcion, LineaSeparacion, LineasRecibo};
use timbra_store::nomina::{NuevoRecibo, PeriodoRow};
use timbra_store::{self as database, Money};

/// A baja as sent.
#[derive(Debug, Default)]
pub struct Campos {
    /// Exit date, AAAA-MM-DD; not before the hire date.
    pub fecha: Option<String>,
    /// RENUNCIA, DESPIDO_JUSTIFICADO, DESPIDO_INJUSTIFICADO, MUTUO_ACUERDO, MUERTE or INCAPACIDAD.
    pub motivo: Option<String>,
    /// Pay the indemnización (3 months + 20 days per year) where the motivo allows it.
    pub incluir_indemnizacion: Option<bool>,
    /// Payment date (default `fecha`), not before it.
    pub fecha_pago: Option<String>,
    /// Days of salary not yet paid (default 0).
    pub dias_sueldo_pendientes: Option<serde_json::Value>,
    /// Vacation days of earlier years still owed (default 0).
    pub dias_vacaciones_pendientes: Option<serde_json::Value>,
    /// An agreed gratificación for the separation, perception 023 (default 0).
    pub gratificacion_separacion: Option<serde_json::Value>,
}

/// The answer of a baja.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Baja {
    /// The FINIQUITO period (`GET /api/nomina/periodos/{id}` shows its receipt; stamp it with
    /// `POST /api/nomina/periodos/{id}/timbrar`).
    pub periodo_id: String,
    /// The receipt.
    pub recibo_id: String,
    /// The employee, now inactive with `fechaBaja`.
    pub empleado: Empleado,
    /// The settlement as `timbra_nomina::finiquito` gives it (items, exemptions, ISR, net).
    #[schema(value_type = Object)]
    pub finiquito: serde_json::Value,
    /// The period's calculation: periodoId, recibosCalculados, totalNomina, status.
    pub calculo: Calculado,
}

/// The motivo as the calculator names it.
fn motivo(texto: &str) -> Option<MotivoBaja> {
    serde_json::from_value(serde_json::Value::String(texto.trim().to_uppercase())).ok()
}

fn dos(mut valor: Decimal) -> Decimal {
    valor = timbra_nomina::redondear(valor);
    valor.rescale(2);
    valor
}

/// Records employee `empleado_id`'s baja: the FINIQUITO period with its receipt, the employee
/// deactivated at `fecha`.
///
/// # Errors
/// NOT_FOUND no such employee in the company; NOMINA_001 bad fields, a fecha before the hire
/// date, an employee already inactive.
pub async fn dar_de_baja(
    app: &AppContext,
    empresa_id: &EmpresaId,
    empleado_id: &str,
    campos: Campos,
) -> ApiResult<Baja> {
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let row = database::empleados::empleado(&mut tx, empresa_id, &EmpleadoId::from(empleado_id))
        .await?
        .ok_or_else(|| ApiError::not_found("employee"))?;
    let alta = leer_fecha(&row.fecha_inicio_rel_laboral)
        .ok_or_else(|| ApiError::internal("empleados.fecha_inicio_rel_laboral", &row.id))?;
    // A baja before the hire date is the one problem worth naming (its dates have no tariffs
    // either).
    if let Some(baja) = campos.fecha.as_deref().and_then(leer_fecha)
        && baja < alta
    {
        return Err(ApiError::fields(
            Code::Nomina001,
            vec![FieldProblem::new(
                "fecha",
                format!("the baja {baja} is before the employee's hire date (fechaInicioRelLaboral {alta})"),
            )],
        ));
    }
    let mut problems = Vec::new();
    if !row.activo {
        problems.push(FieldProblem::new(
            "empleadoId",
            format!(
                "employee {} is already inactive (fechaBaja {}); re-activate them before recording another baja",
                row.nombre,
                row.fecha_baja.as_deref().unwrap_or("unknown")
            ),
        ));
    }
    let motivo = match campos.motivo.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
        None => {
            problems.push(FieldProblem::new("motivo", "motivo is required"));
            None
        }
        Some(texto) => motivo(texto).or_else(|| {
            problems.push(FieldProblem::new(
                "motivo",
                format!(
                    "{texto:?} is not a motivo; use RENUNCIA, DESPIDO_JUSTIFICADO, DESPIDO_INJUSTIFICADO, \
                     MUTUO_ACUERDO, MUERTE or INCAPACIDAD"
                ),
            ));
            None
        }),
    };
    let fechas = periodos::fechas_extraordinarias(
        &mut problems,
        campos.fecha.as_deref(),
        campos.fecha.as_deref(),
        campos.fecha_pago.as_deref().or(campos.fecha.as_deref()),
    );
    if campos.fecha.as_deref().is_none_or(|f| f.trim().is_empty()) {
        problems.push(FieldProblem::new("fecha", "fecha (the exit date) is required"));
    }
    let mut no_negativo = |campo: &str, valor: Option<&serde_json::Value>| {
        let leido = match valor {
            None | Some(serde_json::Value::Null) => Some(Decimal::ZERO),
            Some(serde_json::Value::String(texto)) => texto.trim().parse::<Decimal>().ok(),
            Some(serde_json::Value::Number(numero)) => numero.to_string().parse::<Decimal>().ok(),
            Some(_) => None,
        };
        match leido {
            Some(valor) if valor >= Decimal::ZERO => valor,
            _ => {
                problems.push(FieldProblem::new(campo, format!("{campo} is a number, 0 or more")));
                Decimal::ZERO
            }
        }
    };
    let dias_sueldo = no_negativo("diasSueldoPendientes", campos.dias_sueldo_pendientes.as_ref());
    let dias_vacaciones = no_negativo("diasVacacionesPendientes", campos.dias_vacaciones_pendientes.as_ref());
    let gratificacion = no_negativo("gratificacionSeparacion", campos.gratificacion_separacion.as_ref());
    let (Some((baja, _, pago)), Some(motivo), true) = (fechas, motivo, problems.is_empty()) else {
        return Err(ApiError::fields(Code::Nomina001, problems));
    };
    let ajustes = extraordinaria::ajustes(&mut tx, empresa_id).await?;
    let entrada = EntradaFiniquito {
        salario_diario: row.salario_diario.0,
        salario_diario_integrado: row.salario_diario_integrado.0,
        fecha_alta: alta,
        fecha_baja: baja,
        fecha_pago: pago,
        motivo,
        incluir_indemnizacion: campos.incluir_indemnizacion.unwrap_or(false),
        dias_aguinaldo: ajustes.dias_aguinaldo,
        prima_vacacional: PRIMA_VACACIONAL_MINIMA,
        dias_sueldo_pendientes: dias_sueldo,
        dias_vacaciones_pendientes: dias_vacaciones,
        gratificacion_separacion: gratificacion,
        zona: Zona::General,
        metodo: ajustes.metodo,
    };
    let calculado = finiquito::calcular_finiquito(&entrada).map_err(|error| match error {
        ErrorFiniquito::BajaAntesDelAlta { .. } => {
            ApiError::fields(Code::Nomina001, vec![FieldProblem::new("fecha", error.to_string())])
        }
        otro => ApiError::new(Code::Nomina001, format!("the settlement cannot be calculated: {otro}")),
    })?;
    let periodo: PeriodoRow = periodos::insertar_extraordinario(
        &mut tx,
        now,
        empresa_id,
        (&baja.to_string(), &baja.to_string(), &pago.to_string()),
        Concepto::Finiquito,
        Some(&row.id),
        None,
    )
    .await?;
    let recibo = recibo(&row, &calculado, &entrada, dias_sueldo)?;
    let recibo_id = recibo.id.clone();
    database::empleados::desactivar(&mut tx, empresa_id, &row.id, &baja.to_string(), now).await?;
    // The IMSS exit (IDSE 02) with its motivo, which gives the causa de baja.
    let motivo_texto = serde_json::to_value(motivo).ok().and_then(|v| v.as_str().map(str::to_owned));
    super::empleados::registrar_baja(&mut tx, empresa_id, &row, &baja.to_string(), motivo_texto.as_deref(), now)
        .await?;
    let finiquito_json = serde_json::to_value(&calculado).map_err(|e| ApiError::internal("finiquito JSON", e))?;
    let calculo = extraordinaria::escribir(tx, app, empresa_id, &periodo.id, vec![recibo], Vec::new(), now).await?;
    let empleado = {
        let mut conn = app.db.conn().await?;
        database::empleados::empleado(&mut conn, empresa_id, &EmpleadoId::from(empleado_id))
            .await?
            .ok_or_else(|| ApiError::not_found("employee"))?
    };
    Ok(Baja {
        periodo_id: String::from(periodo.id),
        recibo_id,
        empleado: Empleado::from(empleado),
        finiquito: finiquito_json,
        calculo,
    })
}

/// The receipt of a settlement: its perceptions as calculated, Deduccion 002 with both ISRs,
/// SeparacionIndemnizacion when 022, 023 or 025 are paid.
fn recibo(
    row: &timbra_store::empleados::EmpleadoRow,
    f: &finiquito::Finiquito,
    entrada: &EntradaFiniquito,
    dias_sueldo: Decimal,
) -> ApiResult<NuevoRecibo> {
    let json = |valor: serde_json::Value| {
        serde_json::to_string(&valor).map_err(|e| ApiError::internal("nomina receipt JSON", e))
    };
    // The common builder for one line, then the settlement's lines over it.
    let pago = Pago {
        row,
        tipo: "001",
        concepto: "Finiquito",
        gravado: Decimal::ZERO,
        exento: Decimal::ZERO,
        isr: Decimal::ZERO,
        dias_pagados: if dias_sueldo > Decimal::ZERO { dias_sueldo } else { Decimal::ONE },
    };
    let calculo =
        serde_json::json!({ "concepto": "FINIQUITO", "finiquito": f, "netoAPagar": f.neto, "isrRetenido": f.isr });
    let entrada_json = serde_json::json!({
        "concepto": "FINIQUITO",
        "salarioDiario": entrada.salario_diario.to_string(),
        "salarioDiarioIntegrado": entrada.salario_diario_integrado.to_string(),
        "fechaAlta": entrada.fecha_alta.to_string(),
        "fecha": entrada.fecha_baja.to_string(),
        "fechaPago": entrada.fecha_pago.to_string(),
        "motivo": entrada.motivo,
        "incluirIndemnizacion": entrada.incluir_indemnizacion,
        "diasAguinaldo": entrada.dias_aguinaldo,
        "diasSueldoPendientes": entrada.dias_sueldo_pendientes.to_string(),
        "diasVacacionesPendientes": entrada.dias_vacaciones_pendientes.to_string(),
        "gratificacionSeparacion": entrada.gratificacion_separacion.to_string(),
        "metodoIsrExtraordinario": entrada.metodo,
    });
    let mut recibo = extraordinaria::nuevo_recibo(&pago, json(calculo)?, json(entrada_json)?, None, None)?;
    let aguinaldo_exento = f.percepciones.iter().filter(|p| p.tipo == "002").map(|p| p.exento).sum::<Decimal>();
    let lineas = LineasRecibo {
        percepciones: f
            .percepciones
            .iter()
            .map(|p| LineaPercepcion {
                tipo: p.tipo.to_owned(),
                clave: p.tipo.to_owned(),
                concepto: p.concepto.to_owned(),
                gravado: dos(p.gravado),
                exento: dos(p.exento),
                horas_extra: Vec::new(),
            })
            .collect(),
        deducciones: if f.isr > Decimal::ZERO {
            vec![LineaDeduccion {
                tipo: "002".into(),
                clave: "002".into(),
                concepto: "ISR".into(),
                importe: dos(f.isr),
            }]
        } else {
            Vec::new()
        },
        otros_pagos: Vec::new(),
        incapacidades: Vec::new(),
        separacion: f.separacion.as_ref().map(|s| LineaSeparacion {
            total_pagado: s.total_pagado,
            num_anios_servicio: s.num_anios_servicio,
            ultimo_sueldo_mens_ord: s.ultimo_sueldo_mens_ord,
            ingreso_acumulable: s.ingreso_acumulable,
            ingreso_no_acumulable: s.ingreso_no_acumulable,
        }),
    };
    let gravado: Decimal = f.percepciones.iter().map(|p| p.gravado).sum();
    let exento: Decimal = f.percepciones.iter().map(|p| p.exento).sum();
    recibo.lineas = serde_json::to_string(&lineas).map_err(|e| ApiError::internal("nomina receipt JSON", e))?;
    recibo.total_percepciones = Money(dos(f.total_percepciones));
    recibo.total_gravado = Money(dos(gravado));
    recibo.total_exento = Money(dos(exento));
    recibo.total_deducciones = Money(dos(f.isr));
    recibo.isr_retenido = Money(dos(f.isr));
    recibo.neto = Money(dos(f.neto));
    recibo.exento_aguinaldo = (!aguinaldo_exento.is_zero()).then_some(Money(dos(aguinaldo_exento)));
    Ok(recibo)
}
