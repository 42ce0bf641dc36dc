//! Per-account login throttling: after [`MAX_FAILURES`] consecutive failed password checks for
//! one email, from any address, the email's logins answer 429 RATE_001 with `Retry-After` until
//! a lock expires; each further failure after a lock doubles the next one (1 minute, 2, 4, ...,
//! at most a day). The state is a database table, so every process sharing the database
//! enforces the same lock, and it is kept per email digest whether or not an account has that
//! email, so the answers do not reveal which emails are registered.
//!
//! Every password check is counted before it runs (and forgotten on success), so concurrent
//! guesses cannot run more checks than the lock allows.

use std::time::Duration;

use crate::auth::secrets::sha256_hex;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use timbra_store::login_throttle;

/// Consecutive failed logins of one email before its first lock.
pub const MAX_FAILURES: i64 = 10;
/// The first lock; each later one is twice the previous.
pub const FIRST_LOCK: Duration = Duration::from_secs(60);
/// The longest lock.
pub const LONGEST_LOCK: Duration = Duration::from_secs(24 * 3600);
/// Failures older than this (with no attempt since) no longer count.
const FORGET_AFTER: time::Duration = time::Duration::days(7);
/// A check counted but never finished by then (its request was dropped) counts as failed.
const IN_FLIGHT: time::Duration = time::Duration::seconds(30);

/// A password check that was allowed to run; report how it ended with [`succeeded`] or
/// [`failed`].
#[derive(Debug)]
pub struct Attempt {
    digest: String,
    attempts: i64,
    locks: i64,
}

/// The length of the lock imposed after `previous_locks` earlier ones.
pub fn lock_length(previous_locks: i64) -> Duration {
    let doublings = u32::try_from(previous_locks.clamp(0, 20)).unwrap_or(20);
    FIRST_LOCK.saturating_mul(2u32.saturating_pow(doublings)).min(LONGEST_LOCK)
}

fn digest(email: &str) -> String {
    sha256_hex(&email.trim().to_lowercase())
}

/// Counts a password check for `email`, or refuses it with 429 RATE_001 while the email is
/// locked.
pub async fn begin(app: &AppContext, email: &str) -> ApiResult<Attempt> {
    let digest = digest(email);
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let window = login_throttle::Window {
        now,
        forget_before: now - FORGET_AFTER,
        max_failures: MAX_FAILURES,
        in_flight_before: now - IN_FLIGHT,
    };
    if let Some(counted) = login_throttle::count(&mut conn, &digest, &window).await? {
        return Ok(Attempt { digest, attempts: counted.attempts, locks: counted.locks });
    }
    let locked_until = login_throttle::locked_until(&mut conn, &digest).await?;
    // Not locked but refused: other checks of this email are running right now.
    let wait = locked_until.map_or(time::Duration::seconds(1), |until| until - now);
    let seconds = u64::try_from(wait.whole_seconds()).unwrap_or(0) + u64::from(wait.subsec_nanoseconds() > 0);
    let seconds = seconds.max(1);
    let mut error = ApiError::new(
        Code::Rate001,
        format!("too many failed logins for this email; retry in {seconds} s or reset the password"),
    );
    error.retry_after = Some(seconds);
    Err(error)
}

/// The check found the right password: the email's failures are forgotten.
pub async fn succeeded(app: &AppContext, attempt: &Attempt) -> ApiResult<()> {
    let mut conn = app.db.conn().await?;
    login_throttle::forget(&mut conn, &attempt.digest).await?;
    Ok(())
}

/// The check failed: past [`MAX_FAILURES`] (and after each lock) the email is locked.
pub async fn failed(app: &AppContext, attempt: &Attempt) -> ApiResult<()> {
    if attempt.attempts < MAX_FAILURES + attempt.locks {
        return Ok(());
    }
    let now = app.clock.now();
    let until = now + lock_length(attempt.locks);
    let mut conn = app.db.conn().await?;
    login_throttle::lock(&mut conn, &attempt.digest, attempt.locks, until, now).await?;
    tracing::warn!(login.locks = attempt.locks + 1, "login locked after repeated failures");
    // Rows of emails nobody tried for a week (and not locked) count for nothing: dropping them
    // here, when a lock is imposed, keeps the table as small as the recent failures.
    login_throttle::purge(&mut conn, now - FORGET_AFTER, now).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_double_up_to_a_day() {
        assert_eq!(lock_length(0), Duration::from_secs(60));
        assert_eq!(lock_length(1), Duration::from_secs(120));
        assert_eq!(lock_length(3), Duration::from_secs(480));
        assert_eq!(lock_length(11), LONGEST_LOCK);
        assert_eq!(lock_length(1_000), LONGEST_LOCK);
        assert_eq!(digest(" Ana@Example.com "), digest("ana@example.com"));
    }
}
