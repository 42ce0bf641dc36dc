//! timbra's binary side: composition (`open` the database, `serve` the API with the job
//! workers) and the command line's acts. The stack below it: `timbra-api` (HTTP and
//! dashboard) over `timbra-services` (operations) over `timbra-store` (SQL).

pub mod catalogos_cli;
pub mod cfdi_cli;
pub mod mcp_cli;
pub mod operador_cli;

use anyhow::Context;

use timbra_api::{connections, router};
use timbra_services::{auth, jobs, private_fs, webhooks};

use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_store::Db;

/// Opens (and creates) the data folder (mode 0700) and database (a SQLite file with mode
/// 0600), and applies migrations.
pub async fn open(config: &Config) -> anyhow::Result<Db> {
    private_fs::create_dir(&config.data_dir)
        .with_context(|| format!("cannot create the data folder {}", config.data_dir.display()))?;
    if let Some(path) = private_fs::sqlite_path(&config.database_url) {
        private_fs::prepare_sqlite_file(&path)
            .with_context(|| format!("cannot create the database file {} with mode 0600", path.display()))?;
    }
    let db = Db::connect(&config.database_url).await.context("cannot open the database")?;
    db.migrate().await.context("cannot apply migrations")?;
    Ok(db)
}

/// Serves on `listener` and runs the background job workers until `shutdown` resolves; then
/// stops taking requests and jobs and waits for the jobs in hand (at most
/// [`SHUTDOWN_GRACE`]; a job cut short is taken again when its lease expires).
pub async fn serve(
    listener: tokio::net::TcpListener,
    mut app: AppContext,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // A newer edition of SAT's catalogs imported into the database replaces the shipped one.
    app.catalogos = timbra_services::catalogos::cargar(&app.db).await;
    match webhooks::seal_stored_secrets(&app).await {
        Ok(0) => {}
        Ok(sealed) => tracing::info!(webhooks.sealed = sealed, "sealed webhook secrets stored in clear"),
        Err(error) => tracing::error!(error.message = %error, "could not seal webhook secrets stored in clear"),
    }
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let workers = jobs::worker::start(&app, stopped);
    let follower = auth::cache::follow_other_instances(&app.db, &app.auth_cache);
    let limits = app.config.connections.clone();
    let router = router::build(app);
    let served = connections::serve(listener, router, &limits, shutdown).await;
    let _ = stop.send(true);
    if let Some(follower) = follower {
        follower.abort();
    }
    let finished = async {
        for worker in workers {
            let _ = worker.await;
        }
    };
    if tokio::time::timeout(SHUTDOWN_GRACE, finished).await.is_err() {
        tracing::warn!("jobs still running at shutdown; their leases will expire and another worker takes them");
    }
    served.context("server failed")
}

/// How long shutdown waits for running jobs.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(30);
