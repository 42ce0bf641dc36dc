//! The `webhooks` table: a company's endpoints (soft-deleted, so the delivery log keeps them).

use crate::ids::{DeliveryId, EmpresaId, WebhookId};
use time::OffsetDateTime;

use super::scoped::ScopedTable;
use crate::Paging;
use crate::sql;
use crate::{AsExec, DbConn, Tx, with_limit};

/// A stored endpoint (its secret is read only by delivery and rotation).
#[derive(sqlx::FromRow)]
pub struct WebhookRow {
    /// Id.
    pub id: String,
    /// Where events are posted.
    pub url: String,
    /// JSON list of subscribed event types; `NULL` is every type.
    pub events: Option<String>,
    /// The owner's note.
    pub description: Option<String>,
    /// Paused endpoints get no events (pings still go).
    pub active: bool,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
    /// A listing's total.
    #[sqlx(default)]
    pub total: Option<i64>,
}

/// The endpoints table, for [`super::scoped`].
pub struct Webhooks;

impl ScopedTable for Webhooks {
    const TABLE: &'static str = "webhooks";
    const SOFT_DELETE: bool = true;
    const COLUMNS: &'static str = "id, url, events, description, active, created_at, updated_at";
    type Row = WebhookRow;
    fn total(row: &WebhookRow) -> Option<i64> {
        row.total
    }
}

/// A new endpoint's fields (`secret` already sealed with the master key).
pub struct NuevoWebhook<'a> {
    /// Id.
    pub id: &'a str,
    /// The company.
    pub empresa_id: &'a EmpresaId,
    /// Where events are posted.
    pub url: &'a str,
    /// JSON list of event types, `None` for every type.
    pub events: Option<&'a str>,
    /// The owner's note.
    pub description: Option<&'a str>,
    /// The sealed secret.
    pub secret: &'a str,
    /// Whether it receives events.
    pub active: bool,
}

/// Registers an endpoint.
pub async fn crear(conn: &mut impl AsExec, nuevo: &NuevoWebhook<'_>, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO webhooks (id, empresa_id, url, events, description, secret, active, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
        nuevo.id,
        nuevo.empresa_id,
        nuevo.url,
        nuevo.events,
        nuevo.description,
        nuevo.secret,
        nuevo.active,
        now
    )
}

/// Replaces an endpoint's url, events, description and active flag.
#[allow(clippy::too_many_arguments)]
pub async fn actualizar(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &str,
    url: &str,
    events: Option<&str>,
    description: Option<&str>,
    active: bool,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE webhooks SET url = $1, events = $2, description = $3, active = $4, updated_at = $5 \
         WHERE id = $6 AND empresa_id = $7 AND deleted_at IS NULL",
        url,
        events,
        description,
        active,
        now,
        id,
        empresa_id
    )
}

/// Replaces an endpoint's sealed secret; rows changed.
pub async fn cambiar_secreto(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &str,
    sealed: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE webhooks SET secret = $1, updated_at = $2 WHERE id = $3 AND empresa_id = $4 AND deleted_at IS NULL",
        sealed,
        now,
        id,
        empresa_id
    )
}

/// The columns a delivery is answered with (joined to its event and endpoint).
macro_rules! select_deliveries {
    () => {
        "SELECT d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempts, d.next_retry_at, \
         d.last_status_code, d.last_latency_ms, d.last_error, d.created_at, d.updated_at \
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id JOIN webhooks w ON w.id = d.webhook_id "
    };
}

/// Delivery `id`, when its endpoint is the company's.
pub async fn entrega(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    id: &DeliveryId,
) -> crate::DbResult<Option<DeliveryRow>> {
    sql!(
        fetch_optional * conn,
        DeliveryRow,
        concat!(select_deliveries!(), "WHERE d.id = $1 AND w.empresa_id = $2"),
        id,
        empresa_id
    )
}

/// A page of an endpoint's deliveries, newest first, and how many it has.
pub async fn entregas(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    webhook_id: &WebhookId,
    paging: &Paging,
) -> crate::DbResult<(Vec<DeliveryRow>, i64)> {
    let total =
        sql!(scalar_one * conn, i64, "SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = $1", webhook_id)?;
    let items = sql!(
        fetch_all * conn,
        DeliveryRow,
        with_limit(
            concat!(
                select_deliveries!(),
                "WHERE d.webhook_id = $1 AND w.empresa_id = $2 \
            ORDER BY d.created_at DESC, d.id DESC LIMIT {limit} OFFSET $3"
            ),
            paging.page_size
        ),
        webhook_id,
        empresa_id,
        paging.offset()
    )?;
    Ok((items, total))
}

