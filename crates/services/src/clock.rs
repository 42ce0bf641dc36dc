//! Where "now" comes from: the system clock, or a clock tests move.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

use time::OffsetDateTime;

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
