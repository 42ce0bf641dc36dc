//! The `timbra` binary: `serve` runs the API, `migrate` applies migrations, `timbres` and
//! `operadores` are the operator's acts, `cfdi` checks files, `sim` runs simulators, `mcp` is the
//! stdio bridge to `/mcp` for desktop assistants.

use clap::{Parser, Subcommand};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use timbra_services::config::Config;
use timbra_services::context::AppContext;

#[derive(Parser)]
#[command(name = "timbra", version, about = "CFDI 4.0 invoicing and payroll service")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the HTTP API (migrates the database first). Configured by TIMBRA_* variables.
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Check a CFDI file: cadena original, seals, validation rules.
    Cfdi {
        #[command(subcommand)]
        command: timbra_server::cfdi_cli::CfdiCommand,
    },
    /// The installation operator's stamp top-ups (`timbra timbres recargar --empresa <id>
    /// --cantidad <n>`).
    Timbres {
        #[command(subcommand)]
        command: timbra_server::operador_cli::TimbresCommand,
    },
    /// The installation's operators, who may top up any company's stamps through the API
    /// (`timbra operadores agregar <email>`).
    Operadores {
        #[command(subcommand)]
        command: timbra_server::operador_cli::OperadoresCommand,
    },
    /// SAT's catalogs: `timbra catalogos estado`, `timbra catalogos importar <DIR>`.
    Catalogos {
        #[command(subcommand)]
        command: timbra_server::catalogos_cli::CatalogosCommand,
    },
    /// Run a simulator of an outside service on loopback (`timbra sim pac`, `timbra sim sat`).
    Sim {
        #[command(subcommand)]
        command: timbra_sim::cli::SimCommand,
    },
    /// An MCP server on stdin/stdout for desktop assistants, forwarding to the `/mcp` endpoint of
    /// a running timbra with the API key in TIMBRA_API_KEY (`timbra mcp --url https://…`).
    Mcp {
        /// The running timbra's base address (`https://facturas.example.com`).
        #[arg(long)]
        url: String,
        /// The API key; better in the environment than on the command line.
        #[arg(long, env = "TIMBRA_API_KEY", hide_env_values = true)]
        api_key: String,
    },
}

fn main() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Cfdi { command } => Ok(timbra_server::cfdi_cli::run(command)),
        Command::Sim { command } => {
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?
                .block_on(timbra_sim::cli::run(command))
                .map_err(|error| anyhow::anyhow!(error))?;
            Ok(std::process::ExitCode::SUCCESS)
        }
        Command::Mcp { url, api_key } => {
            // Standard output is the protocol: the log goes to standard error.
            let filter = tracing_subscriber::EnvFilter::try_from_env("TIMBRA_LOG").unwrap_or_else(|_| "warn".into());
            tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .init();
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?
                .block_on(timbra_server::mcp_cli::run(&url, &api_key))?;
            Ok(std::process::ExitCode::SUCCESS)
        }
        other => {
            tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run(other))?;
            Ok(std::process::ExitCode::SUCCESS)
        }
    }
}

async fn run(command: Command) -> anyhow::Result<()> {
    timbra_api::observability::init_logging();
    let config = Config::from_env()?;
    match command {
        Command::Cfdi { .. } | Command::Sim { .. } | Command::Mcp { .. } => {}
        Command::Timbres { command } => timbra_server::operador_cli::timbres(&config, command).await?,
        Command::Operadores { command } => timbra_server::operador_cli::operadores(&config, command).await?,
        Command::Catalogos { command } => timbra_server::catalogos_cli::run(&config, command).await?,
        Command::Migrate => {
            timbra_server::open(&config).await?;
            tracing::info!(database = %redact(&config.database_url), "migrations applied");
        }
        Command::Serve => {
            // A storage that cannot be opened stops the start, naming the reason.
            timbra_services::cfdi::storage::ObjectStorage::open(&config.storage())
                .map_err(|error| anyhow::anyhow!("TIMBRA_STORAGE_URL: the file storage cannot be opened: {error}"))?;
            let db = timbra_server::open(&config).await?;
            let listener = tokio::net::TcpListener::bind(config.listen).await?;
            tracing::info!(listen = %config.listen, database = %redact(&config.database_url), "timbra listening");
            let app = AppContext::new(db.clone(), config);
            timbra_server::serve(listener, app, shutdown_signal()).await?;
            db.close().await;
        }
    }
    Ok(())
}

/// The database URL without its password, for logs.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://***{}", &url[..scheme], &url[at..]),
        _ => url.to_owned(),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
}
