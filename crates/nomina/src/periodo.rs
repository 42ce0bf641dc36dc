//! One employee's pay period from the incidences of the period: the days paid, overtime by the
//! LFT with its Art. 93 LISR exemption, prima vacacional and prima dominical, and the extra
//! perceptions and deductions. The result is a [`CalculoNomina`], the very body
//! `POST /api/nomina/calcular` takes, so a period's receipt and the public calculator agree to
//! the centavo by construction.
//!
//! Rules (LFT = Ley Federal del Trabajo):
//! * days paid: the period's days (fewer when the employee started within the period) less the
//!   days of absence (faltas) and of disability (incapacidades: IMSS pays those days, not the
//!   employer), never below zero;
//! * overtime (Art. 66–68 LFT): in each week the first 9 hours are paid double and the rest
//!   triple, at the hourly wage of the jornada (Art. 61: 8 h diurna, 7 h nocturna, 7.5 h mixta);
//!   Art. 93 fr. I LISR exempts, of the double hours only, all of them for a minimum-wage
//!   worker and otherwise half of their pay up to 5 UMA per week; triple hours are taxable;
//! * prima vacacional (Art. 80 LFT): 25 % of the wage of the vacation days; exempt up to 15 UMA
//!   (Art. 93 fr. XIV, computed by [`crate::calculo::reparto_art93`]);
//! * prima dominical (Art. 71 LFT): 25 % of the daily wage per Sunday worked; exempt 1 UMA per
//!   Sunday (same).

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::{Deserialize, Serialize};
use time::Date;

use crate::entrada::{CalculoNomina, Campo, DeduccionCruda, EntradaValidada, PercepcionCruda, Periodicidad};
use crate::resultado::ResultadoNomina;
use crate::{centavos, redondear};

/// Hours of the legal jornada (Art. 61 LFT) for a c_TipoJornada: 02 nocturna 7, 03 mixta 7.5,
/// anything else (01 diurna, reduced or by the hour) 8.
pub fn horas_jornada(tipo_jornada: Option<&str>) -> Decimal {
    match tipo_jornada {
        Some("02") => dec!(7),
        Some("03") => dec!(7.5),
        _ => dec!(8),
    }
}

/// Hours above which overtime in a week is paid triple (Art. 66 and 68 LFT).
pub const HORAS_DOBLES_POR_SEMANA: u32 = 9;

/// Overtime of a period, split as the LFT pays it, with its Art. 93 LISR exemption.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorasExtra {
    /// Hours paid double.
    pub horas_dobles: u32,
    /// Days on which double hours were worked (Nómina 1.2 HorasExtra/@Dias, TipoHoras 01).
    pub dias_dobles: u32,
    /// Pay of the double hours.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub importe_dobles: Decimal,
    /// Hours paid triple.
    pub horas_triples: u32,
    /// Days on which triple hours were worked (TipoHoras 02).
    pub dias_triples: u32,
    /// Pay of the triple hours.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub importe_triples: Decimal,
    /// Taxable part.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gravado: Decimal,
    /// Exempt part (Art. 93 fr. I LISR).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub exento: Decimal,
}

impl HorasExtra {
    /// Total pay (perception 019).
    pub fn importe(&self) -> Decimal {
        self.importe_dobles + self.importe_triples
    }
}

/// Splits overtime by week: `semanas` holds, for each week, the hours worked on each day (in
/// date order; one entry per day). `salario_hora` is the daily wage ÷ [`horas_jornada`];
/// `salario_minimo` says the worker earns the minimum wage (all double hours exempt).
pub fn horas_extra(
    salario_hora: Decimal,
    semanas: &[Vec<u32>],
    uma_diaria: Decimal,
    salario_minimo: bool,
) -> HorasExtra {
    let mut total = HorasExtra {
        horas_dobles: 0,
        dias_dobles: 0,
        importe_dobles: centavos(Decimal::ZERO),
        horas_triples: 0,
        dias_triples: 0,
        importe_triples: centavos(Decimal::ZERO),
        gravado: centavos(Decimal::ZERO),
        exento: centavos(Decimal::ZERO),
    };
    for dias in semanas {
        let (mut dobles, mut triples) = (0u32, 0u32);
        for &horas in dias {
            let de_dobles = horas.min(HORAS_DOBLES_POR_SEMANA.saturating_sub(dobles));
            let de_triples = horas - de_dobles;
            dobles += de_dobles;
            triples += de_triples;
            total.dias_dobles += u32::from(de_dobles > 0);
            total.dias_triples += u32::from(de_triples > 0);
        }
        let importe_dobles = centavos(Decimal::from(dobles) * salario_hora * dec!(2));
        let importe_triples = centavos(Decimal::from(triples) * salario_hora * dec!(3));
        // Art. 93 fr. I LISR: the exemption covers double hours within the LFT limits only.
        let exento = if salario_minimo {
            importe_dobles
        } else {
            centavos(redondear(importe_dobles / dec!(2)).min(dec!(5) * uma_diaria))
        };
        total.horas_dobles += dobles;
        total.horas_triples += triples;
        total.importe_dobles += importe_dobles;
        total.importe_triples += importe_triples;
        total.exento += exento;
        total.gravado += importe_dobles + importe_triples - exento;
    }
    total
}

