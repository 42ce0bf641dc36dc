//! Security hardening (issue 11): account deletion, rate limits and login lockout, key
//! inheritance, webhook address rules, and the smaller rules (active owners, paging, text
//! bounds, LIKE escaping, file modes, download headers, sealed webhook secrets).

use std::time::Duration;
use timbra_store::ids::WebhookId;

use reqwest::Method;
use serde_json::json;
use timbra_services::clock::Clock;
use timbra_services::config::Config;

use crate::harness::{Answer, As, TempDir, TestApp, each_backend, each_backend_with, test_config};
use crate::receiver::{Receiver, wait_for};

fn session(token: String) -> As {
    As { session: Some(token), ..As::default() }
}

fn clocked(clock: &Clock) -> impl Fn(&mut Config) + use<> {
    let clock = clock.clone();
    move |config: &mut Config| config.clock = clock.clone()
}

async fn login(app: &TestApp, email: &str, password: &str, headers: &[(&str, String)]) -> Answer {
    let mut request = app
        .client
        .post(format!("{}/api/auth/callback/credentials", app.base))
        .json(&json!({ "email": email, "password": password }));
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    TestApp::read(request.send().await.unwrap()).await
}

fn retry_after(answer: &Answer) -> u64 {
    answer.headers["retry-after"].to_str().unwrap().parse().unwrap()
}

// ---- 1. Account deletion -------------------------------------------------------------------

#[tokio::test]
async fn only_a_session_with_the_password_deletes_the_account() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        let empresa = app.empresa(&key, "EKU9003173C9").await;
        // The narrow key of the issue: one scope, one company, one day.
        let narrow = app
            .post(
                "/api/api-keys",
                &As::key(&key),
                json!({ "name": "viewer", "scopes": ["cfdi:view"], "empresaIds": [empresa], "expiresInDays": 1 }),
            )
            .await;
        let narrow = narrow.data(201)["key"].as_str().unwrap().to_owned();
        for who in [&narrow, &key] {
            let refused = app.call(Method::DELETE, "/api/auth/account", &As::key(who), None).await;
            refused.assert_error(403, "AUTH_005");
            let with_password = json!({ "password": "Secreto1!" });
            let refused = app.call(Method::DELETE, "/api/auth/account", &As::key(who), Some(with_password)).await;
            refused.assert_error(403, "AUTH_005");
        }
        let ana = session(app.login("ana@example.com").await);
        app.call(Method::DELETE, "/api/auth/account", &ana, None).await.assert_error(401, "AUTH_004");
        app.call(Method::DELETE, "/api/auth/account", &ana, Some(json!({ "password": "Wrong1!x" })))
            .await
            .assert_error(401, "AUTH_004");
        // Still alive after the refusals.
        app.get("/api/empresas", &As::key(&key)).await.data(200);
        app.call(Method::DELETE, "/api/auth/account", &ana, Some(json!({ "password": "Secreto1!" }))).await.data(200);
        app.get("/api/empresas", &As::key(&key)).await.assert_error(401, "AUTH_002");
    })
    .await;
}

// ---- 2. Rate limits and login lockout ------------------------------------------------------

