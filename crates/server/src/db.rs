//! The database: SQLite (embedded default) or PostgreSQL (production), behind one enum.
//!
//! Every query is written once with `$N` placeholders, which both backends accept, and run
//! through the [`sql!`](crate::sql) macro, which binds the same arguments on whichever backend
//! is connected. Row types only use column types both drivers decode the same way (`String`,
//! `i64`, `bool`, `OffsetDateTime`, and [`Money`] for decimals).

use std::str::FromStr;
use std::time::Duration;

use rust_decimal::Decimal;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, PgConnection, Postgres, Sqlite, SqliteConnection, Transaction};

/// A connection pool to one of the two supported databases.
#[derive(Clone, Debug)]
pub enum Db {
    /// The embedded default: a SQLite file in WAL mode with foreign keys on.
    Sqlite(sqlx::SqlitePool),
    /// The production database.
    Pg(sqlx::PgPool),
}

/// The backend of a [`Db`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Db {
    /// Connects to `url` (`sqlite:` path or `postgres://`), creating the SQLite file if missing.
    pub async fn connect(url: &str) -> Result<Self, sqlx::Error> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options = PgConnectOptions::from_str(url)?;
            Self::connect_pg(options).await
        } else {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                // WAL with NORMAL is durable against process crashes (kill -9); a power loss
                // may lose the last transactions, as the SQLite docs describe.
                .synchronous(SqliteSynchronous::Normal)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(10));
            let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
            Ok(Db::Sqlite(pool))
        }
    }

    /// Connects to PostgreSQL with explicit options (tests set a per-test `search_path`).
    pub async fn connect_pg(options: PgConnectOptions) -> Result<Self, sqlx::Error> {
        let pool = PgPoolOptions::new().max_connections(16).connect_with(options).await?;
        Ok(Db::Pg(pool))
    }

    /// Applies the pending migrations of this backend.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        match self {
            Db::Sqlite(pool) => sqlx::migrate!("./migrations/sqlite").run(pool).await,
            Db::Pg(pool) => sqlx::migrate!("./migrations/postgres").run(pool).await,
        }
    }

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(_) => Backend::Sqlite,
            Db::Pg(_) => Backend::Postgres,
        }
    }

    /// Takes a connection from the pool for one or more single statements.
    pub async fn conn(&self) -> Result<DbConn, sqlx::Error> {
        Ok(match self {
            Db::Sqlite(pool) => DbConn::Sqlite(pool.acquire().await?),
            Db::Pg(pool) => DbConn::Pg(pool.acquire().await?),
        })
    }

    /// Starts a write transaction. On SQLite it is `BEGIN IMMEDIATE`, so it takes the write
    /// lock up front and never fails half-way with SQLITE_BUSY on a lock upgrade.
    pub async fn begin(&self) -> Result<Tx, sqlx::Error> {
        Ok(match self {
            Db::Sqlite(pool) => Tx::Sqlite(pool.begin_with("BEGIN IMMEDIATE").await?),
            Db::Pg(pool) => Tx::Pg(pool.begin().await?),
        })
    }

    /// Closes the pool.
    pub async fn close(&self) {
        match self {
            Db::Sqlite(pool) => pool.close().await,
            Db::Pg(pool) => pool.close().await,
        }
    }
}

/// A pooled connection of either backend.
pub enum DbConn {
    /// SQLite.
    Sqlite(PoolConnection<Sqlite>),
    /// PostgreSQL.
    Pg(PoolConnection<Postgres>),
}

/// An open transaction of either backend; dropped without [`Tx::commit`] it rolls back.
pub enum Tx {
    /// SQLite.
    Sqlite(Transaction<'static, Sqlite>),
    /// PostgreSQL.
    Pg(Transaction<'static, Postgres>),
}

impl Tx {
    /// Commits.
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            Tx::Sqlite(tx) => tx.commit().await,
            Tx::Pg(tx) => tx.commit().await,
        }
    }
}

/// A borrowed connection the [`sql!`](crate::sql) macro runs a statement on.
pub enum Exec<'c> {
    /// SQLite.
    Sqlite(&'c mut SqliteConnection),
    /// PostgreSQL.
    Pg(&'c mut PgConnection),
}

/// Anything a statement can run on: a pooled connection or a transaction.
pub trait AsExec {
    /// The connection to run on.
    fn exec(&mut self) -> Exec<'_>;
}

impl AsExec for DbConn {
    fn exec(&mut self) -> Exec<'_> {
        match self {
            DbConn::Sqlite(conn) => Exec::Sqlite(conn),
            DbConn::Pg(conn) => Exec::Pg(conn),
        }
    }
}

