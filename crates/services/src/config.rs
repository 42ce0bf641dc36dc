//! Configuration from environment variables, one typed struct per concern, with documented
//! defaults. Read once at start; a bad value stops the process with a message naming it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};

/// Everything `timbra serve` needs to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// `TIMBRA_LISTEN`, default `127.0.0.1:8080`.
    pub listen: SocketAddr,
    /// `TIMBRA_DATA_DIR`, default `./data` (created if missing).
    pub data_dir: PathBuf,
    /// `TIMBRA_DATABASE_URL`; default a SQLite file `timbra.db` in the data dir.
    pub database_url: String,
    /// `TIMBRA_STORAGE_URL`: `s3://bucket[/prefix]` for an S3-compatible bucket (with the
    /// standard `AWS_*` variables); unset, the folder `{data_dir}/files`.
    pub storage_url: Option<String>,
    /// The `AWS_*` variables set ([`crate::cfdi::storage::S3_VARIABLES`]), by their
    /// `object_store` names (`aws_access_key_id`, ...), for an S3 storage.
    pub s3_settings: Vec<(String, String)>,
    /// Session cookie settings.
    pub session: SessionConfig,
    /// Request rate limits.
    pub rate_limit: RateLimitConfig,
    /// `TIMBRA_MAX_BODY_BYTES`, default 2 MiB: larger bodies get 413 REQUEST_002.
    pub max_body_bytes: usize,
    /// What clients' connections may hold: header-read timeout, connections in all and per IP.
    pub connections: ConnectionLimits,
    /// `TIMBRA_MASTER_KEY`: base64 of 32 bytes that encrypts CSD keys and passwords at rest
    /// (AES-256-GCM) and signs download links; default a key generated once into
    /// `{data_dir}/master.key` (mode 0600).
    pub master_key: Option<String>,
    /// The PAC for live stamping: `TIMBRA_PAC_URL` (Finkok SOAP; `timbra sim pac` on loopback
    /// for development), `TIMBRA_PAC_USER`, `TIMBRA_PAC_PASSWORD`, `TIMBRA_PAC_TIMEOUT_SECONDS`
    /// (default 30). Without a URL, live companies get LIVE_001.
    pub pac: Option<timbra_pac::finkok::FinkokConfig>,
    /// `TIMBRA_STAMP_LOW_BALANCE` (default 10): `timbres.saldo_bajo` is emitted when a live
    /// stamp takes a company's balance below this.
    pub stamp_low_balance: i64,
    /// Background job workers.
    pub jobs: JobsConfig,
    /// Outgoing webhooks.
    pub webhooks: WebhookConfig,
    /// Outgoing e-mail (`TIMBRA_SMTP_URL`, `TIMBRA_SMTP_FROM`, `TIMBRA_SMTP_TIMEOUT_SECONDS`);
    /// `None` without a URL: sending answers CORREO_001.
    pub smtp: Option<SmtpConfig>,
    /// SAT's descarga masiva (received invoices): `TIMBRA_SAT_AUTH_URL`,
    /// `TIMBRA_SAT_SOLICITA_URL`, `TIMBRA_SAT_VERIFICA_URL`, `TIMBRA_SAT_DESCARGA_URL` (SAT's
    /// production URLs by default), the retention service's `TIMBRA_SAT_RET_*_URL` (or
    /// `TIMBRA_SAT_RET_BASE_URL`), `TIMBRA_SAT_POLL_SECONDS` (60) between verification polls,
    /// `TIMBRA_SAT_CERTS_DIR` (SAT's stamping certificates to verify `SelloSAT`), and what
    /// reading one package may cost (`TIMBRA_SAT_PACKAGE_MAX_*`, [`limites_paquete`]).
    pub sat: timbra_sat::SatConfig,
    /// `TIMBRA_SAT_WAIT_SECONDS` (default 30): how long a download by UUID waits for SAT before
    /// answering 202 with a `jobId` to poll.
    pub sat_espera: Duration,
    /// The time source: the system clock, or (tests only) `TIMBRA_TEST_CLOCK_OFFSET_SECONDS`
    /// and `TIMBRA_TEST_CLOCK_SPEED`.
    pub clock: crate::clock::Clock,
    /// The receiver's side: SAT's status service and how often received CFDI and pending
    /// cancellation requests are looked at.
    pub receptor: ReceptorConfig,
    /// `TIMBRA_PUBLIC_URL`: the service's public address (`https://facturas.example.com`),
    /// the base of the self-invoicing links printed on tickets; unset, the request's Host.
    pub public_url: Option<String>,
    /// `TIMBRA_AUTOFACTURA_LIMIT_PER_HOUR` (default 20): wrong codes one IP may type on the
    /// self-invoicing pages per hour before it is refused (429) until the hour passes.
    pub autofactura_limit_per_hour: u32,
    /// `TIMBRA_MCP_ORIGINS`: origins (`https://agente.example.com`, comma-separated) allowed on
    /// `/mcp` besides the service's own and requests without `Origin`.
    pub mcp_origins: Vec<String>,
}

