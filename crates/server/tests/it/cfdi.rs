//! Invoicing over HTTP on both backends: CSD upload, sandbox stamping checked against SAT's own
//! tools (xmllint, xsltproc, openssl), validation, idempotency, concurrent folios, listing,
//! signed links and the stamp balance.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use timbra_credentials::testgen::{self, Options};
use timbra_services::cfdi::{crypto::MasterKey, links};
use time::{Duration, OffsetDateTime};

use crate::harness::{Answer, As, TempDir, TestApp, each_backend, each_backend_with};

const MASTER_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
pub(crate) const EMISOR: &str = "EKU9003173C9";

/// SAT's files (`$TIMBRA_SAT_DIR`, else `../shared/sat`); `None` after a reported skip (a
/// failure under `TIMBRA_REQUIRE_SAT=1`): the SAT oracle checks do not run.
pub(crate) fn sat_dir() -> Option<PathBuf> {
    timbra_testkit::sat("xsd/cfdv40-with-complements.xsd")
}

/// Sends a stamping request, optionally with an Idempotency-Key.
pub(crate) async fn timbrar(app: &TestApp, who: &As, body: &Value, key: Option<&str>) -> Answer {
    let mut request = app
        .client
        .post(format!("{}/api/cfdi/timbrar", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .json(body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    TestApp::read(request.send().await.unwrap()).await
}

pub(crate) async fn raw(app: &TestApp, path: &str, who: Option<&As>) -> (StatusCode, String) {
    let mut request = app.client.get(format!("{}{path}", app.base));
    if let Some(who) = who {
        request =
            request.bearer_auth(who.key.as_deref().unwrap()).header("x-empresa-id", who.empresa.as_deref().unwrap());
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

/// A user with a sandbox company EKU9003173C9 and a customer; returns (who, cliente id).
pub(crate) async fn setup(app: &TestApp, email: &str) -> (As, String) {
    let (_, key) = app.user(email).await;
    let empresa = app.empresa(&key, EMISOR).await;
    let who = As::key(&key).in_empresa(&empresa);
    let cliente = app
        .post(
            "/api/clientes",
            &who,
            json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }),
        )
        .await;
    (who, cliente.data(201)["id"].as_str().unwrap().to_owned())
}

pub(crate) fn concepto(descripcion: &str, cantidad: Value, precio: Value) -> Value {
    json!({ "claveProdServ": "81112100", "claveUnidad": "E48", "descripcion": descripcion, "cantidad": cantidad, "precioUnitario": precio })
}

pub(crate) fn factura(cliente: &str) -> Value {
    json!({ "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente,
        "conceptos": [concepto("Servicio de timbrado", json!(2), json!("1500.50"))] })
}

pub(crate) fn sh(program: &str, args: &[&str], cwd: &Path) -> (bool, Vec<u8>, String) {
    let output = Command::new(program).args(args).current_dir(cwd).output().unwrap();
    (output.status.success(), output.stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[tokio::test]
async fn stamped_invoices_pass_sat_schema_cadena_and_both_seals() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "oraculo@example.com").await;
        let ingreso = timbrar(&app, &who, &factura(&cliente), None).await;
        let first = ingreso.data(201).clone();
        assert_eq!(ingreso.body["mode"], json!("sandbox"));
        assert_eq!(ingreso.headers["x-service-mode"], "sandbox");
        assert!(first["uuid"].as_str().unwrap().starts_with("SANDBOX-") && first["uuid"].as_str().unwrap().len() == 44);
        assert_eq!((first["serie"].as_str(), first["folio"].as_str(), first["xmlUploaded"].as_bool()), (Some("A"), Some("1"), Some(true)));
        assert_eq!(first["total"], json!("3481.16")); // 2 × 1500.50 + 16% IVA
        let bare = first["uuid"].as_str().unwrap().trim_start_matches("SANDBOX-").to_owned();

        let impuestos = json!({ "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente, "conceptos": [
            { "claveProdServ": "50202201", "claveUnidad": "H87", "descripcion": "Bebida saborizada", "cantidad": "10", "precioUnitario": 25.5,
              "impuestos": { "traslados": [ { "impuesto": "IEPS", "tasaOCuota": "0.265" }, { "impuesto": "IVA", "tasaOCuota": "0.16" } ] } },
            { "claveProdServ": "80101500", "claveUnidad": "E48", "descripcion": "Asesoría", "cantidad": 1, "precioUnitario": "10000",
              "impuestos": { "traslados": [ { "impuesto": "002", "tasaOCuota": 0.16 } ],
                             "retenciones": [ { "impuesto": "ISR", "tasaOCuota": "0.10" }, { "impuesto": "IVA", "tasaOCuota": "0.106667" } ] } } ] });
        let usd = json!({ "formaPago": "99", "metodoPago": "PPD", "moneda": "USD", "tipoCambio": "17.2545", "clienteId": cliente,
            "conceptos": [concepto("Licencia anual", json!(3), json!(1200.55))] });
        let publico = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Venta del día", json!(1), json!("5830.17"))] });
        let egreso = json!({ "tipoComprobante": "E", "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente, "usoCfdi": "G02",
            "cfdiRelacionados": [ { "tipoRelacion": "01", "uuids": [ first["uuid"] ] } ],
            "conceptos": [ { "claveProdServ": "84111506", "claveUnidad": "ACT", "descripcion": "Devolución parcial", "cantidad": 1, "precioUnitario": 100 } ] });
        let traslado = json!({ "tipoComprobante": "T", "conceptos": [
            { "claveProdServ": "56101700", "claveUnidad": "H87", "descripcion": "Sillas escolares", "cantidad": 25, "precioUnitario": 0 } ] });
        let mut ids = vec![first["cfdiId"].as_str().unwrap().to_owned()];
        for body in [&impuestos, &usd, &publico, &egreso, &traslado] {
            let answer = timbrar(&app, &who, body, None).await;
            ids.push(answer.data(201)["cfdiId"].as_str().unwrap().to_owned());
        }
        let folios: Vec<i64> = {
            let mut v = Vec::new();
            for id in &ids {
                v.push(app.get(&format!("/api/cfdi/{id}"), &who).await.data(200)["folio"].as_str().unwrap().parse().unwrap());
            }
            v
        };
        assert_eq!(folios, vec![1, 2, 3, 4, 5, 6]);

        let dir = TempDir::new();
        let mut files = Vec::new();
        for id in &ids {
            let (status, xml) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
            assert_eq!(status, 200);
            let path = dir.0.join(format!("{id}.xml"));
            std::fs::write(&path, &xml).unwrap();
            files.push((path, xml));
        }
        let global = &files[3].1;
        assert!(global.contains("InformacionGlobal") && global.contains("Periodicidad=\"01\"") && global.contains("XAXX010101000"), "{global}");
        assert!(files[2].1.contains("TipoCambio=\"17.2545\"") && files[2].1.contains("Moneda=\"USD\""));
        assert!(files[1].1.contains("Impuesto=\"003\"") && files[1].1.contains("TotalImpuestosRetenidos"));
        assert!(files[4].1.contains(&format!("UUID=\"{bare}\"")) && files[4].1.contains("TipoDeComprobante=\"E\""));
        assert!(files[5].1.contains("TipoDeComprobante=\"T\""));

        let pac_cer = sandbox_pac_cer(&app).await;
        let pac = timbra_credentials::Certificate::from_bytes(&pac_cer).unwrap();
        for (_, xml) in &files {
            timbra_cfdi::sello::verificar_sello_xml(xml).unwrap();
            timbra_cfdi::sello::verificar_timbre_xml(xml, &pac).unwrap();
        }
        sat_oracle(&files, &pac_cer, &dir.0);

        // The certificate that signs sandbox timbres is public: anyone checks a sandbox stamp
        // with it, e.g. `timbra cfdi verify --sat-cert`.
        let publicado = app.client.get(format!("{}/api/sandbox/certificado", app.base)).send().await.unwrap();
        assert_eq!(publicado.status(), 200);
        assert_eq!(publicado.headers()["content-type"], "application/pkix-cert");
        assert_eq!(publicado.headers()["x-no-certificado"], pac.no_certificado());
        let publicado = publicado.bytes().await.unwrap();
        assert_eq!(&publicado[..], &pac_cer[..], "the served certificate is the one that signs");
        let cer = dir.0.join("sandbox.cer");
        std::fs::write(&cer, &publicado).unwrap();
        let verify = std::process::Command::new(env!("CARGO_BIN_EXE_timbra"))
            .args(["cfdi", "verify", files[0].0.to_str().unwrap(), "--sat-cert", cer.to_str().unwrap()])
            .output()
            .unwrap();
        let salida = String::from_utf8_lossy(&verify.stdout);
        assert!(salida.contains("timbre: ok"), "{salida}");
    })
    .await;
}

