//! Accounts (`users`), their sessions (`sessions`) and API keys (`api_keys`). Passwords, session
//! tokens and keys are stored only as hashes.

use crate::ids::{EmpresaId, UserId};
use time::OffsetDateTime;

use crate::sql;
use crate::{DbConn, Tx};

/// An account as login needs it.
#[derive(sqlx::FromRow)]
pub struct UserRow {
    /// Id.
    pub id: UserId,
    /// Name.
    pub name: String,
    /// Email as registered.
    pub email: String,
    /// argon2id hash.
    pub password_hash: String,
}

/// Registers an account (a unique violation means the email is taken).
pub async fn crear(
    conn: &mut DbConn,
    id: &UserId,
    name: &str,
    email: &str,
    password_hash: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO users (id, name, email, email_lower, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
        id,
        name,
        email,
        email.to_lowercase(),
        password_hash,
        now
    )
}

/// The active account with this email (any case).
pub async fn por_email(conn: &mut DbConn, email: &str) -> crate::DbResult<Option<UserRow>> {
    sql!(
        fetch_optional * conn,
        UserRow,
        "SELECT id, name, email, password_hash FROM users WHERE email_lower = $1 AND deleted_at IS NULL",
        email.trim().to_lowercase()
    )
}

/// The email of account `id`.
pub async fn email(conn: &mut DbConn, id: &UserId) -> crate::DbResult<String> {
    sql!(scalar_one * conn, String, "SELECT email FROM users WHERE id = $1", id)
}

/// Soft-deletes account `id` and ends its sessions (its keys then answer AUTH_002).
pub async fn borrar(tx: &mut Tx, id: &UserId, now: OffsetDateTime) -> crate::DbResult<()> {
    sql!(execute * tx, "UPDATE users SET deleted_at = $1, updated_at = $1 WHERE id = $2", now, id)?;
    sql!(execute * tx, "DELETE FROM sessions WHERE user_id = $1", id)?;
    Ok(())
}

/// Opens a session whose token hashes to `id`.
pub async fn abrir_sesion(
    conn: &mut DbConn,
    id: &str,
    user_id: &UserId,
    expires_at: OffsetDateTime,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO sessions (id, user_id, expires_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
        id,
        user_id,
        expires_at,
        now
    )
}

/// Ends session `id`.
pub async fn cerrar_sesion(conn: &mut DbConn, id: &str) -> crate::DbResult<u64> {
    sql!(execute * conn, "DELETE FROM sessions WHERE id = $1", id)
}

/// Whether `user_id` belongs to the (not deleted) company `empresa_id`.
pub async fn es_miembro(conn: &mut DbConn, user_id: &UserId, empresa_id: &EmpresaId) -> crate::DbResult<bool> {
    let role = sql!(
        scalar_optional * conn,
        String,
        "SELECT m.role FROM memberships m JOIN empresas e ON e.id = m.empresa_id \
         WHERE m.empresa_id = $1 AND m.user_id = $2 AND e.deleted_at IS NULL",
        empresa_id,
        user_id
    )?;
    Ok(role.is_some())
}

/// A new API key's stored fields (`key_hash` is the SHA-256 of the key).
pub struct NuevaKey<'a> {
    /// Id.
    pub id: &'a str,
    /// Owner.
    pub user_id: &'a UserId,
    /// Its name.
    pub name: &'a str,
    /// SHA-256 hex of the key.
    pub key_hash: &'a str,
    /// The start of the key, shown in listings.
    pub key_prefix: &'a str,
    /// JSON list of companies it is narrowed to.
    pub empresa_ids: Option<&'a str>,
    /// JSON list of scopes it is narrowed to.
    pub scopes: Option<&'a str>,
    /// When it stops working.
    pub expires_at: Option<OffsetDateTime>,
}

