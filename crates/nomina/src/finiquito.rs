//! Finiquito and liquidación for a baja, PAYROLL_EXTRAS_2026.md §3.
//!
//! Items (§3.1), each with its c_TipoPercepcion:
//! * salary owed, LFT Arts. 82–88: SD × days not yet paid, **001**, taxable;
//! * proportional aguinaldo, LFT Art. 87, to the exit date ([`crate::aguinaldo`]), **002**,
//!   30 UMA exempt (Art. 93 XIV LISR);
//! * vacations owed, LFT Arts. 76 and 79: SD × (days of service year Y+1 × d/365 + pending
//!   days), **001** (Concepto "Vacaciones no disfrutadas"), taxable;
//! * prima vacacional, LFT Art. 80 (≥ 25 %) of that vacation pay, **021**, 15 UMA exempt;
//! * prima de antigüedad, LFT Arts. 162, 485, 486: 12 days × años × min(max(SD, SM), 2 SM) with
//!   the zone's minimum wage at the exit date (never the UMA: Const. 123-A VI), **022**;
//! * indemnización, LFT Arts. 48, 50, 89: 90 × SDI + 20 × años × SDI, **025**;
//! * an agreed gratificación for the separation, **023**.
//!
//! Which apply by motivo (§3.2): the prima de antigüedad on RENUNCIA and MUTUO_ACUERDO only
//! with at least 15 years (Art. 162 III), always on DESPIDO_JUSTIFICADO, DESPIDO_INJUSTIFICADO,
//! MUERTE and INCAPACIDAD (Art. 162 V, Art. 54); the indemnización only on
//! DESPIDO_INJUSTIFICADO (liquidación) and MUTUO_ACUERDO when `incluir_indemnizacion` is set
//! (3 months + 20 days per year, as the issue says; the legal qualification is the user's).
//!
//! Taxes (§3.5): 022, 023 and 025 share an exemption of 90 UMA × NumAñosServicio (Art. 93
//! XIII LISR), applied to 022, then 023, then 025. The taxable separation pay is withheld at the
//! rate of the último sueldo mensual ordinario U = SD × 30 (Art. 96 LISR last paragraphs):
//! `round2(f(U)/U × gravado)`, or `round2(f(U + gravado) − f(U))` when the taxable part is less
//! than U. The other items are taxed with the company's method: with ART96 all added to
//! O = SD × 30.4; with RLISR174 salary and vacations by ART96 and aguinaldo and prima
//! vacacional each by Art. 174 RLISR. No subsidy in a finiquito receipt.
//!
//! Nómina 1.2 `SeparacionIndemnizacion` (§3.6): TotalPagado = Σ 022, 023, 025;
//! NumAñosServicio; UltimoSueldoMensOrd = U; IngresoAcumulable = min(gravado, U) (Art. 95
//! LISR as practised, §8); IngresoNoAcumulable = gravado − IngresoAcumulable.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::{Deserialize, Serialize};
use time::Date;

use crate::aguinaldo::{self, ErrorAguinaldo};
use crate::antiguedad::{antiguedad, dias_en_el_anio, dias_vacaciones};
use crate::calculo::isr_exacto;
use crate::entrada::Zona;
use crate::isr_extraordinario::{MetodoIsr, diferencia_art96, ingreso_mensual_ordinario, tasa_rlisr174};
use crate::parametros::{Parametros, SinParametros, TablaIsr};
use crate::{centavos, redondear};

/// Why the labour relationship ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MotivoBaja {
    /// Voluntary resignation.
    Renuncia,
    /// Dismissal with cause (rescisión, LFT Art. 47).
    DespidoJustificado,
    /// Dismissal without cause (LFT Art. 48): a liquidación when the indemnización is included.
    DespidoInjustificado,
    /// Agreed termination (treated as voluntary for the prima de antigüedad).
    MutuoAcuerdo,
    /// Death of the worker (LFT Art. 162 V).
    Muerte,
    /// Incapacity (LFT Art. 54, Art. 162).
    Incapacidad,
}

impl MotivoBaja {
    /// Whether the prima de antigüedad is owed after `anios_cumplidos` years (LFT Art. 162 III:
    /// voluntary separations need at least 15 years).
    pub fn prima_antiguedad_procede(self, anios_cumplidos: u32) -> bool {
        match self {
            Self::Renuncia | Self::MutuoAcuerdo => anios_cumplidos >= 15,
            Self::DespidoJustificado | Self::DespidoInjustificado | Self::Muerte | Self::Incapacidad => true,
        }
    }

