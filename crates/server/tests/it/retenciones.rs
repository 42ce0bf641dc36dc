//! CFDI de Retenciones e Información de Pagos 2.0 over HTTP (issue 34): a national and a
//! foreign receiver, with and without the Servicios de Plataformas Tecnológicas complement,
//! stamped in sandbox through the same pipeline as every CFDI and checked with SAT's tools
//! (xmllint with `retenciones20-with-complements.xsd`, xsltproc with `retenciones.xslt`,
//! openssl for the Sello and the TFD's SelloSAT); the answer, the detail and the listing under
//! the body's names; every bad body answered RETENCION_001 with SAT's rule ids; another
//! company's retention not found; invoices' listing without retentions.

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::cfdi::{raw, sandbox_pac_cer, setup, sh};
use crate::harness::{As, TempDir, TestApp, each_backend};

fn nacional() -> Value {
    json!({
        "cveRetenc": "01",
        "receptor": { "nacionalidad": "Nacional", "rfcR": "XIQB891116QE4", "nomDenRazSocR": "KARLA FUENTE NOLASCO",
                      "curpR": "XIQB891116MVZXRR09", "domicilioFiscalR": "01030" },
        "periodo": { "mesIni": 1, "mesFin": "10", "ejercicio": 2026 },
        "totales": { "montoTotOperacion": 25000, "montoTotGrav": "20000.5", "montoTotExent": "4999.50" },
        "impRetenidos": [
            { "baseRet": "20000.50", "impuestoRet": "001", "montoRet": "2000.05", "tipoPagoRet": "04" },
            { "baseRet": "20000.50", "impuestoRet": "002", "montoRet": "2133.39", "tipoPagoRet": "01" } ]
    })
}

fn extranjero() -> Value {
    json!({
        "serie": "EXT",
        "lugarExpRetenc": "86000",
        "cveRetenc": "25",
        "descRetenc": "Regalías por uso de software & licencias <internacionales>",
        "receptor": { "nacionalidad": "Extranjero", "numRegIdTribR": "123456789", "nomDenRazSocR": "ACME SOFTWARE LLC" },
        "periodo": { "mesIni": "03", "mesFin": "03", "ejercicio": "2026" },
        "totales": { "montoTotOperacion": "50000.00", "montoTotGrav": "50000.00", "montoTotExent": "0" },
        "impRetenidos": [ { "baseRet": "50000", "impuestoRet": "001", "montoRet": "12500.00", "tipoPagoRet": "03" } ]
    })
}

/// A platform's month for one seller: two services, the IVA and ISR withheld and the
/// platform's commission.
fn plataformas() -> Value {
    json!({
        "cveRetenc": "26",
        "receptor": { "nacionalidad": "Nacional", "rfcR": "XIQB891116QE4", "nomDenRazSocR": "KARLA FUENTE NOLASCO",
                      "domicilioFiscalR": "01030" },
        "periodo": { "mesIni": "10", "mesFin": "10", "ejercicio": "2026" },
        "totales": { "montoTotOperacion": "1500.00", "montoTotGrav": "1500.00", "montoTotExent": "0.00" },
        "impRetenidos": [
            { "baseRet": "1500.00", "impuestoRet": "001", "montoRet": "31.50", "tipoPagoRet": "01" },
            { "baseRet": "1500.00", "impuestoRet": "002", "montoRet": "120.00", "tipoPagoRet": "01" } ],
        "complementos": { "plataformasTecnologicas": {
            "periodicidad": "04",
            "servicios": [
                { "formaPagoServ": "03", "tipoDeServ": "03", "subTipServ": "04", "fechaServ": "2026-10-05",
                  "precioServSinIVA": "1000.00",
                  "impuestosTrasladadosdelServicio": { "impuesto": "02", "tasaCuota": "0.160000" },
                  "contribucionGubernamental": { "impContrib": "30.00", "entidadDondePagaLaContribucion": "27" },
                  "comisionDelServicio": { "base": "1000.00", "porcentaje": "0.150", "importe": "150.00" } },
                { "formaPagoServ": "04", "tipoDeServ": "01", "rfcTerceroAutorizado": "XIQB891116QE4",
                  "fechaServ": "2026-10-28", "precioServSinIVA": "500.00",
                  "impuestosTrasladadosdelServicio": { "impuesto": "02", "tasaCuota": 0.16, "importe": "80.00" },
                  "comisionDelServicio": { "importe": "75.00" } } ] } }
    })
}

