//! Days and seniority as the year-end calculations count them, and the vacation table.
//!
//! Conventions of PAYROLL_EXTRAS_2026.md §0.2 (confidence M):
//! * days are counted with both ends included (2026-07-01 to 2026-12-31 is 184 days);
//! * Y, the years of service, is the number of anniversaries on or before the date; d the days
//!   from the last anniversary (or the hire date) to the date, both included; the fraction of
//!   years is `Y + d/365`, unrounded (an exit on the day before an anniversary is a whole year);
//! * NumAñosServicio (Nómina 1.2, and the Art. 93 fr. XIII LISR exemption) is Y, plus 1 when the
//!   date is on or after the last anniversary plus six calendar months ("toda fracción de más de
//!   seis meses se considerará un año completo", Art. 93 XIII; nomina12.xsd);
//! * vacations of the current service year are those of year Y + 1 (LFT Art. 76, table below).

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use time::{Date, Month};

/// Days from `desde` to `hasta`, both included; 0 when `hasta` is before `desde`.
pub fn dias_incluidos(desde: Date, hasta: Date) -> u32 {
    u32::try_from((hasta - desde).whole_days() + 1).unwrap_or(0)
}

/// 1 January of `anio`.
pub fn primero_de_enero(anio: i32) -> Date {
    Date::from_calendar_date(anio, Month::January, 1).unwrap_or(Date::MIN)
}

/// 31 December of `anio`.
pub fn fin_de_anio(anio: i32) -> Date {
    Date::from_calendar_date(anio, Month::December, 31).unwrap_or(Date::MAX)
}

/// The same day and month in `anio`; a 29 February falls on 28 February in common years.
fn en_anio(fecha: Date, anio: i32) -> Date {
    fecha
        .replace_year(anio)
        .unwrap_or_else(|_| Date::from_calendar_date(anio, fecha.month(), fecha.day().min(28)).unwrap_or(fecha))
}

/// `fecha` plus `meses` calendar months, the day clamped to the month's length.
fn mas_meses(fecha: Date, meses: u8) -> Date {
    let indice = u8::from(fecha.month()) - 1 + meses;
    let anio = fecha.year() + i32::from(indice / 12);
    let mes = Month::try_from(indice % 12 + 1).unwrap_or(Month::January);
    let dia = fecha.day().min(mes.length(anio));
    Date::from_calendar_date(anio, mes, dia).unwrap_or(fecha)
}

/// Seniority on a date (§0.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Antiguedad {
    /// Y: anniversaries on or before the date.
    pub anios_cumplidos: u32,
    /// d: days from the last anniversary (or the hire date) to the date, both included.
    pub dias: u32,
    /// Y + d/365, unrounded.
    pub anios: Decimal,
    /// NumAñosServicio: Y, plus 1 when the date is at least six calendar months after the last
    /// anniversary (Art. 93 fr. XIII LISR).
    pub num_anios_servicio: u32,
}

/// Seniority of a worker hired on `alta` at `fecha`. `None` when `fecha` is before `alta`.
pub fn antiguedad(alta: Date, fecha: Date) -> Option<Antiguedad> {
    if fecha < alta {
        return None;
    }
    let mut cumplidos = u32::try_from(fecha.year() - alta.year()).unwrap_or(0);
    if cumplidos > 0 && en_anio(alta, fecha.year()) > fecha {
        cumplidos -= 1;
    }
    let ultimo = en_anio(alta, alta.year() + i32::try_from(cumplidos).unwrap_or(0));
    let dias = dias_incluidos(ultimo, fecha);
    let extra = u32::from(fecha >= mas_meses(ultimo, 6));
    Some(Antiguedad {
        anios_cumplidos: cumplidos,
        dias,
        anios: Decimal::from(cumplidos) + Decimal::from(dias) / dec!(365),
        num_anios_servicio: cumplidos + extra,
    })
}

/// Days worked in the calendar year of `hasta`: from max(`alta`, 1 January) to `hasta`, both
/// included, at most 365 (the aguinaldo's proportion, LFT Art. 87; PAYROLL_EXTRAS_2026.md §1.2).
pub fn dias_en_el_anio(alta: Date, hasta: Date) -> u32 {
    let inicio = alta.max(primero_de_enero(hasta.year()));
    dias_incluidos(inicio, hasta).min(365)
}

