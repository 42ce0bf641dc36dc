//! Gross-to-net for 100,000 employees in one call (`calcular_lote`), one core; and the CPU
//! work of calculating a pay period of 1,000 employees with incidences (what
//! `POST /api/nomina/periodos/{id}` does besides SQL).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use rust_decimal::Decimal;
use std::hint::black_box;
use timbra_nomina::periodo::{self, EmpleadoPeriodo, Incidencia, Periodo};
use timbra_nomina::{
    CalculoNomina, Campo, EntradaValidada, Parametros, PercepcionCruda, Periodicidad, calcular_con_parametros,
    calcular_lote,
};
use time::macros::date;

/// 100,000 varied employees: wages from the minimum to the top bracket, every periodicity,
/// a third with an aguinaldo computed by Art. 93.
fn plantilla() -> Vec<EntradaValidada> {
    let periodicidades = [("semanal", 7), ("decenal", 10), ("catorcenal", 14), ("quincenal", 15), ("mensual", 30)];
    (0..100_000u32)
        .map(|i| {
            let (periodicidad, dias) = periodicidades[(i % 5) as usize];
            // 315.04 to ~20,000 per day, deterministic spread.
            let salario = Decimal::new(31_504 + i64::from(i * 7_919 % 1_968_496), 2);
            let sdi = salario * Decimal::new(10_493, 4);
            let mut c = CalculoNomina {
                salario_diario: Some(salario.into()),
                salario_diario_integrado: Some(sdi.round_dp(2).into()),
                dias_pagados: Some(dias.into()),
                periodicidad: Some(periodicidad.into()),
                riesgo_puesto: Some(Campo::from("2")),
                ..CalculoNomina::default()
            };
            if i % 3 == 0 {
                c.percepciones = Some(vec![PercepcionCruda {
                    tipo: Some("002".into()),
                    concepto: Some("Aguinaldo".into()),
                    importe: Some((salario * Decimal::from(15)).into()),
                    ..PercepcionCruda::default()
                }]);
            }
            c.validar().expect("valid employee")
        })
        .collect()
}

fn nomina_100k(c: &mut Criterion) {
    let empleados = plantilla();
    let mut grupo = c.benchmark_group("calculo");
    grupo.sample_size(10);
    grupo.bench_function("calcular_lote_100000_empleados", |b| {
        b.iter(|| calcular_lote(black_box(&empleados), date!(2026 - 03 - 13)).unwrap())
    });
    grupo.finish();
}

/// 1,000 employees of a quincena, each with incidences: overtime on two days, and by turns an
/// absence, a disability, vacations with prima, Sundays worked, a bonus and a deduction.
fn quincena_1000() -> Vec<(EmpleadoPeriodo, Vec<Incidencia>)> {
    (0..1_000u32)
        .map(|i| {
            let salario = Decimal::new(31_504 + i64::from(i * 7_919 % 1_968_496), 2);
            let empleado = EmpleadoPeriodo {
                salario_diario: salario,
                salario_diario_integrado: (salario * Decimal::new(10_493, 4)).round_dp(2),
                riesgo_puesto: 2,
                tipo_jornada: Some("01".into()),
                fecha_inicio_rel_laboral: date!(2020 - 01 - 01),
                exentos_previos: periodo::ExentosAnuales::default(),
            };
            let mut incidencias = vec![
                Incidencia::HorasExtra { fecha: date!(2026 - 03 - 03), horas: 3 + i % 4 },
                Incidencia::HorasExtra { fecha: date!(2026 - 03 - 05), horas: 2 + i % 5 },
            ];
            incidencias.push(match i % 6 {
                0 => Incidencia::Falta { dias: 1 },
                1 => Incidencia::Incapacidad { dias: 2, tipo: "02".into() },
                2 => Incidencia::Vacaciones { dias: 3 },
                3 => Incidencia::PrimaDominical { domingos: 2 },
                4 => Incidencia::Percepcion {
                    tipo: "038".into(),
                    concepto: "Bono".into(),
                    importe: Decimal::from(500),
                    reparto: None,
                },
                _ => Incidencia::Deduccion {
                    tipo: "011".into(),
                    concepto: "Fonacot".into(),
                    importe: Decimal::from(300),
                },
            });
            (empleado, incidencias)
        })
        .collect()
}

fn periodo_1000(c: &mut Criterion) {
    let empleados = quincena_1000();
    let quincena = Periodo {
        fecha_inicio: date!(2026 - 03 - 01),
        fecha_fin: date!(2026 - 03 - 15),
        fecha_pago: date!(2026 - 03 - 13),
        periodicidad: Periodicidad::Quincenal,
        dias_pagados: 15,
    };
    let mut grupo = c.benchmark_group("periodo");
    grupo.sample_size(20);
    grupo.bench_function("quincena_1000_empleados_con_incidencias", |b| {
        b.iter(|| {
            let parametros = Parametros::vigentes(quincena.fecha_pago).unwrap();
            let mut bytes = 0;
            for (empleado, incidencias) in black_box(&empleados) {
                let preparado = periodo::preparar(
                    empleado,
                    &quincena,
                    incidencias,
                    parametros.uma.diaria,
                    parametros.salario_minimo.general,
                )
                .unwrap();
                let entrada = preparado.solicitud.validar().unwrap();
                let resultado = calcular_con_parametros(&entrada, &parametros);
                let lineas = periodo::lineas(&entrada, &resultado, &preparado);
                // The receipt's JSON columns, as the server writes them.
                bytes += serde_json::to_string(&lineas).unwrap().len()
                    + serde_json::to_string(&resultado).unwrap().len()
                    + serde_json::to_string(&preparado.solicitud).unwrap().len();
            }
            bytes
        })
    });
    grupo.finish();
}

criterion_group!(benches, nomina_100k, periodo_1000);
criterion_main!(benches);
