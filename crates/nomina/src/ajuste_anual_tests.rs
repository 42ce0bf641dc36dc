//! PAYROLL_EXTRAS_2026.md §4.5 worked examples: ejercicio 2026, MENSUAL pay of SD × 30, ISR of
//! the monthly tariff. The monthly receipts come from the crate's own period calculator.

use rust_decimal_macros::dec;
use time::Month;
use time::macros::date;

use super::*;
use crate::entrada::{CalculoNomina, Campo};

/// The receipt the calculator gives for a MENSUAL month of `sd` × 30 paid on the 28th.
fn mes(mes: u8, sd: Decimal) -> ReciboAnual {
    let fecha = Date::from_calendar_date(2026, Month::try_from(mes).unwrap(), 28).unwrap();
    let c = CalculoNomina {
        salario_diario: Some(sd.into()),
        salario_diario_integrado: Some((sd * dec!(1.0493)).round_dp(2).into()),
        dias_pagados: Some(dec!(30).into()),
        periodicidad: Some("MENSUAL".into()),
        riesgo_puesto: Some(Campo::from("1")),
        ..CalculoNomina::default()
    };
    let r = crate::calcular_solicitud(&c, fecha).unwrap();
    ReciboAnual {
        fecha_pago: fecha,
        gravado: r.percepciones.total_gravado,
        exento: r.percepciones.total_exento,
        separacion: Decimal::ZERO,
        isr_retenido: r.deducciones.isr_retenido,
        subsidio_aplicado: r.deducciones.subsidio_al_empleo,
    }
}

/// A receipt with only taxable income.
fn gravado(fecha_pago: Date, gravado: Decimal) -> ReciboAnual {
    ReciboAnual {
        fecha_pago,
        gravado,
        exento: Decimal::ZERO,
        separacion: Decimal::ZERO,
        isr_retenido: Decimal::ZERO,
        subsidio_aplicado: Decimal::ZERO,
    }
}

fn entrada() -> EntradaAjuste {
    EntradaAjuste {
        ejercicio: 2026,
        fecha_alta: date!(2020 - 01 - 01),
        fecha_baja: None,
        presenta_declaracion: false,
        salario_minimo: false,
        tope_compensacion: None,
    }
}

fn ajustado(r: ResultadoAjuste) -> AjusteAnual {
    match r {
        ResultadoAjuste::Ajustado(a) => a,
        ResultadoAjuste::NoAjusta { motivos } => panic!("no ajusta: {motivos:?}"),
    }
}

// D: 30,000.00 every month. Y 360,000.00, ISR anual 54,235.91, withheld 12 × 4,519.65 =
// 54,235.80, balance due 0.11.
#[test]
fn ejemplo_d() {
    let recibos: Vec<ReciboAnual> = (1..=12).map(|m| mes(m, dec!(1000))).collect();
    assert_eq!(recibos[0].isr_retenido, dec!(4519.65));
    let a = ajustado(calcular_ajuste_anual(&entrada(), &recibos).unwrap());
    assert_eq!((a.ingreso_gravado, a.isr_anual), (dec!(360000.00), dec!(54235.91)));
    assert_eq!((a.isr_retenido, a.diferencia), (dec!(54235.80), dec!(0.11)));
    assert_eq!(a.saldo, Saldo::ACargo { saldo: dec!(0.11), retener: dec!(0.11), diferido: dec!(0.00) });
    assert_eq!(a.recibos, 12);
}

// F: 15,000.00 in January–March (ISR 1,402.82 each) and 30,000.00 April–December. Y 315,000.00,
// ISR anual 44,623.91, withheld 44,885.31, in favour 261.40.
#[test]
fn ejemplo_f() {
    let recibos: Vec<ReciboAnual> = (1..=12).map(|m| mes(m, if m <= 3 { dec!(500) } else { dec!(1000) })).collect();
    assert_eq!(recibos[0].isr_retenido, dec!(1402.82));
    let a = ajustado(calcular_ajuste_anual(&entrada(), &recibos).unwrap());
    assert_eq!((a.ingreso_gravado, a.isr_anual, a.isr_retenido), (dec!(315000.00), dec!(44623.91), dec!(44885.31)));
    assert_eq!(
        a.saldo,
        Saldo::AFavor { saldo: dec!(261.40), importe: dec!(261.40), remanente: dec!(0.00), anio: 2026 }
    );
    // Limited by the ISR withheld from all workers in the target period: the rest is carried.
    let limitado = EntradaAjuste { tope_compensacion: Some(dec!(200)), ..entrada() };
    let b = ajustado(calcular_ajuste_anual(&limitado, &recibos).unwrap());
    assert_eq!(
        b.saldo,
        Saldo::AFavor { saldo: dec!(261.40), importe: dec!(200.00), remanente: dec!(61.40), anio: 2026 }
    );
}

