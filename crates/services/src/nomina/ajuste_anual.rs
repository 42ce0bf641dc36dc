//! The annual ISR adjustment (issue 35, Art. 97 LISR, PAYROLL_EXTRAS_2026.md §4):
//! `timbra_nomina::ajuste_anual` per employee over the year's **stamped** receipts (FechaPago in
//! the ejercicio, the target period's own receipts excluded), written into a target period
//! that is calculated and not stamped:
//!
//! * a balance due is withheld as an extra Deduccion 002 "ISR ajuste anual" in the employee's
//!   receipt of the target period (never from a minimum-wage worker: carried, §9.4);
//! * a balance in favour is paid back as OtroPago 004 with CompensacionSaldosAFavor (SaldoAFavor,
//!   Año = ejercicio, RemanenteSalFav), at most the ISR withheld from all workers in the target
//!   period (Art. 97: compensated against withholdings), the rest carried as remanente.
//!
//! The figures of each employee are stored (`nomina_ajustes_anuales`) and shown by
//! `GET /api/nomina/ajuste-anual/{ejercicio}`. Applying the adjustment again (to the same or
//! another period whose receipts are not stamped) replaces the previous one: its lines are
//! taken out of the previous target's receipts first.

use std::collections::HashMap;
use timbra_store::ids::{EmpresaId, PeriodoId};

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::{empleados::hoy, leer_fecha};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_nomina::Parametros;
use timbra_nomina::ajuste_anual::{self, EntradaAjuste, ReciboAnual, ResultadoAjuste, Saldo};
use timbra_nomina::periodo::{LineaCompensacion, LineaDeduccion, LineaOtroPago, LineasRecibo};
use timbra_store::nomina::{self, ReciboRow};
use timbra_store::nomina_ajustes::{self, AjusteRow, NuevoAjuste};
use timbra_store::{self as database, Money, Tx, ids};

/// The Concepto of the balance-due deduction.
pub const CONCEPTO_ISR_AJUSTE: &str = "ISR ajuste anual";
/// The Concepto of the balance-in-favour other payment.
pub const CONCEPTO_SALDO_A_FAVOR: &str = "Aplicación de saldo a favor por compensación anual";

/// An adjustment as sent.
#[derive(Debug, Default)]
pub struct Campos {
    /// The fiscal year.
    pub ejercicio: Option<serde_json::Value>,
    /// The period whose receipts carry the adjustment (calculated, not stamped).
    pub periodo_id: Option<String>,
}

/// One employee's adjustment.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct AjusteEmpleado {
    /// The employee.
    pub empleado_id: String,
    /// Name.
    pub empleado_nombre: String,
    /// The target period.
    pub periodo_id: String,
    /// AJUSTADO, or NO_AJUSTA with `motivos` (Art. 97: hired after 1 January, left before
    /// December, income above 400,000.00).
    pub resultado: String,
    /// Why not adjusted.
    pub motivos: Vec<String>,
    /// Stamped receipts of the ejercicio counted.
    pub recibos: i64,
    /// Σ taxable income (022, 023, 025 excluded).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub ingreso_gravado: Decimal,
    /// Annual ISR, Art. 152 tariff.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub isr_anual: Decimal,
    /// Subsidy applied in the year's receipts, credited.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub subsidio_acreditado: Decimal,
    /// ISR withheld in the year's stamped receipts.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub isr_retenido: Decimal,
    /// Balance due (0 when none).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub saldo_a_cargo: Decimal,
    /// Balance in favour (0 when none).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub saldo_a_favor: Decimal,
    /// Withheld (Deduccion 002) or paid back (OtroPago 004) in the target period's receipt.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub aplicado: Decimal,
    /// Left to the next periods (a minimum-wage worker's balance due, a balance in favour
    /// above what the period withholds, or no receipt in the target period).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub pendiente: Decimal,
}

