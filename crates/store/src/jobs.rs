//! The `jobs` table: durable background work, claimed by workers under a lease (the rules are
//! the server's `jobs` module).

use crate::ids::EmpresaId;
use time::OffsetDateTime;

use crate::{AsExec, Backend, DbConn, DbResult, MultiInsert, Paging, Tx, sql, with_limit};

/// A job to write (owned: a batch's rows move into its [`many`] insert without a copy).
pub struct NewJobRow {
    /// Its id.
    pub id: String,
    /// Kind name.
    pub kind: &'static str,
    /// Company, if any.
    pub empresa_id: Option<EmpresaId>,
    /// The JSON payload.
    pub payload: String,
    /// Runs allowed (at least 1).
    pub max_attempts: i64,
    /// When it is due.
    pub run_at: OffsetDateTime,
    /// Written once per key.
    pub dedupe_key: Option<String>,
}

/// Writes `job`; 0 rows when a job with its `dedupe_key` exists.
pub async fn insert(conn: &mut impl AsExec, job: &NewJobRow, now: OffsetDateTime) -> DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO jobs (id, kind, empresa_id, payload, status, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, 'queued', 0, $5, $6, $7, $8, $8) ON CONFLICT (dedupe_key) DO NOTHING",
        &job.id,
        job.kind,
        &job.empresa_id,
        &job.payload,
        job.max_attempts.max(1),
        job.run_at,
        &job.dedupe_key,
        now
    )
}

/// A job claimed by a worker.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ClaimedRow {
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

/// Claims up to `limit` due jobs (and running ones whose lease expired) for worker `me` until
/// `lease_until`.
const CLAIM_SQLITE: &str = "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_until = $1, run_at = $1, \
     locked_by = $2, updated_at = $3 \
     WHERE id IN (SELECT id FROM jobs WHERE status IN ('queued', 'running') AND run_at <= $3 ORDER BY run_at LIMIT {limit}) \
     RETURNING id, kind, empresa_id, payload, attempts, max_attempts";
/// The same on PostgreSQL, where several processes claim at once without waiting on each other.
const CLAIM_PG: &str = "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_until = $1, run_at = $1, \
     locked_by = $2, updated_at = $3 \
     WHERE id IN (SELECT id FROM jobs WHERE status IN ('queued', 'running') AND run_at <= $3 ORDER BY run_at LIMIT {limit} \
     FOR UPDATE SKIP LOCKED) \
     RETURNING id, kind, empresa_id, payload, attempts, max_attempts";

/// Claims up to `limit` due jobs for worker `me` until `lease_until`.
pub async fn claim(
    tx: &mut Tx,
    backend: Backend,
    limit: i64,
    lease_until: OffsetDateTime,
    me: &str,
    now: OffsetDateTime,
) -> DbResult<Vec<ClaimedRow>> {
    let claim = match backend {
        Backend::Sqlite => CLAIM_SQLITE,
        Backend::Postgres => CLAIM_PG,
    };
    sql!(fetch_all * tx, ClaimedRow, with_limit(claim, limit), lease_until, me, now)
}

/// Records a run's outcome when `me` still holds the lease: 0 rows when it lost the job.
pub async fn record(
    tx: &mut Tx,
    id: &str,
    me: &str,
    status: &str,
    run_at: OffsetDateTime,
    error: Option<&str>,
    now: OffsetDateTime,
) -> DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE jobs SET status = $1, run_at = $2, lease_until = NULL, locked_by = NULL, last_error = $3, updated_at = $4 \
         WHERE id = $5 AND locked_by = $6 AND status = 'running'",
        status,
        run_at,
        error,
        now,
        id,
        me
    )
}

/// Deletes the jobs done before `before`.
pub async fn purge_done(conn: &mut DbConn, before: OffsetDateTime) -> DbResult<u64> {
    sql!(execute * conn, "DELETE FROM jobs WHERE status = 'done' AND updated_at < $1", before)
}

/// Deletes PostgreSQL's rate-limit buckets that are full again (the same as absent ones).
pub async fn purge_full_rate_buckets(conn: &mut DbConn) -> DbResult<u64> {
    sql!(execute * conn, "DELETE FROM rate_limits WHERE tat < extract(epoch FROM clock_timestamp())::float8")
}

/// A job as a company lists it.
#[derive(sqlx::FromRow)]
pub struct JobRow {
    /// Id.
    pub id: String,
    /// Kind name.
    pub kind: String,
    /// queued, running, done or dead.
    pub status: String,
    /// Runs so far.
    pub attempts: i64,
    /// Runs allowed.
    pub max_attempts: i64,
    /// When it is due (queued) or when its lease ends (running).
    pub run_at: OffsetDateTime,
    /// Why the last run failed.
    pub last_error: Option<String>,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
}

/// A page of the company's jobs, newest first, optionally with one status, and how many match.
pub async fn page(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    status: Option<&str>,
    paging: &Paging,
) -> DbResult<(Vec<JobRow>, i64)> {
    let total = sql!(
        scalar_one * conn,
        i64,
        "SELECT COUNT(*) FROM jobs WHERE empresa_id = $1 AND ($2 IS NULL OR status = $2)",
        empresa_id,
        status
    )?;
    let items = sql!(
        fetch_all * conn,
        JobRow,
        with_limit(
            "SELECT id, kind, status, attempts, max_attempts, run_at, last_error, created_at, updated_at FROM jobs \
         WHERE empresa_id = $1 AND ($2 IS NULL OR status = $2) ORDER BY created_at DESC, id DESC LIMIT {limit} OFFSET $3",
            paging.page_size
        ),
        empresa_id,
        status,
        paging.offset()
    )?;
    Ok((items, total))
}

/// The queued and running jobs of one kind and status.
#[derive(sqlx::FromRow)]
pub struct QueueRow {
    /// Kind name.
    pub kind: String,
    /// queued or running.
    pub status: String,
    /// How many.
    pub jobs: i64,
    /// The oldest due one's `run_at`.
    pub oldest_due: Option<OffsetDateTime>,
}

/// Queue depth by kind and status over every company, kinds in order.
pub async fn queue(conn: &mut DbConn, now: OffsetDateTime) -> DbResult<Vec<QueueRow>> {
    sql!(
        fetch_all * conn,
        QueueRow,
        "SELECT kind, status, COUNT(*) AS jobs, MIN(CASE WHEN run_at <= $1 THEN run_at END) AS oldest_due FROM jobs \
         WHERE status IN ('queued', 'running') GROUP BY kind, status ORDER BY kind",
        now
    )
}

/// An empty insert of many jobs ([`push`] adds them); jobs whose `dedupe_key` exists are not
/// written.
pub fn many() -> MultiInsert {
    MultiInsert::new(
        "INSERT INTO jobs (id, kind, empresa_id, payload, status, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at)",
        11,
        "ON CONFLICT (dedupe_key) DO NOTHING",
    )
}

/// Adds `job`, caused at `now`, to a [`many`] insert.
pub fn push(insert: &mut MultiInsert, job: NewJobRow, now: OffsetDateTime) {
    insert.row(vec![
        job.id.into(),
        job.kind.into(),
        job.empresa_id.into(),
        job.payload.into(),
        "queued".into(),
        0i64.into(),
        job.max_attempts.max(1).into(),
        job.run_at.into(),
        job.dedupe_key.into(),
        now.into(),
        now.into(),
    ]);
}
