//! Durable jobs: the built binary killed with SIGKILL mid-work and restarted loses nothing; a
//! receiver down across a restart still gets its event; daily jobs run once a day.

use std::time::Duration;

use serde_json::{Value, json};
use timbra_services::clock::Clock;
use timbra_services::config::Config;

use crate::harness::{Server, TempDir, TestApp, each_backend_with, free_port};
use crate::receiver::{Receiver, wait_for};

/// `timbra serve` as a child process on a SQLite file in `data`, its clock `offset` seconds ahead.
async fn serve_child(data: &std::path::Path, port: u16, offset: i64) -> Server {
    let env = [
        ("TIMBRA_WEBHOOKS_ALLOW_PRIVATE", "true".to_owned()),
        ("TIMBRA_WEBHOOK_TIMEOUT_SECONDS", "5".to_owned()),
        ("TIMBRA_JOBS_LEASE_SECONDS", "30".to_owned()),
        ("TIMBRA_TEST_CLOCK_OFFSET_SECONDS", offset.to_string()),
    ];
    Server::start(data, port, &env).await
}

async fn call(
    base: &str,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    empresa: Option<&str>,
    body: Value,
) -> Value {
    let mut request = reqwest::Client::new().request(method, format!("{base}{path}")).json(&body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(empresa) = empresa {
        request = request.header("x-empresa-id", empresa);
    }
    request.send().await.unwrap().json().await.unwrap()
}

async fn deliveries(base: &str, key: &str, empresa: &str, webhook: &str) -> Vec<Value> {
    let path = format!("/api/webhooks/{webhook}/deliveries?pageSize=100");
    let answer = call(base, reqwest::Method::GET, &path, Some(key), Some(empresa), Value::Null).await;
    answer["data"]["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn kill_9_mid_work_and_a_receiver_down_across_restarts_lose_nothing() {
    use reqwest::Method;
    let data = TempDir::new();
    let port = free_port().await;
    let receiver_port = free_port().await;
    let server = serve_child(&data.0, port, 0).await;
    let base = server.base.clone();

    let user = json!({ "name": "Ana", "email": "ana@example.com", "password": "Secreto1!" });
    call(&base, Method::POST, "/api/auth/register", None, None, user).await;
    let key = call(
        &base,
        Method::POST,
        "/api/api-keys",
        None,
        None,
        json!({ "name": "t", "email": "ana@example.com", "password": "Secreto1!" }),
    )
    .await["data"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let empresa = call(&base, Method::POST, "/api/empresas", Some(&key), None,
        json!({ "rfc": "EKU9003173C9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" }))
        .await["data"]["id"].as_str().unwrap().to_owned();
    // Nothing listens on the receiver's port yet.
    let url = format!("http://127.0.0.1:{receiver_port}/hook");
    let webhook = call(&base, Method::POST, "/api/webhooks", Some(&key), Some(&empresa), json!({ "url": url })).await;
    let webhook = webhook["data"]["id"].as_str().unwrap().to_owned();

    // 1. The receiver is down: the first attempt fails and a retry is scheduled 1 min later.
    let ping =
        call(&base, Method::POST, &format!("/api/webhooks/{webhook}/test"), Some(&key), Some(&empresa), json!({}))
            .await;
    let first_event = ping["data"]["eventId"].as_str().unwrap().to_owned();
    wait_for(10, "the failed attempt", async || {
        deliveries(&base, &key, &empresa, &webhook).await[0]["attempts"] == json!(1)
    })
    .await;
    let log = deliveries(&base, &key, &empresa, &webhook).await;
    assert!(log[0]["lastError"].as_str().unwrap().contains("could not connect"), "{}", log[0]);
    server.kill_9();

    // The receiver comes up; the restarted server (2 min later) delivers the retry.
    let receiver = Receiver::start_on(tokio::net::TcpListener::bind(("127.0.0.1", receiver_port)).await.unwrap()).await;
    let server = serve_child(&data.0, port, 120).await;
    wait_for(15, "the retry after the restart", async || !receiver.accepted().is_empty()).await;
    assert_eq!(receiver.accepted()[0].json()["id"], json!(first_event));

    // 2. Twenty pings in flight to a slow receiver; SIGKILL while they are being sent.
    receiver.delay(Duration::from_secs(2));
    let mut events = Vec::new();
    for _ in 0..20 {
        let ping =
            call(&base, Method::POST, &format!("/api/webhooks/{webhook}/test"), Some(&key), Some(&empresa), json!({}))
                .await;
        events.push(ping["data"]["eventId"].as_str().unwrap().to_owned());
    }
    wait_for(10, "deliveries in flight", async || receiver.arrived().len() > 1).await;
    server.kill_9();
    let accepted_before = receiver.accepted().len();
    assert!(accepted_before < 21, "the kill came after the work was done");

    // Restarted after the 30 s lease expired: every event arrives (at least once).
    receiver.delay(Duration::ZERO);
    let server = serve_child(&data.0, port, 120 + 300).await;
    wait_for(20, "every event", async || {
        let got: std::collections::HashSet<String> =
            receiver.accepted().iter().map(|hit| hit.json()["id"].as_str().unwrap().to_owned()).collect();
        events.iter().all(|event| got.contains(event))
    })
    .await;
    wait_for(10, "the log to show every delivery succeeded", async || {
        let log = deliveries(&server.base, &key, &empresa, &webhook).await;
        log.len() == 21 && log.iter().all(|d| d["status"] == json!("succeeded"))
    })
    .await;
    drop(server);
}

#[tokio::test]
async fn daily_jobs_run_once_a_day_and_purge_finished_jobs() {
    let clock = Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut Config| {
            config.clock = clock.clone();
            config.jobs.poll = Duration::from_millis(20);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let clock = clock.clone();
        async move {
            let count = async |sql: &'static str| -> i64 {
                let mut conn = app.db.conn().await.unwrap();
                timbra_store::sql!(scalar_one conn, i64, sql).unwrap()
            };
            wait_for(10, "today's and tomorrow's purge", async || {
                count("SELECT COUNT(*) FROM jobs WHERE kind = 'jobs.purge'").await >= 2
            })
            .await;
            // A finished job from 8 days ago, and one from yesterday.
            let now = clock.now();
            for (id, age) in [("old", 8), ("recent", 1)] {
                let mut conn = app.db.conn().await.unwrap();
                let when = now - time::Duration::days(age);
                timbra_store::sql!(execute conn,
                    "INSERT INTO jobs (id, kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at) \
                     VALUES ($1, 'test.kind', '{}', 'done', 1, 1, $2, $2, $2)", id, when).unwrap();
            }
            clock.advance(Duration::from_secs(2 * 86400));
            wait_for(10, "the purge", async || count("SELECT COUNT(*) FROM jobs WHERE id = 'old'").await == 0).await;
            assert_eq!(count("SELECT COUNT(*) FROM jobs WHERE id = 'recent'").await, 1);
            // One occurrence per day, whatever the number of workers: no duplicate keys, and the
            // day after the new "today" is scheduled.
            wait_for(10, "the next day's purge", async || {
                count("SELECT COUNT(*) FROM jobs WHERE kind = 'jobs.purge'").await >= 4
            })
            .await;
            assert_eq!(count("SELECT COUNT(*) FROM jobs WHERE kind = 'jobs.purge' AND dedupe_key IS NULL").await, 0);
            assert_eq!(count("SELECT COUNT(*) FROM jobs WHERE kind = 'jobs.purge' AND status = 'dead'").await, 0);
        }
    })
    .await;
}

/// Stamping under load, then SIGKILL: every stamp acknowledged with 201 has its XML after the
/// restart, every invoice the database holds has its XML, no XML exists without its invoice
/// (the XML is committed with its record, `store/src/cfdi_xml.rs`), and the folios run 1..N.
#[tokio::test]
async fn kill_9_under_stamping_load_leaves_no_invoice_without_xml_and_no_xml_without_invoice() {
    use reqwest::Method;
    let data = TempDir::new();
    let port = free_port().await;
    let server = serve_child(&data.0, port, 0).await;
    let base = server.base.clone();
    let user = json!({ "name": "Ana", "email": "ana@example.com", "password": "Secreto1!" });
    call(&base, Method::POST, "/api/auth/register", None, None, user).await;
    let login = json!({ "name": "t", "email": "ana@example.com", "password": "Secreto1!" });
    let key =
        call(&base, Method::POST, "/api/api-keys", None, None, login).await["data"]["key"].as_str().unwrap().to_owned();
    let empresa = call(&base, Method::POST, "/api/empresas", Some(&key), None,
        json!({ "rfc": "EKU9003173C9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" }))
        .await["data"]["id"].as_str().unwrap().to_owned();
    let factura = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [
        { "claveProdServ": "01010101", "claveUnidad": "E48", "descripcion": "Servicio", "cantidad": 1, "precioUnitario": 100 }
    ]});

    // 16 clients stamp until the connection dies; each keeps the ids it was answered 201 for.
    let acknowledged = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut clients = Vec::new();
    for _ in 0..16 {
        let (base, key, empresa, factura, acknowledged) =
            (base.clone(), key.clone(), empresa.clone(), factura.clone(), acknowledged.clone());
        clients.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            for _ in 0..500 {
                let sent = client
                    .post(format!("{base}/api/cfdi/timbrar"))
                    .bearer_auth(&key)
                    .header("x-empresa-id", &empresa)
                    .json(&factura)
                    .send()
                    .await;
                let Ok(answer) = sent else { return };
                if answer.status() != 201 {
                    continue;
                }
                let Ok(body) = answer.json::<Value>().await else { return };
                acknowledged.lock().unwrap().push(body["data"]["cfdiId"].as_str().unwrap().to_owned());
            }
        }));
    }
    wait_for(30, "stamps under way", async || acknowledged.lock().unwrap().len() >= 40).await;
    server.kill_9();
    for client in clients {
        client.await.unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() < 16 * 500, "the kill came after the work was done");

    let server = serve_child(&data.0, port, 0).await;
    let client = reqwest::Client::new();
    for id in &acknowledged {
        let xml = client
            .get(format!("{}/api/cfdi/{id}/xml", server.base))
            .bearer_auth(&key)
            .header("x-empresa-id", &empresa)
            .send()
            .await
            .unwrap();
        assert_eq!(xml.status(), 200, "acknowledged invoice {id} lost its XML");
        assert!(xml.text().await.unwrap().contains("tfd:TimbreFiscalDigital"));
    }
    drop(server);

    // The database itself: invoices and XML rows pair up one to one, folios are 1..N.
    let db = timbra_store::Db::connect(&format!("sqlite://{}/timbra.db", data.0.display())).await.unwrap();
    let mut conn = db.conn().await.unwrap();
    let count = async |conn: &mut timbra_store::DbConn, sql: &'static str| -> i64 {
        timbra_store::sql!(scalar_one * conn, i64, sql).unwrap()
    };
    let invoices = count(&mut conn, "SELECT COUNT(*) FROM cfdis").await;
    assert!(invoices >= i64::try_from(acknowledged.len()).unwrap());
    let without_xml = count(
        &mut conn,
        "SELECT COUNT(*) FROM cfdis c WHERE NOT EXISTS (SELECT 1 FROM cfdi_xml x WHERE x.cfdi_id = c.id)",
    )
    .await;
    let orphan_xml = count(
        &mut conn,
        "SELECT COUNT(*) FROM cfdi_xml x WHERE NOT EXISTS (SELECT 1 FROM cfdis c WHERE c.id = x.cfdi_id)",
    )
    .await;
    assert_eq!((without_xml, orphan_xml), (0, 0));
    assert_eq!(count(&mut conn, "SELECT MAX(folio_num) FROM cfdis").await, invoices, "folios 1..N without gaps");
    assert_eq!(count(&mut conn, "SELECT COUNT(DISTINCT folio_num) FROM cfdis").await, invoices);
    // Nothing was written to the file storage for these stamps.
    let files = data.0.join("files");
    let stray = walk(&files).into_iter().filter(|path| path.extension().is_some_and(|e| e == "xml")).count();
    assert_eq!(stray, 0, "XML files written outside the database");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .flat_map(|entry| {
            let path = entry.path();
            if path.is_dir() { walk(&path) } else { vec![path] }
        })
        .collect()
}

