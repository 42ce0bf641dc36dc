//! Legal parameters as data, each with its effective-date range, selected by the payment date.
//!
//! Every series (ISR tariff, UMA, minimum wage, subsidy decree) changes on its own date:
//! the tariff on 1 January (Anexo 8 RMF), the minimum wage on 1 January (CONASAMI), the UMA
//! on 1 February (INEGI, Art. 5 Ley para Determinar el Valor de la UMA) and the subsidy
//! percentage together with the UMA (its January figure is a transitory percentage of the old
//! UMA). To add 2027, append one row to each series below; no code changes.
//!
//! Sources: `shared/ref/PAYROLL_2026.md` §0–§3.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use time::Date;
use time::macros::date;

use crate::redondear;

/// One row of an ISR withholding tariff (Art. 96 LISR, Anexo 8 RMF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tramo {
    /// Límite inferior of the row.
    pub limite_inferior: Decimal,
    /// Límite superior; `None` for the last row ("en adelante").
    pub limite_superior: Option<Decimal>,
    /// Cuota fija of the row.
    pub cuota_fija: Decimal,
    /// Marginal rate as a percentage ("% sobre excedente del límite inferior"), e.g. `10.88`.
    pub porcentaje: Decimal,
}

const fn tramo(inferior: Decimal, superior: Decimal, cuota: Decimal, porcentaje: Decimal) -> Tramo {
    Tramo { limite_inferior: inferior, limite_superior: Some(superior), cuota_fija: cuota, porcentaje }
}

const fn ultimo(inferior: Decimal, cuota: Decimal, porcentaje: Decimal) -> Tramo {
    Tramo { limite_inferior: inferior, limite_superior: None, cuota_fija: cuota, porcentaje }
}

/// Monthly tariff 2026, Anexo 8 RMF 2026 (DOF 2025-12-28). PAYROLL_2026.md §1.1.
pub static TARIFA_MENSUAL_2026: [Tramo; 11] = [
    tramo(dec!(0.01), dec!(844.59), dec!(0.00), dec!(1.92)),
    tramo(dec!(844.60), dec!(7168.51), dec!(16.22), dec!(6.40)),
    tramo(dec!(7168.52), dec!(12598.02), dec!(420.95), dec!(10.88)),
    tramo(dec!(12598.03), dec!(14644.64), dec!(1011.68), dec!(16.00)),
    tramo(dec!(14644.65), dec!(17533.64), dec!(1339.14), dec!(17.92)),
    // The SAT prints 1,856.84 (annual 22,282.14 / 12 = 1,856.845); §1.1.
    tramo(dec!(17533.65), dec!(35362.83), dec!(1856.84), dec!(21.36)),
    tramo(dec!(35362.84), dec!(55736.68), dec!(5665.16), dec!(23.52)),
    tramo(dec!(55736.69), dec!(106410.50), dec!(10457.09), dec!(30.00)),
    tramo(dec!(106410.51), dec!(141880.66), dec!(25659.23), dec!(32.00)),
    tramo(dec!(141880.67), dec!(425641.99), dec!(37009.69), dec!(34.00)),
    ultimo(dec!(425642.00), dec!(133488.54), dec!(35.00)),
];

/// Daily tariff 2026, Anexo 8 RMF 2026. The 7-, 10- and 15-day tariffs that Anexo 8 prints are
/// this table × days (PAYROLL_2026.md §1.2, verified to the cent in the tests).
pub static TARIFA_DIARIA_2026: [Tramo; 11] = [
    tramo(dec!(0.01), dec!(27.78), dec!(0.00), dec!(1.92)),
    tramo(dec!(27.79), dec!(235.81), dec!(0.53), dec!(6.40)),
    tramo(dec!(235.82), dec!(414.41), dec!(13.85), dec!(10.88)),
    tramo(dec!(414.42), dec!(481.73), dec!(33.28), dec!(16.00)),
    tramo(dec!(481.74), dec!(576.76), dec!(44.05), dec!(17.92)),
    tramo(dec!(576.77), dec!(1163.25), dec!(61.08), dec!(21.36)),
    tramo(dec!(1163.26), dec!(1833.44), dec!(186.35), dec!(23.52)),
    tramo(dec!(1833.45), dec!(3500.35), dec!(343.98), dec!(30.00)),
    tramo(dec!(3500.36), dec!(4667.13), dec!(844.05), dec!(32.00)),
    tramo(dec!(4667.14), dec!(14001.38), dec!(1217.42), dec!(34.00)),
    ultimo(dec!(14001.39), dec!(4391.07), dec!(35.00)),
];