/// Stores a new API key.
pub async fn crear_key(conn: &mut DbConn, key: &NuevaKey<'_>, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, empresa_ids, scopes, expires_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
        key.id,
        key.user_id,
        key.name,
        key.key_hash,
        key.key_prefix,
        key.empresa_ids,
        key.scopes,
        key.expires_at,
        now
    )
}

/// Revokes key `id` of `user_id` (`None`: whoever owns it); rows changed.
pub async fn revocar_key(
    conn: &mut DbConn,
    id: &str,
    user_id: Option<&UserId>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    match user_id {
        Some(user_id) => sql!(
            execute * conn,
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1), updated_at = $1 WHERE id = $2 AND user_id = $3",
            now,
            id,
            user_id
        ),
        None => sql!(execute * conn, "UPDATE api_keys SET revoked_at = $1, updated_at = $1 WHERE id = $2", now, id),
    }
}

/// The keys of `user_id`, newest first (`active` is computed by the caller).
pub async fn keys(conn: &mut DbConn, user_id: &UserId) -> crate::DbResult<Vec<KeyRow>> {
    sql!(
        fetch_all * conn,
        KeyRow,
        "SELECT id, name, key_prefix, FALSE AS active, last_used_at, expires_at, created_at, revoked_at \
         FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id DESC",
        user_id
    )
}

/// A stored row of `KeyListItem` (the API answers it as `KeyListItem`).
#[derive(sqlx::FromRow)]
pub struct KeyRow {
    /// `id`.
    pub id: String,
    /// `name`.
    pub name: String,
    /// `key_prefix`.
    pub key_prefix: String,
    /// `active`.
    pub active: bool,
    /// `last_used_at`.
    pub last_used_at: Option<OffsetDateTime>,
    /// `expires_at`.
    pub expires_at: Option<OffsetDateTime>,
    /// `created_at`.
    pub created_at: OffsetDateTime,
    /// `revoked_at`.
    #[sqlx(default)]
    pub revoked_at: Option<OffsetDateTime>,
}

/// An API key as authentication reads it, with its owner's deletion.
#[derive(sqlx::FromRow)]
pub struct StoredKey {
    /// Id.
    pub id: String,
    /// Owner.
    pub user_id: UserId,
    /// JSON list of the companies it is narrowed to.
    pub empresa_ids: Option<String>,
    /// JSON list of the scopes it is narrowed to.
    pub scopes: Option<String>,
    /// When it expires.
    pub expires_at: Option<OffsetDateTime>,
    /// When it was revoked.
    pub revoked_at: Option<OffsetDateTime>,
    /// When it was last used (recorded at most once a minute).
    pub last_used_at: Option<OffsetDateTime>,
    /// When its owner deleted the account.
    pub user_deleted_at: Option<OffsetDateTime>,
}

/// The key whose secret has this SHA-256 digest.
pub async fn key_by_hash(conn: &mut DbConn, digest: &str) -> crate::DbResult<Option<StoredKey>> {
    sql!(
        fetch_optional * conn,
        StoredKey,
        "SELECT k.id, k.user_id, k.empresa_ids, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, \
         u.deleted_at AS user_deleted_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1",
        digest
    )
}

/// Records that key `key_id` was used at `now`, unless it was already after `threshold`.
pub async fn touch_key(
    conn: &mut DbConn,
    key_id: &str,
    now: OffsetDateTime,
    threshold: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)",
        now,
        key_id,
        threshold
    )
}

/// The user of the open session `session_id` (the digest of its token), when its account exists.
pub async fn session_user(conn: &mut DbConn, session_id: &str, now: OffsetDateTime) -> crate::DbResult<Option<UserId>> {
    sql!(
        scalar_optional * conn,
        UserId,
        "SELECT s.user_id FROM sessions s JOIN users u ON u.id = s.user_id \
         WHERE s.id = $1 AND s.expires_at > $2 AND u.deleted_at IS NULL",
        session_id,
        now
    )
}