/// A stored row of `DeliveryOut` (the API answers it as `DeliveryOut`).
#[derive(sqlx::FromRow)]
pub struct DeliveryRow {
    /// `id`.
    pub id: String,
    /// `webhook_id`.
    pub webhook_id: String,
    /// `event_id`.
    pub event_id: String,
    /// `event_type`.
    pub event_type: String,
    /// `pending` (waiting for its first or next attempt), `succeeded` or `failed` (no retries left).
    pub status: String,
    /// Attempts made so far.
    pub attempts: i64,
    /// `next_retry_at`.
    pub next_retry_at: Option<OffsetDateTime>,
    /// HTTP status of the last answer, if one came.
    pub last_status_code: Option<i64>,
    /// Milliseconds the last attempt took.
    pub last_latency_ms: Option<i64>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// `created_at`.
    pub created_at: OffsetDateTime,
    /// `updated_at`.
    pub updated_at: OffsetDateTime,
}

/// The webhooks whose secret is still stored in clear (written by a version before secrets
/// were sealed): `(id, secret)`.
pub async fn secrets_in_clear(conn: &mut DbConn) -> crate::DbResult<Vec<(String, String)>> {
    sql!(fetch_all * conn, (String, String), "SELECT id, secret FROM webhooks WHERE secret NOT LIKE 'enc:%'")
}

/// Replaces webhook `id`'s secret `clear` with `sealed` (0 rows when it changed meanwhile).
pub async fn seal_secret(conn: &mut DbConn, id: &str, clear: &str, sealed: &str) -> crate::DbResult<u64> {
    sql!(execute * conn, "UPDATE webhooks SET secret = $1 WHERE id = $2 AND secret = $3", sealed, id, clear)
}

/// What a delivery is sent with: its endpoint and its event.
#[derive(sqlx::FromRow)]
pub struct DeliveryTarget {
    /// The endpoint's id.
    pub webhook_id: String,
    /// Its URL.
    pub url: String,
    /// Its secret as stored (sealed, or clear from an older version).
    pub secret: String,
    /// Whether it is active.
    pub active: bool,
    /// When it was deleted.
    pub deleted_at: Option<OffsetDateTime>,
    /// The event's id.
    pub event_id: String,
    /// The event's dotted type.
    pub event_type: String,
    /// The event's payload JSON.
    pub data: String,
    /// When the event happened.
    pub created_at: OffsetDateTime,
}

/// The endpoint and event of delivery `id`.
pub async fn delivery_target(conn: &mut DbConn, id: &str) -> crate::DbResult<Option<DeliveryTarget>> {
    sql!(
        fetch_optional * conn,
        DeliveryTarget,
        "SELECT w.id AS webhook_id, w.url, w.secret, w.active, w.deleted_at, e.id AS event_id, e.type AS event_type, e.data, e.created_at \
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id \
         WHERE d.id = $1",
        id
    )
}

/// A delivery attempt's outcome.
pub struct DeliveryOutcome<'a> {
    /// pending, succeeded or failed.
    pub status: &'a str,
    /// Attempts made so far.
    pub attempts: i64,
    /// When the next attempt runs.
    pub next_retry_at: Option<OffsetDateTime>,
    /// HTTP status of the answer, if one came.
    pub last_status_code: Option<i64>,
    /// How long the attempt took.
    pub last_latency_ms: Option<i64>,
    /// Why it failed.
    pub last_error: Option<&'a str>,
}

/// Records the outcome of delivery `id`'s latest attempt.
pub async fn record_delivery(
    tx: &mut Tx,
    id: &str,
    outcome: &DeliveryOutcome<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE webhook_deliveries SET status = $1, attempts = $2, next_retry_at = $3, last_status_code = $4, \
         last_latency_ms = $5, last_error = $6, updated_at = $7 WHERE id = $8",
        outcome.status,
        outcome.attempts,
        outcome.next_retry_at,
        outcome.last_status_code,
        outcome.last_latency_ms,
        outcome.last_error,
        now,
        id
    )
}