impl AsExec for Tx {
    fn exec(&mut self) -> Exec<'_> {
        match self {
            Tx::Sqlite(tx) => Exec::Sqlite(tx),
            Tx::Pg(tx) => Exec::Pg(tx),
        }
    }
}

/// Runs one SQL text on either backend with the same bound arguments.
///
/// `sql!(fetch_all conn, RowType, "SELECT ... WHERE a = $1", a)`; the verbs are `fetch_all`,
/// `fetch_optional`, `fetch_one` (with a row type that derives `sqlx::FromRow`), `scalar_one`,
/// `scalar_optional` (with a column type) and `execute` (no type; gives rows affected).
#[macro_export]
macro_rules! sql {
    (execute $conn:expr, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::db::AsExec::exec(&mut $conn) {
            $crate::db::Exec::Sqlite(c) => sqlx::query($sql)$(.bind($arg))*.execute(c).await.map(|r| r.rows_affected()),
            $crate::db::Exec::Pg(c) => sqlx::query($sql)$(.bind($arg))*.execute(c).await.map(|r| r.rows_affected()),
        }
    }};
    (scalar_one $conn:expr, $ty:ty, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::db::AsExec::exec(&mut $conn) {
            $crate::db::Exec::Sqlite(c) => sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_one(c).await,
            $crate::db::Exec::Pg(c) => sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_one(c).await,
        }
    }};
    (scalar_optional $conn:expr, $ty:ty, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::db::AsExec::exec(&mut $conn) {
            $crate::db::Exec::Sqlite(c) => sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_optional(c).await,
            $crate::db::Exec::Pg(c) => sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_optional(c).await,
        }
    }};
    ($verb:ident $conn:expr, $ty:ty, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::db::AsExec::exec(&mut $conn) {
            $crate::db::Exec::Sqlite(c) => sqlx::query_as::<_, $ty>($sql)$(.bind($arg))*.$verb(c).await,
            $crate::db::Exec::Pg(c) => sqlx::query_as::<_, $ty>($sql)$(.bind($arg))*.$verb(c).await,
        }
    }};
}

/// A decimal amount stored exactly: TEXT on SQLite, NUMERIC on PostgreSQL. Never REAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Money(pub Decimal);

impl sqlx::Type<Sqlite> for Money {
    fn type_info() -> sqlx::sqlite::SqliteTypeInfo {
        <String as sqlx::Type<Sqlite>>::type_info()
    }
    fn compatible(ty: &sqlx::sqlite::SqliteTypeInfo) -> bool {
        <String as sqlx::Type<Sqlite>>::compatible(ty)
    }
}

impl<'q> sqlx::Encode<'q, Sqlite> for Money {
    fn encode_by_ref(
        &self,
        buf: &mut <Sqlite as sqlx::Database>::ArgumentBuffer,
    ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        <String as sqlx::Encode<'q, Sqlite>>::encode(self.0.to_string(), buf)
    }
}

impl<'r> sqlx::Decode<'r, Sqlite> for Money {
    fn decode(value: sqlx::sqlite::SqliteValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        let text = <&str as sqlx::Decode<'r, Sqlite>>::decode(value)?;
        Ok(Money(Decimal::from_str_exact(text)?))
    }
}

impl sqlx::Type<Postgres> for Money {
    fn type_info() -> sqlx::postgres::PgTypeInfo {
        <Decimal as sqlx::Type<Postgres>>::type_info()
    }
}

impl<'q> sqlx::Encode<'q, Postgres> for Money {
    fn encode_by_ref(
        &self,
        buf: &mut sqlx::postgres::PgArgumentBuffer,
    ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        <Decimal as sqlx::Encode<'q, Postgres>>::encode_by_ref(&self.0, buf)
    }
}

impl<'r> sqlx::Decode<'r, Postgres> for Money {
    fn decode(value: sqlx::postgres::PgValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        Ok(Money(<Decimal as sqlx::Decode<'r, Postgres>>::decode(value)?))
    }
}

/// Whether a database error is a unique-constraint violation (for 409 answers).
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => db.is_unique_violation(),
        _ => false,
    }
}

/// Opens a single connection, for the migrate command and tests that create schemas.
pub async fn raw_pg_connection(url: &str) -> Result<PgConnection, sqlx::Error> {
    PgConnection::connect(url).await
}
