//! Webhook endpoints of a company (ADMINISTRADOR or higher, scope `webhook:manage`): create
//! (the secret is shown once), list, get, update, delete, rotate the secret, send a test ping,
//! read the delivery log and redeliver.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_services::events::payloads::Ping;
use timbra_services::events::{self, Event, EventType};
use timbra_services::webhooks;
use timbra_store::ids;
use timbra_store::scoped;
use timbra_store::webhooks::{self as webhooks_db, DeliveryRow, WebhookRow, Webhooks};

/// Webhook body for create (`url` required) and update (all optional).
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct WebhookBody {
    /// Where events are POSTed: http(s), public address.
    url: Option<String>,
    /// Event types to receive (e.g. `factura.timbrada`); absent or `[]` = every type.
    events: Option<Vec<String>>,
    /// A note for people, at most 500 characters.
    description: Option<String>,
    /// `false` pauses deliveries (default true).
    active: Option<bool>,
}

/// A webhook endpoint (the secret is only shown by create and rotate-secret).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookOut {
    id: String,
    url: String,
    /// Subscribed types; `null` = every type.
    events: Option<Vec<String>>,
    description: Option<String>,
    active: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

/// A webhook with its secret, answered once.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookWithSecret {
    #[serde(flatten)]
    webhook: WebhookOut,
    /// The HMAC key of `X-Service-Signature`; store it now, it is not shown again.
    secret: String,
}

impl From<WebhookRow> for WebhookOut {
    fn from(row: WebhookRow) -> Self {
        let events = row.events.and_then(|json| serde_json::from_str(&json).ok());
        Self {
            id: row.id,
            url: row.url,
            events,
            description: row.description,
            active: row.active,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// One delivery attempt series of an event to an endpoint.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryOut {
    id: String,
    webhook_id: String,
    event_id: String,
    event_type: String,
    /// `pending` (waiting for its first or next attempt), `succeeded` or `failed` (no retries left).
    status: String,
    /// Attempts made so far.
    attempts: i64,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    next_retry_at: Option<OffsetDateTime>,
    /// HTTP status of the last answer, if one came.
    last_status_code: Option<i64>,
    /// Milliseconds the last attempt took.
    last_latency_ms: Option<i64>,
    /// Why the last attempt failed.
    last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<DeliveryRow> for DeliveryOut {
    fn from(row: DeliveryRow) -> Self {
        Self {
            id: row.id,
            webhook_id: row.webhook_id,
            event_id: row.event_id,
            event_type: row.event_type,
            status: row.status,
            attempts: row.attempts,
            next_retry_at: row.next_retry_at,
            last_status_code: row.last_status_code,
            last_latency_ms: row.last_latency_ms,
            last_error: row.last_error,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// Listing parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct ListParams {
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
}

struct Valid {
    url: Option<String>,
    events: Option<Option<String>>,
    description: Option<Option<String>>,
}

/// Checks the fields present; `create` requires `url`.
async fn check(app: &AppContext, body: &WebhookBody, create: bool) -> HttpResult<Valid> {
    let mut problems = Vec::new();
    let url = match body.url.as_deref() {
        Some(raw) => match webhooks::check_url(raw, app.config.webhooks.allow_private).await {
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
    let events = body.events.as_ref().map(|names| {
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
    let description = body.description.as_ref().map(|text| {
        let text = text.trim();
        if text.chars().count() > 500 {
            problems.push(FieldProblem::new("description", "description is at most 500 characters"));
        }
        (!text.is_empty()).then(|| text.to_owned())
    });
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Webhook001, problems).into());
    }
    Ok(Valid { url, events, description })
}

async fn load(app: &AppContext, empresa_id: &str, id: &str) -> HttpResult<WebhookOut> {
    let mut conn = app.db.conn().await?;
    let row = scoped::get::<Webhooks>(&mut conn, empresa_id, id).await?;
    Ok(row.map(WebhookOut::from).ok_or_else(|| ApiError::not_found("webhook"))?)
}

async fn load_delivery(app: &AppContext, empresa_id: &str, id: &str) -> HttpResult<DeliveryOut> {
    let mut conn = app.db.conn().await?;
    let row = webhooks_db::entrega(&mut conn, empresa_id, id).await?;
    Ok(row.map(DeliveryOut::from).ok_or_else(|| ApiError::not_found("delivery"))?)
}

/// Registers an endpoint; the answer carries the secret, shown only this once.
#[utoipa::path(post, path = "/webhooks", tag = "webhooks", request_body = WebhookBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Created; `secret` is shown only now", body = Envelope<WebhookWithSecret>),
        (status = 400, description = "WEBHOOK_001 with `details.fields` (also a private or loopback url); EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003 (ADMINISTRADOR or higher) / SCOPE_002", body = ErrorBody),
    ))]
pub async fn create(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<WebhookBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let valid = check(&app, &body, true).await?;
    let id = ids::new_id();
    let secret = webhooks::new_secret();
    let stored = webhooks::seal_secret(app.cfdi.master()?, &id, &secret).map_err(|e| ApiError::internal("seal", e))?;
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let nuevo = webhooks_db::NuevoWebhook {
        id: &id,
        empresa_id: &empresa_id,
        url: valid.url.as_deref().unwrap_or_default(),
        events: valid.events.as_ref().and_then(Option::as_deref),
        description: valid.description.as_ref().and_then(Option::as_deref),
        secret: &stored,
        active: body.active.unwrap_or(true),
    };
    webhooks_db::crear(&mut conn, &nuevo, now).await?;
    drop(conn);
    let webhook = load(&app, &empresa_id, &id).await?;
    Ok(created(WebhookWithSecret { webhook, secret }))
}

/// Lists the company's endpoints, newest first.
#[utoipa::path(get, path = "/webhooks", tag = "webhooks", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<WebhookOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let mut conn = app.db.conn().await?;
    // Endpoints are not searched: the pattern that matches everything.
    let (rows, total) = scoped::page::<Webhooks>(&mut conn, &empresa_id, "%%", &paging).await?;
    Ok(ok(Page::new(rows.into_iter().map(WebhookOut::from).collect(), total, paging)))
}

/// One endpoint.
#[utoipa::path(get, path = "/webhooks/{id}", tag = "webhooks", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The endpoint", body = Envelope<WebhookOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    Ok(ok(load(&app, &empresa_id, &id).await?))
}

/// Changes url, events, description or active; fields left out keep their value.
#[utoipa::path(patch, path = "/webhooks/{id}", tag = "webhooks", request_body = WebhookBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The updated endpoint", body = Envelope<WebhookOut>),
        (status = 400, description = "WEBHOOK_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn update(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    Json(body): Json<WebhookBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let current = load(&app, &empresa_id, &id).await?;
    let valid = check(&app, &body, false).await?;
    let events = match valid.events {
        Some(events) => events,
        None => current.events.map(|names| serde_json::Value::from(names).to_string()),
    };
    let description = valid.description.unwrap_or(current.description);
    let mut conn = app.db.conn().await?;
    let url = valid.url.unwrap_or(current.url);
    let active = body.active.unwrap_or(current.active);
    webhooks_db::actualizar(
        &mut conn,
        &empresa_id,
        &id,
        &url,
        events.as_deref(),
        description.as_deref(),
        active,
        app.clock.now(),
    )
    .await?;
    drop(conn);
    Ok(ok(load(&app, &empresa_id, &id).await?))
}

/// Deletes an endpoint; its pending deliveries are not attempted again.
#[utoipa::path(delete, path = "/webhooks/{id}", tag = "webhooks", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Object>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let mut conn = app.db.conn().await?;
    if !scoped::delete::<Webhooks>(&mut conn, &empresa_id, &id, app.clock.now()).await? {
        return Err(ApiError::not_found("webhook").into());
    }
    Ok(ok(serde_json::json!({ "deleted": true, "id": id })))
}