/// The sandbox stamping certificate, as the installation stored it.
pub(crate) async fn sandbox_pac_cer(app: &TestApp) -> Vec<u8> {
    let mut conn = app.db.conn().await.unwrap();
    timbra_store::sql!(scalar_one conn, Vec<u8>, "SELECT cer FROM sandbox_pac WHERE id = 'default'").unwrap()
}

/// SAT's own tools on stamped XML files (path, text): one xmllint call over every file against
/// SAT's schemas with the complements; the cadena original of SAT's XSLT equals ours byte for
/// byte; the Sello verifies with openssl and the certificate the XML carries; the SelloSAT with
/// the TFD cadena of SAT's XSLT and `pac_cer` (DER). `dir` is scratch space.
pub(crate) fn sat_oracle(files: &[(PathBuf, String)], pac_cer: &[u8], dir: &Path) {
    let Some(sat) = sat_dir() else { return };
    let schema = sat.join("xsd/cfdv40-with-complements.xsd");
    let mut args = vec!["--nonet", "--noout", "--schema", schema.to_str().unwrap()];
    args.extend(files.iter().map(|(path, _)| path.to_str().unwrap()));
    let (valid, _, stderr) = sh("xmllint", &args, &sat);
    assert!(valid, "xmllint: {stderr}");
    std::fs::write(dir.join("pac.der"), pac_cer).unwrap();
    for (path, xml) in files {
        let path = path.to_str().unwrap();
        let (_, cadena, _) = sh("xsltproc", &["--nonet", "xslt/cadenaoriginal_4_0.xslt", path], &sat);
        assert_eq!(String::from_utf8(cadena.clone()).unwrap(), timbra_cfdi::cadena::desde_xml(xml).unwrap(), "{path}");
        // Sello: openssl with the certificate the XML carries.
        let comprobante = timbra_cfdi::parser::parsear(xml).unwrap();
        let d = dir;
        std::fs::write(d.join("cadena.txt"), &cadena).unwrap();
        std::fs::write(d.join("cert.der"), STANDARD.decode(&comprobante.certificado).unwrap()).unwrap();
        std::fs::write(d.join("sig.bin"), STANDARD.decode(&comprobante.sello).unwrap()).unwrap();
        let (ok, pem, _) = sh("openssl", &["x509", "-inform", "DER", "-in", "cert.der", "-noout", "-pubkey"], d);
        assert!(ok);
        std::fs::write(d.join("pub.pem"), pem).unwrap();
        let (ok, out, err) =
            sh("openssl", &["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.bin", "cadena.txt"], d);
        assert!(ok, "{path}: {} {err}", String::from_utf8_lossy(&out));
        // SelloSAT: TFD cadena by SAT's XSLT, verified with the stamping certificate.
        let (_, tfd_xml, _) = sh("xsltproc", &["--nonet", "tools/extract_element.xslt", path], &sat);
        std::fs::write(d.join("tfd.xml"), tfd_xml).unwrap();
        let tfd_doc = d.join("tfd.xml");
        let (_, tfd_cadena, _) =
            sh("xsltproc", &["--nonet", "xslt/cadenaoriginal_TFD_1_1.xslt", tfd_doc.to_str().unwrap()], &sat);
        std::fs::write(d.join("tfd.txt"), &tfd_cadena).unwrap();
        let sello_sat = xml.split("SelloSAT=\"").nth(1).unwrap().split('"').next().unwrap();
        std::fs::write(d.join("tfd.bin"), STANDARD.decode(sello_sat).unwrap()).unwrap();
        let (ok, pem, _) = sh("openssl", &["x509", "-inform", "DER", "-in", "pac.der", "-noout", "-pubkey"], d);
        assert!(ok);
        std::fs::write(d.join("pac.pem"), pem).unwrap();
        let (ok, _, err) =
            sh("openssl", &["dgst", "-sha256", "-verify", "pac.pem", "-signature", "tfd.bin", "tfd.txt"], d);
        assert!(ok, "TFD of {path}: {err}");
    }
}

fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

pub(crate) fn csd(rfc: &str, not_before: OffsetDateTime, not_after: OffsetDateTime) -> testgen::Generated {
    testgen::generate(&Options::csd(rfc, "ESCUELA KEMPER URGATE", not_before, not_after)).unwrap()
}

#[tokio::test]
async fn csd_upload_checks_every_case_and_keeps_secrets_encrypted() {
    let now = OffsetDateTime::now_utc();
    let valid = csd(EMISOR, now - Duration::days(1), now + Duration::days(365));
    let other_key = csd(EMISOR, now - Duration::days(1), now + Duration::days(365));
    let other_rfc = csd("XIA190128J61", now - Duration::days(1), now + Duration::days(365));
    let expired = csd(EMISOR, now - Duration::days(800), now - Duration::days(1));
    let fiel = testgen::generate(&Options::fiel(
        EMISOR,
        "ESCUELA KEMPER URGATE",
        now - Duration::days(1),
        now + Duration::days(365),
    ))
    .unwrap();
    each_backend(|app: TestApp| {
        let (valid, other_key, other_rfc, expired, fiel) = (valid.clone(), other_key.clone(), other_rfc.clone(), expired.clone(), fiel.clone());
        async move {
            let (who, cliente) = setup(&app, "csd@example.com").await;
            let empresa = who.empresa.clone().unwrap();
            let path = format!("/api/empresas/{empresa}/certificados");
            let upload = |g: &testgen::Generated, password: &str| {
                json!({ "cerBase64": b64(&g.cer_der), "keyBase64": b64(&g.key_der_encrypted), "password": password })
            };
            app.post(&path, &who, json!({ "cerBase64": b64(&valid.cer_der) })).await.assert_error(400, "CSD_001");
            app.post(&path, &who, upload(&valid, "wrong-password")).await.assert_error(400, "CSD_002");
            let mismatch = json!({ "cerBase64": b64(&valid.cer_der), "keyBase64": b64(&other_key.key_der_encrypted), "password": "12345678a" });
            app.post(&path, &who, mismatch).await.assert_error(400, "CSD_002");
            app.post(&path, &who, json!({ "cerBase64": "bm90IGEgY2VydA==", "keyBase64": "eA==", "password": "x" })).await.assert_error(400, "CSD_002");
            app.post(&path, &who, upload(&expired, "12345678a")).await.assert_error(400, "CSD_003");
            app.post(&path, &who, upload(&other_rfc, "12345678a")).await.assert_error(400, "CSD_004");
            let refused = app.post(&path, &who, upload(&fiel, "12345678a")).await;
            refused.assert_error(400, "CSD_005");
            assert!(refused.body["error"]["message"].as_str().unwrap().contains("FIEL"));
            // SAT's own expired CSD (2019-2023), when the reference data is here.
            if let Some(sat) = sat_dir() {
                let cer = std::fs::read(sat.join("certs/30001000000400002434.cer")).unwrap();
                let key = std::fs::read(sat.join("certs/30001000000400002434.key")).unwrap();
                let body = json!({ "cerBase64": b64(&cer), "keyBase64": b64(&key), "password": "12345678a" });
                app.post(&path, &who, body).await.assert_error(400, "CSD_003");
            }
            let listed = app.get("/api/empresas", &As::key(who.key.as_deref().unwrap())).await;
            assert_eq!(listed.data(200)[0]["csdConfigured"], json!(false));

            let stored = app.post(&path, &who, upload(&valid, "12345678a")).await;
            let data = stored.data(201);
            let no_certificado = timbra_credentials::Certificate::from_bytes(&valid.cer_der).unwrap().no_certificado().to_owned();
            assert_eq!(data["noCertificado"], json!(no_certificado));
            assert_eq!(data["empresaId"], json!(empresa));
            assert!(data.get("keyBase64").is_none() && data.get("password").is_none());
            let listed = app.get("/api/empresas", &As::key(who.key.as_deref().unwrap())).await;
            assert_eq!(listed.data(200)[0]["csdConfigured"], json!(true));
            assert!(listed.data(200)[0]["csdVigenciaFin"].as_str().is_some());
            let one = app.get(&format!("/api/empresas/{empresa}"), &who).await;
            assert_eq!(one.data(200)["csdConfigured"], json!(true));

            // At rest: neither the key nor the password appears in the row.
            let mut conn = app.db.conn().await.unwrap();
            let (key_enc, password_enc) = timbra_store::sql!(fetch_one conn, (Vec<u8>, Vec<u8>),
                "SELECT key_enc, password_enc FROM certificados WHERE empresa_id = $1", &empresa).unwrap();
            drop(conn);
            assert!(!key_enc.windows(16).any(|w| valid.key_der_encrypted.windows(16).next() == Some(w)));
            assert!(!password_enc.windows(9).any(|w| w == b"12345678a"));

            // Sandbox stamping now seals with the uploaded CSD.
            let stamped = timbrar(&app, &who, &factura(&cliente), None).await;
            let id = stamped.data(201)["cfdiId"].as_str().unwrap().to_owned();
            let (_, xml) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
            assert!(xml.contains(&format!("NoCertificado=\"{no_certificado}\"")));
        }
    })
    .await;
}

