//! Registration, login and logout pages, and `GET /`. They call the account services the API
//! calls (`timbra_services::auth::cuentas`): the same password rules, login throttle and
//! session cookie.

use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use std::collections::HashMap;
use timbra_store::ids::UserId;

use super::layout::{Errores, Tipo, caja_errores, campo, pagina_suelta};
use super::{Campos, ENTRAR, Fallo, Formulario, Pagina, Session, csrf, html_con, leer_campos, redirigir};
use timbra_services::auth::caller::Credential;
use timbra_services::auth::cuentas;
use timbra_services::auth::secrets::random_token;
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;

/// `GET /`: the dashboard when logged in, else its login page (303 either way).
pub async fn inicio(session: Option<Session>) -> Response {
    redirigir(if session.is_some() { "/panel" } else { ENTRAR })
}

impl axum::extract::OptionalFromRequestParts<AppContext> for Session {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        app: &AppContext,
    ) -> Result<Option<Self>, Self::Rejection> {
        Ok(<Session as axum::extract::FromRequestParts<AppContext>>::from_request_parts(parts, app).await.ok())
    }
}

/// The pre-session CSRF token of this browser, and the cookie to set when it has none yet.
fn previo(app: &AppContext, headers: &HeaderMap) -> Result<(String, Option<HeaderValue>), Fallo> {
    if let Some(valor) = csrf::cookie(headers, csrf::COOKIE_PREVIO).filter(|v| v.len() >= 32) {
        return Ok((csrf::token_previo(app, valor)?, None));
    }
    let valor = random_token();
    Ok((csrf::token_previo(app, &valor)?, super::cookie_panel(app, csrf::COOKIE_PREVIO, &valor, "Strict")))
}