async fn timbrar_retencion(app: &TestApp, who: &As, body: &Value, key: Option<&str>) -> crate::harness::Answer {
    let mut request = app
        .client
        .post(format!("{}/api/retenciones/timbrar", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .json(body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    TestApp::read(request.send().await.unwrap()).await
}

/// SAT's tools over the stamped retentions: one xmllint call against the schema with its
/// complements, SAT's cadena equal to ours byte for byte, the Sello verified with the
/// certificate the XML carries and the SelloSAT with the sandbox stamping certificate.
fn oraculo(files: &[(PathBuf, String)], pac_cer: &[u8], dir: &std::path::Path) {
    let Some(sat) = crate::cfdi::sat_dir() else { return };
    let schema = sat.join("xsd/retenciones20-with-complements.xsd");
    let mut args = vec!["--nonet", "--noout", "--schema", schema.to_str().unwrap()];
    args.extend(files.iter().map(|(path, _)| path.to_str().unwrap()));
    let (valid, _, stderr) = sh("xmllint", &args, &sat);
    assert!(valid, "xmllint: {stderr}");
    std::fs::write(dir.join("pac.der"), pac_cer).unwrap();
    let (ok, pem, _) = sh("openssl", &["x509", "-inform", "DER", "-in", "pac.der", "-noout", "-pubkey"], dir);
    assert!(ok);
    std::fs::write(dir.join("pac.pem"), pem).unwrap();
    for (i, (path, xml)) in files.iter().enumerate() {
        let (_, cadena, err) =
            sh("xsltproc", &["--nonet", "xslt/retenciones20/retenciones.xslt", path.to_str().unwrap()], &sat);
        let cadena = String::from_utf8(cadena).unwrap();
        assert_eq!(cadena, timbra_retenciones::cadena::desde_xml(xml).unwrap(), "{err}");
        let documento = timbra_retenciones::parsear(xml).unwrap();
        let (cadena_file, cert, sig) = (format!("c{i}.txt"), format!("c{i}.der"), format!("c{i}.bin"));
        std::fs::write(dir.join(&cadena_file), &cadena).unwrap();
        std::fs::write(dir.join(&cert), STANDARD.decode(&documento.certificado).unwrap()).unwrap();
        std::fs::write(dir.join(&sig), STANDARD.decode(&documento.sello).unwrap()).unwrap();
        let (ok, pem, _) = sh("openssl", &["x509", "-inform", "DER", "-in", &cert, "-noout", "-pubkey"], dir);
        assert!(ok);
        std::fs::write(dir.join("pub.pem"), pem).unwrap();
        let (ok, out, err) =
            sh("openssl", &["dgst", "-sha256", "-verify", "pub.pem", "-signature", &sig, &cadena_file], dir);
        assert!(ok, "Sello of {}: {} {err}", path.display(), String::from_utf8_lossy(&out));
        // SelloSAT over the TFD's cadena (the same TFD 1.1 cadena as a CFDI's).
        let tfd = documento.timbre().unwrap();
        let tfd_cadena = timbra_retenciones::cadena::tfd_desde_modelo(tfd);
        std::fs::write(dir.join("tfd.txt"), &tfd_cadena).unwrap();
        std::fs::write(dir.join("tfd.bin"), STANDARD.decode(&tfd.sello_sat).unwrap()).unwrap();
        let (ok, _, err) =
            sh("openssl", &["dgst", "-sha256", "-verify", "pac.pem", "-signature", "tfd.bin", "tfd.txt"], dir);
        assert!(ok, "SelloSAT of {}: {err}", path.display());
    }
}

#[tokio::test]
async fn retentions_stamp_in_sandbox_and_pass_sat_schema_cadena_and_seals() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "retenciones@example.com").await;
        let bodies = [nacional(), extranjero(), plataformas()];
        let mut stamped = Vec::new();
        for body in &bodies {
            let answer = timbrar_retencion(&app, &who, body, None).await;
            assert_eq!(answer.status, 201, "{}", answer.body);
            assert_eq!(answer.body["mode"], json!("sandbox"));
            stamped.push(answer.data(201).clone());
        }
        // FolioInt: the serie and its counter, with no separator; each serie on its own.
        let folios: Vec<&str> = stamped.iter().map(|s| s["folioInt"].as_str().unwrap()).collect();
        assert_eq!(folios, ["R1", "EXT1", "R2"]);
        assert_eq!(stamped[0]["montoTotRet"], json!("4133.44"));
        assert_eq!(stamped[2]["montoTotRet"], json!("151.50"));
        for s in &stamped {
            assert!(s["uuid"].as_str().unwrap().starts_with("SANDBOX-"), "{s}");
            assert!(s["fechaTimbrado"].as_str().is_some() && s["retencionId"].as_str().is_some(), "{s}");
        }

        let dir = TempDir::new();
        let mut files = Vec::new();
        for (i, s) in stamped.iter().enumerate() {
            let id = s["retencionId"].as_str().unwrap();
            let (status, xml) = raw(&app, &format!("/api/retenciones/{id}/xml"), Some(&who)).await;
            assert_eq!(status, 200, "{xml}");
            let path = dir.0.join(format!("r{i}.xml"));
            std::fs::write(&path, &xml).unwrap();
            files.push((path, xml));
        }
        // What the service fills: the company as emisor, its postal code unless sent, FolioInt.
        let xml = &files[0].1;
        for expected in [
            "xmlns:retenciones=\"http://www.sat.gob.mx/esquemas/retencionpago/2\"",
            "RfcE=\"EKU9003173C9\"",
            "FolioInt=\"R1\"",
            "LugarExpRetenc=\"42501\"",
            "MontoTotRet=\"4133.44\"",
            "tfd:TimbreFiscalDigital",
        ] {
            assert!(xml.contains(expected), "{expected} missing:\n{xml}");
        }
        assert!(files[1].1.contains("LugarExpRetenc=\"86000\"") && files[1].1.contains("NumRegIdTribR=\"123456789\""));
        assert!(files[2].1.contains("plataformasTecnologicas:ServiciosPlataformasTecnologicas"), "{}", files[2].1);
        let pac_cer = sandbox_pac_cer(&app).await;
        let pac = timbra_credentials::Certificate::from_bytes(&pac_cer).unwrap();
        for (_, xml) in &files {
            let documento = timbra_retenciones::parsear(xml).unwrap();
            timbra_retenciones::sello::verificar_sello(&documento).unwrap();
            timbra_retenciones::sello::verificar_timbre(&documento, &pac).unwrap();
        }
        oraculo(&files, &pac_cer, &dir.0);

        // The detail under the body's names; the listing with its filters.
        let id = stamped[2]["retencionId"].as_str().unwrap();
        let detalle = app.get(&format!("/api/retenciones/{id}"), &who).await.data(200).clone();
        assert_eq!(detalle["cveRetenc"], json!("26"));
        assert_eq!(detalle["periodo"], json!({ "mesIni": "10", "mesFin": "10", "ejercicio": "2026" }));
        assert_eq!(detalle["impRetenidos"][1]["montoRet"], json!("120.00"));
        assert_eq!(detalle["totales"]["montoTotRet"], json!("151.50"));
        assert_eq!(
            detalle["complementos"]["plataformasTecnologicas"]["servicios"][0]["comisionDelServicio"]["importe"],
            json!("150.00")
        );
        assert!(detalle["xmlDownloadUrl"].as_str().unwrap().contains("/api/descargas/"), "{detalle}");
        let listed = app.get("/api/retenciones", &who).await.data(200).clone();
        assert_eq!(listed["total"], json!(3));
        // Months within MesIni..MesFin: the national one covers January to October.
        assert_eq!(app.get("/api/retenciones?mes=3", &who).await.data(200)["total"], json!(2));
        assert_eq!(app.get("/api/retenciones?mes=11", &who).await.data(200)["total"], json!(0));
        assert_eq!(app.get("/api/retenciones?mes=5&ejercicio=2026", &who).await.data(200)["total"], json!(1));
        assert_eq!(app.get("/api/retenciones?ejercicio=2025", &who).await.data(200)["total"], json!(0));
        assert_eq!(app.get("/api/retenciones?receptor=ACME", &who).await.data(200)["total"], json!(1));
        assert_eq!(app.get("/api/retenciones?status=TIMBRADO", &who).await.data(200)["total"], json!(3));
        app.get("/api/retenciones?mes=13", &who).await.assert_error(400, "REQUEST_001");

        // Invoices' listing leaves retentions out; an invoice's folio counter is its own serie's.
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(0));
        let factura = crate::cfdi::timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await;
        assert_eq!(factura.data(201)["folio"], json!("1"));
        let listado = app.get("/api/cfdi", &who).await.data(200).clone();
        assert_eq!(listado["total"], json!(1), "{listado}");

        // Events: one retencion.timbrada per stamp, no factura.timbrada for them.
        let mut conn = app.db.conn().await.unwrap();
        let tipos: Vec<(String,)> = timbra_store::sql!(fetch_all conn, (String,),
            "SELECT type FROM events WHERE empresa_id = $1 ORDER BY created_at, id", who.empresa.as_deref().unwrap())
        .unwrap();
        let tipos: Vec<&str> = tipos.iter().map(|(t,)| t.as_str()).collect();
        assert_eq!(tipos, ["retencion.timbrada", "retencion.timbrada", "retencion.timbrada", "factura.timbrada"]);

        // Another company sees none of it.
        let (_, otra_key) = app.user("otra-retencion@example.com").await;
        let otra = app.empresa(&otra_key, "XIA190128J61").await;
        let otro = As::key(&otra_key).in_empresa(&otra);
        app.get(&format!("/api/retenciones/{id}"), &otro).await.assert_error(404, "NOT_FOUND");
        assert_eq!(app.get("/api/retenciones", &otro).await.data(200)["total"], json!(0));
        let (status, _) = raw(&app, &format!("/api/retenciones/{id}/xml"), Some(&otro)).await;
        assert_eq!(status, 404);
    })
    .await;
}

