//! `timbra sim ...`: run a simulator in the foreground.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, Subcommand};
use rust_decimal::Decimal;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::pac::{self, SimConfig};

/// The simulators.
#[derive(Subcommand)]
pub enum SimCommand {
    /// PAC simulator: Finkok's SOAP 1.1 stamp and cancel services on loopback
    /// (point TIMBRA_PAC_URL at it).
    Pac(PacArgs),
}

/// Options of `timbra sim pac`.
#[derive(Args)]
pub struct PacArgs {
    /// Address to listen on.
    #[arg(long, env = "TIMBRA_SIM_PAC_LISTEN", default_value = "127.0.0.1:8089")]
    pub listen: SocketAddr,
    /// Account user the simulator accepts (any, when unset).
    #[arg(long, env = "TIMBRA_SIM_PAC_USER")]
    pub user: Option<String>,
    /// Account password the simulator accepts (any, when unset).
    #[arg(long, env = "TIMBRA_SIM_PAC_PASSWORD")]
    pub password: Option<String>,
    /// Pin the clock (RFC 3339, e.g. 2026-11-20T18:00:00Z); the system clock when unset.
    #[arg(long)]
    pub now: Option<String>,
    /// Answer stamp and cancel requests this many milliseconds late (after doing the work).
    #[arg(long, default_value_t = 0)]
    pub delay_ms: u64,
    /// Answer every request with garbage instead of SOAP.
    #[arg(long)]
    pub garbage: bool,
    /// Ingreso totals above this need the receiver's acceptance to cancel.
    #[arg(long, default_value = "1000")]
    pub acceptance_threshold: Decimal,
    /// Receiver RFCs that reject cancellation requests (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub rejecting_receivers: Vec<String>,
    /// Receiver RFCs that never answer: SAT cancels after the deadline ("Plazo vencido").
    #[arg(long, value_delimiter = ',')]
    pub silent_receivers: Vec<String>,
    /// Status queries that report "En proceso" before the receiver's answer shows.
    #[arg(long, default_value_t = 1)]
    pub pending_queries: u32,
}

/// Runs the chosen simulator until the process is stopped.
///
/// # Errors
/// Bad options, certificate generation or listener failures.
pub async fn run(command: SimCommand) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    match command {
        SimCommand::Pac(args) => {
            let mut config = SimConfig::generar()?;
            config.usuario = args.user;
            config.password = args.password;
            config.ahora = match args.now {
                Some(texto) => {
                    Some(OffsetDateTime::parse(&texto, &Rfc3339).map_err(|e| format!("--now {texto}: {e}"))?)
                }
                None => None,
            };
            config.retraso = Duration::from_millis(args.delay_ms);
            config.basura = args.garbage;
            config.umbral_aceptacion = args.acceptance_threshold;
            config.receptores_que_rechazan = args.rejecting_receivers;
            config.receptores_que_no_contestan = args.silent_receivers;
            config.consultas_en_proceso = args.pending_queries;
            let numero = config.credencial_pac.certificate().no_certificado().to_owned();
            let listener = tokio::net::TcpListener::bind(args.listen).await?;
            let direccion = listener.local_addr()?;
            println!(
                "timbra sim pac: Finkok SOAP on http://{direccion}/servicios/soap/{{stamp,cancel}}; \
                 NoCertificadoSAT {numero}, certificate at http://{direccion}/sim/certificado.cer"
            );
            pac::serve(listener, config).await?;
            Ok(())
        }
    }
}