    /// Whether the indemnización is paid when the user asks for it (§3.2).
    pub fn indemnizacion_procede(self, incluir_indemnizacion: bool) -> bool {
        incluir_indemnizacion && matches!(self, Self::DespidoInjustificado | Self::MutuoAcuerdo)
    }

    /// IDSE causa de baja (§6.3, timbra's mapping): RENUNCIA 2 separación voluntaria,
    /// DESPIDO_JUSTIFICADO 8 rescisión, DESPIDO_INJUSTIFICADO and MUTUO_ACUERDO 6 otras,
    /// MUERTE 4 defunción. INCAPACIDAD is not in the brief's mapping; it uses 6 otras.
    pub fn causa_baja_imss(self) -> char {
        match self {
            Self::Renuncia => '2',
            Self::DespidoJustificado => '8',
            Self::Muerte => '4',
            Self::DespidoInjustificado | Self::MutuoAcuerdo | Self::Incapacidad => '6',
        }
    }
}

/// LFT Art. 162 fr. I: 12 days of salary per year of service.
pub const DIAS_PRIMA_ANTIGUEDAD_POR_ANIO: Decimal = dec!(12);
/// LFT Art. 50 fr. II: 20 days per year of service.
pub const DIAS_INDEMNIZACION_POR_ANIO: Decimal = dec!(20);
/// LFT Art. 48 / Const. 123-A XXII: three months of salary, as 90 days.
pub const DIAS_INDEMNIZACION_CONSTITUCIONAL: Decimal = dec!(90);
/// Art. 93 fr. XIII LISR: separation pay exempt up to 90 UMA per year of service.
pub const UMAS_EXENTAS_POR_ANIO: Decimal = dec!(90);
/// Art. 93 fr. XIV LISR: prima vacacional exempt up to 15 UMA.
pub const UMAS_EXENTAS_PRIMA_VACACIONAL: Decimal = dec!(15);
/// LFT Art. 80: prima vacacional of at least 25 %.
pub const PRIMA_VACACIONAL_MINIMA: Decimal = dec!(0.25);

/// What a settlement depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntradaFiniquito {
    /// Cuota diaria at the exit date.
    pub salario_diario: Decimal,
    /// Salario diario integrado (Art. 89 LFT base of the indemnización).
    pub salario_diario_integrado: Decimal,
    /// Hire date (fechaInicioRelLaboral).
    pub fecha_alta: Date,
    /// Exit date.
    pub fecha_baja: Date,
    /// Payment date, on or after the exit (its UMA sets the exemptions, its tariff the ISR).
    pub fecha_pago: Date,
    /// Why the relationship ended.
    pub motivo: MotivoBaja,
    /// Pay the indemnización (3 months + 20 days per year) when the motivo allows it.
    pub incluir_indemnizacion: bool,
    /// The company's days of aguinaldo (≥ 15).
    pub dias_aguinaldo: u32,
    /// The company's prima vacacional as a fraction (≥ 0.25).
    pub prima_vacacional: Decimal,
    /// Days of salary not yet paid up to the exit.
    pub dias_sueldo_pendientes: Decimal,
    /// Vacation days of earlier service years not yet enjoyed (default 0; LFT Arts. 81, 516).
    pub dias_vacaciones_pendientes: Decimal,
    /// An agreed separation gratificación (023), 0 if none.
    pub gratificacion_separacion: Decimal,
    /// Minimum-wage zone (the prima de antigüedad cap).
    pub zona: Zona,
    /// The company's ISR method for extraordinary payments.
    pub metodo: MetodoIsr,
}

/// Bad input for a settlement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorFiniquito {
    /// The exit date is before the hire date (§3.8).
    #[error("la fecha de baja {baja} es anterior a la fecha de alta {alta}")]
    BajaAntesDelAlta {
        /// Hire date.
        alta: Date,
        /// Exit date.
        baja: Date,
    },
    /// A wage ≤ 0, or an SDI below the SD.
    #[error("salario diario o integrado inválido")]
    SalarioInvalido,
    /// A prima vacacional below 25 % (LFT Art. 80).
    #[error("la prima vacacional debe ser al menos 25 % (LFT Art. 80)")]
    PrimaVacacionalInsuficiente,
    /// A negative number of days or amount.
    #[error("días o importes negativos")]
    Negativo,
    /// Payment date before the exit.
    #[error("la fecha de pago {pago} es anterior a la baja {baja}")]
    FechaPago {
        /// Payment date.
        pago: Date,
        /// Exit date.
        baja: Date,
    },
    /// The aguinaldo's own checks (days < 15).
    #[error(transparent)]
    Aguinaldo(#[from] ErrorAguinaldo),
    /// No parameters for the payment date.
    #[error(transparent)]
    SinParametros(#[from] SinParametros),
}

/// One perception line of the settlement receipt (Nómina 1.2 Percepcion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaFiniquito {
    /// c_TipoPercepcion.
    pub tipo: &'static str,
    /// Concepto.
    pub concepto: &'static str,
    /// ImporteGravado.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gravado: Decimal,
    /// ImporteExento.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub exento: Decimal,
}

