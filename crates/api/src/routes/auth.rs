//! Accounts: register, log in (session cookie), log out, delete the account. The rules and
//! the storage are `timbra_services::auth::cuentas`; here the session travels in a cookie.

use crate::extract::Auth;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use timbra_store::ids::UserId;
use utoipa::ToSchema;

use crate::envelope::{Json, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Credential;
use timbra_services::auth::cuentas;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// Registration body.
#[derive(Deserialize, ToSchema)]
pub struct RegisterBody {
    /// At least 2 characters.
    name: Option<String>,
    /// Unique (case-insensitively).
    email: Option<String>,
    /// At least 8 characters with an uppercase letter, a digit and a special character.
    password: Option<String>,
}

/// A user as answered by the API.
#[derive(Serialize, ToSchema)]
pub struct UserOut {
    /// Assigned by the service.
    pub id: String,
    /// Email as registered.
    pub email: String,
    /// Name as registered.
    pub name: String,
}

/// Email and password.
#[derive(Deserialize, ToSchema)]
pub struct LoginBody {
    /// Registered email.
    email: Option<String>,
    /// Password.
    password: Option<String>,
}

/// Login answer: the user; the session travels in the HttpOnly cookie.
#[derive(Serialize, ToSchema)]
pub struct LoginOut {
    /// The logged-in user.
    user: UserOut,
}

/// Logout or account deletion answer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoneOut {
    /// Always true.
    done: bool,
}

impl From<cuentas::Usuario> for UserOut {
    fn from(user: cuentas::Usuario) -> Self {
        Self { id: user.id, email: user.email, name: user.name }
    }
}

/// Creates an account.
#[utoipa::path(post, path = "/auth/register", tag = "auth", request_body = RegisterBody,
    responses(
        (status = 201, description = "Account created", body = Envelope<UserOut>),
        (status = 400, description = "USER_001 invalid data, REQUEST_001 malformed body", body = ErrorBody),
        (status = 409, description = "USER_002 email taken", body = ErrorBody),
    ))]
pub async fn register(State(app): State<AppContext>, Json(body): Json<RegisterBody>) -> HttpResult<impl IntoResponse> {
    let user = cuentas::register(&app, body.name.as_deref(), body.email.as_deref(), body.password.as_deref()).await?;
    Ok(created(UserOut::from(user)))
}

/// [`cuentas::check_credentials`], answered as the API's user.
pub async fn check_credentials(app: &AppContext, email: Option<&str>, password: Option<&str>) -> HttpResult<UserOut> {
    Ok(cuentas::check_credentials(app, email, password).await?.into())
}

/// Logs in and sets the HttpOnly session cookie.
#[utoipa::path(post, path = "/auth/callback/credentials", tag = "auth", request_body = LoginBody,
    responses(
        (status = 200, description = "Logged in; `Set-Cookie: timbra_session=...; HttpOnly; SameSite=Lax`", body = Envelope<LoginOut>),
        (status = 401, description = "AUTH_004 wrong email or password", body = ErrorBody),
        (status = 429, description = "RATE_001 too many requests from this address, or too many failed logins for this email", body = ErrorBody),
    ))]
pub async fn login(State(app): State<AppContext>, Json(body): Json<LoginBody>) -> HttpResult<Response> {
    let user = check_credentials(&app, body.email.as_deref(), body.password.as_deref()).await?;
    let cookie = open_session(&app, &UserId::from(&user.id)).await?;
    let mut response = ok(LoginOut { user }).into_response();
    response.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(response)
}

/// Opens a session for `user_id` and gives the `Set-Cookie` value that carries it (HttpOnly,
/// SameSite=Lax, Secure when configured); the API's login and the dashboard's share it.
pub async fn open_session(app: &AppContext, user_id: &UserId) -> HttpResult<HeaderValue> {
    let token = cuentas::open_session(app, user_id).await?;
    let cookie = cuentas::session_cookie(app, &token);
    Ok(HeaderValue::from_str(&cookie).map_err(|e| ApiError::internal("cookie", e))?)
}

/// The `Set-Cookie` value that clears the session cookie.
pub use cuentas::CLEAR_SESSION_COOKIE;

/// Ends the current session (the cookie is cleared).
#[utoipa::path(post, path = "/auth/logout", tag = "auth",
    responses(
        (status = 200, description = "Session closed", body = Envelope<DoneOut>),
        (status = 401, description = "AUTH_001 no session", body = ErrorBody),
    ))]
pub async fn logout(State(app): State<AppContext>, Auth(caller): Auth) -> HttpResult<Response> {
    if let Credential::Session { session_id } = &caller.credential {
        cuentas::close_session(&app, session_id).await?;
    }
    Ok(done_clearing_cookie())
}

/// Account deletion body: the password again.
#[derive(Deserialize, ToSchema, Default)]
pub struct DeleteAccountBody {
    /// The account's current password.
    password: Option<String>,
}

/// Deletes the caller's account (soft delete): sessions end, keys then answer AUTH_002. Needs a
/// session and the password again; an API key, however wide, cannot delete the account.
#[utoipa::path(delete, path = "/auth/account", tag = "auth", request_body = DeleteAccountBody,
    responses(
        (status = 200, description = "Account deleted", body = Envelope<DoneOut>),
        (status = 401, description = "AUTH_001 no session; AUTH_004 wrong password", body = ErrorBody),
        (status = 403, description = "AUTH_005 an API key cannot delete the account: log in", body = ErrorBody),
        (status = 429, description = "RATE_001 too many failed password checks", body = ErrorBody),
    ))]
pub async fn delete_account(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    body: axum::body::Bytes,
) -> HttpResult<Response> {
    if !caller.is_session() {
        return Err(ApiError::new(
            Code::Auth005,
            "deleting the account needs a session and the password: log in at /api/auth/callback/credentials \
             and send DELETE /api/auth/account with {\"password\": \"...\"}",
        )
        .into());
    }
    let body: DeleteAccountBody = if body.is_empty() {
        DeleteAccountBody::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::new(Code::Request001, format!("the body is not valid JSON: {e}")))?
    };
    let Some(password) = body.password.filter(|password| !password.is_empty()) else {
        return Err(
            ApiError::new(Code::Auth004, "send the account's password in the body: {\"password\": \"...\"}").into()
        );
    };
    cuentas::delete_account(&app, &caller.user_id, &password).await?;
    Ok(done_clearing_cookie())
}

/// `{ done: true }` with the session cookie cleared (logout and account deletion).
fn done_clearing_cookie() -> Response {
    let mut response = ok(DoneOut { done: true }).into_response();
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_static(CLEAR_SESSION_COOKIE));
    response
}