/// Monthly tariff in force 2023-01-01 to 2025-12-31 (Anexo 8 RMF 2023, unchanged through 2025).
/// PAYROLL_2026.md §1.7.
pub static TARIFA_MENSUAL_2023: [Tramo; 11] = [
    tramo(dec!(0.01), dec!(746.04), dec!(0.00), dec!(1.92)),
    tramo(dec!(746.05), dec!(6332.05), dec!(14.32), dec!(6.40)),
    tramo(dec!(6332.06), dec!(11128.01), dec!(371.83), dec!(10.88)),
    tramo(dec!(11128.02), dec!(12935.82), dec!(893.63), dec!(16.00)),
    tramo(dec!(12935.83), dec!(15487.71), dec!(1182.88), dec!(17.92)),
    tramo(dec!(15487.72), dec!(31236.49), dec!(1640.18), dec!(21.36)),
    tramo(dec!(31236.50), dec!(49233.00), dec!(5004.12), dec!(23.52)),
    tramo(dec!(49233.01), dec!(93993.90), dec!(9236.89), dec!(30.00)),
    tramo(dec!(93993.91), dec!(125325.20), dec!(22665.17), dec!(32.00)),
    tramo(dec!(125325.21), dec!(375975.61), dec!(32691.18), dec!(34.00)),
    ultimo(dec!(375975.62), dec!(117912.32), dec!(35.00)),
];

/// Daily tariff in force 2023-01-01 to 2025-12-31 (Anexo 8 RMF 2023). PAYROLL_2026.md §1.7;
/// each lower limit is the previous upper limit + 0.01.
pub static TARIFA_DIARIA_2023: [Tramo; 11] = [
    tramo(dec!(0.01), dec!(24.54), dec!(0.00), dec!(1.92)),
    tramo(dec!(24.55), dec!(208.29), dec!(0.47), dec!(6.40)),
    tramo(dec!(208.30), dec!(366.05), dec!(12.23), dec!(10.88)),
    tramo(dec!(366.06), dec!(425.52), dec!(29.40), dec!(16.00)),
    tramo(dec!(425.53), dec!(509.46), dec!(38.91), dec!(17.92)),
    tramo(dec!(509.47), dec!(1027.52), dec!(53.95), dec!(21.36)),
    tramo(dec!(1027.53), dec!(1619.51), dec!(164.61), dec!(23.52)),
    tramo(dec!(1619.52), dec!(3091.90), dec!(303.85), dec!(30.00)),
    tramo(dec!(3091.91), dec!(4122.54), dec!(745.56), dec!(32.00)),
    tramo(dec!(4122.55), dec!(12367.62), dec!(1075.37), dec!(34.00)),
    ultimo(dec!(12367.63), dec!(3878.69), dec!(35.00)),
];

/// Annual tariff 2026, Art. 152 LISR (Anexo 8 RMF 2026), used by the employer's annual
/// adjustment (Art. 97 LISR). It is the primary table: the monthly one is it ÷ 12, rounded.
/// PAYROLL_EXTRAS_2026.md §4.2 (elcontribuyente.mx, idconline.mx 2025-12-30), confidence H.
pub static TARIFA_ANUAL_2026: [Tramo; 11] = [
    tramo(dec!(0.01), dec!(10135.11), dec!(0.00), dec!(1.92)),
    tramo(dec!(10135.12), dec!(86022.11), dec!(194.59), dec!(6.40)),
    tramo(dec!(86022.12), dec!(151176.19), dec!(5051.37), dec!(10.88)),
    tramo(dec!(151176.20), dec!(175735.66), dec!(12140.13), dec!(16.00)),
    tramo(dec!(175735.67), dec!(210403.69), dec!(16069.64), dec!(17.92)),
    tramo(dec!(210403.70), dec!(424353.97), dec!(22282.14), dec!(21.36)),
    tramo(dec!(424353.98), dec!(668840.14), dec!(67981.92), dec!(23.52)),
    tramo(dec!(668840.15), dec!(1276925.98), dec!(125485.07), dec!(30.00)),
    tramo(dec!(1276925.99), dec!(1702567.97), dec!(307910.81), dec!(32.00)),
    tramo(dec!(1702567.98), dec!(5107703.92), dec!(444116.23), dec!(34.00)),
    ultimo(dec!(5107703.93), dec!(1601862.46), dec!(35.00)),
];

