//! FIEL upload and status (`/api/empresas/{id}/fiel`): every refusal, the role table, the key
//! encrypted at rest, and opening the stored FIEL for SAT (MISSING_FIEL, FIEL_RFC_MISMATCH,
//! FIEL_DECRYPT).

use std::path::PathBuf;
use timbra_store::ids::EmpresaId;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use timbra_credentials::testgen::{self, Options};
use timbra_services::cfdi::fiel;
use timbra_services::context::AppContext;
use timbra_services::error::Code;
use time::{Duration, OffsetDateTime};

use crate::harness::{As, TempDir, TestApp, each_backend_with, test_config};

const MASTER_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const RFC: &str = "EKU9003173C9";

fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// SAT's files with its test FIEL; `None` after a reported skip: SAT's own FIEL is not uploaded.
fn sat_dir() -> Option<PathBuf> {
    timbra_testkit::sat("certs/30001000000500003415.cer")
}

fn generated(fiel: bool, rfc: &str, not_before: OffsetDateTime, not_after: OffsetDateTime) -> testgen::Generated {
    let options = if fiel {
        Options::fiel(rfc, "ESCUELA KEMPER URGATE", not_before, not_after)
    } else {
        Options::csd(rfc, "ESCUELA KEMPER URGATE", not_before, not_after)
    };
    testgen::generate(&options).unwrap()
}

fn upload(g: &testgen::Generated, password: &str) -> serde_json::Value {
    json!({ "cerBase64": b64(&g.cer_der), "keyBase64": b64(&g.key_der_encrypted), "password": password })
}

/// The app's state seen from the test (same database, same master key).
fn state(app: &TestApp, dir: &TempDir, master_key: &str) -> AppContext {
    let mut config = test_config(&dir.0);
    config.master_key = Some(master_key.into());
    AppContext::new(app.db.clone(), config)
}

