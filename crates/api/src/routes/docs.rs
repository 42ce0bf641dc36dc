//! Documentation endpoints: `/llms.txt` (index), `/llms-full.txt` (the whole guide in
//! Markdown) and `/api/docs` (OpenAPI 3.1 JSON generated from the route table).

use std::fmt::Write;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use timbra_services::error::Code;

/// The hand-written guide; the error table is appended from the code.
const GUIDE: &str = include_str!("../../docs/guide.md");
/// Webhooks, events and background jobs.
const WEBHOOKS: &str = include_str!("../../docs/webhooks.md");
/// The index for language models.
const INDEX: &str = include_str!("../../docs/llms.txt");

/// Markdown table of every error code with its HTTP status and meaning.
pub fn error_table() -> String {
    let mut table = String::from("| Code | HTTP | Meaning |\n|---|---|---|\n");
    for code in Code::ALL {
        let _ = writeln!(table, "| {} | {} | {} |", code.as_str(), code.status().as_u16(), code.description());
    }
    table
}

/// Adds `x-error-codes` (code → status, meaning) to the OpenAPI document.
pub fn attach_error_codes(openapi: &mut utoipa::openapi::OpenApi) {
    let codes: serde_json::Map<String, serde_json::Value> = Code::ALL
        .iter()
        .map(|code| {
            (
                code.as_str().to_owned(),
                serde_json::json!({ "status": code.status().as_u16(), "description": code.description() }),
            )
        })
        .collect();
    let mut extensions = utoipa::openapi::extensions::Extensions::default();
    extensions.insert("x-error-codes".into(), serde_json::Value::Object(codes));
    openapi.extensions.get_or_insert_with(Default::default).merge(extensions);
}

/// Adds `x-webhook-events` (type → meaning and the JSON schema of its `data`) and
/// `x-webhook-delivery` (envelope and signature) to the OpenAPI document; webhooks.md has the
/// prose. A type whose feature does not emit it yet has `data: null`.
pub fn attach_webhook_events(openapi: &mut utoipa::openapi::OpenApi) {
    use serde_json::json;
    use timbra_services::events::EventType;
    // The schema of each type's `data` comes from its payload struct (events::payloads).
    let data = |event: EventType| {
        timbra_services::events::payloads::data_schema(event)
            .and_then(|schema| serde_json::to_value(schema).ok())
            .unwrap_or(serde_json::Value::Null)
    };
    let events: serde_json::Map<String, serde_json::Value> = EventType::ALL
        .iter()
        .map(|&event| (event.as_str().to_owned(), json!({ "description": event.description(), "data": data(event) })))
        .collect();
    let delivery = json!({
        "method": "POST",
        "contentType": "application/json",
        "body": { "id": "event id (receivers drop duplicates by it)", "type": "event type", "created": "timestamp", "data": "object" },
        "signature": "X-Service-Signature: sha256=<lowercase hex HMAC-SHA-256 of the raw body with the webhook secret>",
        "retries": ["1 min", "5 min", "30 min", "2 h", "24 h"],
    });
    let mut extensions = utoipa::openapi::extensions::Extensions::default();
    extensions.insert("x-webhook-events".into(), serde_json::Value::Object(events));
    extensions.insert("x-webhook-delivery".into(), delivery);
    openapi.extensions.get_or_insert_with(Default::default).merge(extensions);
}

/// Routes that need no credentials.
pub const PUBLIC_PATHS: &[&str] = &[
    "/api/auth/register",
    "/api/auth/callback/credentials",
    "/api/nomina/calcular",
    "/api/api-keys",
    "/api/descargas/{token}",
];

/// Documents the 401 that every protected operation can answer, so the document says what the
/// route does even where a handler's annotation leaves it out.
pub fn document_unauthorized(openapi: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{RefOr, ResponseBuilder};
    for (path, item) in openapi.paths.paths.iter_mut() {
        let public = PUBLIC_PATHS.contains(&path.as_str());
        let operations = [&mut item.get, &mut item.post, &mut item.put, &mut item.patch, &mut item.delete];
        for operation in operations.into_iter().flatten() {
            if !public && !operation.responses.responses.contains_key("401") {
                let response = ResponseBuilder::new()
                    .description("AUTH_001 missing or invalid credentials; AUTH_002 user deleted")
                    .content(
                        "application/json",
                        utoipa::openapi::ContentBuilder::new()
                            .schema(Some(utoipa::openapi::Ref::from_schema_name("ErrorBody")))
                            .build(),
                    )
                    .build();
                operation.responses.responses.insert("401".into(), RefOr::T(response));
            }
        }
    }
}

/// `GET /llms.txt`.
pub async fn llms_txt() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], INDEX)
}

/// `GET /llms-full.txt`.
pub async fn llms_full_txt() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], guia_completa())
}

/// The whole guide: the hand-written text, webhooks and jobs, and the error table (the body of
/// `/llms-full.txt` and the MCP resource `timbra://guia`).
pub fn guia_completa() -> String {
    format!("{GUIDE}\n{WEBHOOKS}\n## Error codes\n\n{}", error_table())
}

/// `GET /api/docs`: the OpenAPI document.
pub async fn openapi_json(State(openapi): State<Arc<utoipa::openapi::OpenApi>>) -> impl IntoResponse {
    Json(openapi.as_ref().clone())
}
