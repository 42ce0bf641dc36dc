//! The application context every operation runs over (no HTTP in it). It holds state only;
//! [`crate::wiring`] builds it, so nothing here names an operation (an operation's module
//! imports this one, never the other way).

use std::collections::HashMap;
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
    pub clock: crate::clock::Clock,
    /// Invoicing: master key, file storage, opened CSDs.
    pub cfdi: Arc<crate::cfdi::state::CfdiState>,
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
