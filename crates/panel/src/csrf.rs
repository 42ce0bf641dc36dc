//! CSRF tokens of the dashboard's forms.
//!
//! A logged-in person's token is HMAC-SHA256, under a key derived from the installation's
//! master key, over the session id: it needs no storage, every instance computes the same one,
//! and it dies with the session. The login and registration forms come before any session:
//! they use a random cookie (`timbra_previo`, HttpOnly, SameSite=Strict) and a token that is
//! the HMAC of it (double submit, signed). Forms send the token in the hidden field `_csrf`;
//! htmx requests send it in the `X-CSRF-Token` header (`hx-headers` on the page body). The
//! session cookie is `SameSite=Lax`, so other sites cannot POST with it either; JSON API
//! routes are unchanged (they do not read forms).

use axum::http::HeaderMap;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Campos, Fallo};
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;

/// Name of the hidden form field.
pub const CAMPO: &str = "_csrf";
/// Header htmx sends the token in.
pub const HEADER: &str = "x-csrf-token";
/// Cookie of the pre-session token (login and registration forms).
pub const COOKIE_PREVIO: &str = "timbra_previo";

fn clave(app: &AppContext) -> Result<[u8; 32], ApiError> {
    Ok(app.cfdi.master()?.derive("timbra panel csrf v1"))
}

fn firma(clave: &[u8; 32], proposito: &str, valor: &str) -> String {
    let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(clave) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    mac.update(proposito.as_bytes());
    mac.update(b"\n");
    mac.update(valor.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The token of the session with this stored id.
pub fn session_token(app: &AppContext, session_id: &str) -> Result<String, ApiError> {
    Ok(firma(&clave(app)?, "session", session_id))
}

/// The token of a pre-session cookie value.
pub fn token_previo(app: &AppContext, cookie: &str) -> Result<String, ApiError> {
    Ok(firma(&clave(app)?, "previo", cookie))
}

/// Constant-time comparison of two tokens.
fn iguales(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks the form's `_csrf` field (or the `X-CSRF-Token` header) against `esperado` and
/// returns the fields without it; 403 page otherwise.
pub fn comprobar(headers: &HeaderMap, campos: Campos, esperado: &str) -> Result<Campos, Fallo> {
    let del_header = headers.get(HEADER).and_then(|value| value.to_str().ok()).map(str::to_owned);
    let del_campo = campos.0.iter().find(|(name, _)| name == CAMPO).map(|(_, value)| value.clone());
    let enviado = del_campo.or(del_header).unwrap_or_default();
    if enviado.is_empty() || !iguales(&enviado, esperado) {
        return Err(Fallo::Csrf);
    }
    Ok(Campos(campos.0.into_iter().filter(|(name, _)| name != CAMPO).collect()))
}

/// The value of the cookie `name`, if sent.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then_some(value)
        })
}
