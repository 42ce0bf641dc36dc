//! PAYROLL_EXTRAS_2026.md §5: factors (§5.1), CEAV bands (§5.3), days (§5.4) and the April
//! 2026 worked example (§5.6: 30 days, UMA 117.31, primaRiesgo 0.54355 %, first-year workers).

use rust_decimal_macros::dec;

use super::*;

fn trabajador(clave: &str, sd: Decimal) -> TrabajadorImss {
    TrabajadorImss {
        clave: clave.into(),
        salario_diario: sd,
        salario_diario_integrado: salario_diario_integrado(sd, 1, 15, dec!(0.25)),
        zona: Zona::General,
        dias_registrados: None,
        dias_ausencia: 0,
        dias_incapacidad: 0,
    }
}

fn abril(t: &[TrabajadorImss]) -> CuotasMes {
    cuotas_del_mes(2026, Month::April, dec!(0.54355), t).unwrap()
}

fn cuota(c: &CuotasTrabajador, r: Ramo) -> (Decimal, Decimal) {
    let x = c.por_ramo.iter().find(|x| x.ramo == r).unwrap();
    (x.patronal, x.obrera)
}

// §5.1: factors by year of service with 15 days and 25 %, as IMSS prints them (4 decimals).
#[test]
fn factores_de_integracion() {
    let impresos = [
        (1, dec!(1.0493)),
        (2, dec!(1.0507)),
        (3, dec!(1.0521)),
        (4, dec!(1.0534)),
        (5, dec!(1.0548)),
        (6, dec!(1.0562)),
        (10, dec!(1.0562)),
        (11, dec!(1.0575)),
        (16, dec!(1.0589)),
        (21, dec!(1.0603)),
        (26, dec!(1.0616)),
    ];
    for (anio, factor) in impresos {
        let vac = crate::antiguedad::dias_vacaciones(anio);
        assert_eq!(factor_integracion(15, vac, dec!(0.25)).round_dp(4), factor, "año {anio}");
    }
    // §3.7: SD 1,000 in year 8 integrates to 1,056.16.
    assert_eq!(salario_diario_integrado(dec!(1000), 8, 15, dec!(0.25)), dec!(1056.16));
}

// §5.6, the table: SBC, CEAV rate, employer monthly, employer bimonthly (April), worker.
#[test]
fn ejemplo_abril_2026() {
    let m = abril(&[trabajador("A", dec!(400)), trabajador("B", dec!(1000)), trabajador("C", dec!(3500))]);
    let filas: Vec<_> = m
        .trabajadores
        .iter()
        .map(|c| (c.sbc, c.tasa_ceav_patronal, c.patronal_mensual, c.patronal_bimestral, c.cuotas_obrero))
        .collect();
    assert_eq!(
        filas,
        vec![
            (dec!(419.73), dec!(6.613), dec!(1375.38), dec!(1714.14), dec!(307.20)),
            (dec!(1049.32), dec!(7.513), dec!(2535.78), dec!(4568.63), dec!(831.34)),
            (dec!(2932.75), dec!(7.513), dec!(6007.06), dec!(12768.91), dec!(2399.28)),
        ]
    );
    // SD 3,500 integrates to 3,672.60 before the 25 UMA cap.
    assert_eq!(salario_diario_integrado(dec!(3500), 1, 15, dec!(0.25)), dec!(3672.60));
    // Totals are sums of the rounded rows.
    assert_eq!(
        m.total_patronal,
        dec!(1375.38) + dec!(1714.14) + dec!(2535.78) + dec!(4568.63) + dec!(6007.06) + dec!(12768.91)
    );
    assert_eq!(m.total_obrero, dec!(307.20) + dec!(831.34) + dec!(2399.28));
    assert_eq!(m.por_ramo.iter().map(|r| r.patronal).sum::<Decimal>(), m.total_patronal);
    assert_eq!(m.trabajadores[0].obrera_absorbida_por_patron, dec!(0.00));
}

// §5.6, the branches of SBC 419.73.
#[test]
fn ramos_de_419_73() {
    let m = abril(&[trabajador("A", dec!(400))]);
    let c = &m.trabajadores[0];
    assert_eq!(cuota(c, Ramo::EymCuotaFija), (dec!(717.94), dec!(0.00)));
    assert_eq!(cuota(c, Ramo::EymExcedente), (dec!(22.37), dec!(8.14)));
    assert_eq!(cuota(c, Ramo::EymPrestacionesDinero), (dec!(88.14), dec!(31.48)));
    assert_eq!(cuota(c, Ramo::EymGastosMedicosPensionados), (dec!(132.21), dec!(47.22)));
    assert_eq!(cuota(c, Ramo::RiesgosDeTrabajo), (dec!(68.44), dec!(0.00)));
    assert_eq!(cuota(c, Ramo::InvalidezYVida), (dec!(220.36), dec!(78.70)));
    assert_eq!(cuota(c, Ramo::GuarderiasYPrestacionesSociales), (dec!(125.92), dec!(0.00)));
    assert_eq!(cuota(c, Ramo::Retiro), (dec!(251.84), dec!(0.00)));
    assert_eq!(cuota(c, Ramo::CesantiaYVejez), (dec!(832.70), dec!(141.66)));
    assert_eq!(cuota(c, Ramo::Infonavit), (dec!(629.60), dec!(0.00)));
    assert!(
        c.por_ramo
            .iter()
            .all(|r| r.bimestral == matches!(r.ramo, Ramo::Retiro | Ramo::CesantiaYVejez | Ramo::Infonavit))
    );
}

