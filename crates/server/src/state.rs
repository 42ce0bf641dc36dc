//! The state every handler shares.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use time::OffsetDateTime;

use crate::config::Config;
use crate::db::Db;
use crate::rate_limit::RateLimiter;

/// Shared application state (cheap to clone).
#[derive(Clone)]
pub struct AppState {
    /// The database pool.
    pub db: Db,
    /// The configuration read at start.
    pub config: Arc<Config>,
    /// Per-key and per-IP request limits.
    pub rate_limiter: Arc<RateLimiter>,
    /// When each API key's `last_used_at` was last written by this process.
    pub key_touches: Arc<Mutex<HashMap<String, Instant>>>,
    /// The time source.
    pub clock: Clock,
    /// Invoicing: master key, file storage, opened CSDs.
    pub cfdi: Arc<crate::cfdi::CfdiState>,
}

impl AppState {
    /// Builds the state around an open database.
    pub fn new(db: Db, config: Config) -> Self {
        let rate_limiter = Arc::new(RateLimiter::new(config.rate_limit.clone()));
        let cfdi = Arc::new(crate::cfdi::CfdiState::new(&config));
        Self { db, config: Arc::new(config), rate_limiter, key_touches: Arc::default(), clock: Clock::System, cfdi }
    }
}

/// Where "now" comes from.
#[derive(Clone, Copy, Debug)]
pub enum Clock {
    /// The system clock, in UTC.
    System,
}

impl Clock {
    /// The current instant in UTC, truncated to microseconds (what both databases keep), so a
    /// value read back compares equal to the one written.
    pub fn now(&self) -> OffsetDateTime {
        let now = OffsetDateTime::now_utc();
        now.replace_nanosecond(now.nanosecond() / 1000 * 1000).unwrap_or(now)
    }
}
