//! The `login_throttle` table: failed password checks and locks per email digest (the rules
//! are the server's `auth::login_throttle`).

use time::OffsetDateTime;

use crate::{DbConn, DbResult, sql};

/// An email's count after a check was counted.
#[derive(Debug, sqlx::FromRow)]
pub struct Counted {
    /// Checks counted since the last success or reset.
    pub attempts: i64,
    /// Locks imposed so far.
    pub locks: i64,
}

/// The limits [`count`] applies.
pub struct Window {
    /// Now.
    pub now: OffsetDateTime,
    /// Rows not updated since then start over.
    pub forget_before: OffsetDateTime,
    /// Failures allowed before the first lock (one more after each lock).
    pub max_failures: i64,
    /// A check counted before then and never finished counts as failed.
    pub in_flight_before: OffsetDateTime,
}

/// Counts one check for `digest` unless the email is locked or has as many checks running as
/// it may fail: `None` then.
pub async fn count(conn: &mut DbConn, digest: &str, window: &Window) -> DbResult<Option<Counted>> {
    sql!(
        fetch_optional * conn,
        Counted,
        "INSERT INTO login_throttle (email_digest, attempts, locks, locked_until, created_at, updated_at) \
         VALUES ($1, 1, 0, NULL, $2, $2) \
         ON CONFLICT (email_digest) DO UPDATE SET \
           attempts = CASE WHEN login_throttle.updated_at < $3 THEN 1 ELSE login_throttle.attempts + 1 END, \
           locks = CASE WHEN login_throttle.updated_at < $3 THEN 0 ELSE login_throttle.locks END, \
           updated_at = $2 \
         WHERE (login_throttle.locked_until IS NULL OR login_throttle.locked_until <= $2) \
           AND (login_throttle.attempts < $4 + login_throttle.locks OR login_throttle.updated_at < $5) \
         RETURNING attempts, locks",
        digest,
        window.now,
        window.forget_before,
        window.max_failures,
        window.in_flight_before
    )
}

/// Until when `digest` is locked, if it is.
pub async fn locked_until(conn: &mut DbConn, digest: &str) -> DbResult<Option<OffsetDateTime>> {
    Ok(sql!(
        scalar_optional * conn,
        Option<OffsetDateTime>,
        "SELECT locked_until FROM login_throttle WHERE email_digest = $1",
        digest
    )?
    .flatten())
}

/// Forgets `digest`'s failures.
pub async fn forget(conn: &mut DbConn, digest: &str) -> DbResult<u64> {
    sql!(execute * conn, "DELETE FROM login_throttle WHERE email_digest = $1", digest)
}

/// Locks `digest` until `until` when it still has `locks` locks (of two checks failing at
/// once, one imposes the lock).
pub async fn lock(
    conn: &mut DbConn,
    digest: &str,
    locks: i64,
    until: OffsetDateTime,
    now: OffsetDateTime,
) -> DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE login_throttle SET locks = locks + 1, locked_until = $1, updated_at = $2 \
         WHERE email_digest = $3 AND locks = $4",
        until,
        now,
        digest,
        locks
    )
}

/// Drops the rows not updated since `before` and not locked at `now`.
pub async fn purge(conn: &mut DbConn, before: OffsetDateTime, now: OffsetDateTime) -> DbResult<u64> {
    sql!(
        execute * conn,
        "DELETE FROM login_throttle WHERE updated_at < $1 AND (locked_until IS NULL OR locked_until <= $2)",
        before,
        now
    )
}
