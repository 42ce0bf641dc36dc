//! Accounts: register, check a password (with the login throttle), open and close sessions,
//! delete an account. The HTTP side only carries the token in a cookie.

use timbra_store::ids;
use timbra_store::ids::UserId;
use timbra_store::users;

use crate::auth::caller::SESSION_COOKIE;
use crate::auth::login_throttle;
use crate::auth::secrets::{dummy_hash, hash_password, password_problems, random_token, sha256_hex, verify_password};
use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::validate;

/// Longest user name, in characters.
pub const MAX_NAME: usize = 200;
/// Longest password, in bytes (argon2 hashes any length; this bounds the work per request).
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// A user.
#[derive(Clone, Debug)]
pub struct Usuario {
    /// Assigned by the service.
    pub id: String,
    /// Email as registered.
    pub email: String,
    /// Name as registered.
    pub name: String,
}

/// Creates an account: USER_001 with every field problem, USER_002 when the email is taken.
pub async fn register(
    app: &AppContext,
    name: Option<&str>,
    email: Option<&str>,
    password: Option<&str>,
) -> Result<Usuario, ApiError> {
    let mut problems = Vec::new();
    let name = name.map(str::trim).unwrap_or_default().to_owned();
    if !(2..=MAX_NAME).contains(&name.chars().count()) {
        problems.push(FieldProblem::new("name", format!("name is required, 2 to {MAX_NAME} characters")));
    }
    let email = email.map(str::trim).unwrap_or_default().to_owned();
    if !validate::valid_email(&email) {
        problems.push(FieldProblem::new("email", "a valid email address is required"));
    }
    let password = password.unwrap_or_default();
    problems.extend(password_problems("password", password));
    if password.len() > MAX_PASSWORD_BYTES {
        problems.push(FieldProblem::new("password", format!("password has at most {MAX_PASSWORD_BYTES} bytes")));
    }
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::User001, problems));
    }
    let password_hash = hash_password(password).map_err(|e| ApiError::internal("hash password", e))?;
    let id = ids::new_id();
    let mut conn = app.db.conn().await?;
    match users::crear(&mut conn, &UserId::from(&id), &name, &email, &password_hash, app.clock.now()).await {
        Ok(_) => Ok(Usuario { id, email, name }),
        Err(error) if error.is_duplicate() => {
            Err(ApiError::new(Code::User002, "an account with this email already exists; log in instead"))
        }
        Err(error) => Err(error.into()),
    }
}

/// Finds the active user with this email and password, or says AUTH_004 without telling which
/// of the two was wrong (and taking the same time either way). Each check counts for the
/// email's login throttle ([`login_throttle`]): a locked email answers 429 RATE_001.
pub async fn check_credentials(
    app: &AppContext,
    email: Option<&str>,
    password: Option<&str>,
) -> Result<Usuario, ApiError> {
    let (Some(email), Some(password)) = (email, password) else {
        return Err(ApiError::new(Code::Auth004, "send email and password"));
    };
    if email.len() > 254 || password.len() > MAX_PASSWORD_BYTES {
        return Err(ApiError::new(Code::Auth004, "wrong email or password"));
    }
    let attempt = login_throttle::begin(app, email).await?;
    let mut conn = app.db.conn().await?;
    let row = users::por_email(&mut conn, email).await?;
    drop(conn);
    let hash = row.as_ref().map_or(dummy_hash(), |row| row.password_hash.as_str()).to_owned();
    let password = password.to_owned();
    let matches = tokio::task::spawn_blocking(move || verify_password(&password, &hash))
        .await
        .map_err(|e| ApiError::internal("verify password", e))?;
    match row {
        Some(row) if matches => {
            login_throttle::succeeded(app, &attempt).await?;
            Ok(Usuario { id: String::from(row.id), email: row.email, name: row.name })
        }
        _ => {
            login_throttle::failed(app, &attempt).await?;
            Err(ApiError::new(Code::Auth004, "wrong email or password"))
        }
    }
}

/// Opens a session for `user_id` lasting the configured time; gives its token (only its hash
/// is stored).
pub async fn open_session(app: &AppContext, user_id: &UserId) -> Result<String, ApiError> {
    let token = random_token();
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    users::abrir_sesion(&mut conn, &sha256_hex(&token), user_id, now + app.config.session.ttl, now).await?;
    Ok(token)
}

/// The `Set-Cookie` text that carries session `token` (HttpOnly, SameSite=Lax, `Secure` when
/// `TIMBRA_SESSION_SECURE` is set, lasting the configured time): the API's login and the
/// dashboard's share it.
pub fn session_cookie(app: &AppContext, token: &str) -> String {
    let secure = if app.config.session.secure_cookie { "; Secure" } else { "" };
    let ttl = app.config.session.ttl.as_secs();
    format!("{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={ttl}{secure}")
}

/// The `Set-Cookie` text that clears the session cookie (logout, account deletion).
pub const CLEAR_SESSION_COOKIE: &str = "timbra_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0";

/// Ends session `session_id`.
pub async fn close_session(app: &AppContext, session_id: &str) -> Result<(), ApiError> {
    let mut conn = app.db.conn().await?;
    users::cerrar_sesion(&mut conn, session_id).await?;
    Ok(())
}

/// Deletes account `user_id` after checking its password again (AUTH_004, throttled like a
/// login): a soft delete, its sessions end and its keys then answer AUTH_002.
pub async fn delete_account(app: &AppContext, user_id: &UserId, password: &str) -> Result<(), ApiError> {
    let email = {
        let mut conn = app.db.conn().await?;
        users::email(&mut conn, user_id).await?
    };
    let user = check_credentials(app, Some(&email), Some(password)).await?;
    if *user_id != user.id {
        return Err(ApiError::new(Code::Auth004, "wrong password"));
    }
    let mut tx = app.db.begin().await?;
    users::borrar(&mut tx, user_id, app.clock.now()).await?;
    tx.commit().await?;
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    Ok(())
}
