//! PAYROLL_EXTRAS_2026.md §3.7 worked examples (ART96 company, paid on the exit date, UMA
//! 117.31: 30 UMA 3,519.30, 15 UMA 1,759.65, 90 UMA 10,557.90 per year; SM 315.04, 2 SM 630.08).

use rust_decimal_macros::dec;
use time::macros::date;

use super::*;

fn liquidacion() -> EntradaFiniquito {
    EntradaFiniquito {
        salario_diario: dec!(1000.00),
        salario_diario_integrado: dec!(1056.16),
        fecha_alta: date!(2019 - 01 - 01),
        fecha_baja: date!(2026 - 07 - 15),
        fecha_pago: date!(2026 - 07 - 15),
        motivo: MotivoBaja::DespidoInjustificado,
        incluir_indemnizacion: true,
        dias_aguinaldo: 15,
        prima_vacacional: dec!(0.25),
        dias_sueldo_pendientes: Decimal::ZERO,
        dias_vacaciones_pendientes: Decimal::ZERO,
        gratificacion_separacion: Decimal::ZERO,
        zona: Zona::General,
        metodo: MetodoIsr::Art96,
    }
}

fn renuncia() -> EntradaFiniquito {
    EntradaFiniquito {
        salario_diario: dec!(500.00),
        salario_diario_integrado: dec!(524.66),
        fecha_alta: date!(2024 - 01 - 15),
        fecha_baja: date!(2026 - 06 - 30),
        fecha_pago: date!(2026 - 06 - 30),
        motivo: MotivoBaja::Renuncia,
        incluir_indemnizacion: false,
        ..liquidacion()
    }
}

fn linea(f: &Finiquito, tipo: &str, concepto: &str) -> (Decimal, Decimal, Decimal) {
    let l = f.percepciones.iter().find(|l| l.tipo == tipo && l.concepto == concepto).unwrap();
    (l.importe(), l.exento, l.gravado)
}

// §3.7 "Liquidación": every figure of the example.
#[test]
fn liquidacion_del_brief() {
    let f = calcular_finiquito(&liquidacion()).unwrap();
    assert_eq!((f.anios_cumplidos, f.dias_ultimo_anio, f.num_anios_servicio), (7, 196, 8));
    assert_eq!(f.anios_servicio.round_dp(6), dec!(7.536986));
    assert_eq!(linea(&f, "002", "Aguinaldo proporcional"), (dec!(8054.79), dec!(3519.30), dec!(4535.49)));
    assert_eq!(f.dias_vacaciones.round_dp(4), dec!(11.8137));
    assert_eq!(linea(&f, "001", "Vacaciones no disfrutadas"), (dec!(11813.70), dec!(0), dec!(11813.70)));
    assert_eq!(linea(&f, "021", "Prima vacacional"), (dec!(2953.42), dec!(1759.65), dec!(1193.77)));
    assert_eq!(f.salario_prima_antiguedad, dec!(630.08));
    assert_eq!(linea(&f, "022", "Prima de antigüedad"), (dec!(56986.85), dec!(56986.85), dec!(0.00)));
    assert_eq!((f.indemnizacion_tres_meses, f.indemnizacion_veinte_dias), (dec!(95054.40), dec!(159205.27)));
    assert_eq!(linea(&f, "025", "Indemnización"), (dec!(254259.67), dec!(27476.35), dec!(226783.32)));
    assert_eq!(f.exento_separacion_maximo, dec!(84463.20));
    assert_eq!(f.gravado_separacion, dec!(226783.32));
    assert_eq!(f.tasa_separacion.round_dp(6), dec!(0.150655));
    assert_eq!(f.isr_separacion, dec!(34166.06));
    assert_eq!(f.isr_ordinario, dec!(4018.91));
    assert_eq!(f.isr, dec!(38184.97));
    assert_eq!(f.neto, dec!(295883.46));
    assert_eq!(f.total_separacion, dec!(311246.52));
    assert_eq!(
        f.separacion,
        Some(SeparacionIndemnizacion {
            total_pagado: dec!(311246.52),
            num_anios_servicio: 8,
            ultimo_sueldo_mens_ord: dec!(30000.00),
            ingreso_acumulable: dec!(30000.00),
            ingreso_no_acumulable: dec!(196783.32),
        })
    );
    // No salary owed, no 023: five lines.
    assert_eq!(f.percepciones.len(), 5);
    assert_eq!(f.total_percepciones, f.percepciones.iter().map(LineaFiniquito::importe).sum::<Decimal>());

    // "3,895.16 with RLISR174".
    let r = calcular_finiquito(&EntradaFiniquito { metodo: MetodoIsr::Rlisr174, ..liquidacion() }).unwrap();
    assert_eq!(r.isr_ordinario, dec!(3895.16));
    assert_eq!(r.isr_separacion, dec!(34166.06));
}

// §3.7 "Finiquito by resignation".
#[test]
fn renuncia_del_brief() {
    let f = calcular_finiquito(&renuncia()).unwrap();
    assert_eq!((f.anios_cumplidos, f.dias_ultimo_anio), (2, 167));
    assert_eq!(f.dias_aguinaldo_trabajados, 181);
    assert_eq!(linea(&f, "002", "Aguinaldo proporcional"), (dec!(3719.18), dec!(3519.30), dec!(199.88)));
    assert_eq!(f.dias_vacaciones.round_dp(4), dec!(7.3205));
    assert_eq!(f.vacaciones, dec!(3660.27));
    assert_eq!(linea(&f, "021", "Prima vacacional"), (dec!(915.07), dec!(915.07), dec!(0.00)));
    assert_eq!(f.isr, dec!(744.24));
    assert_eq!(f.isr_separacion, dec!(0.00));
    // No 022, 023, 025 nor SeparacionIndemnizacion.
    assert_eq!(f.prima_antiguedad, dec!(0.00));
    assert!(f.separacion.is_none());
    assert!(f.percepciones.iter().all(|l| !matches!(l.tipo, "022" | "023" | "025")));
    assert_eq!(f.neto, dec!(3719.18) + dec!(3660.27) + dec!(915.07) - dec!(744.24));
}

