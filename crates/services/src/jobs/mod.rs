//! Durable background jobs: a job is a row before it is work.
//!
//! [`enqueue`] writes the row inside the caller's transaction, so the work exists exactly when
//! the change that caused it is committed. Workers ([`worker`]) claim due rows with a lease,
//! run them, and record every outcome of a batch in one transaction; a failed run is retried
//! after its kind's backoff and the job is `dead` (error kept) after its last attempt. A crashed
//! process loses nothing: its lease expires and another worker takes the job.
//!
//! Each kind implements [`Job`] and is listed once in [`kinds::registry`]. Jobs and workers are
//! generic over the context they run in ([`JobContext`]): this module knows nothing of the
//! application's; [`kinds`] are the application's jobs over its `AppContext`.

pub mod kinds;
pub mod worker;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use timbra_store::ids::EmpresaId;

use serde_json::Value;
use time::OffsetDateTime;

use crate::config::JobsConfig;
use timbra_store::ids;
use timbra_store::{AsExec, Db, Tx};

/// A boxed, sendable future (the registry stores kinds as plain function pointers).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The payload of a daily job: the UTC day (`AAAA-MM-DD`) it runs for.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Day {
    /// The day.
    pub day: String,
}

/// What workers need of the context they run jobs in: the database, the time, their settings
/// and the kinds they can run.
pub trait JobContext: Clone + Send + Sync + 'static {
    /// The database the queue is in.
    fn db(&self) -> &Db;
    /// Now.
    fn now(&self) -> OffsetDateTime;
    /// Workers, batch size, poll interval, lease.
    fn job_settings(&self) -> &JobsConfig;
    /// The kinds this process runs.
    fn registry(&self) -> &Registry<Self>;
}

/// A kind of background work.
pub trait Job: Send + Sync + 'static {
    /// The context its runs get.
    type Context: JobContext;
    /// The stored kind name, stable across versions (`webhook.deliver`).
    const KIND: &'static str;
    /// Runs including the first; after the last failed one the job is `dead`.
    const MAX_ATTEMPTS: i64 = 5;
    /// What a job of this kind carries, stored as JSON ([`Day`] for daily jobs).
    type Payload: serde::Serialize + serde::de::DeserializeOwned + Send;

    /// The wait before the run that follows failed run number `attempt` (1-based).
    fn backoff(attempt: i64) -> Duration {
        let exponent = u32::try_from(attempt.clamp(1, 8) - 1).unwrap_or(0);
        Duration::from_secs(30 * 2u64.pow(exponent)).min(Duration::from_secs(3600))
    }

    /// Does the work once. Must be safe to run again (at-least-once).
    fn run(context: Self::Context, job: Claimed) -> impl Future<Output = Attempt> + Send;

    /// Writes the kind's own bookkeeping for an attempt, in the transaction that records the
    /// job's outcome (one transaction per batch).
    fn record<'a>(
        _tx: &'a mut Tx,
        _now: OffsetDateTime,
        _job: &'a Claimed,
        _attempt: &'a Attempt,
        _next: &'a Next,
    ) -> impl Future<Output = timbra_store::DbResult<()>> + Send + 'a {
        async { Ok(()) }
    }
}

/// A job to write.
#[derive(Clone, Debug)]
pub struct NewJob {
    /// The kind ([`Job::KIND`]).
    pub kind: &'static str,
    /// The company the work belongs to (shown to its administrators), or none for system work.
    pub empresa_id: Option<EmpresaId>,
    /// What the kind needs to run (JSON).
    pub payload: Value,
    /// When it becomes due; `None` = now.
    pub run_at: Option<OffsetDateTime>,
    /// Runs allowed including the first.
    pub max_attempts: i64,
    /// A scheduled occurrence: a second job with the same key is not written.
    pub dedupe_key: Option<String>,
}

impl NewJob {
    /// A job of kind `J`, due now.
    pub fn of<J: Job>(payload: &J::Payload) -> Self {
        Self::new(J::KIND, payload, J::MAX_ATTEMPTS)
    }

    /// A job of the kind named `kind`, due now: for a writer that must not depend on the code
    /// that runs the kind (an event queues its webhook deliveries).
    pub fn new(kind: &'static str, payload: &impl serde::Serialize, max_attempts: i64) -> Self {
        // Payloads are plain structs of strings and numbers, which always serialize.
        let payload = serde_json::to_value(payload).unwrap_or(Value::Null);
        Self { kind, empresa_id: None, payload, run_at: None, max_attempts, dedupe_key: None }
    }

    /// Belongs to a company.
    pub fn for_empresa(mut self, empresa_id: &EmpresaId) -> Self {
        self.empresa_id = Some(empresa_id.clone());
        self
    }