impl LineaFiniquito {
    /// gravado + exento.
    pub fn importe(&self) -> Decimal {
        self.gravado + self.exento
    }
}

/// Nómina 1.2 `SeparacionIndemnizacion`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeparacionIndemnizacion {
    /// TotalPagado: Σ 022, 023 and 025 (= Percepciones/@TotalSeparacionIndemnizacion).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_pagado: Decimal,
    /// NumAñosServicio.
    pub num_anios_servicio: u32,
    /// UltimoSueldoMensOrd: U = SD × 30.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ultimo_sueldo_mens_ord: Decimal,
    /// IngresoAcumulable: min(taxable separation pay, U).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingreso_acumulable: Decimal,
    /// IngresoNoAcumulable: taxable separation pay − IngresoAcumulable.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingreso_no_acumulable: Decimal,
}

/// The settlement with every piece.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finiquito {
    /// Y, anniversaries reached.
    pub anios_cumplidos: u32,
    /// d, days since the last anniversary (both ends included).
    pub dias_ultimo_anio: u32,
    /// Y + d/365, unrounded.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub anios_servicio: Decimal,
    /// NumAñosServicio.
    pub num_anios_servicio: u32,
    /// Days worked in the exit year (the aguinaldo's proportion).
    pub dias_aguinaldo_trabajados: u32,
    /// Vacation days owed, unrounded: days of year Y+1 × d/365 + pending.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub dias_vacaciones: Decimal,
    /// Salary owed (001).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub sueldo_pendiente: Decimal,
    /// Proportional aguinaldo (002).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub aguinaldo: Decimal,
    /// Vacations owed (001).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub vacaciones: Decimal,
    /// Prima vacacional (021).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub prima_vacacional: Decimal,
    /// Daily salary base of the prima de antigüedad: min(max(SD, SM), 2 SM).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub salario_prima_antiguedad: Decimal,
    /// Prima de antigüedad (022), 0 when not owed.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub prima_antiguedad: Decimal,
    /// The 90 days of the indemnización, rounded (shown).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub indemnizacion_tres_meses: Decimal,
    /// The 20 days per year, rounded (shown).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub indemnizacion_veinte_dias: Decimal,
    /// Indemnización (025), rounded once; 0 when not paid.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub indemnizacion: Decimal,
    /// Agreed gratificación (023).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gratificacion_separacion: Decimal,
    /// The separation exemption: 90 UMA × NumAñosServicio.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub exento_separacion_maximo: Decimal,
    /// Taxable separation pay.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gravado_separacion: Decimal,
    /// f(U)/U, unrounded (0 without separation pay).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub tasa_separacion: Decimal,
    /// ISR on the separation pay.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr_separacion: Decimal,
    /// ISR on the other items by the company's method.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr_ordinario: Decimal,
    /// Deduccion 002: isr_separacion + isr_ordinario.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr: Decimal,
    /// Σ perceptions.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_percepciones: Decimal,
    /// Σ 022, 023, 025 (TotalSeparacionIndemnizacion).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_separacion: Decimal,
    /// total_percepciones − isr.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub neto: Decimal,
    /// The receipt's Percepcion lines; items of zero get no line (Revision E, §7).
    pub percepciones: Vec<LineaFiniquito>,
    /// Present when a 022, 023 or 025 line exists.
    pub separacion: Option<SeparacionIndemnizacion>,
}

/// ISR on separation pay (Art. 96 LISR last paragraphs): at the rate f(U)/U of the last
/// ordinary monthly salary, or by adding to U when the taxable part is less than U. Returns
/// (rate, ISR rounded).
pub fn isr_separacion(
    tarifa: &crate::parametros::VigenciaTarifa,
    ultimo_sueldo: Decimal,
    gravado: Decimal,
) -> (Decimal, Decimal) {
    if gravado <= Decimal::ZERO || ultimo_sueldo <= Decimal::ZERO {
        return (Decimal::ZERO, centavos(Decimal::ZERO));
    }
    let tasa = isr_exacto(tarifa, TablaIsr::Mensual, ultimo_sueldo) / ultimo_sueldo;
    let isr = if gravado < ultimo_sueldo {
        // "les será aplicable el procedimiento establecido en este artículo".
        diferencia_art96(tarifa, ultimo_sueldo, gravado)
    } else {
        tasa * gravado
    };
    (tasa, centavos(isr))
}

