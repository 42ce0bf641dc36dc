//! A company's webhook endpoints: their rules over the shared CRUD of [`crate::scoped`], the
//! secret (shown once, at create and at rotation), the test ping and redelivery.

use timbra_store::ids::{DeliveryId, EmpresaId, EventId, WebhookId};
use timbra_store::webhooks::{self as store, DeliveryRow, NuevoWebhook, WebhookRow, Webhooks};
use timbra_store::{DbResult, Paging, Tx, ids};
use time::OffsetDateTime;

use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::events::payloads::Ping;
use crate::events::{self, Event, EventType};
use crate::scoped::{self, Resource};

/// An endpoint's fields as sent: `url` required on create; on update what is left out keeps
/// its value.
#[derive(Default)]
pub struct Fields {
    /// Where events are POSTed.
    pub url: Option<String>,
    /// Event types to receive; absent or empty = every type.
    pub events: Option<Vec<String>>,
    /// A note for people.
    pub description: Option<String>,
    /// `false` pauses deliveries (default true).
    pub active: Option<bool>,
}

/// The fields, and on create the new endpoint's id and clear secret, sealed once the fields
/// are valid.
pub struct Written {
    fields: Fields,
    new: Option<(String, String)>,
}

/// An endpoint's fields, checked.
pub struct Valid {
    url: String,
    events: Option<String>,
    description: Option<String>,
    active: bool,
    /// The sealed secret, on create.
    secret: Option<String>,
}

/// WEBHOOK_001 for the fields present; `create` requires `url`. What is absent stays `None`.
async fn check(app: &AppContext, fields: &Fields, create: bool) -> Result<Checked, ApiError> {
    let mut problems = Vec::new();
    let url = match fields.url.as_deref() {
        Some(raw) => match crate::webhooks::check_url(raw, app.config.webhooks.allow_private).await {
            Ok(url) => Some(url.to_string()),
            Err(message) => {
                problems.push(FieldProblem::new("url", message));
                None
            }
        },
        None if create => {
            problems.push(FieldProblem::new("url", "url is required: the https:// address that receives events"));
            None
        }
        None => None,
    };
    let events = fields.events.as_ref().map(|names| {
        for (index, name) in names.iter().enumerate() {
            if EventType::parse(name).is_none_or(|event| event == EventType::WebhookPing) {
                let known: Vec<&str> = EventType::ALL
                    .iter()
                    .filter(|event| **event != EventType::WebhookPing)
                    .map(|event| event.as_str())
                    .collect();
                problems.push(FieldProblem::new(
                    format!("events[{index}]"),
                    format!("{name:?} is not an event type; use one of: {}", known.join(", ")),
                ));
            }
        }
        let mut names = names.clone();
        names.sort();
        names.dedup();
        (!names.is_empty()).then(|| serde_json::Value::from(names).to_string())
    });
    let description = fields.description.as_ref().map(|text| {
        let text = text.trim();
        if text.chars().count() > 500 {
            problems.push(FieldProblem::new("description", "description is at most 500 characters"));
        }
        (!text.is_empty()).then(|| text.to_owned())
    });
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Webhook001, problems));
    }
    Ok(Checked { url, events, description })
}

/// The fields present, checked.
struct Checked {
    url: Option<String>,
    events: Option<Option<String>>,
    description: Option<Option<String>>,
}

/// The endpoints, for [`crate::scoped`] (soft-deleted: pending deliveries are not attempted
/// again).
pub struct Endpoints;

impl Resource for Endpoints {
    type Table = Webhooks;
    type Fields = Written;
    type Valid = Valid;
    const NOUN: &'static str = "webhook";

    async fn check(app: &AppContext, written: Written, current: Option<WebhookRow>) -> Result<Valid, ApiError> {
        let Written { fields, new } = written;
        let checked = check(app, &fields, current.is_none()).await?;
        let Some(current) = current else {
            let secret = match new {
                Some((id, secret)) => Some(
                    crate::webhooks::seal_secret(app.cfdi.master()?, &WebhookId::from(&id), &secret)
                        .map_err(|e| ApiError::internal("seal", e))?,
                ),
                None => None,
            };
            return Ok(Valid {
                url: checked.url.unwrap_or_default(),
                events: checked.events.flatten(),
                description: checked.description.flatten(),
                active: fields.active.unwrap_or(true),
                secret,
            });
        };
        // The stored list, read as the API shows it (`null` when unreadable) and written again.
        let stored_events = || {
            let names: Option<Vec<String>> = current.events.as_deref().and_then(|json| serde_json::from_str(json).ok());
            names.map(|names| serde_json::Value::from(names).to_string())
        };
        Ok(Valid {
            events: checked.events.unwrap_or_else(stored_events),
            description: checked.description.unwrap_or(current.description),
            url: checked.url.unwrap_or(current.url),
            active: fields.active.unwrap_or(current.active),
            secret: None,
        })
    }

