//! API keys: create (by session, by an existing key, or by email and password), list, revoke.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Path, Query, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::auth::check_credentials;
use timbra_services::auth::caller::{Caller, Credential};
use timbra_services::auth::roles::{MCP_LIVE, Permission};
use timbra_services::auth::secrets::{KEY_PREFIX_SHOWN, new_api_key, sha256_hex};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_store::ids;
use timbra_store::users::{self, KeyRow};

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
    /// Narrow the key to these actions (`cfdi:descargar`, `cliente:*`, `*`). Omitted = all the
    /// user's roles allow, except `mcp:live` (stamping and cancelling in a live company through
    /// the MCP endpoint), which a key carries only when it is listed here by name.
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
    #[serde(skip)]
    revoked_at: Option<OffsetDateTime>,
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
            revoked_at: row.revoked_at,
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
            (user.id, Credential::Session { session_id: String::new() })
        }
    };
    let mut problems = Vec::new();
    let name = body.name.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        problems.push(FieldProblem::new("name", "a descriptive name of 1 to 100 characters is required"));
    }
    if let Some(days) = body.expires_in_days
        && !(1..=3650).contains(&days)
    {
        problems.push(FieldProblem::new(
            "expiresInDays",
            "expiresInDays must be between 1 and 3650; omit it for no expiry",
        ));
    }
    if let Some(scopes) = &body.scopes {
        for (index, scope) in scopes.iter().enumerate() {
            if !Permission::is_known_scope(scope) {
                problems.push(FieldProblem::new(format!("scopes[{index}]"), format!("unknown scope {scope:?}")));
            }
        }
        if scopes.is_empty() {
            problems.push(FieldProblem::new("scopes", "omit scopes for a full key, or list at least one"));
        }
    }
    if body.empresa_ids.as_ref().is_some_and(Vec::is_empty) {
        problems.push(FieldProblem::new("empresaIds", "omit empresaIds for every company, or list at least one"));
    }
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::ApiKey001, problems).into());
    }
    // A key only creates keys inside its own bounds: companies and scopes (wider ones are
    // refused) and expiry (a later one is cut to the parent's). Bounds the new key does not
    // name are inherited.
    let now = app.clock.now();
    let mut expires_at = body.expires_in_days.map(|days| now + time::Duration::days(days));
    let (mut empresa_ids, mut scopes) = (body.empresa_ids, body.scopes);
    if let Credential::ApiKey {
        empresa_ids: parent_empresas, scopes: parent_scopes, expires_at: parent_expiry, ..
    } = &via_key
    {
        if let Some(parent) = parent_empresas {
            match &empresa_ids {
                None => empresa_ids = Some(parent.clone()),
                Some(wanted) if wanted.iter().all(|id| parent.contains(id)) => {}
                Some(_) => return Err(crate::error::HttpError(wider("empresaIds"))),
            }
        }
        if let Some(parent) = parent_scopes {
            match &scopes {
                None => scopes = Some(parent.clone()),
                Some(wanted) if wanted.iter().all(|scope| scope_within(scope, parent)) => {}
                Some(_) => return Err(crate::error::HttpError(wider("scopes"))),
            }
        }
        // `mcp:live` is never implied: a key gives it to a child only when it names it itself
        // (a parent without scopes, or with `*`, lacks it).
        let names_mcp_live = parent_scopes.as_ref().is_some_and(|parent| parent.iter().any(|s| s == MCP_LIVE));
        if !names_mcp_live && scopes.as_ref().is_some_and(|wanted| wanted.iter().any(|s| s == MCP_LIVE)) {
            return Err(crate::error::HttpError(wider("scopes")));
        }
        if let Some(parent) = *parent_expiry {
            expires_at = Some(expires_at.map_or(parent, |wanted| wanted.min(parent)));
        }
    }
    let mut conn = app.db.conn().await?;
    if let Some(wanted) = &empresa_ids {
        for id in wanted {
            if !users::es_miembro(&mut conn, &user_id, id).await? {
                return Err(ApiError::new(Code::Scope001, format!("you have no access to company {id}")).into());
            }
        }
    }
    let key = new_api_key();
    let id = ids::new_id();
    let key_prefix: String = key.chars().take(KEY_PREFIX_SHOWN).collect();
    let empresa_json =
        empresa_ids.as_ref().map(serde_json::to_string).transpose().map_err(|e| ApiError::internal("json", e))?;
    let scopes_json =
        scopes.as_ref().map(serde_json::to_string).transpose().map_err(|e| ApiError::internal("json", e))?;
    let key_hash = sha256_hex(&key);
    let nueva = users::NuevaKey {
        id: &id,
        user_id: &user_id,
        name: &name,
        key_hash: &key_hash,
        key_prefix: &key_prefix,
        empresa_ids: empresa_json.as_deref(),
        scopes: scopes_json.as_deref(),
        expires_at,
    };
    users::crear_key(&mut conn, &nueva, now).await?;
    if body.revoke_current
        && let Credential::ApiKey { key_id, .. } = &via_key
    {
        users::revocar_key(&mut conn, key_id, None, now).await?;
        timbra_services::auth::cache::changed(&app.db, &app.auth_cache).await;
    }
    Ok(created(CreatedKey { id, name, key, key_prefix, expires_at, empresa_ids, scopes }))
}

fn scope_within(scope: &str, parent: &[String]) -> bool {
    if scope == MCP_LIVE {
        return parent.iter().any(|p| p == MCP_LIVE);
    }
    // A wanted scope is inside the parent's when every action it grants is granted by the parent.
    Permission::ALL
        .iter()
        .filter(|permission| permission.granted_by(scope))
        .all(|permission| parent.iter().any(|p| permission.granted_by(p)))
}

fn wider(field: &str) -> ApiError {
    ApiError::new(Code::ApiKey002, format!("the new key's {field} must stay within those of the key used to create it"))
        .with_details(serde_json::json!({ "field": field }))
}

fn require_session(caller: &Caller) -> HttpResult<()> {
    if caller.is_session() {
        Ok(())
    } else {
        Err(ApiError::new(
            Code::Auth001,
            "listing and revoking keys needs a session: log in at /api/auth/callback/credentials",
        )
        .into())
    }
}

/// Lists the caller's keys (session only). Shows `keyPrefix`, never the key.
#[utoipa::path(get, path = "/api-keys", tag = "api-keys",
    responses(
        (status = 200, description = "The caller's keys", body = Envelope<Vec<KeyListItem>>),
        (status = 401, description = "AUTH_001 (an API key is not enough: log in)", body = ErrorBody),
    ))]
pub async fn list(State(app): State<AppContext>, Auth(caller): Auth) -> HttpResult<impl IntoResponse> {
    require_session(&caller)?;
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let mut keys: Vec<KeyListItem> =
        users::keys(&mut conn, &caller.user_id).await?.into_iter().map(KeyListItem::from).collect();
    for key in &mut keys {
        key.active = key.revoked_at.is_none() && key.expires_at.is_none_or(|at| at > now);
    }
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
    require_session(caller)?;
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return Err(ApiError::fields(
            Code::ApiKey001,
            vec![FieldProblem::new("id", "the id of the key to revoke is required")],
        )
        .into());
    };
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let changed = users::revocar_key(&mut conn, &id, Some(&caller.user_id), now).await?;
    timbra_services::auth::cache::changed(&app.db, &app.auth_cache).await;
    if changed == 0 {
        return Err(ApiError::not_found("API key").into());
    }
    Ok(ok(Revoked { revoked: true }))
}
