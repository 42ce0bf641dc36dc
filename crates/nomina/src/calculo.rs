//! Gross-to-net for one period: ISR (Art. 96 LISR), subsidio para el empleo, IMSS worker
//! quotas (LSS), Art. 93 LISR exemptions, extra deductions.
//!
//! Rounding: every reported component is rounded half away from zero to centavos where it is
//! produced (sueldo base, each exempt part, the ISR marginal amount, the prorated subsidy,
//! each IMSS branch) and totals are sums of rounded components, as a CFDI must add up.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use time::Date;

use crate::entrada::{CalculoNomina, EntradaValidada, PercepcionValidada, Problema, Zona};
use crate::parametros::{Parametros, SinParametros, TablaIsr, Tramo, VigenciaTarifa};
use crate::resultado::{
    Deducciones, Desglose, DetallePercepcion, ImssDesglose, OtrosPagos, Percepciones, ResultadoNomina,
};
use crate::{centavos, redondear};

/// Validates a request and calculates it: the one call behind `POST /api/nomina/calcular`.
/// `hoy` (today in America/Mexico_City) is used when the body has no `fechaPago`.
///
/// # Errors
/// Every [`Problema`] of the request, or a problem on `fechaPago` when no parameters cover
/// the date used (server maps both to NOMINA_001).
pub fn calcular_solicitud(solicitud: &CalculoNomina, hoy: Date) -> Result<ResultadoNomina, Vec<Problema>> {
    let entrada = solicitud.validar()?;
    let fecha = entrada.fecha_pago().unwrap_or(hoy);
    calcular(&entrada, fecha).map_err(|e| vec![Problema { campo: "fechaPago".to_owned(), mensaje: e.to_string() }])
}

/// Calculates one period with the parameters in force on the payment date `fecha`.
///
/// # Errors
/// [`SinParametros`] when the date is outside the data (before 2025, or a year not added).
pub fn calcular(entrada: &EntradaValidada, fecha: Date) -> Result<ResultadoNomina, SinParametros> {
    Ok(calcular_con_parametros(entrada, &Parametros::vigentes(fecha)?))
}

/// Calculates a whole payroll (one period, one payment date) in one call.
///
/// # Errors
/// [`SinParametros`] when the date is outside the data.
pub fn calcular_lote(entradas: &[EntradaValidada], fecha: Date) -> Result<Vec<ResultadoNomina>, SinParametros> {
    let parametros = Parametros::vigentes(fecha)?;
    Ok(entradas.iter().map(|entrada| calcular_con_parametros(entrada, &parametros)).collect())
}

/// ISR by a tariff: the row, the excess over its lower limit, the marginal amount and the
/// total (Art. 96 LISR: `cuota fija + (base − límite inferior) × tasa`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalculoIsr {
    /// The row applied (period-scaled for period tables).
    pub tramo: Tramo,
    /// base − límite inferior.
    pub excedente: Decimal,
    /// excedente × tasa, rounded to centavos.
    pub marginal: Decimal,
    /// cuota fija + marginal. Every cuota has two decimals, so this equals rounding the exact
    /// total (PAYROLL_2026.md §1).
    pub isr: Decimal,
}

/// Applies `tabla` of `tarifa` to `base`; a base of zero or less owes nothing.
pub fn isr_tarifa(tarifa: &VigenciaTarifa, tabla: TablaIsr, base: Decimal) -> CalculoIsr {
    if base <= Decimal::ZERO {
        return CalculoIsr {
            tramo: Tramo {
                limite_inferior: Decimal::ZERO,
                limite_superior: None,
                cuota_fija: Decimal::ZERO,
                porcentaje: Decimal::ZERO,
            },
            excedente: Decimal::ZERO,
            marginal: Decimal::ZERO,
            isr: Decimal::ZERO,
        };
    }
    let tramo = tarifa.tramo_para(tabla, base);
    // A base with centavos is never below its row's lower limit; clamp for sub-centavo bases
    // that fall in the 0.01 gap between rows.
    let excedente = (base - tramo.limite_inferior).max(Decimal::ZERO);
    let marginal = redondear(excedente * tramo.porcentaje / dec!(100));
    CalculoIsr { tramo, excedente, marginal, isr: tramo.cuota_fija + marginal }
}

