//! Gross-to-net for 100,000 employees in one call (`calcular_lote`), one core.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use rust_decimal::Decimal;
use std::hint::black_box;
use timbra_nomina::{CalculoNomina, Campo, EntradaValidada, PercepcionCruda, calcular_lote};
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

criterion_group!(benches, nomina_100k);
criterion_main!(benches);
