//! The web dashboard under `/panel`: server-rendered pages (maud) with htmx, in Spanish, for the
//! account owner and the accountants of each company.
//!
//! Pages call the services the API's handlers call, with typed values (never over HTTP, never
//! a handler in process, never a second copy of a rule): a form becomes the services' input,
//! their typed outcome (rows of the store, the services' own structs) is rendered, and an
//! error shows its code in Spanish ([`textos`]) with the field problems beside the fields, in
//! Spanish too ([`problemas`]): the API's English messages never reach a page. Every page
//! re-checks the caller's role in the company through
//! [`Caller::authorize`](timbra_services::auth::caller::Caller::authorize); a company the person
//! does not belong to is a 404 page. Forms carry a CSRF token ([`csrf`]).

pub mod api_keys;
pub mod buzon;
pub mod catalogos;
pub mod csrf;
pub mod desglose;
pub mod empresas;
pub mod exportar;
pub mod facturas;
pub mod layout;
pub mod marca;
pub mod nomina;
pub mod problemas;
pub mod recibos;
pub mod retenciones;
pub mod session;
pub mod textos;
pub mod webhooks;

use axum::Router;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use http_body_util::BodyExt;
use maud::{Markup, html};
use serde::de::DeserializeOwned;
use serde_json::Value;
use timbra_store::ids::EmpresaId;

use timbra_services::auth::caller::{Caller, Credential, ModeSlot, Verified, authenticate};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// Cookie that remembers the company chosen in the switcher.
pub const EMPRESA_COOKIE: &str = "timbra_empresa";

/// The dashboard's routes (mounted by `router::build`, outside the OpenAPI table).
pub fn router() -> Router<AppContext> {
    Router::new()
        .route("/", get(session::inicio))
        .route("/panel", get(empresas::tablero))
        .route("/panel/entrar", get(session::entrar_form).post(session::entrar))
        .route("/panel/registro", get(session::registro_form).post(session::registrar))
        .route("/panel/salir", post(session::salir))
        .route("/panel/estatico/{archivo}", get(layout::estatico))
        .route("/panel/empresa", get(layout::cambiar_empresa))
        .merge(empresas::rutas())
        .merge(catalogos::rutas())
        .merge(facturas::rutas())
        .merge(retenciones::rutas())
        .merge(buzon::rutas())
        .merge(api_keys::rutas())
        .merge(webhooks::rutas())
        .merge(nomina::rutas())
        .merge(recibos::rutas())
        .merge(marca::rutas())
        .merge(exportar::rutas())
}

/// The `Set-Cookie` value of a dashboard cookie (`Path=/panel`, HttpOnly), `Secure` when
/// `TIMBRA_SESSION_SECURE` is set, as the session cookie is: behind HTTPS none of them may
/// travel in clear (issue 28, finding 9).
pub fn cookie_panel(app: &AppContext, nombre: &str, valor: &str, same_site: &str) -> Option<HeaderValue> {
    let secure = if app.config.session.secure_cookie { "; Secure" } else { "" };
    HeaderValue::from_str(&format!("{nombre}={valor}; Path=/panel; HttpOnly; SameSite={same_site}{secure}")).ok()
}

/// Where a page sends a person who is not logged in.
pub const ENTRAR: &str = "/panel/entrar";

/// Why a page did not render: each variant becomes a Spanish page or a redirect.
#[derive(Debug)]
pub enum Fallo {
    /// 303 to this path (e.g. the login page).
    Redirigir(String),
    /// An error of the API's services: its code in Spanish.
    Api(ApiError),
    /// A form without a valid CSRF token: 403.
    Csrf,
}

impl From<ApiError> for Fallo {
    fn from(error: ApiError) -> Self {
        Fallo::Api(error)
    }
}

impl From<timbra_store::DbError> for Fallo {
    fn from(error: timbra_store::DbError) -> Self {
        Fallo::Api(error.into())
    }
}

/// Result of a page handler.
pub type Pagina = Result<Response, Fallo>;

