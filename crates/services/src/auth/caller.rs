//! Who is calling: an API key (`Authorization: Bearer`) or a session cookie, and what they may
//! do in a company.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use timbra_store::ids::{EmpresaId, UserId};

use http::{HeaderMap, header};
use time::OffsetDateTime;

use crate::auth::cache::KeyInfo;
use crate::auth::roles::{Permission, Role};
use crate::auth::secrets::sha256_hex;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};

/// Name of the session cookie set by login.
pub const SESSION_COOKIE: &str = "timbra_session";

/// How the caller authenticated.
#[derive(Clone, Debug)]
pub enum Credential {
    /// A dashboard session.
    Session {
        /// Stored id (digest of the cookie token).
        session_id: String,
    },
    /// An API key, possibly narrowed to companies and scopes.
    ApiKey {
        /// The key's id.
        key_id: String,
        /// Companies the key may act on; `None` = all of the user's.
        empresa_ids: Option<Vec<String>>,
        /// Actions the key may perform; `None` = all the user's roles allow.
        scopes: Option<Vec<String>>,
        /// When the key expires; `None` = never. Keys it creates expire no later.
        expires_at: Option<OffsetDateTime>,
    },
}

/// An authenticated caller.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The user acting.
    pub user_id: UserId,
    /// How they authenticated.
    pub credential: Credential,
    mode: ModeSlot,
}

/// The mode of the company a request acts on, filled in by [`Caller::authorize`] and written by
/// the response middleware as `X-Service-Mode`.
#[derive(Clone, Debug, Default)]
pub struct ModeSlot(Arc<Mutex<Option<bool>>>);

impl ModeSlot {
    /// Records the sandbox flag of the company acted on.
    pub fn set(&self, sandbox: bool) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(sandbox);
        }
    }

    /// `"sandbox"` or `"live"`; `sandbox` when no company was involved.
    pub fn header_value(&self) -> &'static str {
        match self.0.lock().map(|slot| *slot) {
            Ok(Some(false)) => "live",
            _ => "sandbox",
        }
    }
}

/// What [`Caller::authorize`] found out about the caller in a company.
#[derive(Clone, Debug)]
pub struct EmpresaAccess {
    /// The company.
    pub empresa_id: EmpresaId,
    /// The caller's role there.
    pub role: Role,
    /// Whether the company is in sandbox mode.
    pub sandbox: bool,
}

impl EmpresaAccess {
    /// `"sandbox"` or `"live"`, for the body field `mode`.
    pub fn mode(&self) -> &'static str {
        if self.sandbox { "sandbox" } else { "live" }
    }
}

impl Caller {
    /// The caller of a request whose credential [`authenticate`] verified; `mode` is the
    /// request's slot for the company's mode.
    pub fn new(user_id: UserId, credential: Credential, mode: ModeSlot) -> Self {
        Self { user_id, credential, mode }
    }

    /// Whether the caller came with an API key (some operations need a session).
    pub fn is_session(&self) -> bool {
        matches!(self.credential, Credential::Session { .. })
    }

    /// Whether the caller's API key names `scope` itself among its scopes: for scopes that are
    /// never implied ([`MCP_LIVE`](crate::auth::roles::MCP_LIVE)), which neither `*` nor a key
    /// without scopes nor a session carries.
    pub fn names_scope(&self, scope: &str) -> bool {
        matches!(&self.credential, Credential::ApiKey { scopes: Some(scopes), .. } if scopes.iter().any(|s| s == scope))
    }

    /// Records the company's mode for the `X-Service-Mode` header.
    pub fn note_mode(&self, sandbox: bool) {
        self.mode.set(sandbox);
    }