/// SQLite starts its WAL over only when a write transaction begins with every frame already
/// copied into the database, which never happens while commits follow one another without a
/// pause: the file grew by every page written (a GiB in ten seconds of stamping) until the
/// disk filled. The checkpointer now holds the writers off for a moment once the WAL is 16 MiB
/// long, so a stream of writes keeps reusing the same file.
#[tokio::test]
async fn writes_that_never_pause_keep_reusing_a_bounded_sqlite_wal() {
    let data = TempDir::new();
    let db = timbra_store::Db::connect(&format!("sqlite://{}/wal.db", data.0.display())).await.unwrap();
    let mut tx = db.begin().await.unwrap();
    timbra_store::sql!(execute tx, "CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)").unwrap();
    tx.commit().await.unwrap();

    let wal = data.0.join("wal.db-wal");
    let blob = vec![7u8; 16 * 1024];
    let (mut written, mut largest) = (0usize, 0u64);
    let started = std::time::Instant::now();
    // 256 MiB of rows, one transaction right after another, for at least two seconds (ten of
    // the checkpointer's rounds).
    while written < 256 << 20 || started.elapsed() < Duration::from_secs(2) {
        let mut tx = db.begin().await.unwrap();
        timbra_store::sql!(execute tx, "INSERT INTO blobs (data) VALUES ($1)", &blob).unwrap();
        tx.commit().await.unwrap();
        written += blob.len();
        largest = largest.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
    }
    eprintln!("wal: {} MiB written, largest {} MiB in {:?}", written >> 20, largest >> 20, started.elapsed());
    assert!(largest < 128 << 20, "the WAL grew to {} MiB for {} MiB written", largest >> 20, written >> 20);
}
