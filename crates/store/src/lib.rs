//! timbra's storage: SQLite (embedded default) or PostgreSQL (production), behind one enum;
//! every query and transaction body, the migrations, and the row structs. No HTTP: the
//! services above call these functions with typed values and get rows or [`DbError`] back.
//!
//! Every query is written once with `$N` placeholders, which both backends accept, and run
//! through the [`sql!`](crate::sql) macro, which binds the same arguments on whichever backend
//! is connected. Row types only use column types both drivers decode the same way (`String`,
//! `i64`, `bool`, `OffsetDateTime`, and [`Money`] for decimals).

pub mod catalogos;
pub mod certificados;
pub mod cfdi_xml;
pub mod cfdis;
pub mod clientes;
pub mod correos;
pub mod descargas_uuid;
pub mod empleados;
pub mod empleados_movimientos;
pub mod empresas;
mod error;
pub mod estados;
pub mod events;
pub mod exportaciones_zip;
pub mod fiel;
pub mod folios;
pub mod idempotency_keys;
pub mod ids;
pub mod incidencias;
pub mod intentos;
pub mod jobs;
pub mod login_throttle;
pub mod marca;
pub mod memberships;
pub mod nomina;
pub mod nomina_ajustes;
pub mod nomina_timbrado;
pub mod operadores;
mod paging;
pub mod pagos;
pub mod productos;
pub mod rate_limits;
pub mod recibidos;
pub mod recibos;
pub mod retenciones;
pub mod sat_cuota;
pub mod scoped;
pub mod search;
pub mod sincronizaciones;
pub mod solicitudes_cancelacion;
pub mod timbres;
pub mod users;
pub mod webhooks;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use rust_decimal::Decimal;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, PgConnection, Postgres, Sqlite, SqliteConnection, Transaction};
use time::OffsetDateTime;
use tokio::sync::{Mutex, OwnedMutexGuard};

pub use error::{DbError, DbResult};
pub use paging::Paging;
/// The driver, for [`sql!`]'s expansion in other crates.
pub use sqlx;

/// A connection pool to one of the two supported databases.
#[derive(Clone, Debug)]
pub enum Db {
    /// The embedded default: a SQLite file in WAL mode with foreign keys on, and the queue its
    /// write transactions wait in (see [`Db::begin`]) beside its checkpointer.
    Sqlite(sqlx::SqlitePool, Arc<Writers>),
    /// The production database.
    Pg(sqlx::PgPool),
}

/// A PostgreSQL pool that timed out waiting for a connection says only `PoolTimedOut`, whether
/// every connection was busy or the server is down. On that (rare) path one direct connection
/// attempt tells which, so a database that is down answers UNAVAILABLE_001, not BUSY_001.
async fn diagnose(pool: &sqlx::PgPool, error: sqlx::Error) -> sqlx::Error {
    if !matches!(error, sqlx::Error::PoolTimedOut) {
        return error;
    }
    use sqlx::Connection;
    let options = pool.connect_options();
    match tokio::time::timeout(Duration::from_secs(2), sqlx::PgConnection::connect_with(&options)).await {
        Ok(Ok(connection)) => {
            let _ = connection.close().await;
            sqlx::Error::PoolTimedOut
        }
        Ok(Err(error)) => error,
        Err(_) => sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the database did not accept a connection within 2 s",
        )),
    }
}

