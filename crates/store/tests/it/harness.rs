//! Fresh databases for a test: a SQLite file in a temporary folder, and a PostgreSQL schema of
//! its own (as `crates/server/tests/it/harness.rs` makes them).

use std::path::PathBuf;
use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;
use timbra_store::Db;

/// A migrated database and what to remove when the test ends.
pub struct TestDb {
    /// The database.
    pub db: Db,
    /// `sqlite` or `postgres`.
    pub backend: &'static str,
    dir: Option<PathBuf>,
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A migrated SQLite database in a new temporary folder.
pub async fn sqlite() -> TestDb {
    let dir = std::env::temp_dir().join(format!("timbra-store-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = Db::connect(&format!("sqlite:{}", dir.join("timbra.db").display())).await.unwrap();
    db.migrate().await.unwrap();
    TestDb { db, backend: "sqlite", dir: Some(dir) }
}

/// A migrated PostgreSQL database in a new schema, when `TIMBRA_TEST_POSTGRES_URL` is set (CI
/// must set it); `None` after a reported skip otherwise.
pub async fn postgres() -> Option<TestDb> {
    // Unset: a reported skip (a failure under CI or `TIMBRA_REQUIRE_POSTGRES=1`).
    let url = timbra_testkit::postgres_url()?;
    let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
    let mut admin = timbra_store::raw_pg_connection(&url).await.expect("TIMBRA_TEST_POSTGRES_URL is not reachable");
    sqlx::Executor::execute(&mut admin, sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}"))).await.unwrap();
    // Extensions are per database: the migrations' CREATE EXTENSION finds pg_trgm already made
    // and its operator classes through the search path.
    let extensions = pg_trgm_schema(&mut admin).await;
    let search_path = format!("{schema},{extensions}");
    let options = PgConnectOptions::from_str(&url).unwrap().options([("search_path", search_path.as_str())]);
    let db = Db::connect_pg(options).await.unwrap();
    db.migrate().await.unwrap();
    Some(TestDb { db, backend: "postgres", dir: None })
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
