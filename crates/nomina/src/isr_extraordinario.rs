//! ISR on an extraordinary payment (aguinaldo, PTU, prima vacacional, the ordinary items of a
//! finiquito) by the two methods a company may choose, PAYROLL_EXTRAS_2026.md §1.4:
//!
//! * **ART96** (Art. 96 LISR): the taxable part is added to the month's ordinary income and the
//!   monthly tariff applied; the ISR is the difference, `round2(f(O + gravado) − f(O))`.
//! * **RLISR174** (Art. 174 RLISR, optional for gratificación anual, PTU, primas dominicales and
//!   vacacionales): I. `proporción = gravado / 365 × 30.4`; II. `f(O + proporción)`; III. minus
//!   `f(O)`; V. `tasa = diferencia / proporción`; IV. `ISR = round2(tasa × gravado)`. The rate is
//!   applied to the taxable part (common practice; §8 reading A).
//!
//! O, the ordinary monthly income, is `salario diario × 30.4` (the 30.4 of RLISR Art. 174 fr. I;
//! §8). `f` is the monthly Art. 96 tariff of the payment year, unrounded and before subsidy (the
//! monthly subsidy belongs to the month's ordinary payroll, PAYROLL_2026.md §2). Nothing is
//! rounded but the reported ISR (§0.3: rounding the rate to 4 decimals moves the ISR of a
//! 33,980.70 aguinaldo by up to 1.70).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::calculo::isr_exacto;
use crate::parametros::{DIAS_MES, TablaIsr, VigenciaTarifa};
use crate::{centavos, redondear};

/// The company setting `metodoIsrExtraordinario`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum MetodoIsr {
    /// Art. 96 LISR: add to the month's income, apply the tariff, take the difference.
    #[default]
    #[serde(rename = "ART96")]
    Art96,
    /// Art. 174 RLISR: the rate of the monthly proportion applied to the payment.
    #[serde(rename = "RLISR174")]
    Rlisr174,
}

/// The ordinary monthly income O = salario diario × 30.4 (Art. 174 fr. I RLISR; §1.4, §8).
pub fn ingreso_mensual_ordinario(salario_diario: Decimal) -> Decimal {
    salario_diario * DIAS_MES
}

/// `f(O + gravado) − f(O)` on the monthly tariff, unrounded (Art. 96 LISR).
pub fn diferencia_art96(tarifa: &VigenciaTarifa, ordinario: Decimal, gravado: Decimal) -> Decimal {
    if gravado <= Decimal::ZERO {
        return Decimal::ZERO;
    }
    isr_exacto(tarifa, TablaIsr::Mensual, ordinario + gravado) - isr_exacto(tarifa, TablaIsr::Mensual, ordinario)
}

/// The Art. 174 RLISR rate (fr. I–III and V) of a taxable payment, unrounded; 0 when nothing is
/// taxable.
pub fn tasa_rlisr174(tarifa: &VigenciaTarifa, ordinario: Decimal, gravado: Decimal) -> Decimal {
    if gravado <= Decimal::ZERO {
        return Decimal::ZERO;
    }
    // fr. I: the payment divided by 365 and multiplied by 30.4.
    let proporcion = gravado / Decimal::from(365) * DIAS_MES;
    // fr. II–III: the tax on O + proporción less the tax on O alone.
    let diferencia = diferencia_art96(tarifa, ordinario, proporcion);
    // fr. V: the difference over the proportion (× 100 as a percentage; the same number).
    diferencia / proporcion
}

/// Both methods for one taxable amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IsrExtraordinario {
    /// O, the ordinary monthly income used.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingreso_mensual_ordinario: Decimal,
    /// ISR by ART96, rounded.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub art96: Decimal,
    /// The Art. 174 rate, unrounded (a fraction: 0.1966952 is 19.67 %).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub tasa_rlisr174: Decimal,
    /// ISR by RLISR174, rounded.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub rlisr174: Decimal,
}

impl IsrExtraordinario {
    /// The ISR of the chosen method.
    pub fn del_metodo(&self, metodo: MetodoIsr) -> Decimal {
        match metodo {
            MetodoIsr::Art96 => self.art96,
            MetodoIsr::Rlisr174 => self.rlisr174,
        }
    }
}

/// ISR on `gravado` paid to a worker whose ordinary monthly income is `ordinario`, by both
/// methods, on the monthly tariff `tarifa` of the payment date.
pub fn isr_extraordinario(tarifa: &VigenciaTarifa, ordinario: Decimal, gravado: Decimal) -> IsrExtraordinario {
    let tasa = tasa_rlisr174(tarifa, ordinario, gravado);
    IsrExtraordinario {
        ingreso_mensual_ordinario: redondear(ordinario),
        art96: centavos(diferencia_art96(tarifa, ordinario, gravado)),
        tasa_rlisr174: tasa,
        rlisr174: centavos(tasa * gravado.max(Decimal::ZERO)),
    }
}