/// Prima vacacional: 25 % of the wage of `dias` vacation days (Art. 80 LFT).
pub fn prima_vacacional(salario_diario: Decimal, dias: u32) -> Decimal {
    centavos(salario_diario * Decimal::from(dias) * dec!(0.25))
}

/// Prima dominical: 25 % of the daily wage per Sunday worked (Art. 71 LFT).
pub fn prima_dominical(salario_diario: Decimal, domingos: u32) -> Decimal {
    centavos(salario_diario * Decimal::from(domingos) * dec!(0.25))
}

/// An approved incidence of the period, as the calculation reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incidencia {
    /// Overtime worked on `fecha`.
    HorasExtra {
        /// The day.
        fecha: Date,
        /// Hours.
        horas: u32,
    },
    /// Days of unpaid absence.
    Falta {
        /// Days.
        dias: u32,
    },
    /// Days of disability (paid by IMSS).
    Incapacidad {
        /// Days.
        dias: u32,
        /// c_TipoIncapacidad.
        tipo: String,
    },
    /// Vacation days taken (paid as salary, plus the prima).
    Vacaciones {
        /// Days.
        dias: u32,
    },
    /// Sundays worked.
    PrimaDominical {
        /// Sundays.
        domingos: u32,
    },
    /// Any other perception.
    Percepcion {
        /// c_TipoPercepcion.
        tipo: String,
        /// Description.
        concepto: String,
        /// Amount.
        importe: Decimal,
        /// Taxable and exempt parts, when the incidence gave them.
        reparto: Option<(Decimal, Decimal)>,
    },
    /// Any other deduction.
    Deduccion {
        /// c_TipoDeduccion.
        tipo: String,
        /// Description.
        concepto: String,
        /// Amount.
        importe: Decimal,
    },
}

/// An employee as a period's calculation needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmpleadoPeriodo {
    /// Daily wage.
    pub salario_diario: Decimal,
    /// Integrated daily wage.
    pub salario_diario_integrado: Decimal,
    /// c_RiesgoPuesto class, 1–5.
    pub riesgo_puesto: u8,
    /// c_TipoJornada.
    pub tipo_jornada: Option<String>,
    /// FechaInicioRelLaboral.
    pub fecha_inicio_rel_laboral: Date,
    /// What earlier receipts of the year already exempted under the yearly limits.
    pub exentos_previos: ExentosAnuales,
}

/// Exempt amounts under Art. 93 fr. XIV LISR's yearly limits: aguinaldo (002) up to 30 UMA,
/// PTU (003) and prima vacacional (021) up to 15 UMA each, per calendar year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExentosAnuales {
    /// Aguinaldo, perception 002.
    pub aguinaldo: Decimal,
    /// PTU, perception 003.
    pub ptu: Decimal,
    /// Prima vacacional, perception 021.
    pub prima_vacacional: Decimal,
}

impl ExentosAnuales {
    /// What a receipt's lines exempt under the yearly limits.
    pub fn de_lineas(lineas: &LineasRecibo) -> Self {
        let suma = |tipo: &str| lineas.percepciones.iter().filter(|p| p.tipo == tipo).map(|p| p.exento).sum();
        Self { aguinaldo: suma("002"), ptu: suma("003"), prima_vacacional: suma("021") }
    }

    /// The yearly limit of a perception type and what earlier receipts used of it.
    fn limite(&self, tipo: &str, uma_diaria: Decimal) -> Option<(Decimal, Decimal)> {
        match tipo {
            "002" => Some((dec!(30) * uma_diaria, self.aguinaldo)),
            "003" => Some((dec!(15) * uma_diaria, self.ptu)),
            "021" => Some((dec!(15) * uma_diaria, self.prima_vacacional)),
            _ => None,
        }
    }

