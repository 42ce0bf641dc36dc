//! Webhooks end to end against a real receiver on loopback, with a driven clock.

use std::time::Duration;
use timbra_store::ids::{CfdiId, EmpresaId, WebhookId};

use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::Sha256;
use timbra_services::clock::Clock;
use timbra_services::config::Config;
use timbra_services::events::payloads::{Cancelacion, FacturaTimbrada};
use timbra_services::events::{self, Event};

use crate::harness::{As, TestApp, each_backend, each_backend_with};
use crate::receiver::{Receiver, wait_for};

/// Private targets allowed (the receiver is on loopback), a 1 s timeout, quick polling and a
/// clock the test moves.
fn driven(clock: &Clock) -> impl Fn(&mut Config) + use<> {
    let clock = clock.clone();
    move |config: &mut Config| {
        config.clock = clock.clone();
        config.webhooks.allow_private = true;
        config.webhooks.timeout = Duration::from_secs(1);
        config.jobs.poll = Duration::from_millis(20);
    }
}

/// A user with a company; acts as its PROPIETARIO.
async fn company(app: &TestApp, email: &str, rfc: &str) -> (As, String) {
    let (_, key) = app.user(email).await;
    let empresa = app.empresa(&key, rfc).await;
    (As::key(&key).in_empresa(&empresa), empresa)
}

async fn webhook(app: &TestApp, who: &As, body: Value) -> Value {
    app.post("/api/webhooks", who, body).await.data(201).clone()
}

async fn emit(app: &TestApp, clock: &Clock, empresa: &str, event: Event) -> String {
    let mut tx = app.db.begin().await.unwrap();
    let id = events::emit(&mut tx, clock.now(), &EmpresaId::from(empresa), &event).await.unwrap();
    tx.commit().await.unwrap();
    id
}

async fn deliveries(app: &TestApp, who: &As, webhook_id: &WebhookId) -> Vec<Value> {
    app.get(&format!("/api/webhooks/{webhook_id}/deliveries"), who).await.data(200)["items"].as_array().unwrap().clone()
}

/// A `factura.timbrada` of invoice `cfdi_id` for 1,160.00.
fn timbrada(cfdi_id: &CfdiId) -> Event {
    Event::FacturaTimbrada(FacturaTimbrada {
        cfdi_id: cfdi_id.to_string(),
        uuid: "SANDBOX-1".into(),
        total: rust_decimal::Decimal::new(116000, 2),
        serie: "A".into(),
        folio: "7".into(),
        tipo_comprobante: Some("I".into()),
        monto: None,
        global: None,
    })
}

fn expected_signature(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

fn at(value: &Value) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(value.as_str().unwrap(), &time::format_description::well_known::Rfc3339).unwrap()
}