/// The receiver's side (issue 30).
#[derive(Clone, Debug)]
pub struct ReceptorConfig {
    /// SAT's ConsultaCFDIService: `TIMBRA_SAT_CONSULTA_URL` (default SAT's production URL),
    /// `TIMBRA_SAT_CONSULTA_TIMEOUT_SECONDS` (default 30).
    pub consulta: timbra_pac::consulta::ConsultaConfig,
    /// `TIMBRA_RECEPTOR_POLL_MINUTES` (default 60): how often the PAC is asked for new
    /// cancellation requests of live companies, and the watch of received CFDI runs.
    pub poll: Duration,
    /// `TIMBRA_SAT_VIGILANCIA_DIAS` (default 90): received CFDI younger than this are checked
    /// at SAT every day; older ones every `TIMBRA_SAT_VIGILANCIA_MENSUAL_DIAS` (default 30).
    pub vigilancia_dias: i64,
    /// See [`ReceptorConfig::vigilancia_dias`].
    pub vigilancia_mensual_dias: i64,
    /// `TIMBRA_SAT_VIGILANCIA_LOTE` (default 200): at most this many status queries per run.
    pub vigilancia_lote: i64,
    /// `TIMBRA_SAT_VIGILANCIA_PAUSA_MS` (default 250): pause between two status queries, to
    /// spread them for SAT.
    pub vigilancia_pausa: Duration,
}

impl Default for ReceptorConfig {
    fn default() -> Self {
        Self {
            consulta: timbra_pac::consulta::ConsultaConfig::default(),
            poll: Duration::from_secs(3600),
            vigilancia_dias: 90,
            vigilancia_mensual_dias: 30,
            vigilancia_lote: 200,
            vigilancia_pausa: Duration::from_millis(250),
        }
    }
}