/// A made-up credential header for request `n`.
type Forge = fn(usize) -> (&'static str, String);

#[tokio::test]
async fn made_up_credentials_do_not_escape_the_address_limit() {
    each_backend_with(
        |config| {
            config.rate_limit.enabled = true;
            config.rate_limit.ip_per_second = 1;
            config.rate_limit.ip_burst = 10;
            config.rate_limit.key_per_second = 1000;
            config.rate_limit.key_burst = 1000;
        },
        |app: TestApp| async move {
            let forged: [Forge; 2] = [
                |n| ("authorization", format!("Bearer junk-{n}-{}", uuid::Uuid::new_v4())),
                |n| ("cookie", format!("timbra_session=forged-{n}-{}", uuid::Uuid::new_v4())),
            ];
            for forge in forged {
                let mut limited = 0;
                for n in 0..40 {
                    // Another email each time: only the address limit can answer 429 here.
                    let email = format!("nobody-{n}-{}@example.com", uuid::Uuid::new_v4());
                    let answer = login(&app, &email, "Wrong1!x", &[forge(n)]).await;
                    match answer.status.as_u16() {
                        401 => {}
                        429 => {
                            answer.assert_error(429, "RATE_001");
                            assert!(retry_after(&answer) >= 1);
                            limited += 1;
                        }
                        other => panic!("unexpected {other}: {}", answer.body),
                    }
                }
                assert!(limited >= 25, "only {limited} of 40 forged-credential logins were limited");
            }
        },
    )
    .await;
}

#[tokio::test]
async fn failed_logins_lock_the_email_from_any_address_and_the_lock_grows() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(clocked(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            app.user("ana@example.com").await;
            // A row nobody touched for a week: dropped when the next lock is imposed.
            let old = clock.now() - time::Duration::days(8);
            let mut conn = app.db.conn().await.unwrap();
            timbra_store::sql!(execute conn,
                "INSERT INTO login_throttle (email_digest, attempts, locks, locked_until, created_at, updated_at) \
                 VALUES ('stale', 3, 0, NULL, $1, $1)",
                old)
            .unwrap();
            drop(conn);
            // Ten failures, each with other made-up headers.
            for n in 0..10 {
                let headers =
                    [("authorization", format!("Bearer junk-{n}")), ("x-forwarded-for", format!("203.0.113.{n}"))];
                login(&app, "ANA@example.com", "Wrong1!x", &headers).await.assert_error(401, "AUTH_004");
            }
            // Now even the right password is refused, by every route that checks it.
            let locked = login(&app, "ana@example.com", "Secreto1!", &[]).await;
            locked.assert_error(429, "RATE_001");
            let wait = retry_after(&locked);
            assert!((1..=60).contains(&wait), "Retry-After {wait}");
            let mut conn = app.db.conn().await.unwrap();
            let stale = timbra_store::sql!(scalar_one conn, i64,
                "SELECT COUNT(*) FROM login_throttle WHERE email_digest = 'stale'")
            .unwrap();
            assert_eq!(stale, 0, "week-old rows are dropped");
            drop(conn);
            let by_key = app
                .post(
                    "/api/api-keys",
                    &As::default(),
                    json!({ "name": "k", "email": "ana@example.com", "password": "Secreto1!" }),
                )
                .await;
            by_key.assert_error(429, "RATE_001");

            // An email without an account answers the same way: no enumeration.
            for _ in 0..10 {
                login(&app, "ghost@example.com", "Wrong1!x", &[]).await.assert_error(401, "AUTH_004");
            }
            let ghost = login(&app, "ghost@example.com", "Wrong1!x", &[]).await;
            ghost.assert_error(429, "RATE_001");
            assert!((1..=60).contains(&retry_after(&ghost)));

            // After the lock one more failure locks again, for twice as long.
            clock.advance(Duration::from_secs(61));
            login(&app, "ana@example.com", "Wrong1!x", &[]).await.assert_error(401, "AUTH_004");
            let again = login(&app, "ana@example.com", "Secreto1!", &[]).await;
            again.assert_error(429, "RATE_001");
            assert!((61..=120).contains(&retry_after(&again)), "Retry-After {}", retry_after(&again));
            clock.advance(Duration::from_secs(121));
            // The right password after the lock works and forgets the failures.
            login(&app, "ana@example.com", "Secreto1!", &[]).await.data(200);
            login(&app, "ana@example.com", "Wrong1!x", &[]).await.assert_error(401, "AUTH_004");
            login(&app, "ana@example.com", "Secreto1!", &[]).await.data(200);
        }
    })
    .await;
}

// ---- 3. Key inheritance and empresa:create -------------------------------------------------

