//! The application context every operation runs over (no HTTP in it), and its clock.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use time::OffsetDateTime;

use crate::config::Config;
use crate::rate_limit::RateLimiter;
use timbra_store::Db;

/// The application context: database, configuration, caches, clock, PAC, jobs (cheap to clone).
#[derive(Clone)]
pub struct AppContext {
    /// The database pool.
    pub db: Db,
    /// The configuration read at start.
    pub config: Arc<Config>,
    /// Per-key and per-IP request limits.
    pub rate_limiter: Arc<RateLimiter>,
    /// When each API key's `last_used_at` was last written by this process.
    pub key_touches: Arc<Mutex<HashMap<String, Instant>>>,
    /// Recent answers of authentication (keys, memberships); see [`crate::auth::cache`].
    pub auth_cache: Arc<crate::auth::cache::AuthCache>,
    /// The time source.
    pub clock: Clock,
    /// Invoicing: master key, file storage, opened CSDs.
    pub cfdi: Arc<crate::cfdi::CfdiState>,
    /// The PAC client for live stamping, when `TIMBRA_PAC_URL` is set.
    pub pac: Option<Arc<dyn timbra_pac::Pac>>,
    /// The background job kinds this process runs.
    pub jobs: Arc<crate::jobs::Registry<AppContext>>,
    /// SAT's catalogs held for validation and the forms (the shipped edition, or a newer
    /// import read at start: [`crate::catalogos::cargar`]).
    pub catalogos: Arc<crate::catalogos::CatalogosSat>,
    /// The HTTP client for outgoing webhooks (no redirects, private addresses filtered).
    pub webhook_client: reqwest::Client,
}

impl AppContext {
    /// Builds the state around an open database.
    pub fn new(db: Db, config: Config) -> Self {
        let rate_limiter = Arc::new(RateLimiter::for_db(config.rate_limit.clone(), &db));
        let clock = config.clock.clone();
        let webhook_client = crate::webhooks::red::client(&config.webhooks);
        let cfdi = Arc::new(crate::cfdi::CfdiState::new(&config));
        let pac = config.pac.clone().and_then(|pac| match timbra_pac::finkok::FinkokClient::new(pac) {
            Ok(client) => Some(Arc::new(client) as Arc<dyn timbra_pac::Pac>),
            Err(error) => {
                tracing::error!(%error, "the PAC client could not be built; live stamping is off");
                None
            }
        });
        Self {
            db,
            config: Arc::new(config),
            rate_limiter,
            key_touches: Arc::default(),
            auth_cache: Arc::default(),
            clock,
            jobs: Arc::new(crate::jobs::kinds::registry()),
            webhook_client,
            catalogos: crate::catalogos::incluidos(),
            cfdi,
            pac,
        }
    }
}

impl crate::jobs::JobContext for AppContext {
    fn db(&self) -> &Db {
        &self.db
    }
    fn now(&self) -> OffsetDateTime {
        self.clock.now()
    }
    fn job_settings(&self) -> &crate::config::JobsConfig {
        &self.config.jobs
    }
    fn registry(&self) -> &crate::jobs::Registry<AppContext> {
        &self.jobs
    }
}

/// Where "now" comes from.
#[derive(Clone, Debug, Default)]
pub enum Clock {
    /// The system clock, in UTC.
    #[default]
    System,
    /// FOR TESTS ONLY: the system clock shifted by an offset that tests can move forward, and
    /// optionally running faster than real time (`TIMBRA_TEST_CLOCK_OFFSET_SECONDS`,
    /// `TIMBRA_TEST_CLOCK_SPEED`).
    Shifted(Arc<ShiftedClock>),
}

/// The state of a [`Clock::Shifted`].
#[derive(Debug)]
pub struct ShiftedClock {
    started: Instant,
    started_at: OffsetDateTime,
    speed: f64,
    offset_micros: AtomicI64,
}

impl Clock {
    /// A clock `offset_seconds` ahead of the system clock whose time passes `speed` times as fast.
    pub fn shifted(offset_seconds: i64, speed: f64) -> Self {
        Clock::Shifted(Arc::new(ShiftedClock {
            started: Instant::now(),
            started_at: OffsetDateTime::now_utc(),
            speed,
            offset_micros: AtomicI64::new(offset_seconds.saturating_mul(1_000_000)),
        }))
    }

    /// The current instant in UTC, truncated to microseconds (what both databases keep), so a
    /// value read back compares equal to the one written.
    pub fn now(&self) -> OffsetDateTime {
        let now = match self {
            Clock::System => OffsetDateTime::now_utc(),
            Clock::Shifted(shift) => {
                let elapsed = shift.started.elapsed().as_secs_f64() * shift.speed;
                shift.started_at
                    + time::Duration::seconds_f64(elapsed)
                    + time::Duration::microseconds(shift.offset_micros.load(Ordering::SeqCst))
            }
        };
        now.replace_nanosecond(now.nanosecond() / 1000 * 1000).unwrap_or(now)
    }

    /// Moves a shifted clock forward (tests); the system clock cannot be moved and ignores it.
    pub fn advance(&self, by: std::time::Duration) {
        if let Clock::Shifted(shift) = self {
            let micros = i64::try_from(by.as_micros()).unwrap_or(i64::MAX);
            shift.offset_micros.fetch_add(micros, Ordering::SeqCst);
        }
    }
}