// §5.3: bands read on SBC/UMA with upper bounds included; 3.150 % only at or below the SM; the
// 2026 quirk puts a minimum-wage worker's SBC of 330.57 in 2.51–3.00 UMA.
#[test]
fn bandas_ceav_2026() {
    let (uma, sm) = (dec!(117.31), dec!(315.04));
    assert_eq!(tasa_ceav_patronal(2026, dec!(315.04), uma, sm), Some(dec!(3.150)));
    assert_eq!(tasa_ceav_patronal(2026, dec!(330.57), uma, sm), Some(dec!(6.026)));
    assert_eq!(tasa_ceav_patronal(2026, dec!(351.93), uma, sm), Some(dec!(6.026)));
    assert_eq!(tasa_ceav_patronal(2026, dec!(351.94), uma, sm), Some(dec!(6.361)));
    assert_eq!(tasa_ceav_patronal(2026, dec!(469.24), uma, sm), Some(dec!(6.613)));
    assert_eq!(tasa_ceav_patronal(2026, dec!(469.25), uma, sm), Some(dec!(7.513)));
    // A low SM (2025 style) exposes the lower bands.
    assert_eq!(tasa_ceav_patronal(2026, dec!(150), uma, dec!(100)), Some(dec!(3.676)));
    assert_eq!(tasa_ceav_patronal(2026, dec!(200), uma, dec!(100)), Some(dec!(4.851)));
    assert_eq!(tasa_ceav_patronal(2025, dec!(2000), uma, sm), Some(dec!(6.422)));
    assert_eq!(tasa_ceav_patronal(2031, dec!(2000), uma, sm), None);
}

// §5.4: absences spare EyM, incapacities spare retiro, INFONAVIT follows absences only.
#[test]
fn dias_por_ramo() {
    let mut t = trabajador("A", dec!(400));
    t.dias_ausencia = 3;
    t.dias_incapacidad = 5;
    let m = abril(&[t]);
    let dias: Vec<(Ramo, u32)> = m.trabajadores[0].por_ramo.iter().map(|r| (r.ramo, r.dias)).collect();
    assert_eq!(
        dias,
        vec![
            (Ramo::EymCuotaFija, 25),
            (Ramo::EymExcedente, 25),
            (Ramo::EymPrestacionesDinero, 25),
            (Ramo::EymGastosMedicosPensionados, 25),
            (Ramo::RiesgosDeTrabajo, 22),
            (Ramo::InvalidezYVida, 22),
            (Ramo::GuarderiasYPrestacionesSociales, 22),
            (Ramo::Retiro, 27),
            (Ramo::CesantiaYVejez, 22),
            (Ramo::Infonavit, 27),
        ]
    );
    // Days registered in the month (a hire on the 21st) and a 31-day month.
    let mut h = trabajador("H", dec!(400));
    h.dias_registrados = Some(10);
    assert!(abril(&[h]).trabajadores[0].por_ramo.iter().all(|r| r.dias == 10));
    let mayo = cuotas_del_mes(2026, Month::May, dec!(0.54355), &[trabajador("A", dec!(400))]).unwrap();
    assert!(mayo.trabajadores[0].por_ramo.iter().all(|r| r.dias == 31));
}

// Art. 36 LSS: the minimum-wage worker's share is the employer's; January uses UMA 113.14.
#[test]
fn salario_minimo_y_enero() {
    let t = trabajador("SM", dec!(315.04));
    let m = abril(std::slice::from_ref(&t));
    let c = &m.trabajadores[0];
    // §5.3 quotes 330.57, which is 315.04 × the printed 1.0493; the unrounded factor that the
    // §5.6 example needs (419.73, 1,049.32, 3,672.60) gives 315.04 × 383/365 = 330.578 → 330.58.
    // The band is the same.
    assert_eq!(c.sbc, dec!(330.58));
    assert_eq!(c.tasa_ceav_patronal, dec!(6.026));
    assert!(c.cuotas_obrero > dec!(0));
    assert_eq!(c.obrera_absorbida_por_patron, c.cuotas_obrero);
    let enero = cuotas_del_mes(2026, Month::January, dec!(0.54355), &[trabajador("B", dec!(1000))]).unwrap();
    // 0.204 × 113.14 × 31 = 715.49736 → 715.50.
    assert_eq!(cuota(&enero.trabajadores[0], Ramo::EymCuotaFija).0, dec!(715.50));
}

#[test]
fn entrada_mala() {
    let t = trabajador("A", dec!(400));
    assert_eq!(
        cuotas_del_mes(2026, Month::April, dec!(0.4), std::slice::from_ref(&t)),
        Err(ErrorImss::PrimaRiesgo(dec!(0.4)))
    );
    assert!(cuotas_del_mes(2026, Month::April, dec!(15.1), std::slice::from_ref(&t)).is_err());
    let mut a = t.clone();
    a.dias_ausencia = 8;
    assert_eq!(abril_err(&[a]), ErrorImss::Ausencias("A".into()));
    let mut d = t.clone();
    d.dias_registrados = Some(5);
    d.dias_ausencia = 3;
    d.dias_incapacidad = 3;
    assert_eq!(abril_err(&[d]), ErrorImss::Dias("A".into()));
    let mut s = t;
    s.salario_diario = dec!(0);
    assert_eq!(abril_err(&[s]), ErrorImss::Salario("A".into()));
}

fn abril_err(t: &[TrabajadorImss]) -> ErrorImss {
    cuotas_del_mes(2026, Month::April, dec!(0.54355), t).unwrap_err()
}
