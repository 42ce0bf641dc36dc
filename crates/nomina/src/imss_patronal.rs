//! IMSS employer and worker dues of a month, per worker and per branch (Ley del Seguro Social,
//! LSS; Ley del INFONAVIT), PAYROLL_EXTRAS_2026.md §5.
//!
//! * **SBC** (Arts. 27–30 LSS): the salario diario integrado registered with IMSS, capped at
//!   25 UMA (Art. 28) and no less than the minimum wage. Its fixed part is SD × factor, with
//!   factor = (365 + aguinaldo days + vacation days × prima vacacional) / 365; with the legal
//!   minimums the factors print as 1.0493, 1.0507, … (§5.1). Variable pay (Art. 30) is out of
//!   scope.
//! * **Rates** (§5.2, employer / worker, per day): EyM cuota fija 20.40 % of 1 UMA (Art. 106 I);
//!   EyM excedente 1.10 % / 0.40 % of SBC − 3 UMA (Art. 106 II); prestaciones en dinero 0.70 % /
//!   0.25 % (Art. 107); gastos médicos pensionados 1.05 % / 0.375 % (Art. 25); riesgos de trabajo
//!   `prima_riesgo` % (Arts. 71–74, between 0.5 and 15); invalidez y vida 1.75 % / 0.625 %
//!   (Art. 147); guarderías y prestaciones sociales 1.00 % (Art. 211); retiro 2.00 % (Art. 168
//!   I); cesantía en edad avanzada y vejez by SBC band (Art. 168 II and the transitory table of
//!   the DOF 2020-12-16 reform, §5.3) / 1.125 %; INFONAVIT 5.00 % (Ley INFONAVIT Art. 29 II).
//!   The worker rates are the ones the period calculator withholds ([`crate::calculo`]).
//! * **Days** (Art. 31 LSS and SUA practice, §5.4, confidence M): calendar days of the month (or
//!   the days registered in it); unpaid absences, at most 7 a month, reduce every branch except
//!   EyM (INFONAVIT included); IMSS incapacities reduce every branch except retiro (INFONAVIT is
//!   still paid; so are the absence-free days of retiro).
//! * **Rounding**: each branch is rounded to centavos per worker; totals are sums of rounded
//!   branches.
//! * **Monthly and bimonthly** (§5.5): EyM, RT, IV and guarderías are monthly; retiro, CEAV and
//!   INFONAVIT bimonthly. The dues of a month are everything accrued in it: the monthly branches
//!   plus the month's share of the bimonthly ones, each flagged.
//! * **Art. 36 LSS**: for a worker whose cuota diaria is the minimum wage the employer pays the
//!   worker's share; it is reported apart as `obrera_absorbida_por_patron`.

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::Serialize;
use time::{Date, Month};

use crate::calculo::tasas;
use crate::centavos;
use crate::entrada::Zona;
use crate::parametros::{Parametros, SinParametros};

/// Art. 28 LSS: SBC cap, 25 UMA.
pub const TOPE_SBC_UMAS: Decimal = dec!(25);
/// Art. 106 fr. II LSS: the EyM excess is over 3 UMA.
pub const UMBRAL_EXCEDENTE_UMAS: Decimal = dec!(3);
/// Art. 31 fr. I LSS / SUA: at most 7 days of absence a month reduce the dues.
pub const AUSENCIAS_MAXIMAS_MES: u32 = 7;

/// Employer rates (fractions).
mod patronal {
    use rust_decimal::Decimal;
    use rust_decimal_macros::dec;
    /// Art. 106 fr. I LSS: EyM cuota fija, 20.40 % of one UMA.
    pub const CUOTA_FIJA: Decimal = dec!(0.204);
    /// Art. 106 fr. II LSS: EyM excedente, 1.10 %.
    pub const EXCEDENTE: Decimal = dec!(0.011);
    /// Art. 107 LSS: prestaciones en dinero, 0.70 %.
    pub const PRESTACIONES_DINERO: Decimal = dec!(0.007);
    /// Art. 25 LSS: gastos médicos de pensionados, 1.05 %.
    pub const GASTOS_MEDICOS_PENSIONADOS: Decimal = dec!(0.0105);
    /// Art. 147 LSS: invalidez y vida, 1.75 %.
    pub const INVALIDEZ_Y_VIDA: Decimal = dec!(0.0175);
    /// Art. 211 LSS: guarderías y prestaciones sociales, 1.00 %.
    pub const GUARDERIAS: Decimal = dec!(0.01);
    /// Art. 168 fr. I LSS: retiro, 2.00 %.
    pub const RETIRO: Decimal = dec!(0.02);
    /// Ley del INFONAVIT Art. 29 fr. II: 5.00 %.
    pub const INFONAVIT: Decimal = dec!(0.05);
}