/// Vacation days of the `anio`-th year of service (1 = first), LFT Art. 76 as reformed by
/// DOF 2022-12-27 (in force 2023-01-01): 12, 14, 16, 18, 20 for years 1–5, then 22 for 6–10
/// and two more for each further five years (24 for 11–15, … 32 for 31–35).
/// PAYROLL_EXTRAS_2026.md §3.3 (21–25 years is 28; tribuna.com.mx's 30 is a misprint, §8).
pub fn dias_vacaciones(anio: u32) -> u32 {
    match anio {
        0 => 0,
        1..=5 => 10 + 2 * anio,
        _ => 22 + 2 * ((anio - 6) / 5),
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    #[test]
    fn dias_con_ambos_extremos() {
        assert_eq!(dias_incluidos(date!(2026 - 07 - 01), date!(2026 - 12 - 31)), 184);
        assert_eq!(dias_incluidos(date!(2026 - 07 - 01), date!(2026 - 07 - 01)), 1);
        assert_eq!(dias_incluidos(date!(2026 - 07 - 02), date!(2026 - 07 - 01)), 0);
        assert_eq!(dias_en_el_anio(date!(2020 - 01 - 10), date!(2026 - 12 - 31)), 365);
        assert_eq!(dias_en_el_anio(date!(2020 - 01 - 10), date!(2024 - 12 - 31)), 365);
        assert_eq!(dias_en_el_anio(date!(2026 - 07 - 01), date!(2026 - 12 - 31)), 184);
    }

    // PAYROLL_EXTRAS_2026.md §3.7: hired 2019-01-01, exit 2026-07-15: Y 7, d 196, 8 years;
    // hired 2024-01-15, exit 2026-06-30: Y 2, d 167, 2 years.
    #[test]
    fn ejemplos_del_finiquito() {
        let a = antiguedad(date!(2019 - 01 - 01), date!(2026 - 07 - 15)).unwrap();
        assert_eq!((a.anios_cumplidos, a.dias, a.num_anios_servicio), (7, 196, 8));
        assert_eq!(a.anios.round_dp(6), dec!(7.536986));
        let b = antiguedad(date!(2024 - 01 - 15), date!(2026 - 06 - 30)).unwrap();
        assert_eq!((b.anios_cumplidos, b.dias, b.num_anios_servicio), (2, 167, 2));
    }

    #[test]
    fn aniversarios_y_seis_meses() {
        // The day before an anniversary: 365 days, a whole year.
        let a = antiguedad(date!(2025 - 03 - 10), date!(2026 - 03 - 09)).unwrap();
        assert_eq!((a.anios_cumplidos, a.dias, a.anios), (0, 365, dec!(1)));
        // On the anniversary: 1 year and 1 day.
        let b = antiguedad(date!(2025 - 03 - 10), date!(2026 - 03 - 10)).unwrap();
        assert_eq!((b.anios_cumplidos, b.dias), (1, 1));
        // Six calendar months after the anniversary counts one more year; the day before not.
        assert_eq!(antiguedad(date!(2020 - 08 - 31), date!(2026 - 02 - 27)).unwrap().num_anios_servicio, 5);
        assert_eq!(antiguedad(date!(2020 - 08 - 31), date!(2026 - 02 - 28)).unwrap().num_anios_servicio, 6);
        // 29 February hires have their anniversary on 28 February in common years.
        let c = antiguedad(date!(2024 - 02 - 29), date!(2025 - 02 - 28)).unwrap();
        assert_eq!((c.anios_cumplidos, c.dias), (1, 1));
        assert!(antiguedad(date!(2026 - 01 - 02), date!(2026 - 01 - 01)).is_none());
    }

    #[test]
    fn tabla_de_vacaciones() {
        let tabla: Vec<u32> = (1..=36).map(dias_vacaciones).collect();
        let esperada = [
            12, 14, 16, 18, 20, 22, 22, 22, 22, 22, 24, 24, 24, 24, 24, 26, 26, 26, 26, 26, 28, 28, 28, 28, 28, 30, 30,
            30, 30, 30, 32, 32, 32, 32, 32, 34,
        ];
        assert_eq!(tabla, esperada);
    }
}