    /// The split of `importe` of perception `tipo` when earlier receipts of the year used part
    /// of its limit: what is left of the limit is exempt, the rest taxable. `None` when nothing
    /// was used (the calculator's own Art. 93 rule then gives the same as a single payment).
    pub fn reparto(&self, tipo: &str, importe: Decimal, uma_diaria: Decimal) -> Option<(Decimal, Decimal)> {
        let (limite, usado) = self.limite(tipo, uma_diaria)?;
        if usado <= Decimal::ZERO {
            return None;
        }
        let exento = centavos(importe.min((limite - usado).max(Decimal::ZERO)));
        Some((centavos(importe - exento), exento))
    }
}

/// A pay period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Periodo {
    /// First day.
    pub fecha_inicio: Date,
    /// Last day.
    pub fecha_fin: Date,
    /// Payment date (selects the parameters).
    pub fecha_pago: Date,
    /// Periodicity.
    pub periodicidad: Periodicidad,
    /// Days the period pays.
    pub dias_pagados: u32,
}

/// A disability of the receipt (Nómina 1.2 Incapacidad).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IncapacidadRecibo {
    /// Days.
    pub dias: u32,
    /// c_TipoIncapacidad.
    pub tipo: String,
}

/// What a period gives one employee before the gross-to-net: the `POST /api/nomina/calcular`
/// body, and the details the CFDI needs that the body does not carry.
#[derive(Debug, Clone)]
pub struct ReciboPreparado {
    /// The calculator's body.
    pub solicitud: CalculoNomina,
    /// Days paid.
    pub dias_pagados: u32,
    /// Days of absence deducted.
    pub dias_falta: u32,
    /// Overtime, when there was any.
    pub horas_extra: Option<HorasExtra>,
    /// Disabilities of the period.
    pub incapacidades: Vec<IncapacidadRecibo>,
}

/// Why an employee gets no receipt in a period.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SinRecibo {
    /// Hired after the period ended.
    #[error("the employment starts on {0}, after the period ends")]
    PosteriorAlPeriodo(Date),
    /// Absences and disabilities cover the whole period and nothing else is paid.
    #[error("absences and disabilities cover every day of the period and nothing else is paid")]
    SinDiasPagados,
}

/// Concept texts of the perceptions a period adds.
const CONCEPTO_HORAS_EXTRA: &str = "Horas extra";
const CONCEPTO_PRIMA_VACACIONAL: &str = "Prima vacacional";
const CONCEPTO_PRIMA_DOMINICAL: &str = "Prima dominical";

