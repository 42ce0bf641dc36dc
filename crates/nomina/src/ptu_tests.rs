//! PAYROLL_EXTRAS_2026.md §2.3: PTU of ejercicio 2025, monto 150,000.00, paid 2026-05-29
//! (UMA 117.31, 15 UMA = 1,759.65). Σ días 1,401, Σ salarios 1,534,100.00.

use rust_decimal_macros::dec;
use time::macros::date;

use super::*;

fn trabajador(clave: &str, sd: Decimal, alta: Date, contrato: &str) -> TrabajadorPtu {
    TrabajadorPtu {
        clave: clave.into(),
        salario_diario: sd,
        fecha_alta: alta,
        fecha_baja: None,
        tipo_contrato: contrato.into(),
        dias_falta: 0,
        confianza: false,
        director: false,
        domestico: false,
        promedio_ptu_tres_anios: None,
    }
}

fn ejemplo() -> Vec<TrabajadorPtu> {
    vec![
        trabajador("P1", dec!(400), date!(2020 - 01 - 10), "01"),
        trabajador("P2", dec!(800), date!(2022 - 05 - 01), "01"),
        trabajador("P3", dec!(600), date!(2025 - 03 - 01), "01"),
        trabajador("P4", dec!(2500), date!(2018 - 07 - 01), "01"),
        trabajador("P5", dec!(500), date!(2025 - 11 - 15), "03"),
    ]
}

fn entrada(metodo: MetodoIsr) -> EntradaPtu {
    EntradaPtu {
        ejercicio: 2025,
        monto: dec!(150000.00),
        fecha_pago: date!(2026 - 05 - 29),
        metodo,
        salario_referencia_confianza: None,
    }
}

// The table of §2.3 to the centavo, both methods.
#[test]
fn ejemplo_del_brief() {
    let art96 = repartir_ptu(&entrada(MetodoIsr::Art96), &ejemplo()).unwrap();
    let rlisr = repartir_ptu(&entrada(MetodoIsr::Rlisr174), &ejemplo()).unwrap();
    assert_eq!((art96.total_dias, art96.total_salarios), (1401, dec!(1534100.00)));
    assert_eq!(art96.total_pagado, dec!(150000.00));
    assert_eq!(art96.remanente, dec!(0.00));
    // (días, salario, por días, por salario, PTU, exento, ISR ART96, ISR RLISR174)
    let esperado = [
        (365, dec!(146000.00), dec!(19539.61), dec!(7137.74), dec!(26677.35), dec!(5104.47), dec!(3717.55)),
        (365, dec!(292000.00), dec!(19539.61), dec!(14275.47), dec!(33815.09), dec!(7342.31), dec!(6847.04)),
        (306, dec!(183600.00), dec!(16381.16), dec!(8975.95), dec!(25357.10), dec!(5180.27), dec!(5040.42)),
        (365, dec!(912500.00), dec!(19539.61), dec!(44610.85), dec!(64150.46), dec!(19356.84), dec!(18717.24)),
    ];
    for ((a, b), e) in art96.trabajadores.iter().zip(&rlisr.trabajadores).zip(esperado) {
        assert_eq!((a.dias, a.salario_anual, a.por_dias, a.por_salario, a.ptu, a.isr, b.isr), e, "{}", a.clave);
        assert_eq!((a.exento, a.gravado), (dec!(1759.65), a.ptu - dec!(1759.65)));
        assert_eq!(a.excluido, None);
        assert_eq!(a.remanente, dec!(0.00));
    }
    // P3: 16,381.16 + 8,975.95 = 25,357.11, but the share is rounded once from the exact sum.
    assert_eq!(art96.trabajadores[2].ptu, dec!(25357.10));
    // P5: eventual with 47 days, excluded (Art. 127 VII), no receipt.
    let p5 = &art96.trabajadores[4];
    assert_eq!((p5.dias, p5.excluido, p5.ptu), (47, Some(Exclusion::EventualMenosDe60Dias), dec!(0.00)));
}

