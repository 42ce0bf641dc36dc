//! The employer's annual ISR adjustment (cálculo anual, Art. 97 LISR), PAYROLL_EXTRAS_2026.md §4.
//!
//! **Who** (Art. 97 last paragraph): every worker except those who I started after 1 January or
//! stopped before 1 December of the ejercicio; II earned more than 400,000.00 under the chapter,
//! exempt income included (idconline.mx 2010-12-08: "incluyen gravados, exentos y viáticos");
//! III told the employer in writing they will file their own return (Art. 98 III).
//!
//! **How** (§4.3, Convention where marked):
//! 1. Y = Σ ImporteGravado of the receipts stamped with FechaPago in the ejercicio, without
//!    022, 023 and 025 (the target period's own receipt is not among them: the issue says "from
//!    the stamped receipts");
//! 2. ISR anual = round2(f_anual(Y)), the annual tariff of Art. 152 LISR;
//! 3. the subsidy applied in those receipts is credited ("De dicho impuesto a cargo se restarán
//!    las cantidades que por concepto de subsidio para el empleo mensual le correspondan a cada
//!    trabajador", decree as relayed by k-g.com.mx; confidence M); a cargo = max(0, ISR − subsidy);
//! 4. retenido = Σ Deduccion 002 of those receipts, without the ISR on separation pay;
//! 5. diferencia = a cargo − retenido: > 0 is withheld as Deduccion 002 "ISR ajuste anual";
//!    < 0 is returned as OtroPago 004 with CompensacionSaldosAFavor (SaldoAFavor, Año,
//!    RemanenteSalFav), at most the ISR withheld from all workers in the target period (Art. 97:
//!    "deberá compensarse contra la retención del mes de diciembre y las retenciones
//!    sucesivas"); the rest is carried as RemanenteSalFav.
//!
//! A minimum-wage worker's balance due is never withheld from a minimum-wage receipt (LFT Art.
//! 97; open question §9.4): it is reported as carried.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::Serialize;
use time::Date;

use crate::antiguedad::primero_de_enero;
use crate::calculo::isr_tarifa;
use crate::centavos;
use crate::parametros::{SinParametros, TARIFAS, TablaIsr, VigenciaTarifa};

/// Art. 97 fr. II LISR: income limit for the employer's adjustment.
pub const LIMITE_INGRESOS: Decimal = dec!(400000.00);

/// c_TipoOtroPago 004, Aplicación de saldo a favor por compensación anual.
pub const TIPO_OTRO_PAGO_SALDO_A_FAVOR: &str = "004";

/// c_TipoDeduccion 002, ISR (the balance due, Concepto "ISR ajuste anual").
pub const TIPO_DEDUCCION_ISR: &str = "002";

/// What a stamped receipt contributes to the adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReciboAnual {
    /// FechaPago of the receipt.
    pub fecha_pago: Date,
    /// Σ ImporteGravado of its perceptions other than 022, 023 and 025.
    pub gravado: Decimal,
    /// Σ ImporteExento of those perceptions.
    pub exento: Decimal,
    /// Σ ImporteGravado + ImporteExento of 022, 023 and 025 (for the 400,000 limit only).
    pub separacion: Decimal,
    /// Deduccion 002 withheld, without the ISR on separation pay.
    pub isr_retenido: Decimal,
    /// Subsidy applied against ISR in the receipt.
    pub subsidio_aplicado: Decimal,
}

/// What the adjustment of one worker depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntradaAjuste {
    /// The ejercicio adjusted.
    pub ejercicio: i32,
    /// Hire date.
    pub fecha_alta: Date,
    /// Exit date, if any.
    pub fecha_baja: Option<Date>,
    /// The worker said in writing they file their own return (Art. 98 III).
    pub presenta_declaracion: bool,
    /// The worker earns the minimum wage: a balance due is carried, never withheld.
    pub salario_minimo: bool,
    /// ISR withheld from all workers in the target period: the most a balance in favour can be
    /// paid now. `None`: no limit.
    pub tope_compensacion: Option<Decimal>,
}