#[tokio::test]
async fn fiel_upload_checks_every_case_and_keeps_secrets_encrypted() {
    let now = OffsetDateTime::now_utc();
    let valid = generated(true, RFC, now - Duration::days(1), now + Duration::days(365));
    let other_key = generated(true, RFC, now - Duration::days(1), now + Duration::days(365));
    let other_rfc = generated(true, "XIA190128J61", now - Duration::days(1), now + Duration::days(365));
    let expired = generated(true, RFC, now - Duration::days(800), now - Duration::days(1));
    let csd = generated(false, RFC, now - Duration::days(1), now + Duration::days(365));
    each_backend_with(|config| config.master_key = Some(MASTER_KEY.into()), |app: TestApp| {
        let (valid, other_key, other_rfc, expired, csd) =
            (valid.clone(), other_key.clone(), other_rfc.clone(), expired.clone(), csd.clone());
        async move {
            let (_, key) = app.user("fiel@example.com").await;
            let empresa = app.empresa(&key, RFC).await;
            let who = As::key(&key).in_empresa(&empresa);
            let path = format!("/api/empresas/{empresa}/fiel");

            let status = app.get(&path, &who).await;
            assert_eq!(
                status.data(200),
                &json!({ "configured": false, "expired": false, "noCertificado": null, "vigenciaFin": null })
            );

            let missing = app.post(&path, &who, json!({ "cerBase64": b64(&valid.cer_der) })).await;
            missing.assert_error(400, "FIEL_001");
            app.post(&path, &who, upload(&valid, "wrong-password")).await.assert_error(400, "FIEL_002");
            let mismatch = json!({ "cerBase64": b64(&valid.cer_der), "keyBase64": b64(&other_key.key_der_encrypted), "password": "12345678a" });
            app.post(&path, &who, mismatch).await.assert_error(400, "FIEL_002");
            let garbage = json!({ "cerBase64": "bm90IGEgY2VydA==", "keyBase64": "eA==", "password": "x" });
            app.post(&path, &who, garbage).await.assert_error(400, "FIEL_002");
            app.post(&path, &who, upload(&expired, "12345678a")).await.assert_error(400, "FIEL_003");
            app.post(&path, &who, upload(&other_rfc, "12345678a")).await.assert_error(400, "FIEL_004");
            let refused = app.post(&path, &who, upload(&csd, "12345678a")).await;
            refused.assert_error(400, "FIEL_005");
            assert!(refused.body["error"]["message"].as_str().unwrap().contains("CSD"));
            // The CSD route still refuses a FIEL (CSD_005): the two mirror each other.
            let csd_path = format!("/api/empresas/{empresa}/certificados");
            app.post(&csd_path, &who, upload(&valid, "12345678a")).await.assert_error(400, "CSD_005");
            if let Some(sat) = sat_dir() {
                // SAT's 2019 test FIEL of the same RFC expired in 2023; SAT's CSD is no FIEL.
                let read = |name: &str| std::fs::read(sat.join("certs").join(name)).unwrap();
                let body = json!({ "cerBase64": b64(&read("30001000000400002417.cer")), "keyBase64": b64(&read("30001000000400002417.key")), "password": "12345678a" });
                app.post(&path, &who, body).await.assert_error(400, "FIEL_003");
                let body = json!({ "cerBase64": b64(&read("30001000000500003416.cer")), "keyBase64": b64(&read("30001000000500003416.key")), "password": "12345678a" });
                app.post(&path, &who, body).await.assert_error(400, "FIEL_005");
                // SAT's current test FIEL (valid until 2027-05-17) is accepted.
                let body = json!({ "cerBase64": b64(&read("30001000000500003415.cer")), "keyBase64": b64(&read("30001000000500003415.key")), "password": "12345678a" });
                let stored = app.post(&path, &who, body).await;
                assert_eq!(stored.data(201)["noCertificado"], json!("30001000000500003415"));
            }
            assert_eq!(app.get(&path, &who).await.data(200)["configured"], json!(sat_dir().is_some()));

            let stored = app.post(&path, &who, upload(&valid, "12345678a")).await;
            let data = stored.data(201).clone();
            let no_certificado =
                timbra_credentials::Certificate::from_bytes(&valid.cer_der).unwrap().no_certificado().to_owned();
            assert_eq!(data["noCertificado"], json!(no_certificado));
            assert_eq!(data["empresaId"], json!(empresa));
            assert!(data["vigenciaFin"].as_str().is_some());
            assert!(data.get("keyBase64").is_none() && data.get("password").is_none());

            let status = app.get(&path, &who).await;
            let status = status.data(200);
            assert_eq!(status["configured"], json!(true));
            assert_eq!(status["expired"], json!(false));
            assert_eq!(status["noCertificado"], json!(no_certificado));
            assert_eq!(status["vigenciaFin"], data["vigenciaFin"]);
            assert!(status.get("keyBase64").is_none() && status.get("cerBase64").is_none());

            // One row per company (the upload replaced the previous one); secrets encrypted.
            let mut conn = app.db.conn().await.unwrap();
            let rows: Vec<(Vec<u8>, Vec<u8>)> = timbra_store::sql!(fetch_all conn, (Vec<u8>, Vec<u8>),
                "SELECT key_enc, password_enc FROM fiel WHERE empresa_id = $1", &empresa).unwrap();
            drop(conn);
            assert_eq!(rows.len(), 1);
            let (key_enc, password_enc) = &rows[0];
            let start = &valid.key_der_encrypted[..16];
            assert!(!key_enc.windows(16).any(|w| w == start));
            assert!(!password_enc.windows(9).any(|w| w == b"12345678a"));
            // The CSD is untouched by a FIEL upload.
            let listed = app.get("/api/empresas", &As::key(&key)).await;
            assert_eq!(listed.data(200)[0]["csdConfigured"], json!(false));
        }
    })
    .await;
}

