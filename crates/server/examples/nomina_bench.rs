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

use std::time::{Duration, Instant};

use rust_decimal::Decimal;
use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_services::nomina::calculo::{calcular_periodo, periodo_de, por_empleado, recibos_del_periodo};
use timbra_store::sql;
use timbra_store::{Money, empleados, incidencias, nomina};

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
        serie_predeterminada, created_at, updated_at) VALUES ($1, $1, 'EKU9003173C9', 'BENCH', '601', '42501', $2, 'A', $3, $3)",
        &empresa, true, now)?;
    for i in 0..total {
        let id = format!("{empresa}-{i}");
        let salario = Decimal::new(31_504 + (i as i64 * 7_919) % 1_968_496, 2);
        let (num, rfc, curp) = (format!("E{i:05}"), format!("PEGA70010{i:04}"), format!("PEGA700101HDFRRN{i:02}"));
        let datos = empleados::Datos {
            num_empleado: &num,
            nombre: "EMPLEADO DE PRUEBA",
            rfc: &rfc,
            curp: &curp,
            nss: Some("12100000004"),
            codigo_postal: "06600",
            fecha_inicio_rel_laboral: "2020-01-15",
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
            incidencias::insert(&mut tx, &empresa, &inc, datos, now).await?;
            incidencias::decidir(&mut tx, &empresa, &inc, "APROBADA", now).await?;
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
    nomina::insert_periodo(&mut tx, &empresa, &periodo_id, &periodo, now).await?;
    tx.commit().await?;
    println!("{total} employees, {} approved incidences, backend {:?}", total * 3, db.backend());

    // The CPU part alone, on rows read once.
    let mut conn = db.conn().await?;
    let row = nomina::periodo(&mut conn, &empresa, &periodo_id).await?.expect("period");
    let filas = empleados::activos(&mut conn, &empresa, "QUINCENAL").await?;
    let incs = incidencias::aprobadas(&mut conn, &empresa, "2026-03-01", "2026-03-15").await?;
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
        let calculado = calcular_periodo(&app, &empresa, &periodo_id).await.map_err(|e| anyhow::anyhow!(e.message))?;
        whole.push(inicio.elapsed());
        assert_eq!(calculado.recibos_calculados, total as i64);
    }
    resumen("whole calculation (read, calculate, replace the receipts, commit)", whole);
    db.close().await;
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}