/// Why Art. 97 leaves a worker out of the employer's adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NoAjusta {
    /// fr. I: started after 1 January.
    IngresoPosteriorAlPrimeroDeEnero,
    /// fr. I: stopped before 1 December.
    BajaAntesDeDiciembre,
    /// fr. II: more than 400,000.00 of income, exempt included.
    IngresosMayoresA400000,
    /// fr. III: files their own return.
    PresentaDeclaracion,
}

/// Bad input for an adjustment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorAjuste {
    /// No stamped receipt with FechaPago in the ejercicio (§4.5).
    #[error("no hay recibos timbrados del ejercicio {0}")]
    SinRecibos(i32),
    /// No annual tariff for the ejercicio.
    #[error(transparent)]
    SinParametros(#[from] SinParametros),
}

/// The balance of the adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "tipo")]
pub enum Saldo {
    /// Nothing to withhold or return.
    Cero,
    /// Balance due: Deduccion 002 "ISR ajuste anual".
    ACargo {
        /// The balance.
        #[serde(with = "rust_decimal::serde::arbitrary_precision")]
        saldo: Decimal,
        /// Withheld in the target period (0 for a minimum-wage worker).
        #[serde(with = "rust_decimal::serde::arbitrary_precision")]
        retener: Decimal,
        /// Carried to later periods.
        #[serde(with = "rust_decimal::serde::arbitrary_precision")]
        diferido: Decimal,
    },
    /// Balance in favour: OtroPago 004 with CompensacionSaldosAFavor.
    AFavor {
        /// SaldoAFavor.
        #[serde(with = "rust_decimal::serde::arbitrary_precision")]
        saldo: Decimal,
        /// OtroPago Importe, ≤ SaldoAFavor.
        #[serde(with = "rust_decimal::serde::arbitrary_precision")]
        importe: Decimal,
        /// RemanenteSalFav = SaldoAFavor − Importe.
        #[serde(with = "rust_decimal::serde::arbitrary_precision")]
        remanente: Decimal,
        /// Año (the ejercicio).
        anio: i32,
    },
}

/// The adjustment of one worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AjusteAnual {
    /// The ejercicio.
    pub ejercicio: i32,
    /// Receipts of the ejercicio counted.
    pub recibos: usize,
    /// Y, the taxable income of the year.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingreso_gravado: Decimal,
    /// All income of the year (gravado + exento + separation) for the 400,000 limit.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingresos_totales: Decimal,
    /// ISR anual = round2(f_anual(Y)).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr_anual: Decimal,
    /// Subsidy credited (applied in the receipts).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub subsidio_acreditado: Decimal,
    /// max(0, ISR anual − subsidy).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr_a_cargo: Decimal,
    /// ISR withheld in the receipts.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr_retenido: Decimal,
    /// isr_a_cargo − isr_retenido.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub diferencia: Decimal,
    /// The balance and what the target receipt carries.
    pub saldo: Saldo,
}

/// The result: adjusted, or left out by Art. 97 with every reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "resultado")]
pub enum ResultadoAjuste {
    /// The employer adjusts the worker.
    Ajustado(AjusteAnual),
    /// The employer does not adjust the worker.
    NoAjusta {
        /// Every reason that applies.
        motivos: Vec<NoAjusta>,
    },
}

/// The Art. 152 annual tariff edition for an ejercicio (the one in force on 31 December).
///
/// # Errors
/// [`SinParametros`] when no edition with an annual table covers that date (before 2026: the
/// brief gives only the first and last rows of the 2023–2025 annual tariff).
pub fn tarifa_anual(ejercicio: i32) -> Result<&'static VigenciaTarifa, SinParametros> {
    let fecha = crate::antiguedad::fin_de_anio(ejercicio);
    TARIFAS
        .iter()
        .rev()
        .find(|t| t.desde <= fecha && t.hasta.is_none_or(|h| fecha <= h) && t.anual.is_some())
        .ok_or(SinParametros { serie: "tarifa anual ISR (Art. 152)", fecha })
}

