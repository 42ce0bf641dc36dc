//! The `webhooks` table: a company's endpoints (soft-deleted, so the delivery log keeps them).

use time::OffsetDateTime;

use super::scoped::ScopedTable;

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
