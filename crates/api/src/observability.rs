//! What an operator watches: request ids and logs, `/metrics`, `/healthz`, `/readyz`.
//!
//! Every request gets an id: the client's `x-request-id` when it sends a sane one (1–128
//! characters of letters, digits, `-`, `_`, `.`, `:`), otherwise a new UUID. The response
//! carries it back, and every log line written while the request runs is inside a `request`
//! span with that id, so `TIMBRA_LOG_FORMAT=json` lines repeat it (`span.request_id`).

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tracing::Instrument;

use timbra_services::context::AppContext;
use timbra_services::metrics::{HttpLabels, metrics};

/// The request id header, in both directions.
pub const REQUEST_ID: &str = "x-request-id";

/// The request id the client sent, when it is one we can log and echo as is.
fn client_request_id(request: &Request) -> Option<HeaderValue> {
    let value = request.headers().get(REQUEST_ID)?;
    let bytes = value.as_bytes();
    let sane = (1..=128).contains(&bytes.len())
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    sane.then(|| value.clone())
}

/// The target of the access lines, as the guide documents it (`TIMBRA_LOG=info,timbra_server::observability=warn`
/// leaves them out); it kept its name when this module moved to `timbra-api`.
pub const ACCESS_LOG: &str = "timbra_server::observability";

/// Gives the request its id and span, times it, counts it in `/metrics` by route template and
/// status, and puts the id on the response. One access line per request at the default level
/// (issue 38): `info`, or `warn` for a 5xx answer; its span carries the request id, method and
/// route template (never the path's values, a query, a header or a body), the line the status
/// and duration.
pub async fn track(mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = client_request_id(&request).unwrap_or_else(|| {
        HeaderValue::from_str(&uuid::Uuid::new_v4().to_string()).unwrap_or(HeaderValue::from_static("unknown"))
    });
    request.headers_mut().insert(REQUEST_ID, id.clone());
    let route = request.extensions().get::<MatchedPath>().map_or("unmatched", MatchedPath::as_str).to_owned();
    let method = request.method().as_str().to_owned();
    let span =
        tracing::info_span!("request", request_id = id.to_str().unwrap_or("-"), method = %method, route = %route);
    let mut response = next.run(request).instrument(span.clone()).await;
    let took = started.elapsed();
    let status = response.status();
    span.in_scope(|| {
        let ms = took.as_secs_f64() * 1000.0;
        if status.is_server_error() {
            tracing::event!(target: ACCESS_LOG, tracing::Level::WARN, status = status.as_u16(), duration_ms = ms, "request failed");
        } else {
            tracing::event!(target: ACCESS_LOG, tracing::Level::INFO, status = status.as_u16(), duration_ms = ms, "request");
        }
    });
    metrics().http.get_or_create(&HttpLabels { route, method, status: status.as_u16() }).observe(took.as_secs_f64());
    response.headers_mut().insert(REQUEST_ID, id);
    response
}

/// `GET /metrics`: every metric in the OpenMetrics text format Prometheus scrapes.
pub async fn metrics_text(State(app): State<AppContext>) -> Response {
    let body = timbra_services::metrics::render(&app.db, app.clock.now()).await;
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        )],
        body,
    )
        .into_response()
}

/// `GET /healthz`: the process is up and serving (no dependency is checked).
pub async fn healthz() -> Response {
    axum::Json(json!({ "status": "ok" })).into_response()
}

/// `GET /readyz`: the database answers and the file storage takes and gives back a file; 503
/// naming what failed otherwise, so a load balancer sends traffic elsewhere.
pub async fn readyz(State(app): State<AppContext>) -> Response {
    let database = match app.db.ping().await {
        Ok(()) => "ok".to_owned(),
        Err(error) => format!("unreachable: {error}"),
    };
    let storage = match app.cfdi.storage.check().await {
        Ok(()) => "ok".to_owned(),
        Err(error) => format!("unreachable: {error}"),
    };
    let ready = database == "ok" && storage == "ok";
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    // Which edition of SAT's catalogs validation holds (issue 29).
    let catalogos = json!({
        "edicion": app.catalogos.edicion.map(|fecha| fecha.to_string()),
        "origen": app.catalogos.origen.as_str(),
    });
    let body = json!({
        "status": if ready { "ready" } else { "unavailable" },
        "database": database,
        "storage": storage,
        "catalogos": catalogos,
    });
    if !ready {
        tracing::warn!(%body, "not ready");
    }
    (status, axum::Json(body)).into_response()
}

/// Log output: `TIMBRA_LOG_FORMAT=json` writes one JSON object per line with the current
/// span's fields (`span.request_id`); anything else, human-readable text, coloured only when
/// stdout is a terminal. `TIMBRA_LOG` filters.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TIMBRA_LOG")
        .unwrap_or_else(|_| "info,sqlx=warn,tower_http=warn".into());
    let json = std::env::var("TIMBRA_LOG_FORMAT").is_ok_and(|format| format.eq_ignore_ascii_case("json"));
    // Colour codes only for a person at a terminal: a log file, a pipe or a container's log
    // collector gets plain text (issue 38).
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi);
    if json {
        builder.json().with_current_span(true).with_span_list(false).init();
    } else {
        builder.init();
    }
}
