//! `GET /api/jobs`: the background jobs of a company (webhook deliveries and, as features land,
//! invoice and SAT work), for its administrators: status, attempts and the last error.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Page, Query, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_store::jobs::JobRow;

/// A background job.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobOut {
    id: String,
    /// What it does, e.g. `webhook.deliver`.
    kind: String,
    /// `queued` (waiting until `runAt`), `running`, `done` or `dead` (no attempts left; see `lastError`).
    status: String,
    attempts: i64,
    max_attempts: i64,
    /// When it is due (queued) or when its lease ends (running).
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    run_at: OffsetDateTime,
    last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<JobRow> for JobOut {
    fn from(row: JobRow) -> Self {
        let JobRow { id, kind, status, attempts, max_attempts, run_at, last_error, created_at, updated_at } = row;
        Self { id, kind, status, attempts, max_attempts, run_at, last_error, created_at, updated_at }
    }
}

/// Listing parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct JobParams {
    /// Only this status: queued, running, done or dead.
    pub status: Option<String>,
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
}

/// Lists the company's jobs, newest first (ADMINISTRADOR or higher, scope `job:view`).
#[utoipa::path(get, path = "/jobs", tag = "jobs", params(JobParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page of jobs", body = Envelope<Page<JobOut>>),
        (status = 400, description = "JOB_001 unknown status; REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<JobParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::JobView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let (items, total) = timbra_services::jobs::page(&app.db, &empresa_id, params.status.as_deref(), &paging).await?;
    let items: Vec<JobOut> = items.into_iter().map(JobOut::from).collect();
    Ok(ok(Page::new(items, total, paging)))
}
