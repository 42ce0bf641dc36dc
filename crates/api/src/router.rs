//! Every route in one place. Each API route answers under `/api` and without the prefix; the
//! OpenAPI document is built from the same table, so a route cannot exist undocumented.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body_util::BodyExt;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::observability;
use crate::routes::{
    api_keys, auth, cancelaciones, catalogos, certificados, cfdi, clientes, docs, empresas, fiel, jobs, memberships,
    nomina, productos, recibos, retenciones, sandbox, timbres, webhooks,
};
use timbra_services::auth::caller::{ModeSlot, Verified, authenticate, carries_credential};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_services::rate_limit::Bucket;

#[derive(OpenApi)]
#[openapi(
    info(title = "timbra", description = "CFDI 4.0 invoicing and payroll API for Mexico. See /llms-full.txt for the guide."),
    tags(
        (name = "auth", description = "Accounts and sessions"),
        (name = "api-keys", description = "API keys"),
        (name = "empresas", description = "Companies"),
        (name = "miembros", description = "Members and roles of a company"),
        (name = "clientes", description = "Customers (x-empresa-id)"),
        (name = "productos", description = "Products (x-empresa-id)"),
        (name = "nomina", description = "Payroll: the public calculator; employees, incidences and pay periods (x-empresa-id, CONTADOR or higher)"),
        (name = "cfdi", description = "Invoices: stamping, listing, downloads (x-empresa-id)"),
        (name = "cancelaciones", description = "Cancellation requests received from suppliers, to accept or reject (x-empresa-id, CONTADOR or higher)"),
        (name = "timbres", description = "Stamp balance (x-empresa-id)"),
        (name = "webhooks", description = "Webhook endpoints and their delivery log (x-empresa-id); events in /llms-full.txt"),
        (name = "jobs", description = "Background jobs of a company (x-empresa-id)"),
        (name = "recibos", description = "Sales tickets, the self-invoicing page and the global invoice (x-empresa-id)"),
    ),
    modifiers(&BearerAuth),
)]
struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "apiKey",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("Authorization: Bearer tmb_sk_..."))
                    .build(),
            ),
        );
    }
}

