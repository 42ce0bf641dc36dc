//! Aguinaldo (gratificación anual), PAYROLL_EXTRAS_2026.md §1.
//!
//! * **LFT Art. 87**: at least 15 days of salary, paid before 20 December; whoever did not
//!   complete the year, still employed or not, gets the part proportional to the time worked.
//! * **Amount** (Convention §1.2): `round2(salario diario × días de aguinaldo × días trabajados /
//!   365)` in one step (the days are never rounded first). Días trabajados run from max(hire
//!   date, 1 January) to 31 December, or to the exit date in a finiquito, both included, capped
//!   at 365. Unjustified absences are not deducted (open question §9.2).
//! * **Exemption, Art. 93 fr. XIV LISR**: up to 30 days of the general minimum wage, read as
//!   30 UMA since the 2016 desindexation, with the UMA in force on the payment date (3,519.30
//!   for a 2026 payment). A second payment in the same year only has what remains of it.
//! * **ISR**: ART96 or RLISR174 ([`crate::isr_extraordinario`]); the subsidy plays no part.
//! * **CFDI**: TipoNomina E, PeriodicidadPago 99, Percepcion 002 (§1.6); ISR in Deduccion 002.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::Serialize;
use time::Date;

use crate::antiguedad::{dias_en_el_anio, fin_de_anio};
use crate::centavos;
use crate::isr_extraordinario::{IsrExtraordinario, MetodoIsr, ingreso_mensual_ordinario, isr_extraordinario};
use crate::parametros::{Parametros, SinParametros};

/// Percepción 002, Gratificación Anual (Aguinaldo), c_TipoPercepcion.
pub const TIPO_PERCEPCION: &str = "002";

/// LFT Art. 87: at least 15 days of salary.
pub const DIAS_MINIMOS: u32 = 15;

/// Art. 93 fr. XIV LISR: aguinaldo exempt up to 30 UMA.
pub const UMAS_EXENTAS: Decimal = dec!(30);

/// What the aguinaldo of one worker depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntradaAguinaldo {
    /// Cuota diaria on the payment date.
    pub salario_diario: Decimal,
    /// The company's `diasAguinaldo` (≥ 15).
    pub dias_aguinaldo: u32,
    /// Hire date (fechaInicioRelLaboral).
    pub fecha_alta: Date,
    /// Exit date, for a finiquito; `None` counts to 31 December of the payment year.
    pub fecha_baja: Option<Date>,
    /// Payment date: its year is the aguinaldo's year, its UMA sets the exemption.
    pub fecha_pago: Date,
    /// Aguinaldo exemption already used by earlier payments of the same year (a supplement
    /// after a salary change, §1.6). Usually 0.
    pub exento_previo: Decimal,
}

/// Bad input for an aguinaldo.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorAguinaldo {
    /// The daily wage is zero or negative.
    #[error("el salario diario debe ser mayor que cero")]
    SalarioNoPositivo,
    /// Fewer than the 15 days of LFT Art. 87.
    #[error("los días de aguinaldo deben ser al menos 15 (LFT Art. 87), no {0}")]
    DiasInsuficientes(u32),
    /// The worker was hired after the cut-off date (31 December or the exit).
    #[error("la fecha de alta {alta} es posterior a la fecha de corte {corte}")]
    AltaPosterior {
        /// Hire date.
        alta: Date,
        /// 31 December or the exit date.
        corte: Date,
    },
    /// The exit date is not in the payment year.
    #[error("la baja {0} no es del año del pago")]
    BajaFueraDelAnio(Date),
    /// No UMA or tariff for the payment date.
    #[error(transparent)]
    SinParametros(#[from] SinParametros),
}

/// One worker's aguinaldo with its pieces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Aguinaldo {
    /// Days worked in the year that the amount is proportional to.
    pub dias_trabajados: u32,
    /// Days of aguinaldo for a full year.
    pub dias_aguinaldo: u32,
    /// Amount (Percepcion 002, ImporteGravado + ImporteExento).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub importe: Decimal,
    /// ImporteExento (Art. 93 fr. XIV LISR).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub exento: Decimal,
    /// ImporteGravado.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gravado: Decimal,
    /// The ISR by both methods.
    pub isr_metodos: IsrExtraordinario,
    /// The method applied.
    pub metodo: MetodoIsr,
    /// ISR withheld (Deduccion 002) by `metodo`.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr: Decimal,
    /// importe − isr.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub neto: Decimal,
}

/// `round2(salario diario × días de aguinaldo × días trabajados / 365)` (§1.2), in one step.
pub fn importe_proporcional(salario_diario: Decimal, dias_aguinaldo: u32, dias_trabajados: u32) -> Decimal {
    centavos(salario_diario * Decimal::from(dias_aguinaldo) * Decimal::from(dias_trabajados) / Decimal::from(365))
}

/// Splits an aguinaldo into (exento, gravado) under Art. 93 fr. XIV LISR: 30 UMA of the payment
/// date less what earlier payments of the year exempted.
pub fn exento_gravado(importe: Decimal, uma_diaria: Decimal, exento_previo: Decimal) -> (Decimal, Decimal) {
    let disponible = (UMAS_EXENTAS * uma_diaria - exento_previo).max(Decimal::ZERO);
    let exento = centavos(importe.min(disponible));
    (exento, centavos(importe - exento))
}

/// Calculates one worker's aguinaldo, its exemption and its ISR by `metodo`.
///
/// # Errors
/// [`ErrorAguinaldo`] on a wage ≤ 0, fewer than 15 days, a hire date after the cut-off, an exit
/// outside the payment year, or a payment date without parameters.
pub fn calcular_aguinaldo(entrada: &EntradaAguinaldo, metodo: MetodoIsr) -> Result<Aguinaldo, ErrorAguinaldo> {
    if entrada.salario_diario <= Decimal::ZERO {
        return Err(ErrorAguinaldo::SalarioNoPositivo);
    }
    if entrada.dias_aguinaldo < DIAS_MINIMOS {
        return Err(ErrorAguinaldo::DiasInsuficientes(entrada.dias_aguinaldo));
    }
    let anio = entrada.fecha_pago.year();
    let corte = match entrada.fecha_baja {
        Some(baja) if baja.year() != anio => return Err(ErrorAguinaldo::BajaFueraDelAnio(baja)),
        Some(baja) => baja,
        None => fin_de_anio(anio),
    };
    if entrada.fecha_alta > corte {
        return Err(ErrorAguinaldo::AltaPosterior { alta: entrada.fecha_alta, corte });
    }
    let parametros = Parametros::vigentes(entrada.fecha_pago)?;
    let dias_trabajados = dias_en_el_anio(entrada.fecha_alta, corte);
    let importe = importe_proporcional(entrada.salario_diario, entrada.dias_aguinaldo, dias_trabajados);
    let (exento, gravado) = exento_gravado(importe, parametros.uma.diaria, entrada.exento_previo);
    let isr_metodos = isr_extraordinario(parametros.tarifa, ingreso_mensual_ordinario(entrada.salario_diario), gravado);
    let isr = isr_metodos.del_metodo(metodo);
    Ok(Aguinaldo {
        dias_trabajados,
        dias_aguinaldo: entrada.dias_aguinaldo,
        importe,
        exento,
        gravado,
        isr_metodos,
        metodo,
        isr,
        neto: importe - isr,
    })
}

#[cfg(test)]
#[path = "aguinaldo_tests.rs"]
mod tests;