impl From<AjusteRow> for AjusteEmpleado {
    fn from(row: AjusteRow) -> Self {
        Self {
            empleado_id: row.empleado_id,
            empleado_nombre: row.empleado_nombre,
            periodo_id: String::from(row.periodo_id),
            resultado: row.resultado,
            motivos: row.motivos.map(|m| m.split(',').map(str::to_owned).collect()).unwrap_or_default(),
            recibos: row.recibos,
            ingreso_gravado: row.ingreso_gravado.0,
            isr_anual: row.isr_anual.0,
            subsidio_acreditado: row.subsidio_acreditado.0,
            isr_retenido: row.isr_retenido.0,
            saldo_a_cargo: row.saldo_a_cargo.0,
            saldo_a_favor: row.saldo_a_favor.0,
            aplicado: row.aplicado.0,
            pendiente: row.pendiente.0,
        }
    }
}

/// The answer of both routes.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct AjusteAnual {
    /// The fiscal year.
    pub ejercicio: i32,
    /// The target period (null when none was applied).
    pub periodo_id: Option<String>,
    /// One item per employee with stamped receipts in the ejercicio.
    pub items: Vec<AjusteEmpleado>,
}

fn dos(mut valor: Decimal) -> Decimal {
    valor = timbra_nomina::redondear(valor);
    valor.rescale(2);
    valor
}

fn json<T: Serialize>(valor: &T) -> ApiResult<String> {
    serde_json::to_string(valor).map_err(|e| ApiError::internal("nomina receipt JSON", e))
}

fn lineas_de(row: &ReciboRow) -> ApiResult<LineasRecibo> {
    serde_json::from_str(&row.lineas).map_err(|e| ApiError::internal("nomina_recibos.lineas", e))
}

/// Takes a previous adjustment's lines out of receipt `row`, restoring its totals.
async fn quitar_ajuste(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    row: &ReciboRow,
    now: time::OffsetDateTime,
) -> ApiResult<()> {
    let mut lineas = lineas_de(row)?;
    let retenido: Decimal =
        lineas.deducciones.iter().filter(|d| d.concepto == CONCEPTO_ISR_AJUSTE).map(|d| d.importe).sum();
    let devuelto: Decimal = lineas.otros_pagos.iter().filter(|o| o.tipo == "004").map(|o| o.importe).sum();
    if retenido.is_zero() && devuelto.is_zero() {
        return Ok(());
    }
    lineas.deducciones.retain(|d| d.concepto != CONCEPTO_ISR_AJUSTE);
    lineas.otros_pagos.retain(|o| o.tipo != "004");
    let totales = nomina::TotalesRecibo {
        total_deducciones: Money(dos(row.total_deducciones.0 - retenido)),
        total_otros_pagos: Money(dos(row.total_otros_pagos.0 - devuelto)),
        isr_retenido: Money(dos(row.isr_retenido.0 - retenido)),
        neto: Money(dos(row.neto.0 + retenido - devuelto)),
    };
    nomina::cambiar_lineas(tx, empresa_id, row.id.as_str(), &json(&lineas)?, &totales, now).await?;
    Ok(())
}

/// NOMINA_003 when period `id` has stamped receipts.
async fn no_timbrado(tx: &mut Tx, empresa_id: &EmpresaId, id: &str) -> ApiResult<()> {
    let timbrados = nomina::contar_timbrados(tx, empresa_id, &PeriodoId::from(id)).await?;
    if timbrados > 0 {
        return Err(ApiError::new(
            Code::Nomina003,
            format!(
                "period {id} has {timbrados} stamped receipt(s): the annual adjustment goes into a period not stamped yet"
            ),
        ));
    }
    Ok(())
}