#[tokio::test]
async fn live_companies_get_csd_errors_and_no_fake_stamp() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("live@example.com").await;
        let created = app
            .post("/api/empresas", &As::key(&key), json!({ "rfc": EMISOR, "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501", "sandbox": false }))
            .await;
        let empresa = created.data(201)["id"].as_str().unwrap().to_owned();
        let who = As::key(&key).in_empresa(&empresa);
        let body = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Venta", json!(1), json!(100))] });
        let answer = timbrar(&app, &who, &body, None).await;
        answer.assert_error(400, "CFDI_002");
        assert_eq!(answer.headers["x-service-mode"], "live");
        let now = OffsetDateTime::now_utc();
        let short = csd(EMISOR, now - Duration::days(1), now + Duration::seconds(4));
        let path = format!("/api/empresas/{empresa}/certificados");
        let upload = json!({ "cerBase64": b64(&short.cer_der), "keyBase64": b64(&short.key_der_encrypted), "password": "12345678a" });
        app.post(&path, &who, upload).await.data(201);
        tokio::time::sleep(std::time::Duration::from_millis(4100)).await;
        timbrar(&app, &who, &body, None).await.assert_error(400, "CFDI_003");
        let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
        let upload = json!({ "cerBase64": b64(&good.cer_der), "keyBase64": b64(&good.key_der_encrypted), "password": "12345678a" });
        app.post(&path, &who, upload).await.data(201);
        timbrar(&app, &who, &body, None).await.assert_error(501, "LIVE_001");
        let list = app.get("/api/cfdi", &who).await;
        assert_eq!(list.data(200)["total"], json!(0));
    })
    .await;
}

async fn folio_actual(app: &TestApp, who: &As) -> i64 {
    let empresa = who.empresa.as_deref().unwrap();
    app.get(&format!("/api/empresas/{empresa}"), who).await.data(200)["folioActual"].as_i64().unwrap()
}

#[tokio::test]
async fn bad_input_is_refused_whole_before_any_folio_is_spent() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "malo@example.com").await;
        let many_problems = json!({ "formaPago": "77", "metodoPago": "PUE", "conceptos": [
            { "claveUnidad": "E48", "descripcion": "x", "cantidad": 0, "precioUnitario": "1.1234567" },
            { "claveProdServ": "81112100", "claveUnidad": "E48", "descripcion": "y", "cantidad": -1, "precioUnitario": -5, "descuento": "0.0000001" } ] });
        let answer = timbrar(&app, &who, &many_problems, None).await;
        answer.assert_error(400, "CFDI_001");
        let fields: Vec<&str> = answer.body["error"]["details"]["fields"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
        for expected in ["formaPago", "conceptos[0].claveProdServ", "conceptos[0].cantidad", "conceptos[0].precioUnitario",
            "conceptos[1].cantidad", "conceptos[1].precioUnitario", "conceptos[1].descuento"] {
            assert!(fields.contains(&expected), "{expected} missing in {fields:?}");
        }
        // Anexo 20 rules found by the engine come back in the same envelope.
        let usd_without_rate = json!({ "formaPago": "03", "metodoPago": "PUE", "moneda": "USD", "conceptos": [concepto("x", json!(1), json!(10))] });
        let answer = timbrar(&app, &who, &usd_without_rate, None).await;
        answer.assert_error(400, "CFDI_001");
        assert!(answer.body["error"]["details"]["fields"].to_string().contains("TipoCambio"), "{}", answer.body);

        let lines: Vec<Value> = (0..5000).map(|i| concepto(&format!("línea {i}"), json!(1), json!(1))).collect();
        let answer = timbrar(&app, &who, &json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": lines }), None).await;
        answer.assert_error(400, "CFDI_001");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("at most 1000"), "{}", answer.body);
        timbrar(&app, &who, &json!({ "conceptos": [] }), None).await.assert_error(400, "CFDI_001");
        timbrar(&app, &who, &json!({ "conceptos": "nope" }), None).await.assert_error(400, "REQUEST_001");
        timbrar(&app, &who, &json!({ "tipoComprobante": "P", "conceptos": [concepto("x", json!(1), json!(1))] }), None).await.assert_error(400, "CFDI_001");
        let malformed = app
            .client
            .post(format!("{}/api/cfdi/timbrar", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .header("content-type", "application/json")
            .body("{\"conceptos\": [")
            .send()
            .await
            .unwrap();
        TestApp::read(malformed).await.assert_error(400, "REQUEST_001");
        let mut unknown = factura(&cliente);
        unknown["clienteId"] = json!("00000000-0000-7000-8000-000000000000");
        timbrar(&app, &who, &unknown, None).await.assert_error(404, "CFDI_004");

        // Nothing was stored and no folio was spent: the next invoice is folio 1.
        assert_eq!(folio_actual(&app, &who).await, 0);
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(0));
        assert_eq!(timbrar(&app, &who, &factura(&cliente), None).await.data(201)["folio"], json!("1"));
    })
    .await;
}

#[tokio::test]
async fn idempotency_key_replays_the_first_answer_and_refuses_another_body() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "idem@example.com").await;
        let first = timbrar(&app, &who, &factura(&cliente), Some("pedido-42")).await;
        let again = timbrar(&app, &who, &factura(&cliente), Some("pedido-42")).await;
        assert_eq!(first.status, 201);
        assert_eq!((again.status, &again.body), (first.status, &first.body));
        assert_eq!(again.headers["idempotent-replayed"], "true");
        let mut other = factura(&cliente);
        other["conceptos"][0]["cantidad"] = json!(3);
        timbrar(&app, &who, &other, Some("pedido-42")).await.assert_error(409, "IDEMPOTENCY_001");
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(1));
        // Concurrent requests with one key stamp once.
        let app = std::sync::Arc::new(app);
        let racers: Vec<_> = (0..8)
            .map(|_| {
                let (app, who, body) = (app.clone(), who.clone(), factura(&cliente));
                tokio::spawn(async move { timbrar(&app, &who, &body, Some("carrera")).await })
            })
            .collect();
        let mut ids = BTreeSet::new();
        for racer in racers {
            ids.insert(racer.await.unwrap().data(201)["cfdiId"].as_str().unwrap().to_owned());
        }
        assert_eq!(ids.len(), 1);
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(2));
        assert_eq!(folio_actual(&app, &who).await, 2, "the losers' folios were rolled back");
    })
    .await;
}

/// Issue 28, finding 6: before, the same key and body on X's cancellation then Y's replayed
/// X's answer and left Y in force, and a stamp's key on the payments route replayed the invoice.
#[tokio::test]
async fn an_idempotency_key_is_bound_to_its_operation_and_invoice() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "idem-bound@example.com").await;
        let x = timbrar(&app, &who, &factura(&cliente), None).await.data(201)["cfdiId"].as_str().unwrap().to_owned();
        let y = timbrar(&app, &who, &factura(&cliente), None).await.data(201)["cfdiId"].as_str().unwrap().to_owned();
        let motivo = json!({ "motivo": "02" });
        cancelar(&app, &who, &x, motivo.clone(), Some("cancel-1")).await.data(200);
        // The same key and body on X again: the first answer, replayed.
        let again = cancelar(&app, &who, &x, motivo.clone(), Some("cancel-1")).await;
        assert_eq!(again.headers["idempotent-replayed"], "true");
        // On Y: refused, naming the first use; Y stays in force.
        let otra = cancelar(&app, &who, &y, motivo.clone(), Some("cancel-1")).await;
        otra.assert_error(409, "IDEMPOTENCY_001");
        assert_eq!(otra.body["error"]["details"]["route"], json!(format!("POST /api/cfdi/{x}/cancelar")));
        assert_eq!(otra.body["error"]["details"]["cfdiId"], json!(x));
        assert_eq!(app.get(&format!("/api/cfdi/{y}"), &who).await.data(200)["status"], json!("TIMBRADO_SANDBOX"));
        // Before the body is validated: an empty body on Y gets the same 409, not REQUEST_001.
        cancelar(&app, &who, &y, json!({}), Some("cancel-1")).await.assert_error(409, "IDEMPOTENCY_001");

        // A stamp's key on the payments route: refused, naming the invoice it stamped.
        let stamped = timbrar(&app, &who, &factura(&cliente), Some("pedido-7")).await.data(201).clone();
        let pago = app
            .client
            .post(format!("{}/api/cfdi/pagos/timbrar", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .header("Idempotency-Key", "pedido-7")
            .json(&factura(&cliente))
            .send()
            .await
            .unwrap();
        let pago = TestApp::read(pago).await;
        pago.assert_error(409, "IDEMPOTENCY_001");
        assert_eq!(pago.body["error"]["details"]["route"], json!("POST /api/cfdi/timbrar"));
        assert_eq!(pago.body["error"]["details"]["cfdiId"], stamped["cfdiId"]);
        // And on a cancellation.
        cancelar(&app, &who, &y, motivo, Some("pedido-7")).await.assert_error(409, "IDEMPOTENCY_001");
        assert_eq!(app.get(&format!("/api/cfdi/{y}"), &who).await.data(200)["status"], json!("TIMBRADO_SANDBOX"));
    })
    .await;
}