// Art. 162 III: a resignation after 15 years earns the prima de antigüedad; a justified
// dismissal always does, without indemnización even when asked.
#[test]
fn prima_de_antiguedad_por_motivo() {
    let quince = EntradaFiniquito { fecha_alta: date!(2011 - 06 - 01), ..renuncia() };
    let f = calcular_finiquito(&quince).unwrap();
    assert_eq!(f.anios_cumplidos, 15);
    // 500 is between SM and 2 SM: 12 × años × 500.
    assert_eq!(f.salario_prima_antiguedad, dec!(500.00));
    assert_eq!(f.prima_antiguedad, centavos(dec!(12) * f.anios_servicio * dec!(500)));
    assert!(f.separacion.is_some());
    let catorce = EntradaFiniquito { fecha_alta: date!(2011 - 07 - 01), ..renuncia() };
    assert_eq!(calcular_finiquito(&catorce).unwrap().prima_antiguedad, dec!(0.00));

    let despido =
        EntradaFiniquito { motivo: MotivoBaja::DespidoJustificado, incluir_indemnizacion: true, ..renuncia() };
    let d = calcular_finiquito(&despido).unwrap();
    assert!(d.prima_antiguedad > dec!(0));
    assert_eq!(d.indemnizacion, dec!(0.00));
    // Separation pay under one monthly salary: f(U + g) − f(U); here all exempt (2 years × 90 UMA).
    assert_eq!(d.num_anios_servicio, 2);
    assert_eq!(d.gravado_separacion, dec!(0.00));
    // Below the minimum wage the prima uses the SM.
    let bajo = EntradaFiniquito { salario_diario: dec!(300), salario_diario_integrado: dec!(315), ..despido };
    assert_eq!(calcular_finiquito(&bajo).unwrap().salario_prima_antiguedad, dec!(315.04));
    assert!(MotivoBaja::Muerte.prima_antiguedad_procede(0));
    assert!(!MotivoBaja::Renuncia.indemnizacion_procede(true));
    assert!(MotivoBaja::MutuoAcuerdo.indemnizacion_procede(true));
    assert!(!MotivoBaja::MutuoAcuerdo.indemnizacion_procede(false));
}

// A 023 agreed gratificación shares the exemption after 022; a taxable separation pay below
// U uses the Art. 96 procedure; salary owed is a 001 line.
#[test]
fn gratificacion_y_separacion_menor_que_un_sueldo() {
    let e = EntradaFiniquito {
        motivo: MotivoBaja::MutuoAcuerdo,
        incluir_indemnizacion: false,
        gratificacion_separacion: dec!(30000),
        dias_sueldo_pendientes: dec!(5),
        ..renuncia()
    };
    let f = calcular_finiquito(&e).unwrap();
    assert_eq!(f.num_anios_servicio, 2);
    // 2 × 10,557.90 = 21,115.80 exempt, 8,884.20 taxable < U = 15,000.
    assert_eq!(linea(&f, "023", "Pagos por separación"), (dec!(30000.00), dec!(21115.80), dec!(8884.20)));
    assert_eq!(linea(&f, "001", "Sueldo pendiente"), (dec!(2500.00), dec!(0), dec!(2500.00)));
    let tarifa = Parametros::vigentes(e.fecha_pago).unwrap().tarifa;
    let esperado = centavos(
        isr_exacto(tarifa, TablaIsr::Mensual, dec!(23884.20)) - isr_exacto(tarifa, TablaIsr::Mensual, dec!(15000)),
    );
    assert_eq!(f.isr_separacion, esperado);
    let s = f.separacion.unwrap();
    assert_eq!((s.ingreso_acumulable, s.ingreso_no_acumulable), (dec!(8884.20), dec!(0.00)));
}

#[test]
fn entrada_mala() {
    let antes =
        EntradaFiniquito { fecha_baja: date!(2018 - 12 - 31), fecha_pago: date!(2026 - 01 - 05), ..liquidacion() };
    assert!(matches!(calcular_finiquito(&antes), Err(ErrorFiniquito::BajaAntesDelAlta { .. })));
    let sdi = EntradaFiniquito { salario_diario_integrado: dec!(900), ..liquidacion() };
    assert_eq!(calcular_finiquito(&sdi), Err(ErrorFiniquito::SalarioInvalido));
    let prima = EntradaFiniquito { prima_vacacional: dec!(0.20), ..liquidacion() };
    assert_eq!(calcular_finiquito(&prima), Err(ErrorFiniquito::PrimaVacacionalInsuficiente));
    let negativo = EntradaFiniquito { dias_sueldo_pendientes: dec!(-1), ..liquidacion() };
    assert_eq!(calcular_finiquito(&negativo), Err(ErrorFiniquito::Negativo));
    let pago = EntradaFiniquito { fecha_pago: date!(2026 - 07 - 14), ..liquidacion() };
    assert!(matches!(calcular_finiquito(&pago), Err(ErrorFiniquito::FechaPago { .. })));
    let dias = EntradaFiniquito { dias_aguinaldo: 10, ..liquidacion() };
    assert_eq!(calcular_finiquito(&dias), Err(ErrorFiniquito::Aguinaldo(ErrorAguinaldo::DiasInsuficientes(10))));
}
