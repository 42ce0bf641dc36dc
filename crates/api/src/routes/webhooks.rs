//! Webhook endpoints of a company (ADMINISTRADOR or higher, scope `webhook:manage`): create
//! (the secret is shown once), list, get, update, delete, rotate the secret, send a test ping,
//! read the delivery log and redeliver.

use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::scoped::{self, Routed};
use timbra_services::auth::roles::Permission;
use timbra_services::webhooks::endpoints::{self, Endpoints, Fields};
use timbra_store::webhooks::{DeliveryRow, WebhookRow};

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
        let events = endpoints::events(&row);
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

// Every operation on endpoints is ADMINISTRADOR's (`webhook:manage`).
impl Routed for Endpoints {
    type Out = WebhookOut;
    const VIEW: Permission = Permission::WebhookManage;
    const CREATE: Permission = Permission::WebhookManage;
    const EDIT: Permission = Permission::WebhookManage;
    const DELETE: Permission = Permission::WebhookManage;
}

impl From<WebhookBody> for Fields {
    fn from(body: WebhookBody) -> Self {
        Self { url: body.url, events: body.events, description: body.description, active: body.active }
    }
}

/// Registers an endpoint; the answer carries the secret, shown only this once.
#[utoipa::path(post, path = "/webhooks", tag = "webhooks", request_body = WebhookBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Created; `secret` is shown only now", body = Envelope<WebhookWithSecret>),
        (status = 400, description = "WEBHOOK_001 with `details.fields` (also a private or loopback url); EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003 (ADMINISTRADOR or higher) / SCOPE_002", body = ErrorBody),
    ))]
pub async fn create(scope: EmpresaScope, Json(body): Json<WebhookBody>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Endpoints::CREATE).await?;
    let (row, secret) = endpoints::create(&scope.app, &scope.empresa_id, body.into()).await?;
    Ok(created(WebhookWithSecret { webhook: row.into(), secret }))
}

/// Lists the company's endpoints, newest first.
#[utoipa::path(get, path = "/webhooks", tag = "webhooks", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<WebhookOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn list(scope: EmpresaScope, Query(params): Query<ListParams>) -> HttpResult<impl IntoResponse> {
    // Endpoints are not searched.
    Ok(ok(scoped::page::<Endpoints>(&scope, params.page, params.page_size, None).await?))
}

/// One endpoint.
#[utoipa::path(get, path = "/webhooks/{id}", tag = "webhooks", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The endpoint", body = Envelope<WebhookOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::get::<Endpoints>(&scope, &id).await?))
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
    scope: EmpresaScope,
    Path(id): Path<String>,
    Json(body): Json<WebhookBody>,
) -> HttpResult<impl IntoResponse> {
    scope.authorize(Endpoints::EDIT).await?;
    Ok(ok(WebhookOut::from(endpoints::update(&scope.app, &scope.empresa_id, &id, body.into()).await?)))
}

/// Deletes an endpoint; its pending deliveries are not attempted again.
#[utoipa::path(delete, path = "/webhooks/{id}", tag = "webhooks", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Object>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::delete::<Endpoints>(&scope, &id).await?))
}

/// Replaces the secret at once (the old one stops signing); the new one is shown only now.
#[utoipa::path(post, path = "/webhooks/{id}/rotate-secret", tag = "webhooks",
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The endpoint with its new secret", body = Envelope<WebhookWithSecret>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn rotate_secret(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::WebhookManage).await?;
    let (row, secret) = endpoints::rotate_secret(&scope.app, &scope.empresa_id, &id).await?;
    Ok(ok(WebhookWithSecret { webhook: row.into(), secret }))
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
pub async fn test(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::WebhookManage).await?;
    Ok(created(DeliveryOut::from(endpoints::ping(&scope.app, &scope.empresa_id, &id).await?)))
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
    scope: EmpresaScope,
    Path(id): Path<String>,
    Query(params): Query<ListParams>,
) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::WebhookManage).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let (rows, total) = endpoints::deliveries(&scope.app, &scope.empresa_id, &id, &paging).await?;
    Ok(ok(Page::<DeliveryOut>::from_rows(rows, total, paging)))
}

/// Sends a delivery's event again to its endpoint as a new delivery (fresh attempts).
#[utoipa::path(post, path = "/webhooks/deliveries/{id}/redeliver", tag = "webhooks",
    params(("id" = String, Path, description = "delivery id"), ("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "The new delivery, queued", body = Envelope<DeliveryOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (delivery, or its endpoint was deleted)", body = ErrorBody),
    ))]
pub async fn redeliver(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::WebhookManage).await?;
    Ok(created(DeliveryOut::from(endpoints::redeliver(&scope.app, &scope.empresa_id, &id).await?)))
}