#[tokio::test]
async fn two_hundred_concurrent_stamps_get_folios_1_to_200() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "folios@example.com").await;
        let app = std::sync::Arc::new(app);
        let mut tasks = Vec::new();
        for _ in 0..200 {
            let (app, who, body) = (app.clone(), who.clone(), factura(&cliente));
            tasks.push(tokio::spawn(async move { timbrar(&app, &who, &body, None).await }));
        }
        let mut folios = Vec::new();
        for task in tasks {
            let answer = task.await.unwrap();
            folios.push(answer.data(201)["folio"].as_str().unwrap().parse::<i64>().unwrap());
        }
        folios.sort_unstable();
        assert_eq!(folios, (1..=200).collect::<Vec<_>>());
        assert_eq!(folio_actual(&app, &who).await, 200);
        assert_eq!(app.get("/api/cfdi?limit=1", &who).await.data(200)["total"], json!(200));
    })
    .await;
}

#[tokio::test]
async fn each_serie_runs_its_own_folios_under_concurrency() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "series@example.com").await;
        let app = std::sync::Arc::new(app);
        let mut tasks = Vec::new();
        for i in 0..60 {
            let mut body = factura(&cliente);
            if i % 3 == 0 {
                body["serie"] = json!("B");
            }
            let (app, who) = (app.clone(), who.clone());
            tasks.push(tokio::spawn(async move { timbrar(&app, &who, &body, None).await }));
        }
        let mut by_serie: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
        for task in tasks {
            let answer = task.await.unwrap();
            let data = answer.data(201);
            let folio = data["folio"].as_str().unwrap().parse::<i64>().unwrap();
            by_serie.entry(data["serie"].as_str().unwrap().to_owned()).or_default().push(folio);
        }
        for folios in by_serie.values_mut() {
            folios.sort_unstable();
        }
        assert_eq!(by_serie["A"], (1..=40).collect::<Vec<_>>());
        assert_eq!(by_serie["B"], (1..=20).collect::<Vec<_>>());
        // folioActual is the company's default serie.
        assert_eq!(folio_actual(&app, &who).await, 40);
    })
    .await;
}

#[tokio::test]
async fn listing_filters_search_and_signed_links() {
    each_backend_with(|config| config.master_key = Some(MASTER_KEY.into()), |app: TestApp| async move {
        let (who, cliente) = setup(&app, "lista@example.com").await;
        let mut stamped = Vec::new();
        for body in [factura(&cliente), json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Mostrador", json!(1), json!(99))] }), factura(&cliente)] {
            stamped.push(timbrar(&app, &who, &body, None).await.data(201).clone());
        }
        let all = app.get("/api/cfdi", &who).await;
        let data = all.data(200);
        assert_eq!((data["total"].clone(), data["page"].clone(), data["limit"].clone(), data["hasMore"].clone()), (json!(3), json!(1), json!(50), json!(false)));
        let listed: Vec<&str> = data["cfdis"].as_array().unwrap().iter().map(|c| c["folio"].as_str().unwrap()).collect();
        assert_eq!(listed, vec!["3", "2", "1"], "most recent first");
        let item = &data["cfdis"][2];
        assert_eq!(item["total"], json!("3481.16"));
        assert_eq!((item["status"].as_str(), item["tipo"].as_str(), item["tipoComprobante"].as_str()), (Some("TIMBRADO_SANDBOX"), Some("EMITIDA"), Some("I")));
        assert!(item.get("xmlDownloadUrl").is_none() && item["xmlUrl"].as_str().is_some());
        let paged = app.get("/api/cfdi?limit=2&page=1", &who).await;
        assert_eq!((paged.data(200)["totalPages"].clone(), paged.data(200)["hasMore"].clone()), (json!(2), json!(true)));
        for (query, expected) in [
            ("tipo=EMITIDA", 3), ("tipo=RECIBIDA", 0), ("tipo=I", 3), ("tipo=E", 0), ("status=TIMBRADO", 3), ("status=CANCELADO", 0),
            ("search=xiqb89", 2), ("search=XIQB891116QE4", 2), ("search=ximena", 2), ("search=publico", 1),
            ("search=escuela", 3), ("desde=2000-01-01", 3), ("hasta=2000-01-01", 0),
            // Names match by words: any word's start, all words of the search, either name.
            ("search=kemper", 3), ("search=KEMP%20xim", 2), ("search=urgate,publico", 1), ("search=emper", 0),
            ("status=TIMBRADO&search=kemper", 3), ("tipo=I&status=CANCELADO", 0),
        ] {
            let answer = app.get(&format!("/api/cfdi?{query}"), &who).await;
            assert_eq!(answer.data(200)["total"], json!(expected), "{query}");
        }
        // A folio is matched exactly (a UUID that happens to start with the digit may join it).
        let by_folio = app.get("/api/cfdi?search=2", &who).await;
        assert!(by_folio.data(200)["cfdis"].as_array().unwrap().iter().any(|c| c["folio"] == json!("2")));
        let uuid = stamped[1]["uuid"].as_str().unwrap();
        for search in [uuid.to_owned(), uuid.trim_start_matches("SANDBOX-").to_owned(), uuid.trim_start_matches("SANDBOX-")[..8].to_lowercase()] {
            let answer = app.get(&format!("/api/cfdi?search={search}"), &who).await;
            assert_eq!(answer.data(200)["cfdis"][0]["uuid"].as_str(), Some(uuid), "{search}");
        }
        for bad in ["limit=1001", "limit=0", "page=0", "tipo=X", "status=NUEVO", "desde=ayer"] {
            app.get(&format!("/api/cfdi?{bad}"), &who).await.assert_error(400, "REQUEST_001");
        }

        // Detail with lines; signed links that need no credentials.
        let id = stamped[0]["cfdiId"].as_str().unwrap();
        let detail = app.get(&format!("/api/cfdi/{id}"), &who).await;
        let detail = detail.data(200);
        assert_eq!(detail["conceptos"][0]["descripcion"], json!("Servicio de timbrado"));
        assert_eq!(detail["conceptos"][0]["importe"].to_string(), "3001.00");
        assert_eq!(detail["downloadExpiresIn"], json!(3600));
        let with_links = app.get("/api/cfdi?includeDownloadUrls=true", &who).await;
        let link = with_links.data(200)["cfdis"][2]["xmlDownloadUrl"].as_str().unwrap().to_owned();
        let (_, direct) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
        let (status, via_link) = raw(&app, &link, None).await;
        assert_eq!((status, via_link.as_str()), (StatusCode::OK, direct.as_str()));
        assert!(direct.contains(uuid_of(&stamped[0])));
        let tampered = format!("{}x", link);
        let (status, body) = raw(&app, &tampered, None).await;
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("DOWNLOAD_001"));
        let secret = links::secret(&MasterKey::from_base64(MASTER_KEY).unwrap());
        let path = stamped[0]["xmlUrl"].as_str().unwrap();
        let expired = format!("/api/descargas/{}", links::sign(&secret, path, OffsetDateTime::now_utc().unix_timestamp() - 1));
        let (status, body) = raw(&app, &expired, None).await;
        assert_eq!(status, 403);
        assert!(body.contains("DOWNLOAD_001") && body.contains("expired"), "{body}");
        let other_path = links::url(&secret, "../timbra.db", OffsetDateTime::now_utc().unix_timestamp());
        assert_ne!(raw(&app, &other_path, None).await.0, 200);

        // Another tenant sees none of it.
        let (other, _) = setup(&app, "otro@example.com").await;
        app.get(&format!("/api/cfdi/{id}"), &other).await.assert_error(404, "NOT_FOUND");
        app.get(&format!("/api/cfdi/{id}/xml"), &other).await.assert_error(404, "NOT_FOUND");
        assert_eq!(app.get("/api/cfdi?search=ximena", &other).await.data(200)["total"], json!(0));
        let mut into_a = other.clone();
        into_a.empresa = who.empresa.clone();
        app.get("/api/cfdi", &into_a).await.assert_error(403, "SCOPE_001");
        timbrar(&app, &into_a, &factura(&cliente), None).await.assert_error(403, "SCOPE_001");
    })
    .await;
}