/// [`ReceptorConfig`] from its variables.
fn receptor(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<ReceptorConfig> {
    let defaults = ReceptorConfig::default();
    let mut consulta = match lookup("TIMBRA_SAT_CONSULTA_URL").filter(|url| !url.trim().is_empty()) {
        Some(url) => timbra_pac::consulta::ConsultaConfig::new(&url),
        None => defaults.consulta.clone(),
    };
    consulta.timeout = Duration::from_secs(parse(lookup, "TIMBRA_SAT_CONSULTA_TIMEOUT_SECONDS", 30)?);
    let poll: u64 = parse(lookup, "TIMBRA_RECEPTOR_POLL_MINUTES", 60)?;
    anyhow::ensure!(poll > 0, "TIMBRA_RECEPTOR_POLL_MINUTES must be at least 1");
    let vigilancia_dias: i64 = parse(lookup, "TIMBRA_SAT_VIGILANCIA_DIAS", defaults.vigilancia_dias)?;
    let vigilancia_mensual_dias: i64 =
        parse(lookup, "TIMBRA_SAT_VIGILANCIA_MENSUAL_DIAS", defaults.vigilancia_mensual_dias)?;
    anyhow::ensure!(
        vigilancia_dias >= 0 && vigilancia_mensual_dias >= 1,
        "TIMBRA_SAT_VIGILANCIA_DIAS must be 0 or more and TIMBRA_SAT_VIGILANCIA_MENSUAL_DIAS at least 1"
    );
    Ok(ReceptorConfig {
        consulta,
        poll: Duration::from_secs(60 * poll),
        vigilancia_dias,
        vigilancia_mensual_dias,
        vigilancia_lote: parse::<i64>(lookup, "TIMBRA_SAT_VIGILANCIA_LOTE", defaults.vigilancia_lote)?.clamp(1, 10_000),
        vigilancia_pausa: Duration::from_millis(parse(lookup, "TIMBRA_SAT_VIGILANCIA_PAUSA_MS", 250)?),
    })
}

/// Background job workers of `timbra serve`.
#[derive(Clone, Debug)]
pub struct JobsConfig {
    /// `TIMBRA_WORKERS` (default 2): concurrent claim loops; 0 runs no jobs in this process.
    pub workers: usize,
    /// `TIMBRA_JOBS_BATCH` (default 64): jobs one worker claims and runs at once.
    pub batch: i64,
    /// `TIMBRA_JOBS_POLL_MS` (default 500): pause when no job is due.
    pub poll: Duration,
    /// `TIMBRA_JOBS_LEASE_SECONDS` (default 300): a claimed job not finished by then (crashed
    /// process) is taken by another worker.
    pub lease: Duration,
}

/// Outgoing webhook deliveries.
#[derive(Clone, Debug)]
pub struct WebhookConfig {
    /// `TIMBRA_WEBHOOK_TIMEOUT_SECONDS` (default 10): no 2xx by then counts as a failure.
    pub timeout: Duration,
    /// `TIMBRA_WEBHOOKS_ALLOW_PRIVATE` (default false): allow loopback, private and link-local
    /// targets (development and tests only).
    pub allow_private: bool,
}

/// Outgoing e-mail (issue 32).
#[derive(Clone)]
pub struct SmtpConfig {
    /// `TIMBRA_SMTP_URL`: `smtp://host:25` (no TLS, a local relay), `smtp://user:pass@host:587`
    /// (STARTTLS required whenever there are credentials), `smtps://user:pass@host:465`
    /// (implicit TLS); `?tls=required|opportunistic` on `smtp://` chooses STARTTLS explicitly.
    pub url: String,
    /// `TIMBRA_SMTP_FROM`: the sender's address (required with a URL).
    pub from: String,
    /// `TIMBRA_SMTP_TIMEOUT_SECONDS` (default 30): an SMTP conversation not over by then fails
    /// the attempt (it is retried).
    pub timeout: Duration,
}

impl std::fmt::Debug for SmtpConfig {
    /// Without the URL's password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = match self.url.split_once('@') {
            Some((scheme_user, host)) => {
                format!("{}:***@{host}", scheme_user.rsplit_once(':').map_or(scheme_user, |(left, _)| left))
            }
            None => self.url.clone(),
        };
        f.debug_struct("SmtpConfig")
            .field("url", &url)
            .field("from", &self.from)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// [`SmtpConfig`] from its variables: `None` without `TIMBRA_SMTP_URL`.
fn smtp(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Option<SmtpConfig>> {
    let Some(url) = lookup("TIMBRA_SMTP_URL").map(|url| url.trim().to_owned()).filter(|url| !url.is_empty()) else {
        return Ok(None);
    };
    if !(url.starts_with("smtp://") || url.starts_with("smtps://")) {
        bail!("TIMBRA_SMTP_URL must start with smtp:// or smtps://");
    }
    let from = lookup("TIMBRA_SMTP_FROM").map(|from| from.trim().to_owned()).unwrap_or_default();
    if from.is_empty() || !crate::correo::direccion::direccion_valida(&from) {
        bail!("TIMBRA_SMTP_FROM must be the sender's e-mail address when TIMBRA_SMTP_URL is set");
    }
    let timeout = Duration::try_from_secs_f64(parse(lookup, "TIMBRA_SMTP_TIMEOUT_SECONDS", 30.0)?)
        .ok()
        .filter(|timeout| !timeout.is_zero())
        .context("TIMBRA_SMTP_TIMEOUT_SECONDS must be a positive number of seconds")?;
    Ok(Some(SmtpConfig { url, from, timeout }))
}

/// What clients' connections may hold of the process (issue 28, finding 8: 20,200 connections
/// each sending part of their headers took every file descriptor and `/healthz` stopped
/// answering).
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// `TIMBRA_HEADER_READ_TIMEOUT_SECONDS` (default 10): a request whose headers have not all
    /// arrived by then closes its connection.
    pub header_read_timeout: Duration,
    /// `TIMBRA_MAX_CONNECTIONS` (default 1024): open connections in all; more are answered 503
    /// `BUSY_002` and closed.
    pub max_total: usize,
    /// `TIMBRA_MAX_CONNECTIONS_PER_IP` (default 64): open connections from one address; more
    /// are answered 503 `BUSY_002` and closed.
    pub max_per_ip: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self { header_read_timeout: Duration::from_secs(10), max_total: 1024, max_per_ip: 64 }
    }
}

