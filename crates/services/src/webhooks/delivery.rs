//! Delivering one event to one endpoint: a signed POST, a 2xx within the timeout or a retry at
//! 1 min, 5 min, 30 min, 2 h and 24 h, then `failed`.

use std::time::{Duration, Instant};
use timbra_store::ids::{EventId, WebhookId};

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::context::AppContext;
use crate::jobs::{Attempt, Claimed, Job, Next};
use timbra_store::Tx;
use timbra_store::webhooks as webhooks_db;

/// Waits before the retries after failed attempts 1 to 5 (SPEC.md "Events").
pub const RETRY_SCHEDULE: [Duration; 5] = [
    Duration::from_secs(60),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(24 * 3600),
];

/// The most of a response body read (only a snippet is kept for the log).
const BODY_CAP: usize = 16 * 1024;

/// The job: deliver one `webhook_deliveries` row.
pub struct Deliver;

/// The body sent: `{ id, type, created, data }`.
pub fn envelope(event_id: &EventId, event_type: &str, created: OffsetDateTime, data: &str) -> Result<Vec<u8>, String> {
    let data: Value = serde_json::from_str(data).map_err(|error| format!("stored event data is not JSON: {error}"))?;
    let created = created.format(&time::format_description::well_known::Rfc3339).map_err(|error| error.to_string())?;
    serde_json::to_vec(&json!({ "id": event_id, "type": event_type, "created": created, "data": data }))
        .map_err(|error| error.to_string())
}

pub use crate::events::DeliveryPayload as Payload;

impl Job for Deliver {
    type Context = AppContext;
    const KIND: &'static str = crate::events::DELIVERY_KIND;
    type Payload = Payload;
    const MAX_ATTEMPTS: i64 = crate::events::DELIVERY_MAX_ATTEMPTS;

    fn backoff(attempt: i64) -> Duration {
        let index = usize::try_from(attempt.max(1) - 1).unwrap_or(0).min(RETRY_SCHEDULE.len() - 1);
        RETRY_SCHEDULE[index]
    }

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let payload = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        let target = async {
            let mut conn = app.db.conn().await?;
            webhooks_db::delivery_target(&mut conn, &payload.delivery_id).await
        }
        .await;
        let target = match target {
            Ok(Some(target)) => target,
            Ok(None) => return Attempt::fail("the delivery no longer exists"),
            Err(error) => return Attempt::retry(format!("database: {error}"), Value::Null),
        };
        if target.deleted_at.is_some() {
            return Attempt::fail("the webhook was deleted");
        }
        if !target.active && target.event_type != crate::events::EventType::WebhookPing.as_str() {
            return Attempt::fail("the webhook is disabled");
        }
        let body = match envelope(&EventId::from(&target.event_id), &target.event_type, target.created_at, &target.data)
        {
            Ok(body) => body,
            Err(error) => return Attempt::fail(error),
        };
        let secret = match app
            .cfdi
            .master()
            .map_err(|error| error.message)
            .and_then(|master| super::open_secret(master, &WebhookId::from(&target.webhook_id), &target.secret))
        {
            Ok(secret) => secret,
            Err(error) => return Attempt::retry(format!("webhook secret: {error}"), Value::Null),
        };
        post(&app, &target.url, &secret, body).await
    }

    // Spelled out to match the trait's single lifetime, which the type-erased registry needs.
    #[allow(clippy::manual_async_fn)]
    fn record<'a>(
        tx: &'a mut Tx,
        now: OffsetDateTime,
        job: &'a Claimed,
        attempt: &'a Attempt,
        next: &'a Next,
    ) -> impl Future<Output = timbra_store::DbResult<()>> + Send + 'a {
        async move {
            let Ok(Payload { delivery_id }) = job.payload::<Self>() else {
                return Ok(());
            };
            let (status, next_retry_at) = match next {
                Next::Done => ("succeeded", None),
                Next::Retry(at) => ("pending", Some(*at)),
                Next::Dead => ("failed", None),
            };
            crate::metrics::metrics().webhook_delivery(match next {
                Next::Done => "succeeded",
                Next::Retry(_) => "retry",
                Next::Dead => "failed",
            });
            let outcome = webhooks_db::DeliveryOutcome {
                status,
                attempts: job.attempts,
                next_retry_at,
                last_status_code: attempt.info["statusCode"].as_i64(),
                last_latency_ms: attempt.info["latencyMs"].as_i64(),
                last_error: attempt.error.as_deref(),
            };
            webhooks_db::record_delivery(tx, &delivery_id, &outcome, now).await?;
            Ok(())
        }
    }
}

/// Sends one signed POST and judges the answer.
async fn post(app: &AppContext, url: &str, secret: &str, body: Vec<u8>) -> Attempt {
    // Names are filtered by the client's resolver; literal addresses are checked here.
    let allow_private = app.config.webhooks.allow_private;
    if !allow_private
        && let Ok(parsed) = reqwest::Url::parse(url)
        && let Some(ip) = parsed.host_str().and_then(|host| host.trim_matches(['[', ']']).parse().ok())
        && !super::is_public(ip)
    {
        return Attempt::fail(format!("{ip} is not a public address"));
    }
    let signature = super::signature(secret, &body);
    let started = Instant::now();
    let sent = app
        .webhook_client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("X-Service-Signature", signature)
        .body(body)
        .send()
        .await;
    let mut response = match sent {
        Ok(response) => response,
        Err(error) => return Attempt::retry(describe(&error, app), json!({ "latencyMs": elapsed_ms(started) })),
    };
    let status = response.status();
    let mut snippet = Vec::new();
    let read = async {
        while let Some(chunk) = response.chunk().await? {
            if snippet.len() < BODY_CAP {
                snippet.extend_from_slice(&chunk[..chunk.len().min(BODY_CAP - snippet.len())]);
            } else {
                break;
            }
        }
        Ok::<_, reqwest::Error>(())
    }
    .await;
    let info = json!({ "statusCode": status.as_u16(), "latencyMs": elapsed_ms(started) });
    if let Err(error) = read {
        return Attempt::retry(describe(&error, app), info);
    }
    if status.is_success() {
        return Attempt::ok(info);
    }
    let text: String = String::from_utf8_lossy(&snippet).chars().take(200).collect();
    Attempt::retry(format!("HTTP {}: {text}", status.as_u16()), info)
}

fn describe(error: &reqwest::Error, app: &AppContext) -> String {
    if error.is_timeout() {
        format!("no answer within {} s", app.config.webhooks.timeout.as_secs_f64())
    } else if error.is_connect() {
        format!("could not connect: {error}")
    } else {
        format!("request failed: {error}")
    }
}

fn elapsed_ms(started: Instant) -> i64 {
    i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)
}
