//! API keys: create (by session, by an existing key, or by email and password), list, revoke.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::UserId;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Path, Query, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::auth::check_credentials;
use timbra_services::auth::api_keys;
use timbra_services::auth::caller::{Caller, Credential};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::users::KeyRow;

/// Body of key creation.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct CreateKeyBody {
    /// Descriptive name (required).
    name: Option<String>,
    /// Days until the key expires; omitted = never.
    expires_in_days: Option<i64>,
    /// Only when authenticating by credentials (first key, no session).
    email: Option<String>,
    /// Only when authenticating by credentials.
    password: Option<String>,
    /// Narrow the key to these companies (ids). Omitted = every company of the user.
    empresa_ids: Option<Vec<String>>,
    /// Narrow the key to these actions (`cfdi:descargar`, `cliente:*`, `*`). Omitted = all.
    scopes: Option<Vec<String>>,
    /// On rotation with an existing key: also revoke the key used to call.
    #[serde(default)]
    revoke_current: bool,
}

/// A created key: the only time `key` is shown.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedKey {
    id: String,
    name: String,
    /// The full secret. Store it now: it is never shown again.
    key: String,
    key_prefix: String,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    expires_at: Option<OffsetDateTime>,
    empresa_ids: Option<Vec<String>>,
    scopes: Option<Vec<String>>,
}

impl From<api_keys::CreatedKey> for CreatedKey {
    fn from(key: api_keys::CreatedKey) -> Self {
        Self {
            id: key.id,
            name: key.name,
            key: key.key,
            key_prefix: key.key_prefix,
            expires_at: key.expires_at,
            empresa_ids: key.empresa_ids,
            scopes: key.scopes,
        }
    }
}

/// A key in a listing: never the secret.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyListItem {
    id: String,
    name: String,
    key_prefix: String,
    active: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    last_used_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<KeyRow> for KeyListItem {
    fn from(row: KeyRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            key_prefix: row.key_prefix,
            active: row.active,
            last_used_at: row.last_used_at,
            expires_at: row.expires_at,
            created_at: row.created_at,
        }
    }
}

/// Revocation answer.
#[derive(Serialize, ToSchema)]
pub struct Revoked {
    /// Always true.
    revoked: bool,
}

/// Creates a key for the caller. Authenticates with a session, an existing API key (rotation:
/// the new key can be no wider than the one used) or `email` + `password` in the body.
#[utoipa::path(post, path = "/api-keys", tag = "api-keys", request_body = CreateKeyBody,
    responses(
        (status = 201, description = "Key created; `key` is shown only here", body = Envelope<CreatedKey>),
        (status = 400, description = "APIKEY_001 invalid data", body = ErrorBody),
        (status = 401, description = "AUTH_001 / AUTH_004", body = ErrorBody),
        (status = 403, description = "APIKEY_002 wider than the calling key (companies or scopes; a later expiry is cut to the calling key's); SCOPE_001 company not yours", body = ErrorBody),
    ))]
pub async fn create(
    State(app): State<AppContext>,
    caller: Option<Auth>,
    Json(body): Json<CreateKeyBody>,
) -> HttpResult<impl IntoResponse> {
    let (user_id, via_key) = match &caller {
        Some(Auth(caller)) => (caller.user_id.clone(), caller.credential.clone()),
        None => {
            if body.email.is_none() && body.password.is_none() {
                return Err(ApiError::new(
                    Code::Auth001,
                    "log in, send an existing API key, or include email and password in the body",
                )
                .into());
            }
            let user = check_credentials(&app, body.email.as_deref(), body.password.as_deref()).await?;
            (UserId::from(user.id), Credential::Session { session_id: String::new() })
        }
    };
    let request = api_keys::KeyRequest {
        name: body.name,
        expires_in_days: body.expires_in_days,
        empresa_ids: body.empresa_ids,
        scopes: body.scopes,
        revoke_current: body.revoke_current,
    };
    let created_key = api_keys::create(&app, &user_id, &via_key, request).await?;
    Ok(created(CreatedKey::from(created_key)))
}

/// Lists the caller's keys (session only). Shows `keyPrefix`, never the key.
#[utoipa::path(get, path = "/api-keys", tag = "api-keys",
    responses(
        (status = 200, description = "The caller's keys", body = Envelope<Vec<KeyListItem>>),
        (status = 401, description = "AUTH_001 (an API key is not enough: log in)", body = ErrorBody),
    ))]
pub async fn list(State(app): State<AppContext>, Auth(caller): Auth) -> HttpResult<impl IntoResponse> {
    let keys: Vec<KeyListItem> = api_keys::list(&app, &caller).await?.into_iter().map(KeyListItem::from).collect();
    Ok(ok(keys))
}

/// Where a revocation may carry the id.
#[derive(Deserialize, IntoParams, ToSchema, Default)]
pub struct RevokeParams {
    /// The key to revoke.
    id: Option<String>,
}

/// Revokes a key by `id` in the path.
#[utoipa::path(delete, path = "/api-keys/{id}", tag = "api-keys", params(("id" = String, Path, description = "key id")),
    responses(
        (status = 200, description = "Revoked", body = Envelope<Revoked>),
        (status = 401, description = "AUTH_001 (session needed)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn revoke_by_path(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    revoke_id(&app, &caller, Some(id)).await
}

/// Revokes a key by `id` in the query string or the JSON body.
#[utoipa::path(delete, path = "/api-keys", tag = "api-keys", params(RevokeParams), request_body(content = Option<RevokeParams>),
    responses(
        (status = 200, description = "Revoked", body = Envelope<Revoked>),
        (status = 400, description = "APIKEY_001 id missing", body = ErrorBody),
        (status = 401, description = "AUTH_001 (session needed)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn revoke(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Query(query): Query<RevokeParams>,
    body: axum::body::Bytes,
) -> HttpResult<impl IntoResponse> {
    let mut id = query.id;
    if id.is_none() && !body.is_empty() {
        let parsed: RevokeParams = serde_json::from_slice(&body)
            .map_err(|e| ApiError::new(Code::Request001, format!("the body is not valid JSON: {e}")))?;
        id = parsed.id;
    }
    revoke_id(&app, &caller, id).await
}

async fn revoke_id(app: &AppContext, caller: &Caller, id: Option<String>) -> HttpResult<impl IntoResponse + use<>> {
    api_keys::revoke(app, caller, id).await?;
    Ok(ok(Revoked { revoked: true }))
}