/// An Art. 96 LISR tariff edition: the monthly and the daily table of one Anexo 8.
#[derive(Debug, Clone, Copy)]
pub struct VigenciaTarifa {
    /// First day in force.
    pub desde: Date,
    /// Last day in force; `None` while no later edition exists (Art. 152 LISR only updates the
    /// tariff when accumulated inflation passes 10 %, so an edition stays until replaced).
    pub hasta: Option<Date>,
    /// Label for reports, e.g. "Anexo 8 RMF 2026".
    pub fuente: &'static str,
    /// Monthly tariff.
    pub mensual: &'static [Tramo],
    /// Daily tariff (period tariffs are derived from it).
    pub diaria: &'static [Tramo],
    /// Annual tariff (Art. 152 LISR) for the annual adjustment; `None` where the brief only
    /// gives part of it (2023–2025: first and last rows only, PAYROLL_EXTRAS_2026.md §4.2).
    pub anual: Option<&'static [Tramo]>,
}

/// Unidad de Medida y Actualización in force for a range of dates.
#[derive(Debug, Clone, Copy)]
pub struct VigenciaUma {
    /// First day in force (1 February).
    pub desde: Date,
    /// Last day in force (31 January of the next year).
    pub hasta: Option<Date>,
    /// Daily value.
    pub diaria: Decimal,
    /// Monthly value as INEGI publishes it (daily × 30.4, rounded).
    pub mensual: Decimal,
}

/// Salario mínimo general and of the Zona Libre de la Frontera Norte (CONASAMI).
#[derive(Debug, Clone, Copy)]
pub struct VigenciaSalarioMinimo {
    /// First day in force.
    pub desde: Date,
    /// Last day in force.
    pub hasta: Option<Date>,
    /// General minimum wage, daily.
    pub general: Decimal,
    /// Northern border zone minimum wage, daily.
    pub frontera: Decimal,
}

/// Subsidio para el empleo decree parameters (DOF 2024-05-01 as amended).
#[derive(Debug, Clone, Copy)]
pub struct VigenciaSubsidio {
    /// First day in force.
    pub desde: Date,
    /// Last day in force.
    pub hasta: Option<Date>,
    /// Percentage of the monthly UMA in force on the same date, e.g. `15.02`.
    pub porcentaje_uma: Decimal,
    /// Monthly taxable income at or below which the subsidy applies.
    pub tope_ingreso_mensual: Decimal,
}

/// Editions of the ISR tariff, oldest first.
pub static TARIFAS: &[VigenciaTarifa] = &[
    VigenciaTarifa {
        desde: date!(2023 - 01 - 01),
        hasta: Some(date!(2025 - 12 - 31)),
        fuente: "Anexo 8 RMF 2023 (en vigor 2023-2025)",
        mensual: &TARIFA_MENSUAL_2023,
        diaria: &TARIFA_DIARIA_2023,
        anual: None,
    },
    VigenciaTarifa {
        desde: date!(2026 - 01 - 01),
        hasta: None,
        fuente: "Anexo 8 RMF 2026",
        mensual: &TARIFA_MENSUAL_2026,
        diaria: &TARIFA_DIARIA_2026,
        anual: Some(&TARIFA_ANUAL_2026),
    },
];