/// Replaces the secret at once (the old one stops signing); the new one is shown only now.
#[utoipa::path(post, path = "/webhooks/{id}/rotate-secret", tag = "webhooks",
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The endpoint with its new secret", body = Envelope<WebhookWithSecret>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn rotate_secret(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let secret = webhooks::new_secret();
    let stored = webhooks::seal_secret(app.cfdi.master()?, &id, &secret).map_err(|e| ApiError::internal("seal", e))?;
    let mut conn = app.db.conn().await?;
    let changed = webhooks_db::cambiar_secreto(&mut conn, &empresa_id, &id, &stored, app.clock.now()).await?;
    if changed == 0 {
        return Err(ApiError::not_found("webhook").into());
    }
    drop(conn);
    let webhook = load(&app, &empresa_id, &id).await?;
    Ok(ok(WebhookWithSecret { webhook, secret }))
}

/// Sends a `webhook.ping` event to this endpoint only (even when paused); see its delivery in
/// the log.
#[utoipa::path(post, path = "/webhooks/{id}/test", tag = "webhooks",
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "The ping's delivery, queued", body = Envelope<DeliveryOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn test(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let webhook = load(&app, &empresa_id, &id).await?;
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let ping = Ping { webhook_id: webhook.id.clone(), message: "test event from timbra".into() };
    let event_id = events::record(&mut tx, now, &empresa_id, &Event::WebhookPing(ping)).await?;
    let delivery_id = events::deliver(&mut tx, now, &empresa_id, &webhook.id, &event_id).await?;
    tx.commit().await?;
    Ok(created(load_delivery(&app, &empresa_id, &delivery_id).await?))
}

/// The delivery log of an endpoint, newest first: status, response code, latency, attempts and
/// the next retry.
#[utoipa::path(get, path = "/webhooks/{id}/deliveries", tag = "webhooks",
    params(("id" = String, Path), ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page of deliveries", body = Envelope<Page<DeliveryOut>>),
        (status = 400, description = "REQUEST_001 bad paging", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn deliveries(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    Query(params): Query<ListParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    load(&app, &empresa_id, &id).await?;
    let mut conn = app.db.conn().await?;
    let (items, total) = webhooks_db::entregas(&mut conn, &empresa_id, &id, &paging).await?;
    Ok(ok(Page::new(items.into_iter().map(DeliveryOut::from).collect(), total, paging)))
}

/// Sends a delivery's event again to its endpoint as a new delivery (fresh attempts).
#[utoipa::path(post, path = "/webhooks/deliveries/{id}/redeliver", tag = "webhooks",
    params(("id" = String, Path, description = "delivery id"), ("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "The new delivery, queued", body = Envelope<DeliveryOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (delivery, or its endpoint was deleted)", body = ErrorBody),
    ))]
pub async fn redeliver(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let original = load_delivery(&app, &empresa_id, &id).await?;
    load(&app, &empresa_id, &original.webhook_id).await?;
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let delivery_id = events::deliver(&mut tx, now, &empresa_id, &original.webhook_id, &original.event_id).await?;
    tx.commit().await?;
    Ok(created(load_delivery(&app, &empresa_id, &delivery_id).await?))
}
