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

use std::time::{Duration, Instant};

use rust_decimal::Decimal;
use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_services::nomina::{ajuste_anual, calculo::calcular_periodo, imss};
use timbra_store::sql;
use timbra_store::{empleados, nomina};

fn resumen(nombre: &str, mut tiempos: Vec<Duration>) {
    tiempos.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{nombre}: min {:.1} ms, median {:.1} ms, max {:.1} ms over {} runs",
        ms(tiempos[0]),
        ms(tiempos[tiempos.len() / 2]),
        ms(tiempos[tiempos.len() - 1]),
        tiempos.len()
    );
}

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let total: usize = args.first().map_or(1000, |a| a.parse().expect("employees"));
    let runs: usize = args.get(1).map_or(20, |a| a.parse().expect("runs"));
    let dir = std::env::temp_dir().join(format!("timbra-bench-{}", uuid::Uuid::new_v4()));
    let mut config = Config::from_lookup(|_| None)?;
    config.data_dir = dir.clone();
    config.database_url =
        args.get(2).cloned().unwrap_or_else(|| format!("sqlite://{}", dir.join("timbra.db").display()));
    let db = timbra_server::open(&config).await?;
    let app = AppContext::new(db.clone(), config);
    let now = app.clock.now();
    let empresa = format!("e{}", uuid::Uuid::new_v4().simple());

    let mut tx = db.begin().await?;
    sql!(execute tx, "INSERT INTO users (id, name, email, email_lower, password_hash, created_at, updated_at) \
        VALUES ($1, 'Bench', $2, $2, 'x', $3, $3)", &empresa, format!("{empresa}@example.com"), now)?;
    sql!(execute tx, "INSERT INTO empresas (id, owner_user_id, rfc, razon_social, regimen_fiscal, codigo_postal, sandbox, \
        serie_predeterminada, created_at, updated_at, registro_patronal, prima_riesgo) \
        VALUES ($1, $1, 'EKU9003173C9', 'BENCH', '601', '42501', $2, 'A', $3, $3, 'B5510768108', $4)",
        &empresa, true, now, timbra_store::Money(Decimal::new(54_355, 5)))?;
    for i in 0..total {
        let id = format!("{empresa}-{i}");
        // 300.00 to 1,100.00 a day: most under the 400,000.00 of Art. 97, some above.
        let salario = Decimal::new(30_000 + (i as i64 * 7_919) % 80_000, 2);
        let (num, rfc, curp) = (format!("E{i:05}"), format!("PEGA70010{i:04}"), format!("PEGA700101HDFRRN{i:02}"));
        let datos = empleados::Datos {
            num_empleado: &num,
            nombre: "EMPLEADO DE PRUEBA",
            rfc: &rfc,
            curp: &curp,
            nss: Some("12100000004"),
            codigo_postal: "06600",
            fecha_inicio_rel_laboral: if i % 10 == 0 { "2026-03-01" } else { "2020-01-15" },
            salario_diario: salario,
            salario_diario_integrado: (salario * Decimal::new(10_493, 4)).round_dp(2),
            periodicidad: "QUINCENAL",
            tipo_contrato: "01",
            tipo_jornada: Some("01"),
            tipo_regimen: "02",
            riesgo_puesto: "2",
            departamento: None,
            puesto: None,
            banco: None,
            cuenta_bancaria: None,
            clave_ent_fed: "CMX",
            activo: true,
            fecha_baja: None,
            confianza: false,
            director: false,
        };
        empleados::insert(&mut tx, &empresa, &id, &datos, now).await?;
    }
    let aguinaldo = format!("{empresa}-aguinaldo");
    nomina::insert_periodo(
        &mut tx,
        &empresa,
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
            nomina::insert_periodo(&mut tx, &empresa, &id, &periodo(&i, &f, &f, "ORDINARIA"), now).await?;
            quincenas.push(id);
        }
    }
    tx.commit().await?;
    println!("{total} employees, backend {:?}", db.backend());

    // 1. The aguinaldo period, calculated `runs` times (each replaces the receipts before).
    let mut tiempos = Vec::new();
    for _ in 0..runs {
        let inicio = Instant::now();
        let calculado = calcular_periodo(&app, &empresa, &aguinaldo).await.map_err(|e| anyhow::anyhow!(e.message))?;
        tiempos.push(inicio.elapsed());
        assert_eq!(calculado.recibos_calculados, total as i64);
    }
    resumen("aguinaldo period calculated (read, compute, write the receipts and the event, commit)", tiempos);

    // 2. 24 stamped quincenas, then the adjustment written into the aguinaldo period.
    let preparar = Instant::now();
    for q in &quincenas {
        calcular_periodo(&app, &empresa, q).await.map_err(|e| anyhow::anyhow!(e.message))?;
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
        let ajuste = ajuste_anual::aplicar(&app, &empresa, campos).await.map_err(|e| anyhow::anyhow!(e.message))?;
        tiempos.push(inicio.elapsed());
        assert_eq!(ajuste.items.len(), total);
    }
    resumen("annual adjustment over 24 stamped periods (read the year, compute, write into the period)", tiempos);

    // 3. A month of IMSS dues.
    let mut tiempos = Vec::new();
    for _ in 0..runs {
        let inicio = Instant::now();
        let mes = imss::cuotas(&app, &empresa, "2026", "4").await.map_err(|e| anyhow::anyhow!(e.message))?;
        tiempos.push(inicio.elapsed());
        assert_eq!(mes.trabajadores.len(), total);
    }
    resumen("a month of IMSS dues (read the employees and incidences, compute every branch)", tiempos);
    db.close().await;
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}
