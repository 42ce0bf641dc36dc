//! PTU, participación de los trabajadores en las utilidades (LFT Arts. 117–127),
//! PAYROLL_EXTRAS_2026.md §2.
//!
//! * The amount to distribute is 10 % of the taxable profit (Arts. 117, 120); it is an input.
//! * **Art. 123**: half is divided by the days worked in the ejercicio, whatever the salary; the
//!   other half in proportion to the salaries earned in it.
//! * **Art. 124**: the salary is the cuota diaria in cash (no gratificaciones, Art. 84 benefits
//!   or overtime). timbra uses salario diario × days worked from the employee record (§2.2).
//! * **Art. 127**: I directors, administrators and general managers are excluded; II a worker de
//!   confianza whose salary exceeds that of the highest-paid unionised worker (failing one, the
//!   highest-paid worker de planta) takes part with that salary + 20 %; IV maternity leave and
//!   work-risk incapacity count as worked (incapacities are not deducted); VI domestic workers
//!   are excluded; VII eventual workers (tipoContrato 02 obra determinada, 03 tiempo determinado)
//!   take part only with at least 60 days; VIII each share is capped at three months of salary
//!   (90 × cuota diaria, §8) or the average PTU of the last three years, whichever is higher.
//!   The law does not say where the excess goes: timbra keeps it undistributed as `remanente`
//!   (confidence L, §2.2).
//! * Days worked: max(hire, 1 January) to min(exit, 31 December), both included, less the
//!   approved FALTA days of the ejercicio.
//! * Share = `round2(monto/2 × días/Σdías + monto/2 × salario/Σsalarios)`, factors unrounded;
//!   the centavos left by rounding are not reallocated.
//! * Exemption: 15 UMA of the payment date (Art. 93 fr. XIV LISR, 1,759.65 in 2026); ISR by the
//!   company's method ([`crate::isr_extraordinario`]). CFDI: TipoNomina E, PeriodicidadPago 99,
//!   Percepcion 003 (§2.4).

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use serde::Serialize;
use time::Date;

use crate::antiguedad::{dias_incluidos, fin_de_anio, primero_de_enero};
use crate::centavos;
use crate::isr_extraordinario::{IsrExtraordinario, MetodoIsr, ingreso_mensual_ordinario, isr_extraordinario};
use crate::parametros::{Parametros, SinParametros};

/// Percepción 003, Participación de los Trabajadores en las Utilidades PTU.
pub const TIPO_PERCEPCION: &str = "003";

/// Art. 93 fr. XIV LISR: PTU exempt up to 15 UMA.
pub const UMAS_EXENTAS: Decimal = dec!(15);

/// Art. 127 fr. VII LFT: eventual workers need at least 60 days worked in the ejercicio.
pub const DIAS_MINIMOS_EVENTUAL: u32 = 60;

/// Art. 127 fr. II LFT: the confianza cap is the reference salary + 20 %.
pub const FACTOR_TOPE_CONFIANZA: Decimal = dec!(1.2);

/// Art. 127 fr. VIII LFT: "three months of salary", read as 90 days of cuota diaria (§8).
pub const DIAS_TOPE_TRES_MESES: Decimal = dec!(90);

/// One worker as the distribution reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrabajadorPtu {
    /// The caller's key for the worker (employee id or número de empleado).
    pub clave: String,
    /// Cuota diaria in cash (Art. 124 LFT).
    pub salario_diario: Decimal,
    /// Hire date.
    pub fecha_alta: Date,
    /// Exit date, if the worker left.
    pub fecha_baja: Option<Date>,
    /// c_TipoContrato; 02 and 03 are eventual (Art. 127 fr. VII).
    pub tipo_contrato: String,
    /// Approved FALTA days within the ejercicio (incapacities are not absences, Art. 127 IV).
    pub dias_falta: u32,
    /// Trabajador de confianza (Art. 127 fr. II).
    pub confianza: bool,
    /// Director, administrador or gerente general (Art. 127 fr. I).
    pub director: bool,
    /// Trabajador del hogar (Art. 127 fr. VI).
    pub domestico: bool,
    /// Average PTU of the three previous ejercicios (Percepciones 003), for the Art. 127
    /// fr. VIII cap; `None` when unknown (the three-month cap alone applies).
    pub promedio_ptu_tres_anios: Option<Decimal>,
}

/// The distribution request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntradaPtu {
    /// The ejercicio whose profit is distributed.
    pub ejercicio: i32,
    /// The amount to distribute (10 % of the taxable profit).
    pub monto: Decimal,
    /// Payment date (its UMA sets the exemption, its tariff the ISR).
    pub fecha_pago: Date,
    /// The company's ISR method for extraordinary payments.
    pub metodo: MetodoIsr,
    /// Daily salary of the highest-paid unionised worker (or, failing one, of planta) for the
    /// Art. 127 fr. II cap. `None`: the highest salary among the participating workers not
    /// flagged de confianza.
    pub salario_referencia_confianza: Option<Decimal>,
}