// §2.3: "De confianza, P4 would count 960 (800 × 1.2)".
#[test]
fn tope_de_confianza() {
    let mut t = ejemplo();
    t[3].confianza = true;
    let r = repartir_ptu(&entrada(MetodoIsr::Art96), &t).unwrap();
    assert_eq!(r.tope_confianza, Some(dec!(960.00)));
    let p4 = &r.trabajadores[3];
    assert_eq!((p4.salario_diario_reparto, p4.salario_anual), (dec!(960.00), dec!(350400.00)));
    assert_eq!(r.total_salarios, dec!(972000.00));
    // Σ of the rounded shares is within half a centavo per worker of the monto.
    assert!((r.total_pagado - dec!(150000)).abs() <= dec!(0.02));
    // An explicit reference salary (highest unionised worker) wins over the computed one.
    let mut e = entrada(MetodoIsr::Art96);
    e.salario_referencia_confianza = Some(dec!(1000));
    let r2 = repartir_ptu(&e, &t).unwrap();
    assert_eq!(r2.trabajadores[3].salario_diario_reparto, dec!(1200.00));
}

// Art. 127 I and VI exclusions, faltas, exit within the year, and the fr. VIII cap.
#[test]
fn exclusiones_faltas_y_tope_de_tres_meses() {
    let mut t = ejemplo();
    t[0].director = true;
    t[1].domestico = true;
    t[2].dias_falta = 6;
    t[2].fecha_baja = Some(date!(2025 - 10 - 31));
    let mut eventual = trabajador("P6", dec!(300), date!(2025 - 10 - 01), "02");
    eventual.fecha_baja = Some(date!(2025 - 11 - 29));
    t.push(eventual);
    // Hired after the ejercicio: no days.
    t.push(trabajador("P7", dec!(300), date!(2026 - 01 - 05), "01"));
    let mut e = entrada(MetodoIsr::Art96);
    e.monto = dec!(900000);
    let r = repartir_ptu(&e, &t).unwrap();
    assert_eq!(r.trabajadores[0].excluido, Some(Exclusion::Director));
    assert_eq!(r.trabajadores[1].excluido, Some(Exclusion::Domestico));
    // 2025-03-01 to 2025-10-31 is 245 days, less 6 faltas.
    assert_eq!(r.trabajadores[2].dias, 239);
    // 2025-10-01 to 2025-11-29 = 60 days: an eventual with 60 days takes part.
    assert_eq!((r.trabajadores[5].dias, r.trabajadores[5].excluido), (60, None));
    assert_eq!(r.trabajadores[6].excluido, Some(Exclusion::SinDiasTrabajados));
    // P6's share is capped at 90 × 300 = 27,000.00; the excess is kept as remanente.
    let p6 = &r.trabajadores[5];
    assert_eq!(p6.tope, dec!(27000.00));
    assert!(p6.ptu_calculada > p6.tope);
    assert_eq!((p6.ptu, p6.remanente), (dec!(27000.00), p6.ptu_calculada - dec!(27000.00)));
    assert_eq!(r.total_pagado + r.remanente, r.trabajadores.iter().map(|f| f.ptu_calculada).sum::<Decimal>());
    // A three-year average above three months raises the cap.
    let mut t2 = t.clone();
    t2[5].promedio_ptu_tres_anios = Some(dec!(1000000));
    let r2 = repartir_ptu(&e, &t2).unwrap();
    assert_eq!(r2.trabajadores[5].remanente, dec!(0.00));
}

#[test]
fn entrada_mala() {
    let mut e = entrada(MetodoIsr::Art96);
    e.monto = dec!(0);
    assert_eq!(repartir_ptu(&e, &ejemplo()), Err(ErrorPtu::MontoNoPositivo));
    e.monto = dec!(-5);
    assert_eq!(repartir_ptu(&e, &ejemplo()), Err(ErrorPtu::MontoNoPositivo));
    let mut e = entrada(MetodoIsr::Art96);
    e.ejercicio = 2026;
    assert!(matches!(repartir_ptu(&e, &ejemplo()), Err(ErrorPtu::EjercicioNoTerminado { .. })));
    let e = entrada(MetodoIsr::Art96);
    assert_eq!(repartir_ptu(&e, &ejemplo()[4..]), Err(ErrorPtu::SinParticipantes));
    assert_eq!(repartir_ptu(&e, &[]), Err(ErrorPtu::SinParticipantes));
    let mut t = ejemplo();
    t[1].salario_diario = dec!(0);
    assert_eq!(repartir_ptu(&e, &t), Err(ErrorPtu::SalarioNoPositivo("P2".into())));
}