#[tokio::test]
async fn child_keys_never_outlive_or_outgrow_their_parent() {
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(clocked(&clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let (_, key) = app.user("ana@example.com").await;
            let empresa = app.empresa(&key, "EKU9003173C9").await;
            let parent = app.post("/api/api-keys", &As::key(&key), json!({ "name": "day", "expiresInDays": 1 })).await;
            let parent = parent.data(201).clone();
            let parent_key = parent["key"].as_str().unwrap().to_owned();
            let expires = parent["expiresAt"].as_str().unwrap().to_owned();
            let child = app.post("/api/api-keys", &As::key(&parent_key), json!({ "name": "child" })).await;
            let child = child.data(201).clone();
            assert_eq!(child["expiresAt"].as_str(), Some(expires.as_str()), "the child inherits the expiry");
            let longer =
                app.post("/api/api-keys", &As::key(&parent_key), json!({ "name": "longer", "expiresInDays": 30 })).await;
            assert_eq!(longer.data(201)["expiresAt"].as_str(), Some(expires.as_str()), "a later expiry is cut");
            clock.advance(Duration::from_secs(86_400 + 60));
            let child_key = child["key"].as_str().unwrap();
            app.get("/api/empresas", &As::key(child_key)).await.assert_error(401, "AUTH_001");

            // Scopes: creating companies is the scope empresa:create.
            let viewer = app.post("/api/api-keys", &As::key(&key), json!({ "name": "v", "scopes": ["cfdi:view"] })).await;
            let viewer = viewer.data(201)["key"].as_str().unwrap().to_owned();
            let body = json!({ "rfc": "XIA190128J61", "razonSocial": "XENON INDUSTRIAL ARTICLES", "regimenFiscal": "601", "codigoPostal": "42501" });
            app.post("/api/empresas", &As::key(&viewer), body.clone()).await.assert_error(403, "SCOPE_002");
            app.post("/api/api-keys", &As::key(&viewer), json!({ "name": "w", "scopes": ["empresa:create"] }))
                .await
                .assert_error(403, "APIKEY_002");
            let creator =
                app.post("/api/api-keys", &As::key(&key), json!({ "name": "c", "scopes": ["empresa:create"] })).await;
            let creator = creator.data(201)["key"].as_str().unwrap().to_owned();
            let created = app.post("/api/empresas", &As::key(&creator), body.clone()).await;
            assert_eq!(created.data(201)["role"], json!("PROPIETARIO"));

            // A key narrowed to a company sees only it and creates none.
            let one = app.post("/api/api-keys", &As::key(&key), json!({ "name": "one", "empresaIds": [empresa] })).await;
            let one = one.data(201)["key"].as_str().unwrap().to_owned();
            let listed = app.get("/api/empresas", &As::key(&one)).await;
            let ids: Vec<&str> = listed.data(200).as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
            assert_eq!(ids, [empresa.as_str()]);
            assert_eq!(app.get("/api/empresas", &As::key(&key)).await.data(200).as_array().unwrap().len(), 2);
            let mut other = body;
            other["rfc"] = json!("AAA010101AAA");
            app.post("/api/empresas", &As::key(&one), other).await.assert_error(403, "SCOPE_001");
        }
    })
    .await;
}

// ---- 6. Webhook addresses ------------------------------------------------------------------

const PRIVATE_FORMS: [&str; 8] = [
    "http://198.18.0.1/hook",
    "http://198.19.255.1/hook",
    "http://[::127.0.0.1]/hook",
    "http://[::ffff:0:7f00:1]/hook",
    "http://[64:ff9b::a00:1]/hook",
    "http://[2002:c0a8:101::1]/hook",
    "http://[fec0::1]/hook",
    "http://[100::1]/hook",
];

#[tokio::test]
async fn webhooks_refuse_embedded_and_reserved_private_addresses_at_registration_and_delivery() {
    each_backend_with(
        |config| config.jobs.poll = Duration::from_millis(20),
        |app: TestApp| async move {
            let (_, key) = app.user("ana@example.com").await;
            let empresa = app.empresa(&key, "EKU9003173C9").await;
            let owner = As::key(&key).in_empresa(&empresa);
            for url in PRIVATE_FORMS {
                let refused = app.post("/api/webhooks", &owner, json!({ "url": url })).await;
                refused.assert_error(400, "WEBHOOK_001");
                assert_eq!(refused.body["error"]["details"]["fields"][0]["field"], json!("url"), "{url}");
            }
            // A row that got in some other way (an older release) is still not called: delivery
            // judges the address again (names after resolution, by the client's resolver).
            let now = time::OffsetDateTime::now_utc();
            for (n, url) in ["http://[::ffff:0:7f00:1]:9/hook", "http://[64:ff9b::7f00:1]:9/hook", "http://[::127.0.0.1]:9/hook"]
                .iter()
                .enumerate()
            {
                let id = format!("wh-private-{n}");
                let mut conn = app.db.conn().await.unwrap();
                timbra_store::sql!(execute conn,
                    "INSERT INTO webhooks (id, empresa_id, url, events, description, secret, active, created_at, updated_at) \
                     VALUES ($1, $2, $3, NULL, NULL, 'whsec_x', $4, $5, $5)",
                    &id, &empresa, *url, true, now)
                .unwrap();
                drop(conn);
                app.post(&format!("/api/webhooks/{id}/test"), &owner, json!({})).await.data(201);
                let path = format!("/api/webhooks/{id}/deliveries");
                wait_for(10, "the delivery to fail", async || {
                    app.get(&path, &owner).await.data(200)["items"][0]["status"] == json!("failed")
                })
                .await;
                let log = app.get(&path, &owner).await.data(200)["items"][0].clone();
                let error = log["lastError"].as_str().unwrap_or_default();
                assert!(error.contains("public address"), "{url}: {log:#}");
            }
        },
    )
    .await;
}

