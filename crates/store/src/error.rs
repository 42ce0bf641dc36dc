//! The storage layer's error: what went wrong with the database, classified once, here, so the
//! services decide on a kind (a duplicate key is a 409 of theirs, a busy database a retry) and
//! `error.rs` maps each kind to the code table in one place.

/// A failed database operation. Every variant keeps the driver's error for the log.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The database is down or the connection broke: nothing was committed.
    #[error("database unreachable: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// Only busy: no connection free in time, SQLite's lock, a PostgreSQL lock timeout,
    /// serialization failure or deadlock victim. The transaction rolled back; a retry may pass.
    #[error("database busy: {0}")]
    Busy(#[source] sqlx::Error),
    /// A unique constraint refused the row (the caller usually answers 409).
    #[error("duplicate key: {0}")]
    Duplicate(#[source] sqlx::Error),
    /// Anything else: a bug or a broken invariant, logged and answered as a 500.
    #[error(transparent)]
    Other(sqlx::Error),
}

/// What every function of the storage layer returns.
pub type DbResult<T> = Result<T, DbError>;

impl DbError {
    /// Whether a unique constraint refused the row.
    pub fn is_duplicate(&self) -> bool {
        matches!(self, Self::Duplicate(_))
    }
}

impl From<sqlx::Error> for DbError {
    fn from(error: sqlx::Error) -> Self {
        let code = match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => return Self::Duplicate(error),
            sqlx::Error::Database(db) => db.code().map(|code| code.into_owned()),
            sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolClosed => return Self::Unavailable(error),
            sqlx::Error::PoolTimedOut => return Self::Busy(error),
            _ => None,
        };
        match code.as_deref() {
            // PostgreSQL: 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now.
            Some("57P01" | "57P02" | "57P03") => Self::Unavailable(error),
            // SQLite: 5 BUSY, 6 LOCKED and their extended codes; PostgreSQL: 40001 serialization
            // failure, 40P01 deadlock, 55P03 lock not available.
            Some("5" | "6" | "261" | "262" | "517" | "40001" | "40P01" | "55P03") => Self::Busy(error),
            _ => Self::Other(error),
        }
    }
}