/// The API routes, relative to `/api`.
pub fn api_routes() -> OpenApiRouter<AppContext> {
    OpenApiRouter::new()
        .routes(routes!(auth::register))
        .routes(routes!(auth::login))
        .routes(routes!(auth::logout))
        .routes(routes!(auth::delete_account))
        .routes(routes!(api_keys::create, api_keys::list, api_keys::revoke))
        .routes(routes!(api_keys::revoke_by_path))
        .routes(routes!(empresas::create, empresas::list))
        .routes(routes!(empresas::get, empresas::update, empresas::delete))
        .routes(routes!(empresas::put_logo, empresas::get_logo, empresas::delete_logo))
        .routes(routes!(memberships::list, memberships::add))
        .routes(routes!(memberships::update, memberships::remove))
        .routes(routes!(catalogos::productos_servicios))
        .routes(routes!(catalogos::unidades))
        .routes(routes!(catalogos::codigo_postal))
        .routes(routes!(catalogos::pequeno))
        .routes(routes!(clientes::create, clientes::list))
        .routes(routes!(clientes::get, clientes::update, clientes::delete))
        .routes(routes!(productos::create, productos::list))
        .routes(routes!(productos::get, productos::update, productos::delete))
        .routes(routes!(nomina::calcular::calcular))
        .routes(routes!(nomina::empleados::create, nomina::empleados::list))
        .routes(routes!(nomina::empleados::get, nomina::empleados::update, nomina::empleados::delete))
        .routes(routes!(nomina::baja::baja))
        .routes(routes!(nomina::ptu::repartir))
        .routes(routes!(nomina::ajuste_anual::aplicar))
        .routes(routes!(nomina::ajuste_anual::consultar))
        .routes(routes!(nomina::imss::movimientos))
        .routes(routes!(nomina::imss::cuotas))
        .routes(routes!(nomina::imss::sua))
        .routes(routes!(nomina::incidencias::create, nomina::incidencias::list))
        .routes(routes!(nomina::incidencias::get, nomina::incidencias::decide))
        .routes(routes!(nomina::periodos::create, nomina::periodos::list))
        .routes(routes!(nomina::periodos::get, nomina::periodos::calcular, nomina::periodos::ajustar))
        .routes(routes!(nomina::timbrar::timbrar))
        .routes(routes!(nomina::cancelar::cancelar))
        .routes(routes!(nomina::recibos::xml))
        .routes(routes!(nomina::recibos::pdf))
        .routes(routes!(certificados::subir))
        .routes(routes!(fiel::subir, fiel::estado))
        .routes(routes!(cfdi::timbrar::timbrar))
        .routes(routes!(cfdi::pagos::timbrar_pago))
        .routes(routes!(cfdi::validar::validar))
        .routes(routes!(cfdi::validar::validar_pago))
        .routes(routes!(cfdi::validar::validar_xml))
        .routes(routes!(cfdi::list::list))
        .routes(routes!(recibos::global::timbrar))
        // Static segments before `/cfdi/{id}` (axum prefers them anyway; kept in this order to read).
        .routes(routes!(cfdi::intentos::intentos))
        .routes(routes!(cfdi::zip::pedir))
        .routes(routes!(cfdi::zip::estado))
        .routes(routes!(cfdi::intentos::folios))
        .routes(routes!(cfdi::recibidos::sync_recibidos, cfdi::recibidos::sync_recibidos_status))
        .routes(routes!(cfdi::por_uuid::descargar_por_uuid, cfdi::por_uuid::descarga_sin_job))
        .routes(routes!(cfdi::por_uuid::descarga_por_uuid_job))
        .routes(routes!(cfdi::obtener::get))
        .routes(routes!(cfdi::archivos::xml))
        .routes(routes!(cfdi::archivos::pdf))
        .routes(routes!(cfdi::cancelar::cancelar))
        .routes(routes!(cfdi::correo::enviar))
        .routes(routes!(cfdi::correo::listar))
        .routes(routes!(cfdi::estado_sat::estado_sat))
        .routes(routes!(cancelaciones::pendientes))
        .routes(routes!(cancelaciones::responder))
        .routes(routes!(cfdi::archivos::acuse))
        .routes(routes!(cfdi::archivos::descarga))
        .routes(routes!(sandbox::certificado))
        .routes(routes!(timbres::get))
        .routes(routes!(timbres::recargar))
        .routes(routes!(webhooks::create, webhooks::list))
        .routes(routes!(webhooks::get, webhooks::update, webhooks::delete))
        .routes(routes!(webhooks::rotate_secret))
        .routes(routes!(webhooks::test))
        .routes(routes!(webhooks::deliveries))
        .routes(routes!(webhooks::redeliver))
        .routes(routes!(jobs::list))
        .routes(routes!(recibos::crear, recibos::listar))
        .routes(routes!(recibos::obtener))
        .routes(routes!(recibos::cancelar))
        .routes(routes!(retenciones::timbrar::timbrar))
        // Static segments before `/retenciones/{id}`.
        .routes(routes!(retenciones::lote::crear))
        .routes(routes!(retenciones::lote::estado))
        .routes(routes!(retenciones::list::list))
        .routes(routes!(retenciones::obtener::obtener))
        .routes(routes!(retenciones::obtener::xml))
        .routes(routes!(retenciones::obtener::pdf))
        .routes(routes!(retenciones::cancelar::cancelar))
}

/// The OpenAPI document of [`api_routes`] with the `/api` prefix, the error table attached.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, mut openapi) =
        OpenApiRouter::<AppContext>::with_openapi(ApiDoc::openapi()).nest("/api", api_routes()).split_for_parts();
    docs::attach_error_codes(&mut openapi);
    docs::attach_webhook_events(&mut openapi);
    docs::document_unauthorized(&mut openapi);
    openapi
}

