//! A SAT package of received invoices read and stored, on SQLite: unzip, parse every CFDI, verify
//! its `Sello` and its TFD `SelloSAT` (SAT's certificate known), then store each row with its
//! XML in one transaction — the work `sync-recibidos` does per package.
//!
//! `cargo run --release -p timbra-server --example recibidos_bench -- [cfdi] [rounds]`
//! (defaults 200, 20). Each round stores the package for a new company (nothing skipped);
//! prints the median and the slowest round, split into reading (unzip, parse, seals) and
//! storing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};
use timbra_store::ids::EmpresaId;

use timbra_sat::CertificadosSat;
use timbra_services::cfdi::recibidos::{self, Empresa};
use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_sim::sat::lote::{self, Firmantes};
use timbra_store::sql;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("numbers")).collect();
    let cantidad = *args.first().unwrap_or(&200);
    let rondas = *args.get(1).unwrap_or(&20);

    let firmantes = Firmantes::generar()?;
    let documentos = lote::recibidos(
        &firmantes,
        "EKU9003173C9",
        "ESCUELA KEMPER URGATE",
        time::macros::datetime!(2026-10-01 09:00),
        cantidad,
    )
    .map_err(anyhow::Error::msg)?;
    let referencias: Vec<_> = documentos.iter().collect();
    let zip = timbra_sim::sat::zip_de("BENCH_01", &referencias, false);
    let mut certificados = CertificadosSat::vacio();
    certificados.agregar(firmantes.certificado_sat().clone());

    let dir = std::env::temp_dir().join(format!("timbra-bench-recibidos-{}", uuid::Uuid::new_v4()));
    let mut config = Config::from_lookup(|_| None)?;
    config.data_dir = dir.clone();
    config.database_url = format!("sqlite://{}", dir.join("timbra.db").display());
    config.jobs.workers = 0;
    let db = timbra_server::open(&config).await?;
    let app = AppContext::new(db.clone(), config);
    let now = app.clock.now();

    let mut lectura = Vec::new();
    let mut total = Vec::new();
    for ronda in 0..rondas {
        let empresa = Empresa { id: EmpresaId::from(format!("e{ronda}")), rfc: "EKU9003173C9".into() };
        // A company per round (one per owner and RFC), so nothing is skipped.
        let (usuario, correo) = (format!("u{ronda}"), format!("b{ronda}@example.com"));
        let mut conn = db.conn().await?;
        sql!(execute conn, "INSERT INTO users (id, name, email, email_lower, password_hash, created_at, updated_at) \
            VALUES ($1, 'Bench', $2, $2, 'x', $3, $3)", &usuario, &correo, now)?;
        sql!(execute conn, "INSERT INTO empresas (id, owner_user_id, rfc, razon_social, regimen_fiscal, codigo_postal, \
            sandbox, serie_predeterminada, created_at, updated_at) VALUES ($1, $2, 'EKU9003173C9', 'BENCH', '601', '42501', \
            $3, 'A', $4, $4)", &empresa.id, &usuario, true, now)?;
        // The daily quota (1,800) would stop the tenth round.
        sql!(execute conn, "DELETE FROM sat_cuota")?;
        drop(conn);
        let inicio = Instant::now();
        let paquete = timbra_sat::leer_paquete(&zip, &certificados)?;
        let leido = inicio.elapsed();
        assert_eq!(paquete.documentos.len(), cantidad);
        assert!(paquete.documentos.iter().all(|d| d.sello == timbra_sat::EstadoSello::Verificado));
        let guardado = recibidos::guardar(&app, &empresa, &paquete.documentos, &[], &[], None)
            .await
            .map_err(|e| anyhow::anyhow!("{}: {}", e.code.as_str(), e.message))?;
        let todo = inicio.elapsed();
        assert_eq!(guardado.nuevos.len(), cantidad);
        lectura.push(leido);
        total.push(todo);
    }
    let mediana = |v: &mut Vec<Duration>| {
        v.sort();
        (v[v.len() / 2], v[v.len() - 1])
    };
    let (lectura_mediana, lectura_max) = mediana(&mut lectura);
    let (total_mediana, total_max) = mediana(&mut total);
    println!(
        "{cantidad} CFDI, zip {} KiB, {rondas} rounds: read (unzip+parse+Sello+SelloSAT) median {:.1} ms (max {:.1}); \
         read+store median {:.1} ms (max {:.1}); store alone median {:.1} ms",
        zip.len() / 1024,
        lectura_mediana.as_secs_f64() * 1e3,
        lectura_max.as_secs_f64() * 1e3,
        total_mediana.as_secs_f64() * 1e3,
        total_max.as_secs_f64() * 1e3,
        (total_mediana.saturating_sub(lectura_mediana)).as_secs_f64() * 1e3,
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
