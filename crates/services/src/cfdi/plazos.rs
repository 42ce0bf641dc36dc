//! SAT's business days and the cancellation rules that count them (RMF 2026, regla 2.7.1.35;
//! PROTOCOLS.md §2.5): which CFDI cancel without the receiver's acceptance, and the receiver's
//! three business days to answer.
//!
//! Business days are Monday to Friday except the official rest days of LFT art. 74 (1 January,
//! the first Monday of February, the third Monday of March, 1 May, 16 September, the third
//! Monday of November, 25 December, and 1 October of the years a federal term begins), counted
//! in Mexico's central time, where SAT counts them. SAT's own extra days off (its vacation
//! periods, published each year) are not modelled.

use rust_decimal::Decimal;
use time::{Date, Month, OffsetDateTime, Weekday};

use super::{OFFSET_CENTRO, hora_local};

/// Business days the receiver has to answer a cancellation request (regla 2.7.1.35).
pub const DIAS_PARA_RESPONDER: u8 = 3;

/// RFC of the general public (regla 2.7.1.21), and of foreign receivers (2.7.1.23).
const RFC_PUBLICO_EN_GENERAL: &str = "XAXX010101000";
const RFC_EXTRANJERO: &str = "XEXX010101000";

/// The `n`-th `weekday` of `month` in `year` (from 1).
fn enesimo(year: i32, month: Month, weekday: Weekday, n: u8) -> Option<Date> {
    let primero = Date::from_calendar_date(year, month, 1).ok()?;
    let hasta = (7 + weekday.number_days_from_monday() - primero.weekday().number_days_from_monday()) % 7;
    primero.checked_add(time::Duration::days(i64::from(hasta) + 7 * i64::from(n - 1)))
}

/// An official rest day of LFT art. 74.
pub fn es_feriado(dia: Date) -> bool {
    let (year, month, day) = (dia.year(), dia.month(), dia.day());
    matches!((month, day), (Month::January, 1) | (Month::May, 1) | (Month::September, 16) | (Month::December, 25))
        || (month == Month::October && day == 1 && (year - 2024) % 6 == 0)
        || enesimo(year, Month::February, Weekday::Monday, 1) == Some(dia)
        || enesimo(year, Month::March, Weekday::Monday, 3) == Some(dia)
        || enesimo(year, Month::November, Weekday::Monday, 3) == Some(dia)
}

/// Monday to Friday and not a rest day.
pub fn es_habil(dia: Date) -> bool {
    !matches!(dia.weekday(), Weekday::Saturday | Weekday::Sunday) && !es_feriado(dia)
}

/// The first business day after `dia`.
pub fn siguiente_habil(dia: Date) -> Date {
    let mut siguiente = dia;
    loop {
        siguiente = siguiente.next_day().unwrap_or(siguiente);
        if es_habil(siguiente) || siguiente == Date::MAX {
            return siguiente;
        }
    }
}

/// `desde` plus `dias` business days, at the same time of day in Mexico's central time: a
/// request of Monday 10:00 expires Thursday 10:00; one of Friday, the next Wednesday.
pub fn sumar_habiles(desde: OffsetDateTime, dias: u8) -> OffsetDateTime {
    let local = hora_local(desde);
    let mut dia = local.date();
    for _ in 0..dias {
        dia = siguiente_habil(dia);
    }
    dia.with_time(local.time()).assume_offset(OFFSET_CENTRO).to_offset(desde.offset())
}

/// When the receiver's time to answer a request made at `solicitud` ends.
pub fn plazo_vence(solicitud: OffsetDateTime) -> OffsetDateTime {
    sumar_habiles(solicitud, DIAS_PARA_RESPONDER)
}

/// SAT's `EsCancelable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cancelable {
    /// `Cancelable sin aceptación`.
    SinAceptacion,
    /// `Cancelable con aceptación`.
    ConAceptacion,
    /// `No cancelable`: live related documents (payments, credit notes) must be cancelled first.
    No,
}

impl Cancelable {
    /// SAT's words.
    pub fn texto(self) -> &'static str {
        match self {
            Cancelable::SinAceptacion => "Cancelable sin aceptación",
            Cancelable::ConAceptacion => "Cancelable con aceptación",
            Cancelable::No => "No cancelable",
        }
    }
}

/// What regla 2.7.1.35 looks at in a CFDI.
pub struct DatosRegla<'a> {
    /// c_TipoDeComprobante.
    pub tipo_comprobante: &'a str,
    /// `Total`.
    pub total: Decimal,
    /// `Moneda`.
    pub moneda: &'a str,
    /// `TipoCambio` (to MXN).
    pub tipo_cambio: Option<Decimal>,
    /// `Receptor/@Rfc`.
    pub receptor_rfc: &'a str,
    /// When it was issued (`FechaTimbrado`, else `Fecha`).
    pub emitido: OffsetDateTime,
    /// It has live related payments or credit notes.
    pub relacionados_vigentes: bool,
}

