//! Response of `POST /api/nomina/calcular` (`data`), field for field as SPEC.md "Payroll",
//! plus extra breakdown under `desglose`. Amounts serialize as exact JSON numbers with two
//! decimals (`1234.50`), through serde_json `arbitrary_precision`, never `f64`.

use rust_decimal::Decimal;
use serde::Serialize;

use crate::entrada::{Periodicidad, Zona};

/// Serializes a `Decimal` as an exact JSON number.
mod numero {
    pub use rust_decimal::serde::arbitrary_precision::serialize;
}

/// The result of one gross-to-net calculation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultadoNomina {
    /// Perceptions.
    pub percepciones: Percepciones,
    /// Deductions.
    pub deducciones: Deducciones,
    /// Other payments (subsidy, reported at zero since 2024-05-01).
    pub otros_pagos: OtrosPagos,
    /// totalPercepciones − totalDeducciones + totalOtrosPagos.
    #[serde(serialize_with = "numero::serialize")]
    pub neto_a_pagar: Decimal,
    /// How the figures were reached.
    pub desglose: Desglose,
}

/// `percepciones` of the response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Percepciones {
    /// salarioDiario × diasPagados (perception 001).
    #[serde(serialize_with = "numero::serialize")]
    pub sueldo_base: Decimal,
    /// Σ taxable parts (sueldo base included).
    #[serde(serialize_with = "numero::serialize")]
    pub total_gravado: Decimal,
    /// Σ exempt parts.
    #[serde(serialize_with = "numero::serialize")]
    pub total_exento: Decimal,
    /// totalGravado + totalExento.
    #[serde(serialize_with = "numero::serialize")]
    pub total_percepciones: Decimal,
}

/// `deducciones` of the response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Deducciones {
    /// ISR by the tariff (cuotaFija + isrMarginal), before the subsidy.
    #[serde(serialize_with = "numero::serialize")]
    pub isr_bruto: Decimal,
    /// Subsidy applied against ISR: min(subsidioCausado, isrBruto).
    #[serde(serialize_with = "numero::serialize")]
    pub subsidio_al_empleo: Decimal,
    /// isrBruto − subsidioAlEmpleo (deduction 002).
    #[serde(serialize_with = "numero::serialize")]
    pub isr_retenido: Decimal,
    /// IMSS worker share withheld (deduction 001); 0 for minimum-wage workers.
    #[serde(serialize_with = "numero::serialize")]
    pub imss_empleado: Decimal,
    /// isrRetenido + imssEmpleado + Σ extra deductions.
    #[serde(serialize_with = "numero::serialize")]
    pub total_deducciones: Decimal,
}

/// `otrosPagos` of the response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtrosPagos {
    /// Subsidy paid in cash: always 0 since the decree of 2024-05-01 (OtroPago 002 Importe
    /// 0.00, with SubsidioCausado = `desglose.subsidioCausado`).
    #[serde(serialize_with = "numero::serialize")]
    pub subsidio_entregado: Decimal,
    /// Σ other payments.
    #[serde(serialize_with = "numero::serialize")]
    pub total_otros_pagos: Decimal,
}

/// IMSS worker quotas per branch, each rounded to centavos, then summed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImssDesglose {
    /// Enfermedad y maternidad: 0.40 % over 3 UMA (Art. 106 fr. II LSS), 0.25 % prestaciones en
    /// dinero (Art. 107), 0.375 % gastos médicos de pensionados (Art. 25).
    #[serde(serialize_with = "numero::serialize")]
    pub enfermedad_y_maternidad: Decimal,
    /// Invalidez y vida 0.625 % (Art. 147 LSS).
    #[serde(serialize_with = "numero::serialize")]
    pub invalidez_y_vida: Decimal,
    /// Cesantía en edad avanzada y vejez 1.125 % (Art. 168 fr. II LSS).
    #[serde(serialize_with = "numero::serialize")]
    pub cesantia_y_vejez: Decimal,
    /// Sum of the three branches.
    #[serde(serialize_with = "numero::serialize")]
    pub total: Decimal,
}

/// An extra perception with its taxable and exempt parts as used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DetallePercepcion {
    /// c_TipoPercepcion.
    pub tipo: String,
    /// Description.
    pub concepto: String,
    /// Amount.
    #[serde(serialize_with = "numero::serialize")]
    pub importe: Decimal,
    /// Taxable part.
    #[serde(serialize_with = "numero::serialize")]
    pub gravado: Decimal,
    /// Exempt part.
    #[serde(serialize_with = "numero::serialize")]
    pub exento: Decimal,
    /// True when the split was computed here with Art. 93 LISR (not sent by the caller).
    pub exento_calculado: bool,
}