#[tokio::test]
async fn deliveries_are_signed_with_the_documented_recipe() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(driven(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let receiver = Receiver::start().await;
            let (owner, empresa) = company(&app, "a@example.com", "EKU9003173C9").await;
            let created = webhook(&app, &owner, json!({ "url": receiver.url, "description": "ERP" })).await;
            let secret = created["secret"].as_str().unwrap().to_owned();
            assert!(secret.starts_with("whsec_") && secret.len() > 40, "{secret}");
            assert_eq!(created["events"], Value::Null);
            let id = created["id"].as_str().unwrap().to_owned();
            // The secret is shown once.
            let shown = app.get(&format!("/api/webhooks/{id}"), &owner).await;
            assert!(shown.data(200).get("secret").is_none());
            assert_eq!(app.get("/api/webhooks", &owner).await.data(200)["total"], json!(1));

            let data: Value = serde_json::from_str(
                r#"{ "cfdiId": "c-1", "uuid": "SANDBOX-1", "total": 1160.00, "serie": "A", "folio": "7", "tipoComprobante": "I" }"#,
            )
            .unwrap();
            let event_id = emit(&app, &clock, &empresa, timbrada(&CfdiId::from("c-1"))).await;
            wait_for(10, "the delivery", async || !receiver.accepted().is_empty()).await;
            let hit = &receiver.accepted()[0];
            assert_eq!(hit.content_type, "application/json");
            assert_eq!(hit.signature, expected_signature(&secret, &hit.body));
            let body = hit.json();
            assert_eq!(
                (body["id"].as_str(), body["type"].as_str()),
                (Some(event_id.as_str()), Some("factura.timbrada"))
            );
            assert_eq!(body["data"], data);
            assert_eq!(body["data"]["total"].to_string(), "1160.00", "amount kept exactly");
            at(&body["created"]);

            wait_for(10, "the log to say succeeded", async || {
                deliveries(&app, &owner, &WebhookId::from(&id)).await.first().is_some_and(|d| d["status"] == json!("succeeded"))
            })
            .await;
            let log = deliveries(&app, &owner, &WebhookId::from(&id)).await;
            assert_eq!((log[0]["attempts"].clone(), log[0]["lastStatusCode"].clone()), (json!(1), json!(200)));
            assert_eq!(log[0]["eventId"], json!(event_id));
            assert!(log[0]["lastLatencyMs"].as_i64().is_some());

            // Rotation: the next delivery (a test ping) is signed with the new secret only.
            let rotated = app.post(&format!("/api/webhooks/{id}/rotate-secret"), &owner, json!({})).await;
            let new_secret = rotated.data(200)["secret"].as_str().unwrap().to_owned();
            assert_ne!(new_secret, secret);
            let ping = app.post(&format!("/api/webhooks/{id}/test"), &owner, json!({})).await;
            assert_eq!(ping.data(201)["eventType"], json!("webhook.ping"));
            wait_for(10, "the ping", async || receiver.accepted().len() == 2).await;
            let hit = &receiver.accepted()[1];
            assert_eq!(hit.json()["type"], json!("webhook.ping"));
            assert_eq!(hit.signature, expected_signature(&new_secret, &hit.body));
            assert_ne!(hit.signature, expected_signature(&secret, &hit.body));

            // Manual redelivery sends the same event id again.
            let first = deliveries(&app, &owner, &WebhookId::from(&id)).await.last().unwrap()["id"].as_str().unwrap().to_owned();
            let again = app.post(&format!("/api/webhooks/deliveries/{first}/redeliver"), &owner, json!({})).await;
            assert_eq!(again.data(201)["eventId"], json!(event_id));
            wait_for(10, "the redelivery", async || receiver.accepted().len() == 3).await;
            assert_eq!(receiver.accepted()[2].json()["id"], json!(event_id));
        }
    })
    .await;
}

#[tokio::test]
async fn a_receiver_failing_twice_gets_the_event_on_the_third_attempt_at_the_scheduled_times() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(driven(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let receiver = Receiver::start().await;
            receiver.plan(&[500, 503]);
            let (owner, empresa) = company(&app, "a@example.com", "EKU9003173C9").await;
            let id = webhook(&app, &owner, json!({ "url": receiver.url })).await["id"].as_str().unwrap().to_owned();
            let event_id = emit(&app, &clock, &empresa, timbrada(&CfdiId::from("x"))).await;

            // Attempts and status are written together, after the answer.
            let logged = async |attempts: i64| {
                deliveries(&app, &owner, &WebhookId::from(&id)).await[0]["attempts"] == json!(attempts)
            };
            wait_for(10, "the first attempt", async || logged(1).await).await;
            let log = deliveries(&app, &owner, &WebhookId::from(&id)).await;
            assert_eq!((log[0]["status"].clone(), log[0]["lastStatusCode"].clone()), (json!("pending"), json!(500)));
            assert!(log[0]["lastError"].as_str().unwrap().contains("HTTP 500"), "{}", log[0]);
            assert_eq!(at(&log[0]["nextRetryAt"]) - at(&log[0]["updatedAt"]), time::Duration::minutes(1));

            // Not before its time.
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(receiver.arrived().len(), 1);
            clock.advance(Duration::from_secs(61));
            wait_for(10, "the second attempt", async || logged(2).await).await;
            let log = deliveries(&app, &owner, &WebhookId::from(&id)).await;
            assert_eq!(log[0]["lastStatusCode"], json!(503));
            assert_eq!(at(&log[0]["nextRetryAt"]) - at(&log[0]["updatedAt"]), time::Duration::minutes(5));
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(receiver.arrived().len(), 2);

            clock.advance(Duration::from_secs(301));
            wait_for(10, "the third attempt", async || receiver.accepted().len() == 1).await;
            assert_eq!(receiver.accepted()[0].json()["id"], json!(event_id));
            wait_for(10, "success in the log", async || {
                deliveries(&app, &owner, &WebhookId::from(&id)).await[0]["status"] == json!("succeeded")
            })
            .await;
            let log = deliveries(&app, &owner, &WebhookId::from(&id)).await;
            assert_eq!((log[0]["attempts"].clone(), log[0]["nextRetryAt"].clone()), (json!(3), Value::Null));
            assert_eq!(receiver.arrived().len(), 3);
        }
    })
    .await;
}

