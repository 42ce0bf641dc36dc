//! PAYROLL_EXTRAS_2026.md §1.5: aguinaldo of 15 days paid 2026-12-18 (UMA 117.31, 30 UMA =
//! 3,519.30), 2026 monthly tariff, O = SD × 30.4.

use rust_decimal_macros::dec;
use time::macros::date;

use super::*;
use crate::calculo::isr_exacto;
use crate::parametros::TablaIsr;

fn entrada(sd: Decimal, alta: Date) -> EntradaAguinaldo {
    EntradaAguinaldo {
        salario_diario: sd,
        dias_aguinaldo: 15,
        fecha_alta: alta,
        fecha_baja: None,
        fecha_pago: date!(2026 - 12 - 18),
        exento_previo: Decimal::ZERO,
    }
}

/// (días, importe, exento, gravado, ISR ART96, ISR RLISR174)
fn fila(sd: Decimal, alta: Date) -> (u32, Decimal, Decimal, Decimal, Decimal, Decimal) {
    let a = calcular_aguinaldo(&entrada(sd, alta), MetodoIsr::Art96).unwrap();
    let b = calcular_aguinaldo(&entrada(sd, alta), MetodoIsr::Rlisr174).unwrap();
    assert_eq!((a.isr, b.isr), (a.isr_metodos.art96, b.isr_metodos.rlisr174));
    assert_eq!(a.neto, a.importe - a.isr);
    (a.dias_trabajados, a.importe, a.exento, a.gravado, a.isr, b.isr)
}

// The table of §1.5, every row to the centavo.
#[test]
fn tabla_del_ejemplo() {
    let antes = date!(2015 - 03 - 01);
    assert_eq!(fila(dec!(350), antes), (365, dec!(5250.00), dec!(3519.30), dec!(1730.70), dec!(188.30), dec!(188.30)));
    assert_eq!(
        fila(dec!(800), date!(2026 - 07 - 01)),
        (184, dec!(6049.32), dec!(3519.30), dec!(2530.02), dec!(540.41), dec!(540.41))
    );
    assert_eq!(fila(dec!(570), antes), (365, dec!(8550.00), dec!(3519.30), dec!(5030.70), dec!(1067.47), dec!(989.51)));
    assert_eq!(
        fila(dec!(2500), antes),
        (365, dec!(37500.00), dec!(3519.30), dec!(33980.70), dec!(10265.61), dec!(10194.21))
    );
    assert_eq!(fila(dec!(200), antes), (365, dec!(3000.00), dec!(3000.00), dec!(0.00), dec!(0.00), dec!(0.00)));
}

// The SD 570 derivation of §1.5: O = 17,328.00, f(O) = 1,819.99632, f(22,358.70) =
// 2,887.47068; proporción 418.99530, f(17,746.99530) = 1,902.41056, tasa 0.1966952 (19.67 %).
// Note: the brief's printed rate does not re-derive in its last digits. Exactly, proporción is
// 418.9952877, diferencia 82.4142334 and the rate 0.1966949; both give ISR 989.51.
#[test]
fn derivacion_sd_570() {
    let tarifa = Parametros::vigentes(date!(2026 - 12 - 18)).unwrap().tarifa;
    let o = ingreso_mensual_ordinario(dec!(570));
    assert_eq!(o, dec!(17328.0));
    assert_eq!(isr_exacto(tarifa, TablaIsr::Mensual, o), dec!(1819.99632));
    assert_eq!(isr_exacto(tarifa, TablaIsr::Mensual, dec!(22358.70)), dec!(2887.47068));
    let a = calcular_aguinaldo(&entrada(dec!(570), date!(2020 - 01 - 01)), MetodoIsr::Rlisr174).unwrap();
    assert_eq!(a.isr_metodos.tasa_rlisr174.round_dp(4), dec!(0.1967));
    assert_eq!(a.isr_metodos.tasa_rlisr174.round_dp(7), dec!(0.1966949));
    assert_eq!(a.isr, dec!(989.51));
    assert_eq!(a.isr_metodos.ingreso_mensual_ordinario, dec!(17328.00));
}

// The days are not rounded before the amount (§1.2): 184/365 × 15 = 7.5616… days.
#[test]
fn importe_en_un_solo_paso() {
    assert_eq!(importe_proporcional(dec!(800), 15, 184), dec!(6049.32));
    assert_ne!(importe_proporcional(dec!(800), 15, 184), dec!(800) * dec!(7.56));
}

// A company with 30 days, and a supplement whose exemption is what remains of the 30 UMA.
#[test]
fn dias_de_la_empresa_y_exento_previo() {
    let mut e = entrada(dec!(400), date!(2010 - 01 - 01));
    e.dias_aguinaldo = 30;
    let a = calcular_aguinaldo(&e, MetodoIsr::Art96).unwrap();
    assert_eq!((a.importe, a.exento, a.gravado), (dec!(12000.00), dec!(3519.30), dec!(8480.70)));
    e.dias_aguinaldo = 15;
    e.exento_previo = dec!(3000);
    let b = calcular_aguinaldo(&e, MetodoIsr::Art96).unwrap();
    assert_eq!((b.importe, b.exento, b.gravado), (dec!(6000.00), dec!(519.30), dec!(5480.70)));
    e.exento_previo = dec!(5000);
    assert_eq!(calcular_aguinaldo(&e, MetodoIsr::Art96).unwrap().exento, dec!(0.00));
}

// In a finiquito the days run to the exit date (§3.7: 2026-01-01 to 2026-07-15 is 196 days).
#[test]
fn hasta_la_baja() {
    let mut e = entrada(dec!(1000), date!(2019 - 01 - 01));
    e.fecha_baja = Some(date!(2026 - 07 - 15));
    e.fecha_pago = date!(2026 - 07 - 15);
    let a = calcular_aguinaldo(&e, MetodoIsr::Art96).unwrap();
    assert_eq!((a.dias_trabajados, a.importe, a.gravado), (196, dec!(8054.79), dec!(4535.49)));
}

#[test]
fn entrada_mala() {
    let mut e = entrada(dec!(0), date!(2020 - 01 - 01));
    assert_eq!(calcular_aguinaldo(&e, MetodoIsr::Art96), Err(ErrorAguinaldo::SalarioNoPositivo));
    e.salario_diario = dec!(500);
    e.dias_aguinaldo = 14;
    assert_eq!(calcular_aguinaldo(&e, MetodoIsr::Art96), Err(ErrorAguinaldo::DiasInsuficientes(14)));
    e.dias_aguinaldo = 15;
    e.fecha_alta = date!(2027 - 01 - 05);
    assert!(matches!(calcular_aguinaldo(&e, MetodoIsr::Art96), Err(ErrorAguinaldo::AltaPosterior { .. })));
    e.fecha_alta = date!(2020 - 01 - 01);
    e.fecha_baja = Some(date!(2025 - 12 - 31));
    assert!(matches!(calcular_aguinaldo(&e, MetodoIsr::Art96), Err(ErrorAguinaldo::BajaFueraDelAnio(_))));
    e.fecha_baja = None;
    e.fecha_pago = date!(2024 - 12 - 15);
    assert!(matches!(calcular_aguinaldo(&e, MetodoIsr::Art96), Err(ErrorAguinaldo::SinParametros(_))));
}