fn idle(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// How long a write transaction waits for its turn on SQLite, as long as SQLite's own busy
/// timeout: past it the caller gets an error instead of waiting forever.
const WRITER_WAIT: Duration = Duration::from_secs(10);

/// A SQLite database's writers: their queue, the one connection every write transaction runs
/// on, and the checkpointer, which stops when the last clone of the [`Db`] is dropped.
///
/// SQLite has one writer at a time, so one connection loses nothing, and it keeps what a
/// connection that only reads between writes would throw away: SQLite drops a connection's
/// whole page cache when another connection wrote since its last transaction, so writes
/// spread over the pool's connections read the index pages they update again on every
/// transaction, and prepared the same statements once per connection.
#[derive(Debug)]
pub struct Writers {
    turn: Arc<Mutex<()>>,
    pool: sqlx::SqlitePool,
    checkpointer: tokio::task::AbortHandle,
    /// The WAL file (`<database>-wal`), whose length [`Db::begin`] watches.
    wal: std::path::PathBuf,
}

/// A WAL file longer than this (bytes) is copied into the database by the next writer, in its
/// turn, before it begins ([`Db::begin`]): the checkpointer's copy needs the disk's sync, and
/// when the disk is busy (other processes writing) it fell behind writes that never wait for
/// one, and the WAL grew to the whole amount written (251 MiB of 264 in a test run beside the
/// rest of the suite). Above `journal_size_limit` (64 MiB, what a restarted WAL is trimmed
/// to), so a file left at that length does not trigger it; under it, writers never pay.
const WAL_TOPE_BYTES: u64 = 96 << 20;

impl Drop for Writers {
    fn drop(&mut self) {
        self.checkpointer.abort();
    }
}

/// How often the checkpointer copies committed WAL frames into the SQLite database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// A WAL at least this many frames long (4 KiB pages: 16 MiB) is started over by the
/// checkpointer ([`checkpointer`]).
const RESTART_FRAMES: i64 = 4096;

/// Copies the WAL into the database file a few times a second, on a connection of its own, so
/// no writer pays for it. With SQLite's automatic checkpoint the commit that crosses 1,000
/// pages copies them all (and syncs the file) before it returns, while the next writers wait
/// their turn behind it: that was 20–40 ms on a payroll period's commit. PASSIVE never blocks a
/// reader or a writer; frames a reader still needs are copied on a later round. The WAL is
/// durable on its own, so a checkpoint that never ran loses nothing. Aborted with the [`Db`].
///
/// SQLite starts the WAL over only when a write transaction begins with every frame already
/// copied, which under sustained writes never happens: a commit always lands while the
/// checkpoint runs, and the file grew without end (a GiB in ten seconds of stamping, every
/// page lookup searching more of it). So once the WAL is [`RESTART_FRAMES`] long the
/// checkpointer takes the writers' turn and copies the few frames written since its first
/// pass; the next writer then starts at the WAL's beginning, and `journal_size_limit` trims the
/// file. Writers wait that long (a few milliseconds), at most once a round: under the stamping
/// bench, about four times a second, and the p99 stayed at 24–28 ms.
async fn checkpointer(pool: sqlx::SqlitePool, turn: Arc<Mutex<()>>) {
    let mut ticks = tokio::time::interval(CHECKPOINT_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if pool.is_closed() {
            return;
        }
        let Ok(mut conn) = pool.acquire().await else { continue };
        let Some(Checkpoint { frames, .. }) = checkpoint(&mut conn).await else { continue };
        if frames >= RESTART_FRAMES {
            let Ok(_turn) = tokio::time::timeout(WRITER_WAIT, turn.lock()).await else { continue };
            checkpoint(&mut conn).await;
        }
    }
}

/// Copies every frame of the WAL into the database, waiting (at most [`WRITER_WAIT`]) while
/// the checkpointer's own pass holds SQLite's checkpoint lock: a PASSIVE checkpoint that finds
/// it taken does nothing, and the writer would go on appending to a WAL nobody copied.
async fn copiar_wal(conn: &mut SqliteConnection) {
    let hasta = tokio::time::Instant::now() + WRITER_WAIT;
    while let Some(hecho) = checkpoint(conn).await {
        if (!hecho.ocupado && hecho.copiados >= hecho.frames) || tokio::time::Instant::now() >= hasta {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// What `PRAGMA wal_checkpoint` answered.
struct Checkpoint {
    /// Another checkpoint held SQLite's lock, and this one did nothing.
    ocupado: bool,
    /// The WAL's length in frames.
    frames: i64,
    /// Frames copied into the database so far.
    copiados: i64,
}

/// A PASSIVE checkpoint, or `None` when it failed (logged; the next round retries).
async fn checkpoint(conn: &mut SqliteConnection) -> Option<Checkpoint> {
    match sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(conn).await {
        Ok((ocupado, frames, copiados)) => Some(Checkpoint { ocupado: ocupado != 0, frames, copiados }),
        Err(error) => {
            tracing::warn!(error.message = %error, "SQLite checkpoint failed; the next round retries");
            None
        }
    }
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
    pub async fn connect(url: &str) -> crate::DbResult<Self> {
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
                .busy_timeout(Duration::from_secs(10))
                // A writer's commit never copies the WAL into the database: that is the
                // checkpointer's work, off the write path (see `checkpointer`).
                .pragma("wal_autocheckpoint", "0")
                .pragma("journal_size_limit", "67108864")
                // 16 MiB of page cache per connection (SQLite's default is 2 MiB): a payroll
                // period's 1,000 receipts or a batch of stamps fit without spilling to the WAL
                // before commit, and index pages stay in memory between transactions.
                .pragma("cache_size", "-16384")
                // Statement journals (a multi-row INSERT inside a transaction keeps one) in
                // memory, not in a temporary file written on every batch.
                .pragma("temp_store", "memory");
            // No ping on every checkout: for SQLite it is a round trip to the connection's
            // worker thread per request, and a broken file shows up on the query anyway.
            let pool = SqlitePoolOptions::new()
                .max_connections(8)
                .test_before_acquire(false)
                .connect_with(options.clone())
                .await?;
            // The writers' connection ([`Writers`]), never closed for being idle.
            let writer = SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .test_before_acquire(false)
                .connect_with(options.clone())
                .await?;
            let turn = Arc::new(Mutex::new(()));
            let checkpointer = tokio::spawn(checkpointer(pool.clone(), turn.clone())).abort_handle();
            let mut wal = options.get_filename().as_os_str().to_owned();
            wal.push("-wal");
            Ok(Db::Sqlite(pool, Arc::new(Writers { turn, pool: writer, checkpointer, wal: wal.into() })))
        }
    }

    /// Connects to PostgreSQL with explicit options (tests set a per-test `search_path`).
    pub async fn connect_pg(options: PgConnectOptions) -> crate::DbResult<Self> {
        // A request waits at most 5 s for a connection: with the database down it gets a 503
        // in seconds instead of hanging for sqlx's default 30.
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await?;
        Ok(Db::Pg(pool))
    }

    /// Applies the pending migrations of this backend.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        match self {
            Db::Sqlite(pool, _) => sqlx::migrate!("./migrations/sqlite").run(pool).await,
            Db::Pg(pool) => sqlx::migrate!("./migrations/postgres").run(pool).await,
        }
    }

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(..) => Backend::Sqlite,
            Db::Pg(_) => Backend::Postgres,
        }
    }

    /// Takes a connection from the pool for one or more single statements.
    pub async fn conn(&self) -> crate::DbResult<DbConn> {
        Ok(match self {
            Db::Sqlite(pool, _) => DbConn::Sqlite(pool.acquire().await?),
            Db::Pg(pool) => match pool.acquire().await {
                Ok(conn) => DbConn::Pg(conn),
                Err(error) => return Err(diagnose(pool, error).await.into()),
            },
        })
    }

    /// Starts a write transaction. On SQLite it is `BEGIN IMMEDIATE`, so it takes the write
    /// lock up front and never fails half-way with SQLITE_BUSY on a lock upgrade.
    ///
    /// SQLite has one writer at a time. Writers of this process first queue on a fair async
    /// mutex, taken before a pool connection: they wait their turn in order instead of polling
    /// the file lock in SQLite's busy handler, whose growing sleeps (up to 100 ms) made the
    /// tail latency of concurrent stamping. A transaction must not start another one while
    /// open (it would wait for itself; after [`WRITER_WAIT`] it gets an error).
    pub async fn begin(&self) -> crate::DbResult<Tx> {
        Ok(match self {
            Db::Sqlite(_, writers) => {
                let turn = tokio::time::timeout(WRITER_WAIT, writers.turn.clone().lock_owned())
                    .await
                    .map_err(|_| sqlx::Error::PoolTimedOut)?;
                // The checkpointer fell far behind: copy the WAL now, in this writer's turn (no
                // other writer can append meanwhile), so this transaction starts it over.
                if std::fs::metadata(&writers.wal).is_ok_and(|m| m.len() > WAL_TOPE_BYTES) {
                    let mut conn = writers.pool.acquire().await?;
                    copiar_wal(&mut conn).await;
                }
                Tx { inner: TxInner::Sqlite(writers.pool.begin_with("BEGIN IMMEDIATE").await?), _turn: Some(turn) }
            }
            Db::Pg(pool) => Tx {
                inner: TxInner::Pg(match pool.begin().await {
                    Ok(tx) => tx,
                    Err(error) => return Err(diagnose(pool, error).await.into()),
                }),
                _turn: None,
            },
        })
    }

    /// Connections of the pool: (open, idle, most allowed), for `/metrics`.
    pub fn pool_usage(&self) -> (u32, u32, u32) {
        match self {
            Db::Sqlite(pool, _) => (pool.size(), idle(pool.num_idle()), pool.options().get_max_connections()),
            Db::Pg(pool) => (pool.size(), idle(pool.num_idle()), pool.options().get_max_connections()),
        }
    }

    /// Answers when the database does (`/readyz`).
    pub async fn ping(&self) -> crate::DbResult<()> {
        let mut conn = self.conn().await?;
        crate::sql!(scalar_one conn, i32, "SELECT 1").map(drop)
    }

    /// Closes the pool.
    pub async fn close(&self) {
        match self {
            Db::Sqlite(pool, writers) => {
                writers.pool.close().await;
                pool.close().await;
            }
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

/// An open transaction of either backend; dropped without [`Tx::commit`] it rolls back. On
/// SQLite it holds the writers' turn until it ends.
pub struct Tx {
    inner: TxInner,
    _turn: Option<OwnedMutexGuard<()>>,
}

enum TxInner {
    Sqlite(Transaction<'static, Sqlite>),
    Pg(Transaction<'static, Postgres>),
}

impl Tx {
    /// Commits.
    pub async fn commit(self) -> crate::DbResult<()> {
        match self.inner {
            TxInner::Sqlite(tx) => Ok(tx.commit().await?),
            TxInner::Pg(tx) => Ok(tx.commit().await?),
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
        match &mut self.inner {
            TxInner::Sqlite(tx) => Exec::Sqlite(tx),
            TxInner::Pg(tx) => Exec::Pg(tx),
        }
    }
}

/// Runs one SQL text on either backend with the same bound arguments.
///
/// `sql!(fetch_all conn, RowType, "SELECT ... WHERE a = $1", a)`; the verbs are `fetch_all`,
/// `fetch_optional`, `fetch_one` (with a row type that derives `sqlx::FromRow`), `scalar_one`,
/// `scalar_optional` (with a column type) and `execute` (no type; gives rows affected).
/// `sql!(fetch_packed conn, RowType, "a, b", "FROM t WHERE x = $1", "ORDER BY a", x)` is
/// `fetch_all` of `SELECT a, b FROM … ORDER BY a` for many rows on a hot path: on SQLite they
/// come packed into one value ([`unpack`]; the row type also derives `serde::Deserialize`).
#[macro_export]
macro_rules! sql {
    (execute $conn:expr, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::AsExec::exec(&mut $conn) {
            $crate::Exec::Sqlite(c) => $crate::sqlx::query($sql)$(.bind($arg))*.execute(c).await.map(|r| r.rows_affected()).map_err($crate::DbError::from),
            $crate::Exec::Pg(c) => $crate::sqlx::query($sql)$(.bind($arg))*.execute(c).await.map(|r| r.rows_affected()).map_err($crate::DbError::from),
        }
    }};
    (scalar_one $conn:expr, $ty:ty, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::AsExec::exec(&mut $conn) {
            $crate::Exec::Sqlite(c) => $crate::sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_one(c).await.map_err($crate::DbError::from),
            $crate::Exec::Pg(c) => $crate::sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_one(c).await.map_err($crate::DbError::from),
        }
    }};
    (scalar_optional $conn:expr, $ty:ty, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::AsExec::exec(&mut $conn) {
            $crate::Exec::Sqlite(c) => $crate::sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_optional(c).await.map_err($crate::DbError::from),
            $crate::Exec::Pg(c) => $crate::sqlx::query_scalar::<_, $ty>($sql)$(.bind($arg))*.fetch_optional(c).await.map_err($crate::DbError::from),
        }
    }};
    (fetch_packed $conn:expr, $ty:ty, $columns:expr, $from:expr, $order:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::AsExec::exec(&mut $conn) {
            $crate::Exec::Sqlite(c) => {
                let select = format!("SELECT json_group_array(json_array({}) {}) {}", $columns, $order, $from);
                match $crate::sqlx::query_scalar::<_, String>($crate::sqlx::AssertSqlSafe(select))$(.bind($arg))*.fetch_one(c).await {
                    Ok(packed) => $crate::unpack::<$ty>(&packed),
                    Err(error) => Err($crate::DbError::from(error)),
                }
            }
            $crate::Exec::Pg(c) => {
                let select = format!("SELECT {} {} {}", $columns, $from, $order);
                $crate::sqlx::query_as::<_, $ty>($crate::sqlx::AssertSqlSafe(select))$(.bind($arg))*.fetch_all(c).await.map_err($crate::DbError::from)
            }
        }
    }};
    ($verb:ident $conn:expr, $ty:ty, $sql:expr $(, $arg:expr)* $(,)?) => {{
        match $crate::AsExec::exec(&mut $conn) {
            $crate::Exec::Sqlite(c) => $crate::sqlx::query_as::<_, $ty>($sql)$(.bind($arg))*.$verb(c).await.map_err($crate::DbError::from),
            $crate::Exec::Pg(c) => $crate::sqlx::query_as::<_, $ty>($sql)$(.bind($arg))*.$verb(c).await.map_err($crate::DbError::from),
        }
    }};
}

/// A value bound to a statement whose text is built at run time ([`MultiInsert`]), in the
/// column types both drivers encode the same way (the ones [`sql!`](crate::sql) binds).
#[derive(Clone, Debug)]
pub enum Value {
    /// TEXT.
    Text(String),
    /// TEXT or NULL.
    OptText(Option<String>),
    /// INTEGER / BIGINT.
    Int(i64),
    /// INTEGER / BIGINT or NULL.
    OptInt(Option<i64>),
    /// BOOLEAN (an integer on SQLite).
    Bool(bool),
    /// A timestamp.
    Time(OffsetDateTime),
    /// A timestamp or NULL.
    OptTime(Option<OffsetDateTime>),
    /// An exact amount.
    Money(Money),
    /// An exact amount or NULL.
    OptMoney(Option<Money>),
    /// BLOB / BYTEA.
    Bytes(Vec<u8>),
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Value::Text(value)
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Value::Text(value.to_owned())
    }
}