#[tokio::test]
async fn after_six_failures_the_delivery_fails_and_its_job_is_dead_with_the_error() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(driven(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let receiver = Receiver::start().await;
            receiver.plan(&[500; 10]);
            let (owner, empresa) = company(&app, "a@example.com", "EKU9003173C9").await;
            let id = webhook(&app, &owner, json!({ "url": receiver.url })).await["id"].as_str().unwrap().to_owned();
            emit(&app, &clock, &empresa, timbrada(&CfdiId::from("x"))).await;
            for (attempt, wait) in [(1, 60), (2, 300), (3, 1800), (4, 7200), (5, 86400)] {
                wait_for(10, "an attempt", async || receiver.arrived().len() == attempt).await;
                wait_for(10, "its bookkeeping", async || {
                    deliveries(&app, &owner, &WebhookId::from(&id)).await[0]["attempts"] == json!(attempt)
                })
                .await;
                clock.advance(Duration::from_secs(wait + 1));
            }
            wait_for(10, "the last attempt", async || receiver.arrived().len() == 6).await;
            wait_for(10, "failed", async || {
                deliveries(&app, &owner, &WebhookId::from(&id)).await[0]["status"] == json!("failed")
            })
            .await;
            let log = deliveries(&app, &owner, &WebhookId::from(&id)).await;
            assert_eq!((log[0]["attempts"].clone(), log[0]["nextRetryAt"].clone()), (json!(6), Value::Null));
            let dead = app.get("/api/jobs?status=dead", &owner).await;
            let items = dead.data(200)["items"].as_array().unwrap().clone();
            assert_eq!(items.len(), 1);
            assert_eq!((items[0]["kind"].clone(), items[0]["attempts"].clone()), (json!("webhook.deliver"), json!(6)));
            assert!(items[0]["lastError"].as_str().unwrap().contains("HTTP 500"));
            // No seventh attempt, however long we wait.
            clock.advance(Duration::from_secs(7 * 86400));
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(receiver.arrived().len(), 6);
        }
    })
    .await;
}

#[tokio::test]
async fn a_slow_receiver_counts_as_a_failure() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(driven(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let receiver = Receiver::start().await;
            // Answers 200 after 15 s; the configured timeout (1 s here, 10 s by default) is shorter.
            receiver.delay(Duration::from_secs(15));
            let (owner, empresa) = company(&app, "a@example.com", "EKU9003173C9").await;
            let id = webhook(&app, &owner, json!({ "url": receiver.url })).await["id"].as_str().unwrap().to_owned();
            emit(&app, &clock, &empresa, timbrada(&CfdiId::from("x"))).await;
            wait_for(10, "the timed-out attempt", async || {
                deliveries(&app, &owner, &WebhookId::from(&id)).await[0]["attempts"] == json!(1)
            })
            .await;
            let log = deliveries(&app, &owner, &WebhookId::from(&id)).await;
            assert_eq!((log[0]["status"].clone(), log[0]["lastStatusCode"].clone()), (json!("pending"), Value::Null));
            assert!(log[0]["lastError"].as_str().unwrap().contains("no answer within 1 s"), "{}", log[0]);
            assert!(log[0]["nextRetryAt"].is_string());
        }
    })
    .await;
}

