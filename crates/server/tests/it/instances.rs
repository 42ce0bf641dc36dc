//! Several instances on one PostgreSQL: two `timbra serve` processes (the built binary) share a
//! database and are driven at once. Folios stay unique and gapless, each event is delivered
//! once, the per-address rate limit holds for both together, and a key revoked on one is
//! refused by the other at once. Behind the repository's Caddyfile, a company stays on one
//! instance (nothing sealed twice) and moves to the other when its instance dies.

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::cfdi::{EMISOR, factura};
use crate::harness::{Server, TempDir, free_port, fresh_postgres_url};
use crate::receiver::{Receiver, wait_for};

/// A client call with an optional key, company and session cookie; (status, body).
pub(crate) async fn call(
    base: &str,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    empresa: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{base}{path}"));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(empresa) = empresa {
        request = request.header("x-empresa-id", empresa);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A user registered on `base` (anonymous: register, then a key by email and password), their
/// company EKU9003173C9, and a customer created through `cliente_base`: (key, empresa, cliente).
pub(crate) async fn tenant(base: &str, cliente_base: &str, email: &str) -> (String, String, String) {
    let post = reqwest::Method::POST;
    let (status, _) = call(
        base,
        post.clone(),
        "/api/auth/register",
        None,
        None,
        Some(json!({ "name": "Ana", "email": email, "password": "Secreto1!" })),
    )
    .await;
    assert_eq!(status, 201);
    let (_, created) = call(
        base,
        post.clone(),
        "/api/api-keys",
        None,
        None,
        Some(json!({ "name": "main", "email": email, "password": "Secreto1!" })),
    )
    .await;
    let key = created["data"]["key"].as_str().unwrap().to_owned();
    let (_, empresa) = call(base, post.clone(), "/api/empresas", Some(&key), None,
        Some(json!({ "rfc": EMISOR, "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" }))).await;
    let empresa = empresa["data"]["id"].as_str().unwrap().to_owned();
    let (_, cliente) = call(cliente_base, post, "/api/clientes", Some(&key), Some(&empresa),
        Some(json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }))).await;
    (key, empresa, cliente["data"]["id"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn two_instances_share_folios_deliveries_limits_and_revocations() {
    let Some(url) = timbra_testkit::postgres_url() else { return };
    let database = fresh_postgres_url(&url).await;
    let master = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7u8; 32]);
    let env = [
        ("TIMBRA_DATABASE_URL", database),
        ("TIMBRA_MASTER_KEY", master),
        ("TIMBRA_RATE_LIMIT", "true".to_owned()),
        // Anonymous requests: a burst of 20 per address, refilled at 1 a second, for both.
        ("TIMBRA_RATE_LIMIT_IP_PER_SECOND", "1".to_owned()),
        ("TIMBRA_RATE_LIMIT_IP_BURST", "20".to_owned()),
    ];
    let (dir_a, dir_b) = (TempDir::new(), TempDir::new());
    let a = Server::start(&dir_a.0, free_port().await, &env).await;
    let b = Server::start(&dir_b.0, free_port().await, &env).await;
    let post = reqwest::Method::POST;

    let (key, empresa, cliente) = tenant(&a.base, &b.base, "dos@example.com").await;
    let receiver = Receiver::start().await;
    let (status, _) = call(
        &b.base,
        post.clone(),
        "/api/webhooks",
        Some(&key),
        Some(&empresa),
        Some(json!({ "url": receiver.url, "events": ["factura.timbrada"] })),
    )
    .await;
    assert_eq!(status, 201);

    // 40 stamps at once, half on each instance: folios 1..40, each once.
    let stamps: Vec<_> = (0..40)
        .map(|i| {
            let base = if i % 2 == 0 { a.base.clone() } else { b.base.clone() };
            let (key, empresa, body) = (key.clone(), empresa.clone(), factura(&cliente));
            tokio::spawn(async move {
                call(&base, reqwest::Method::POST, "/api/cfdi/timbrar", Some(&key), Some(&empresa), Some(body)).await
            })
        })
        .collect();
    let mut folios = Vec::new();
    for stamp in stamps {
        let (status, body) = stamp.await.unwrap();
        assert_eq!(status, 201, "{body}");
        folios.push(body["data"]["folio"].as_str().unwrap().parse::<i64>().unwrap());
    }
    folios.sort_unstable();
    assert_eq!(folios, (1..=40).collect::<Vec<_>>(), "unique and gapless across instances");

    // Both instances run delivery jobs; each event reaches the receiver once.
    wait_for(30, "40 deliveries", async || receiver.accepted().len() >= 40).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut events: Vec<String> =
        receiver.arrived().iter().map(|hit| hit.json()["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(events.len(), 40, "no event delivered twice");
    events.sort();
    events.dedup();
    assert_eq!(events.len(), 40);

    // A key used on B (and remembered there), revoked through A: B refuses it within a second.
    let (_, second) =
        call(&a.base, post.clone(), "/api/api-keys", Some(&key), None, Some(json!({ "name": "second" }))).await;
    let (second_id, second_key) =
        (second["data"]["id"].as_str().unwrap().to_owned(), second["data"]["key"].as_str().unwrap().to_owned());
    for _ in 0..3 {
        let (status, _) =
            call(&b.base, reqwest::Method::GET, "/api/clientes", Some(&second_key), Some(&empresa), None).await;
        assert_eq!(status, 200);
    }
    let session = reqwest::Client::builder().cookie_store(true).build().unwrap();
    let login = session
        .post(format!("{}/api/auth/callback/credentials", a.base))
        .json(&json!({ "email": "dos@example.com", "password": "Secreto1!" }))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200);
    let revoked = session.delete(format!("{}/api/api-keys/{second_id}", a.base)).send().await.unwrap();
    assert_eq!(revoked.status(), 200);
    let since = Instant::now();
    loop {
        let (status, _) =
            call(&b.base, reqwest::Method::GET, "/api/clientes", Some(&second_key), Some(&empresa), None).await;
        if status == StatusCode::UNAUTHORIZED {
            break;
        }
        assert!(since.elapsed() < Duration::from_secs(1), "B still accepts a key revoked on A after 1 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // B stamped for the customer above (and keeps it in memory); renamed through A, B's stamps
    // carry the new name within a second, not after the 5 s the memory would otherwise last.
    let (status, _) = call(
        &a.base,
        reqwest::Method::PATCH,
        &format!("/api/clientes/{cliente}"),
        Some(&key),
        Some(&empresa),
        Some(json!({ "razonSocial": "XIMENA QUIROZ" })),
    )
    .await;
    assert_eq!(status, 200);
    let since = Instant::now();
    loop {
        let (status, body) =
            call(&b.base, post.clone(), "/api/cfdi/timbrar", Some(&key), Some(&empresa), Some(factura(&cliente))).await;
        assert_eq!(status, 201, "{body}");
        let id = body["data"]["cfdiId"].as_str().unwrap();
        let (_, stamped) =
            call(&b.base, reqwest::Method::GET, &format!("/api/cfdi/{id}"), Some(&key), Some(&empresa), None).await;
        if stamped["data"]["receptorNombre"] == json!("XIMENA QUIROZ") {
            break;
        }
        assert_eq!(stamped["data"]["receptorNombre"], json!("XIMENA QUIROZ BARRAGAN"), "{stamped}");
        assert!(since.elapsed() < Duration::from_secs(1), "B still stamps a customer renamed on A after 1 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The address's bucket is one for both instances: 30 anonymous requests, 15 on each, within
    // a burst of 20 (a few already spent above) pass at most 20 plus the refill.
    let started = Instant::now();
    let mut passed = 0;
    for i in 0..30 {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let (status, _) = call(base, reqwest::Method::GET, "/api/clientes", None, None, None).await;
        if status != StatusCode::TOO_MANY_REQUESTS {
            assert_eq!(status, StatusCode::UNAUTHORIZED);
            passed += 1;
        }
    }
    let refill = started.elapsed().as_secs() + 1;
    assert!(passed <= 20 + refill, "{passed} anonymous requests passed: the instances keep separate buckets");
}

#[tokio::test]
async fn an_instance_killed_under_load_loses_nothing_and_the_other_takes_its_jobs() {
    let Some(url) = timbra_testkit::postgres_url() else { return };
    let database = fresh_postgres_url(&url).await;
    let master = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [9u8; 32]);
    // Short leases, so B takes over A's deliveries quickly once A is gone.
    let env = [
        ("TIMBRA_DATABASE_URL", database.clone()),
        ("TIMBRA_MASTER_KEY", master),
        ("TIMBRA_JOBS_LEASE_SECONDS", "3".to_owned()),
    ];
    let (dir_a, dir_b) = (TempDir::new(), TempDir::new());
    let a = Server::start(&dir_a.0, free_port().await, &env).await;
    let b = Server::start(&dir_b.0, free_port().await, &env).await;
    let post = reqwest::Method::POST;
    let (key, empresa, cliente) = tenant(&a.base, &a.base, "kill@example.com").await;
    // A slow receiver: deliveries stay leased (in flight) while A dies.
    let receiver = Receiver::start().await;
    receiver.delay(Duration::from_millis(700));
    let (status, _) = call(
        &a.base,
        post.clone(),
        "/api/webhooks",
        Some(&key),
        Some(&empresa),
        Some(json!({ "url": receiver.url, "events": ["factura.timbrada"] })),
    )
    .await;
    assert_eq!(status, 201);

    // 12 clients stamp through A without pause; A is killed with SIGKILL mid-load.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..12)
        .map(|_| {
            let (base, key, empresa, body, stop) =
                (a.base.clone(), key.clone(), empresa.clone(), factura(&cliente), stop.clone());
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                let mut acknowledged = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let sent = client
                        .post(format!("{base}/api/cfdi/timbrar"))
                        .bearer_auth(&key)
                        .header("x-empresa-id", &empresa)
                        .json(&body)
                        .send()
                        .await;
                    let Ok(response) = sent else { break };
                    if response.status() != StatusCode::CREATED {
                        break;
                    }
                    let Ok(answer) = response.json::<Value>().await else { break };
                    acknowledged.push(answer["data"]["cfdiId"].as_str().unwrap().to_owned());
                }
                acknowledged
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    a.kill_9();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut acknowledged = Vec::new();
    for client in clients {
        acknowledged.extend(client.await.unwrap());
    }
    assert!(acknowledged.len() >= 10, "the load ran: {} stamps", acknowledged.len());

    // Every acknowledged stamp is there, through B, with its XML.
    for id in &acknowledged {
        let response = reqwest::Client::new()
            .get(format!("{}/api/cfdi/{id}/xml", b.base))
            .bearer_auth(&key)
            .header("x-empresa-id", &empresa)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "acknowledged invoice {id} lost");
    }
    // Folios run 1..N without a gap or a repeat among the invoices that exist.
    let (_, listed) =
        call(&b.base, reqwest::Method::GET, "/api/cfdi?pageSize=100&page=1", Some(&key), Some(&empresa), None).await;
    let total = listed["data"]["total"].as_i64().unwrap();
    assert!(total >= acknowledged.len() as i64);
    // Every acknowledged stamp's event reaches the receiver, A's leased deliveries through B
    // once their lease ran out (at least once: a delivery cut short may come twice).
    wait_for(60, "every acknowledged stamp delivered", async || {
        let delivered: std::collections::HashSet<String> = receiver
            .accepted()
            .iter()
            .map(|hit| hit.json()["data"]["cfdiId"].as_str().unwrap_or_default().to_owned())
            .collect();
        acknowledged.iter().all(|id| delivered.contains(id))
    })
    .await;
    drop(b);
    let db = timbra_store::Db::connect(&database).await.unwrap();
    let mut conn = db.conn().await.unwrap();
    let folios: Vec<i64> = match &mut conn {
        timbra_store::DbConn::Pg(conn) => {
            sqlx::query_scalar("SELECT folio_num FROM cfdis ORDER BY folio_num").fetch_all(&mut **conn).await.unwrap()
        }
        timbra_store::DbConn::Sqlite(_) => unreachable!(),
    };
    assert_eq!(folios, (1..=folios.len() as i64).collect::<Vec<_>>(), "folios gapless after the crash");
    let xml_rows: i64 = match &mut conn {
        timbra_store::DbConn::Pg(conn) => {
            sqlx::query_scalar("SELECT COUNT(*) FROM cfdi_xml").fetch_one(&mut **conn).await.unwrap()
        }
        timbra_store::DbConn::Sqlite(_) => unreachable!(),
    };
    assert_eq!(xml_rows, folios.len() as i64, "one XML per invoice, none without");
}

/// A PostgreSQL cluster of the test's own (initdb on a free port in a temp folder), never the
/// shared one: it can be stopped and started under load.
struct PrivateCluster {
    dir: TempDir,
    port: u16,
    as_postgres: bool,
}

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

impl PrivateCluster {
    fn run(&self, program: &str, args: &[&str]) {
        let program = format!("{PG_BIN}/{program}");
        let mut command = if self.as_postgres {
            // initdb and pg_ctl refuse to run as root: run them as the postgres user.
            let mut command = std::process::Command::new("runuser");
            command.args(["-u", "postgres", "--", &program]);
            command
        } else {
            std::process::Command::new(&program)
        };
        let output = command.args(args).output().unwrap();
        assert!(output.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    }

    async fn start_new() -> Option<Self> {
        if !Path::new(PG_BIN).join("initdb").exists() {
            // CI has it; elsewhere the run reports the skip (and fails under CI).
            timbra_testkit::skip(timbra_testkit::Reason::Tool, &format!("initdb (PostgreSQL 15's, in {PG_BIN})"));
            return None;
        }
        let dir = TempDir::new();
        let as_postgres = std::process::Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
        if as_postgres {
            let status =
                std::process::Command::new("chown").args(["-R", "postgres", &dir.0.display().to_string()]).status();
            assert!(status.unwrap().success());
        }
        let cluster = Self { port: free_port().await, dir, as_postgres };
        let data = cluster.dir.0.join("data").display().to_string();
        cluster.run("initdb", &["-D", &data, "-A", "trust", "-U", "postgres", "--no-sync"]);
        cluster.start();
        Some(cluster)
    }

    fn start(&self) {
        let data = self.dir.0.join("data").display().to_string();
        let log = self.dir.0.join("log").display().to_string();
        let options =
            format!("-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", self.port, self.dir.0.display());
        self.run("pg_ctl", &["-D", &data, "-l", &log, "-o", &options, "-w", "start"]);
    }

    fn stop(&self) {
        let data = self.dir.0.join("data").display().to_string();
        self.run("pg_ctl", &["-D", &data, "-m", "fast", "-w", "stop"]);
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let data = self.dir.0.join("data");
        if data.join("postmaster.pid").exists() {
            let data = data.display().to_string();
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.run("pg_ctl", &["-D", &data, "-m", "immediate", "stop"])
            }));
        }
    }
}

#[tokio::test]
async fn a_database_restart_answers_503_and_recovers_without_restarting_timbra() {
    let Some(cluster) = PrivateCluster::start_new().await else { return };
    let data = TempDir::new();
    let server = Server::start(&data.0, free_port().await, &[("TIMBRA_DATABASE_URL", cluster.url())]).await;
    let (key, empresa, cliente) = tenant(&server.base, &server.base, "pg@example.com").await;
    let stamp = async || {
        call(
            &server.base,
            reqwest::Method::POST,
            "/api/cfdi/timbrar",
            Some(&key),
            Some(&empresa),
            Some(factura(&cliente)),
        )
        .await
    };
    let (status, first) = stamp().await;
    assert_eq!(status, 201, "{first}");

    // Down: a clear 503 with its own code within seconds, never a 500 or a hang; readiness says
    // the database, liveness is fine.
    cluster.stop();
    for _ in 0..3 {
        let started = Instant::now();
        let (status, body) = stamp().await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["error"]["code"], "UNAVAILABLE_001", "{body}");
        assert!(started.elapsed() < Duration::from_secs(8), "answered after {:?}", started.elapsed());
    }
    let ready = reqwest::get(format!("{}/readyz", server.base)).await.unwrap();
    assert_eq!(ready.status(), 503);
    assert_eq!(reqwest::get(format!("{}/healthz", server.base)).await.unwrap().status(), 200);

    // Back: the same process stamps again, the next folio, with nothing lost in between.
    cluster.start();
    let mut folio = None;
    wait_for(30, "stamping to work again", async || {
        let (status, body) = stamp().await;
        if status == 201 {
            folio = body["data"]["folio"].as_str().map(str::to_owned);
        }
        status == 201
    })
    .await;
    assert_eq!(folio.as_deref(), Some("2"), "the folios go on where they were");
    assert_eq!(reqwest::get(format!("{}/readyz", server.base)).await.unwrap().status(), 200);
}

/// Caddy running the repository's `deploy/Caddyfile` in front of `upstreams`; killed on drop.
struct Proxy {
    child: std::process::Child,
    _home: TempDir,
    base: String,
}

impl Proxy {
    /// `None` when Caddy is not installed (CI installs it).
    async fn start(upstreams: &[&Server]) -> Option<Self> {
        if !timbra_testkit::tools(&["caddy"]) {
            return None;
        }
        let port = free_port().await;
        let upstreams: Vec<&str> = upstreams.iter().map(|server| server.base.trim_start_matches("http://")).collect();
        let home = TempDir::new();
        let caddyfile = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/Caddyfile");
        let child = std::process::Command::new("caddy")
            .args(["run", "--adapter", "caddyfile", "--config"])
            .arg(caddyfile)
            .env("TIMBRA_UPSTREAMS", upstreams.join(" "))
            .env("TIMBRA_PROXY_LISTEN", format!(":{port}"))
            .env("HOME", &home.0)
            .env("XDG_DATA_HOME", &home.0)
            .env("XDG_CONFIG_HOME", &home.0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        wait_for(30, "the proxy to answer", async || {
            client.get(format!("{base}/readyz")).send().await.is_ok_and(|answer| answer.status() == 200)
        })
        .await;
        Some(Self { child, _home: home, base })
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The instance's `timbra_folio_predictions_total` for `outcome` (`hit` or `miss`).
async fn predictions(base: &str, outcome: &str) -> u64 {
    let text = reqwest::get(format!("{base}/metrics")).await.unwrap().text().await.unwrap();
    let series = format!("timbra_folio_predictions_total{{outcome=\"{outcome}\"}} ");
    text.lines().find_map(|line| line.strip_prefix(&series)).map_or(0, |value| value.trim().parse().unwrap())
}

/// `count` stamps at once through `base`; their folios, sorted.
async fn stamp_at_once(base: &str, key: &str, empresa: &str, cliente: &str, count: usize) -> Vec<i64> {
    let stamps: Vec<_> = (0..count)
        .map(|_| {
            let (base, key, empresa, body) = (base.to_owned(), key.to_owned(), empresa.to_owned(), factura(cliente));
            tokio::spawn(async move {
                call(&base, reqwest::Method::POST, "/api/cfdi/timbrar", Some(&key), Some(&empresa), Some(body)).await
            })
        })
        .collect();
    let mut folios = Vec::new();
    for stamp in stamps {
        let (status, body) = stamp.await.unwrap();
        assert_eq!(status, 201, "{body}");
        folios.push(body["data"]["folio"].as_str().unwrap().parse::<i64>().unwrap());
    }
    folios.sort_unstable();
    folios
}

#[tokio::test]
async fn the_proxy_keeps_a_company_on_one_instance_so_nothing_is_sealed_twice_and_fails_over() {
    let Some(url) = timbra_testkit::postgres_url() else { return };
    let master = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7u8; 32]);
    let env = [("TIMBRA_DATABASE_URL", fresh_postgres_url(&url).await), ("TIMBRA_MASTER_KEY", master)];
    let (dir_a, dir_b) = (TempDir::new(), TempDir::new());
    let a = Server::start(&dir_a.0, free_port().await, &env).await;
    let b = Server::start(&dir_b.0, free_port().await, &env).await;
    let Some(proxy) = Proxy::start(&[&a, &b]).await else { return };
    let (key, empresa, cliente) = tenant(&proxy.base, &proxy.base, "proxy@example.com").await;

    // 40 stamps of one company at once through the proxy: all on one instance, every folio
    // predicted right (each invoice sealed once), folios 1..40.
    let folios = stamp_at_once(&proxy.base, &key, &empresa, &cliente, 40).await;
    assert_eq!(folios, (1..=40).collect::<Vec<_>>());
    let hits = (predictions(&a.base, "hit").await, predictions(&b.base, "hit").await);
    let misses = predictions(&a.base, "miss").await + predictions(&b.base, "miss").await;
    assert_eq!(misses, 0, "no invoice sealed twice");
    assert!(hits == (40, 0) || hits == (0, 40), "one instance stamped the company: {hits:?}");

    // Its instance dies: the company's stamps go to the other one, with the next folios.
    let survivor = if hits.0 == 40 {
        a.kill_9();
        b
    } else {
        b.kill_9();
        a
    };
    // The proxy's health check takes the dead instance out within its interval (2 s); until
    // then a request without a body is retried on the other one, one with a body may get 502.
    wait_for(10, "the company to move to the other instance", async || {
        call(&proxy.base, reqwest::Method::GET, "/api/clientes", Some(&key), Some(&empresa), None).await.0 == 200
    })
    .await;
    let folios = stamp_at_once(&proxy.base, &key, &empresa, &cliente, 10).await;
    assert_eq!(folios, (41..=50).collect::<Vec<_>>());
    assert_eq!(predictions(&survivor.base, "hit").await, 10);
}