impl From<Option<String>> for Value {
    fn from(value: Option<String>) -> Self {
        Value::OptText(value)
    }
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Value::Int(value)
    }
}

impl From<Option<i64>> for Value {
    fn from(value: Option<i64>) -> Self {
        Value::OptInt(value)
    }
}

impl From<Option<OffsetDateTime>> for Value {
    fn from(value: Option<OffsetDateTime>) -> Self {
        Value::OptTime(value)
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Self {
        Value::Bool(value)
    }
}

impl From<OffsetDateTime> for Value {
    fn from(value: OffsetDateTime) -> Self {
        Value::Time(value)
    }
}

impl From<Money> for Value {
    fn from(value: Money) -> Self {
        Value::Money(value)
    }
}

impl From<Option<Money>> for Value {
    fn from(value: Option<Money>) -> Self {
        Value::OptMoney(value)
    }
}

impl From<Vec<u8>> for Value {
    fn from(value: Vec<u8>) -> Self {
        Value::Bytes(value)
    }
}

/// Runs the statement `text` on `conn` with `values` bound in order; gives rows affected.
macro_rules! run_values {
    ($conn:expr, $text:expr, $values:expr) => {{
        let mut query = sqlx::query(sqlx::AssertSqlSafe($text));
        for value in $values {
            query = match value {
                Value::Text(v) => query.bind(v),
                Value::OptText(v) => query.bind(v),
                Value::Int(v) => query.bind(v),
                Value::OptInt(v) => query.bind(v),
                Value::OptTime(v) => query.bind(v),
                Value::Bool(v) => query.bind(v),
                Value::Time(v) => query.bind(v),
                Value::Money(v) => query.bind(v),
                Value::OptMoney(v) => query.bind(v),
                Value::Bytes(v) => query.bind(v),
            };
        }
        query.execute($conn).await?.rows_affected()
    }};
}

/// One `INSERT` of many rows: `{head} VALUES ($1, …), (…) {tail}`. Group commit writes a batch
/// of stamps with one statement per table instead of one per stamp and table, because on
/// SQLite every statement is a round trip to the connection's worker thread. (Any statement
/// over a `VALUES` list fits: `UPDATE t SET … FROM (` `VALUES …` `) AS v WHERE …`.)
pub struct MultiInsert {
    head: &'static str,
    tail: &'static str,
    columns: usize,
    rows: usize,
    values: Vec<Value>,
}

impl MultiInsert {
    /// An empty insert: `head` is `INSERT INTO t (a, b, …)` with `columns` names, `tail`
    /// what follows the rows (`ON CONFLICT … DO NOTHING`, or empty).
    pub fn new(head: &'static str, columns: usize, tail: &'static str) -> Self {
        Self { head, tail, columns, rows: 0, values: Vec::new() }
    }