    /// Checks that the caller may perform `permission` in `empresa_id`: the key reaches the
    /// company (SCOPE_001), the user has a role there (SCOPE_001 otherwise, so ids of other
    /// tenants reveal nothing), the role is high enough (AUTH_003) and the key's scopes allow
    /// the action (SCOPE_002).
    pub async fn authorize(
        &self,
        app: &AppContext,
        empresa_id: &EmpresaId,
        permission: Permission,
    ) -> ApiResult<EmpresaAccess> {
        self.key_reaches(empresa_id)?;
        let access = match app.auth_cache.access(&self.user_id, empresa_id) {
            Some(access) => access,
            None => {
                let generation = app.auth_cache.generation();
                let mut conn = app.db.conn().await?;
                let access = timbra_store::memberships::access(&mut conn, empresa_id, &self.user_id).await?;
                app.auth_cache.remember_access(&self.user_id, empresa_id, generation, access.clone());
                access
            }
        };
        let Some(row) = access else { return Err(no_access(empresa_id)) };
        let role = Role::parse(&row.role).ok_or_else(|| ApiError::internal("membership role", &row.role))?;
        self.mode.set(row.sandbox);
        let required = permission.minimum_role();
        if role < required {
            return Err(ApiError::new(
                Code::Auth003,
                format!("{} needs role {} or higher; your role in this company is {}", permission.scope(), required.as_str(), role.as_str()),
            )
            .with_details(serde_json::json!({ "action": permission.scope(), "requiredRole": required.as_str(), "role": role.as_str() })));
        }
        self.key_allows(permission)?;
        Ok(EmpresaAccess { empresa_id: empresa_id.clone(), role, sandbox: row.sandbox })
    }

    /// SCOPE_001 when the caller's key is narrowed to companies other than `empresa_id`.
    fn key_reaches(&self, empresa_id: &EmpresaId) -> ApiResult<()> {
        match &self.credential {
            Credential::ApiKey { empresa_ids: Some(allowed), .. } if !allowed.iter().any(|id| id == empresa_id) => {
                Err(no_access(empresa_id))
            }
            _ => Ok(()),
        }
    }

    /// SCOPE_002 when the caller's key is narrowed to scopes that do not grant `permission`.
    fn key_allows(&self, permission: Permission) -> ApiResult<()> {
        match &self.credential {
            Credential::ApiKey { scopes: Some(scopes), .. }
                if !scopes.iter().any(|scope| permission.granted_by(scope)) =>
            {
                Err(ApiError::new(
                    Code::Scope002,
                    format!("this API key's scopes do not include {}", permission.scope()),
                )
                .with_details(serde_json::json!({ "action": permission.scope(), "scopes": scopes })))
            }
            _ => Ok(()),
        }
    }

    /// Checks that the caller is one of the installation's operators (`timbra operadores
    /// agregar`), who may act on any company for `permission` without being its member, and that
    /// the key reaches the company (SCOPE_001) and has the scope (SCOPE_002). Anyone else gets
    /// SCOPE_001 for a company they have no role in and AUTH_003 for one they have, PROPIETARIO
    /// included.
    pub async fn authorize_operador(
        &self,
        app: &AppContext,
        empresa_id: &EmpresaId,
        permission: Permission,
    ) -> ApiResult<()> {
        self.key_reaches(empresa_id)?;
        let operador = {
            let mut conn = app.db.conn().await?;
            timbra_store::operadores::es_operador(&mut conn, &self.user_id).await?
        };
        if !operador {
            // Like every company route: a company the caller has no role in is SCOPE_001 (it
            // does not reveal whether it exists); a member, the owner included, is AUTH_003.
            self.authorize(app, empresa_id, Permission::EmpresaView).await?;
            return Err(ApiError::new(
                Code::Auth003,
                format!(
                    "{} is the installation operator's act, not a company role: the operator runs `timbra timbres \
                     recargar` on the server, or gives an account the role with `timbra operadores agregar <email>`",
                    permission.scope()
                ),
            )
            .with_details(serde_json::json!({ "action": permission.scope(), "requiredRole": "OPERADOR" })));
        }
        self.key_allows(permission)
    }

    /// Whether the caller, whose standing in a company [`Caller::authorize`] already found
    /// (`access`), may also perform `permission` there: the role and the key's scopes, with no
    /// second lookup. For reads that leave out what the caller may not see, such as payroll
    /// receipts in the invoice listing.
    pub fn allows(&self, access: &EmpresaAccess, permission: Permission) -> bool {
        access.role >= permission.minimum_role() && self.key_allows(permission).is_ok()
    }
}

fn no_access(empresa_id: &EmpresaId) -> ApiError {
    ApiError::new(Code::Scope001, format!("you have no access to company {empresa_id}"))
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The value of the session cookie, if sent.
pub fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == SESSION_COOKIE).then_some(value)
        })
}

/// Whether the request carries a credential (a bearer key or the session cookie) to verify.
pub fn carries_credential(headers: &HeaderMap) -> bool {
    bearer(headers).is_some() || session_token(headers).is_some()
}

