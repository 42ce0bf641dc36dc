//! What an operator watches: `/metrics`, `/healthz`, `/readyz`, request ids and JSON logs.
//!
//! The metrics are process-wide and other tests run in the same process, so counters are
//! compared before and after (at least the increase this test caused).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::cfdi::{factura, setup, timbrar};
use crate::harness::{TestApp, each_backend};
use crate::receiver::wait_for;

/// The value of the sample `series` (name and labels exactly as exposed), 0 when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .map_or(0.0, |value| value.split_whitespace().next().unwrap().parse().unwrap())
}

async fn scrape(app: &TestApp) -> String {
    let response = app.client.get(format!("{}/metrics", app.base)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("application/openmetrics-text"), "{content_type}");
    let text = response.text().await.unwrap();
    assert!(text.ends_with("# EOF\n"), "an OpenMetrics exposition ends with # EOF");
    text
}

#[tokio::test]
async fn metrics_count_requests_by_route_stamps_by_mode_and_read_the_queue() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "metricas@example.com").await;
        let stamped = r#"timbra_stamps_total{mode="sandbox",outcome="stamped"}"#;
        let route = r#"timbra_http_request_duration_seconds_count{route="/api/cfdi/timbrar",method="POST",status="201"}"#;
        let refused = r#"timbra_http_request_duration_seconds_count{route="/api/cfdi/timbrar",method="POST",status="400"}"#;
        let before = scrape(&app).await;

        for _ in 0..3 {
            timbrar(&app, &who, &factura(&cliente), None).await.data(201);
        }
        let mut bad = factura(&cliente);
        bad["formaPago"] = json!("77");
        timbrar(&app, &who, &bad, None).await.assert_error(400, "CFDI_001");
        // A made-up path is counted under one series, not one per path.
        app.get("/api/no-such-thing/123", &who).await.assert_error(404, "NOT_FOUND");

        let after = scrape(&app).await;
        assert!(sample(&after, stamped) - sample(&before, stamped) >= 3.0, "{after}");
        assert!(sample(&after, route) - sample(&before, route) >= 3.0);
        assert!(sample(&after, refused) - sample(&before, refused) >= 1.0);
        assert!(after.contains(r#"route="unmatched",method="GET",status="404""#));
        assert!(!after.contains("no-such-thing"), "concrete paths never become labels");
        let bucket = r#"timbra_http_request_duration_seconds_bucket{le="+Inf",route="/api/cfdi/timbrar",method="POST",status="201"}"#;
        assert!(sample(&after, bucket) >= 3.0, "latency histogram buckets by route");

        // The queue is read from the database at scrape time (every instance on it reports the
        // same): two housekeeping jobs scheduled an hour from now are waiting, not yet due.
        let now = time::OffsetDateTime::now_utc();
        let at = now + time::Duration::hours(1);
        let mut conn = app.db.conn().await.unwrap();
        for day in ["2099-01-01", "2099-01-02"] {
            let job = timbra_services::jobs::NewJob::of::<timbra_services::jobs::kinds::PurgeFinished>(
                &timbra_services::jobs::Day { day: day.to_owned() },
            )
            .at(at);
            timbra_services::jobs::enqueue(&mut conn, now, job).await.unwrap();
        }
        drop(conn);
        let queued = scrape(&app).await;
        assert!(sample(&queued, r#"timbra_jobs_queued{kind="jobs.purge"}"#) >= 2.0, "{queued}");
        assert_eq!(sample(&queued, r#"timbra_jobs_oldest_due_seconds{kind="jobs.purge"}"#), 0.0, "none is due yet");
        // Seen from two hours later they are due and have waited an hour. The daily purge
        // (03:30) is queued too and, run within the hour before it, is due before them: so the
        // oldest has waited at least their hour, and at most the two hours since now.
        let later = timbra_services::jobs::queue_stats(&app.db, now + time::Duration::hours(2)).await.unwrap();
        let purge = later.iter().find(|kind| kind.kind == "jobs.purge").unwrap();
        assert!(purge.queued >= 2);
        assert!((3595.0..=7205.0).contains(&purge.oldest_due_seconds), "{}", purge.oldest_due_seconds);
        assert!(sample(&queued, r#"timbra_db_pool_connections{state="max"}"#) >= 1.0);
    })
    .await;
}

#[tokio::test]
async fn health_and_readiness_answer_without_credentials_and_readiness_names_what_failed() {
    each_backend(|app: TestApp| async move {
        let health = app.client.get(format!("{}/healthz", app.base)).send().await.unwrap();
        assert_eq!(health.status(), 200);
        let ready = app.client.get(format!("{}/readyz", app.base)).send().await.unwrap();
        assert_eq!(ready.status(), 200);
        let body: Value = ready.json().await.unwrap();
        assert_eq!(
            body,
            json!({ "status": "ready", "database": "ok", "storage": "ok",
                    "catalogos": { "edicion": "2026-08-06", "origen": "incluida" } })
        );

        // The pool closed: the database no longer answers, and readiness says so.
        app.db.close().await;
        let down = app.client.get(format!("{}/readyz", app.base)).send().await.unwrap();
        assert_eq!(down.status(), 503);
        let body: Value = down.json().await.unwrap();
        assert_eq!(body["status"], "unavailable");
        assert!(body["database"].as_str().unwrap().starts_with("unreachable"), "{body}");
        assert_eq!(body["storage"], "ok");
        let alive = app.client.get(format!("{}/healthz", app.base)).send().await.unwrap();
        assert_eq!(alive.status(), 200, "the process itself is still up");
    })
    .await;
}

#[tokio::test]
async fn every_response_carries_a_request_id_the_client_may_choose() {
    each_backend(|app: TestApp| async move {
        let made = app.client.get(format!("{}/api/clientes", app.base)).send().await.unwrap();
        assert_eq!(made.status(), 401);
        let id = made.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "a new id is a UUID: {id}");

        let chosen =
            app.client.get(format!("{}/healthz", app.base)).header("x-request-id", "job-42:a.b_c").send().await;
        assert_eq!(chosen.unwrap().headers()["x-request-id"], "job-42:a.b_c");

        // An id that could not be logged safely as is gets replaced.
        for bad in ["x".repeat(129), "two words".to_owned(), "a\"b".to_owned()] {
            let answer = app.client.get(format!("{}/healthz", app.base)).header("x-request-id", &bad).send().await;
            let echoed = answer.unwrap().headers()["x-request-id"].to_str().unwrap().to_owned();
            assert_ne!(echoed, bad);
            assert!(uuid::Uuid::parse_str(&echoed).is_ok());
        }
    })
    .await;
}

/// The built binary with `TIMBRA_LOG_FORMAT=json`: each line it logs (on stdout) is a JSON object, and the
/// lines written while a request runs carry its id.
#[tokio::test]
async fn json_logs_repeat_the_request_id_on_every_line_of_the_request() {
    let data = crate::harness::TempDir::new();
    let port = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_timbra"))
        .arg("serve")
        .env("TIMBRA_LISTEN", format!("127.0.0.1:{port}"))
        .env("TIMBRA_DATA_DIR", &data.0)
        .env_remove("TIMBRA_DATABASE_URL")
        .env("TIMBRA_RATE_LIMIT", "false")
        .env("TIMBRA_LOG_FORMAT", "json")
        .env("TIMBRA_LOG", "info,timbra_server=debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    wait_for(30, "the server to listen", async || client.get(format!("{base}/healthz")).send().await.is_ok()).await;
    let register = client
        .post(format!("{base}/api/auth/register"))
        .header("x-request-id", "trace-me-42")
        .json(&json!({ "name": "Ana", "email": "logs@example.com", "password": "Secreto1!" }))
        .send()
        .await
        .unwrap();
    assert_eq!(register.status(), 201);
    assert_eq!(register.headers()["x-request-id"], "trace-me-42");
    child.kill().unwrap();
    child.wait().unwrap();

    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| {
            let line = line.unwrap();
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("not a JSON log line: {line}"))
        })
        .collect();
    assert!(lines.iter().any(|line| line["fields"]["message"] == "timbra listening"), "{lines:#?}");
    let of_request: Vec<&Value> = lines.iter().filter(|line| line["span"]["request_id"] == "trace-me-42").collect();
    let access = of_request.iter().find(|line| line["fields"]["message"] == "request").expect("the access line");
    assert_eq!(access["fields"]["status"], 201);
    assert_eq!(access["span"]["route"], "/api/auth/register");
    assert_eq!(access["span"]["method"], "POST");
    // Every line written inside a request span names its request.
    for line in &lines {
        if line["span"]["name"] == "request" {
            assert!(line["span"]["request_id"].is_string(), "{line}");
        }
    }
}

#[tokio::test]
async fn default_logs_are_plain_text_with_one_access_line_per_request() {
    let data = crate::harness::TempDir::new();
    let port = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().port();
    // The default level: no TIMBRA_LOG.
    let mut child = Command::new(env!("CARGO_BIN_EXE_timbra"))
        .arg("serve")
        .env("TIMBRA_LISTEN", format!("127.0.0.1:{port}"))
        .env("TIMBRA_DATA_DIR", &data.0)
        .env_remove("TIMBRA_DATABASE_URL")
        .env_remove("TIMBRA_LOG_FORMAT")
        .env_remove("TIMBRA_LOG")
        .env("TIMBRA_RATE_LIMIT", "false")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    wait_for(30, "the server to listen", async || client.get(format!("{base}/healthz")).send().await.is_ok()).await;
    // A request with a secret in its header, its path and its body.
    let secreto = "tk_live_secreto_que_no_se_escribe";
    let answer = client
        .post(format!("{base}/api/cfdi/id-{secreto}/cancelar?q={secreto}"))
        .header("authorization", format!("Bearer {secreto}"))
        .header("x-request-id", "acceso-1")
        .body(format!("{{\"motivo\":\"{secreto}\"}}"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);
    // Lines are written as they happen; give the last one a moment.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    child.kill().unwrap();
    child.wait().unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut text).unwrap();
    // A log collector or a file reads these lines: plain text, no ESC [ … m sequences.
    assert!(!text.trim().is_empty(), "the server logged nothing at info");
    assert!(!text.contains('\u{1b}'), "colour codes in a piped log: {text:?}");
    // One access line per request at the default level: id, method, route template, status,
    // duration; nothing of the path's values, query, headers or body.
    let acceso: Vec<&str> = text.lines().filter(|line| line.contains("request_id=\"acceso-1\"")).collect();
    assert_eq!(acceso.len(), 1, "one line for the request: {text}");
    for campo in ["INFO", "method=POST", "route=/api/cfdi/{id}/cancelar", "status=401", "duration_ms="] {
        assert!(acceso[0].contains(campo), "{campo} missing from {:?}", acceso[0]);
    }
    assert!(text.lines().any(|line| line.contains("route=/healthz") && line.contains("status=200")), "{text}");
    assert!(!text.contains(secreto), "a secret reached the log: {text}");
}