    /// Adds a row of exactly `columns` values, in the order of `head`.
    pub fn row(&mut self, values: Vec<Value>) {
        debug_assert_eq!(values.len(), self.columns, "{}", self.head);
        self.values.extend(values);
        self.rows += 1;
    }

    /// Rows added so far.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row was added.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Runs it (nothing when empty) in `tx`; gives rows affected.
    ///
    /// The rows go in statements of a power of two rows each, largest first (23 rows: 16, 4,
    /// 2 and 1), at most [`MAX_ROWS_PER_STATEMENT`]: a handful of texts per table, each prepared
    /// once per connection and kept in its statement cache. A text per batch size was prepared
    /// on every batch instead (a 33-column insert of 20 rows costs more to compile than to run).
    /// They run in one transaction, so the split is not visible to anyone.
    pub async fn execute(self, tx: &mut Tx) -> crate::DbResult<u64> {
        let mut values = self.values.into_iter();
        let mut rows_left = self.rows;
        let mut affected = 0;
        let numbered = matches!(tx.exec(), Exec::Pg(_));
        while rows_left > 0 {
            let rows = (1usize << rows_left.ilog2()).min(MAX_ROWS_PER_STATEMENT);
            let text = values_text(self.head, self.tail, self.columns, rows, numbered);
            let chunk = values.by_ref().take(rows * self.columns);
            affected += match tx.exec() {
                Exec::Sqlite(c) => run_values!(c, text, chunk),
                Exec::Pg(c) => run_values!(c, text, chunk),
            };
            rows_left -= rows;
        }
        Ok(affected)
    }