#[tokio::test]
async fn fiel_roles_and_tenancy() {
    let now = OffsetDateTime::now_utc();
    let valid = generated(true, RFC, now - Duration::days(1), now + Duration::days(365));
    each_backend_with(
        |config| config.master_key = Some(MASTER_KEY.into()),
        |app: TestApp| {
            let valid = valid.clone();
            async move {
                let (_, owner) = app.user("owner-fiel@example.com").await;
                let (_, contador) = app.user("contador-fiel@example.com").await;
                let (_, admin) = app.user("admin-fiel@example.com").await;
                let (_, stranger) = app.user("stranger-fiel@example.com").await;
                let empresa = app.empresa(&owner, RFC).await;
                let members = format!("/api/empresas/{empresa}/miembros");
                for (email, role) in
                    [("contador-fiel@example.com", "CONTADOR"), ("admin-fiel@example.com", "ADMINISTRADOR")]
                {
                    app.post(&members, &As::key(&owner), json!({ "email": email, "role": role })).await.data(201);
                }
                let path = format!("/api/empresas/{empresa}/fiel");
                let as_contador = As::key(&contador).in_empresa(&empresa);
                app.post(&path, &as_contador, upload(&valid, "12345678a")).await.assert_error(403, "AUTH_003");
                // Any member reads the status.
                assert_eq!(app.get(&path, &as_contador).await.data(200)["configured"], json!(false));
                let as_admin = As::key(&admin).in_empresa(&empresa);
                app.post(&path, &as_admin, upload(&valid, "12345678a")).await.data(201);
                assert_eq!(app.get(&path, &as_contador).await.data(200)["configured"], json!(true));
                let as_stranger = As::key(&stranger).in_empresa(&empresa);
                app.get(&path, &as_stranger).await.assert_error(403, "SCOPE_001");
                app.post(&path, &as_stranger, upload(&valid, "12345678a")).await.assert_error(403, "SCOPE_001");
            }
        },
    )
    .await;
}

#[tokio::test]
async fn stored_fiel_opens_for_sat_or_says_why_not() {
    let now = OffsetDateTime::now_utc();
    let valid = generated(true, RFC, now - Duration::days(1), now + Duration::days(365));
    each_backend_with(
        |config| config.master_key = Some(MASTER_KEY.into()),
        |app: TestApp| {
            let valid = valid.clone();
            async move {
                let (_, key) = app.user("abrir-fiel@example.com").await;
                let empresa = app.empresa(&key, RFC).await;
                let who = As::key(&key).in_empresa(&empresa);
                let path = format!("/api/empresas/{empresa}/fiel");
                let dir = TempDir::new();
                let state = state(&app, &dir, MASTER_KEY);

                let missing = fiel::abrir(&state, &EmpresaId::from(&empresa), RFC).await.unwrap_err();
                assert_eq!(missing.code, Code::MissingFiel);

                app.post(&path, &who, upload(&valid, "12345678a")).await.data(201);
                let opened = fiel::abrir(&state, &EmpresaId::from(&empresa), RFC).await.unwrap();
                assert_eq!(opened.certificate().rfc(), RFC);
                assert!(opened.sign_sha1(b"x").is_ok());

                let mismatch = fiel::abrir(&state, &EmpresaId::from(&empresa), "XIA190128J61").await.unwrap_err();
                assert_eq!(mismatch.code, Code::FielRfcMismatch);

                let other_master = state_with_other_key(&app, &dir);
                let undecryptable = fiel::abrir(&other_master, &EmpresaId::from(&empresa), RFC).await.unwrap_err();
                assert_eq!(undecryptable.code, Code::FielDecrypt);

                // Made here: each backend's run needs a FIEL still valid at upload.
                let now = OffsetDateTime::now_utc();
                let short = generated(true, RFC, now - Duration::days(1), now + Duration::seconds(3));
                app.post(&path, &who, upload(&short, "12345678a")).await.data(201);
                tokio::time::sleep(std::time::Duration::from_millis(3100)).await;
                let expired = fiel::abrir(&state, &EmpresaId::from(&empresa), RFC).await.unwrap_err();
                assert_eq!(expired.code, Code::FielExpired);
                let status = app.get(&path, &who).await;
                assert_eq!(status.data(200)["expired"], json!(true));
                assert_eq!(status.data(200)["configured"], json!(true));
            }
        },
    )
    .await;
}

fn state_with_other_key(app: &TestApp, dir: &TempDir) -> AppContext {
    state(app, dir, "HyAdHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA=")
}