pub(crate) fn uuid_of(stamped: &Value) -> &str {
    stamped["uuid"].as_str().unwrap().trim_start_matches("SANDBOX-")
}

#[tokio::test]
async fn stamp_balance_is_read_topped_up_by_the_operator_and_untouched_by_sandbox() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "saldo@example.com").await;
        assert_eq!(app.get("/api/timbres", &who).await.data(200)["saldo"], json!(0));
        assert_eq!(
            app.recargar(&who, json!({ "cantidad": 100, "concepto": "pago 1" })).await.data(201)["saldo"],
            json!(100)
        );
        assert_eq!(app.recargar(&who, json!({ "cantidad": 50 })).await.data(201)["saldo"], json!(150));
        app.recargar(&who, json!({ "cantidad": 0 })).await.assert_error(400, "TIMBRES_001");
        app.recargar(&who, json!({})).await.assert_error(400, "TIMBRES_001");
        timbrar(&app, &who, &factura(&cliente), None).await.data(201);
        assert_eq!(app.get("/api/timbres", &who).await.data(200)["saldo"], json!(150));
    })
    .await;
}

/// Rasterizes page 1 of `pdf` and decodes its QR code with zbarimg.
pub(crate) fn qr_of(pdf: &Path) -> String {
    let prefix = pdf.with_extension("");
    let (ok, _, err) = sh(
        "pdftoppm",
        &["-png", "-r", "150", "-singlefile", "-f", "1", "-l", "1", pdf.to_str().unwrap(), prefix.to_str().unwrap()],
        Path::new("."),
    );
    assert!(ok, "pdftoppm: {err}");
    let (ok, out, err) =
        sh("zbarimg", &["--raw", "-q", prefix.with_extension("png").to_str().unwrap()], Path::new("."));
    assert!(ok, "zbarimg found no QR code: {err}");
    String::from_utf8(out).unwrap().trim_end().to_owned()
}

#[tokio::test]
async fn the_pdf_is_rendered_on_first_download_with_the_invoices_own_data_and_qr() {
    if !timbra_testkit::tools(&["pdftotext", "pdftoppm", "zbarimg"]) {
        return;
    }
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "pdf@example.com").await;
        let stamped = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
        let id = stamped["cfdiId"].as_str().unwrap();
        let uuid = uuid_of(&stamped).to_owned();
        let (status, xml) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
        assert_eq!(status, 200);

        let response = app
            .client
            .get(format!("{}/api/cfdi/{id}/pdf", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "application/pdf");
        let bytes = response.bytes().await.unwrap();
        assert!(bytes.starts_with(b"%PDF-"));
        let dir = TempDir::new();
        let file = dir.0.join("factura.pdf");
        std::fs::write(&file, &bytes).unwrap();

        // 2 × 1,500.50 + 16% IVA = 3,481.16, in figures and in words.
        let (ok, text, err) = sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], Path::new("."));
        assert!(ok, "pdftotext: {err}");
        let text = String::from_utf8(text).unwrap();
        for expected in [uuid.as_str(), "EKU9003173C9", "XIQB891116QE4", "XIMENA QUIROZ BARRAGAN", "3,481.16"] {
            assert!(text.contains(expected), "{expected} missing from the PDF:\n{text}");
        }
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("TRES MIL CUATROCIENTOS OCHENTA Y UN PESOS 16/100 M.N."), "{words}");

        // A live invoice's QR is SAT's verification URL of this very invoice; this sandbox one
        // says it is a test and names no SAT URL (issue 38), and every page carries the mark.
        let comprobante = timbra_cfdi::parser::parsear(&xml).unwrap();
        let sello = &comprobante.sello;
        let expected = format!(
            "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id={uuid}&re=EKU9003173C9\
             &rr=XIQB891116QE4&tt=3481.16&fe={}",
            &sello[sello.len() - 8..]
        );
        assert_eq!(timbra_cfdi::timbre::expresion_impresa(&comprobante).unwrap(), expected);
        assert_eq!(qr_of(&file), timbra_pdf::texto_qr_pruebas(&uuid));
        assert!(text.contains(timbra_pdf::MARCA_PRUEBAS), "{text}");

        // Stored on first render: the signed link of the listing serves the same bytes, no login.
        let listed = app.get("/api/cfdi?includeDownloadUrls=true", &who).await.data(200).clone();
        let link = listed["cfdis"][0]["pdfDownloadUrl"].as_str().unwrap().to_owned();
        let again = app.client.get(format!("{}{link}", app.base)).send().await.unwrap();
        assert_eq!(again.status(), 200);
        assert_eq!(again.bytes().await.unwrap(), bytes);
        // Another company's user cannot fetch it.
        let (other, _) = setup(&app, "pdf-other@example.com").await;
        let (status, _) = raw(&app, &format!("/api/cfdi/{id}/pdf"), Some(&other)).await;
        assert_eq!(status, 404);
    })
    .await;
}

/// The folio and status of every live stamping attempt of a company, in folio order.
async fn intentos(app: &TestApp, empresa: &str) -> Vec<(i64, String)> {
    #[derive(sqlx::FromRow)]
    struct Intento {
        folio: i64,
        status: String,
    }
    let mut conn = app.db.conn().await.unwrap();
    timbra_store::sql!(fetch_all conn, Intento,
        "SELECT folio, status FROM intentos_timbrado WHERE empresa_id = $1 ORDER BY folio", empresa)
    .unwrap()
    .into_iter()
    .map(|i| (i.folio, i.status))
    .collect()
}