/// UMA values, oldest first (PAYROLL_2026.md §0, §3).
pub static UMAS: &[VigenciaUma] = &[
    // UMA 2024: 108.57 daily, 3,300.53 monthly. Not printed in the brief; it is the value that
    // reproduces the published January 2025 subsidy (14.39 % × 3,300.53 = 474.95, §0).
    VigenciaUma {
        desde: date!(2024 - 02 - 01),
        hasta: Some(date!(2025 - 01 - 31)),
        diaria: dec!(108.57),
        mensual: dec!(3300.53),
    },
    VigenciaUma {
        desde: date!(2025 - 02 - 01),
        hasta: Some(date!(2026 - 01 - 31)),
        diaria: dec!(113.14),
        mensual: dec!(3439.46),
    },
    VigenciaUma {
        desde: date!(2026 - 02 - 01),
        hasta: Some(date!(2027 - 01 - 31)),
        diaria: dec!(117.31),
        mensual: dec!(3566.22),
    },
];

/// Minimum wages, oldest first (PAYROLL_2026.md §0).
pub static SALARIOS_MINIMOS: &[VigenciaSalarioMinimo] = &[
    VigenciaSalarioMinimo {
        desde: date!(2025 - 01 - 01),
        hasta: Some(date!(2025 - 12 - 31)),
        general: dec!(278.80),
        frontera: dec!(419.88),
    },
    VigenciaSalarioMinimo {
        desde: date!(2026 - 01 - 01),
        hasta: Some(date!(2026 - 12 - 31)),
        general: dec!(315.04),
        frontera: dec!(440.87),
    },
];

/// Subsidy decree parameters, oldest first (PAYROLL_2026.md §2.1). January rows carry the
/// transitory percentage that applies to the previous year's UMA.
pub static SUBSIDIOS: &[VigenciaSubsidio] = &[
    // DOF 2024-12-31, transitory: January 2025 is 14.39 % of the 2024 UMA.
    VigenciaSubsidio {
        desde: date!(2025 - 01 - 01),
        hasta: Some(date!(2025 - 01 - 31)),
        porcentaje_uma: dec!(14.39),
        tope_ingreso_mensual: dec!(10171.00),
    },
    VigenciaSubsidio {
        desde: date!(2025 - 02 - 01),
        hasta: Some(date!(2025 - 12 - 31)),
        porcentaje_uma: dec!(13.80),
        tope_ingreso_mensual: dec!(10171.00),
    },
    // DOF 2025-12-31, Transitorio Segundo: January 2026 is 15.59 % of the 2025 UMA.
    VigenciaSubsidio {
        desde: date!(2026 - 01 - 01),
        hasta: Some(date!(2026 - 01 - 31)),
        porcentaje_uma: dec!(15.59),
        tope_ingreso_mensual: dec!(11492.66),
    },
    VigenciaSubsidio {
        desde: date!(2026 - 02 - 01),
        hasta: Some(date!(2026 - 12 - 31)),
        porcentaje_uma: dec!(15.02),
        tope_ingreso_mensual: dec!(11492.66),
    },
];

/// The parameter set in force on one payment date.
#[derive(Debug, Clone, Copy)]
pub struct Parametros {
    /// The date the set was selected for.
    pub fecha: Date,
    /// ISR tariff edition.
    pub tarifa: &'static VigenciaTarifa,
    /// UMA in force.
    pub uma: &'static VigenciaUma,
    /// Minimum wages in force.
    pub salario_minimo: &'static VigenciaSalarioMinimo,
    /// Subsidy parameters in force.
    pub subsidio: &'static VigenciaSubsidio,
}

/// No parameter row covers the requested date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no hay parámetros de {serie} vigentes el {fecha}; se cubren fechas desde 2025-01-01")]
pub struct SinParametros {
    /// Which series is missing ("tarifa ISR", "UMA", ...).
    pub serie: &'static str,
    /// The date asked for.
    pub fecha: Date,
}

/// Whether `fecha` falls in `[desde, hasta]` (open-ended when `hasta` is `None`).
fn cubre(desde: Date, hasta: Option<Date>, fecha: Date) -> bool {
    desde <= fecha && hasta.is_none_or(|fin| fecha <= fin)
}

fn buscar<T>(
    serie: &'static str,
    filas: &'static [T],
    rango: impl Fn(&T) -> (Date, Option<Date>),
    fecha: Date,
) -> Result<&'static T, SinParametros> {
    filas
        .iter()
        .rev()
        .find(|fila| {
            let (desde, hasta) = rango(fila);
            cubre(desde, hasta, fecha)
        })
        .ok_or(SinParametros { serie, fecha })
}