#[tokio::test]
async fn webhook_secrets_are_sealed_at_rest_and_clear_ones_still_sign() {
    let clock = Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut Config| {
            config.clock = clock.clone();
            config.webhooks.allow_private = true;
            config.jobs.poll = Duration::from_millis(20);
        }
    };
    each_backend_with(adjust, |app: TestApp| async move {
        let receiver = Receiver::start().await;
        let (_, key) = app.user("ana@example.com").await;
        let empresa = app.empresa(&key, "EKU9003173C9").await;
        let owner = As::key(&key).in_empresa(&empresa);
        let created = app.post("/api/webhooks", &owner, json!({ "url": receiver.url })).await.data(201).clone();
        let secret = created["secret"].as_str().unwrap();
        let id = created["id"].as_str().unwrap();
        let mut conn = app.db.conn().await.unwrap();
        let stored =
            timbra_store::sql!(scalar_one conn, String, "SELECT secret FROM webhooks WHERE id = $1", id).unwrap();
        assert!(stored.starts_with("enc:v1:") && !stored.contains(&secret[6..]), "{stored}");
        let rotated = app.post(&format!("/api/webhooks/{id}/rotate-secret"), &owner, json!({})).await.data(200).clone();
        let new_secret = rotated["secret"].as_str().unwrap();
        let stored =
            timbra_store::sql!(scalar_one conn, String, "SELECT secret FROM webhooks WHERE id = $1", id).unwrap();
        assert!(stored.starts_with("enc:v1:") && !stored.contains(&new_secret[6..]), "{stored}");
        app.post(&format!("/api/webhooks/{id}/test"), &owner, json!({})).await.data(201);
        wait_for(10, "the sealed-secret delivery", async || receiver.accepted().len() == 1).await;
        assert_eq!(receiver.accepted()[0].signature, signature(new_secret, &receiver.accepted()[0].body));

        // A row written in clear before secrets were sealed still signs with its secret.
        let now = time::OffsetDateTime::now_utc();
        timbra_store::sql!(execute conn,
            "INSERT INTO webhooks (id, empresa_id, url, events, description, secret, active, created_at, updated_at) \
             VALUES ('wh-legacy', $1, $2, NULL, NULL, 'whsec_legacy', $3, $4, $4)",
            &empresa, &receiver.url, true, now)
        .unwrap();
        drop(conn);
        app.post("/api/webhooks/wh-legacy/test", &owner, json!({})).await.data(201);
        wait_for(10, "the clear-secret delivery", async || receiver.accepted().len() == 2).await;
        assert_eq!(receiver.accepted()[1].signature, signature("whsec_legacy", &receiver.accepted()[1].body));

        // The start-up sweep seals it (here with another installation's key, read back with it).
        let dir = TempDir::new();
        let state = timbra_services::context::AppContext::new(app.db.clone(), test_config(&dir.0));
        assert_eq!(timbra_services::webhooks::seal_stored_secrets(&state).await.unwrap(), 1);
        let mut conn = app.db.conn().await.unwrap();
        let stored =
            timbra_store::sql!(scalar_one conn, String, "SELECT secret FROM webhooks WHERE id = 'wh-legacy'").unwrap();
        assert!(stored.starts_with("enc:v1:"));
        let master = state.cfdi.master().unwrap();
        assert_eq!(
            timbra_services::webhooks::open_secret(master, &WebhookId::from("wh-legacy"), &stored).unwrap(),
            "whsec_legacy"
        );
    })
    .await;
}

fn signature(secret: &str, body: &[u8]) -> String {
    timbra_services::webhooks::signature(secret, body)
}

// ---- 7. The smaller ones -------------------------------------------------------------------

#[tokio::test]
async fn a_company_keeps_an_active_owner_when_the_other_owner_deleted_the_account() {
    each_backend(|app: TestApp| async move {
        let (ana_id, ana) = app.user("ana@example.com").await;
        app.user("eva@example.com").await;
        let empresa = app.empresa(&ana, "EKU9003173C9").await;
        let members = format!("/api/empresas/{empresa}/miembros");
        app.post(&members, &As::key(&ana), json!({ "email": "eva@example.com", "role": "PROPIETARIO" }))
            .await
            .data(201);
        let eva = session(app.login("eva@example.com").await);
        app.call(Method::DELETE, "/api/auth/account", &eva, Some(json!({ "password": "Secreto1!" }))).await.data(200);
        // Eva's membership remains, but she cannot act: Ana is the only active owner.
        let demote = app
            .call(
                Method::PATCH,
                &format!("{members}/{ana_id}"),
                &As::key(&ana),
                Some(json!({ "role": "ADMINISTRADOR" })),
            )
            .await;
        demote.assert_error(409, "EMPRESA_004");
        app.call(Method::DELETE, &format!("{members}/{ana_id}"), &As::key(&ana), None)
            .await
            .assert_error(409, "EMPRESA_004");
    })
    .await;
}