/// Session cookie settings.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// `TIMBRA_SESSION_SECURE` (default false): mark the cookie `Secure` (set it behind HTTPS).
    pub secure_cookie: bool,
    /// `TIMBRA_SESSION_TTL_HOURS` (default 168 = 7 days).
    pub ttl: Duration,
}

/// Token-bucket limits. A bucket refills `per_second` tokens a second up to `burst`.
#[derive(Clone, Debug)]
pub struct RateLimitConfig {
    /// `TIMBRA_RATE_LIMIT` (default true); `false` turns limiting off (benchmarks).
    pub enabled: bool,
    /// `TIMBRA_RATE_LIMIT_KEY_PER_SECOND` (default 200) for each API key or session.
    pub key_per_second: u32,
    /// `TIMBRA_RATE_LIMIT_KEY_BURST` (default 400).
    pub key_burst: u32,
    /// `TIMBRA_RATE_LIMIT_IP_PER_SECOND` (default 20) for unauthenticated requests per IP.
    pub ip_per_second: u32,
    /// `TIMBRA_RATE_LIMIT_IP_BURST` (default 60).
    pub ip_burst: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self { enabled: true, key_per_second: 200, key_burst: 400, ip_per_second: 20, ip_burst: 60 }
    }
}

impl Config {
    /// Where files go: [`Config::storage_url`], or the folder `{data_dir}/files`.
    pub fn storage(&self) -> crate::cfdi::storage::StorageConfig {
        crate::cfdi::storage::StorageConfig::parse(self.storage_url.as_deref(), &self.data_dir, &self.s3_settings)
            .unwrap_or_else(|_| crate::cfdi::storage::StorageConfig::Folder(self.data_dir.join("files")))
    }