    /// Runs `inserts` in `tx`, in order. On SQLite, when each has at most
    /// [`MAX_ROWS_TOGETHER`] rows, they go as one list of statements (one `INSERT` of exactly
    /// its rows each), which the connection's thread runs in one call: each statement sent on
    /// its own is a hand-off to that thread and back, and the group-commit writer sent a dozen a
    /// batch, the thread waking for each (0.8 context switches per stamp). A list per batch
    /// size is prepared once per connection and kept in its statement cache. Otherwise, and on
    /// PostgreSQL (whose extended protocol takes one statement a message), one by one.
    pub async fn execute_together(inserts: Vec<MultiInsert>, tx: &mut Tx) -> crate::DbResult<()> {
        let inserts: Vec<MultiInsert> = inserts.into_iter().filter(|insert| !insert.is_empty()).collect();
        let together = inserts.len() > 1 && inserts.iter().all(|insert| insert.rows <= MAX_ROWS_TOGETHER);
        if let (true, Exec::Sqlite(conn)) = (together, tx.exec()) {
            let mut text = String::new();
            for insert in &inserts {
                text.push_str(&values_text(insert.head, insert.tail, insert.columns, insert.rows, false));
                text.push_str(";\n");
            }
            let values = inserts.into_iter().flat_map(|insert| insert.values);
            run_values!(conn, text, values);
            return Ok(());
        }
        for insert in inserts {
            insert.execute(tx).await?;
        }
        Ok(())
    }
}

/// The most rows an insert of [`MultiInsert::execute_together`] holds to go with the others:
/// at least the group-commit writer's batch (the server's `group_commit::MAX_BATCH`).
pub const MAX_ROWS_TOGETHER: usize = 64;

/// The most rows one statement of a [`MultiInsert`] holds (a 33-column row binds 8,448 values
/// at this size, under SQLite's 32,766 and PostgreSQL's 65,535).
pub const MAX_ROWS_PER_STATEMENT: usize = 256;

/// `{head} VALUES (…), (…) {tail}` with `rows` rows of `columns` parameters. SQLite gets
/// anonymous `?` parameters: for a numbered one (`$N`) sqlx asks SQLite for its name, a walk
/// over every name of the statement, so binding P numbered parameters costs P² steps (a
/// 1,000-receipt payroll write took 1.3 s in statements of 500 rows).
fn values_text(head: &str, tail: &str, columns: usize, rows: usize, numbered: bool) -> String {
    use std::fmt::Write as _;
    let mut text = String::with_capacity(head.len() + tail.len() + 8 + rows * columns * 6);
    text.push_str(head);
    text.push_str(" VALUES ");
    let mut n = 0;
    for row in 0..rows {
        text.push_str(if row == 0 { "(" } else { ", (" });
        for column in 0..columns {
            n += 1;
            text.push_str(if column == 0 { "" } else { ", " });
            if numbered {
                // Writing into a String cannot fail.
                let _ = write!(text, "${n}");
            } else {
                text.push('?');
            }
        }
        text.push(')');
    }
    if !tail.is_empty() {
        text.push(' ');
        text.push_str(tail);
    }
    text
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

/// Rows a SQLite query packed into one JSON array of arrays (`json_group_array(json_array(…))`,
/// the `fetch_packed` verb of [`sql!`](crate::sql)), each read into `T` by the order of its
/// fields. sqlx hands a SQLite row from the connection's worker thread to the caller one at a
/// time, a thread wake-up each (about 6 µs a row here): a query of thousands of rows on a hot
/// path (a payroll period's employees and incidences) is one value instead. Decimal columns
/// come as strings, which [`Money`] reads exactly; booleans as 0 or 1 ([`int_bool`]).
pub fn unpack<T: serde::de::DeserializeOwned>(json: &str) -> crate::DbResult<Vec<T>> {
    serde_json::from_str(json).map_err(|e| DbError::Other(sqlx::Error::Decode(Box::new(e))))
}

/// A boolean column of a packed SQLite row ([`unpack`]): SQLite stores it as 0 or 1.
pub fn int_bool<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    <i64 as serde::Deserialize>::deserialize(deserializer).map(|value| value != 0)
}

impl<'de> serde::Deserialize<'de> for Money {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Decimal::from_str_exact(&text).map(Money).map_err(serde::de::Error::custom)
    }
}

/// `sql` with `{limit}` replaced by the number. SQLite (3.51) prepares a statement again on every
/// run when its LIMIT is a bound parameter, because the value may change the plan: a listing
/// spent a sixth of its time in the parser. `limit` is a validated integer, never request text.
pub fn with_limit(sql: &str, limit: i64) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(sql.replace("{limit}", &limit.to_string()))
}

/// PostgreSQL's `NOTIFY` on `channel` (other instances listening forget what they cached).
pub async fn notify(conn: &mut DbConn, channel: &str) -> DbResult<u64> {
    sql!(execute * conn, "SELECT pg_notify($1, '')", channel)
}

/// Opens a single connection, for the migrate command and tests that create schemas.
pub async fn raw_pg_connection(url: &str) -> crate::DbResult<PgConnection> {
    Ok(PgConnection::connect(url).await?)
}
