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

use time::OffsetDateTime;

use crate::auth::secrets::sha256_hex;
use crate::error::{ApiError, ApiResult, Code};
use crate::state::AppState;
use timbra_store::sql;

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
#[derive(Debug, sqlx::FromRow)]
pub struct Attempt {
    #[sqlx(skip)]
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
pub async fn begin(app: &AppState, email: &str) -> ApiResult<Attempt> {
    let digest = digest(email);
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let counted = sql!(fetch_optional conn, Attempt,
        "INSERT INTO login_throttle (email_digest, attempts, locks, locked_until, created_at, updated_at) \
         VALUES ($1, 1, 0, NULL, $2, $2) \
         ON CONFLICT (email_digest) DO UPDATE SET \
           attempts = CASE WHEN login_throttle.updated_at < $3 THEN 1 ELSE login_throttle.attempts + 1 END, \
           locks = CASE WHEN login_throttle.updated_at < $3 THEN 0 ELSE login_throttle.locks END, \
           updated_at = $2 \
         WHERE (login_throttle.locked_until IS NULL OR login_throttle.locked_until <= $2) \
           AND (login_throttle.attempts < $4 + login_throttle.locks OR login_throttle.updated_at < $5) \
         RETURNING attempts, locks",
        &digest, now, now - FORGET_AFTER, MAX_FAILURES, now - IN_FLIGHT)?;
    if let Some(mut attempt) = counted {
        attempt.digest = digest;
        return Ok(attempt);
    }
    let locked_until = sql!(scalar_optional conn, Option<OffsetDateTime>,
        "SELECT locked_until FROM login_throttle WHERE email_digest = $1", &digest)?
    .flatten();
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
pub async fn succeeded(app: &AppState, attempt: &Attempt) -> ApiResult<()> {
    let mut conn = app.db.conn().await?;
    sql!(execute conn, "DELETE FROM login_throttle WHERE email_digest = $1", &attempt.digest)?;
    Ok(())
}

/// The check failed: past [`MAX_FAILURES`] (and after each lock) the email is locked.
pub async fn failed(app: &AppState, attempt: &Attempt) -> ApiResult<()> {
    if attempt.attempts < MAX_FAILURES + attempt.locks {
        return Ok(());
    }
    let now = app.clock.now();
    let until = now + lock_length(attempt.locks);
    let mut conn = app.db.conn().await?;
    // `locks = $4`: of two checks failing at once, one imposes the lock.
    sql!(execute conn,
        "UPDATE login_throttle SET locks = locks + 1, locked_until = $1, updated_at = $2 \
         WHERE email_digest = $3 AND locks = $4",
        until, now, &attempt.digest, attempt.locks)?;
    tracing::warn!(login.locks = attempt.locks + 1, "login locked after repeated failures");
    // Rows of emails nobody tried for a week (and not locked) count for nothing: dropping them
    // here, when a lock is imposed, keeps the table as small as the recent failures.
    sql!(execute conn,
        "DELETE FROM login_throttle WHERE updated_at < $1 AND (locked_until IS NULL OR locked_until <= $2)",
        now - FORGET_AFTER, now)?;
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