    /// Reads the configuration from the process environment.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the configuration through `lookup` (tests pass a map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let listen = lookup("TIMBRA_LISTEN").unwrap_or_else(|| "127.0.0.1:8080".into());
        let listen: SocketAddr =
            listen.parse().with_context(|| format!("TIMBRA_LISTEN={listen} is not an address like 127.0.0.1:8080"))?;
        let data_dir = PathBuf::from(lookup("TIMBRA_DATA_DIR").unwrap_or_else(|| "./data".into()));
        let database_url = match lookup("TIMBRA_DATABASE_URL") {
            Some(url) if !url.is_empty() => url,
            _ => format!("sqlite://{}", data_dir.join("timbra.db").display()),
        };
        if !(database_url.starts_with("sqlite:")
            || database_url.starts_with("postgres://")
            || database_url.starts_with("postgresql://"))
        {
            bail!("TIMBRA_DATABASE_URL must start with sqlite: or postgres://");
        }
        let storage_url = lookup("TIMBRA_STORAGE_URL").filter(|url| !url.trim().is_empty());
        let s3_settings: Vec<(String, String)> = crate::cfdi::storage::S3_VARIABLES
            .iter()
            .filter_map(|name| lookup(name).filter(|value| !value.is_empty()).map(|value| (name.to_lowercase(), value)))
            .collect();
        crate::cfdi::storage::StorageConfig::parse(storage_url.as_deref(), &data_dir, &s3_settings)
            .map_err(anyhow::Error::msg)?;
        let defaults = RateLimitConfig::default();
        Ok(Self {
            listen,
            data_dir,
            database_url,
            storage_url,
            s3_settings,
            session: SessionConfig {
                secure_cookie: parse(&lookup, "TIMBRA_SESSION_SECURE", false)?,
                ttl: Duration::from_secs(3600 * parse::<u64>(&lookup, "TIMBRA_SESSION_TTL_HOURS", 168)?),
            },
            rate_limit: RateLimitConfig {
                enabled: parse(&lookup, "TIMBRA_RATE_LIMIT", defaults.enabled)?,
                key_per_second: parse(&lookup, "TIMBRA_RATE_LIMIT_KEY_PER_SECOND", defaults.key_per_second)?,
                key_burst: parse(&lookup, "TIMBRA_RATE_LIMIT_KEY_BURST", defaults.key_burst)?,
                ip_per_second: parse(&lookup, "TIMBRA_RATE_LIMIT_IP_PER_SECOND", defaults.ip_per_second)?,
                ip_burst: parse(&lookup, "TIMBRA_RATE_LIMIT_IP_BURST", defaults.ip_burst)?,
            },
            max_body_bytes: parse(&lookup, "TIMBRA_MAX_BODY_BYTES", 2 * 1024 * 1024)?,
            connections: connection_limits(&lookup)?,
            stamp_low_balance: parse(&lookup, "TIMBRA_STAMP_LOW_BALANCE", 10)?,
            pac: match lookup("TIMBRA_PAC_URL").filter(|url| !url.trim().is_empty()) {
                Some(url) => {
                    let mut pac = timbra_pac::finkok::FinkokConfig::new(
                        &url,
                        &lookup("TIMBRA_PAC_USER").unwrap_or_default(),
                        &lookup("TIMBRA_PAC_PASSWORD").unwrap_or_default(),
                    );
                    pac.timeout = Duration::from_secs(parse(&lookup, "TIMBRA_PAC_TIMEOUT_SECONDS", 30)?);
                    Some(pac)
                }
                None => None,
            },
            master_key: match lookup("TIMBRA_MASTER_KEY").filter(|key| !key.trim().is_empty()) {
                Some(key) => {
                    crate::cfdi::crypto::MasterKey::from_base64(&key).map_err(anyhow::Error::msg)?;
                    Some(key)
                }
                None => None,
            },
            jobs: JobsConfig {
                workers: parse(&lookup, "TIMBRA_WORKERS", 2)?,
                batch: parse::<i64>(&lookup, "TIMBRA_JOBS_BATCH", 64)?.clamp(1, 1000),
                poll: Duration::from_millis(parse(&lookup, "TIMBRA_JOBS_POLL_MS", 500)?),
                lease: Duration::from_secs(parse(&lookup, "TIMBRA_JOBS_LEASE_SECONDS", 300)?),
            },
            webhooks: WebhookConfig {
                timeout: Duration::try_from_secs_f64(parse(&lookup, "TIMBRA_WEBHOOK_TIMEOUT_SECONDS", 10.0)?)
                    .ok()
                    .filter(|timeout| !timeout.is_zero())
                    .context("TIMBRA_WEBHOOK_TIMEOUT_SECONDS must be a positive number of seconds")?,
                allow_private: parse(&lookup, "TIMBRA_WEBHOOKS_ALLOW_PRIVATE", false)?,
            },
            smtp: smtp(&lookup)?,
            sat: timbra_sat::SatConfig {
                limites_paquete: limites_paquete(&lookup)?,
                ..timbra_sat::SatConfig::desde(&lookup).map_err(|error| anyhow::anyhow!("{error}"))?
            },
            sat_espera: Duration::try_from_secs_f64(parse(&lookup, "TIMBRA_SAT_WAIT_SECONDS", 30.0)?)
                .ok()
                .context("TIMBRA_SAT_WAIT_SECONDS must be a number of seconds")?,
            clock: test_clock(&lookup)?,
            receptor: receptor(&lookup)?,
            public_url: lookup("TIMBRA_PUBLIC_URL")
                .map(|url| url.trim().trim_end_matches('/').to_owned())
                .filter(|url| !url.is_empty()),
            autofactura_limit_per_hour: parse::<u32>(&lookup, "TIMBRA_AUTOFACTURA_LIMIT_PER_HOUR", 20)?.max(1),
            mcp_origins: lookup("TIMBRA_MCP_ORIGINS")
                .map(|list| {
                    list.split(',')
                        .map(|origin| origin.trim().trim_end_matches('/').to_owned())
                        .filter(|origin| !origin.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
        })
    }
}

/// [`ConnectionLimits`] from `TIMBRA_HEADER_READ_TIMEOUT_SECONDS`, `TIMBRA_MAX_CONNECTIONS` and
/// `TIMBRA_MAX_CONNECTIONS_PER_IP`; none may be 0, and one address may not have more than all.
fn connection_limits(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<ConnectionLimits> {
    let defaults = ConnectionLimits::default();
    let header_read_timeout = Duration::try_from_secs_f64(parse(
        lookup,
        "TIMBRA_HEADER_READ_TIMEOUT_SECONDS",
        defaults.header_read_timeout.as_secs_f64(),
    )?)
    .ok()
    .filter(|timeout| !timeout.is_zero())
    .context("TIMBRA_HEADER_READ_TIMEOUT_SECONDS must be a positive number of seconds")?;
    let max_total: usize = parse(lookup, "TIMBRA_MAX_CONNECTIONS", defaults.max_total)?;
    let max_per_ip: usize = parse(lookup, "TIMBRA_MAX_CONNECTIONS_PER_IP", defaults.max_per_ip)?;
    if max_total == 0 || max_per_ip == 0 {
        bail!("TIMBRA_MAX_CONNECTIONS and TIMBRA_MAX_CONNECTIONS_PER_IP must be at least 1");
    }
    if max_per_ip > max_total {
        bail!("TIMBRA_MAX_CONNECTIONS_PER_IP ({max_per_ip}) cannot be over TIMBRA_MAX_CONNECTIONS ({max_total})");
    }
    Ok(ConnectionLimits { header_read_timeout, max_total, max_per_ip })
}

/// The variable that sets each limit of a SAT package (the guide's Security section).
pub fn variable_limite_paquete(limite: timbra_sat::LimitePaquete) -> &'static str {
    match limite {
        timbra_sat::LimitePaquete::Entradas => "TIMBRA_SAT_PACKAGE_MAX_ENTRIES",
        timbra_sat::LimitePaquete::BytesEntrada => "TIMBRA_SAT_PACKAGE_MAX_ENTRY_BYTES",
        timbra_sat::LimitePaquete::BytesPaquete => "TIMBRA_SAT_PACKAGE_MAX_BYTES",
        timbra_sat::LimitePaquete::Proporcion => "TIMBRA_SAT_PACKAGE_MAX_RATIO",
    }
}

/// What reading one SAT package may cost: `TIMBRA_SAT_PACKAGE_MAX_ENTRIES` (200,000: SAT's
/// CFDI per request), `TIMBRA_SAT_PACKAGE_MAX_ENTRY_BYTES` (50 MiB),
/// `TIMBRA_SAT_PACKAGE_MAX_BYTES` (256 MiB: a package is held in memory until it is stored)
/// and `TIMBRA_SAT_PACKAGE_MAX_RATIO` (100, decompressed to compressed). Each at least 1.
fn limites_paquete(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<timbra_sat::LimitesPaquete> {
    use timbra_sat::LimitePaquete;
    let defaults = timbra_sat::LimitesPaquete::default();
    let leer = |limite: LimitePaquete, default: u64| -> anyhow::Result<u64> {
        let name = variable_limite_paquete(limite);
        let value: u64 = parse(lookup, name, default)?;
        if value == 0 {
            bail!("{name}=0: a package limit must be at least 1");
        }
        Ok(value)
    };
    Ok(timbra_sat::LimitesPaquete {
        entradas: leer(LimitePaquete::Entradas, defaults.entradas)?,
        bytes_entrada: leer(LimitePaquete::BytesEntrada, defaults.bytes_entrada)?,
        bytes_paquete: leer(LimitePaquete::BytesPaquete, defaults.bytes_paquete)?,
        proporcion: leer(LimitePaquete::Proporcion, defaults.proporcion)?,
    })
}

/// FOR TESTS ONLY: `TIMBRA_TEST_CLOCK_OFFSET_SECONDS` (default 0) moves "now" ahead and
/// `TIMBRA_TEST_CLOCK_SPEED` (default 1) makes it run faster, so black-box tests of the binary
/// drive scheduled work (retries, leases, daily jobs) without sleeping.
fn test_clock(lookup: &impl Fn(&str) -> Option<String>) -> anyhow::Result<crate::clock::Clock> {
    let offset: i64 = parse(lookup, "TIMBRA_TEST_CLOCK_OFFSET_SECONDS", 0)?;
    let speed: f64 = parse(lookup, "TIMBRA_TEST_CLOCK_SPEED", 1.0)?;
    if !(speed.is_finite() && speed > 0.0) {
        bail!("TIMBRA_TEST_CLOCK_SPEED={speed} must be a positive number");
    }
    if offset == 0 && speed == 1.0 {
        return Ok(crate::clock::Clock::System);
    }
    tracing::warn!(offset, speed, "running on a shifted test clock (TIMBRA_TEST_CLOCK_*): never do this in production");
    Ok(crate::clock::Clock::shifted(offset, speed))
}

fn parse<T: std::str::FromStr>(lookup: &impl Fn(&str) -> Option<String>, name: &str, default: T) -> anyhow::Result<T> {
    match lookup(name) {
        None => Ok(default),
        Some(raw) if raw.is_empty() => Ok(default),
        Some(raw) => raw.parse().map_err(|_| anyhow::anyhow!("{name}={raw} is not a valid value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_point_at_a_sqlite_file_in_the_data_dir() {
        let config = Config::from_lookup(|_| None).unwrap();
        assert_eq!(config.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(config.database_url, "sqlite://./data/timbra.db");
        assert!(config.rate_limit.enabled);
    }

    #[test]
    fn sat_package_limits_have_pinned_defaults_and_read_their_variables() {
        let limites = Config::from_lookup(|_| None).unwrap().sat.limites_paquete;
        assert_eq!((limites.bytes_entrada, limites.proporcion), (50 * 1024 * 1024, 100));
        assert_eq!((limites.entradas, limites.bytes_paquete), (200_000, 256 * 1024 * 1024));
        let config = Config::from_lookup(|name| (name == "TIMBRA_SAT_PACKAGE_MAX_RATIO").then(|| "20".into())).unwrap();
        assert_eq!(config.sat.limites_paquete.proporcion, 20);
        let error =
            Config::from_lookup(|name| (name == "TIMBRA_SAT_PACKAGE_MAX_ENTRIES").then(|| "0".into())).unwrap_err();
        assert!(error.to_string().contains("TIMBRA_SAT_PACKAGE_MAX_ENTRIES"));
    }

    #[test]
    fn bad_values_name_the_variable() {
        let error = Config::from_lookup(|name| (name == "TIMBRA_RATE_LIMIT").then(|| "maybe".into())).unwrap_err();
        assert!(error.to_string().contains("TIMBRA_RATE_LIMIT=maybe"));
        let error =
            Config::from_lookup(|name| (name == "TIMBRA_DATABASE_URL").then(|| "mysql://x".into())).unwrap_err();
        assert!(error.to_string().contains("TIMBRA_DATABASE_URL"));
    }
}