/// The outcome of verifying a request's credential, put in the request's extensions by the
/// rate-limit middleware (which must verify before it can pick the bucket) so the handler's
/// [`Caller`] does not verify again.
#[derive(Clone, Debug)]
pub struct Verified(pub Result<(UserId, Credential), ApiError>);

impl Credential {
    /// The id of the verified credential, naming its rate-limit bucket.
    pub fn bucket_id(&self) -> &str {
        match self {
            Credential::Session { session_id } => session_id,
            Credential::ApiKey { key_id, .. } => key_id,
        }
    }
}

/// Verifies the request's API key or session cookie: the user and how they authenticated.
pub async fn authenticate(app: &AppContext, headers: &HeaderMap) -> ApiResult<(UserId, Credential)> {
    let now = app.clock.now();
    if let Some(key) = bearer(headers) {
        let digest = sha256_hex(key);
        let key = match app.auth_cache.key(&digest) {
            Some(key) => key,
            None => {
                let generation = app.auth_cache.generation();
                let key = read_key(app, &digest).await?.ok_or_else(invalid_key)?;
                app.auth_cache.remember_key(&digest, generation, key.clone());
                key
            }
        };
        if key.revoked_at.is_some() || key.expires_at.is_some_and(|at| at <= now) {
            return Err(invalid_key());
        }
        if key.user_deleted_at.is_some() {
            return Err(ApiError::new(Code::Auth002, "the API key is valid but its user deleted the account"));
        }
        touch_key(app, &key.id, key.last_used_at, now).await;
        let KeyInfo { id, user_id, empresa_ids, scopes, expires_at, .. } = key;
        return Ok((user_id, Credential::ApiKey { key_id: id, empresa_ids, scopes, expires_at }));
    }
    if let Some(token) = session_token(headers) {
        let session_id = sha256_hex(token);
        let mut conn = app.db.conn().await?;
        let user_id = timbra_store::users::session_user(&mut conn, &session_id, now).await?;
        return match user_id {
            Some(user_id) => Ok((user_id, Credential::Session { session_id })),
            None => Err(ApiError::new(Code::Auth001, "the session expired or was closed; log in again")),
        };
    }
    Err(ApiError::new(Code::Auth001, "send an API key as 'Authorization: Bearer <key>' or log in for a session cookie"))
}

fn invalid_key() -> ApiError {
    ApiError::new(Code::Auth001, "the API key is invalid, expired or revoked")
}

/// The key with this digest, as stored.
async fn read_key(app: &AppContext, digest: &str) -> ApiResult<Option<KeyInfo>> {
    let mut conn = app.db.conn().await?;
    let row = timbra_store::users::key_by_hash(&mut conn, digest).await?;
    let Some(row) = row else { return Ok(None) };
    let list = |json: Option<String>, what: &str| {
        json.map(|json| serde_json::from_str::<Vec<String>>(&json)).transpose().map_err(|e| ApiError::internal(what, e))
    };
    Ok(Some(KeyInfo {
        empresa_ids: list(row.empresa_ids, "key empresa_ids")?,
        scopes: list(row.scopes, "key scopes")?,
        id: row.id,
        user_id: row.user_id,
        expires_at: row.expires_at,
        revoked_at: row.revoked_at,
        last_used_at: row.last_used_at,
        user_deleted_at: row.user_deleted_at,
    }))
}

/// Writes `last_used_at` at most once a minute per key: the in-memory map answers most requests
/// without a write; the conditional UPDATE keeps several processes from writing more often.
async fn touch_key(app: &AppContext, key_id: &str, stored: Option<OffsetDateTime>, now: OffsetDateTime) {
    const EVERY: Duration = Duration::from_secs(60);
    if stored.is_some_and(|at| now - at < EVERY) {
        return;
    }
    {
        let Ok(mut recent) = app.key_touches.lock() else { return };
        let instant = Instant::now();
        if recent.get(key_id).is_some_and(|at| instant.duration_since(*at) < EVERY) {
            return;
        }
        if recent.len() > 100_000 {
            recent.retain(|_, at| instant.duration_since(*at) < EVERY);
        }
        recent.insert(key_id.to_owned(), instant);
    }
    let threshold = now - EVERY;
    let result = async {
        let mut conn = app.db.conn().await?;
        timbra_store::users::touch_key(&mut conn, key_id, now, threshold).await
    }
    .await;
    if let Err(error) = result {
        tracing::warn!(error.message = %error, "could not record key use");
    }
}