#[tokio::test]
async fn events_reach_only_subscribed_endpoints_of_their_own_company() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(driven(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let (a_receiver, b_receiver, paused) =
                (Receiver::start().await, Receiver::start().await, Receiver::start().await);
            let (a, a_empresa) = company(&app, "a@example.com", "EKU9003173C9").await;
            let (b, b_empresa) = company(&app, "b@example.com", "XIA190128J61").await;
            webhook(&app, &a, json!({ "url": a_receiver.url, "events": ["factura.cancelada"] })).await;
            let everything = webhook(&app, &b, json!({ "url": b_receiver.url, "events": [] })).await;
            assert_eq!(everything["events"], Value::Null);
            let paused_id = webhook(&app, &a, json!({ "url": paused.url })).await["id"].as_str().unwrap().to_owned();
            let patched = app
                .call(Method::PATCH, &format!("/api/webhooks/{paused_id}"), &a, Some(json!({ "active": false })))
                .await;
            assert_eq!(patched.data(200)["active"], json!(false));

            emit(&app, &clock, &a_empresa, timbrada(&CfdiId::from("n1"))).await;
            let cancelled = emit(
                &app,
                &clock,
                &a_empresa,
                Event::FacturaCancelada(Cancelacion {
                    cfdi_id: "n2".into(),
                    uuid: "SANDBOX-2".into(),
                    motivo: Some("02".into()),
                    cancellation_status: "SIN_ACEPTACION".into(),
                }),
            )
            .await;
            let b_event = emit(&app, &clock, &b_empresa, timbrada(&CfdiId::from("n3"))).await;
            wait_for(10, "A's cancellation", async || a_receiver.accepted().len() == 1).await;
            wait_for(10, "B's invoice", async || b_receiver.accepted().len() == 1).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert_eq!(a_receiver.arrived().len(), 1);
            assert_eq!(a_receiver.accepted()[0].json()["id"], json!(cancelled));
            assert_eq!(b_receiver.arrived().len(), 1);
            assert_eq!(b_receiver.accepted()[0].json()["id"], json!(b_event));
            assert!(paused.arrived().is_empty());
            // B's job list shows only B's work.
            let b_jobs = app.get("/api/jobs", &b).await;
            assert_eq!(b_jobs.data(200)["total"], json!(1));
        }
    })
    .await;
}

#[tokio::test]
async fn bad_input_is_refused_with_webhook_001() {
    each_backend(|app: TestApp| async move {
        let (owner, _) = company(&app, "a@example.com", "EKU9003173C9").await;
        for (body, field) in [
            (json!({}), "url"),
            (json!({ "url": "http://127.0.0.1:9/hook" }), "url"),
            (json!({ "url": "http://10.0.0.5/hook" }), "url"),
            (json!({ "url": "http://169.254.169.254/latest/meta-data" }), "url"),
            (json!({ "url": "http://[::1]:8080/" }), "url"),
            (json!({ "url": "http://localhost:8080/" }), "url"),
            (json!({ "url": "ftp://example.com/x" }), "url"),
            (json!({ "url": "not a url" }), "url"),
            (json!({ "url": "https://93.184.215.14/hook", "events": ["factura.timbrada", "nope"] }), "events[1]"),
            (json!({ "url": "https://93.184.215.14/hook", "events": ["webhook.ping"] }), "events[0]"),
            (json!({ "url": "https://93.184.215.14/hook", "description": "x".repeat(501) }), "description"),
        ] {
            let answer = app.post("/api/webhooks", &owner, body.clone()).await;
            answer.assert_error(400, "WEBHOOK_001");
            assert_eq!(answer.body["error"]["details"]["fields"][0]["field"], json!(field), "{body}");
        }
        app.post("/api/webhooks", &owner, json!({ "url": 5 })).await.assert_error(400, "REQUEST_001");
        // A public address is accepted (nothing is sent until an event happens).
        let created =
            webhook(&app, &owner, json!({ "url": "https://93.184.215.14/hook", "events": ["factura.timbrada"] })).await;
        let id = created["id"].as_str().unwrap();
        let patch = app
            .call(Method::PATCH, &format!("/api/webhooks/{id}"), &owner, Some(json!({ "url": "http://192.168.1.10/" })))
            .await;
        patch.assert_error(400, "WEBHOOK_001");
        app.get("/api/jobs?status=stuck", &owner).await.assert_error(400, "JOB_001");
        app.get("/api/webhooks/00000000-0000-7000-8000-000000000000", &owner).await.assert_error(404, "NOT_FOUND");
        let deleted = app.call(Method::DELETE, &format!("/api/webhooks/{id}"), &owner, None).await;
        assert_eq!(deleted.data(200)["deleted"], json!(true));
        app.get(&format!("/api/webhooks/{id}"), &owner).await.assert_error(404, "NOT_FOUND");
        app.post("/api/webhooks", &As::default(), json!({})).await.assert_error(401, "AUTH_001");
    })
    .await;
}