#[tokio::test]
async fn bad_retentions_answer_retencion_001_with_sat_rule_ids_and_replays_answer_once() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "retenciones-malas@example.com").await;
        let reglas = |answer: &crate::harness::Answer| -> Vec<String> {
            answer.assert_error(400, "RETENCION_001");
            answer.body["error"]["details"]["problemas"]
                .as_array()
                .unwrap_or_else(|| panic!("no problemas: {}", answer.body))
                .iter()
                .map(|p| p["regla"].as_str().unwrap().to_owned())
                .collect()
        };
        let con = |cambio: fn(&mut Value)| {
            let mut body = nacional();
            cambio(&mut body);
            body
        };
        let casos: [(&str, Value); 7] = [
            // A foreign receiver carries no RFC.
            ("RET20_RECEPTOR_EXTRANJERO", con(|b| b["receptor"]["nacionalidad"] = json!("Extranjero"))),
            ("RET20_CVE_RETENC", con(|b| b["cveRetenc"] = json!("29"))),
            ("RET20_DESC_RETENC", con(|b| b["cveRetenc"] = json!("25"))),
            ("RET20_MES", con(|b| b["periodo"]["mesFin"] = json!("13"))),
            ("RET20_EJERCICIO", con(|b| b["periodo"]["ejercicio"] = json!("26"))),
            ("RET20_LUGAR_EXP", con(|b| b["lugarExpRetenc"] = json!("ABC"))),
            ("RET20_MONTO_TOT_RET", con(|b| b["totales"]["montoTotRet"] = json!("1.00"))),
        ];
        for (regla, body) in &casos {
            let answer = timbrar_retencion(&app, &who, body, None).await;
            let got = reglas(&answer);
            assert!(got.iter().any(|r| r == regla), "{regla} not in {got:?}: {}", answer.body);
        }
        // FolioInt is the service's; a serie must be letters; a field of the wrong shape.
        let answer = timbrar_retencion(&app, &who, &con(|b| b["folioInt"] = json!("X1")), None).await;
        answer.assert_error(400, "RETENCION_001");
        assert!(answer.body["error"]["message"].as_str().is_some());
        timbrar_retencion(&app, &who, &con(|b| b["serie"] = json!("R-1")), None)
            .await
            .assert_error(400, "RETENCION_001");
        timbrar_retencion(&app, &who, &con(|b| b["receptor"] = json!("XIQB891116QE4")), None)
            .await
            .assert_error(400, "RETENCION_001");
        // Malformed JSON is REQUEST_001, as for every route.
        let response = app
            .client
            .post(format!("{}/api/retenciones/timbrar", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .header("content-type", "application/json")
            .body("{ not json")
            .send()
            .await
            .unwrap();
        TestApp::read(response).await.assert_error(400, "REQUEST_001");
        // Nothing refused was written or spent a folio.
        assert_eq!(app.get("/api/retenciones", &who).await.data(200)["total"], json!(0));

        // Idempotency-Key: the same body answers the first stamp again; another body is refused.
        let first = timbrar_retencion(&app, &who, &nacional(), Some("ret-1")).await;
        assert_eq!(first.status, 201, "{}", first.body);
        assert_eq!(first.data(201)["folioInt"], json!("R1"));
        let again = timbrar_retencion(&app, &who, &nacional(), Some("ret-1")).await;
        assert_eq!(again.status, 201);
        assert_eq!(again.data(201)["retencionId"], first.data(201)["retencionId"]);
        timbrar_retencion(&app, &who, &extranjero(), Some("ret-1")).await.assert_error(409, "IDEMPOTENCY_001");
        assert_eq!(app.get("/api/retenciones", &who).await.data(200)["total"], json!(1));
    })
    .await;
}

