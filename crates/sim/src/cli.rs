//! `timbra sim ...`: run a simulator in the foreground.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, Subcommand};
use rust_decimal::Decimal;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::pac::{self, SimConfig};
use crate::sat::{self, Desenlace, SatSimConfig};

/// The simulators.
#[derive(Subcommand)]
pub enum SimCommand {
    /// PAC simulator: Finkok's SOAP 1.1 stamp and cancel services on loopback
    /// (point TIMBRA_PAC_URL at it), and SAT's ConsultaCFDIService over its documents at
    /// /ConsultaCFDIService.svc on the same address.
    Pac(PacArgs),
    /// SAT descarga masiva v1.5 simulator on loopback (point TIMBRA_SAT_*_URL at it).
    Sat(SatArgs),
}

/// Options of `timbra sim sat`.
#[derive(Args)]
pub struct SatArgs {
    /// Address to listen on (loopback only).
    #[arg(long, env = "TIMBRA_SIM_SAT_LISTEN", default_value = "127.0.0.1:8090")]
    pub listen: SocketAddr,
    /// Folder of CFDI 4.0 XML files to serve (matched by RFC, Fecha and type).
    #[arg(long, env = "TIMBRA_SIM_SAT_XML_DIR")]
    pub xml_dir: Option<std::path::PathBuf>,
    /// Pin the clock (RFC 3339, e.g. 2026-11-20T18:00:00Z); the system clock when unset.
    #[arg(long)]
    pub now: Option<String>,
    /// Polls that answer EstadoSolicitud 1 (Aceptada) before 2.
    #[arg(long, default_value_t = 1)]
    pub polls_accepted: u32,
    /// Polls that answer EstadoSolicitud 2 (En proceso) before the request ends.
    #[arg(long, default_value_t = 1)]
    pub polls_in_process: u32,
    /// Forced outcomes, one per request in arrival order (comma separated): normal, accepted,
    /// in-process, error, rejected, rejected-5003, expired, empty-package, or a CodEstatus
    /// for the request itself (5001, 5002, 5005, 5006, 404).
    #[arg(long, value_delimiter = ',')]
    pub force: Vec<Desenlace>,
    /// UUIDs whose XML SAT lacks: only their metadata is delivered (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub metadata_only: Vec<String>,
    /// Every finished request delivers empty packages.
    #[arg(long)]
    pub empty_package: bool,
    /// CFDI or metadata rows per package.
    #[arg(long, default_value_t = 200_000)]
    pub per_package: usize,
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
    /// Receiver RFCs that answer only through accept_reject_signature (comma separated): their
    /// requests stay pending (get_pending) until answered or three business days pass.
    #[arg(long, value_delimiter = ',')]
    pub answering_receivers: Vec<String>,
    /// Status queries that report "En proceso" before the receiver's answer shows.
    #[arg(long, default_value_t = 1)]
    pub pending_queries: u32,
    /// Status queries right after a cancellation request that still show the state before it
    /// (SAT's status service lagging behind).
    #[arg(long, default_value_t = 0)]
    pub lagging_status_queries: u32,
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
            config.receptores_que_responden = args.answering_receivers;
            config.consultas_en_proceso = args.pending_queries;
            config.consultas_sin_reflejar = args.lagging_status_queries;
            let numero = config.credencial_pac.certificate().no_certificado().to_owned();
            let listener = tokio::net::TcpListener::bind(args.listen).await?;
            let direccion = listener.local_addr()?;
            println!(
                "timbra sim pac: Finkok SOAP on http://{direccion}/servicios/soap/{{stamp,cancel}}; \
                 NoCertificadoSAT {numero}, certificate at http://{direccion}/sim/certificado.cer; \
                 SAT's ConsultaCFDIService at http://{direccion}{}",
                crate::consulta::RUTA
            );
            pac::serve(listener, config).await?;
            Ok(())
        }
        SimCommand::Sat(args) => {
            if !args.listen.ip().is_loopback() {
                return Err(format!("--listen {}: the simulator listens only on loopback", args.listen).into());
            }
            let mut config = SatSimConfig {
                consultas_aceptada: args.polls_accepted,
                consultas_en_proceso: args.polls_in_process,
                documentos_por_paquete: args.per_package,
                uuids_solo_metadatos: args.metadata_only.iter().map(|u| u.trim().to_uppercase()).collect(),
                ..SatSimConfig::default()
            };
            config.desenlaces = args.force.into_iter().collect();
            config.paquetes_vacios = args.empty_package;
            config.ahora = match args.now {
                Some(texto) => {
                    Some(OffsetDateTime::parse(&texto, &Rfc3339).map_err(|e| format!("--now {texto}: {e}"))?)
                }
                None => None,
            };
            if let Some(carpeta) = &args.xml_dir {
                let (retenciones, documentos) =
                    sat::leer_carpeta(carpeta)?.into_iter().partition(|documento| documento.tipo == "RET");
                config.documentos = documentos;
                config.retenciones = retenciones;
            }
            let listener = tokio::net::TcpListener::bind(args.listen).await?;
            let direccion = listener.local_addr()?;
            println!(
                "timbra sim sat: descarga masiva v1.5 on http://{direccion} ({} CFDI) and {} retentions under /retenciones; set \
                 TIMBRA_SAT_AUTH_URL=http://{direccion}/Autenticacion/Autenticacion.svc \
                 TIMBRA_SAT_SOLICITA_URL=http://{direccion}/SolicitaDescargaService.svc \
                 TIMBRA_SAT_VERIFICA_URL=http://{direccion}/VerificaSolicitudDescargaService.svc \
                 TIMBRA_SAT_DESCARGA_URL=http://{direccion}/DescargaMasivaService.svc \
                 TIMBRA_SAT_RET_BASE_URL=http://{direccion}/retenciones",
                config.documentos.len(),
                config.retenciones.len()
            );
            sat::serve(listener, config).await?;
            Ok(())
        }
    }
}
