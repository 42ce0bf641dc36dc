//! Calculating a pay period of many employees with incidences, on SQLite (or PostgreSQL).
//!
//! `cargo run --release -p timbra-server --example nomina_bench -- [employees] [runs] [database url]`
//! (defaults 1000, 20, a fresh SQLite file). A quincena with every employee QUINCENAL and three
//! approved incidences each (overtime on two days, and by turns an absence, a disability,
//! vacations, Sundays, a bonus or a deduction) is calculated `runs` times through the service
//! `POST /api/nomina/periodos/{id}` calls (each run replaces the receipts of the one before):
//! reading the employees and incidences, the gross-to-net, writing the receipts, the period and
//! the event in one transaction. Prints the CPU part alone and the whole, min / median / max.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod comun;

use comun::resumen;
use timbra_store::ids::{EmpresaId, PeriodoId};

use std::time::Instant;

use rust_decimal::Decimal;
use timbra_services::nomina::calculo::{calcular_periodo, periodo_de, por_empleado, recibos_del_periodo};
use timbra_store::{Money, empleados, incidencias, nomina};

/// The calculation alone, the employees in one part per core side by side (as the service
/// runs them, without its writes): how many receipts.
fn en_paralelo(
    periodo: &timbra_nomina::periodo::Periodo,
    empleados: Vec<empleados::EmpleadoRow>,
    incidencias: &[incidencias::Campos],
) -> anyhow::Result<usize> {
    let por_empleado = por_empleado(incidencias).map_err(|e| anyhow::anyhow!(e.message))?;
    let exentos = Default::default();
    let nucleos = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let tamano = empleados.len().div_ceil(nucleos).max(1);
    let partes: Vec<Vec<_>> = empleados.chunks(tamano).map(<[_]>::to_vec).collect();
    std::thread::scope(|scope| {
        let hilos: Vec<_> = partes
            .into_iter()
            .map(|parte| scope.spawn(|| recibos_del_periodo(periodo, parte, &por_empleado, &exentos)))
            .collect();
        hilos.into_iter().try_fold(0, |total, hilo| {
            let recibos = hilo.join().expect("calculation thread").map_err(|e| anyhow::anyhow!(e.message))?;
            Ok(total + recibos.recibos.len())
        })
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let comun::Banco { total, runs, db, app, empresa, dir } = comun::abrir().await?;
    let now = app.clock.now();

    let mut tx = db.begin().await?;
    comun::empresa(&mut tx, &empresa, now).await?;
    for i in 0..total {
        let id = format!("{empresa}-{i}");
        let salario = Decimal::new(31_504 + (i as i64 * 7_919) % 1_968_496, 2);
        let (num, rfc, curp) = (format!("E{i:05}"), format!("PEGA70010{i:04}"), format!("PEGA700101HDFRRN{i:02}"));
        let datos = comun::empleado(&num, &rfc, &curp, "2020-01-15", salario);
        empleados::insert(&mut tx, &EmpresaId::from(&empresa), &id, &datos, now).await?;
        let base = |tipo, fecha| incidencias::Datos {
            empleado_id: &id,
            tipo,
            fecha,
            horas: None,
            dias: None,
            tipo_incapacidad: None,
            domingos: None,
            clave_sat: None,
            concepto: None,
            importe: None,
            gravado: None,
            exento: None,
        };
        let mut lista = vec![
            incidencias::Datos { horas: Some(3 + (i % 4) as i64), ..base("HORAS_EXTRA", "2026-03-03") },
            incidencias::Datos { horas: Some(2 + (i % 5) as i64), ..base("HORAS_EXTRA", "2026-03-05") },
        ];
        lista.push(match i % 6 {
            0 => incidencias::Datos { dias: Some(1), ..base("FALTA", "2026-03-06") },
            1 => {
                incidencias::Datos { dias: Some(2), tipo_incapacidad: Some("02"), ..base("INCAPACIDAD", "2026-03-09") }
            }
            2 => incidencias::Datos { dias: Some(3), ..base("VACACIONES", "2026-03-10") },
            3 => incidencias::Datos { domingos: Some(2), ..base("PRIMA_DOMINICAL", "2026-03-08") },
            4 => incidencias::Datos {
                clave_sat: Some("038"),
                concepto: Some("Bono"),
                importe: Some(Money(Decimal::from(500))),
                ..base("PERCEPCION", "2026-03-12")
            },
            _ => incidencias::Datos {
                clave_sat: Some("011"),
                concepto: Some("Fonacot"),
                importe: Some(Money(Decimal::from(300))),
                ..base("DEDUCCION", "2026-03-12")
            },
        });
        for (n, datos) in lista.iter().enumerate() {
            let inc = format!("{id}-{n}");
            incidencias::insert(&mut tx, &EmpresaId::from(&empresa), &inc, datos, now).await?;
            incidencias::decidir(&mut tx, &EmpresaId::from(&empresa), &inc, "APROBADA", now).await?;
        }
    }
    let periodo = nomina::NuevoPeriodo {
        fecha_inicio: "2026-03-01",
        fecha_fin: "2026-03-15",
        fecha_pago: "2026-03-13",
        periodicidad: "QUINCENAL",
        dias_pagados: 15,
        tipo: "ORDINARIA",
        concepto: None,
        empleado_id: None,
        ejercicio: None,
    };
    let periodo_id = format!("{empresa}-p");
    nomina::insert_periodo(&mut tx, &EmpresaId::from(&empresa), &periodo_id, &periodo, now).await?;
    tx.commit().await?;
    println!("{total} employees, {} approved incidences, backend {:?}", total * 3, db.backend());

    // The CPU part alone, on rows read once.
    let mut conn = db.conn().await?;
    let row =
        nomina::periodo(&mut conn, &EmpresaId::from(&empresa), &PeriodoId::from(&periodo_id)).await?.expect("period");
    let filas = empleados::activos(&mut conn, &EmpresaId::from(&empresa), "QUINCENAL").await?;
    let incs = incidencias::aprobadas(&mut conn, &EmpresaId::from(&empresa), "2026-03-01", "2026-03-15").await?;
    drop(conn);
    let p = periodo_de(&row).map_err(|e| anyhow::anyhow!(e.message))?;
    let mut cpu = Vec::new();
    for _ in 0..runs {
        let inicio = Instant::now();
        let recibos = en_paralelo(&p, filas.clone(), &incs)?;
        cpu.push(inicio.elapsed());
        assert_eq!(recibos, total);
    }
    resumen("gross-to-net of every receipt, on every core (no SQL)", cpu);

    let mut whole = Vec::new();
    for _ in 0..runs {
        let inicio = Instant::now();
        let calculado = calcular_periodo(&app, &EmpresaId::from(&empresa), &PeriodoId::from(&periodo_id))
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        whole.push(inicio.elapsed());
        assert_eq!(calculado.recibos_calculados, total as i64);
    }
    resumen("whole calculation (read, calculate, replace the receipts, commit)", whole);
    db.close().await;
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}