/// Calculates the settlement of a baja.
///
/// # Errors
/// [`ErrorFiniquito`] on an exit before the hire date, wages ≤ 0 or an SDI below the SD, a prima
/// vacacional under 25 %, negative days or amounts, a payment date before the exit, fewer than 15 days of aguinaldo, or a date without parameters.
pub fn calcular_finiquito(e: &EntradaFiniquito) -> Result<Finiquito, ErrorFiniquito> {
    let Some(ant) = antiguedad(e.fecha_alta, e.fecha_baja) else {
        return Err(ErrorFiniquito::BajaAntesDelAlta { alta: e.fecha_alta, baja: e.fecha_baja });
    };
    if e.salario_diario <= Decimal::ZERO || e.salario_diario_integrado < e.salario_diario {
        return Err(ErrorFiniquito::SalarioInvalido);
    }
    if e.prima_vacacional < PRIMA_VACACIONAL_MINIMA {
        return Err(ErrorFiniquito::PrimaVacacionalInsuficiente);
    }
    if e.dias_sueldo_pendientes < Decimal::ZERO
        || e.dias_vacaciones_pendientes < Decimal::ZERO
        || e.gratificacion_separacion < Decimal::ZERO
    {
        return Err(ErrorFiniquito::Negativo);
    }
    if e.fecha_pago < e.fecha_baja {
        return Err(ErrorFiniquito::FechaPago { pago: e.fecha_pago, baja: e.fecha_baja });
    }
    let parametros = Parametros::vigentes(e.fecha_pago)?;
    let uma = parametros.uma.diaria;
    let sd = e.salario_diario;

    // 001: salary owed.
    let sueldo_pendiente = centavos(sd * e.dias_sueldo_pendientes);

    // 002: proportional aguinaldo to the exit date (LFT Art. 87), 30 UMA exempt.
    let dias_aguinaldo_trabajados = dias_en_el_anio(e.fecha_alta, e.fecha_baja);
    if e.dias_aguinaldo < aguinaldo::DIAS_MINIMOS {
        return Err(ErrorAguinaldo::DiasInsuficientes(e.dias_aguinaldo).into());
    }
    let aguinaldo_importe = aguinaldo::importe_proporcional(sd, e.dias_aguinaldo, dias_aguinaldo_trabajados);
    let (aguinaldo_exento, aguinaldo_gravado) = aguinaldo::exento_gravado(aguinaldo_importe, uma, Decimal::ZERO);

    // 001 and 021: vacations of service year Y+1 in proportion to d/365 (LFT Arts. 76, 79),
    // plus pending ones, and their prima (Art. 80) on the unrounded pay.
    let dias_vac = Decimal::from(dias_vacaciones(ant.anios_cumplidos + 1)) * Decimal::from(ant.dias)
        / Decimal::from(365)
        + e.dias_vacaciones_pendientes;
    let pago_vacaciones = sd * dias_vac;
    let vacaciones = centavos(pago_vacaciones);
    let prima_vacacional = centavos(pago_vacaciones * e.prima_vacacional);
    let prima_exento = centavos(prima_vacacional.min(UMAS_EXENTAS_PRIMA_VACACIONAL * uma));
    let prima_gravado = prima_vacacional - prima_exento;

    // 022: prima de antigüedad, 12 days per year on the cuota diaria between the zone's SM and
    // twice it (LFT Arts. 162, 485, 486).
    let sm = match e.zona {
        Zona::General => parametros.salario_minimo.general,
        Zona::Frontera => parametros.salario_minimo.frontera,
    };
    let salario_prima = sd.max(sm).min(dec!(2) * sm);
    let prima_antiguedad = if e.motivo.prima_antiguedad_procede(ant.anios_cumplidos) {
        centavos(DIAS_PRIMA_ANTIGUEDAD_POR_ANIO * ant.anios * salario_prima)
    } else {
        centavos(Decimal::ZERO)
    };

    // 025: indemnización on the SDI (LFT Art. 89), 90 days + 20 days per year.
    let (tres_meses, veinte_dias) = if e.motivo.indemnizacion_procede(e.incluir_indemnizacion) {
        (
            DIAS_INDEMNIZACION_CONSTITUCIONAL * e.salario_diario_integrado,
            DIAS_INDEMNIZACION_POR_ANIO * ant.anios * e.salario_diario_integrado,
        )
    } else {
        (Decimal::ZERO, Decimal::ZERO)
    };
    let indemnizacion = centavos(tres_meses + veinte_dias);
    let gratificacion = centavos(e.gratificacion_separacion);

    // Art. 93 fr. XIII LISR: 90 UMA per year of service over 022 + 023 + 025, in that order.
    let exento_separacion_maximo = centavos(UMAS_EXENTAS_POR_ANIO * uma * Decimal::from(ant.num_anios_servicio));
    let mut disponible = exento_separacion_maximo;
    let mut repartir = |importe: Decimal| {
        let exento = importe.min(disponible);
        disponible -= exento;
        (importe - exento, exento)
    };
    let (pa_gravado, pa_exento) = repartir(prima_antiguedad);
    let (gr_gravado, gr_exento) = repartir(gratificacion);
    let (in_gravado, in_exento) = repartir(indemnizacion);
    let total_separacion = prima_antiguedad + gratificacion + indemnizacion;
    let gravado_separacion = pa_gravado + gr_gravado + in_gravado;

    // Art. 96 last paragraphs: U = SD × 30 (§3.5, §8).
    let ultimo_sueldo = centavos(sd * dec!(30));
    let (tasa_separacion, isr_sep) = isr_separacion(parametros.tarifa, ultimo_sueldo, gravado_separacion);

    // The other items by the company's method, on O = SD × 30.4.
    let o = ingreso_mensual_ordinario(sd);
    let tarifa = parametros.tarifa;
    let isr_ordinario = centavos(match e.metodo {
        MetodoIsr::Art96 => {
            diferencia_art96(tarifa, o, sueldo_pendiente + vacaciones + aguinaldo_gravado + prima_gravado)
        }
        MetodoIsr::Rlisr174 => {
            diferencia_art96(tarifa, o, sueldo_pendiente + vacaciones)
                + tasa_rlisr174(tarifa, o, aguinaldo_gravado) * aguinaldo_gravado
                + tasa_rlisr174(tarifa, o, prima_gravado) * prima_gravado
        }
    });

    let candidatas = [
        ("001", "Sueldo pendiente", sueldo_pendiente, Decimal::ZERO),
        ("002", "Aguinaldo proporcional", aguinaldo_gravado, aguinaldo_exento),
        ("001", "Vacaciones no disfrutadas", vacaciones, Decimal::ZERO),
        ("021", "Prima vacacional", prima_gravado, prima_exento),
        ("022", "Prima de antigüedad", pa_gravado, pa_exento),
        ("023", "Pagos por separación", gr_gravado, gr_exento),
        ("025", "Indemnización", in_gravado, in_exento),
    ];
    let percepciones: Vec<LineaFiniquito> = candidatas
        .into_iter()
        .filter(|&(_, _, g, x)| !(g + x).is_zero())
        .map(|(tipo, concepto, g, x)| LineaFiniquito { tipo, concepto, gravado: centavos(g), exento: centavos(x) })
        .collect();
    let total_percepciones: Decimal = percepciones.iter().map(LineaFiniquito::importe).sum();
    let separacion = (!total_separacion.is_zero()).then(|| {
        let acumulable = gravado_separacion.min(ultimo_sueldo);
        SeparacionIndemnizacion {
            total_pagado: centavos(total_separacion),
            num_anios_servicio: ant.num_anios_servicio,
            ultimo_sueldo_mens_ord: ultimo_sueldo,
            ingreso_acumulable: centavos(acumulable),
            ingreso_no_acumulable: centavos(gravado_separacion - acumulable),
        }
    });
    let isr = isr_sep + isr_ordinario;

    Ok(Finiquito {
        anios_cumplidos: ant.anios_cumplidos,
        dias_ultimo_anio: ant.dias,
        anios_servicio: ant.anios,
        num_anios_servicio: ant.num_anios_servicio,
        dias_aguinaldo_trabajados,
        dias_vacaciones: dias_vac,
        sueldo_pendiente,
        aguinaldo: aguinaldo_importe,
        vacaciones,
        prima_vacacional,
        salario_prima_antiguedad: redondear(salario_prima),
        prima_antiguedad,
        indemnizacion_tres_meses: centavos(tres_meses),
        indemnizacion_veinte_dias: centavos(veinte_dias),
        indemnizacion,
        gratificacion_separacion: gratificacion,
        exento_separacion_maximo,
        gravado_separacion: centavos(gravado_separacion),
        tasa_separacion,
        isr_separacion: isr_sep,
        isr_ordinario,
        isr,
        total_percepciones: centavos(total_percepciones),
        total_separacion: centavos(total_separacion),
        neto: centavos(total_percepciones - isr),
        percepciones,
        separacion,
    })
}

#[cfg(test)]
#[path = "finiquito_tests.rs"]
mod tests;