impl Parametros {
    /// Selects every parameter in force on the payment date `fecha`.
    ///
    /// # Errors
    /// [`SinParametros`] when a series has no row for that date (before 2025, or a year whose
    /// figures have not been added yet).
    pub fn vigentes(fecha: Date) -> Result<Self, SinParametros> {
        Ok(Self {
            fecha,
            tarifa: buscar("tarifa ISR", TARIFAS, |f| (f.desde, f.hasta), fecha)?,
            uma: buscar("UMA", UMAS, |f| (f.desde, f.hasta), fecha)?,
            salario_minimo: buscar("salario mínimo", SALARIOS_MINIMOS, |f| (f.desde, f.hasta), fecha)?,
            subsidio: buscar("subsidio para el empleo", SUBSIDIOS, |f| (f.desde, f.hasta), fecha)?,
        })
    }

    /// Monthly subsidy: `round2(porcentaje × UMA mensual)` (decree Art. Primero; §2.3 step 1).
    pub fn subsidio_mensual(&self) -> Decimal {
        redondear(self.subsidio.porcentaje_uma * self.uma.mensual / dec!(100))
    }

    /// Subsidy and taxable-income cap for a period: the monthly figures for a full month
    /// (`dias` = `None`), else each `round2(monthly ÷ 30.4 × días)` (decree; PAYROLL_2026.md
    /// §2.2–§2.3, reproduced by the 2025 published proration tables). Returns
    /// `(subsidio, tope)`.
    pub fn subsidio_periodo(&self, dias: Option<Decimal>) -> (Decimal, Decimal) {
        let mensual = self.subsidio_mensual();
        let tope = self.subsidio.tope_ingreso_mensual;
        match dias {
            None => (mensual, tope),
            Some(d) => (redondear(mensual / DIAS_MES * d), redondear(tope / DIAS_MES * d)),
        }
    }
}

/// Days per month that the subsidy decree and Anexo 8 use to convert monthly figures.
pub const DIAS_MES: Decimal = dec!(30.4);

/// Which ISR table applies to a payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TablaIsr {
    /// The monthly tariff, as printed.
    Mensual,
    /// The daily tariff multiplied by this many days (Anexo 8 prints 7, 10 and 15; 14 and
    /// partial periods use the same rule).
    Dias(Decimal),
    /// The annual tariff of Art. 152 LISR (annual adjustment, Art. 97). Empty for an edition
    /// without one (see [`VigenciaTarifa::anual`]).
    Anual,
}

impl TablaIsr {
    /// A short label for reports: "mensual" or "diaria x 15".
    pub fn etiqueta(&self) -> String {
        match self {
            Self::Mensual => "mensual".to_owned(),
            Self::Dias(dias) => format!("diaria x {}", dias.normalize()),
            Self::Anual => "anual".to_owned(),
        }
    }
}

impl VigenciaTarifa {
    /// Row `indice` of `tabla`. Period tables are the daily table with limits and cuotas ×
    /// days, rounded to cents, and each lower limit equal to the previous upper limit + 0.01
    /// (the structure of the printed Anexo 8 weekly, decenal and quincenal tables, §1.2).
    /// Returns `None` past the last row.
    pub fn fila(&self, tabla: TablaIsr, indice: usize) -> Option<Tramo> {
        match tabla {
            TablaIsr::Mensual => self.mensual.get(indice).copied(),
            TablaIsr::Anual => self.anual?.get(indice).copied(),
            TablaIsr::Dias(dias) => {
                let base = self.diaria.get(indice)?;
                let limite_inferior = match indice.checked_sub(1) {
                    None => base.limite_inferior,
                    Some(previo) => {
                        // Every row but the last has an upper limit; the previous row is never
                        // the last, so `limite_superior` is present.
                        let superior_previo = self.diaria[previo].limite_superior.unwrap_or(base.limite_inferior);
                        redondear(superior_previo * dias) + dec!(0.01)
                    }
                };
                Some(Tramo {
                    limite_inferior,
                    limite_superior: base.limite_superior.map(|s| redondear(s * dias)),
                    cuota_fija: redondear(base.cuota_fija * dias),
                    porcentaje: base.porcentaje,
                })
            }
        }
    }