// The subsidised worker: 10,500.00 every month, subsidy applied 536.21 in January and 535.65
// otherwise. Y 126,000.00, ISR anual 9,400.96, subsidy 6,428.36, a cargo 2,972.60, withheld
// 2,972.68, in favour 0.08.
#[test]
fn ejemplo_subsidiado() {
    let recibos: Vec<ReciboAnual> = (1..=12).map(|m| mes(m, dec!(350))).collect();
    assert_eq!((recibos[0].subsidio_aplicado, recibos[1].subsidio_aplicado), (dec!(536.21), dec!(535.65)));
    let a = ajustado(calcular_ajuste_anual(&entrada(), &recibos).unwrap());
    assert_eq!((a.ingreso_gravado, a.isr_anual), (dec!(126000.00), dec!(9400.96)));
    assert_eq!((a.subsidio_acreditado, a.isr_a_cargo, a.isr_retenido), (dec!(6428.36), dec!(2972.60), dec!(2972.68)));
    assert_eq!(a.saldo, Saldo::AFavor { saldo: dec!(0.08), importe: dec!(0.08), remanente: dec!(0.00), anio: 2026 });
}

// Art. 97: hired after 1 January, out before 1 December, over 400,000 (exempt included), or
// filing their own return; every reason is listed.
#[test]
fn quien_no_se_ajusta() {
    let recibos: Vec<ReciboAnual> = (1..=12).map(|m| mes(m, dec!(1000))).collect();
    let tarde = EntradaAjuste {
        fecha_alta: date!(2026 - 01 - 02),
        fecha_baja: Some(date!(2026 - 11 - 30)),
        presenta_declaracion: true,
        ..entrada()
    };
    assert_eq!(
        calcular_ajuste_anual(&tarde, &recibos).unwrap(),
        ResultadoAjuste::NoAjusta {
            motivos: vec![
                NoAjusta::IngresoPosteriorAlPrimeroDeEnero,
                NoAjusta::BajaAntesDeDiciembre,
                NoAjusta::PresentaDeclaracion
            ]
        }
    );
    // Hired on 1 January and leaving on 1 December are still adjusted.
    let justo =
        EntradaAjuste { fecha_alta: date!(2026 - 01 - 01), fecha_baja: Some(date!(2026 - 12 - 01)), ..entrada() };
    assert!(matches!(calcular_ajuste_anual(&justo, &recibos).unwrap(), ResultadoAjuste::Ajustado(_)));
    // 360,000 taxable + 40,000.01 exempt is over the limit; 400,000.00 exactly is not.
    let mut mas = recibos.clone();
    mas[11].exento = dec!(40000.01);
    assert_eq!(
        calcular_ajuste_anual(&entrada(), &mas).unwrap(),
        ResultadoAjuste::NoAjusta { motivos: vec![NoAjusta::IngresosMayoresA400000] }
    );
    mas[11].exento = dec!(40000.00);
    assert!(matches!(calcular_ajuste_anual(&entrada(), &mas).unwrap(), ResultadoAjuste::Ajustado(_)));
}

// A minimum-wage worker's balance due is carried, not withheld (§9.4).
#[test]
fn salario_minimo_no_retiene() {
    let recibos = vec![gravado(date!(2026 - 12 - 15), dec!(120000))];
    let e = EntradaAjuste { salario_minimo: true, ..entrada() };
    let a = ajustado(calcular_ajuste_anual(&e, &recibos).unwrap());
    // f_anual(120,000) = 5,051.37 + 33,977.88 × 10.88 % = 8,748.163344 → 8,748.16.
    assert_eq!(a.isr_anual, dec!(8748.16));
    assert_eq!(a.saldo, Saldo::ACargo { saldo: dec!(8748.16), retener: dec!(0.00), diferido: dec!(8748.16) });
}

#[test]
fn entrada_mala() {
    // No receipt in the ejercicio: refused; receipts of other years are ignored.
    let otro = vec![gravado(date!(2025 - 12 - 15), dec!(1000))];
    assert_eq!(calcular_ajuste_anual(&entrada(), &[]), Err(ErrorAjuste::SinRecibos(2026)));
    assert_eq!(calcular_ajuste_anual(&entrada(), &otro), Err(ErrorAjuste::SinRecibos(2026)));
    // Ejercicio 2025: the brief has no full 2023–2025 annual tariff.
    let e = EntradaAjuste { ejercicio: 2025, fecha_alta: date!(2020 - 01 - 01), ..entrada() };
    assert!(matches!(calcular_ajuste_anual(&e, &otro), Err(ErrorAjuste::SinParametros(_))));
    assert!(tarifa_anual(2026).is_ok());
}
