//! API keys: creation within the bounds of the credential that asks (a key creates keys no
//! wider than itself), the person's list, revocation. `POST/GET/DELETE /api/api-keys` and the
//! dashboard's keys page call these.

use timbra_store::ids::{EmpresaId, UserId};
use time::OffsetDateTime;

use crate::auth::caller::{Caller, Credential};
use crate::auth::roles::{MCP_LIVE, Permission};
use crate::auth::secrets::{KEY_PREFIX_SHOWN, new_api_key, sha256_hex};
use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use timbra_store::ids;
use timbra_store::users::{self, KeyRow};

/// What a new key asks for.
#[derive(Clone, Debug, Default)]
pub struct KeyRequest {
    /// Descriptive name (required, 1 to 100 characters).
    pub name: Option<String>,
    /// Days until the key expires (1 to 3650); `None` = never.
    pub expires_in_days: Option<i64>,
    /// Companies it is narrowed to; `None` = every company of the person.
    pub empresa_ids: Option<Vec<String>>,
    /// Scopes it is narrowed to; `None` = all.
    pub scopes: Option<Vec<String>>,
    /// On rotation with an existing key: also revoke the key used to call.
    pub revoke_current: bool,
}

/// A created key: the only time the full `key` exists outside its hash.
#[derive(Clone, Debug)]
pub struct CreatedKey {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// The full secret.
    pub key: String,
    /// The prefix listings show.
    pub key_prefix: String,
    /// Expiry (cut to the calling key's).
    pub expires_at: Option<OffsetDateTime>,
    /// Companies it is narrowed to.
    pub empresa_ids: Option<Vec<String>>,
    /// Scopes it is narrowed to.
    pub scopes: Option<Vec<String>>,
}