/// Art. 97 eligibility reasons that can be decided before the receipts are summed.
fn motivos_fijos(e: &EntradaAjuste) -> Vec<NoAjusta> {
    let mut motivos = Vec::new();
    if e.fecha_alta > primero_de_enero(e.ejercicio) {
        motivos.push(NoAjusta::IngresoPosteriorAlPrimeroDeEnero);
    }
    let diciembre = Date::from_calendar_date(e.ejercicio, time::Month::December, 1).unwrap_or(Date::MAX);
    if e.fecha_baja.is_some_and(|b| b < diciembre) {
        motivos.push(NoAjusta::BajaAntesDeDiciembre);
    }
    if e.presenta_declaracion {
        motivos.push(NoAjusta::PresentaDeclaracion);
    }
    motivos
}

/// Computes the annual adjustment of one worker from the receipts stamped for them; receipts
/// with FechaPago outside the ejercicio are ignored.
///
/// # Errors
/// [`ErrorAjuste::SinRecibos`] when no receipt falls in the ejercicio, and
/// [`ErrorAjuste::SinParametros`] when the ejercicio has no annual tariff.
pub fn calcular_ajuste_anual(e: &EntradaAjuste, recibos: &[ReciboAnual]) -> Result<ResultadoAjuste, ErrorAjuste> {
    let del_ejercicio: Vec<&ReciboAnual> = recibos.iter().filter(|r| r.fecha_pago.year() == e.ejercicio).collect();
    if del_ejercicio.is_empty() {
        return Err(ErrorAjuste::SinRecibos(e.ejercicio));
    }
    let tarifa = tarifa_anual(e.ejercicio)?;
    let suma = |campo: fn(&ReciboAnual) -> Decimal| -> Decimal { del_ejercicio.iter().map(|r| campo(r)).sum() };
    let ingreso_gravado = suma(|r| r.gravado);
    let ingresos_totales = ingreso_gravado + suma(|r| r.exento) + suma(|r| r.separacion);

    let mut motivos = motivos_fijos(e);
    if ingresos_totales > LIMITE_INGRESOS {
        motivos.push(NoAjusta::IngresosMayoresA400000);
    }
    if !motivos.is_empty() {
        return Ok(ResultadoAjuste::NoAjusta { motivos });
    }

    let isr_anual = isr_tarifa(tarifa, TablaIsr::Anual, ingreso_gravado).isr;
    let subsidio_acreditado = suma(|r| r.subsidio_aplicado);
    let isr_a_cargo = (isr_anual - subsidio_acreditado).max(Decimal::ZERO);
    let isr_retenido = suma(|r| r.isr_retenido);
    let diferencia = isr_a_cargo - isr_retenido;
    let saldo = if diferencia > Decimal::ZERO {
        let retener = if e.salario_minimo { Decimal::ZERO } else { diferencia };
        Saldo::ACargo {
            saldo: centavos(diferencia),
            retener: centavos(retener),
            diferido: centavos(diferencia - retener),
        }
    } else if diferencia < Decimal::ZERO {
        let saldo = -diferencia;
        let importe = e.tope_compensacion.map_or(saldo, |tope| saldo.min(tope.max(Decimal::ZERO)));
        Saldo::AFavor {
            saldo: centavos(saldo),
            importe: centavos(importe),
            remanente: centavos(saldo - importe),
            anio: e.ejercicio,
        }
    } else {
        Saldo::Cero
    };
    Ok(ResultadoAjuste::Ajustado(AjusteAnual {
        ejercicio: e.ejercicio,
        recibos: del_ejercicio.len(),
        ingreso_gravado: centavos(ingreso_gravado),
        ingresos_totales: centavos(ingresos_totales),
        isr_anual: centavos(isr_anual),
        subsidio_acreditado: centavos(subsidio_acreditado),
        isr_a_cargo: centavos(isr_a_cargo),
        isr_retenido: centavos(isr_retenido),
        diferencia: centavos(diferencia),
        saldo,
    }))
}

#[cfg(test)]
#[path = "ajuste_anual_tests.rs"]
mod tests;
