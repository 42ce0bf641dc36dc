//! Payroll through the year (issue 35's "Speed"), on SQLite (or PostgreSQL), through the
//! service calls the routes make:
//!
//! 1. an AGUINALDO period of `employees` calculated (`POST /api/nomina/periodos/{id}`: read the
//!    employees and the year's earlier aguinaldo, compute, write the receipts and the event);
//!    target < 50 ms for 1,000 on SQLite;
//! 2. the annual ISR adjustment (`POST /api/nomina/ajuste-anual`) of those employees over 24
//!    QUINCENAL periods of 2026 whose receipts are stamped (calculated by the service, then
//!    marked TIMBRADO in SQL: the RSA signatures are not what this measures), written into the
//!    aguinaldo period; target < 1 s;
//! 3. a month's IMSS dues (`GET /api/nomina/imss/2026/4`); target < 100 ms.
//!
//! `cargo build --release -p timbra-server --example nomina_anual_bench &&
//! target/release/examples/nomina_anual_bench [employees] [runs] [database url]` (defaults
//! 1000, 20, a fresh SQLite file). Prints min / median / max of each.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod comun;

use comun::resumen;
use timbra_store::ids::{EmpresaId, PeriodoId};

use std::time::Instant;

use rust_decimal::Decimal;
use timbra_services::nomina::{ajuste_anual, calculo::calcular_periodo, imss};
use timbra_store::sql;
use timbra_store::{empleados, nomina};

fn periodo<'a>(inicio: &'a str, fin: &'a str, pago: &'a str, tipo: &'a str) -> nomina::NuevoPeriodo<'a> {
    let extraordinario = tipo == "EXTRAORDINARIA";
    nomina::NuevoPeriodo {
        fecha_inicio: inicio,
        fecha_fin: fin,
        fecha_pago: pago,
        periodicidad: if extraordinario { "99" } else { "QUINCENAL" },
        dias_pagados: if extraordinario { 0 } else { 15 },
        tipo,
        concepto: extraordinario.then_some("AGUINALDO"),
        empleado_id: None,
        ejercicio: None,
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let comun::Banco { total, runs, db, app, empresa, dir } = comun::abrir().await?;
    let now = app.clock.now();

    let mut tx = db.begin().await?;
    comun::empresa(&mut tx, &empresa, now).await?;
    for i in 0..total {
        let id = format!("{empresa}-{i}");
        // 300.00 to 1,100.00 a day: most under the 400,000.00 of Art. 97, some above.
        let salario = Decimal::new(30_000 + (i as i64 * 7_919) % 80_000, 2);
        let (num, rfc, curp) = (format!("E{i:05}"), format!("PEGA70010{i:04}"), format!("PEGA700101HDFRRN{i:02}"));
        let datos = comun::empleado(&num, &rfc, &curp, if i % 10 == 0 { "2026-03-01" } else { "2020-01-15" }, salario);
        empleados::insert(&mut tx, &EmpresaId::from(&empresa), &id, &datos, now).await?;
    }
    let aguinaldo = format!("{empresa}-aguinaldo");
    nomina::insert_periodo(
        &mut tx,
        &EmpresaId::from(&empresa),
        &aguinaldo,
        &periodo("2026-12-18", "2026-12-18", "2026-12-18", "EXTRAORDINARIA"),
        now,
    )
    .await?;
    // The 24 quincenas of 2026.
    let mut quincenas = Vec::new();
    for mes in 1..=12u8 {
        let ultimo = time::Month::try_from(mes)?.length(2026);
        for (inicio, fin) in [(1, 15), (16, ultimo)] {
            let (i, f) = (format!("2026-{mes:02}-{inicio:02}"), format!("2026-{mes:02}-{fin:02}"));
            let id = format!("{empresa}-q{mes:02}{inicio:02}");
            nomina::insert_periodo(&mut tx, &EmpresaId::from(&empresa), &id, &periodo(&i, &f, &f, "ORDINARIA"), now)
                .await?;
            quincenas.push(id);
        }
    }
    tx.commit().await?;
    println!("{total} employees, backend {:?}", db.backend());

    // 1. The aguinaldo period, calculated `runs` times (each replaces the receipts before).
    let mut tiempos = Vec::new();
    for _ in 0..runs {
        let inicio = Instant::now();
        let calculado = calcular_periodo(&app, &EmpresaId::from(&empresa), &PeriodoId::from(&aguinaldo))
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        tiempos.push(inicio.elapsed());
        assert_eq!(calculado.recibos_calculados, total as i64);
    }
    resumen("aguinaldo period calculated (read, compute, write the receipts and the event, commit)", tiempos);

    // 2. 24 stamped quincenas, then the adjustment written into the aguinaldo period.
    let preparar = Instant::now();
    for q in &quincenas {
        calcular_periodo(&app, &EmpresaId::from(&empresa), &PeriodoId::from(q))
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
    }
    let mut tx = db.begin().await?;
    sql!(execute tx, "UPDATE nomina_recibos SET status = 'TIMBRADO' WHERE empresa_id = $1 AND periodo_id <> $2",
        &empresa, &aguinaldo)?;
    tx.commit().await?;
    println!("(24 quincenas of {total} calculated and marked TIMBRADO in {:.1} s)", preparar.elapsed().as_secs_f64());
    let mut tiempos = Vec::new();
    for _ in 0..runs {
        let campos =
            ajuste_anual::Campos { ejercicio: Some(serde_json::json!(2026)), periodo_id: Some(aguinaldo.clone()) };
        let inicio = Instant::now();
        let ajuste = ajuste_anual::aplicar(&app, &EmpresaId::from(&empresa), campos)
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        tiempos.push(inicio.elapsed());
        assert_eq!(ajuste.items.len(), total);
    }
    resumen("annual adjustment over 24 stamped periods (read the year, compute, write into the period)", tiempos);

    // 3. A month of IMSS dues.
    let mut tiempos = Vec::new();
    for _ in 0..runs {
        let inicio = Instant::now();
        let mes = imss::cuotas(&app, &EmpresaId::from(&empresa), "2026", "4")
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        tiempos.push(inicio.elapsed());
        assert_eq!(mes.trabajadores.len(), total);
    }
    resumen("a month of IMSS dues (read the employees and incidences, compute every branch)", tiempos);
    db.close().await;
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}