/// Why a worker gets no PTU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Exclusion {
    /// Art. 127 fr. I: director, administrador or gerente general.
    Director,
    /// Art. 127 fr. VI: trabajador del hogar.
    Domestico,
    /// Art. 127 fr. VII: eventual with fewer than 60 days.
    EventualMenosDe60Dias,
    /// No day worked in the ejercicio.
    SinDiasTrabajados,
}

/// One worker's share with its pieces (a [`Exclusion`] leaves every amount at zero).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PtuTrabajador {
    /// The worker's key.
    pub clave: String,
    /// Why the worker is out of the distribution, if so.
    pub excluido: Option<Exclusion>,
    /// Days worked in the ejercicio.
    pub dias: u32,
    /// Daily salary used for the distribution (capped for confianza workers).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub salario_diario_reparto: Decimal,
    /// Salary earned in the ejercicio for the distribution: salario × días.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub salario_anual: Decimal,
    /// The half divided by days, rounded (shown; the share is rounded once from the exact sum).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub por_dias: Decimal,
    /// The half divided by salaries, rounded (shown).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub por_salario: Decimal,
    /// Share before the Art. 127 fr. VIII cap.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ptu_calculada: Decimal,
    /// The Art. 127 fr. VIII cap: max(90 × cuota diaria, average of the last three years).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub tope: Decimal,
    /// PTU paid (Percepcion 003): min(calculada, tope).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub ptu: Decimal,
    /// What the cap held back (not redistributed).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub remanente: Decimal,
    /// ImporteExento (15 UMA).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub exento: Decimal,
    /// ImporteGravado.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub gravado: Decimal,
    /// ISR by both methods (`None` for an excluded worker).
    pub isr_metodos: Option<IsrExtraordinario>,
    /// ISR withheld (Deduccion 002) by the company's method.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub isr: Decimal,
    /// ptu − isr.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub neto: Decimal,
}

/// The whole distribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepartoPtu {
    /// The ejercicio.
    pub ejercicio: i32,
    /// Amount distributed.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub monto: Decimal,
    /// Σ days of the participants.
    pub total_dias: u32,
    /// Σ salaries of the participants.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_salarios: Decimal,
    /// The confianza cap applied (reference salary × 1.2), if any.
    #[serde(with = "rust_decimal::serde::arbitrary_precision_option")]
    pub tope_confianza: Option<Decimal>,
    /// Σ PTU paid.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub total_pagado: Decimal,
    /// Σ held back by the fr. VIII caps.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub remanente: Decimal,
    /// One row per worker received, in order.
    pub trabajadores: Vec<PtuTrabajador>,
}

/// Bad input for a distribution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorPtu {
    /// monto ≤ 0 (§2.4).
    #[error("el monto a repartir debe ser mayor que cero")]
    MontoNoPositivo,
    /// The ejercicio has not ended by the payment date (§2.4).
    #[error("el ejercicio {ejercicio} no ha terminado en la fecha de pago {fecha_pago}")]
    EjercicioNoTerminado {
        /// Ejercicio asked for.
        ejercicio: i32,
        /// Payment date.
        fecha_pago: Date,
    },
    /// A worker has a daily wage ≤ 0.
    #[error("el trabajador {0} tiene salario diario no positivo")]
    SalarioNoPositivo(String),
    /// Nobody takes part.
    #[error("ningún trabajador participa en el reparto")]
    SinParticipantes,
    /// No parameters for the payment date.
    #[error(transparent)]
    SinParametros(#[from] SinParametros),
}

/// Days worked in `ejercicio`: max(hire, 1 Jan) to min(exit, 31 Dec), both included, less the
/// absences (§2.2).
pub fn dias_trabajados(ejercicio: i32, alta: Date, baja: Option<Date>, faltas: u32) -> u32 {
    let inicio = alta.max(primero_de_enero(ejercicio));
    let fin = baja.map_or(fin_de_anio(ejercicio), |b| b.min(fin_de_anio(ejercicio)));
    dias_incluidos(inicio, fin).saturating_sub(faltas)
}

fn eventual(tipo_contrato: &str) -> bool {
    matches!(tipo_contrato, "02" | "03")
}

fn exclusion(t: &TrabajadorPtu, dias: u32) -> Option<Exclusion> {
    if t.director {
        Some(Exclusion::Director)
    } else if t.domestico {
        Some(Exclusion::Domestico)
    } else if dias == 0 {
        Some(Exclusion::SinDiasTrabajados)
    } else if eventual(&t.tipo_contrato) && dias < DIAS_MINIMOS_EVENTUAL {
        Some(Exclusion::EventualMenosDe60Dias)
    } else {
        None
    }
}