/// The whole application: API routes (with and without `/api`), docs, fallbacks and layers.
pub fn build(app: AppContext) -> Router {
    let (prefixed, _) = OpenApiRouter::new().nest("/api", api_routes()).split_for_parts();
    let (plain, _) = api_routes().split_for_parts();
    let openapi = Arc::new(openapi());
    let docs = Router::new()
        .route("/llms.txt", get(docs::llms_txt))
        .route("/llms-full.txt", get(docs::llms_full_txt))
        .route("/api/docs", get(docs::openapi_json))
        .route("/docs", get(docs::openapi_json))
        .with_state(openapi);
    // For the operator and the load balancer: no credentials, no rate limit (keep them behind
    // the proxy's access rules; see the deployment guide).
    let operations = Router::new()
        .route("/metrics", get(observability::metrics_text))
        .route("/healthz", get(observability::healthz))
        .route("/readyz", get(observability::readyz))
        .with_state(app.clone());
    Router::new()
        .merge(prefixed)
        .merge(plain)
        .merge(timbra_panel::router())
        .merge(crate::autofactura::router())
        .merge(crate::mcp::router(&app))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), rate_limit))
        .with_state(app.clone())
        .merge(docs)
        .merge(operations)
        .layer(axum::extract::DefaultBodyLimit::max(app.config.max_body_bytes))
        .layer(middleware::from_fn_with_state(app.config.max_body_bytes, limit_body))
        .layer(middleware::from_fn(envelope_and_mode))
        .layer(CatchPanicLayer::custom(|_| {
            crate::error::HttpError(ApiError::internal("handler panicked", "panic")).into_response()
        }))
        .layer(middleware::map_response(nosniff))
        .layer(middleware::map_response(html_headers))
        // Outermost: the request id and span cover everything below, and the status counted
        // is the one the client gets.
        .layer(middleware::from_fn(observability::track))
}

/// Bounds every body the process reads, whoever reads it: a declared `Content-Length` over the
/// limit is refused before a byte of the body is read, and any other body is wrapped so that
/// reading past the limit fails (axum's extractors turn that into 413; the dashboard's form
/// reader too). `DefaultBodyLimit` alone covers only axum's own extractors, and the dashboard
/// collects its forms itself (issue 28, finding 1: 200 MiB read before the CSRF refusal).
async fn limit_body(State(limit): State<usize>, request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    // The retentions batch has its own, larger limit (documented on its route).
    let limit = if crate::routes::retenciones::lote::es_lote(request.uri().path()) {
        limit.max(crate::routes::retenciones::lote::LOTE_MAX_BYTES)
    } else {
        limit
    };
    if declared.is_some_and(|length| length > limit as u64) {
        return body_too_large(request.uri().path(), limit);
    }
    next.run(request.map(|body| Body::new(http_body_util::Limited::new(body, limit)))).await
}

/// 413: `REQUEST_002` for the API, the dashboard's error page under `/panel`.
pub fn body_too_large(path: &str, limit: usize) -> Response {
    let error = ApiError::new(
        Code::Request002,
        format!("the request body is larger than {limit} bytes (TIMBRA_MAX_BODY_BYTES); send less"),
    );
    if es_panel(path) {
        return timbra_panel::Fallo::Api(error).into_response();
    }
    crate::error::HttpError(error).into_response()
}

/// Whether `path` is one of the dashboard's, whose errors are pages rather than envelopes.
fn es_panel(path: &str) -> bool {
    path == "/panel" || path.starts_with("/panel/")
}

async fn not_found(uri: axum::http::Uri) -> Response {
    if es_panel(uri.path()) {
        return timbra_panel::pagina_no_encontrada();
    }
    crate::error::HttpError(ApiError::new(
        Code::NotFound,
        "no such route; the API is documented at /llms-full.txt and /api/docs",
    ))
    .into_response()
}

async fn method_not_allowed() -> crate::error::HttpError {
    ApiError::new(Code::MethodNotAllowed, "this route does not accept this method; see /api/docs").into()
}