/// A form page before login, with its pre-session token cookie when new, and the
/// `Retry-After` of a refusal that has one (the login lockout's 429, as the API answers it).
fn pagina_previa(status: StatusCode, markup: Markup, cookie: Option<HeaderValue>, errores: &Errores) -> Response {
    let mut response = html_con(status, markup);
    if let Some(cookie) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    if let Some(seconds) = errores.error.as_ref().and_then(|error| error.retry_after) {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// Opens a session for `user_id`: the `Set-Cookie` value that carries it, as the API's login
/// sets it.
async fn open_session(app: &AppContext, user_id: &UserId) -> Result<HeaderValue, ApiError> {
    let token = cuentas::open_session(app, user_id).await?;
    HeaderValue::from_str(&cuentas::session_cookie(app, &token)).map_err(|e| ApiError::internal("cookie", e))
}

/// Reads a pre-login form and checks its token against the `timbra_previo` cookie.
async fn formulario_previo(app: &AppContext, request: Request) -> Result<Campos, Fallo> {
    let headers = request.headers().clone();
    // No pre-session cookie, no valid token: refused before the body is read at all.
    let esperado = match csrf::cookie(&headers, csrf::COOKIE_PREVIO) {
        Some(valor) => csrf::token_previo(app, valor)?,
        None => return Err(Fallo::Csrf),
    };
    let campos = leer_campos(&headers, request, app).await?;
    csrf::comprobar(&headers, campos, &esperado)
}

fn form_entrar(token: &str, email: Option<&str>, errores: &Errores) -> Markup {
    html! {
        (caja_errores(errores))
        form method="post" action="/panel/entrar" {
            input type="hidden" name=(csrf::CAMPO) value=(token);
            (campo("email", "Correo electrónico", Tipo::Correo, email, true, errores))
            (campo("password", "Contraseña", Tipo::Clave, None, true, errores))
            button type="submit" { "Entrar" }
        }
        p { "¿No tiene cuenta? " a href="/panel/registro" { "Regístrese" } }
    }
}

/// `GET /panel/entrar`.
pub async fn entrar_form(
    State(app): State<AppContext>,
    session: Option<Session>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    if session.is_some() {
        return Ok(redirigir("/panel"));
    }
    let (token, cookie) = previo(&app, &headers)?;
    let aviso = match params.get("aviso").map(String::as_str) {
        Some("registrado") => Some("Cuenta creada. Ya puede entrar."),
        Some("salida") => Some("Sesión cerrada."),
        _ => None,
    };
    let markup = pagina_suelta(
        "Entrar",
        html! {
            @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
            (form_entrar(&token, None, &Errores::default()))
        },
    );
    Ok(pagina_previa(StatusCode::OK, markup, cookie, &Errores::default()))
}

/// `POST /panel/entrar`: the API's credential check (throttle included), then its session.
pub async fn entrar(State(app): State<AppContext>, request: Request) -> Pagina {
    let headers = request.headers().clone();
    let campos = formulario_previo(&app, request).await?;
    let email = campos.valor("email").map(str::to_owned);
    match cuentas::check_credentials(&app, email.as_deref(), campos.valor("password")).await {
        Ok(user) => {
            let cookie = open_session(&app, &UserId::from(&user.id)).await?;
            let mut response = redirigir("/panel");
            response.headers_mut().insert(header::SET_COOKIE, cookie);
            Ok(response)
        }
        Err(error) => {
            let (token, cookie) = previo(&app, &headers)?;
            let errores = Errores::de(error);
            let status = errores.status();
            let markup = pagina_suelta("Entrar", form_entrar(&token, email.as_deref(), &errores));
            Ok(pagina_previa(status, markup, cookie, &errores))
        }
    }
}

fn form_registro(token: &str, campos: &Campos, errores: &Errores) -> Markup {
    html! {
        (caja_errores(errores))
        form method="post" action="/panel/registro" {
            input type="hidden" name=(csrf::CAMPO) value=(token);
            (campo("name", "Nombre", Tipo::Texto, campos.valor("name"), true, errores))
            (campo("email", "Correo electrónico", Tipo::Correo, campos.valor("email"), true, errores))
            (super::layout::campo_con("password", "Contraseña", Tipo::Clave, None, true, errores,
                Some("Al menos 8 caracteres, con una mayúscula, un número y un carácter especial.")))
            button type="submit" { "Crear cuenta" }
        }
        p { "¿Ya tiene cuenta? " a href=(ENTRAR) { "Entre" } }
    }
}

/// `GET /panel/registro`.
pub async fn registro_form(State(app): State<AppContext>, headers: HeaderMap) -> Pagina {
    let (token, cookie) = previo(&app, &headers)?;
    let markup = pagina_suelta("Crear cuenta", form_registro(&token, &Campos::default(), &Errores::default()));
    Ok(pagina_previa(StatusCode::OK, markup, cookie, &Errores::default()))
}

/// `POST /panel/registro`: the API's registration, then straight into a session.
pub async fn registrar(State(app): State<AppContext>, request: Request) -> Pagina {
    let headers = request.headers().clone();
    let campos = formulario_previo(&app, request).await?;
    let password = campos.0.iter().find(|(k, _)| k == "password").map(|(_, v)| v.as_str()).unwrap_or_default();
    let creado = cuentas::register(
        &app,
        Some(campos.valor("name").unwrap_or_default()),
        Some(campos.valor("email").unwrap_or_default()),
        Some(password),
    )
    .await;
    match creado {
        Ok(user) => {
            let cookie = open_session(&app, &UserId::from(&user.id)).await?;
            let mut response = redirigir("/panel/empresas?aviso=bienvenida");
            response.headers_mut().insert(header::SET_COOKIE, cookie);
            Ok(response)
        }
        Err(error) => {
            let (token, cookie) = previo(&app, &headers)?;
            let errores = Errores::de(error);
            let status = errores.status();
            let markup = pagina_suelta("Crear cuenta", form_registro(&token, &campos, &errores));
            Ok(pagina_previa(status, markup, cookie, &errores))
        }
    }
}

/// `POST /panel/salir`: closes the session (as the API's logout does) and clears the cookie.
pub async fn salir(State(app): State<AppContext>, formulario: Formulario) -> Pagina {
    if let Credential::Session { session_id } = &formulario.session.caller.credential {
        cuentas::close_session(&app, session_id).await?;
    }
    let mut response = redirigir("/panel/entrar?aviso=salida");
    response.headers_mut().insert(header::SET_COOKIE, HeaderValue::from_static(cuentas::CLEAR_SESSION_COOKIE));
    Ok(response.into_response())
}