    async fn insert(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        let nuevo = NuevoWebhook {
            id,
            empresa_id,
            url: &valid.url,
            events: valid.events.as_deref(),
            description: valid.description.as_deref(),
            secret: valid.secret.as_deref().unwrap_or_default(),
            active: valid.active,
        };
        store::crear(tx, &nuevo, now).await
    }

    async fn update(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        let (events, description) = (valid.events.as_deref(), valid.description.as_deref());
        store::actualizar(tx, empresa_id, id, &valid.url, events, description, valid.active, now).await
    }
}

/// Registers an endpoint; answers it with its clear secret, which is not stored or shown again.
/// The event types endpoint `row` is subscribed to; `None` is every type.
pub fn events(row: &WebhookRow) -> Option<Vec<String>> {
    row.events.as_deref().and_then(|json| serde_json::from_str(json).ok())
}

pub async fn create(
    app: &AppContext,
    empresa_id: &EmpresaId,
    fields: Fields,
) -> Result<(WebhookRow, String), ApiError> {
    let id = ids::new_id();
    let secret = crate::webhooks::new_secret();
    let written = Written { fields, new: Some((id.clone(), secret.clone())) };
    let row = scoped::create_as::<Endpoints>(app, empresa_id, &id, written).await?;
    Ok((row, secret))
}

/// Changes endpoint `id`'s fields that are sent.
pub async fn update(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fields: Fields,
) -> Result<WebhookRow, ApiError> {
    scoped::update::<Endpoints>(app, empresa_id, id, Written { fields, new: None }).await
}

/// Replaces endpoint `id`'s secret at once (the old one stops signing); answers the endpoint and
/// its new clear secret.
pub async fn rotate_secret(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
) -> Result<(WebhookRow, String), ApiError> {
    let secret = crate::webhooks::new_secret();
    let stored = crate::webhooks::seal_secret(app.cfdi.master()?, &WebhookId::from(id), &secret)
        .map_err(|e| ApiError::internal("seal", e))?;
    let mut tx = app.db.begin().await?;
    if store::cambiar_secreto(&mut tx, empresa_id, id, &stored, app.clock.now()).await? == 0 {
        return Err(ApiError::not_found("webhook"));
    }
    let row = scoped::get_in::<Endpoints>(&mut tx, empresa_id, id).await?;
    tx.commit().await?;
    Ok((row, secret))
}

/// Delivery `id` of the company's endpoints, or NOT_FOUND.
pub async fn delivery(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<DeliveryRow, ApiError> {
    let mut conn = app.db.conn().await?;
    store::entrega(&mut conn, empresa_id, &DeliveryId::from(id)).await?.ok_or_else(|| ApiError::not_found("delivery"))
}

/// One page of endpoint `id`'s deliveries, newest first, and how many it has.
pub async fn deliveries(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    paging: &Paging,
) -> Result<(Vec<DeliveryRow>, i64), ApiError> {
    scoped::get::<Endpoints>(app, empresa_id, id).await?;
    let mut conn = app.db.conn().await?;
    Ok(store::entregas(&mut conn, empresa_id, &WebhookId::from(id), paging).await?)
}

/// Queues a `webhook.ping` event for endpoint `id` only (even when paused); answers its
/// delivery.
pub async fn ping(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<DeliveryRow, ApiError> {
    let webhook = scoped::get::<Endpoints>(app, empresa_id, id).await?;
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let ping = Ping { webhook_id: webhook.id.clone(), message: "test event from timbra".into() };
    let event_id = events::record(&mut tx, now, empresa_id, &Event::WebhookPing(ping)).await?;
    let delivery_id =
        events::deliver(&mut tx, now, empresa_id, &WebhookId::from(&webhook.id), &EventId::from(&event_id)).await?;
    tx.commit().await?;
    delivery(app, empresa_id, &delivery_id).await
}

/// Sends delivery `id`'s event again to its endpoint as a new delivery (fresh attempts);
/// NOT_FOUND when the delivery or its endpoint is gone.
pub async fn redeliver(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<DeliveryRow, ApiError> {
    let original = delivery(app, empresa_id, id).await?;
    scoped::get::<Endpoints>(app, empresa_id, &original.webhook_id).await?;
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let delivery_id = events::deliver(
        &mut tx,
        now,
        empresa_id,
        &WebhookId::from(&original.webhook_id),
        &EventId::from(&original.event_id),
    )
    .await?;
    tx.commit().await?;
    delivery(app, empresa_id, &delivery_id).await
}