/// Applies the annual adjustment of `ejercicio` to period `periodo_id`'s receipts.
///
/// # Errors
/// NOMINA_001 bad fields; NOT_FOUND no such period; NOMINA_011 the period is ABIERTO;
/// NOMINA_003 it has stamped receipts (or the previous adjustment's target has);
/// NOMINA_036 no stamped receipts in the ejercicio.
pub async fn aplicar(app: &AppContext, empresa_id: &EmpresaId, campos: Campos) -> ApiResult<AjusteAnual> {
    let now = app.clock.now();
    let hoy = hoy(app);
    let mut problems = Vec::new();
    let ejercicio = match campos.ejercicio.as_ref().and_then(serde_json::Value::as_i64) {
        Some(anio) if (2025..=i64::from(hoy.year())).contains(&anio) => i32::try_from(anio).ok(),
        Some(anio) => {
            problems.push(FieldProblem::new(
                "ejercicio",
                format!("ejercicio {anio} is not a fiscal year from 2025 to this one ({})", hoy.year()),
            ));
            None
        }
        None => {
            problems.push(FieldProblem::new("ejercicio", "ejercicio is required: the fiscal year, e.g. 2026"));
            None
        }
    };
    let periodo_id = campos.periodo_id.as_deref().map(str::trim).filter(|p| !p.is_empty());
    if periodo_id.is_none() {
        problems.push(FieldProblem::new(
            "periodoId",
            "periodoId is required: the calculated period whose receipts carry the adjustment",
        ));
    }
    let (Some(ejercicio), Some(periodo_id), true) = (ejercicio, periodo_id, problems.is_empty()) else {
        return Err(ApiError::fields(Code::Nomina001, problems));
    };
    let mut tx = app.db.begin().await?;
    let periodo = nomina::periodo_para_cambiar(&mut tx, empresa_id, &PeriodoId::from(periodo_id))
        .await?
        .ok_or_else(|| ApiError::not_found("payroll period"))?;
    if periodo.status == "ABIERTO" {
        return Err(ApiError::new(
            Code::Nomina011,
            format!("period {periodo_id} is ABIERTO: calculate it first (POST /api/nomina/periodos/{periodo_id})"),
        ));
    }
    no_timbrado(&mut tx, empresa_id, periodo_id).await?;
    let (desde, hasta) = (format!("{ejercicio:04}-01-01"), format!("{ejercicio:04}-12-31"));
    let timbrados = nomina_ajustes::recibos_timbrados(&mut tx, empresa_id, &desde, &hasta, periodo_id).await?;
    if timbrados.is_empty() {
        return Err(ApiError::new(
            Code::Nomina036,
            format!(
                "no payroll receipt paid in {ejercicio} is stamped: stamp the year's periods before its adjustment"
            ),
        ));
    }
    // A previous adjustment of the ejercicio is replaced: its lines leave its target's receipts.
    for anterior in nomina_ajustes::periodos(&mut tx, empresa_id, i64::from(ejercicio)).await? {
        no_timbrado(&mut tx, empresa_id, &anterior).await?;
        for row in nomina::recibos(&mut tx, empresa_id, &PeriodoId::from(&anterior)).await? {
            quitar_ajuste(&mut tx, empresa_id, &row, now).await?;
        }
    }
    nomina_ajustes::borrar(&mut tx, empresa_id, i64::from(ejercicio)).await?;

    let salario_minimo = Parametros::vigentes(leer_fecha(&hasta).unwrap_or(hoy))
        .map_err(|e| ApiError::new(Code::Nomina001, e.to_string()))?
        .salario_minimo
        .general;
    let mut por_empleado: HashMap<String, Vec<ReciboAnual>> = HashMap::new();
    for r in &timbrados {
        let lineas: LineasRecibo =
            serde_json::from_str(&r.lineas).map_err(|e| ApiError::internal("nomina_recibos.lineas", e))?;
        let separacion =
            |p: &&timbra_nomina::periodo::LineaPercepcion| matches!(p.tipo.as_str(), "022" | "023" | "025");
        let sep: Decimal = lineas.percepciones.iter().filter(separacion).map(|p| p.gravado + p.exento).sum();
        let gravado_sep: Decimal = lineas.percepciones.iter().filter(separacion).map(|p| p.gravado).sum();
        let exento_sep = sep - gravado_sep;
        // The subsidy applied: the part of the caused subsidy that reduced the ISR.
        let calculo: serde_json::Value = serde_json::from_str(&r.calculo).unwrap_or_default();
        let numero = |v: &serde_json::Value| v.to_string().trim_matches('"').parse::<Decimal>().unwrap_or_default();
        let isr_bruto = numero(&calculo["desglose"]["cuotaFija"]) + numero(&calculo["desglose"]["isrMarginal"]);
        let subsidio_aplicado = r.subsidio_causado.0.min(isr_bruto).max(Decimal::ZERO);
        por_empleado.entry(r.empleado_id.clone()).or_default().push(ReciboAnual {
            fecha_pago: leer_fecha(&r.fecha_pago)
                .ok_or_else(|| ApiError::internal("nomina_periodos.fecha_pago", &r.id))?,
            gravado: r.total_gravado.0 - gravado_sep,
            exento: r.total_exento.0 - exento_sep,
            separacion: sep,
            isr_retenido: r.isr_retenido.0,
            subsidio_aplicado,
        });
    }
    let destino: HashMap<String, ReciboRow> = nomina::recibos(&mut tx, empresa_id, &PeriodoId::from(periodo_id))
        .await?
        .into_iter()
        .filter(|r| r.status != "CANCELADO")
        .map(|r| (r.empleado_id.clone(), r))
        .collect();
    // What the period withholds from all its workers bounds the balances paid back.
    let mut disponible: Decimal = destino.values().map(|r| r.isr_retenido.0).sum();
    let empleados = database::empleados::empleados_entre(&mut tx, empresa_id, &desde, &hasta).await?;
    for row in empleados.iter().filter(|e| por_empleado.contains_key(&e.id)) {
        let recibos = &por_empleado[&row.id];
        let fecha = |t: &str| leer_fecha(t).ok_or_else(|| ApiError::internal("empleados date", &row.id));
        let objetivo = destino.get(&row.id);
        let entrada = EntradaAjuste {
            ejercicio,
            fecha_alta: fecha(&row.fecha_inicio_rel_laboral)?,
            fecha_baja: row.fecha_baja.as_deref().map(fecha).transpose()?,
            presenta_declaracion: false,
            salario_minimo: row.salario_diario.0 <= salario_minimo,
            tope_compensacion: Some(if objetivo.is_some() { disponible } else { Decimal::ZERO }),
        };
        let resultado = ajuste_anual::calcular_ajuste_anual(&entrada, recibos)
            .map_err(|e| ApiError::new(Code::Nomina001, e.to_string()))?;
        let cero = dos(Decimal::ZERO);
        let mut nuevo = NuevoAjuste {
            id: ids::new_id(),
            periodo_id: PeriodoId::from(periodo_id.to_owned()),
            empleado_id: row.id.clone(),
            empleado_nombre: row.nombre.clone(),
            resultado: "AJUSTADO".into(),
            motivos: None,
            recibos: i64::try_from(recibos.len()).unwrap_or(i64::MAX),
            ingreso_gravado: Money(cero),
            isr_anual: Money(cero),
            subsidio_acreditado: Money(cero),
            isr_retenido: Money(cero),
            saldo_a_cargo: Money(cero),
            saldo_a_favor: Money(cero),
            aplicado: Money(cero),
            pendiente: Money(cero),
        };
        match resultado {
            ResultadoAjuste::NoAjusta { motivos } => {
                nuevo.resultado = "NO_AJUSTA".into();
                let textos: Vec<String> = motivos
                    .iter()
                    .filter_map(|m| serde_json::to_value(m).ok().and_then(|v| v.as_str().map(str::to_owned)))
                    .collect();
                nuevo.motivos = Some(textos.join(","));
                let suma = |f: fn(&ReciboAnual) -> Decimal| dos(recibos.iter().map(f).sum());
                nuevo.ingreso_gravado = Money(suma(|r| r.gravado));
                nuevo.isr_retenido = Money(suma(|r| r.isr_retenido));
            }
            ResultadoAjuste::Ajustado(a) => {
                nuevo.ingreso_gravado = Money(a.ingreso_gravado);
                nuevo.isr_anual = Money(a.isr_anual);
                nuevo.subsidio_acreditado = Money(a.subsidio_acreditado);
                nuevo.isr_retenido = Money(a.isr_retenido);
                match (a.saldo, objetivo) {
                    (Saldo::ACargo { saldo, retener, diferido }, Some(recibo)) => {
                        nuevo.saldo_a_cargo = Money(saldo);
                        nuevo.aplicado = Money(retener);
                        nuevo.pendiente = Money(diferido);
                        if retener > Decimal::ZERO {
                            let mut lineas = lineas_de(recibo)?;
                            lineas.deducciones.push(LineaDeduccion {
                                tipo: ajuste_anual::TIPO_DEDUCCION_ISR.into(),
                                clave: "002AJ".into(),
                                concepto: CONCEPTO_ISR_AJUSTE.into(),
                                importe: retener,
                            });
                            let totales = nomina::TotalesRecibo {
                                total_deducciones: Money(dos(recibo.total_deducciones.0 + retener)),
                                total_otros_pagos: recibo.total_otros_pagos,
                                isr_retenido: Money(dos(recibo.isr_retenido.0 + retener)),
                                neto: Money(dos(recibo.neto.0 - retener)),
                            };
                            nomina::cambiar_lineas(
                                &mut tx,
                                empresa_id,
                                recibo.id.as_str(),
                                &json(&lineas)?,
                                &totales,
                                now,
                            )
                            .await?;
                        }
                    }
                    (Saldo::AFavor { saldo, importe, remanente, anio }, Some(recibo)) => {
                        nuevo.saldo_a_favor = Money(saldo);
                        nuevo.aplicado = Money(importe);
                        nuevo.pendiente = Money(remanente);
                        if importe > Decimal::ZERO {
                            disponible -= importe;
                            let mut lineas = lineas_de(recibo)?;
                            lineas.otros_pagos.push(LineaOtroPago {
                                tipo: ajuste_anual::TIPO_OTRO_PAGO_SALDO_A_FAVOR.into(),
                                clave: "004".into(),
                                concepto: CONCEPTO_SALDO_A_FAVOR.into(),
                                importe,
                                subsidio_causado: None,
                                compensacion: Some(LineaCompensacion {
                                    saldo_a_favor: saldo,
                                    anio,
                                    remanente_sal_fav: remanente,
                                }),
                            });
                            let totales = nomina::TotalesRecibo {
                                total_deducciones: recibo.total_deducciones,
                                total_otros_pagos: Money(dos(recibo.total_otros_pagos.0 + importe)),
                                isr_retenido: recibo.isr_retenido,
                                neto: Money(dos(recibo.neto.0 + importe)),
                            };
                            nomina::cambiar_lineas(
                                &mut tx,
                                empresa_id,
                                recibo.id.as_str(),
                                &json(&lineas)?,
                                &totales,
                                now,
                            )
                            .await?;
                        }
                    }
                    (Saldo::ACargo { saldo, .. }, None) => {
                        nuevo.saldo_a_cargo = Money(saldo);
                        nuevo.pendiente = Money(saldo);
                    }
                    (Saldo::AFavor { saldo, .. }, None) => {
                        nuevo.saldo_a_favor = Money(saldo);
                        nuevo.pendiente = Money(saldo);
                    }
                    (Saldo::Cero, _) => {}
                }
            }
        }
        nomina_ajustes::insertar(&mut tx, empresa_id, i64::from(ejercicio), &nuevo, now).await?;
    }
    // The period's total follows its receipts.
    nomina::recalcular_total(&mut tx, empresa_id, &PeriodoId::from(periodo_id), now).await?;
    tx.commit().await?;
    consultar(app, empresa_id, &ejercicio.to_string()).await.map(|mut a| {
        a.periodo_id = Some(periodo_id.to_owned());
        a
    })
}

/// The stored adjustment of `ejercicio`.
///
/// # Errors
/// NOMINA_001 a bad ejercicio.
pub async fn consultar(app: &AppContext, empresa_id: &EmpresaId, ejercicio: &str) -> ApiResult<AjusteAnual> {
    let Some(anio) = ejercicio.trim().parse::<i32>().ok().filter(|a| (2000..=2100).contains(a)) else {
        return Err(ApiError::fields(
            Code::Nomina001,
            vec![FieldProblem::new("ejercicio", format!("{ejercicio:?} is not a year"))],
        ));
    };
    let mut conn = app.db.conn().await?;
    let rows = nomina_ajustes::del_ejercicio(&mut conn, empresa_id, i64::from(anio)).await?;
    let periodo_id = rows.first().map(|r| r.periodo_id.clone());
    Ok(AjusteAnual {
        ejercicio: anio,
        periodo_id: periodo_id.map(String::from),
        items: rows.into_iter().map(AjusteEmpleado::from).collect(),
    })
}
