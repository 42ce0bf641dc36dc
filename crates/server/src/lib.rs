//! timbra's service: the HTTP API over SQLite or PostgreSQL. `router::build` assembles it;
//! `serve` runs it.

pub mod auth;
pub mod cfdi;
pub mod cfdi_cli;
pub mod config;
pub mod db;
pub mod envelope;
pub mod error;
pub mod ids;
pub mod openapi;
pub mod rate_limit;
pub mod router;
pub mod routes;
pub mod state;
pub mod validate;

use std::net::SocketAddr;

use anyhow::Context;

use crate::config::Config;
use crate::db::Db;
use crate::state::AppState;

/// Opens (and creates) the data folder and database, and applies migrations.
pub async fn open(config: &Config) -> anyhow::Result<Db> {
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("cannot create the data folder {}", config.data_dir.display()))?;
    let db = Db::connect(&config.database_url).await.context("cannot open the database")?;
    db.migrate().await.context("cannot apply migrations")?;
    Ok(db)
}

/// Serves on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let router = router::build(app);
    axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
        .context("server failed")
}