/// The PAC simulator on a free loopback port; returns it (to reconfigure) and its URL.
pub(crate) async fn start_pac_sim() -> (timbra_sim::Sim, String) {
    let sim = timbra_sim::Sim::new(timbra_sim::SimConfig::generar().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(sim.clone().serve(listener));
    (sim, url)
}

/// A live test app's settings: its PAC is the simulator at `url` (3 s timeout).
pub(crate) fn con_pac(url: &str) -> impl Fn(&mut timbra_services::config::Config) + use<> {
    let url = url.to_owned();
    move |config| {
        let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
        pac.timeout = std::time::Duration::from_secs(3);
        config.pac = Some(pac);
    }
}

/// A CSD of EKU9003173C9 valid from yesterday for 30 days.
pub(crate) fn csd_vigente() -> testgen::Generated {
    let now = OffsetDateTime::now_utc();
    csd(EMISOR, now - Duration::days(1), now + Duration::days(30))
}

/// A user with a live company EKU9003173C9 whose CSD `csd` is uploaded; returns (who, empresa id).
pub(crate) async fn live_company(app: &TestApp, email: &str, csd: &testgen::Generated) -> (As, String) {
    let (_, key) = app.user(email).await;
    let created = app
        .post("/api/empresas", &As::key(&key), json!({ "rfc": EMISOR, "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501", "sandbox": false }))
        .await;
    let empresa = created.data(201)["id"].as_str().unwrap().to_owned();
    let who = As::key(&key).in_empresa(&empresa);
    let upload =
        json!({ "cerBase64": b64(&csd.cer_der), "keyBase64": b64(&csd.key_der_encrypted), "password": "12345678a" });
    app.post(&format!("/api/empresas/{empresa}/certificados"), &who, upload).await.data(201);
    (who, empresa)
}

#[tokio::test]
async fn live_stamping_goes_through_the_pac_and_every_folio_gap_is_explained() {
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
    let adjust = move |config: &mut timbra_services::config::Config| {
        let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
        pac.timeout = std::time::Duration::from_secs(3);
        config.pac = Some(pac);
        config.stamp_low_balance = 2;
    };
    each_backend_with(adjust, |app: TestApp| {
        let (sim, good) = (sim.clone(), good.clone());
        async move {
            let (who, empresa) = live_company(&app, "live-pac@example.com", &good).await;
            // Each sale its own body: while an attempt's outcome is unknown, the same body is the
            // same request (it resends that attempt).
            let venta = |n: u32| json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto(&format!("Venta {n}"), json!(1), json!(100))] });
            let body = venta(1);
            let saldo = async || app.get("/api/timbres", &who).await.data(200)["saldo"].as_i64().unwrap();

            // No stamps: QUOTA_001 before any folio is spent.
            timbrar(&app, &who, &body, None).await.assert_error(402, "QUOTA_001");
            assert!(intentos(&app, &empresa).await.is_empty());
            app.recargar(&who, json!({ "cantidad": 3 })).await.data(201);

            // Stamped by the PAC: a real UUID, the PAC's TFD, one stamp spent.
            let stamped = timbrar(&app, &who, &body, None).await.data(201).clone();
            let uuid = stamped["uuid"].as_str().unwrap().to_owned();
            assert_eq!(uuid.len(), 36, "{stamped}");
            assert_eq!(stamped["folio"], "1");
            let (status, xml) = raw(&app, &format!("/api/cfdi/{}/xml", stamped["cfdiId"].as_str().unwrap()), Some(&who)).await;
            assert_eq!(status, 200);
            assert!(xml.contains("RfcProvCertif=\"CVD110412TF6\""));
            timbra_cfdi::sello::verificar_sello_xml(&xml).unwrap();
            // The TFD's SelloSAT verifies with the PAC's certificate; its cadena names this UUID.
            let cadena_tfd = timbra_cfdi::sello::verificar_timbre_xml(&xml, &sim.certificado_pac()).unwrap();
            assert!(cadena_tfd.contains(&format!("|1.1|{uuid}|")), "{cadena_tfd}");
            assert_eq!(saldo().await, 2);
            let listed = app.get("/api/cfdi", &who).await.data(200).clone();
            assert_eq!(listed["cfdis"][0]["status"], "TIMBRADO");
            assert_eq!(listed["cfdis"][0]["uuid"], uuid.as_str());

            // A PAC that answers garbage: PAC_002; the outcome is unknown, so the stamp stays spent.
            sim.configurar(|c| c.basura = true);
            let answer = timbrar(&app, &who, &venta(2), None).await;
            answer.assert_error(502, "PAC_002");
            assert_eq!(answer.body["error"]["details"]["folio"], json!(2));
            sim.configurar(|c| c.basura = false);
            assert_eq!(saldo().await, 1);

            // A refusal (wrong PAC account: Finkok's 300): PAC_001 with the code; stamp given back.
            sim.configurar(|c| c.usuario = Some("otra-cuenta".into()));
            let answer = timbrar(&app, &who, &venta(3), None).await;
            answer.assert_error(502, "PAC_001");
            assert_eq!(answer.body["error"]["details"]["pacCode"], "300");
            sim.configurar(|c| c.usuario = None);
            assert_eq!(saldo().await, 1);

            let again = timbrar(&app, &who, &venta(4), None).await.data(201).clone();
            assert_eq!(again["folio"], "4");
            assert_eq!(saldo().await, 0);
            // Every live folio is accounted for: stamped, unanswered, refused, stamped.
            let expected: Vec<(i64, String)> =
                [(1, "TIMBRADO"), (2, "SIN_RESPUESTA"), (3, "RECHAZADO"), (4, "TIMBRADO")].map(|(f, s)| (f, s.to_owned())).into();
            assert_eq!(intentos(&app, &empresa).await, expected);
            assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(2));
            // The balance crossed the threshold (2) once: 2 → 1 on the unanswered attempt.
            let events = event_types(&app, &empresa).await;
            assert_eq!(events.iter().filter(|t| *t == "timbres.saldo_bajo").count(), 1, "{events:?}");
            let mut conn = app.db.conn().await.unwrap();
            let data = timbra_store::sql!(scalar_one conn, String,
                "SELECT data FROM events WHERE empresa_id = $1 AND type = 'timbres.saldo_bajo'", &empresa).unwrap();
            let data: Value = serde_json::from_str(&data).unwrap();
            assert_eq!((data["saldo"].clone(), data["umbral"].clone()), (json!(1), json!(2)));
            drop(conn);

            // One Idempotency-Key, two requests at once while the PAC is slow: one stamp, one
            // folio; the other request is told to retry, and its retry replays the stamp.
            app.recargar(&who, json!({ "cantidad": 3 })).await.data(201);
            sim.configurar(|c| c.retraso = std::time::Duration::from_millis(700));
            let cinco = venta(5);
            let (first, second) =
                tokio::join!(timbrar(&app, &who, &cinco, Some("pedido-77")), timbrar(&app, &who, &cinco, Some("pedido-77")));
            sim.configurar(|c| c.retraso = std::time::Duration::ZERO);
            let (winner, waiting) = if first.status == 201 { (first, second) } else { (second, first) };
            waiting.assert_error(409, "IDEMPOTENCY_002");
            let stamped = winner.data(201).clone();
            assert_eq!(stamped["folio"], "5");
            let replayed = timbrar(&app, &who, &venta(5), Some("pedido-77")).await;
            assert_eq!(replayed.data(201)["cfdiId"], stamped["cfdiId"]);
            assert_eq!(saldo().await, 2);
            // A failed attempt frees its key: the same key then stamps.
            sim.configurar(|c| c.usuario = Some("otra-cuenta".into()));
            timbrar(&app, &who, &venta(6), Some("pedido-78")).await.assert_error(502, "PAC_001");
            sim.configurar(|c| c.usuario = None);
            assert_eq!(timbrar(&app, &who, &venta(6), Some("pedido-78")).await.data(201)["folio"], "7");
            assert_eq!(intentos(&app, &empresa).await.len(), 7);
        }
    })
    .await;
}

pub(crate) async fn cancelar(app: &TestApp, who: &As, id: &str, body: Value, key: Option<&str>) -> Answer {
    let mut request = app
        .client
        .post(format!("{}/api/cfdi/{id}/cancelar", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .json(&body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    TestApp::read(request.send().await.unwrap()).await
}

pub(crate) async fn event_types(app: &TestApp, empresa: &str) -> Vec<String> {
    let mut conn = app.db.conn().await.unwrap();
    timbra_store::sql!(fetch_all conn, (String,), "SELECT type FROM events WHERE empresa_id = $1 ORDER BY created_at, id", empresa)
        .unwrap()
        .into_iter()
        .map(|(t,)| t)
        .collect()
}

#[tokio::test]
async fn sandbox_cancellation_checks_every_code_and_cancels_at_once() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "cancel@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        let stamped = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
        let id = stamped["cfdiId"].as_str().unwrap();

        cancelar(&app, &who, id, json!({}), None).await.assert_error(400, "REQUEST_001");
        cancelar(&app, &who, id, json!({ "motivo": "05" }), None).await.assert_error(400, "CANCEL_001");
        cancelar(&app, &who, id, json!({ "motivo": "01" }), None).await.assert_error(400, "CANCEL_004");
        let otro = "5FB2822E-396D-4725-8521-CDC4BDD20CCF";
        cancelar(&app, &who, id, json!({ "motivo": "02", "folioSustitucion": otro }), None)
            .await
            .assert_error(400, "CANCEL_001");
        cancelar(&app, &who, id, json!({ "motivo": "01", "folioSustitucion": "no-uuid" }), None)
            .await
            .assert_error(400, "CANCEL_001");
        cancelar(&app, &who, "no-such-id", json!({ "motivo": "02" }), None).await.assert_error(404, "CANCEL_002");
        // Another company's user: its own company has no such invoice.
        let (other, _) = setup(&app, "cancel-other@example.com").await;
        cancelar(&app, &other, id, json!({ "motivo": "02" }), None).await.assert_error(404, "CANCEL_002");

        // Motivo 01 names a stamped invoice of this company: not an unknown UUID, nor itself.
        cancelar(&app, &who, id, json!({ "motivo": "01", "folioSustitucion": otro }), None)
            .await
            .assert_error(400, "CANCEL_001");
        let propio = stamped["uuid"].as_str().unwrap();
        cancelar(&app, &who, id, json!({ "motivo": "01", "folioSustitucion": propio }), None)
            .await
            .assert_error(400, "CANCEL_001");
        let sustituta =
            timbrar(&app, &who, &factura(&cliente), None).await.data(201)["uuid"].as_str().unwrap().to_owned();
        assert!(sustituta.starts_with("SANDBOX-"));
        // Motivo 01 with the replacing invoice (SANDBOX- prefix accepted), replayed by key.
        let body = json!({ "motivo": "01", "folioSustitucion": sustituta });
        let first = cancelar(&app, &who, id, body.clone(), Some("cancel-1")).await;
        let data = first.data(200).clone();
        assert_eq!(data["status"], "CANCELADO");
        assert_eq!(data["cancellationStatus"], "SIN_ACEPTACION");
        let replay = cancelar(&app, &who, id, body, Some("cancel-1")).await;
        assert_eq!(replay.data(200), &data);
        cancelar(&app, &who, id, json!({ "motivo": "02" }), Some("cancel-1"))
            .await
            .assert_error(409, "IDEMPOTENCY_001");
        cancelar(&app, &who, id, json!({ "motivo": "02" }), None).await.assert_error(400, "CANCEL_003");

        let detail = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
        assert_eq!(detail["status"], "CANCELADO");
        assert_eq!(detail["cancellationStatus"], "SIN_ACEPTACION");
        // Totals come from the counters the triggers keep: the status change moved the invoice.
        for (query, expected) in
            [("status=CANCELADO", 1), ("status=TIMBRADO", 1), ("", 2), ("tipo=I&status=CANCELADO", 1)]
        {
            let listed = app.get(&format!("/api/cfdi?{query}"), &who).await.data(200).clone();
            assert_eq!(listed["total"], json!(expected), "{query}");
        }
        assert_eq!(event_types(&app, &empresa).await, ["factura.timbrada", "factura.timbrada", "factura.cancelada"]);
    })
    .await;
}