    /// Due at `at`.
    pub fn at(mut self, at: OffsetDateTime) -> Self {
        self.run_at = Some(at);
        self
    }

    /// Written once per key.
    pub fn dedupe(mut self, key: impl Into<String>) -> Self {
        self.dedupe_key = Some(key.into());
        self
    }
}

/// Writes a job, usually inside the transaction of the change that causes it. Returns its id,
/// or `None` when a job with the same `dedupe_key` already exists.
pub async fn enqueue<C: AsExec>(
    conn: &mut C,
    now: OffsetDateTime,
    job: NewJob,
) -> timbra_store::DbResult<Option<String>> {
    enqueue_with_id(conn, now, &ids::new_id(), job).await
}

/// [`enqueue`] with the job's id chosen by the caller (a feature whose own row shares it, such
/// as a synchronization and its job).
pub async fn enqueue_with_id<C: AsExec>(
    conn: &mut C,
    now: OffsetDateTime,
    id: &str,
    job: NewJob,
) -> timbra_store::DbResult<Option<String>> {
    let row = fila(id.to_owned(), job, now);
    let written = timbra_store::jobs::insert(conn, &row, now).await?;
    Ok((written > 0).then_some(row.id))
}

/// The row of `job` with id `id`, caused at `now`.
fn fila(id: String, job: NewJob, now: OffsetDateTime) -> timbra_store::jobs::NewJobRow {
    timbra_store::jobs::NewJobRow {
        id,
        kind: job.kind,
        empresa_id: job.empresa_id,
        payload: job.payload.to_string(),
        max_attempts: job.max_attempts,
        run_at: job.run_at.unwrap_or(now),
        dedupe_key: job.dedupe_key,
    }
}

/// [`enqueue`] for many jobs in one statement, each with the time it was caused at. Gives the
/// number written (jobs whose `dedupe_key` exists are not).
pub async fn enqueue_many(tx: &mut Tx, jobs: Vec<(OffsetDateTime, NewJob)>) -> timbra_store::DbResult<u64> {
    let mut insert = timbra_store::jobs::many();
    for (now, job) in jobs {
        timbra_store::jobs::push(&mut insert, fila(ids::new_id(), job, now), now);
    }
    insert.execute(tx).await
}

/// A job claimed by a worker.
#[derive(Clone, Debug)]
pub struct Claimed {
    /// Job id.
    pub id: String,
    /// Kind name.
    pub kind: String,
    /// Company, if any.
    pub empresa_id: Option<EmpresaId>,
    /// The JSON payload as written.
    pub payload: String,
    /// This run's number, from 1.
    pub attempts: i64,
    /// Runs allowed.
    pub max_attempts: i64,
}

impl From<timbra_store::jobs::ClaimedRow> for Claimed {
    fn from(row: timbra_store::jobs::ClaimedRow) -> Self {
        let timbra_store::jobs::ClaimedRow { id, kind, empresa_id, payload, attempts, max_attempts } = row;
        Self { id, kind, empresa_id, payload, attempts, max_attempts }
    }
}

impl Claimed {
    /// The payload of kind `J`.
    pub fn payload<J: Job>(&self) -> Result<J::Payload, String> {
        serde_json::from_str(&self.payload).map_err(|e| format!("bad payload for {}: {e}", self.kind))
    }
}

/// The outcome of one run.
#[derive(Clone, Debug, Default)]
pub struct Attempt {
    /// Why it failed; `None` = success.
    pub error: Option<String>,
    /// A failure no retry can fix (the job goes straight to `dead`).
    pub permanent: bool,
    /// Facts for the kind's bookkeeping (status code, latency, ...).
    pub info: Value,
}

impl Attempt {
    /// Success.
    pub fn ok(info: Value) -> Self {
        Self { error: None, permanent: false, info }
    }

    /// A failure worth retrying.
    pub fn retry(error: impl Into<String>, info: Value) -> Self {
        Self { error: Some(error.into()), permanent: false, info }
    }

    /// A failure not worth retrying.
    pub fn fail(error: impl Into<String>) -> Self {
        Self { error: Some(error.into()), permanent: true, info: Value::Null }
    }
}

/// What happens to a job after a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Finished.
    Done,
    /// Runs again at this time.
    Retry(OffsetDateTime),
    /// No attempts left (or a permanent failure): kept with its error.
    Dead,
}

type RunFn<C> = fn(C, Claimed) -> BoxFuture<'static, Attempt>;
type RecordFn = for<'a> fn(
    &'a mut Tx,
    OffsetDateTime,
    &'a Claimed,
    &'a Attempt,
    &'a Next,
) -> BoxFuture<'a, timbra_store::DbResult<()>>;

