//! Spawns the real app on a random port with a fresh database: a SQLite file in a temp folder,
//! and, when `TIMBRA_TEST_POSTGRES_URL` is set, a fresh PostgreSQL schema. `each_backend` runs a
//! test body on every configured backend.

use std::future::Future;
use std::path::PathBuf;
use std::str::FromStr;
use timbra_store::ids::UserId;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::postgres::PgConnectOptions;
use timbra_services::config::{Config, RateLimitConfig};
use timbra_services::context::AppContext;
use timbra_store::Db;

/// A running app and a client for it.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Which database backs it.
    pub backend: &'static str,
    /// Direct database access for assertions.
    pub db: Db,
    /// A client with no cookies.
    pub client: reqwest::Client,
    _data_dir: TempDir,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    operador: tokio::sync::OnceCell<String>,
}

/// A folder removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty folder under the system temp dir.
    pub fn new() -> Self {
        let path = std::env::temp_dir().join(format!("timbra-test-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Test configuration: rate limiting off unless a test asks for it.
pub fn test_config(data_dir: &std::path::Path) -> Config {
    let mut config = Config::from_lookup(|_| None).unwrap();
    config.data_dir = data_dir.to_owned();
    config.database_url = format!("sqlite://{}", data_dir.join("timbra.db").display());
    config.rate_limit = RateLimitConfig { enabled: false, ..RateLimitConfig::default() };
    // Every test client is on 127.0.0.1, as every client is behind a proxy: one address may use
    // every connection (the hardening tests set their own limits).
    config.connections.max_per_ip = config.connections.max_total;
    config
}

/// Runs `body` against a fresh app on SQLite, then on PostgreSQL when configured.
pub async fn each_backend<F, Fut>(body: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    each_backend_with(|_| {}, body).await
}

/// As [`each_backend`], with a hook to adjust the configuration.
pub async fn each_backend_with<F, Fut>(adjust: impl Fn(&mut Config), body: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: Future<Output = ()>,
{
    body(spawn_sqlite(&adjust).await).await;
    // Without PostgreSQL the run says so (`timbra_testkit::postgres_url` reports it).
    if let Some(url) = timbra_testkit::postgres_url() {
        body(spawn_postgres(&url, &adjust).await).await;
    }
}

/// A fresh app on SQLite only (the browser test, which is too slow to run twice).
pub async fn sqlite_app() -> TestApp {
    spawn_sqlite(&|_| {}).await
}

/// As [`sqlite_app`], with a hook to adjust the configuration (tests of the HTTP server
/// itself, where no database is involved).
pub async fn sqlite_app_with(adjust: impl Fn(&mut Config)) -> TestApp {
    spawn_sqlite(&adjust).await
}

async fn spawn_sqlite(adjust: &impl Fn(&mut Config)) -> TestApp {
    let dir = TempDir::new();
    let mut config = test_config(&dir.0);
    adjust(&mut config);
    let db = timbra_server::open(&config).await.unwrap();
    start(db, config, dir, "sqlite").await
}

/// A new empty schema on the test PostgreSQL; returns the search path that uses it.
async fn fresh_schema(url: &str) -> String {
    let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
    let mut admin = timbra_store::raw_pg_connection(url).await.expect("TIMBRA_TEST_POSTGRES_URL is not reachable");
    sqlx::Executor::execute(&mut admin, sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).await.unwrap();
    // Extensions are per database: the migrations' CREATE EXTENSION finds pg_trgm already made
    // (once, not raced by parallel tests) and its operator classes through the search path.
    let extensions = pg_trgm_schema(&mut admin).await;
    format!("{schema},{extensions}")
}

/// A URL of a new empty schema on the test PostgreSQL, for `timbra` processes a test starts.
pub async fn fresh_postgres_url(url: &str) -> String {
    let search_path = fresh_schema(url).await;
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{}", search_path.replace(',', "%2C"))
}

async fn spawn_postgres(url: &str, adjust: &impl Fn(&mut Config)) -> TestApp {
    let search_path = fresh_schema(url).await;
    let options = PgConnectOptions::from_str(url).unwrap().options([("search_path", search_path.as_str())]);
    let db = Db::connect_pg(options).await.unwrap();
    db.migrate().await.unwrap();
    let dir = TempDir::new();
    let mut config = test_config(&dir.0);
    config.database_url = url.to_owned();
    adjust(&mut config);
    start(db, config, dir, "postgres").await
}

/// The schema holding pg_trgm, created once per test process.
async fn pg_trgm_schema(admin: &mut sqlx::PgConnection) -> String {
    static ONCE: tokio::sync::Mutex<Option<String>> = tokio::sync::Mutex::const_new(None);
    let mut known = ONCE.lock().await;
    if let Some(schema) = known.as_ref() {
        return schema.clone();
    }
    let query = "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'";
    let mut schema: Option<String> = sqlx::query_scalar(query).fetch_optional(&mut *admin).await.unwrap();
    if schema.is_none() {
        sqlx::Executor::execute(&mut *admin, "CREATE SCHEMA IF NOT EXISTS timbra_ext").await.unwrap();
        // Another test process may create it at the same moment; either one is fine.
        let _ =
            sqlx::Executor::execute(&mut *admin, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA timbra_ext").await;
        schema = sqlx::query_scalar(query).fetch_optional(&mut *admin).await.unwrap();
    }
    let schema = schema.expect("pg_trgm could not be created");
    *known = Some(schema.clone());
    schema
}

async fn start(db: Db, config: Config, dir: TempDir, backend: &'static str) -> TestApp {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = AppContext::new(db.clone(), config);
    let (shutdown, wait) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = timbra_server::serve(listener, state, async move {
            let _ = wait.await;
        })
        .await;
    });
    TestApp {
        base,
        backend,
        db,
        client: reqwest::Client::new(),
        _data_dir: dir,
        shutdown: Some(shutdown),
        operador: tokio::sync::OnceCell::new(),
    }
}

/// A response read whole.
#[derive(Debug)]
pub struct Answer {
    /// HTTP status.
    pub status: StatusCode,
    /// Headers.
    pub headers: reqwest::header::HeaderMap,
    /// Body as JSON (Null when not JSON).
    pub body: Value,
}

impl Answer {
    /// The error code of an error envelope.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("<no error code>")
    }

    /// Asserts an error envelope with this status and code.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!((self.status.as_u16(), self.code()), (status, code), "{:#}", self.body);
        assert_eq!(self.body["success"], json!(false));
        assert!(self.body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{:#}", self.body);
    }

    /// Asserts success with this status and returns `data`.
    #[track_caller]
    pub fn data(&self, status: u16) -> &Value {
        assert_eq!(self.status.as_u16(), status, "{:#}", self.body);
        assert_eq!(self.body["success"], json!(true), "{:#}", self.body);
        &self.body["data"]
    }
}

/// Who a request is sent as.
#[derive(Clone, Debug, Default)]
pub struct As {
    /// `Authorization: Bearer`.
    pub key: Option<String>,
    /// The session cookie token.
    pub session: Option<String>,
    /// `x-empresa-id`.
    pub empresa: Option<String>,
}

impl As {
    /// Sends with this key.
    pub fn key(key: &str) -> Self {
        Self { key: Some(key.to_owned()), ..Self::default() }
    }

    /// Adds `x-empresa-id`.
    pub fn in_empresa(&self, empresa: &str) -> Self {
        Self { empresa: Some(empresa.to_owned()), ..self.clone() }
    }
}

impl TestApp {
    /// The app's data folder (`TIMBRA_DATA_DIR`: stored files under `files/`).
    pub fn data_dir(&self) -> &std::path::Path {
        &self._data_dir.0
    }

    /// Sends a request; `body` None sends no body.
    pub async fn call(&self, method: Method, path: &str, who: &As, body: Option<Value>) -> Answer {
        let mut request = self.client.request(method, format!("{}{}", self.base, path));
        if let Some(key) = &who.key {
            request = request.bearer_auth(key);
        }
        if let Some(session) = &who.session {
            request = request.header("cookie", format!("timbra_session={session}"));
        }
        if let Some(empresa) = &who.empresa {
            request = request.header("x-empresa-id", empresa);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        Self::read(response).await
    }

    /// Reads a response whole.
    pub async fn read(response: reqwest::Response) -> Answer {
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.unwrap();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Answer { status, headers, body }
    }

    /// GET.
    pub async fn get(&self, path: &str, who: &As) -> Answer {
        self.call(Method::GET, path, who, None).await
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, who: &As, body: Value) -> Answer {
        self.call(Method::POST, path, who, Some(body)).await
    }

    /// Registers a user and returns (user id, a full API key made with email+password).
    pub async fn user(&self, email: &str) -> (String, String) {
        let registered = self
            .post(
                "/api/auth/register",
                &As::default(),
                json!({ "name": "Ana Pérez", "email": email, "password": "Secreto1!" }),
            )
            .await;
        let id = registered.data(201)["id"].as_str().unwrap().to_owned();
        let key = self
            .post("/api/api-keys", &As::default(), json!({ "name": "test", "email": email, "password": "Secreto1!" }))
            .await;
        (id, key.data(201)["key"].as_str().unwrap().to_owned())
    }

    /// Logs in and returns the session token from the cookie.
    pub async fn login(&self, email: &str) -> String {
        let response = self
            .client
            .post(format!("{}/api/auth/callback/credentials", self.base))
            .json(&json!({ "email": email, "password": "Secreto1!" }))
            .send()
            .await
            .unwrap();
        let cookie = response.headers().get("set-cookie").expect("login sets a cookie").to_str().unwrap().to_owned();
        cookie.split(';').next().unwrap().strip_prefix("timbra_session=").unwrap().to_owned()
    }

    /// A key of the installation's operator: an account made an operator as `timbra
    /// operadores agregar` makes it (once per app).
    pub async fn operador(&self) -> String {
        self.operador
            .get_or_init(async || {
                let (id, key) = self.user("operador@timbra.test").await;
                let mut conn = self.db.conn().await.unwrap();
                assert!(
                    timbra_store::operadores::agregar(&mut conn, &UserId::from(&id), time::OffsetDateTime::now_utc())
                        .await
                        .unwrap()
                );
                key
            })
            .await
            .clone()
    }

    /// Tops up the balance of `who`'s company with `body` (`{ cantidad, concepto? }`) the way
    /// it is done: by the installation's operator, never by the company's own members.
    pub async fn recargar(&self, who: &As, body: Value) -> Answer {
        let operador = As::key(&self.operador().await).in_empresa(who.empresa.as_deref().expect("who has a company"));
        self.post("/api/timbres/recargas", &operador, body).await
    }

    /// Creates a company for the key's user and returns its id.
    pub async fn empresa(&self, key: &str, rfc: &str) -> String {
        let created = self
            .post(
                "/api/empresas",
                &As::key(key),
                json!({ "rfc": rfc, "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" }),
            )
            .await;
        created.data(201)["id"].as_str().unwrap().to_owned()
    }
}

/// `timbra serve` as a child process (the built binary) on `port`, its data in `data`: SQLite
/// unless `env` sets `TIMBRA_DATABASE_URL`. Killed on drop.
pub struct Server {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Server {
    /// Starts it with rate limits off, one address allowed every connection, private webhook
    /// URLs allowed, quick job polling, and `env` on top; returns once it answers.
    pub async fn start(data: &std::path::Path, port: u16, env: &[(&str, String)]) -> Self {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_timbra"));
        command
            .arg("serve")
            .env("TIMBRA_LISTEN", format!("127.0.0.1:{port}"))
            .env("TIMBRA_DATA_DIR", data)
            .env_remove("TIMBRA_DATABASE_URL")
            .env("TIMBRA_RATE_LIMIT", "false")
            .env("TIMBRA_MAX_CONNECTIONS_PER_IP", "1024")
            .env("TIMBRA_WEBHOOKS_ALLOW_PRIVATE", "true")
            .env("TIMBRA_WEBHOOK_TIMEOUT_SECONDS", "5")
            .env("TIMBRA_JOBS_POLL_MS", "20")
            .env("TIMBRA_JOBS_LEASE_SECONDS", "30")
            .env("TIMBRA_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::inherit());
        for (name, value) in env {
            command.env(name, value);
        }
        let child = command.spawn().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        crate::receiver::wait_for(30, "the server to listen", async || {
            client.get(format!("{base}/healthz")).send().await.is_ok()
        })
        .await;
        Self { child, base }
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill_9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port.
pub async fn free_port() -> u16 {
    tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().port()
}