#[tokio::test]
async fn live_cancellation_waits_for_the_receiver_through_a_durable_job() {
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    // Valid for a year: the clock below moves hours ahead, and a CSD within 30 days of its end
    // gets the daily `certificado.por_expirar` notice whenever that crosses the job's hour.
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(365));
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut timbra_services::config::Config| {
            config.pac = Some(timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto"));
            config.clock = clock.clone();
            config.jobs.poll = std::time::Duration::from_millis(20);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let (sim, good, clock) = (sim.clone(), good.clone(), clock.clone());
        async move {
            // The service's clock runs ahead across backends; the PAC checks Fecha against its own.
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let (who, empresa) = live_company(&app, "live-cancel@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            let cliente = app
                .post("/api/clientes", &who, json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }))
                .await
                .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();

            // 116.00 to the public: SAT's status right after the request says "Cancelado sin
            // aceptación": cancelled at once, acuse stored.
            let small = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Venta", json!(1), json!(100))] });
            let small = timbrar(&app, &who, &small, None).await.data(201).clone();
            let small_id = small["cfdiId"].as_str().unwrap();
            // Two requests with one Idempotency-Key while the PAC is slow: one reaches the PAC,
            // the other is told to retry; the retry replays the first answer.
            sim.configurar(|c| c.retraso = std::time::Duration::from_millis(700));
            let body = json!({ "motivo": "02" });
            let (first, second) = tokio::join!(
                cancelar(&app, &who, small_id, body.clone(), Some("baja-1")),
                cancelar(&app, &who, small_id, body.clone(), Some("baja-1"))
            );
            sim.configurar(|c| c.retraso = std::time::Duration::ZERO);
            let (done, waiting) = if first.status == 200 { (first, second) } else { (second, first) };
            waiting.assert_error(409, "IDEMPOTENCY_002");
            let answer = done.data(200).clone();
            assert_eq!((answer["status"].as_str(), answer["cancellationStatus"].as_str()), (Some("CANCELADO"), Some("SIN_ACEPTACION")));
            assert_eq!(cancelar(&app, &who, small_id, body, Some("baja-1")).await.data(200), &answer);
            let (status, acuse) = raw(&app, &format!("/api/cfdi/{small_id}/acuse"), Some(&who)).await;
            assert_eq!(status, 200);
            assert!(acuse.contains(small["uuid"].as_str().unwrap()), "{acuse}");

            // 3,481.16 to a person: the receiver must accept. The PAC answers it as the one above
            // (201, "Petición de cancelación realizada exitosamente"); SAT's status says PENDIENTE,
            // so the invoice stays TIMBRADO and only factura.cancelacion_pendiente is sent. First
            // the receiver rejects.
            let big = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
            let big_id = big["cfdiId"].as_str().unwrap().to_owned();
            sim.configurar(|c| c.receptores_que_rechazan = vec!["XIQB891116QE4".into()]);
            let answer = cancelar(&app, &who, &big_id, json!({ "motivo": "02" }), None).await.data(200).clone();
            assert_eq!((answer["status"].as_str(), answer["cancellationStatus"].as_str()), (Some("TIMBRADO"), Some("PENDIENTE")));
            cancelar(&app, &who, &big_id, json!({ "motivo": "02" }), None).await.assert_error(400, "CANCEL_003");
            let estado = async |id: &str| {
                let d = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
                (d["status"].as_str().unwrap().to_owned(), d["cancellationStatus"].as_str().unwrap_or_default().to_owned())
            };
            // The job asks every 15 minutes: SAT says "En proceso" once, then the answer. The clock
            // moves a quarter of an hour at a time until the job has seen it (at most 40 times).
            let until = async |id: &str, wanted: (&str, &str)| {
                for _ in 0..40 {
                    let now = estado(id).await;
                    if (now.0.as_str(), now.1.as_str()) == wanted {
                        return;
                    }
                    clock.advance(std::time::Duration::from_secs(16 * 60));
                    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                }
                panic!("the cancellation never reached {wanted:?}: {:?}", estado(id).await);
            };
            until(&big_id, ("TIMBRADO", "RECHAZADA")).await;

            // Asked again, the receiver accepts: CANCELADO.
            sim.configurar(|c| c.receptores_que_rechazan.clear());
            cancelar(&app, &who, &big_id, json!({ "motivo": "02" }), None).await.data(200);
            until(&big_id, ("CANCELADO", "ACEPTADA")).await;

            // A receiver that never answers: SAT cancels when the deadline passes. (The PAC's
            // clock follows the service's, which the waits above moved ahead.)
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let silent = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
            let silent_id = silent["cfdiId"].as_str().unwrap().to_owned();
            sim.configurar(|c| c.receptores_que_no_contestan = vec!["XIQB891116QE4".into()]);
            let answer = cancelar(&app, &who, &silent_id, json!({ "motivo": "02" }), None).await.data(200).clone();
            assert_eq!(answer["cancellationStatus"], "PENDIENTE");
            until(&silent_id, ("CANCELADO", "PLAZO_VENCIDO")).await;
            sim.configurar(|c| c.receptores_que_no_contestan.clear());
            assert_eq!(
                event_types(&app, &empresa).await,
                [
                    "factura.timbrada",
                    "factura.cancelada",
                    "factura.timbrada",
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_rechazada",
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_aceptada",
                    "factura.cancelada",
                    "factura.timbrada",
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_aceptada",
                    "factura.cancelada"
                ]
            );
        }
    })
    .await;
}

