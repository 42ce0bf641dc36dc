//! Webhook deliveries per second to a local receiver that answers 200 at once, on SQLite.
//!
//! `cargo run --release -p timbra-server --example webhook_bench -- [events] [workers] [batch]`
//! (defaults 20000, 2, 256). Events and their delivery jobs are written first; then the workers
//! start and the clock runs until every delivery is recorded as succeeded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use timbra_store::ids::EmpresaId;

use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_services::events::payloads::FacturaTimbrada;
use timbra_services::events::{Event, emit};
use timbra_store::sql;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("numbers")).collect();
    let events = *args.first().unwrap_or(&20_000);
    let workers = *args.get(1).unwrap_or(&2) as usize;
    let batch = *args.get(2).unwrap_or(&256) as i64;

    // The receiver.
    let hits = Arc::new(AtomicU64::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    let counter = hits.clone();
    let receiver = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::Relaxed);
                "ok"
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, receiver).await });

    let dir = std::env::temp_dir().join(format!("timbra-bench-{}", uuid::Uuid::new_v4()));
    let mut config = Config::from_lookup(|_| None)?;
    config.data_dir = dir.clone();
    config.database_url = format!("sqlite://{}", dir.join("timbra.db").display());
    config.webhooks.allow_private = true;
    config.jobs.workers = workers;
    config.jobs.batch = batch;
    config.jobs.poll = Duration::from_millis(5);
    let db = timbra_server::open(&config).await?;
    let app = AppContext::new(db.clone(), config);

    // A company with one endpoint, then the events (1,000 per transaction).
    let now = app.clock.now();
    let mut conn = db.conn().await?;
    sql!(execute conn, "INSERT INTO users (id, name, email, email_lower, password_hash, created_at, updated_at) \
        VALUES ('u', 'Bench', 'b@example.com', 'b@example.com', 'x', $1, $1)", now)?;
    sql!(execute conn, "INSERT INTO empresas (id, owner_user_id, rfc, razon_social, regimen_fiscal, codigo_postal, sandbox, \
        serie_predeterminada, created_at, updated_at) VALUES ('e', 'u', 'EKU9003173C9', 'BENCH', '601', '42501', $1, 'A', $2, $2)",
        true, now)?;
    sql!(execute conn, "INSERT INTO webhooks (id, empresa_id, url, events, description, secret, active, created_at, updated_at) \
        VALUES ('w', 'e', $1, NULL, NULL, 'whsec_bench', $2, $3, $3)", &url, true, now)?;
    drop(conn);
    let data = Event::FacturaTimbrada(FacturaTimbrada {
        cfdi_id: "c".into(),
        uuid: "SANDBOX-x".into(),
        total: rust_decimal::Decimal::new(116000, 2),
        serie: "A".into(),
        folio: "1".into(),
        tipo_comprobante: Some("I".into()),
        monto: None,
        global: None,
    });
    let mut written = 0;
    while written < events {
        let mut tx = db.begin().await?;
        for _ in 0..1000.min(events - written) {
            emit(&mut tx, now, &EmpresaId::from("e"), &data).await?;
            written += 1;
        }
        tx.commit().await?;
    }

    let started = Instant::now();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let handles = timbra_services::jobs::worker::start(&app, stopped);
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut conn = db.conn().await?;
        let succeeded =
            sql!(scalar_one conn, i64, "SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'succeeded'")?;
        if succeeded as u64 >= events {
            break;
        }
        if started.elapsed() > Duration::from_secs(600) {
            anyhow::bail!("only {succeeded} of {events} delivered in 10 minutes");
        }
    }
    let elapsed = started.elapsed();
    let _ = stop.send(true);
    for handle in handles {
        let _ = handle.await;
    }
    println!(
        "{events} deliveries (receiver saw {}) in {:.2} s: {:.0} deliveries/s ({workers} workers, batch {batch}, SQLite)",
        hits.load(Ordering::Relaxed),
        elapsed.as_secs_f64(),
        events as f64 / elapsed.as_secs_f64()
    );
    db.close().await;
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}