/// Employer CEAV rates (%) by band, per year of the DOF 2020-12-16 transition (§5.3): bands
/// 1.00 SM; 1.01 SM–1.50 UMA; 1.51–2.00; 2.01–2.50; 2.51–3.00; 3.01–3.50; 3.51–4.00; 4.01 UMA
/// and above. Sources: a code-corpus catalogue (CESANTIA_VEJEZ_PATRONAL_TRANSICION), cronista.com
/// 2025-12-01 (2026 column), the Modalidad 40 schedule for the top band (confidence H).
static CEAV_PATRONAL: [(i32, [Decimal; 8]); 8] = [
    (2023, [dec!(3.150), dec!(3.281), dec!(3.575), dec!(3.751), dec!(3.869), dec!(3.953), dec!(4.016), dec!(4.241)]),
    (2024, [dec!(3.150), dec!(3.413), dec!(4.000), dec!(4.353), dec!(4.588), dec!(4.756), dec!(4.882), dec!(5.331)]),
    (2025, [dec!(3.150), dec!(3.544), dec!(4.426), dec!(4.954), dec!(5.307), dec!(5.559), dec!(5.747), dec!(6.422)]),
    (2026, [dec!(3.150), dec!(3.676), dec!(4.851), dec!(5.556), dec!(6.026), dec!(6.361), dec!(6.613), dec!(7.513)]),
    (2027, [dec!(3.150), dec!(3.807), dec!(5.276), dec!(6.157), dec!(6.745), dec!(7.164), dec!(7.479), dec!(8.603)]),
    (2028, [dec!(3.150), dec!(3.939), dec!(5.701), dec!(6.759), dec!(7.464), dec!(7.967), dec!(8.345), dec!(9.694)]),
    (2029, [dec!(3.150), dec!(4.070), dec!(6.126), dec!(7.360), dec!(8.183), dec!(8.770), dec!(9.211), dec!(10.784)]),
    (2030, [dec!(3.150), dec!(4.202), dec!(6.552), dec!(7.962), dec!(8.902), dec!(9.573), dec!(10.077), dec!(11.875)]),
];

/// Upper bounds (in UMA, included) of bands 1–6; above the last is band 7.
const LIMITES_BANDA_UMAS: [Decimal; 6] = [dec!(1.50), dec!(2.00), dec!(2.50), dec!(3.00), dec!(3.50), dec!(4.00)];

/// The employer CEAV rate, as a percentage, for an SBC in `anio`. Bands are read on SBC/UMA,
/// unrounded, upper bounds included; 3.150 % applies only when SBC ≤ SM. In 2026 the SM is 2.69
/// UMA, so the 1.01 SM – 1.50 UMA band is empty and an SBC just above the SM falls in the band of
/// its UMA multiple (confidence L, §5.3 and §9.5). `None` outside 2023–2030.
pub fn tasa_ceav_patronal(anio: i32, sbc: Decimal, uma_diaria: Decimal, salario_minimo: Decimal) -> Option<Decimal> {
    let (_, tasas) = CEAV_PATRONAL.iter().find(|(a, _)| *a == anio)?;
    if sbc <= salario_minimo {
        return Some(tasas[0]);
    }
    let umas = sbc / uma_diaria;
    let banda = LIMITES_BANDA_UMAS.iter().position(|limite| umas <= *limite).unwrap_or(LIMITES_BANDA_UMAS.len());
    Some(tasas[banda + 1])
}

/// Integration factor of the SBC's fixed part, unrounded: (365 + aguinaldo days + vacation days
/// × prima vacacional) / 365 (Art. 27 LSS; §5.1).
pub fn factor_integracion(dias_aguinaldo: u32, dias_vacaciones: u32, prima_vacacional: Decimal) -> Decimal {
    (dec!(365) + Decimal::from(dias_aguinaldo) + Decimal::from(dias_vacaciones) * prima_vacacional) / dec!(365)
}