/// Distributes `entrada.monto` among `trabajadores` (LFT Arts. 123–127).
///
/// # Errors
/// [`ErrorPtu`] on monto ≤ 0, an ejercicio not ended by the payment date, a wage ≤ 0, nobody
/// taking part, or a payment date without parameters.
pub fn repartir_ptu(entrada: &EntradaPtu, trabajadores: &[TrabajadorPtu]) -> Result<RepartoPtu, ErrorPtu> {
    if entrada.monto <= Decimal::ZERO {
        return Err(ErrorPtu::MontoNoPositivo);
    }
    if entrada.ejercicio >= entrada.fecha_pago.year() {
        return Err(ErrorPtu::EjercicioNoTerminado { ejercicio: entrada.ejercicio, fecha_pago: entrada.fecha_pago });
    }
    if let Some(t) = trabajadores.iter().find(|t| t.salario_diario <= Decimal::ZERO) {
        return Err(ErrorPtu::SalarioNoPositivo(t.clave.clone()));
    }
    let parametros = Parametros::vigentes(entrada.fecha_pago)?;

    let filas: Vec<(u32, Option<Exclusion>)> = trabajadores
        .iter()
        .map(|t| {
            let dias = dias_trabajados(entrada.ejercicio, t.fecha_alta, t.fecha_baja, t.dias_falta);
            (dias, exclusion(t, dias))
        })
        .collect();
    let participa = |i: usize| filas[i].1.is_none();

    // Art. 127 fr. II: reference salary of the highest-paid worker who is not de confianza.
    let referencia = entrada.salario_referencia_confianza.or_else(|| {
        trabajadores
            .iter()
            .enumerate()
            .filter(|&(i, t)| participa(i) && !t.confianza)
            .map(|(_, t)| t.salario_diario)
            .max()
    });
    let tope_confianza = referencia.map(|r| r * FACTOR_TOPE_CONFIANZA);
    let salario_reparto = |t: &TrabajadorPtu| match tope_confianza {
        Some(tope) if t.confianza => t.salario_diario.min(tope),
        _ => t.salario_diario,
    };

    let total_dias: u32 = (0..trabajadores.len()).filter(|&i| participa(i)).map(|i| filas[i].0).sum();
    let total_salarios: Decimal = trabajadores
        .iter()
        .enumerate()
        .filter(|&(i, _)| participa(i))
        .map(|(i, t)| salario_reparto(t) * Decimal::from(filas[i].0))
        .sum();
    if total_dias == 0 || total_salarios <= Decimal::ZERO {
        return Err(ErrorPtu::SinParticipantes);
    }

    let mitad = entrada.monto / dec!(2);
    let exento_maximo = UMAS_EXENTAS * parametros.uma.diaria;
    let cero = centavos(Decimal::ZERO);
    let filas_ptu: Vec<PtuTrabajador> = trabajadores
        .iter()
        .zip(&filas)
        .map(|(t, &(dias, excluido))| {
            let salario_diario_reparto = centavos(salario_reparto(t));
            if excluido.is_some() {
                return PtuTrabajador {
                    clave: t.clave.clone(),
                    excluido,
                    dias,
                    salario_diario_reparto,
                    salario_anual: cero,
                    por_dias: cero,
                    por_salario: cero,
                    ptu_calculada: cero,
                    tope: cero,
                    ptu: cero,
                    remanente: cero,
                    exento: cero,
                    gravado: cero,
                    isr_metodos: None,
                    isr: cero,
                    neto: cero,
                };
            }
            let salario_anual = salario_reparto(t) * Decimal::from(dias);
            let por_dias = mitad * Decimal::from(dias) / Decimal::from(total_dias);
            let por_salario = mitad * salario_anual / total_salarios;
            let ptu_calculada = centavos(por_dias + por_salario);
            // Art. 127 fr. VIII: three months of salary or the 3-year average, the higher.
            let tope =
                centavos((DIAS_TOPE_TRES_MESES * t.salario_diario).max(t.promedio_ptu_tres_anios.unwrap_or_default()));
            let ptu = ptu_calculada.min(tope);
            let exento = centavos(ptu.min(exento_maximo));
            let gravado = ptu - exento;
            let isr_metodos =
                isr_extraordinario(parametros.tarifa, ingreso_mensual_ordinario(t.salario_diario), gravado);
            let isr = isr_metodos.del_metodo(entrada.metodo);
            PtuTrabajador {
                clave: t.clave.clone(),
                excluido,
                dias,
                salario_diario_reparto,
                salario_anual: centavos(salario_anual),
                por_dias: centavos(por_dias),
                por_salario: centavos(por_salario),
                ptu_calculada,
                tope,
                ptu,
                remanente: ptu_calculada - ptu,
                exento,
                gravado,
                isr_metodos: Some(isr_metodos),
                isr,
                neto: ptu - isr,
            }
        })
        .collect();

    Ok(RepartoPtu {
        ejercicio: entrada.ejercicio,
        monto: centavos(entrada.monto),
        total_dias,
        total_salarios: centavos(total_salarios),
        tope_confianza: tope_confianza.map(centavos),
        total_pagado: filas_ptu.iter().map(|f| f.ptu).sum(),
        remanente: filas_ptu.iter().map(|f| f.remanente).sum(),
        trabajadores: filas_ptu,
    })
}

#[cfg(test)]
#[path = "ptu_tests.rs"]
mod tests;