#[tokio::test]
async fn a_batch_of_retentions_stamps_every_valid_body_and_reports_the_invalid_by_position() {
    crate::harness::each_backend_with(
        |config| config.jobs.poll = std::time::Duration::from_millis(20),
        |app: TestApp| async move {
            let (who, _) = setup(&app, "retenciones-lote@example.com").await;
            let mut cuerpos: Vec<Value> = (0..25)
                .map(|i| {
                    let mut body = if i % 5 == 4 { plataformas() } else { nacional() };
                    body["receptor"]["nomDenRazSocR"] = json!(format!("VENDEDOR {i}"));
                    body
                })
                .collect();
            cuerpos[3]["cveRetenc"] = json!("29");
            cuerpos[17]["periodo"]["mesFin"] = json!("13");
            let answer = app.post("/api/retenciones/lote", &who, json!({ "retenciones": cuerpos })).await;
            let creado = answer.data(202).clone();
            assert_eq!(creado["total"], json!(25));
            let job_id = creado["jobId"].as_str().unwrap().to_owned();
            let mut estado = Value::Null;
            for _ in 0..500 {
                estado = app.get(&format!("/api/retenciones/lote/{job_id}"), &who).await.data(200).clone();
                if estado["status"] == json!("TERMINADO") {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            assert_eq!(estado["status"], json!("TERMINADO"), "{estado}");
            assert_eq!(estado["timbradas"], json!(23));
            let errores = estado["errores"].as_array().unwrap();
            let indices: Vec<i64> = errores.iter().map(|e| e["indice"].as_i64().unwrap()).collect();
            assert_eq!(indices, [3, 17]);
            assert!(errores.iter().all(|e| e["codigo"] == json!("RETENCION_001")), "{estado}");
            assert!(errores[0]["mensaje"].as_str().unwrap().contains("RET20_CVE_RETENC"), "{estado}");

            // Every valid body stamped once, folios R1..R23 without gaps or repeats.
            let listed = app.get("/api/retenciones?limit=100", &who).await.data(200).clone();
            assert_eq!(listed["total"], json!(23));
            let mut folios: Vec<i64> = listed["retenciones"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["folioInt"].as_str().unwrap().trim_start_matches('R').parse().unwrap())
                .collect();
            folios.sort_unstable();
            assert_eq!(folios, (1..=23).collect::<Vec<i64>>());
            let id = listed["retenciones"][0]["id"].as_str().unwrap();
            let (status, xml) = raw(&app, &format!("/api/retenciones/{id}/xml"), Some(&who)).await;
            assert_eq!(status, 200);
            let documento = timbra_retenciones::parsear(&xml).unwrap();
            timbra_retenciones::sello::verificar_sello(&documento).unwrap();

            // Bad batches; another company cannot follow this one.
            app.post("/api/retenciones/lote", &who, json!({ "retenciones": [] }))
                .await
                .assert_error(400, "RETENCION_001");
            app.post("/api/retenciones/lote", &who, json!({ "nada": [] })).await.assert_error(400, "REQUEST_001");
            let (_, otra_key) = app.user("otra-lote@example.com").await;
            let otra = app.empresa(&otra_key, "XIA190128J61").await;
            let otro = As::key(&otra_key).in_empresa(&otra);
            app.get(&format!("/api/retenciones/lote/{job_id}"), &otro).await.assert_error(404, "NOT_FOUND");
        },
    )
    .await;
}

/// The PDF of a retention, fetched with `who`'s key, written to `dir/name`.
async fn pdf(app: &TestApp, who: &As, id: &str, dir: &std::path::Path, name: &str) -> PathBuf {
    let response = app
        .client
        .get(format!("{}/api/retenciones/{id}/pdf", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/pdf");
    let bytes = response.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let path = dir.join(name);
    std::fs::write(&path, &bytes).unwrap();
    path
}

/// SAT's retention verification URL for a stamped retention XML: a live retention's QR.
fn url_esperada(xml: &str, receptor: &str) -> String {
    let documento = timbra_retenciones::parsear(xml).unwrap();
    let uuid = &documento.timbre().unwrap().uuid;
    let sello = documento.sello.trim();
    format!(
        "https://prodretencionverificacion.clouda.sat.gob.mx/?id={uuid}&re=EKU9003173C9{receptor}&tt={}&fe={}",
        documento.totales.monto_tot_operacion,
        &sello[sello.len() - 8..]
    )
}

async fn cancelar_retencion(app: &TestApp, who: &As, id: &str, body: Value) -> crate::harness::Answer {
    app.post(&format!("/api/retenciones/{id}/cancelar"), who, body).await
}

#[tokio::test]
async fn a_retention_prints_with_sats_retention_qr_and_is_cancelled_without_acceptance() {
    if !timbra_testkit::tools(&["pdftotext", "pdftoppm", "zbarimg"]) {
        return;
    }
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "retenciones-pdf@example.com").await;
        let nacional = timbrar_retencion(&app, &who, &nacional(), None).await.data(201).clone();
        let extranjero = timbrar_retencion(&app, &who, &extranjero(), None).await.data(201).clone();
        let (id_n, id_e) = (nacional["retencionId"].as_str().unwrap(), extranjero["retencionId"].as_str().unwrap());
        let dir = TempDir::new();

        // The printed retention: its data, and the QR of SAT's retention verification service.
        let (_, xml_n) = raw(&app, &format!("/api/retenciones/{id_n}/xml"), Some(&who)).await;
        let file = pdf(&app, &who, id_n, &dir.0, "nacional.pdf").await;
        let (ok, text, err) = sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], std::path::Path::new("."));
        assert!(ok, "pdftotext: {err}");
        let text = String::from_utf8(text).unwrap();
        let uuid = nacional["uuid"].as_str().unwrap().trim_start_matches("SANDBOX-");
        for expected in [
            uuid,
            "EKU9003173C9",
            "XIQB891116QE4",
            "KARLA FUENTE NOLASCO",
            "$25,000.00",
            "$4,133.44",
            "R1",
            "Retenciones",
        ] {
            assert!(text.contains(expected), "{expected} missing from the PDF:\n{text}");
        }
        // A live retention's QR is SAT's retention verification URL; this sandbox one says it is
        // a test (issue 38) and the page carries the mark.
        assert!(text.contains(timbra_pdf::MARCA_PRUEBAS), "{text}");
        assert_eq!(crate::cfdi::qr_of(&file), timbra_pdf::texto_qr_pruebas(uuid));
        let retencion_n = timbra_retenciones::parsear(&xml_n).unwrap();
        assert_eq!(timbra_pdf::url_retencion(&retencion_n).unwrap(), url_esperada(&xml_n, "&rr=XIQB891116QE4"));
        // A foreign receiver is named by its tax id (`nr`), never an RFC.
        let (_, xml_e) = raw(&app, &format!("/api/retenciones/{id_e}/xml"), Some(&who)).await;
        let retencion_e = timbra_retenciones::parsear(&xml_e).unwrap();
        assert_eq!(timbra_pdf::url_retencion(&retencion_e).unwrap(), url_esperada(&xml_e, "&nr=123456789"));

        // Cancelled at once, without acceptance, whatever the amount (25,000 MXN).
        let cancelada = cancelar_retencion(&app, &who, id_n, json!({ "motivo": "02" })).await.data(200).clone();
        assert_eq!(cancelada["status"], json!("CANCELADO"), "{cancelada}");
        assert_eq!(cancelada["cancellationStatus"], json!("SIN_ACEPTACION"));
        cancelar_retencion(&app, &who, id_n, json!({ "motivo": "02" })).await.assert_error(400, "CANCEL_003");
        cancelar_retencion(&app, &who, id_e, json!({ "motivo": "09" })).await.assert_error(400, "CANCEL_001");
        cancelar_retencion(&app, &who, id_e, json!({ "motivo": "01" })).await.assert_error(400, "CANCEL_004");
        assert_eq!(app.get("/api/retenciones?status=CANCELADO", &who).await.data(200)["total"], json!(1));
        assert_eq!(app.get(&format!("/api/retenciones/{id_n}"), &who).await.data(200)["status"], json!("CANCELADO"));
        // An invoice is not a retention; another company's retention is not found.
        let factura = crate::cfdi::timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await;
        let factura_id = factura.data(201)["cfdiId"].as_str().unwrap().to_owned();
        cancelar_retencion(&app, &who, &factura_id, json!({ "motivo": "02" })).await.assert_error(404, "NOT_FOUND");
        let (_, otra_key) = app.user("otra-retencion-pdf@example.com").await;
        let otra = app.empresa(&otra_key, "XIA190128J61").await;
        let otro = As::key(&otra_key).in_empresa(&otra);
        cancelar_retencion(&app, &otro, id_e, json!({ "motivo": "02" })).await.assert_error(404, "NOT_FOUND");
        let (status, _) = raw(&app, &format!("/api/retenciones/{id_e}/pdf"), Some(&otro)).await;
        assert_eq!(status, 404);
        assert_eq!(
            app.get(&format!("/api/retenciones/{id_e}"), &who).await.data(200)["status"],
            json!("TIMBRADO_SANDBOX")
        );
    })
    .await;
}