/// A 303 See Other to `to` (after a form POST, or to the login page).
pub fn redirigir(to: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// An HTML answer with `status`.
pub fn html_con(status: StatusCode, markup: Markup) -> Response {
    let mut response = (status, markup.into_string()).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A 200 HTML answer.
pub fn html_ok(markup: Markup) -> Response {
    html_con(StatusCode::OK, markup)
}

impl IntoResponse for Fallo {
    fn into_response(self) -> Response {
        match self {
            Fallo::Redirigir(to) => redirigir(&to),
            Fallo::Csrf => html_con(
                StatusCode::FORBIDDEN,
                layout::pagina_suelta(
                    "Formulario vencido",
                    html! {
                        p { "El formulario no traía un código de seguridad válido (CSRF). "
                            "Vuelva a cargar la página e inténtelo de nuevo." }
                        p { a href="/panel" { "Volver al panel" } }
                    },
                ),
            ),
            Fallo::Api(error) => {
                // Sessions that ended go back to the login page.
                if matches!(error.code, Code::Auth001 | Code::Auth002) {
                    return redirigir(ENTRAR);
                }
                // Another tenant's company or record: the same 404 as a missing one.
                let status = match error.code {
                    Code::Scope001 => StatusCode::NOT_FOUND,
                    code => code.status(),
                };
                let titulo = if status == StatusCode::NOT_FOUND { "No encontrado" } else { "No se pudo completar" };
                let retry_after = error.retry_after;
                let mut response = html_con(
                    status,
                    layout::pagina_suelta(
                        titulo,
                        html! {
                            (layout::error_api(&error))
                            @let problemas = layout::Errores::de(error.clone()).con_prefijo("");
                            @if !problemas.is_empty() {
                                ul.problemas { @for p in &problemas { li { (p.linea()) } } }
                            }
                            p { a href="/panel" { "Volver al panel" } }
                        },
                    ),
                );
                // A refusal that says when to come back says it as the API does.
                if let Some(seconds) = retry_after {
                    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                }
                response
            }
        }
    }
}

/// The 404 page of an unknown path under `/panel` (the router's fallback sends them here).
pub fn pagina_no_encontrada() -> Response {
    Fallo::Api(ApiError::new(Code::NotFound, "no such page")).into_response()
}

/// A logged-in person on a dashboard page: the session (never an API key) and its CSRF token.
#[derive(Clone)]
pub struct Session {
    /// The caller as the API sees it (credential: the session).
    pub caller: Caller,
    /// The form token of this session.
    pub csrf: String,
    /// The person's email, shown in the header.
    pub email: String,
}

impl FromRequestParts<AppContext> for Session {
    type Rejection = Fallo;

    async fn from_request_parts(parts: &mut Parts, app: &AppContext) -> Result<Self, Self::Rejection> {
        // The credential the router's middleware verified, or verified here when it did not.
        let verified = match parts.extensions.remove::<Verified>() {
            Some(Verified(verified)) => verified,
            None => authenticate(app, &parts.headers).await,
        };
        let Ok((user_id, credential)) = verified else {
            return Err(Fallo::Redirigir(ENTRAR.to_owned()));
        };
        let mode = parts.extensions.get::<ModeSlot>().cloned().unwrap_or_default();
        let caller = Caller::new(user_id, credential, mode);
        let Credential::Session { session_id } = &caller.credential else {
            return Err(Fallo::Redirigir(ENTRAR.to_owned()));
        };
        let csrf = csrf::session_token(app, session_id)?;
        let email = {
            let mut conn = app.db.conn().await?;
            timbra_store::users::email(&mut conn, &caller.user_id).await?
        };
        Ok(Session { caller, csrf, email })
    }
}

/// The fields of a submitted form (urlencoded or multipart; files arrive base64-encoded, as
/// the API's JSON bodies take them), in order, with `_csrf` already checked and removed.
#[derive(Clone, Debug, Default)]
pub struct Campos(pub Vec<(String, String)>);

impl Campos {
    /// The first value of `name`, trimmed; `None` when absent or empty.
    pub fn valor(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.trim()).filter(|value| !value.is_empty())
    }

    /// Every value of `name` (repeated fields such as invoice lines), empty ones kept.
    pub fn todos(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(key, _)| key == name).map(|(_, value)| value.trim()).collect()
    }

    /// A JSON object of the named fields that are present (for the API's bodies).
    pub fn objeto(&self, names: &[&str]) -> Value {
        let mut object = serde_json::Map::new();
        for name in names {
            if let Some(value) = self.valor(name) {
                object.insert((*name).to_owned(), Value::String(value.to_owned()));
            }
        }
        Value::Object(object)
    }
}

/// A form POST from a logged-in person with a valid CSRF token (field `_csrf` or header
/// `X-CSRF-Token`, which htmx sends); without one the answer is the 403 page.
pub struct Formulario {
    /// Who sent it.
    pub session: Session,
    /// What they sent.
    pub campos: Campos,
}