/// Prepares one employee's receipt: days paid, overtime, primas and extra lines.
/// `uma_diaria` and `salario_minimo` (daily, of the zone) are those in force on the payment
/// date.
///
/// # Errors
/// [`SinRecibo`] when the employee has nothing to be paid in the period.
pub fn preparar(
    empleado: &EmpleadoPeriodo,
    periodo: &Periodo,
    incidencias: &[Incidencia],
    uma_diaria: Decimal,
    salario_minimo: Decimal,
) -> Result<ReciboPreparado, SinRecibo> {
    let inicio = empleado.fecha_inicio_rel_laboral;
    if inicio > periodo.fecha_fin {
        return Err(SinRecibo::PosteriorAlPeriodo(inicio));
    }
    let mut dias_periodo = periodo.dias_pagados;
    if inicio > periodo.fecha_inicio {
        // Hired within the period: only the days from the start date are paid.
        let trabajados = u32::try_from((periodo.fecha_fin - inicio).whole_days() + 1).unwrap_or(0);
        dias_periodo = dias_periodo.min(trabajados);
    }

    let mut dias_falta = 0u32;
    let mut dias_incapacidad = 0u32;
    let mut incapacidades = Vec::new();
    let mut vacaciones = 0u32;
    let mut domingos = 0u32;
    // Week (Monday) → day → hours.
    let mut semanas: BTreeMap<Date, BTreeMap<Date, u32>> = BTreeMap::new();
    let mut percepciones = Vec::new();
    let mut deducciones = Vec::new();
    for incidencia in incidencias {
        match incidencia {
            Incidencia::HorasExtra { fecha, horas } => {
                let lunes = *fecha - time::Duration::days(i64::from(fecha.weekday().number_days_from_monday()));
                *semanas.entry(lunes).or_default().entry(*fecha).or_default() += horas;
            }
            Incidencia::Falta { dias } => dias_falta += dias,
            Incidencia::Incapacidad { dias, tipo } => {
                dias_incapacidad += dias;
                incapacidades.push(IncapacidadRecibo { dias: *dias, tipo: tipo.clone() });
            }
            Incidencia::Vacaciones { dias } => vacaciones += dias,
            Incidencia::PrimaDominical { domingos: d } => domingos += d,
            Incidencia::Percepcion { tipo, concepto, importe, reparto } => {
                let mut p = PercepcionCruda {
                    tipo: Some(tipo.as_str().into()),
                    concepto: Some(concepto.as_str().into()),
                    importe: Some((*importe).into()),
                    ..PercepcionCruda::default()
                };
                let reparto = reparto.or_else(|| empleado.exentos_previos.reparto(tipo, *importe, uma_diaria));
                if let Some((gravado, exento)) = reparto {
                    p.gravado = Some(gravado.into());
                    p.exento = Some(exento.into());
                }
                percepciones.push(p);
            }
            Incidencia::Deduccion { tipo, concepto, importe } => deducciones.push(DeduccionCruda {
                tipo: Some(tipo.as_str().into()),
                concepto: Some(concepto.as_str().into()),
                importe: Some((*importe).into()),
            }),
        }
    }
    // Absences beyond the period's days cannot take more than the period pays.
    let dias_falta = dias_falta.min(dias_periodo);
    let dias_incapacidad = dias_incapacidad.min(dias_periodo - dias_falta);
    let dias_pagados = dias_periodo - dias_falta - dias_incapacidad;

    let horas_extra = (!semanas.is_empty()).then(|| {
        let semanas: Vec<Vec<u32>> = semanas.into_values().map(|dias| dias.into_values().collect()).collect();
        let salario_hora = empleado.salario_diario / horas_jornada(empleado.tipo_jornada.as_deref());
        horas_extra(salario_hora, &semanas, uma_diaria, empleado.salario_diario <= salario_minimo)
    });
    // The period's own perceptions go first, in the order of the CFDI's usual receipt.
    let mut propias = Vec::new();
    if let Some(he) = &horas_extra
        && !he.importe().is_zero()
    {
        propias.push(PercepcionCruda {
            tipo: Some("019".into()),
            concepto: Some(CONCEPTO_HORAS_EXTRA.into()),
            importe: Some(he.importe().into()),
            gravado: Some(he.gravado.into()),
            exento: Some(he.exento.into()),
            domingos: None,
        });
    }
    if vacaciones > 0 {
        let prima = prima_vacacional(empleado.salario_diario, vacaciones);
        if !prima.is_zero() {
            let reparto = empleado.exentos_previos.reparto("021", prima, uma_diaria);
            propias.push(PercepcionCruda {
                tipo: Some("021".into()),
                concepto: Some(CONCEPTO_PRIMA_VACACIONAL.into()),
                importe: Some(prima.into()),
                gravado: reparto.map(|(g, _)| g.into()),
                exento: reparto.map(|(_, e)| e.into()),
                domingos: None,
            });
        }
    }
    if domingos > 0 {
        let prima = prima_dominical(empleado.salario_diario, domingos);
        if !prima.is_zero() {
            propias.push(PercepcionCruda {
                tipo: Some("020".into()),
                concepto: Some(CONCEPTO_PRIMA_DOMINICAL.into()),
                importe: Some(prima.into()),
                domingos: Some(domingos.into()),
                ..PercepcionCruda::default()
            });
        }
    }
    propias.extend(percepciones);
    if dias_pagados == 0 && propias.is_empty() {
        return Err(SinRecibo::SinDiasPagados);
    }

    let solicitud = CalculoNomina {
        salario_diario: Some(empleado.salario_diario.into()),
        salario_diario_integrado: Some(empleado.salario_diario_integrado.into()),
        dias_pagados: Some(dias_pagados.into()),
        periodicidad: Some(periodo.periodicidad.nombre().into()),
        riesgo_puesto: Some(u32::from(empleado.riesgo_puesto).into()),
        percepciones: (!propias.is_empty()).then_some(propias),
        deducciones: (!deducciones.is_empty()).then_some(deducciones),
        zona: None,
        fecha_pago: Some(Campo::Texto(periodo.fecha_pago.to_string())),
    };
    Ok(ReciboPreparado { solicitud, dias_pagados, dias_falta, horas_extra, incapacidades })
}