#[tokio::test]
async fn live_retentions_go_through_the_pacs_retention_service_even_when_an_answer_is_lost() {
    use timbra_sim::Falla;
    let (sim, url) = crate::cfdi::start_pac_sim().await;
    let now = time::OffsetDateTime::now_utc();
    let good = crate::cfdi::csd(crate::cfdi::EMISOR, now - time::Duration::days(1), now + time::Duration::days(30));
    let adjust = move |config: &mut timbra_services::config::Config| {
        let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
        pac.timeout = std::time::Duration::from_secs(3);
        config.pac = Some(pac);
    };
    crate::harness::each_backend_with(adjust, |app: TestApp| {
        let (sim, good) = (sim.clone(), good.clone());
        async move {
            let (who, _) = crate::cfdi::live_company(&app, "retenciones-live@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            let antes = sim.timbres_emitidos();

            // Stamped by the PAC's retention service: a real UUID and the PAC's TFD.
            let answer = timbrar_retencion(&app, &who, &plataformas(), None).await;
            assert_eq!(answer.status, 201, "{}", answer.body);
            assert_eq!(answer.body["mode"], json!("live"));
            let primera = answer.data(201).clone();
            let uuid = primera["uuid"].as_str().unwrap().to_owned();
            assert_eq!(uuid.len(), 36, "{primera}");
            assert_eq!(primera["folioInt"], json!("R1"));
            let id = primera["retencionId"].as_str().unwrap().to_owned();
            let (status, xml) = raw(&app, &format!("/api/retenciones/{id}/xml"), Some(&who)).await;
            assert_eq!(status, 200);
            assert!(xml.contains("RfcProvCertif=\"CVD110412TF6\"") && xml.contains(&uuid), "{xml}");
            let documento = timbra_retenciones::parsear(&xml).unwrap();
            timbra_retenciones::sello::verificar_sello(&documento).unwrap();
            timbra_retenciones::sello::verificar_timbre(&documento, &sim.certificado_pac()).unwrap();

            // The answer is lost (the connection drops on stamp and on stamped): the outcome is
            // unknown, nothing new is spent on the retry, and the PAC stamped the document once.
            sim.fallar("stamp", [Falla::Corte]);
            sim.fallar("stamped", [Falla::Corte]);
            let perdida = timbrar_retencion(&app, &who, &nacional(), None).await;
            perdida.assert_error(502, "PAC_002");
            assert_eq!(perdida.body["error"]["details"]["folio"], json!(2));
            let recuperada = timbrar_retencion(&app, &who, &nacional(), None).await;
            assert_eq!(recuperada.status, 201, "{}", recuperada.body);
            assert_eq!(recuperada.data(201)["folioInt"], json!("R2"));
            assert_eq!(sim.timbres_emitidos() - antes, 2);
            assert_eq!(app.get("/api/timbres", &who).await.data(200)["saldo"], json!(3));
            let dir = TempDir::new();
            let mut files = Vec::new();
            for (i, s) in [&primera, recuperada.data(201)].iter().enumerate() {
                let (_, xml) =
                    raw(&app, &format!("/api/retenciones/{}/xml", s["retencionId"].as_str().unwrap()), Some(&who))
                        .await;
                let path = dir.0.join(format!("live{i}.xml"));
                std::fs::write(&path, &xml).unwrap();
                files.push((path, xml));
            }
            oraculo(&files, sim.certificado_pac().der(), &dir.0);

            // Cancelled through the retention service (SAT's 1201), no acceptance, with its acuse.
            let cancelada = cancelar_retencion(&app, &who, &id, json!({ "motivo": "02" })).await.data(200).clone();
            assert_eq!(cancelada["status"], json!("CANCELADO"), "{cancelada}");
            assert_eq!(cancelada["cancellationStatus"], json!("SIN_ACEPTACION"));
            assert!(cancelada["acuseUrl"].as_str().is_some(), "{cancelada}");
            // The PAC refuses a second request (1202 is an answer: already cancelled) — the
            // service refuses before asking.
            cancelar_retencion(&app, &who, &id, json!({ "motivo": "02" })).await.assert_error(400, "CANCEL_003");
            assert_eq!(app.get("/api/retenciones?status=CANCELADO", &who).await.data(200)["total"], json!(1));
        }
    })
    .await;
}