impl FromRequest<AppContext> for Formulario {
    type Rejection = Fallo;

    async fn from_request(request: Request, app: &AppContext) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = request.into_parts();
        let session = Session::from_request_parts(&mut parts, app).await?;
        let campos = leer_campos(&parts.headers, Request::from_parts(parts.clone(), body), app).await?;
        let campos = csrf::comprobar(&parts.headers, campos, &session.csrf)?;
        Ok(Formulario { session, campos })
    }
}

/// A form POST that acts on the current company: the form with its CSRF token checked, the
/// page's context and the company's id. The form actions of every page start here, so the
/// session, the token and the company are read once; the action then authorizes with the
/// permission of the matching API route ([`Accion::autorizar`]).
pub struct Accion {
    /// The page's context (the person, their companies, the current one).
    pub ctx: layout::Contexto,
    /// The current company's id.
    pub empresa_id: EmpresaId,
    /// The form's fields.
    pub campos: Campos,
}

impl Accion {
    /// The role check of `permission` in the current company, as the API's route does it.
    pub async fn autorizar(
        &self,
        app: &AppContext,
        permission: timbra_services::auth::roles::Permission,
    ) -> Result<timbra_services::auth::caller::EmpresaAccess, ApiError> {
        self.ctx.session.caller.authorize(app, &self.empresa_id, permission).await
    }
}

impl FromRequest<AppContext> for Accion {
    type Rejection = Fallo;

    async fn from_request(request: Request, app: &AppContext) -> Result<Self, Self::Rejection> {
        let headers = request.headers().clone();
        let Formulario { session, campos } = Formulario::from_request(request, app).await?;
        let ctx = layout::contexto(app, session, &headers, &std::collections::HashMap::new()).await?;
        let empresa_id = ctx.empresa()?.id.clone();
        Ok(Accion { ctx, empresa_id, campos })
    }
}

/// A page read by a logged-in person: the page's context (the person, their companies, the
/// current one, the notice the query names) and the query. The pages of every area start
/// here, as their form actions start at [`Accion`].
pub struct Vista {
    /// The page's context.
    pub ctx: layout::Contexto,
    /// The query (`empresa`, `aviso`, `page`, filters).
    pub params: std::collections::HashMap<String, String>,
}

impl FromRequestParts<AppContext> for Vista {
    type Rejection = Fallo;

    async fn from_request_parts(parts: &mut Parts, app: &AppContext) -> Result<Self, Self::Rejection> {
        let session = Session::from_request_parts(parts, app).await?;
        let axum::extract::Query(params) =
            axum::extract::Query::<std::collections::HashMap<String, String>>::from_request_parts(parts, app)
                .await
                .map_err(|e| {
                    ApiError::new(Code::Request001, format!("the query could not be read: {}", e.body_text()))
                })?;
        let ctx = layout::contexto(app, session, &parts.headers, &params).await?;
        Ok(Vista { ctx, params })
    }
}

/// Reads an urlencoded or multipart body into [`Campos`] (`_csrf` still in it).
pub async fn leer_campos(headers: &HeaderMap, request: Request, app: &AppContext) -> Result<Campos, Fallo> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or_default();
    if content_type.starts_with("multipart/form-data") {
        let mut multipart = axum::extract::Multipart::from_request(request, app)
            .await
            .map_err(|e| ApiError::new(Code::Request001, format!("the form could not be read: {}", e.body_text())))?;
        let mut campos = Vec::new();
        while let Some(field) = multipart
            .next_field()
            .await
            .map_err(|e| ApiError::new(Code::Request001, format!("the form could not be read: {}", e.body_text())))?
        {
            let name = field.name().unwrap_or_default().to_owned();
            let is_file = field.file_name().is_some();
            let bytes = field.bytes().await.map_err(|e| {
                ApiError::new(Code::Request001, format!("the form could not be read: {}", e.body_text()))
            })?;
            let value = if is_file {
                if bytes.is_empty() { String::new() } else { base64::engine::general_purpose::STANDARD.encode(&bytes) }
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            campos.push((name, value));
        }
        return Ok(Campos(campos));
    }
    let bytes = request
        .into_body()
        .collect()
        .await
        .map_err(|_| ApiError::new(Code::Request002, "the form is larger than TIMBRA_MAX_BODY_BYTES"))?
        .to_bytes();
    let pairs = form_urlencoded_pairs(&bytes);
    Ok(Campos(pairs))
}