/// Issue 10's four ways a PAC call ends without a usable answer although the PAC stamped:
/// timeout then timeout, timeout then 503, dropped connection twice, and a SOAP Fault sent
/// after the stamp. None is called failed; each is resolved (by a retry of the same request or
/// by the reconcile job) to exactly one invoice with the folio first spent, and the PAC's
/// stamps equal the invoices the service holds.
#[tokio::test]
async fn an_unknown_pac_outcome_is_reconciled_to_exactly_one_invoice_per_stamp() {
    use timbra_sim::Falla;
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut timbra_services::config::Config| {
            let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
            pac.timeout = std::time::Duration::from_secs(1);
            config.pac = Some(pac);
            config.clock = clock.clone();
            config.jobs.poll = std::time::Duration::from_millis(20);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let (sim, good, clock) = (sim.clone(), good.clone(), clock.clone());
        async move {
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let stamps_before = sim.timbres_emitidos();
            let (who, empresa) = live_company(&app, "live-unknown@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 10 })).await.data(201);
            let venta = |n: u32| json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto(&format!("Venta {n}"), json!(1), json!(100))] });
            let slow = Falla::Lenta(std::time::Duration::from_secs(2));
            let unknown = |answer: &Answer, folio: i64| {
                answer.assert_error(502, "PAC_002");
                let details = &answer.body["error"]["details"];
                assert_eq!(details["folio"], json!(folio), "{}", answer.body);
                assert!(details["intentoId"].is_string());
                let message = answer.body["error"]["message"].as_str().unwrap();
                assert!(message.contains("reconciled") && !message.contains("fix and send again"), "{message}");
            };

            // 1. stamp and stamped both time out: PAC_002; the retry with the same key gets the
            //    stamp of folio 1, not a new folio.
            sim.fallar("stamp", [slow.clone()]);
            sim.fallar("stamped", [slow.clone()]);
            unknown(&timbrar(&app, &who, &venta(1), Some("venta-1")).await, 1);
            let retried = timbrar(&app, &who, &venta(1), Some("venta-1")).await.data(201).clone();
            assert_eq!(retried["folio"], "1");

            // 2. stamp times out, stamped answers 503: the reconcile job records the stamp once
            //    the attempt is due; then the key replays it.
            sim.fallar("stamp", [slow.clone()]);
            sim.fallar("stamped", [Falla::NoDisponible]);
            unknown(&timbrar(&app, &who, &venta(2), Some("venta-2")).await, 2);
            clock.advance(std::time::Duration::from_secs(120));
            crate::receiver::wait_for(15, "the reconcile job", async || {
                app.get("/api/cfdi", &who).await.data(200)["total"] == json!(2)
            })
            .await;
            let replayed = timbrar(&app, &who, &venta(2), Some("venta-2")).await;
            assert_eq!(replayed.data(201)["folio"], "2");

            // 3. The connection drops on stamp and on stamped: the same body without a key is
            //    the same request while its outcome is unknown.
            sim.fallar("stamp", [Falla::Corte]);
            sim.fallar("stamped", [Falla::Corte]);
            unknown(&timbrar(&app, &who, &venta(3), None).await, 3);
            assert_eq!(timbrar(&app, &who, &venta(3), None).await.data(201)["folio"], "3");

            // 4. A SOAP Fault after the PAC committed: recovered at once by asking for the stamp.
            sim.fallar("stamp", [Falla::FaultTrasTimbrar]);
            assert_eq!(timbrar(&app, &who, &venta(4), None).await.data(201)["folio"], "4");

            // 5. A process killed between the PAC's answer and its commit leaves the attempt
            //    ENVIADO (emulated here by putting it back): the job resolves it once abandoned.
            sim.fallar("stamp", [slow.clone()]);
            sim.fallar("stamped", [slow.clone()]);
            let answer = timbrar(&app, &who, &venta(5), None).await;
            unknown(&answer, 5);
            let intento = answer.body["error"]["details"]["intentoId"].as_str().unwrap().to_owned();
            let mut conn = app.db.conn().await.unwrap();
            timbra_store::sql!(execute conn, "UPDATE intentos_timbrado SET status = 'ENVIADO' WHERE id = $1", &intento)
                .unwrap();
            drop(conn);
            clock.advance(std::time::Duration::from_secs(120));
            crate::receiver::wait_for(15, "the reconcile job", async || {
                app.get("/api/cfdi", &who).await.data(200)["total"] == json!(5)
            })
            .await;

            // The PAC's stamps are the service's invoices, one per folio, every attempt stamped.
            let listed = app.get("/api/cfdi?limit=100", &who).await.data(200).clone();
            assert_eq!(listed["total"], json!(5));
            assert_eq!(sim.timbres_emitidos() - stamps_before, 5);
            let folios: BTreeSet<String> =
                listed["cfdis"].as_array().unwrap().iter().map(|c| c["folio"].as_str().unwrap().to_owned()).collect();
            assert_eq!(folios, ["1", "2", "3", "4", "5"].map(str::to_owned).into());
            let expected: Vec<(i64, String)> = (1..=5).map(|f| (f, "TIMBRADO".to_owned())).collect();
            assert_eq!(intentos(&app, &empresa).await, expected);
            assert_eq!(app.get("/api/timbres", &who).await.data(200)["saldo"], json!(5));
            // factura.timbrada once per invoice, whoever recorded it.
            let events = event_types(&app, &empresa).await;
            assert_eq!(events.iter().filter(|t| *t == "factura.timbrada").count(), 5, "{events:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_batch_with_key_conflicts_and_missed_predictions_still_gives_gapless_folios() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "lote@example.com").await;
        // This process learns the serie's counter, then another process stamps folios 3 to 7:
        // every folio predicted here from now on misses until the counter is read again.
        for expected in ["1", "2"] {
            assert_eq!(timbrar(&app, &who, &factura(&cliente), None).await.data(201)["folio"], json!(expected));
        }
        let empresa = who.empresa.clone().unwrap();
        let mut conn = app.db.conn().await.unwrap();
        timbra_store::sql!(execute conn, "UPDATE folios SET ultimo = 7 WHERE empresa_id = $1 AND serie = $2", &empresa, "A")
            .unwrap();
        drop(conn);

        // 30 stamps at once: six keys sent by three requests each, twelve stamps without key.
        let app = std::sync::Arc::new(app);
        let tasks: Vec<_> = (0..30)
            .map(|i| {
                let (app, who, body) = (app.clone(), who.clone(), factura(&cliente));
                let key = (i < 18).then(|| format!("lote-{}", i % 6));
                tokio::spawn(async move { (key.clone(), timbrar(&app, &who, &body, key.as_deref()).await) })
            })
            .collect();
        let mut by_key: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        let mut invoices = std::collections::BTreeMap::new();
        for task in tasks {
            let (key, answer) = task.await.unwrap();
            let data = answer.data(201);
            let id = data["cfdiId"].as_str().unwrap().to_owned();
            let folio = data["folio"].as_str().unwrap().parse::<i64>().unwrap();
            if let Some(key) = key {
                by_key.entry(key).or_default().insert(id.clone());
            }
            assert_eq!(invoices.insert(id.clone(), folio).unwrap_or(folio), folio, "a replay names the same folio");
        }
        assert!(by_key.values().all(|ids| ids.len() == 1), "one invoice per key: {by_key:?}");
        let mut folios: Vec<i64> = invoices.values().copied().collect();
        folios.sort_unstable();
        assert_eq!(folios, (8..=25).collect::<Vec<_>>(), "no folio repeated or skipped");
        assert_eq!(folio_actual(&app, &who).await, 25);
        assert_eq!(app.get("/api/cfdi?limit=1", &who).await.data(200)["total"], json!(20));
        // Each XML carries the folio its invoice got, under a valid seal: a missed prediction
        // was sealed again.
        for (id, folio) in &invoices {
            let (status, xml) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
            assert_eq!(status, StatusCode::OK);
            assert!(xml.contains(&format!("Folio=\"{folio}\"")), "invoice {id} should carry folio {folio}");
            timbra_cfdi::sello::verificar_sello_xml(&xml).unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn a_stamp_after_a_change_to_the_customer_company_or_csd_carries_the_change() {
    // Stamping keeps the company, the customer and the CSD id in memory: each change must show
    // in the very next stamp.
    let now = OffsetDateTime::now_utc();
    let uploaded = csd(EMISOR, now - Duration::days(1), now + Duration::days(365));
    each_backend(|app: TestApp| {
        let uploaded = uploaded.clone();
        async move {
            let (who, cliente) = setup(&app, "cambios@example.com").await;
            let empresa = who.empresa.clone().unwrap();
            let xml_of = async |answer: Answer| {
                let id = answer.data(201)["cfdiId"].as_str().unwrap().to_owned();
                raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await.1
            };
            let first = xml_of(timbrar(&app, &who, &factura(&cliente), None).await).await;
            assert!(first.contains("Nombre=\"XIMENA QUIROZ BARRAGAN\""), "{first}");

            let path = format!("/api/clientes/{cliente}");
            app.call(Method::PATCH, &path, &who, Some(json!({ "razonSocial": "XIMENA QUIROZ" }))).await.data(200);
            let renamed = xml_of(timbrar(&app, &who, &factura(&cliente), None).await).await;
            assert!(renamed.contains("Nombre=\"XIMENA QUIROZ\""), "{renamed}");

            let path = format!("/api/empresas/{empresa}");
            app.call(Method::PATCH, &path, &who, Some(json!({ "codigoPostal": "06600" }))).await.data(200);
            let moved = xml_of(timbrar(&app, &who, &factura(&cliente), None).await).await;
            assert!(moved.contains("LugarExpedicion=\"06600\""), "{moved}");

            let path = format!("/api/empresas/{empresa}/certificados");
            let upload = json!({ "cerBase64": b64(&uploaded.cer_der), "keyBase64": b64(&uploaded.key_der_encrypted), "password": "12345678a" });
            let no_certificado = app.post(&path, &who, upload).await.data(201)["noCertificado"].as_str().unwrap().to_owned();
            let sealed = xml_of(timbrar(&app, &who, &factura(&cliente), None).await).await;
            assert!(sealed.contains(&format!("NoCertificado=\"{no_certificado}\"")), "{sealed}");

            app.call(Method::DELETE, &format!("/api/clientes/{cliente}"), &who, None).await.data(200);
            timbrar(&app, &who, &factura(&cliente), None).await.assert_error(404, "CFDI_004");
        }
    })
    .await;
}