#[tokio::test]
async fn stamping_and_an_expiring_csd_emit_their_events_once() {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use timbra_credentials::testgen::{self, Options};

    let clock = Clock::shifted(0, 1.0);
    // Valid for 10 more days: inside the 30-day notice window.
    let now = clock.now();
    let csd = testgen::generate(&Options::csd(
        "EKU9003173C9",
        "ESCUELA KEMPER URGATE",
        now - time::Duration::days(300),
        now + time::Duration::days(10),
    ))
    .unwrap();
    each_backend_with(driven(&clock), |app: TestApp| {
        let (clock, csd) = (clock.clone(), csd.clone());
        async move {
            let receiver = Receiver::start().await;
            let (who, empresa) = company(&app, "expira@example.com", "EKU9003173C9").await;
            let events = json!(["factura.timbrada", "certificado.por_expirar"]);
            webhook(&app, &who, json!({ "url": receiver.url, "events": events })).await;
            let upload = json!({ "cerBase64": STANDARD.encode(&csd.cer_der),
                "keyBase64": STANDARD.encode(&csd.key_der_encrypted), "password": "12345678a" });
            app.post(&format!("/api/empresas/{empresa}/certificados"), &who, upload).await.data(201);

            // factura.timbrada: SPEC.md's data, total as an exact JSON number.
            let factura = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [{ "claveProdServ": "81112100",
                "claveUnidad": "E48", "descripcion": "Asesoría", "cantidad": 1, "precioUnitario": "100" }] });
            let stamped = app.post("/api/cfdi/timbrar", &who, factura).await.data(201).clone();
            wait_for(10, "factura.timbrada", async || receiver.accepted().len() == 1).await;
            let body: Value = serde_json::from_slice(&receiver.accepted()[0].body).unwrap();
            assert_eq!(body["type"], "factura.timbrada");
            assert_eq!(body["data"]["cfdiId"], stamped["cfdiId"]);
            assert_eq!(body["data"]["uuid"], stamped["uuid"]);
            assert_eq!(body["data"]["folio"], stamped["folio"]);
            assert_eq!(body["data"]["serie"], stamped["serie"]);
            assert_eq!(serde_json::to_string(&body["data"]["total"]).unwrap(), "116.00");

            // The daily check announces the certificate once, however many days it runs.
            let runs = async || {
                let mut conn = app.db.conn().await.unwrap();
                timbra_store::sql!(scalar_one conn, i64,
                    "SELECT COUNT(*) FROM jobs WHERE kind = 'certificados.por_expirar' AND status = 'done'")
                .unwrap()
            };
            clock.advance(Duration::from_secs(86_400));
            wait_for(10, "certificado.por_expirar", async || receiver.accepted().len() == 2).await;
            let body: Value = serde_json::from_slice(&receiver.accepted()[1].body).unwrap();
            assert_eq!(body["type"], "certificado.por_expirar");
            assert_eq!(body["data"]["empresaId"], empresa.as_str());
            assert_eq!(body["data"]["rfc"], "EKU9003173C9");
            assert_eq!(body["data"]["noCertificado"].as_str().unwrap().len(), 20);
            // The clock is shared by both backends' runs, so days are counted from the event's time.
            let (created, fin) = (at(&body["created"]), at(&body["data"]["vigenciaFin"]));
            assert_eq!(fin.unix_timestamp(), (now + time::Duration::days(10)).unix_timestamp());
            assert_eq!(body["data"]["diasRestantes"].as_i64().unwrap(), (fin - created).whole_days(), "{body}");
            assert!((fin - created) < time::Duration::days(30));
            let before = runs().await;
            clock.advance(Duration::from_secs(86_400));
            wait_for(10, "the next day's check", async || runs().await > before).await;
            assert_eq!(receiver.accepted().len(), 2, "announced only once");
        }
    })
    .await;
}