/// Limits by client address before authentication and by the verified key or session after
/// it. A request without a credential draws from its address's bucket. A request with one is
/// refused unverified when its address has used up its bucket (on anonymous requests or invalid
/// credentials); otherwise the credential is verified here, and a valid one draws from its own
/// bucket while an invalid one draws from the address's. So made-up keys or cookies never buy a
/// fresh bucket. The verification travels to the handler in [`Verified`].
async fn rate_limit(State(app): State<AppContext>, mut request: Request, next: Next) -> Response {
    let ip = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |info| info.0.ip());
    if !carries_credential(request.headers()) {
        if let Err(wait) = app.rate_limiter.check(Bucket::Ip(ip)).await {
            return too_many_requests(wait);
        }
        return next.run(request).await;
    }
    if let Err(wait) = app.rate_limiter.peek(Bucket::Ip(ip)).await {
        return too_many_requests(wait);
    }
    let verified = authenticate(&app, request.headers()).await;
    let drawn = match &verified {
        Ok((_, credential)) => app.rate_limiter.check(Bucket::Credential(credential.bucket_id())).await,
        Err(_) => app.rate_limiter.check(Bucket::Ip(ip)).await,
    };
    if let Err(wait) = drawn {
        return too_many_requests(wait);
    }
    request.extensions_mut().insert(Verified(verified));
    next.run(request).await
}

/// 429 RATE_001 with `Retry-After` in whole seconds (at least 1).
pub fn too_many_requests(wait: std::time::Duration) -> Response {
    let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    let mut error = ApiError::new(Code::Rate001, format!("too many requests; retry in {seconds} s"));
    error.retry_after = Some(seconds);
    crate::error::HttpError(error).into_response()
}

/// Sets `X-Service-Mode` from the company the request acted on, and turns any error that is not
/// already an envelope (a framework rejection, a panic) into one.
async fn envelope_and_mode(mut request: Request, next: Next) -> Response {
    let mode = ModeSlot::default();
    request.extensions_mut().insert(mode.clone());
    let mut response = next.run(request).await;
    if response.status().is_client_error() || response.status().is_server_error() {
        let is_envelope_or_page = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json") || value.starts_with("text/html"));
        // The dashboard's pages are HTML in Spanish: they stay as they are.
        if !is_envelope_or_page {
            response = wrap_plain_error(response).await;
        }
    }
    response.headers_mut().insert("x-service-mode", HeaderValue::from_static(mode.header_value()));
    response
}

async fn wrap_plain_error(response: Response) -> Response {
    let status = response.status();
    let text = match response.into_body().collect().await {
        Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
        Err(_) => String::new(),
    };
    let code = match status {
        StatusCode::PAYLOAD_TOO_LARGE => Code::Request002,
        StatusCode::NOT_FOUND => Code::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => Code::MethodNotAllowed,
        StatusCode::TOO_MANY_REQUESTS => Code::Rate001,
        status if status.is_client_error() => Code::Request001,
        _ => Code::Internal,
    };
    let message = if code == Code::Internal || text.is_empty() { code.description().to_owned() } else { text };
    let mut error = crate::error::HttpError(ApiError::new(code, message)).into_response();
    *error.status_mut() = status;
    error.map(Body::new)
}

/// The policy of every HTML page: scripts, styles and images only from this origin (no inline
/// script, no `eval`: the dashboard's behaviour lives in `panel.js` and htmx), forms posted only
/// here, and never framed by another page.
pub const HTML_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/// Every HTML answer (the dashboard's pages and its error pages) carries [`HTML_CSP`],
/// `X-Frame-Options: DENY` (for browsers without `frame-ancestors`) and `Referrer-Policy:
/// same-origin`: a page of another site cannot frame the dashboard and click through it, and
/// the ids in the dashboard's addresses never leave for other sites (issue 28, finding 7).
async fn html_headers(mut response: Response) -> Response {
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    if is_html {
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(HTML_CSP));
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    }
    response
}

/// Every answer, pages, JSON, files and errors alike, carries `X-Content-Type-Options:
/// nosniff`: a browser never reads a body as another type than the one declared (issue 28: a
/// received CFDI served as XML must never become a page of this origin).
async fn nosniff(mut response: Response) -> Response {
    response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}
