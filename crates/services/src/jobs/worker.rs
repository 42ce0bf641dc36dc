//! The claim loop: workers claim due jobs with a lease, run a batch concurrently and record
//! all its outcomes in one transaction.

use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{Attempt, Claimed, JobContext, NewJob, Next, enqueue};

/// Starts the configured workers; they stop claiming when `shutdown` turns true and finish the
/// batch in hand (jobs cut short by a crash are taken again when their lease expires).
pub fn start<C: JobContext>(app: &C, shutdown: watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
    let process = timbra_store::ids::new_id();
    (0..app.job_settings().workers)
        .map(|n| tokio::spawn(worker(app.clone(), format!("{process}/{n}"), n == 0, shutdown.clone())))
        .collect()
}

async fn worker<C: JobContext>(app: C, me: String, schedules: bool, mut shutdown: watch::Receiver<bool>) {
    let mut scheduled_at: Option<OffsetDateTime> = None;
    while !*shutdown.borrow() {
        if schedules {
            let now = app.now();
            if scheduled_at.is_none_or(|at| now - at >= Duration::from_secs(60) || now < at) {
                match schedule_daily(&app, now).await {
                    Ok(()) => scheduled_at = Some(now),
                    Err(error) => tracing::warn!(error.message = %error, "could not schedule daily jobs"),
                }
            }
        }
        match run_batch(&app, &me).await {
            // A full batch: more may be due, claim again at once.
            Ok(count) if count >= app.job_settings().batch => continue,
            Ok(_) => {}
            Err(error) => tracing::warn!(error.message = %error, "job batch failed"),
        }
        tokio::select! {
            _ = shutdown.changed() => {}
            _ = tokio::time::sleep(app.job_settings().poll) => {}
        }
    }
}

/// Writes today's and tomorrow's occurrence of every daily job (once per day fleet-wide: the
/// dedupe key names the day).
pub async fn schedule_daily<C: JobContext>(app: &C, now: OffsetDateTime) -> timbra_store::DbResult<()> {
    if app.registry().daily_jobs().is_empty() {
        return Ok(());
    }
    let mut conn = app.db().conn().await?;
    for daily in app.registry().daily_jobs() {
        for day in [now.date(), now.date().next_day().unwrap_or(now.date())] {
            let at = day.with_time(daily.at).assume_utc();
            let job = NewJob {
                kind: daily.kind,
                empresa_id: None,
                payload: serde_json::json!(super::Day { day: day.to_string() }),
                run_at: Some(at),
                max_attempts: daily.max_attempts,
                dedupe_key: Some(format!("{}@{day}", daily.kind)),
            };
            enqueue(&mut conn, now, job).await?;
        }
    }
    Ok(())
}

/// Claims one batch, runs it and records the outcomes. Returns how many jobs were claimed.
pub async fn run_batch<C: JobContext>(app: &C, me: &str) -> timbra_store::DbResult<i64> {
    let now = app.now();
    let lease_until = now + app.job_settings().lease;
    let mut tx = app.db().begin().await?;
    let jobs: Vec<Claimed> =
        timbra_store::jobs::claim(&mut tx, app.db().backend(), app.job_settings().batch, lease_until, me, now)
            .await?
            .into_iter()
            .map(Claimed::from)
            .collect();
    tx.commit().await?;
    if jobs.is_empty() {
        return Ok(0);
    }
    let count = jobs.len() as i64;

    let running: Vec<_> = jobs
        .into_iter()
        .map(|job| {
            let handle = match app.registry().kind(&job.kind) {
                // Claimed again after crashes used up its attempts.
                Some(_) if job.attempts > job.max_attempts => {
                    tokio::spawn(async { Attempt::fail("the process running it stopped too many times") })
                }
                Some(kind) => tokio::spawn((kind.run)(app.clone(), job.clone())),
                None => {
                    let error = format!("no worker for job kind {} in this version", job.kind);
                    tokio::spawn(async move { Attempt::retry(error, serde_json::Value::Null) })
                }
            };
            (job, handle)
        })
        .collect();
    let mut outcomes = Vec::with_capacity(running.len());
    for (job, handle) in running {
        let attempt = handle
            .await
            .unwrap_or_else(|error| Attempt::retry(format!("the job panicked: {error}"), serde_json::Value::Null));
        outcomes.push((job, attempt));
    }

    let now = app.now();
    let mut tx = app.db().begin().await?;
    for (job, attempt) in &outcomes {
        let kind = app.registry().kind(&job.kind);
        let next = match &attempt.error {
            None => Next::Done,
            Some(_) if attempt.permanent || job.attempts >= job.max_attempts => Next::Dead,
            Some(_) => {
                let backoff = kind.map_or(Duration::from_secs(300), |kind| (kind.backoff)(job.attempts));
                Next::Retry(now + backoff)
            }
        };
        let (status, run_at) = match &next {
            Next::Done => ("done", now),
            Next::Retry(at) => ("queued", *at),
            Next::Dead => ("dead", now),
        };
        // Only the holder of the lease records; a worker whose lease expired lost the job.
        let recorded =
            timbra_store::jobs::record(&mut tx, &job.id, me, status, run_at, attempt.error.as_deref(), now).await?;
        if let Some(kind) = kind
            && recorded > 0
        {
            (kind.record)(&mut tx, now, job, attempt, &next).await?;
        }
        if next == Next::Dead {
            tracing::warn!(job.id = %job.id, job.kind = %job.kind, error = ?attempt.error, "job is dead after its last attempt");
        }
    }
    tx.commit().await?;
    Ok(count)
}