/// The tariff function unrounded, `cuota fija + (base − límite inferior) × tasa`: the `f(x)`
/// of the extraordinary-payment methods (Art. 96 LISR, Art. 174 RLISR) and of the separation
/// rate (Art. 96 last paragraphs), whose steps keep full precision
/// (PAYROLL_EXTRAS_2026.md §0.3). Zero for a base of zero or less.
pub fn isr_exacto(tarifa: &VigenciaTarifa, tabla: TablaIsr, base: Decimal) -> Decimal {
    if base <= Decimal::ZERO {
        return Decimal::ZERO;
    }
    let tramo = tarifa.tramo_para(tabla, base);
    tramo.cuota_fija + (base - tramo.limite_inferior).max(Decimal::ZERO) * tramo.porcentaje / dec!(100)
}

/// IMSS worker rates (cuotas obreras), LSS.
pub(crate) mod tasas {
    use rust_decimal::Decimal;
    use rust_decimal_macros::dec;
    /// Art. 106 fr. II LSS: EyM prestaciones en especie, worker 0.40 % of SBC above 3 UMA.
    pub const EXCEDENTE_3_UMA: Decimal = dec!(0.0040);
    /// Art. 107 LSS: EyM prestaciones en dinero, worker 0.25 %.
    pub const PRESTACIONES_DINERO: Decimal = dec!(0.0025);
    /// Art. 25 LSS: EyM gastos médicos de pensionados, worker 0.375 %.
    pub const GASTOS_MEDICOS_PENSIONADOS: Decimal = dec!(0.00375);
    /// Art. 147 LSS: invalidez y vida, worker 0.625 %.
    pub const INVALIDEZ_Y_VIDA: Decimal = dec!(0.00625);
    /// Art. 168 fr. II LSS: cesantía en edad avanzada y vejez, worker 1.125 %.
    pub const CESANTIA_Y_VEJEZ: Decimal = dec!(0.01125);
}

/// IMSS worker quotas for `dias` days on the integrated wage `sdi`, and the SBC used
/// (`sdi` capped at 25 UMA, Art. 28 LSS). Each branch is rounded, then summed.
pub fn cuotas_imss(sdi: Decimal, dias: Decimal, uma_diaria: Decimal) -> (ImssDesglose, Decimal) {
    let sbc = sdi.min(dec!(25) * uma_diaria);
    // Art. 106 fr. II LSS: only the part of SBC above three UMA.
    let excedente = (sbc - dec!(3) * uma_diaria).max(Decimal::ZERO);
    let enfermedad_y_maternidad = centavos(
        excedente * dias * tasas::EXCEDENTE_3_UMA
            + sbc * dias * (tasas::PRESTACIONES_DINERO + tasas::GASTOS_MEDICOS_PENSIONADOS),
    );
    let invalidez_y_vida = centavos(sbc * dias * tasas::INVALIDEZ_Y_VIDA);
    let cesantia_y_vejez = centavos(sbc * dias * tasas::CESANTIA_Y_VEJEZ);
    (
        ImssDesglose {
            total: enfermedad_y_maternidad + invalidez_y_vida + cesantia_y_vejez,
            enfermedad_y_maternidad,
            invalidez_y_vida,
            cesantia_y_vejez,
        },
        sbc,
    )
}

fn imss_cero() -> ImssDesglose {
    ImssDesglose {
        enfermedad_y_maternidad: centavos(Decimal::ZERO),
        invalidez_y_vida: centavos(Decimal::ZERO),
        cesantia_y_vejez: centavos(Decimal::ZERO),
        total: centavos(Decimal::ZERO),
    }
}