/// Regla 2.7.1.35 as of 2026, for a cancellation asked at `ahora`: no acceptance needed for
/// (I) ingresos up to 1,000 MXN (payments are not exempt for their amount since 2026),
/// (II) nómina, (III) egresos, (IV) traslados, (VII) the general public, (VIII) foreign
/// receivers and (IX) any CFDI cancelled within the business day after its issue; live related
/// documents make it "No cancelable"; everything else needs the receiver's acceptance.
pub fn cancelable(datos: &DatosRegla<'_>, ahora: OffsetDateTime) -> Cancelable {
    if datos.relacionados_vigentes {
        return Cancelable::No;
    }
    let exento_por_tipo = matches!(datos.tipo_comprobante, "N" | "E" | "T");
    let receptor = datos.receptor_rfc.trim().to_uppercase();
    let exento_por_receptor = receptor == RFC_PUBLICO_EN_GENERAL || receptor == RFC_EXTRANJERO;
    let limite = siguiente_habil(hora_local(datos.emitido).date());
    let a_tiempo = hora_local(ahora).date() <= limite;
    let en_pesos = if datos.moneda.eq_ignore_ascii_case("MXN") || datos.moneda.eq_ignore_ascii_case("XXX") {
        datos.total
    } else {
        datos.total * datos.tipo_cambio.unwrap_or(Decimal::ONE)
    };
    let exento_por_monto = datos.tipo_comprobante == "I" && en_pesos <= Decimal::new(1000, 0);
    if exento_por_tipo || exento_por_receptor || a_tiempo || exento_por_monto {
        Cancelable::SinAceptacion
    } else {
        Cancelable::ConAceptacion
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    #[test]
    fn business_days_skip_weekends_and_rest_days() {
        assert!(
            es_feriado(date!(2026 - 11 - 16)) && es_feriado(date!(2026 - 02 - 02)) && es_feriado(date!(2026 - 03 - 16))
        );
        assert!(es_feriado(date!(2030 - 10 - 01)) && !es_feriado(date!(2026 - 10 - 01)));
        // Monday 10:00 → Thursday 10:00; Friday → Wednesday; across Monday 16 November 2026.
        assert_eq!(plazo_vence(datetime!(2026-11-23 10:00 -6)), datetime!(2026-11-26 10:00 -6));
        assert_eq!(plazo_vence(datetime!(2026-11-27 10:00 -6)), datetime!(2026-12-02 10:00 -6));
        assert_eq!(plazo_vence(datetime!(2026-11-13 10:00 -6)), datetime!(2026-11-19 10:00 -6));
        // Saturday: Monday, Tuesday, Wednesday.
        assert_eq!(plazo_vence(datetime!(2026-11-28 10:00 -6)), datetime!(2026-12-02 10:00 -6));
    }

    #[test]
    fn regla_2_7_1_35_of_2026() {
        let base = DatosRegla {
            tipo_comprobante: "I",
            total: Decimal::new(348116, 2),
            moneda: "MXN",
            tipo_cambio: None,
            receptor_rfc: "XIQB891116QE4",
            emitido: datetime!(2026-11-23 10:00 -6),
            relacionados_vigentes: false,
        };
        let martes = datetime!(2026-11-24 18:00 -6);
        let miercoles = datetime!(2026-11-25 09:00 -6);
        assert_eq!(cancelable(&base, martes), Cancelable::SinAceptacion, "within the next business day");
        assert_eq!(cancelable(&base, miercoles), Cancelable::ConAceptacion);
        let pequena = DatosRegla { total: Decimal::new(1000, 0), ..base };
        assert_eq!(cancelable(&pequena, miercoles), Cancelable::SinAceptacion);
        let pago = DatosRegla { tipo_comprobante: "P", total: Decimal::ZERO, ..base };
        assert_eq!(cancelable(&pago, miercoles), Cancelable::ConAceptacion, "payments are not exempt for amount");
        assert_eq!(cancelable(&pago, martes), Cancelable::SinAceptacion);
        let dolares =
            DatosRegla { total: Decimal::new(100, 0), moneda: "USD", tipo_cambio: Some(Decimal::new(18, 0)), ..base };
        assert_eq!(cancelable(&dolares, miercoles), Cancelable::ConAceptacion);
        for tipo in ["N", "E", "T"] {
            assert_eq!(
                cancelable(&DatosRegla { tipo_comprobante: tipo, ..base }, miercoles),
                Cancelable::SinAceptacion
            );
        }
        let publico = DatosRegla { receptor_rfc: "XAXX010101000", ..base };
        assert_eq!(cancelable(&publico, miercoles), Cancelable::SinAceptacion);
        let con_pagos = DatosRegla { relacionados_vigentes: true, ..base };
        assert_eq!(cancelable(&con_pagos, martes), Cancelable::No);
    }
}