/// The fixed SDI of a worker in year `anio_servicio` (1 = first): round2(SD × factor), with the
/// vacation days of that year (LFT Art. 76). IMSS tables print the factor with 4 decimals; timbra
/// keeps it unrounded and the SDI to the centavo (§5.1).
pub fn salario_diario_integrado(
    salario_diario: Decimal,
    anio_servicio: u32,
    dias_aguinaldo: u32,
    prima_vacacional: Decimal,
) -> Decimal {
    let vacaciones = crate::antiguedad::dias_vacaciones(anio_servicio.max(1));
    centavos(salario_diario * factor_integracion(dias_aguinaldo, vacaciones, prima_vacacional))
}

/// The SBC: the registered SDI, capped at 25 UMA (Art. 28 LSS) and no less than the SM.
pub fn salario_base_cotizacion(sdi: Decimal, uma_diaria: Decimal, salario_minimo: Decimal) -> Decimal {
    centavos(sdi.max(salario_minimo).min(TOPE_SBC_UMAS * uma_diaria))
}

/// A branch of the dues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Ramo {
    /// EyM prestaciones en especie, cuota fija (Art. 106 I).
    EymCuotaFija,
    /// EyM prestaciones en especie, excedente de 3 UMA (Art. 106 II).
    EymExcedente,
    /// EyM prestaciones en dinero (Art. 107).
    EymPrestacionesDinero,
    /// EyM gastos médicos de pensionados (Art. 25).
    EymGastosMedicosPensionados,
    /// Riesgos de trabajo (Arts. 71–74).
    RiesgosDeTrabajo,
    /// Invalidez y vida (Art. 147).
    InvalidezYVida,
    /// Guarderías y prestaciones sociales (Art. 211).
    GuarderiasYPrestacionesSociales,
    /// Retiro (Art. 168 I), bimonthly.
    Retiro,
    /// Cesantía en edad avanzada y vejez (Art. 168 II), bimonthly.
    CesantiaYVejez,
    /// INFONAVIT (Ley INFONAVIT Art. 29 II), bimonthly.
    Infonavit,
}

impl Ramo {
    /// Every branch, in report order.
    pub const TODOS: [Ramo; 10] = [
        Ramo::EymCuotaFija,
        Ramo::EymExcedente,
        Ramo::EymPrestacionesDinero,
        Ramo::EymGastosMedicosPensionados,
        Ramo::RiesgosDeTrabajo,
        Ramo::InvalidezYVida,
        Ramo::GuarderiasYPrestacionesSociales,
        Ramo::Retiro,
        Ramo::CesantiaYVejez,
        Ramo::Infonavit,
    ];

    /// Whether the branch is paid bimonthly (retiro, CEAV, INFONAVIT; §5.5).
    pub fn bimestral(self) -> bool {
        matches!(self, Self::Retiro | Self::CesantiaYVejez | Self::Infonavit)
    }
}

/// One worker of the month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrabajadorImss {
    /// The caller's key for the worker.
    pub clave: String,
    /// Cuota diaria (for the Art. 36 LSS minimum-wage rule).
    pub salario_diario: Decimal,
    /// Salario diario integrado registered with IMSS.
    pub salario_diario_integrado: Decimal,
    /// Minimum-wage zone.
    pub zona: Zona,
    /// Days registered in the month; `None` for the whole month (hires and exits pass fewer).
    pub dias_registrados: Option<u32>,
    /// Unpaid absences in the month (at most 7).
    pub dias_ausencia: u32,
    /// Days of IMSS incapacity in the month.
    pub dias_incapacidad: u32,
}

/// One branch of one worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CuotaRamo {
    /// The branch.
    pub ramo: Ramo,
    /// Paid bimonthly.
    pub bimestral: bool,
    /// Days counted.
    pub dias: u32,
    /// Daily base (1 UMA, SBC − 3 UMA, or SBC).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub base: Decimal,
    /// Employer rate, as a percentage.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub tasa_patronal: Decimal,
    /// Worker rate, as a percentage.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub tasa_obrera: Decimal,
    /// Employer due, rounded.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub patronal: Decimal,
    /// Worker due, rounded.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub obrera: Decimal,
}

/// One worker's dues of the month.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CuotasTrabajador {
    /// The worker's key.
    pub clave: String,
    /// SBC used.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub sbc: Decimal,
    /// Employer CEAV rate applied (%).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub tasa_ceav_patronal: Decimal,
    /// Every branch.
    pub por_ramo: Vec<CuotaRamo>,
    /// Employer dues of the monthly branches.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub patronal_mensual: Decimal,
    /// Employer dues of the bimonthly branches accrued in the month.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub patronal_bimestral: Decimal,
    /// All employer dues (`cuotasPatronal`).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub cuotas_patronal: Decimal,
    /// All worker dues (`cuotasObrero`).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub cuotas_obrero: Decimal,
    /// The worker dues the employer pays (Art. 36 LSS, minimum-wage workers); else 0.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub obrera_absorbida_por_patron: Decimal,
}