/// `application/x-www-form-urlencoded` pairs, in order (`+` is a space).
fn form_urlencoded_pairs(bytes: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    let decode = |part: &str| {
        let spaced = part.replace('+', " ");
        urlencoding::decode(&spaced).map(|value| value.into_owned()).unwrap_or(spaced)
    };
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) => (decode(key), decode(value)),
            None => (decode(pair), String::new()),
        })
        .collect()
}

/// The services' input `T` from a JSON value built out of a form, for inputs that are JSON
/// documents in the services too (an invoice, a retention, a payroll calculation):
/// REQUEST_001 when it does not fit.
pub fn cuerpo<T: DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    serde_json::from_value(value).map_err(|e| ApiError::new(Code::Request001, format!("invalid form: {e}")))
}

/// The answer of a file download ([`Descarga`](timbra_services::cfdi::archivos::Descarga): an
/// attachment with the same headers as the API's).
pub fn descarga(archivo: timbra_services::cfdi::archivos::Descarga) -> Result<Response, ApiError> {
    let headers = archivo.headers()?;
    let mut response = archivo.bytes.into_response();
    for (name, value) in headers {
        response.headers_mut().insert(name, value);
    }
    Ok(response)
}

/// An amount formatted as MXN: `$1,234.56` (two decimals, half away from zero; negative as
/// `-$1,234.56`). Amounts come exact from the services; this only presents them.
pub fn pesos(amount: rust_decimal::Decimal) -> String {
    let rounded = amount.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let text = format!("{:.2}", rounded.abs());
    let (entero, decimales) = text.split_once('.').unwrap_or((&text, "00"));
    let mut agrupado = String::new();
    for (i, digit) in entero.chars().enumerate() {
        if i > 0 && (entero.len() - i) % 3 == 0 {
            agrupado.push(',');
        }
        agrupado.push(digit);
    }
    let signo = if rounded.is_sign_negative() && !rounded.is_zero() { "-" } else { "" };
    format!("{signo}${agrupado}.{decimales}")
}

/// [`pesos`] of an amount stored as text; the text itself when it is not a decimal.
pub fn pesos_texto(text: &str) -> String {
    text.parse::<rust_decimal::Decimal>().map_or_else(|_| text.to_owned(), pesos)
}

/// An instant in its own offset as `AAAA-MM-DD HH:MM` (dates the services give in the
/// issuer's zone, such as a cancellation request's deadline).
pub fn fecha_hora(at: time::OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02} {:02}:{:02}", at.year(), u8::from(at.month()), at.day(), at.hour(), at.minute())
}

/// The page of a listing a page asks for (query `page`, from 1; anything else is page 1), 20
/// rows a page; REQUEST_001 for a page so far that its offset does not fit.
pub fn paging(params: &std::collections::HashMap<String, String>) -> Result<timbra_store::Paging, ApiError> {
    let page = params.get("page").and_then(|p| p.parse::<i64>().ok()).filter(|p| *p >= 1).unwrap_or(1);
    paging_de(page)
}

/// Page `page` of 20 rows; REQUEST_001 when its offset does not fit.
pub fn paging_de(page: i64) -> Result<timbra_store::Paging, ApiError> {
    timbra_store::Paging::new(page, POR_PAGINA).ok_or_else(|| {
        ApiError::new(Code::Request001, format!("page {page} is beyond any listing; ask for a smaller page number"))
    })
}

/// Rows on a page of the dashboard's lists.
pub const POR_PAGINA: i64 = 20;

#[cfg(test)]
mod tests {
    use super::{form_urlencoded_pairs, pesos};

    fn d(text: &str) -> rust_decimal::Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn mxn() {
        assert_eq!(pesos(d("1234.56")), "$1,234.56");
        assert_eq!(pesos(d("0")), "$0.00");
        assert_eq!(pesos(d("999.995")), "$1,000.00");
        assert_eq!(pesos(d("1234567.8")), "$1,234,567.80");
        assert_eq!(pesos(d("-12.5")), "-$12.50");
        assert_eq!(pesos(d("100")), "$100.00");
    }

    #[test]
    fn forms() {
        assert_eq!(
            form_urlencoded_pairs(b"a=1&b=Pe%C3%B1a+y+C%C3%ADa&a=2&c"),
            vec![
                ("a".to_owned(), "1".to_owned()),
                ("b".to_owned(), "Peña y Cía".to_owned()),
                ("a".to_owned(), "2".to_owned()),
                ("c".to_owned(), String::new()),
            ]
        );
    }
}
