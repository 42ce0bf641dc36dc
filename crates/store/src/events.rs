//! The `events` table and the webhook deliveries it fans out to (`webhook_deliveries`): the
//! rows; which types exist and who is subscribed is the server's `events` module.

use crate::ids::{DeliveryId, EmpresaId, EventId, WebhookId};
use time::OffsetDateTime;

use crate::{DbResult, MultiInsert, Tx, sql};

/// An active webhook of a company and its stored list of event types (`None`: every type).
#[derive(sqlx::FromRow)]
pub struct Subscriber {
    /// The webhook's id.
    pub id: String,
    /// Its `events` JSON list, if it has one.
    pub events: Option<String>,
}

/// The company's active webhooks, in id order.
pub async fn subscribers(tx: &mut Tx, empresa_id: &EmpresaId) -> DbResult<Vec<Subscriber>> {
    sql!(
        fetch_all * tx,
        Subscriber,
        "SELECT id, events FROM webhooks WHERE empresa_id = $1 AND active = $2 AND deleted_at IS NULL ORDER BY id",
        empresa_id,
        true
    )
}

/// An event row (its payload owned: a batch's move into its [`events_insert`] without a copy).
pub struct EventRow<'a> {
    /// Its id.
    pub id: &'a str,
    /// The company.
    pub empresa_id: &'a EmpresaId,
    /// The dotted type name.
    pub event_type: &'a str,
    /// The payload's JSON.
    pub data: String,
    /// When it happened.
    pub now: OffsetDateTime,
}

/// Writes one event.
pub async fn insert_event(tx: &mut Tx, event: &EventRow<'_>) -> DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO events (id, empresa_id, type, data, created_at) VALUES ($1, $2, $3, $4, $5)",
        event.id,
        event.empresa_id,
        event.event_type,
        &event.data,
        event.now
    )
}

/// An empty insert of many events ([`push_event`] adds them).
pub fn events_insert() -> MultiInsert {
    MultiInsert::new("INSERT INTO events (id, empresa_id, type, data, created_at)", 5, "")
}

/// Adds `event` to an [`events_insert`].
pub fn push_event(insert: &mut MultiInsert, event: EventRow<'_>) {
    insert.row(vec![
        event.id.into(),
        event.empresa_id.into(),
        event.event_type.into(),
        event.data.into(),
        event.now.into(),
    ]);
}

/// Writes a pending delivery `id` of `event_id` to `webhook_id`, due at once.
pub async fn insert_delivery(
    tx: &mut Tx,
    id: &str,
    webhook_id: &WebhookId,
    event_id: &EventId,
    now: OffsetDateTime,
) -> DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempts, next_retry_at, created_at, updated_at) \
         VALUES ($1, $2, $3, 'pending', 0, $4, $4, $4)",
        id,
        webhook_id,
        event_id,
        now
    )
}

/// An empty insert of many pending deliveries ([`push_delivery`] adds them).
pub fn deliveries_insert() -> MultiInsert {
    MultiInsert::new(
        "INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempts, next_retry_at, created_at, updated_at)",
        8,
        "",
    )
}

/// Adds a pending delivery to a [`deliveries_insert`].
pub fn push_delivery(
    insert: &mut MultiInsert,
    id: &DeliveryId,
    webhook_id: &WebhookId,
    event_id: &EventId,
    now: OffsetDateTime,
) {
    insert.row(vec![
        id.into(),
        webhook_id.into(),
        event_id.into(),
        "pending".into(),
        0i64.into(),
        now.into(),
        now.into(),
        now.into(),
    ]);
}