/// Exempt part of an extra perception sent with only `importe`, by Art. 93 LISR, for a single
/// payment with nothing exempted earlier in the year (or week, for overtime). Returns
/// `(gravado, exento)`. Types without a rule here are wholly taxable (Art. 94 LISR).
pub fn reparto_art93(percepcion: &PercepcionValidada, uma_diaria: Decimal, salario_minimo: bool) -> (Decimal, Decimal) {
    let importe = percepcion.importe;
    let exento = match percepcion.tipo.as_str() {
        // Art. 93 fr. XIV: aguinaldo exempt up to 30 UMA.
        "002" => importe.min(dec!(30) * uma_diaria),
        // Art. 93 fr. XIV: PTU and prima vacacional exempt up to 15 UMA.
        "003" | "021" => importe.min(dec!(15) * uma_diaria),
        // Art. 93 fr. XIV: prima dominical exempt up to 1 UMA per Sunday worked.
        "020" => importe.min(Decimal::from(percepcion.domingos.unwrap_or(0)) * uma_diaria),
        // Art. 93 fr. I: minimum-wage workers' overtime is exempt (within the LFT limits);
        // otherwise 50 % is exempt, up to 5 UMA per week.
        "019" if salario_minimo => importe,
        "019" => redondear(importe / dec!(2)).min(dec!(5) * uma_diaria),
        _ => Decimal::ZERO,
    };
    let exento = centavos(exento);
    (centavos(importe - exento), exento)
}

/// Number of days of the calendar month of `fecha`.
fn dias_del_mes(fecha: Date) -> Decimal {
    Decimal::from(fecha.month().length(fecha.year()))
}