/// Totals of one branch over all workers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TotalRamo {
    /// The branch.
    pub ramo: Ramo,
    /// Paid bimonthly.
    pub bimestral: bool,
    /// Σ employer.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub patronal: Decimal,
    /// Σ worker.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub obrera: Decimal,
}

/// The dues of a month.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CuotasMes {
    /// Year.
    pub anio: i32,
    /// Month, 1–12.
    pub mes: u8,
    /// Per worker, in input order.
    pub trabajadores: Vec<CuotasTrabajador>,
    /// Per branch.
    pub por_ramo: Vec<TotalRamo>,
    /// Σ employer.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_patronal: Decimal,
    /// Σ worker.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_obrero: Decimal,
}

/// Bad input for the dues.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorImss {
    /// The risk premium is outside 0.5–15 % (Art. 74 LSS).
    #[error("la prima de riesgo {0} % está fuera de 0.5 a 15 % (Art. 74 LSS)")]
    PrimaRiesgo(Decimal),
    /// More than 7 absences in a month (Art. 31 LSS; SUA).
    #[error("el trabajador {0} tiene más de 7 ausencias en el mes")]
    Ausencias(String),
    /// Absences and incapacities exceed the days registered.
    #[error("el trabajador {0} tiene más días de ausencia e incapacidad que días registrados")]
    Dias(String),
    /// A wage ≤ 0.
    #[error("el trabajador {0} tiene salario no positivo")]
    Salario(String),
    /// No CEAV table for the year (2023–2030 are stored).
    #[error("no hay tasas de cesantía y vejez para {0}")]
    SinTasaCeav(i32),
    /// No UMA for the month.
    #[error(transparent)]
    SinParametros(#[from] SinParametros),
}

fn ramo(ramo: Ramo, dias: u32, base: Decimal, tasa_patronal: Decimal, tasa_obrera: Decimal) -> CuotaRamo {
    let monto = base * Decimal::from(dias);
    CuotaRamo {
        ramo,
        bimestral: ramo.bimestral(),
        dias,
        base: centavos(base),
        tasa_patronal: (tasa_patronal * dec!(100)).normalize(),
        tasa_obrera: (tasa_obrera * dec!(100)).normalize(),
        patronal: centavos(monto * tasa_patronal),
        obrera: centavos(monto * tasa_obrera),
    }
}