/// `desglose` of the response: the SPEC.md fields first, then extra breakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Desglose {
    /// Taxable income the tariff was applied to (= totalGravado).
    #[serde(rename = "baseGravableISR", serialize_with = "numero::serialize")]
    pub base_gravable_isr: Decimal,
    /// Marginal rate of the row, e.g. `"10.88%"`; `"0.00%"` when no ISR applies.
    #[serde(rename = "rangoISR")]
    pub rango_isr: String,
    /// Cuota fija of the row.
    #[serde(serialize_with = "numero::serialize")]
    pub cuota_fija: Decimal,
    /// Base − límite inferior.
    #[serde(serialize_with = "numero::serialize")]
    pub excedente_lim_inf: Decimal,
    /// excedenteLimInf × rate, rounded.
    #[serde(serialize_with = "numero::serialize")]
    pub isr_marginal: Decimal,
    /// Subsidy caused for the period (Nómina 1.2 SubsidioAlEmpleo/@SubsidioCausado): the full
    /// prorated amount when the worker is eligible, else 0.
    #[serde(serialize_with = "numero::serialize")]
    pub subsidio_causado: Decimal,
    /// Worker quotas withheld, per branch.
    pub imss_desglose: ImssDesglose,

    /// Límite inferior of the row applied.
    #[serde(serialize_with = "numero::serialize")]
    pub limite_inferior: Decimal,
    /// Table used: "mensual" or "diaria x N".
    #[serde(rename = "tablaISR")]
    pub tabla_isr: String,
    /// Tariff edition, e.g. "Anexo 8 RMF 2026".
    #[serde(rename = "tarifaISR")]
    pub tarifa_isr: String,
    /// Days the subsidy and its cap were prorated by (÷ 30.4 × days); `null` for a full
    /// month, which gets the monthly figures.
    #[serde(serialize_with = "numero_opcional")]
    pub dias_subsidio: Option<Decimal>,
    /// Periodicity applied.
    pub periodicidad: Periodicidad,
    /// Zone applied.
    pub zona: Zona,
    /// Risk class (employer cost only; echoed for the receipt's RiesgoPuesto).
    pub riesgo_puesto: u8,
    /// Daily minimum wage of the zone.
    #[serde(serialize_with = "numero::serialize")]
    pub salario_minimo: Decimal,
    /// salarioDiario ≤ minimum wage: the IMSS worker share is paid by the employer (Art. 36
    /// LSS).
    pub salario_minimo_aplicado: bool,
    /// No ISR withheld under Art. 96 LISR (minimum wage and no other taxable pay).
    pub exento_isr_salario_minimo: bool,
    /// Worker quotas the employer pays instead of the worker (Art. 36 LSS); zero otherwise.
    pub imss_absorbido_por_patron: ImssDesglose,
    /// SBC used: salarioDiarioIntegrado capped at 25 UMA (Art. 28 LSS).
    #[serde(serialize_with = "numero::serialize")]
    pub salario_base_cotizacion: Decimal,
    /// Daily UMA in force.
    #[serde(serialize_with = "numero::serialize")]
    pub uma_diaria: Decimal,
    /// Monthly UMA in force.
    #[serde(serialize_with = "numero::serialize")]
    pub uma_mensual: Decimal,
    /// Monthly subsidy amount in force (percentage × monthly UMA).
    #[serde(serialize_with = "numero::serialize")]
    pub subsidio_mensual: Decimal,
    /// Taxable-income cap for the subsidy in this period.
    #[serde(serialize_with = "numero::serialize")]
    pub tope_ingreso_subsidio: Decimal,
    /// Σ extra deductions sent by the caller.
    #[serde(serialize_with = "numero::serialize")]
    pub otras_deducciones: Decimal,
    /// Extra perceptions with the split used.
    pub percepciones: Vec<DetallePercepcion>,
    /// Payment date whose parameters were used (YYYY-MM-DD).
    pub fecha_parametros: String,
}

fn numero_opcional<S: serde::Serializer>(valor: &Option<Decimal>, serializer: S) -> Result<S::Ok, S::Error> {
    match valor {
        Some(v) => numero::serialize(v, serializer),
        None => serializer.serialize_none(),
    }
}