/// A perception line of the receipt (Nómina 1.2 Percepcion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaPercepcion {
    /// c_TipoPercepcion.
    pub tipo: String,
    /// The employer's key (the type code).
    pub clave: String,
    /// Description.
    pub concepto: String,
    /// ImporteGravado.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gravado: Decimal,
    /// ImporteExento.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub exento: Decimal,
    /// HorasExtra nodes of perception 019.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub horas_extra: Vec<LineaHorasExtra>,
}

/// A HorasExtra node: the hours of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaHorasExtra {
    /// Days on which they were worked.
    pub dias: u32,
    /// c_TipoHoras: 01 dobles, 02 triples.
    pub tipo_horas: String,
    /// Hours.
    pub horas: u32,
    /// ImportePagado.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub importe_pagado: Decimal,
}

/// A deduction line (Nómina 1.2 Deduccion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaDeduccion {
    /// c_TipoDeduccion.
    pub tipo: String,
    /// The employer's key (the type code).
    pub clave: String,
    /// Description.
    pub concepto: String,
    /// Importe.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub importe: Decimal,
}

/// An other-payment line (Nómina 1.2 OtroPago).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaOtroPago {
    /// c_TipoOtroPago.
    pub tipo: String,
    /// The employer's key (the type code).
    pub clave: String,
    /// Description.
    pub concepto: String,
    /// Importe (0.00 for the subsidy since 2024-05-01).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub importe: Decimal,
    /// SubsidioAlEmpleo/@SubsidioCausado, for type 002.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "rust_decimal::serde::arbitrary_precision_option"
    )]
    pub subsidio_causado: Option<Decimal>,
    /// CompensacionSaldosAFavor, for type 004 (the annual adjustment's balance in favour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensacion: Option<LineaCompensacion>,
}

/// Nómina 1.2 `CompensacionSaldosAFavor` of an OtroPago 004.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaCompensacion {
    /// SaldoAFavor: the whole balance in favour.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub saldo_a_favor: Decimal,
    /// Año: the ejercicio of the balance.
    pub anio: i32,
    /// RemanenteSalFav: SaldoAFavor − Importe.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub remanente_sal_fav: Decimal,
}

/// The lines of a receipt, as the CFDI's Nómina 1.2 complement carries them; their sums are
/// the calculation's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineasRecibo {
    /// Perceptions: 001 sueldo, then the period's own (019, 021, 020) and the others.
    pub percepciones: Vec<LineaPercepcion>,
    /// Deductions: 001 seguridad social, 002 ISR, then the others.
    pub deducciones: Vec<LineaDeduccion>,
    /// Other payments: 002 subsidio para el empleo when caused.
    pub otros_pagos: Vec<LineaOtroPago>,
    /// Disabilities of the period (days IMSS pays, not in the receipt's amounts).
    pub incapacidades: Vec<IncapacidadRecibo>,
    /// The SeparacionIndemnizacion node of a finiquito with perceptions 022, 023 or 025.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separacion: Option<LineaSeparacion>,
}

/// Nómina 1.2 `SeparacionIndemnizacion` of a receipt (PAYROLL_EXTRAS_2026.md §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineaSeparacion {
    /// TotalPagado: Σ 022, 023 and 025.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_pagado: Decimal,
    /// NumAñosServicio.
    pub num_anios_servicio: u32,
    /// UltimoSueldoMensOrd.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ultimo_sueldo_mens_ord: Decimal,
    /// IngresoAcumulable.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingreso_acumulable: Decimal,
    /// IngresoNoAcumulable.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ingreso_no_acumulable: Decimal,
}