fn run_boxed<J: Job>(context: J::Context, job: Claimed) -> BoxFuture<'static, Attempt> {
    Box::pin(J::run(context, job))
}

fn record_boxed<'a, J: Job>(
    tx: &'a mut Tx,
    now: OffsetDateTime,
    job: &'a Claimed,
    attempt: &'a Attempt,
    next: &'a Next,
) -> BoxFuture<'a, timbra_store::DbResult<()>> {
    Box::pin(J::record(tx, now, job, attempt, next))
}

/// A registered kind, type-erased.
pub struct Kind<C> {
    backoff: fn(i64) -> Duration,
    run: RunFn<C>,
    record: RecordFn,
}

impl<C> Clone for Kind<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Kind<C> {}

/// A job that runs once a day at a fixed UTC time, on one process of the fleet.
#[derive(Clone, Copy, Debug)]
pub struct Daily {
    /// The kind to enqueue.
    pub kind: &'static str,
    /// Runs allowed per occurrence.
    pub max_attempts: i64,
    /// UTC hour and minute of each run.
    pub at: time::Time,
}

/// The kinds this process can run, by name, and the daily schedule.
pub struct Registry<C> {
    kinds: std::collections::HashMap<&'static str, Kind<C>>,
    daily: Vec<Daily>,
}

impl<C> Default for Registry<C> {
    fn default() -> Self {
        Self { kinds: std::collections::HashMap::new(), daily: Vec::new() }
    }
}

impl<C: JobContext> Registry<C> {
    /// Adds kind `J`.
    pub fn register<J: Job<Context = C>>(&mut self) -> &mut Self {
        let kind = Kind { backoff: J::backoff, run: run_boxed::<J>, record: record_boxed::<J> };
        self.kinds.insert(J::KIND, kind);
        self
    }

    /// Adds kind `J` and runs it every day at `at` (UTC).
    pub fn daily<J: Job<Context = C>>(&mut self, at: time::Time) -> &mut Self {
        self.register::<J>();
        self.daily.push(Daily { kind: J::KIND, max_attempts: J::MAX_ATTEMPTS, at });
        self
    }

    /// A registered kind.
    pub fn kind(&self, name: &str) -> Option<Kind<C>> {
        self.kinds.get(name).copied()
    }

    /// The daily schedule.
    pub fn daily_jobs(&self) -> &[Daily] {
        &self.daily
    }
}

/// The queue of one job kind, as `/metrics` reports it.
pub struct QueueStats {
    /// The job kind.
    pub kind: String,
    /// Jobs waiting, due or scheduled later.
    pub queued: i64,
    /// Jobs leased by a worker.
    pub running: i64,
    /// How long the oldest due job has waited, in seconds (0 when none is due).
    pub oldest_due_seconds: f64,
}

/// Queue depth and age by kind, over every company (the whole installation's queue: every
/// instance on one database reports the same figures).
/// A page of company `empresa_id`'s jobs, newest first, of `status` when given (`queued`,
/// `running`, `done` or `dead`; JOB_001 otherwise), and how many match: `GET /api/jobs` and
/// the dashboard's jobs page (authorize first: job:view).
pub async fn page(
    db: &Db,
    empresa_id: &EmpresaId,
    status: Option<&str>,
    paging: &timbra_store::Paging,
) -> Result<(Vec<timbra_store::jobs::JobRow>, i64), crate::error::ApiError> {
    let status = match status.map(str::trim) {
        None | Some("") => None,
        Some(status @ ("queued" | "running" | "done" | "dead")) => Some(status),
        Some(other) => {
            return Err(crate::error::ApiError::new(
                crate::error::Code::Job001,
                format!("status {other:?} is not one of queued, running, done, dead"),
            ));
        }
    };
    let mut conn = db.conn().await?;
    Ok(timbra_store::jobs::page(&mut conn, empresa_id, status, paging).await?)
}

pub async fn queue_stats(db: &timbra_store::Db, now: OffsetDateTime) -> timbra_store::DbResult<Vec<QueueStats>> {
    let mut conn = db.conn().await?;
    let rows = timbra_store::jobs::queue(&mut conn, now).await?;
    let mut stats: Vec<QueueStats> = Vec::new();
    for row in rows {
        if stats.last().is_none_or(|last| last.kind != row.kind) {
            stats.push(QueueStats { kind: row.kind.clone(), queued: 0, running: 0, oldest_due_seconds: 0.0 });
        }
        let Some(entry) = stats.last_mut() else { continue };
        if row.status == "running" {
            entry.running = row.jobs;
        } else {
            entry.queued = row.jobs;
            entry.oldest_due_seconds = row.oldest_due.map_or(0.0, |due| (now - due).as_seconds_f64().max(0.0));
        }
    }
    Ok(stats)
}