/// The dues of one worker in a month with the parameters `p` (UMA and SM of the month's first
/// day) and the company's `prima_riesgo` (%).
fn cuotas_trabajador(
    anio: i32,
    dias_mes: u32,
    p: &Parametros,
    prima_riesgo: Decimal,
    t: &TrabajadorImss,
) -> Result<CuotasTrabajador, ErrorImss> {
    if t.salario_diario <= Decimal::ZERO || t.salario_diario_integrado <= Decimal::ZERO {
        return Err(ErrorImss::Salario(t.clave.clone()));
    }
    if t.dias_ausencia > AUSENCIAS_MAXIMAS_MES {
        return Err(ErrorImss::Ausencias(t.clave.clone()));
    }
    let registrados = t.dias_registrados.unwrap_or(dias_mes).min(dias_mes);
    if t.dias_ausencia + t.dias_incapacidad > registrados {
        return Err(ErrorImss::Dias(t.clave.clone()));
    }
    let uma = p.uma.diaria;
    let sm = match t.zona {
        Zona::General => p.salario_minimo.general,
        Zona::Frontera => p.salario_minimo.frontera,
    };
    let sbc = salario_base_cotizacion(t.salario_diario_integrado, uma, sm);
    let tasa_ceav = tasa_ceav_patronal(anio, sbc, uma, sm).ok_or(ErrorImss::SinTasaCeav(anio))?;

    // Art. 31 LSS (§5.4): absences spare EyM, incapacities spare retiro; INFONAVIT follows
    // the absences only.
    let dias_eym = registrados - t.dias_incapacidad;
    let dias_cotizados = registrados - t.dias_ausencia - t.dias_incapacidad;
    let dias_retiro = registrados - t.dias_ausencia;
    let excedente = (sbc - UMBRAL_EXCEDENTE_UMAS * uma).max(Decimal::ZERO);
    let cero = Decimal::ZERO;

    let por_ramo = vec![
        ramo(Ramo::EymCuotaFija, dias_eym, uma, patronal::CUOTA_FIJA, cero),
        ramo(Ramo::EymExcedente, dias_eym, excedente, patronal::EXCEDENTE, tasas::EXCEDENTE_3_UMA),
        ramo(Ramo::EymPrestacionesDinero, dias_eym, sbc, patronal::PRESTACIONES_DINERO, tasas::PRESTACIONES_DINERO),
        ramo(
            Ramo::EymGastosMedicosPensionados,
            dias_eym,
            sbc,
            patronal::GASTOS_MEDICOS_PENSIONADOS,
            tasas::GASTOS_MEDICOS_PENSIONADOS,
        ),
        ramo(Ramo::RiesgosDeTrabajo, dias_cotizados, sbc, prima_riesgo / dec!(100), cero),
        ramo(Ramo::InvalidezYVida, dias_cotizados, sbc, patronal::INVALIDEZ_Y_VIDA, tasas::INVALIDEZ_Y_VIDA),
        ramo(Ramo::GuarderiasYPrestacionesSociales, dias_cotizados, sbc, patronal::GUARDERIAS, cero),
        ramo(Ramo::Retiro, dias_retiro, sbc, patronal::RETIRO, cero),
        ramo(Ramo::CesantiaYVejez, dias_cotizados, sbc, tasa_ceav / dec!(100), tasas::CESANTIA_Y_VEJEZ),
        ramo(Ramo::Infonavit, dias_retiro, sbc, patronal::INFONAVIT, cero),
    ];
    let patronal_mensual: Decimal = por_ramo.iter().filter(|r| !r.bimestral).map(|r| r.patronal).sum();
    let patronal_bimestral: Decimal = por_ramo.iter().filter(|r| r.bimestral).map(|r| r.patronal).sum();
    let cuotas_obrero: Decimal = por_ramo.iter().map(|r| r.obrera).sum();
    // Art. 36 LSS: the test is on the cuota diaria, not the SBC (PAYROLL_2026.md §4).
    let absorbida = if t.salario_diario <= sm { cuotas_obrero } else { centavos(Decimal::ZERO) };
    Ok(CuotasTrabajador {
        clave: t.clave.clone(),
        sbc,
        tasa_ceav_patronal: tasa_ceav,
        por_ramo,
        patronal_mensual,
        patronal_bimestral,
        cuotas_patronal: patronal_mensual + patronal_bimestral,
        cuotas_obrero,
        obrera_absorbida_por_patron: absorbida,
    })
}

/// The dues of every worker for month `mes` of `anio`, with the UMA and SM in force on its
/// first day and the company's `prima_riesgo` in percent (0.54355 means 0.54355 %).
///
/// # Errors
/// [`ErrorImss`] on a premium outside 0.5–15 %, more than 7 absences, more absences and
/// incapacities than days, a wage ≤ 0, or a year without rates or parameters.
pub fn cuotas_del_mes(
    anio: i32,
    mes: Month,
    prima_riesgo: Decimal,
    trabajadores: &[TrabajadorImss],
) -> Result<CuotasMes, ErrorImss> {
    if prima_riesgo < dec!(0.5) || prima_riesgo > dec!(15) {
        return Err(ErrorImss::PrimaRiesgo(prima_riesgo));
    }
    let primero = Date::from_calendar_date(anio, mes, 1).map_err(|_| ErrorImss::SinTasaCeav(anio))?;
    let p = Parametros::vigentes(primero)?;
    let dias_mes = u32::from(mes.length(anio));
    let filas = trabajadores
        .iter()
        .map(|t| cuotas_trabajador(anio, dias_mes, &p, prima_riesgo, t))
        .collect::<Result<Vec<_>, _>>()?;
    let por_ramo = Ramo::TODOS
        .iter()
        .enumerate()
        .map(|(i, &r)| TotalRamo {
            ramo: r,
            bimestral: r.bimestral(),
            patronal: filas.iter().map(|f| f.por_ramo[i].patronal).sum(),
            obrera: filas.iter().map(|f| f.por_ramo[i].obrera).sum(),
        })
        .collect();
    Ok(CuotasMes {
        anio,
        mes: u8::from(mes),
        total_patronal: filas.iter().map(|f| f.cuotas_patronal).sum(),
        total_obrero: filas.iter().map(|f| f.cuotas_obrero).sum(),
        trabajadores: filas,
        por_ramo,
    })
}

#[cfg(test)]
#[path = "imss_patronal_tests.rs"]
mod tests;