/// The lines of a calculated receipt: `entrada` and `resultado` are the gross-to-net of the
/// body of [`ReciboPreparado::solicitud`].
pub fn lineas(entrada: &EntradaValidada, resultado: &ResultadoNomina, preparado: &ReciboPreparado) -> LineasRecibo {
    let mut percepciones = Vec::new();
    let sueldo = resultado.percepciones.sueldo_base;
    if !sueldo.is_zero() {
        percepciones.push(LineaPercepcion {
            tipo: "001".into(),
            clave: "001".into(),
            concepto: "Sueldo".into(),
            gravado: sueldo,
            exento: centavos(Decimal::ZERO),
            horas_extra: Vec::new(),
        });
    }
    for p in &resultado.desglose.percepciones {
        let mut horas_extra = Vec::new();
        if p.tipo == "019"
            && let Some(he) = &preparado.horas_extra
        {
            if he.horas_dobles > 0 {
                horas_extra.push(LineaHorasExtra {
                    dias: he.dias_dobles,
                    tipo_horas: "01".into(),
                    horas: he.horas_dobles,
                    importe_pagado: he.importe_dobles,
                });
            }
            if he.horas_triples > 0 {
                horas_extra.push(LineaHorasExtra {
                    dias: he.dias_triples,
                    tipo_horas: "02".into(),
                    horas: he.horas_triples,
                    importe_pagado: he.importe_triples,
                });
            }
        }
        percepciones.push(LineaPercepcion {
            tipo: p.tipo.clone(),
            clave: p.tipo.clone(),
            concepto: p.concepto.clone(),
            gravado: p.gravado,
            exento: p.exento,
            horas_extra,
        });
    }
    let mut deducciones = Vec::new();
    let d = &resultado.deducciones;
    if !d.imss_empleado.is_zero() {
        deducciones.push(LineaDeduccion {
            tipo: "001".into(),
            clave: "001".into(),
            concepto: "Seguridad social".into(),
            importe: d.imss_empleado,
        });
    }
    if !d.isr_retenido.is_zero() {
        deducciones.push(LineaDeduccion {
            tipo: "002".into(),
            clave: "002".into(),
            concepto: "ISR".into(),
            importe: d.isr_retenido,
        });
    }
    for extra in entrada.deducciones() {
        deducciones.push(LineaDeduccion {
            tipo: extra.tipo.clone(),
            clave: extra.tipo.clone(),
            concepto: extra.concepto.clone(),
            importe: centavos(extra.importe),
        });
    }
    let mut otros_pagos = Vec::new();
    let causado = resultado.desglose.subsidio_causado;
    if !causado.is_zero() {
        // Since 2024-05-01 the subsidy is never paid in cash: OtroPago 002 with Importe 0.00
        // carries the subsidy caused (PAYROLL_2026.md §6.2).
        otros_pagos.push(LineaOtroPago {
            tipo: "002".into(),
            clave: "002".into(),
            concepto: "Subsidio para el empleo".into(),
            importe: resultado.otros_pagos.subsidio_entregado,
            subsidio_causado: Some(causado),
            compensacion: None,
        });
    }
    LineasRecibo {
        percepciones,
        deducciones,
        otros_pagos,
        incapacidades: preparado.incapacidades.clone(),
        separacion: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    const UMA: Decimal = dec!(117.31);

    #[test]
    fn the_first_nine_hours_of_a_week_are_double_the_rest_triple() {
        // 500/day, 8 h: 62.50 an hour. Week 1: 3+3+3+2 = 11 h → 9 double, 2 triple (the fourth
        // day is all triple). Week 2: 4 h double.
        let he = horas_extra(dec!(62.5), &[vec![3, 3, 3, 2], vec![4]], UMA, false);
        assert_eq!((he.horas_dobles, he.horas_triples), (13, 2));
        assert_eq!((he.dias_dobles, he.dias_triples), (4, 1));
        assert_eq!(he.importe_dobles, dec!(1625.00)); // 9×125 + 4×125
        assert_eq!(he.importe_triples, dec!(375.00)); // 2×187.50
        // Exempt: half of the double pay per week, capped at 5 UMA (586.55) per week:
        // min(562.50, 586.55) + min(250, 586.55).
        assert_eq!(he.exento, dec!(812.50));
        assert_eq!(he.gravado + he.exento, he.importe());
    }

    #[test]
    fn the_weekly_cap_of_five_uma_and_the_minimum_wage() {
        // 3,000/day: 375 an hour, 9 double hours = 6,750; half is 3,375, capped at 586.55.
        let he = horas_extra(dec!(375), &[vec![9]], UMA, false);
        assert_eq!(he.exento, dec!(586.55));
        assert_eq!(he.gravado, dec!(6163.45));
        // Minimum wage (315.04/8 = 39.38): all double hours exempt, triple hours taxable.
        let he = horas_extra(dec!(315.04) / dec!(8), &[vec![5, 5]], UMA, true);
        assert_eq!(he.importe_dobles, dec!(708.84));
        assert_eq!(he.exento, dec!(708.84));
        assert_eq!(he.gravado, he.importe_triples);
        assert_eq!(he.importe_triples, dec!(118.14));
    }

    #[test]
    fn jornada_hours() {
        assert_eq!(horas_jornada(Some("01")), dec!(8));
        assert_eq!(horas_jornada(Some("02")), dec!(7));
        assert_eq!(horas_jornada(Some("03")), dec!(7.5));
        assert_eq!(horas_jornada(None), dec!(8));
        assert_eq!(prima_vacacional(dec!(500), 6), dec!(750.00));
        assert_eq!(prima_dominical(dec!(333.33), 3), dec!(250.00));
    }

    fn empleado() -> EmpleadoPeriodo {
        EmpleadoPeriodo {
            salario_diario: dec!(500),
            salario_diario_integrado: dec!(522.60),
            riesgo_puesto: 1,
            tipo_jornada: Some("01".into()),
            fecha_inicio_rel_laboral: date!(2020 - 01 - 01),
            exentos_previos: ExentosAnuales::default(),
        }
    }

    fn quincena() -> Periodo {
        Periodo {
            fecha_inicio: date!(2026 - 03 - 01),
            fecha_fin: date!(2026 - 03 - 15),
            fecha_pago: date!(2026 - 03 - 15),
            periodicidad: Periodicidad::Quincenal,
            dias_pagados: 15,
        }
    }

    #[test]
    fn absences_and_disabilities_reduce_the_days_paid() {
        let incidencias = [
            Incidencia::Falta { dias: 2 },
            Incidencia::Incapacidad { dias: 3, tipo: "02".into() },
            Incidencia::Vacaciones { dias: 4 },
        ];
        let r = preparar(&empleado(), &quincena(), &incidencias, UMA, dec!(315.04)).unwrap();
        assert_eq!((r.dias_pagados, r.dias_falta), (10, 2));
        assert_eq!(r.incapacidades, [IncapacidadRecibo { dias: 3, tipo: "02".into() }]);
        let p = r.solicitud.percepciones.as_ref().unwrap();
        assert_eq!(p[0].tipo, Some("021".into()));
        assert_eq!(p[0].importe, Some(dec!(500.00).into()));
        let entrada = r.solicitud.validar().unwrap();
        assert_eq!(entrada.dias_pagados(), dec!(10));

        // More absences than days: nothing left, no receipt.
        let todo = [Incidencia::Falta { dias: 10 }, Incidencia::Incapacidad { dias: 10, tipo: "01".into() }];
        assert_eq!(
            preparar(&empleado(), &quincena(), &todo, UMA, dec!(315.04)).unwrap_err(),
            SinRecibo::SinDiasPagados
        );
    }

    #[test]
    fn hires_within_the_period_and_after_it() {
        let mut e = empleado();
        e.fecha_inicio_rel_laboral = date!(2026 - 03 - 11);
        let r = preparar(&e, &quincena(), &[], UMA, dec!(315.04)).unwrap();
        assert_eq!(r.dias_pagados, 5);
        e.fecha_inicio_rel_laboral = date!(2026 - 03 - 16);
        assert!(matches!(preparar(&e, &quincena(), &[], UMA, dec!(315.04)), Err(SinRecibo::PosteriorAlPeriodo(_))));
    }

    #[test]
    fn overtime_is_grouped_by_calendar_week() {
        // 2026-03-01 is a Sunday: it belongs to the week of Monday 2026-02-23. The next week
        // gets 6 + 5 = 11 hours: 9 double, 2 triple.
        let incidencias = [
            Incidencia::HorasExtra { fecha: date!(2026 - 03 - 01), horas: 8 },
            Incidencia::HorasExtra { fecha: date!(2026 - 03 - 02), horas: 6 },
            Incidencia::HorasExtra { fecha: date!(2026 - 03 - 06), horas: 5 },
        ];
        let r = preparar(&empleado(), &quincena(), &incidencias, UMA, dec!(315.04)).unwrap();
        let he = r.horas_extra.unwrap();
        assert_eq!((he.horas_dobles, he.horas_triples, he.dias_dobles, he.dias_triples), (17, 2, 3, 1));
        let p = &r.solicitud.percepciones.unwrap()[0];
        assert_eq!(p.tipo, Some("019".into()));
        assert_eq!(p.gravado, Some(he.gravado.into()));
    }

    #[test]
    fn the_lines_add_up_to_the_totals_of_the_calculation() {
        let incidencias = [
            Incidencia::HorasExtra { fecha: date!(2026 - 03 - 02), horas: 6 },
            Incidencia::HorasExtra { fecha: date!(2026 - 03 - 03), horas: 5 },
            Incidencia::Vacaciones { dias: 3 },
            Incidencia::PrimaDominical { domingos: 2 },
            Incidencia::Percepcion { tipo: "038".into(), concepto: "Bono".into(), importe: dec!(1000), reparto: None },
            Incidencia::Deduccion { tipo: "011".into(), concepto: "Fonacot".into(), importe: dec!(250.5) },
            Incidencia::Incapacidad { dias: 1, tipo: "02".into() },
        ];
        let r = preparar(&empleado(), &quincena(), &incidencias, UMA, dec!(315.04)).unwrap();
        let entrada = r.solicitud.validar().unwrap();
        let resultado = crate::calcular(&entrada, date!(2026 - 03 - 15)).unwrap();
        let l = lineas(&entrada, &resultado, &r);
        let tipos: Vec<&str> = l.percepciones.iter().map(|p| p.tipo.as_str()).collect();
        assert_eq!(tipos, ["001", "019", "021", "020", "038"]);
        let gravado: Decimal = l.percepciones.iter().map(|p| p.gravado).sum();
        let exento: Decimal = l.percepciones.iter().map(|p| p.exento).sum();
        assert_eq!(gravado, resultado.percepciones.total_gravado);
        assert_eq!(exento, resultado.percepciones.total_exento);
        let deducciones: Decimal = l.deducciones.iter().map(|d| d.importe).sum();
        assert_eq!(deducciones, resultado.deducciones.total_deducciones);
        let horas = &l.percepciones[1].horas_extra;
        assert_eq!((horas[0].tipo_horas.as_str(), horas[0].horas, horas[0].dias), ("01", 9, 2));
        assert_eq!((horas[1].tipo_horas.as_str(), horas[1].horas, horas[1].dias), ("02", 2, 1));
        assert_eq!(l.incapacidades.len(), 1);
        // Prima dominical: 2 × 125 = 250, exempt up to 2 UMA = 234.62.
        assert_eq!((l.percepciones[3].gravado, l.percepciones[3].exento), (dec!(15.38), dec!(234.62)));
        // The body serializes to what the calculator reads back.
        let json = serde_json::to_string(&r.solicitud).unwrap();
        let leido: CalculoNomina = serde_json::from_str(&json).unwrap();
        assert_eq!(leido.validar().unwrap(), entrada);
    }

    #[test]
    fn yearly_limits_count_what_earlier_receipts_exempted() {
        // 15 UMA = 1,759.65. Earlier receipts exempted 1,500.00 of prima vacacional: 259.65 left.
        let mut e = empleado();
        e.salario_diario = dec!(3000);
        e.salario_diario_integrado = dec!(3147.90);
        e.exentos_previos = ExentosAnuales { prima_vacacional: dec!(1500), ..ExentosAnuales::default() };
        let r = preparar(&e, &quincena(), &[Incidencia::Vacaciones { dias: 2 }], UMA, dec!(315.04)).unwrap();
        let p = &r.solicitud.percepciones.as_ref().unwrap()[0];
        assert_eq!((p.gravado.clone(), p.exento.clone()), (Some(dec!(1240.35).into()), Some(dec!(259.65).into())));
        // The limit used up: all taxable. Aguinaldo's 30 UMA are its own.
        e.exentos_previos.prima_vacacional = dec!(1759.65);
        e.exentos_previos.aguinaldo = dec!(3000);
        let aguinaldo = Incidencia::Percepcion {
            tipo: "002".into(),
            concepto: "Aguinaldo".into(),
            importe: dec!(1000),
            reparto: None,
        };
        let r = preparar(&e, &quincena(), &[Incidencia::Vacaciones { dias: 2 }, aguinaldo], UMA, dec!(315.04)).unwrap();
        let p = r.solicitud.percepciones.as_ref().unwrap();
        assert_eq!(p[0].exento, Some(dec!(0.00).into()));
        assert_eq!((p[1].gravado.clone(), p[1].exento.clone()), (Some(dec!(480.70).into()), Some(dec!(519.30).into())));
        let entrada = r.solicitud.validar().unwrap();
        let resultado = crate::calcular(&entrada, date!(2026 - 03 - 15)).unwrap();
        let l = lineas(&entrada, &resultado, &r);
        assert_eq!(
            ExentosAnuales::de_lineas(&l),
            ExentosAnuales { aguinaldo: dec!(519.30), ptu: Decimal::ZERO, prima_vacacional: dec!(0.00) }
        );
        // Nothing used before: no split sent, the calculator applies the single-payment rule.
        assert_eq!(ExentosAnuales::default().reparto("021", dec!(100), UMA), None);
        assert_eq!(ExentosAnuales { ptu: dec!(1), ..ExentosAnuales::default() }.reparto("019", dec!(100), UMA), None);
    }
}