    /// The whole table for `tabla`, for display and audit.
    pub fn tabla(&self, tabla: TablaIsr) -> Vec<Tramo> {
        (0..).map_while(|i| self.fila(tabla, i)).collect()
    }

    /// The row that contains `base` (the first whose upper limit is ≥ base, else the last).
    pub fn tramo_para(&self, tabla: TablaIsr, base: Decimal) -> Tramo {
        let mut indice = 0;
        let mut ultimo = None;
        while let Some(fila) = self.fila(tabla, indice) {
            match fila.limite_superior {
                Some(superior) if base > superior => {
                    ultimo = Some(fila);
                    indice += 1;
                }
                _ => return fila,
            }
        }
        // Unreachable with well-formed tables (the last row has no upper limit); fall back
        // to the last row seen, or a zero row for an empty table.
        ultimo.unwrap_or(Tramo {
            limite_inferior: Decimal::ZERO,
            limite_superior: None,
            cuota_fija: Decimal::ZERO,
            porcentaje: Decimal::ZERO,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filas(t: &[(Decimal, Option<Decimal>, Decimal, Decimal)]) -> Vec<Tramo> {
        t.iter()
            .map(|&(i, s, c, p)| Tramo { limite_inferior: i, limite_superior: s, cuota_fija: c, porcentaje: p })
            .collect()
    }

    fn t2026() -> &'static VigenciaTarifa {
        Parametros::vigentes(date!(2026 - 03 - 15)).unwrap().tarifa
    }

    // PAYROLL_2026.md §1.3, weekly 2026 as published.
    #[test]
    fn semanal_2026_igual_a_la_publicada() {
        let publicada = filas(&[
            (dec!(0.01), Some(dec!(194.46)), dec!(0.00), dec!(1.92)),
            (dec!(194.47), Some(dec!(1650.67)), dec!(3.71), dec!(6.40)),
            (dec!(1650.68), Some(dec!(2900.87)), dec!(96.95), dec!(10.88)),
            (dec!(2900.88), Some(dec!(3372.11)), dec!(232.96), dec!(16.00)),
            (dec!(3372.12), Some(dec!(4037.32)), dec!(308.35), dec!(17.92)),
            (dec!(4037.33), Some(dec!(8142.75)), dec!(427.56), dec!(21.36)),
            (dec!(8142.76), Some(dec!(12834.08)), dec!(1304.45), dec!(23.52)),
            (dec!(12834.09), Some(dec!(24502.45)), dec!(2407.86), dec!(30.00)),
            (dec!(24502.46), Some(dec!(32669.91)), dec!(5908.35), dec!(32.00)),
            (dec!(32669.92), Some(dec!(98009.66)), dec!(8521.94), dec!(34.00)),
            (dec!(98009.67), None, dec!(30737.49), dec!(35.00)),
        ]);
        assert_eq!(t2026().tabla(TablaIsr::Dias(dec!(7))), publicada);
    }

    // §1.4, decenal 2026.
    #[test]
    fn decenal_2026_igual_a_la_publicada() {
        let publicada = filas(&[
            (dec!(0.01), Some(dec!(277.80)), dec!(0.00), dec!(1.92)),
            (dec!(277.81), Some(dec!(2358.10)), dec!(5.30), dec!(6.40)),
            (dec!(2358.11), Some(dec!(4144.10)), dec!(138.50), dec!(10.88)),
            (dec!(4144.11), Some(dec!(4817.30)), dec!(332.80), dec!(16.00)),
            (dec!(4817.31), Some(dec!(5767.60)), dec!(440.50), dec!(17.92)),
            (dec!(5767.61), Some(dec!(11632.50)), dec!(610.80), dec!(21.36)),
            (dec!(11632.51), Some(dec!(18334.40)), dec!(1863.50), dec!(23.52)),
            (dec!(18334.41), Some(dec!(35003.50)), dec!(3439.80), dec!(30.00)),
            (dec!(35003.51), Some(dec!(46671.30)), dec!(8440.50), dec!(32.00)),
            (dec!(46671.31), Some(dec!(140013.80)), dec!(12174.20), dec!(34.00)),
            (dec!(140013.81), None, dec!(43910.70), dec!(35.00)),
        ]);
        assert_eq!(t2026().tabla(TablaIsr::Dias(dec!(10))), publicada);
    }

    // §1.5, quincenal 2026 as published.
    #[test]
    fn quincenal_2026_igual_a_la_publicada() {
        let publicada = filas(&[
            (dec!(0.01), Some(dec!(416.70)), dec!(0.00), dec!(1.92)),
            (dec!(416.71), Some(dec!(3537.15)), dec!(7.95), dec!(6.40)),
            (dec!(3537.16), Some(dec!(6216.15)), dec!(207.75), dec!(10.88)),
            (dec!(6216.16), Some(dec!(7225.95)), dec!(499.20), dec!(16.00)),
            (dec!(7225.96), Some(dec!(8651.40)), dec!(660.75), dec!(17.92)),
            (dec!(8651.41), Some(dec!(17448.75)), dec!(916.20), dec!(21.36)),
            (dec!(17448.76), Some(dec!(27501.60)), dec!(2795.25), dec!(23.52)),
            (dec!(27501.61), Some(dec!(52505.25)), dec!(5159.70), dec!(30.00)),
            (dec!(52505.26), Some(dec!(70006.95)), dec!(12660.75), dec!(32.00)),
            (dec!(70006.96), Some(dec!(210020.70)), dec!(18261.30), dec!(34.00)),
            (dec!(210020.71), None, dec!(65866.05), dec!(35.00)),
        ]);
        assert_eq!(t2026().tabla(TablaIsr::Dias(dec!(15))), publicada);
    }

    // §1.6, catorcenal 2026 (daily × 14).
    #[test]
    fn catorcenal_2026_igual_a_la_derivada() {
        let publicada = filas(&[
            (dec!(0.01), Some(dec!(388.92)), dec!(0.00), dec!(1.92)),
            (dec!(388.93), Some(dec!(3301.34)), dec!(7.42), dec!(6.40)),
            (dec!(3301.35), Some(dec!(5801.74)), dec!(193.90), dec!(10.88)),
            (dec!(5801.75), Some(dec!(6744.22)), dec!(465.92), dec!(16.00)),
            (dec!(6744.23), Some(dec!(8074.64)), dec!(616.70), dec!(17.92)),
            (dec!(8074.65), Some(dec!(16285.50)), dec!(855.12), dec!(21.36)),
            (dec!(16285.51), Some(dec!(25668.16)), dec!(2608.90), dec!(23.52)),
            (dec!(25668.17), Some(dec!(49004.90)), dec!(4815.72), dec!(30.00)),
            (dec!(49004.91), Some(dec!(65339.82)), dec!(11816.70), dec!(32.00)),
            (dec!(65339.83), Some(dec!(196019.32)), dec!(17043.88), dec!(34.00)),
            (dec!(196019.33), None, dec!(61474.98), dec!(35.00)),
        ]);
        assert_eq!(t2026().tabla(TablaIsr::Dias(dec!(14))), publicada);
    }

    // The daily table is the monthly ÷ 30.4, rounded (§1.2); checks our transcription of both.
    #[test]
    fn diaria_es_mensual_entre_30_4() {
        for vigencia in TARIFAS {
            for (d, m) in vigencia.diaria.iter().zip(vigencia.mensual) {
                if let (Some(ds), Some(ms)) = (d.limite_superior, m.limite_superior) {
                    assert_eq!(ds, redondear(ms / dec!(30.4)), "{}", vigencia.fuente);
                }
                assert_eq!(d.cuota_fija, redondear(m.cuota_fija / dec!(30.4)));
                assert_eq!(d.porcentaje, m.porcentaje);
            }
        }
    }

    // Each lower limit is the previous upper limit + 0.01 in every stored table.
    #[test]
    fn tablas_contiguas() {
        for vigencia in TARIFAS {
            for tabla in [vigencia.mensual, vigencia.diaria].into_iter().chain(vigencia.anual) {
                assert_eq!(tabla.len(), 11);
                for par in tabla.windows(2) {
                    assert_eq!(par[0].limite_superior.map(|s| s + dec!(0.01)), Some(par[1].limite_inferior));
                }
                assert!(tabla[tabla.len() - 1].limite_superior.is_none());
            }
        }
    }

    // The monthly 2026 table is the annual ÷ 12, rounded; the SAT prints the row-6 cuota
    // 1,856.84 for 1,856.845 (PAYROLL_2026.md §1.1, PAYROLL_EXTRAS_2026.md §4.2).
    #[test]
    fn mensual_2026_es_anual_entre_12() {
        for (a, m) in TARIFA_ANUAL_2026.iter().zip(&TARIFA_MENSUAL_2026) {
            if let (Some(asup), Some(msup)) = (a.limite_superior, m.limite_superior) {
                assert_eq!(msup, redondear(asup / dec!(12)));
            }
            let cuota = a.cuota_fija / dec!(12);
            assert!((m.cuota_fija - cuota).abs() <= dec!(0.005), "{cuota}");
            assert_eq!(a.porcentaje, m.porcentaje);
        }
        assert_eq!(t2026().tabla(TablaIsr::Anual).len(), 11);
        assert!(TARIFAS[0].tabla(TablaIsr::Anual).is_empty());
    }

    // UMA monthly = round2(daily × 30.4) (§0).
    #[test]
    fn uma_mensual_es_diaria_por_30_4() {
        for uma in UMAS {
            assert_eq!(uma.mensual, redondear(uma.diaria * dec!(30.4)));
        }
    }

    // Ranges of each series are contiguous and do not overlap.
    #[test]
    fn vigencias_contiguas() {
        fn revisar(rangos: &[(Date, Option<Date>)]) {
            for par in rangos.windows(2) {
                let fin = par[0].1.expect("only the last row may be open");
                assert_eq!(fin.next_day(), Some(par[1].0));
            }
        }
        revisar(&TARIFAS.iter().map(|f| (f.desde, f.hasta)).collect::<Vec<_>>());
        revisar(&UMAS.iter().map(|f| (f.desde, f.hasta)).collect::<Vec<_>>());
        revisar(&SALARIOS_MINIMOS.iter().map(|f| (f.desde, f.hasta)).collect::<Vec<_>>());
        revisar(&SUBSIDIOS.iter().map(|f| (f.desde, f.hasta)).collect::<Vec<_>>());
    }

    // UMA and subsidy switch on 1 February 2026; tariff and minimum wage on 1 January 2026.
    #[test]
    fn seleccion_por_fecha() {
        let enero = Parametros::vigentes(date!(2026 - 01 - 31)).unwrap();
        let febrero = Parametros::vigentes(date!(2026 - 02 - 01)).unwrap();
        let dic_2025 = Parametros::vigentes(date!(2025 - 12 - 31)).unwrap();
        assert_eq!(enero.uma.diaria, dec!(113.14));
        assert_eq!(febrero.uma.diaria, dec!(117.31));
        assert_eq!(enero.tarifa.mensual[2].cuota_fija, dec!(420.95));
        assert_eq!(dic_2025.tarifa.mensual[2].cuota_fija, dec!(371.83));
        assert_eq!(enero.salario_minimo.general, dec!(315.04));
        assert_eq!(dic_2025.salario_minimo.general, dec!(278.80));
        assert_eq!(febrero.salario_minimo.frontera, dec!(440.87));
        // §0 and §2.2: 536.21 January (15.59 % × 3,439.46), 535.65 from February.
        assert_eq!(enero.subsidio_mensual(), dec!(536.21));
        assert_eq!(febrero.subsidio_mensual(), dec!(535.65));
        // 2025: 474.95 in January (14.39 % × 3,300.53), 474.65 afterwards (13.8 % × 3,439.46).
        assert_eq!(Parametros::vigentes(date!(2025 - 01 - 15)).unwrap().subsidio_mensual(), dec!(474.95));
        assert_eq!(dic_2025.subsidio_mensual(), dec!(474.65));
    }

    #[test]
    fn sin_parametros_antes_de_2025_y_tras_2026() {
        let e = Parametros::vigentes(date!(2024 - 12 - 31)).unwrap_err();
        assert_eq!(e.fecha, date!(2024 - 12 - 31));
        assert!(Parametros::vigentes(date!(2027 - 01 - 01)).is_err());
    }
}