#[tokio::test]
async fn pages_whose_offset_overflows_are_refused() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        let empresa = app.empresa(&key, "EKU9003173C9").await;
        let who = As::key(&key).in_empresa(&empresa);
        let huge = i64::MAX;
        for path in [
            format!("/api/clientes?page={huge}&pageSize=100"),
            format!("/api/productos?page={huge}&pageSize=2"),
            format!("/api/webhooks?page={huge}&pageSize=100"),
            format!("/api/cfdi?page={huge}&limit=100"),
            format!("/api/jobs?page={huge}&pageSize=100"),
        ] {
            app.get(&path, &who).await.assert_error(400, "REQUEST_001");
        }
        // A far but representable page is simply empty.
        let far = app.get("/api/clientes?page=1000000&pageSize=100", &who).await;
        assert_eq!(far.data(200)["page"], json!(1_000_000));
    })
    .await;
}

#[tokio::test]
async fn free_texts_are_bounded() {
    each_backend(|app: TestApp| async move {
        let huge = "a".repeat(1_500_000);
        let register = |name: String| {
            let app = &app;
            async move {
                app.post(
                    "/api/auth/register",
                    &As::default(),
                    json!({ "name": name, "email": "big@example.com", "password": "Secreto1!" }),
                )
                .await
            }
        };
        register(huge.clone()).await.assert_error(400, "USER_001");
        register("b".repeat(201)).await.assert_error(400, "USER_001");
        register("b".repeat(200)).await.data(201);
        let (_, key) = app.user("ana@example.com").await;
        let body = json!({ "rfc": "EKU9003173C9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601",
            "codigoPostal": "42501", "nombreComercial": "n".repeat(301) });
        app.post("/api/empresas", &As::key(&key), body).await.assert_error(400, "EMPRESA_001");
        let empresa = app.empresa(&key, "EKU9003173C9").await;
        let who = As::key(&key).in_empresa(&empresa);
        let patch = app
            .call(
                Method::PATCH,
                &format!("/api/empresas/{empresa}"),
                &As::key(&key),
                Some(json!({ "nombreComercial": huge })),
            )
            .await;
        patch.assert_error(400, "EMPRESA_001");
        let q = "q".repeat(201);
        app.get(&format!("/api/clientes?q={q}"), &who).await.assert_error(400, "REQUEST_001");
        app.get(&format!("/api/cfdi?search={q}"), &who).await.assert_error(400, "REQUEST_001");
    })
    .await;
}

#[tokio::test]
async fn like_wildcards_alone_match_nothing_and_downloads_are_private() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = crate::cfdi::setup(&app, "like@example.com").await;
        let stamped = crate::cfdi::timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await.data(201).clone();
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(1));
        for wildcard in ["%25", "_", "%5C", "%25%25", "EKU%25"] {
            let listed = app.get(&format!("/api/cfdi?search={wildcard}"), &who).await;
            assert_eq!(listed.data(200)["total"], json!(0), "search={wildcard}");
        }
        assert_eq!(app.get("/api/cfdi?search=EKU", &who).await.data(200)["total"], json!(1));

        let id = stamped["cfdiId"].as_str().unwrap();
        for path in [format!("/api/cfdi/{id}/xml"), format!("/api/cfdi/{id}/pdf")] {
            let answer = app.get(&path, &who).await;
            assert_eq!(answer.status, 200, "{path}");
            assert_eq!(answer.headers["x-content-type-options"], "nosniff", "{path}");
            assert_eq!(answer.headers["cache-control"], "private, no-store", "{path}");
        }
    })
    .await;
}

#[cfg(unix)]
#[tokio::test]
async fn the_data_folder_is_0700_and_the_database_files_0600() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let dir = TempDir::new();
    let data = dir.0.join("data");
    let config = test_config(&data);
    let db = timbra_server::open(&config).await.unwrap();
    let mut conn = db.conn().await.unwrap();
    timbra_store::sql!(execute conn, "CREATE TABLE probe (x INTEGER)").unwrap();
    assert_eq!(mode(&data), 0o700);
    for file in ["timbra.db", "timbra.db-wal", "timbra.db-shm"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    drop(conn);
    db.close().await;
    // An older installation's files are narrowed on the next start.
    std::fs::set_permissions(data.join("timbra.db"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let db = timbra_server::open(&config).await.unwrap();
    assert_eq!(mode(&data.join("timbra.db")), 0o600);
    db.close().await;
}