/// Creates a key for `user_id`, asked through credential `via`: APIKEY_001 with every field
/// problem; through an API key, companies and scopes wider than the key's are APIKEY_002 and a
/// later expiry is cut to the key's (bounds not named are inherited); a company the person is
/// not a member of is SCOPE_001.
pub async fn create(
    app: &AppContext,
    user_id: &UserId,
    via: &Credential,
    request: KeyRequest,
) -> Result<CreatedKey, ApiError> {
    let mut problems = Vec::new();
    let name = request.name.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        problems.push(FieldProblem::new("name", "a descriptive name of 1 to 100 characters is required"));
    }
    if let Some(days) = request.expires_in_days
        && !(1..=3650).contains(&days)
    {
        problems.push(FieldProblem::new(
            "expiresInDays",
            "expiresInDays must be between 1 and 3650; omit it for no expiry",
        ));
    }
    if let Some(scopes) = &request.scopes {
        for (index, scope) in scopes.iter().enumerate() {
            if !Permission::is_known_scope(scope) {
                problems.push(FieldProblem::new(format!("scopes[{index}]"), format!("unknown scope {scope:?}")));
            }
        }
        if scopes.is_empty() {
            problems.push(FieldProblem::new("scopes", "omit scopes for a full key, or list at least one"));
        }
    }
    if request.empresa_ids.as_ref().is_some_and(Vec::is_empty) {
        problems.push(FieldProblem::new("empresaIds", "omit empresaIds for every company, or list at least one"));
    }
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::ApiKey001, problems));
    }
    // A key only creates keys inside its own bounds: companies and scopes (wider ones are
    // refused) and expiry (a later one is cut to the parent's). Bounds the new key does not
    // name are inherited.
    let now = app.clock.now();
    let mut expires_at = request.expires_in_days.map(|days| now + time::Duration::days(days));
    let (mut empresa_ids, mut scopes) = (request.empresa_ids, request.scopes);
    if let Credential::ApiKey {
        empresa_ids: parent_empresas, scopes: parent_scopes, expires_at: parent_expiry, ..
    } = via
    {
        if let Some(parent) = parent_empresas {
            match &empresa_ids {
                None => empresa_ids = Some(parent.clone()),
                Some(wanted) if wanted.iter().all(|id| parent.contains(id)) => {}
                Some(_) => return Err(wider("empresaIds")),
            }
        }
        if let Some(parent) = parent_scopes {
            match &scopes {
                // A key created without scopes takes its parent's, but never `mcp:live`: that
                // scope is given only by naming it (issue 36).
                None => scopes = Some(parent.iter().filter(|scope| *scope != MCP_LIVE).cloned().collect()),
                Some(wanted) if wanted.iter().all(|scope| scope_within(scope, parent)) => {}
                Some(_) => return Err(wider("scopes")),
            }
        }
        // `mcp:live` is never implied: a key gives it to a child only when it names it itself
        // (a parent without scopes, or with `*`, lacks it).
        let names_mcp_live = parent_scopes.as_ref().is_some_and(|parent| parent.iter().any(|s| s == MCP_LIVE));
        if !names_mcp_live && scopes.as_ref().is_some_and(|wanted| wanted.iter().any(|s| s == MCP_LIVE)) {
            return Err(wider("scopes"));
        }
        if let Some(parent) = *parent_expiry {
            expires_at = Some(expires_at.map_or(parent, |wanted| wanted.min(parent)));
        }
    }
    let mut conn = app.db.conn().await?;
    if let Some(wanted) = &empresa_ids {
        for id in wanted {
            if !users::es_miembro(&mut conn, user_id, &EmpresaId::from(id)).await? {
                return Err(ApiError::new(Code::Scope001, format!("you have no access to company {id}")));
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
        user_id,
        name: &name,
        key_hash: &key_hash,
        key_prefix: &key_prefix,
        empresa_ids: empresa_json.as_deref(),
        scopes: scopes_json.as_deref(),
        expires_at,
    };
    users::crear_key(&mut conn, &nueva, now).await?;
    if request.revoke_current
        && let Credential::ApiKey { key_id, .. } = via
    {
        users::revocar_key(&mut conn, key_id, None, now).await?;
        crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    }
    Ok(CreatedKey { id, name, key, key_prefix, expires_at, empresa_ids, scopes })
}

fn scope_within(scope: &str, parent: &[String]) -> bool {
    // `mcp:live` grants no action of the table, so it is "within" any parent here; whether the
    // parent names it is checked apart (it is never implied). A wanted scope is inside the parent's when every action it grants is granted by the parent.
    Permission::ALL
        .iter()
        .filter(|permission| permission.granted_by(scope))
        .all(|permission| parent.iter().any(|p| permission.granted_by(p)))
}

fn wider(field: &str) -> ApiError {
    ApiError::new(Code::ApiKey002, format!("the new key's {field} must stay within those of the key used to create it"))
        .with_details(serde_json::json!({ "field": field }))
}

/// Listing and revoking keys needs a session (AUTH_001 for an API key).
fn require_session(caller: &Caller) -> Result<(), ApiError> {
    if caller.is_session() {
        Ok(())
    } else {
        Err(ApiError::new(
            Code::Auth001,
            "listing and revoking keys needs a session: log in at /api/auth/callback/credentials",
        ))
    }
}

/// The caller's keys (session only), `active` meaning neither revoked nor expired now.
pub async fn list(app: &AppContext, caller: &Caller) -> Result<Vec<KeyRow>, ApiError> {
    require_session(caller)?;
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let mut keys = users::keys(&mut conn, &caller.user_id).await?;
    for key in &mut keys {
        key.active = key.revoked_at.is_none() && key.expires_at.is_none_or(|at| at > now);
    }
    Ok(keys)
}

/// Revokes the caller's key `id` (session only): APIKEY_001 without an id, NOT_FOUND when it
/// is not one of the caller's keys.
pub async fn revoke(app: &AppContext, caller: &Caller, id: Option<String>) -> Result<(), ApiError> {
    require_session(caller)?;
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return Err(ApiError::fields(
            Code::ApiKey001,
            vec![FieldProblem::new("id", "the id of the key to revoke is required")],
        ));
    };
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let changed = users::revocar_key(&mut conn, &id, Some(&caller.user_id), now).await?;
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    if changed == 0 {
        return Err(ApiError::not_found("API key"));
    }
    Ok(())
}