/// Calculates one period with an explicit parameter set (infallible; see [`calcular`]).
pub fn calcular_con_parametros(entrada: &EntradaValidada, parametros: &Parametros) -> ResultadoNomina {
    let dias = entrada.dias_pagados();
    let uma_diaria = parametros.uma.diaria;

    // Perception 001: salary of the days paid.
    let sueldo_base = centavos(entrada.salario_diario() * dias);

    let salario_minimo = match entrada.zona() {
        Zona::General => parametros.salario_minimo.general,
        Zona::Frontera => parametros.salario_minimo.frontera,
    };
    // Art. 36 LSS and Art. 96 LISR apply to the minimum-wage earner: the test is on the daily
    // wage (cuota diaria), not on the SBC (PAYROLL_2026.md §4).
    let salario_minimo_aplicado = entrada.salario_diario() <= salario_minimo;

    let detalle: Vec<DetallePercepcion> = entrada
        .percepciones()
        .iter()
        .map(|p| {
            let (gravado, exento, exento_calculado) = match p.reparto {
                Some((g, e)) => (centavos(g), centavos(e), false),
                None => {
                    let (g, e) = reparto_art93(p, uma_diaria, salario_minimo_aplicado);
                    (g, e, true)
                }
            };
            DetallePercepcion {
                tipo: p.tipo.clone(),
                concepto: p.concepto.clone(),
                importe: gravado + exento,
                gravado,
                exento,
                exento_calculado,
            }
        })
        .collect();
    let gravado_extra: Decimal = detalle.iter().map(|d| d.gravado).sum();
    let exento_extra: Decimal = detalle.iter().map(|d| d.exento).sum();
    // Decree of 2024-05-01, Art. Primero: separation payments do not count towards the
    // subsidy's income cap.
    let gravado_separacion: Decimal =
        detalle.iter().filter(|d| matches!(d.tipo.as_str(), "022" | "023" | "025")).map(|d| d.gravado).sum();

    let total_gravado = sueldo_base + gravado_extra;
    let total_exento = centavos(exento_extra);
    let total_percepciones = total_gravado + total_exento;

    // Art. 96 LISR second paragraph: no withholding for whoever earns only the minimum wage;
    // any other taxable pay makes the whole period taxable (PAYROLL_2026.md §1.8).
    let exento_isr_salario_minimo = salario_minimo_aplicado && gravado_extra.is_zero();

    // Table (PAYROLL_2026.md §5, method A): MENSUAL on the monthly tariff; the others on the
    // daily tariff × the period's days (Anexo 8 prints 7, 10, 15; catorcenal 14), or × the
    // days paid when fewer (partial period). Quincenas of 16 days still use 15.
    let (tabla, dias_subsidio) = match entrada.periodicidad().dias_tarifa() {
        Some(nominales) => {
            let d = dias.min(nominales);
            (TablaIsr::Dias(d), Some(d))
        }
        None => {
            // A full month gets the full monthly subsidy; a part month (hire or termination)
            // the prorated one. Full = at least 30 days, or every day of a shorter month.
            let completo = dias >= dec!(30).min(dias_del_mes(parametros.fecha));
            (TablaIsr::Mensual, (!completo).then_some(dias))
        }
    };

    let isr = if exento_isr_salario_minimo {
        isr_tarifa(parametros.tarifa, tabla, Decimal::ZERO)
    } else {
        isr_tarifa(parametros.tarifa, tabla, total_gravado)
    };

    // Subsidio para el empleo (decree DOF 2024-05-01, amended DOF 2025-12-31):
    // monthly amount, prorated ÷ 30.4 × days for periods shorter than a month, with the
    // income cap prorated the same way (PAYROLL_2026.md §2.2–§2.3).
    let subsidio_mensual = parametros.subsidio_mensual();
    let (subsidio_periodo, tope_periodo) = parametros.subsidio_periodo(dias_subsidio);
    let base_subsidio = total_gravado - gravado_separacion;
    // Minimum-wage earners exempt under Art. 96 neither withhold ISR nor apply the subsidy.
    let elegible = !exento_isr_salario_minimo && base_subsidio <= tope_periodo;
    let subsidio_causado = if elegible { subsidio_periodo } else { Decimal::ZERO };
    // Since 2024-05-01 the subsidy only reduces ISR; the excess is lost, never paid.
    let subsidio_aplicado = subsidio_causado.min(isr.isr);
    let isr_retenido = isr.isr - subsidio_aplicado;

    let (imss, sbc) = cuotas_imss(entrada.salario_diario_integrado(), dias, uma_diaria);
    // Art. 36 LSS: the employer pays the minimum-wage worker's quotas.
    let (imss_empleado, imss_absorbido) =
        if salario_minimo_aplicado { (imss_cero(), imss) } else { (imss, imss_cero()) };

    let otras_deducciones = centavos(entrada.deducciones().iter().map(|d| d.importe).sum());
    let total_deducciones = centavos(isr_retenido + imss_empleado.total + otras_deducciones);
    let subsidio_entregado = centavos(Decimal::ZERO);
    let total_otros_pagos = subsidio_entregado;
    let neto_a_pagar = total_percepciones - total_deducciones + total_otros_pagos;

    ResultadoNomina {
        percepciones: Percepciones {
            sueldo_base,
            total_gravado: centavos(total_gravado),
            total_exento,
            total_percepciones: centavos(total_percepciones),
        },
        deducciones: Deducciones {
            isr_bruto: centavos(isr.isr),
            subsidio_al_empleo: centavos(subsidio_aplicado),
            isr_retenido: centavos(isr_retenido),
            imss_empleado: imss_empleado.total,
            total_deducciones,
        },
        otros_pagos: OtrosPagos { subsidio_entregado, total_otros_pagos },
        neto_a_pagar: centavos(neto_a_pagar),
        desglose: Desglose {
            base_gravable_isr: centavos(total_gravado),
            rango_isr: format!("{:.2}%", isr.tramo.porcentaje),
            cuota_fija: centavos(isr.tramo.cuota_fija),
            excedente_lim_inf: centavos(isr.excedente),
            isr_marginal: centavos(isr.marginal),
            subsidio_causado: centavos(subsidio_causado),
            imss_desglose: imss_empleado,
            limite_inferior: centavos(isr.tramo.limite_inferior),
            tabla_isr: tabla.etiqueta(),
            tarifa_isr: parametros.tarifa.fuente.to_owned(),
            dias_subsidio: dias_subsidio.map(|d| d.normalize()),
            periodicidad: entrada.periodicidad(),
            zona: entrada.zona(),
            riesgo_puesto: entrada.riesgo_puesto().clase(),
            salario_minimo: centavos(salario_minimo),
            salario_minimo_aplicado,
            exento_isr_salario_minimo,
            imss_absorbido_por_patron: imss_absorbido,
            salario_base_cotizacion: centavos(sbc),
            uma_diaria: centavos(uma_diaria),
            uma_mensual: centavos(parametros.uma.mensual),
            subsidio_mensual: centavos(subsidio_mensual),
            tope_ingreso_subsidio: centavos(tope_periodo),
            otras_deducciones,
            percepciones: detalle,
            fecha_parametros: parametros.fecha.to_string(),
        },
    }
}

#[cfg(test)]
#[path = "calculo_tests.rs"]
mod tests;
