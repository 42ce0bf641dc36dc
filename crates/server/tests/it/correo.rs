//! CFDI by e-mail (issue 32) against a real SMTP server on loopback (`smtp::Smtp`), with a
//! driven clock for the retries: the message as a customer gets it (attachments decoded and
//! compared with the downloads, the PDF read with pdftotext), the codes, the retry schedule
//! then FALLIDO, a server down then up, the stamp's `enviarCorreo` and the company's
//! `enviarAlTimbrar`, the cancellation notice, and tenants walled off.

use std::path::Path;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use timbra_services::clock::Clock;
use timbra_services::config::{Config, SmtpConfig};

use crate::cfdi::{cancelar, event_types, factura, raw, sh, timbrar};
use crate::harness::{As, TempDir, TestApp, each_backend, each_backend_with};
use crate::receiver::wait_for;
use crate::smtp::Smtp;

const CLIENTE_EMAIL: &str = "ximena@cliente.example";

/// E-mail through `url`, quick job polling and a clock the test moves.
fn con_smtp(url: &str, clock: &Clock) -> impl Fn(&mut Config) + use<> {
    let url = url.to_owned();
    let clock = clock.clone();
    move |config: &mut Config| {
        config.clock = clock.clone();
        config.jobs.poll = Duration::from_millis(20);
        config.smtp = Some(SmtpConfig {
            url: url.clone(),
            from: "facturas@timbra.example".into(),
            timeout: Duration::from_secs(5),
        });
    }
}

/// A user with a sandbox company and a customer whose `email` is `email` (none when `None`).
async fn empresa_con_cliente(app: &TestApp, user: &str, email: Option<&str>) -> (As, String, String) {
    let (_, key) = app.user(user).await;
    let empresa = app.empresa(&key, crate::cfdi::EMISOR).await;
    let who = As::key(&key).in_empresa(&empresa);
    let mut body = json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626",
        "codigoPostal": "42501", "usoCfdi": "G03" });
    if let Some(email) = email {
        body["email"] = json!(email);
    }
    let cliente = app.post("/api/clientes", &who, body).await.data(201)["id"].as_str().unwrap().to_owned();
    (who, empresa, cliente)
}

async fn timbrada(app: &TestApp, who: &As, cliente: &str) -> (String, String) {
    let stamped = timbrar(app, who, &factura(cliente), None).await.data(201).clone();
    (stamped["cfdiId"].as_str().unwrap().to_owned(), stamped["uuid"].as_str().unwrap().to_owned())
}

async fn correos(app: &TestApp, who: &As, id: &str) -> Vec<Value> {
    app.get(&format!("/api/cfdi/{id}/correos"), who).await.data(200).as_array().unwrap().clone()
}

async fn enviar(app: &TestApp, who: &As, id: &str, body: Value) -> crate::harness::Answer {
    app.post(&format!("/api/cfdi/{id}/correo"), who, body).await
}

fn tools_present() -> bool {
    if !timbra_testkit::tools(&["pdftotext", "pdfimages"]) {
        return false;
    }
    true
}

#[tokio::test]
async fn an_invoice_by_email_carries_its_xml_byte_for_byte_and_its_pdf() {
    if !tools_present() {
        return;
    }
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| {
        let smtp = &smtp;
        async move {
            let antes = smtp.received().len();
            let (who, empresa, cliente) = empresa_con_cliente(&app, "correo@example.com", Some(CLIENTE_EMAIL)).await;
            let ajustes = json!({ "correo": { "nombreRemitente": "Facturación Kemper", "responderA": "cobranza@kemper.example" } });
            let empresa_out = app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(ajustes)).await;
            assert_eq!(
                empresa_out.data(200)["correo"],
                json!({ "nombreRemitente": "Facturación Kemper", "responderA": "cobranza@kemper.example", "enviarAlTimbrar": false })
            );
            let (id, uuid) = timbrada(&app, &who, &cliente).await;

            // No body: the customer's stored address.
            let queued = enviar(&app, &who, &id, json!({ "cc": ["contador@cliente.example"] })).await;
            let data = queued.data(202).clone();
            assert_eq!(data["para"], json!([CLIENTE_EMAIL]));
            let envio = data["envioId"].as_str().unwrap().to_owned();
            wait_for(20, "the message", async || smtp.received().len() == antes + 1).await;
            wait_for(10, "ENVIADO in the log", async || correos(&app, &who, &id).await[0]["estado"] == "ENVIADO").await;
            let log = correos(&app, &who, &id).await;
            assert_eq!(log.len(), 1);
            assert_eq!(
                (log[0]["envioId"].as_str().unwrap(), log[0]["intentos"].clone(), log[0]["ultimoError"].clone()),
                (envio.as_str(), json!(1), Value::Null)
            );
            assert_eq!((log[0]["motivo"].clone(), log[0]["cc"].clone()), (json!("TIMBRADO"), json!(["contador@cliente.example"])));
            assert!(log[0]["enviadoEn"].is_string());

            let recibido = smtp.received()[antes].clone();
            assert_eq!(recibido.from, "facturas@timbra.example");
            assert_eq!(recibido.rcpt, vec![CLIENTE_EMAIL.to_owned(), "contador@cliente.example".to_owned()]);
            let mensaje = recibido.parsed();
            let from = mensaje.from().unwrap().first().unwrap();
            assert_eq!((from.name(), from.address()), (Some("Facturación Kemper"), Some("facturas@timbra.example")));
            assert_eq!(mensaje.reply_to().unwrap().first().unwrap().address(), Some("cobranza@kemper.example"));
            let asunto = mensaje.subject().unwrap().to_owned();
            assert!(asunto.starts_with("CFDI A-1 de ESCUELA KEMPER URGATE"), "{asunto}");
            let texto = mensaje.body_text(0).unwrap().into_owned();
            let html = mensaje.body_html(0).unwrap().into_owned();
            for esperado in ["ESCUELA KEMPER URGATE", "A-1", "$3481.16 MXN", uuid.as_str(), "XIMENA QUIROZ BARRAGAN"] {
                assert!(texto.contains(esperado), "{esperado} missing from the text:\n{texto}");
                assert!(html.contains(esperado), "{esperado} missing from the HTML:\n{html}");
            }

            let adjuntos = recibido.adjuntos();
            let nombres: Vec<&str> = adjuntos.iter().map(|(nombre, _)| nombre.as_str()).collect();
            assert_eq!(nombres, vec![format!("{uuid}.xml"), format!("{uuid}.pdf")]);
            let descargado = app
                .client
                .get(format!("{}/api/cfdi/{id}/xml", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", &empresa)
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            assert_eq!(adjuntos[0].1, descargado.to_vec(), "the attached XML is the stored XML, byte for byte");
            let dir = TempDir::new();
            let pdf = dir.0.join("adjunto.pdf");
            std::fs::write(&pdf, &adjuntos[1].1).unwrap();
            let (ok, text, err) = sh("pdftotext", &["-layout", pdf.to_str().unwrap(), "-"], Path::new("."));
            assert!(ok, "pdftotext: {err}");
            let text = String::from_utf8(text).unwrap();
            for esperado in [uuid.trim_start_matches("SANDBOX-"), "XIQB891116QE4", "3,481.16"] {
                assert!(text.contains(esperado), "{esperado} missing from the attached PDF:\n{text}");
            }
            assert!(event_types(&app, &empresa).await.contains(&"correo.enviado".to_owned()));

            // Explicit addresses replace the customer's; duplicates are dropped.
            let data = enviar(&app, &who, &id, json!({ "para": ["otra@cliente.example", "OTRA@cliente.example"] })).await;
            assert_eq!(data.data(202)["para"], json!(["otra@cliente.example"]));
            wait_for(20, "the second message", async || smtp.received().len() == antes + 2).await;
            assert_eq!(smtp.received()[antes + 1].rcpt, vec!["otra@cliente.example".to_owned()]);
        }
    })
    .await;
}

#[tokio::test]
async fn bad_requests_get_their_codes_and_nothing_is_queued() {
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    let smtp = &smtp;
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| async move {
        let (who, empresa, sin_email) = empresa_con_cliente(&app, "codigos@example.com", None).await;
        let (id, _) = timbrada(&app, &who, &sin_email).await;

        // The customer has no address and none was sent.
        enviar(&app, &who, &id, json!({})).await.assert_error(400, "CORREO_003");
        // An invalid address is named.
        let invalid = enviar(&app, &who, &id, json!({ "para": ["bien@example.com", "no-es-correo"] })).await;
        invalid.assert_error(400, "CORREO_002");
        assert_eq!(invalid.body["error"]["details"], json!({ "campo": "para[1]", "direccion": "no-es-correo" }));
        // Header injection through an address, a copy or the sender's name.
        enviar(&app, &who, &id, json!({ "para": ["a@example.com\r\nBcc: espia@evil.example"] }))
            .await
            .assert_error(400, "CORREO_002");
        enviar(&app, &who, &id, json!({ "para": ["a@example.com"], "cc": ["b@example.com\nBcc: c@evil.example"] }))
            .await
            .assert_error(400, "CORREO_002");
        let inyectado = json!({ "razonSocial": "ESCUELA KEMPER URGATE", "correo": { "nombreRemitente": "Kemper\r\nBcc: espia@evil.example" } });
        app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(inyectado))
            .await
            .assert_error(400, "CORREO_002");
        app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(json!({ "correo": { "responderA": "x" } })))
            .await
            .assert_error(400, "CORREO_002");
        let empresa_out = app.get(&format!("/api/empresas/{empresa}"), &who).await;
        assert_eq!(empresa_out.data(200)["correo"]["nombreRemitente"], Value::Null);
        // Unknown fields are refused, not ignored.
        enviar(&app, &who, &id, json!({ "bcc": ["a@example.com"] })).await.assert_error(400, "REQUEST_001");
        assert!(correos(&app, &who, &id).await.is_empty());

        // Another company's CFDI is not there, for sending or for the log.
        let (otro, _, _) = empresa_con_cliente(&app, "otra@example.com", Some(CLIENTE_EMAIL)).await;
        enviar(&app, &otro, &id, json!({ "para": ["a@example.com"] })).await.assert_error(404, "NOT_FOUND");
        app.get(&format!("/api/cfdi/{id}/correos"), &otro).await.assert_error(404, "NOT_FOUND");
        assert_eq!(smtp.attempts(), 0);
    })
    .await;
}

#[tokio::test]
async fn without_smtp_sending_is_a_412_and_stamping_still_works() {
    each_backend(|app: TestApp| async move {
        let (who, _, cliente) = empresa_con_cliente(&app, "sinsmtp@example.com", Some(CLIENTE_EMAIL)).await;
        let mut body = factura(&cliente);
        body["enviarCorreo"] = json!(true);
        let stamped = timbrar(&app, &who, &body, None).await.data(201).clone();
        let id = stamped["cfdiId"].as_str().unwrap();
        let answer = enviar(&app, &who, id, json!({})).await;
        answer.assert_error(412, "CORREO_001");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("TIMBRA_SMTP_URL"));
        assert!(correos(&app, &who, id).await.is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_refusing_server_gets_the_webhook_schedule_then_the_sending_is_fallido() {
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    smtp.refuse("550 5.7.1 relaying denied");
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| {
        let clock = clock.clone();
        let smtp = &smtp;
        async move {
            let (who, empresa, cliente) = empresa_con_cliente(&app, "rechazo@example.com", Some(CLIENTE_EMAIL)).await;
            let (id, _) = timbrada(&app, &who, &cliente).await;
            let antes = smtp.attempts();
            enviar(&app, &who, &id, json!({})).await.data(202);
            let intentos = async |n: i64| correos(&app, &who, &id).await[0]["intentos"] == json!(n);
            wait_for(20, "the first attempt", async || intentos(1).await).await;
            let log = correos(&app, &who, &id).await;
            assert_eq!(log[0]["estado"], "PENDIENTE");
            assert!(log[0]["ultimoError"].as_str().unwrap().contains("550"), "{}", log[0]);
            // 1 min, 5 min, 30 min, 2 h, 24 h: nothing before each wait is over.
            for (n, wait) in [(2, 60), (3, 300), (4, 1800), (5, 7200), (6, 86400)] {
                tokio::time::sleep(Duration::from_millis(200)).await;
                assert_eq!(smtp.attempts(), antes + n - 1, "attempt {n} came early");
                clock.advance(Duration::from_secs(wait + 1));
                wait_for(20, "the next attempt", async || intentos(n as i64).await).await;
            }
            let log = correos(&app, &who, &id).await;
            assert_eq!((log[0]["estado"].clone(), log[0]["enviadoEn"].clone()), (json!("FALLIDO"), Value::Null));
            clock.advance(Duration::from_secs(7 * 86400));
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(smtp.attempts(), antes + 6);
            assert!(event_types(&app, &empresa).await.contains(&"correo.fallido".to_owned()));
            assert!(smtp.received().is_empty());
        }
    })
    .await;
}

#[tokio::test]
async fn a_server_down_delays_the_email_and_never_loses_it() {
    let clock = Clock::shifted(0, 1.0);
    let port = crate::harness::free_port().await;
    let url = format!("smtp://127.0.0.1:{port}");
    each_backend_with(con_smtp(&url, &clock), |app: TestApp| {
        let clock = clock.clone();
        async move {
            let (who, _, cliente) = empresa_con_cliente(&app, "caido@example.com", Some(CLIENTE_EMAIL)).await;
            let (id, _) = timbrada(&app, &who, &cliente).await;
            enviar(&app, &who, &id, json!({})).await.data(202);
            wait_for(20, "the failed attempt", async || correos(&app, &who, &id).await[0]["intentos"] == json!(1))
                .await;
            assert_eq!(correos(&app, &who, &id).await[0]["estado"], "PENDIENTE");
            let smtp = Smtp::start_on(port).await;
            clock.advance(Duration::from_secs(61));
            wait_for(20, "the message", async || smtp.received().len() == 1).await;
            wait_for(10, "ENVIADO", async || correos(&app, &who, &id).await[0]["estado"] == "ENVIADO").await;
            assert_eq!(correos(&app, &who, &id).await[0]["intentos"], json!(2));
        }
    })
    .await;
}

#[tokio::test]
async fn stamps_queue_their_email_when_asked_and_a_cancellation_sends_a_notice() {
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| {
        let smtp = &smtp;
        async move {
            let antes = smtp.received().len();
            let (who, empresa, cliente) = empresa_con_cliente(&app, "altimbrar@example.com", Some(CLIENTE_EMAIL)).await;
            // Default: enviarAlTimbrar is false, a stamp sends nothing.
            let (callado, _) = timbrada(&app, &who, &cliente).await;
            // The body asks.
            let mut body = factura(&cliente);
            body["enviarCorreo"] = json!(true);
            let pedido = timbrar(&app, &who, &body, None).await.data(201)["cfdiId"].as_str().unwrap().to_owned();
            wait_for(20, "the stamp's e-mail", async || smtp.received().len() == antes + 1).await;
            assert!(correos(&app, &who, &callado).await.is_empty());
            assert_eq!(correos(&app, &who, &pedido).await.len(), 1);

            // The company sends on every stamp; a body may still say no.
            let ajustes = json!({ "correo": { "enviarAlTimbrar": true } });
            let out = app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(ajustes)).await;
            assert_eq!(out.data(200)["correo"]["enviarAlTimbrar"], json!(true));
            let (siempre, _) = timbrada(&app, &who, &cliente).await;
            let mut body = factura(&cliente);
            body["enviarCorreo"] = json!(false);
            let negado = timbrar(&app, &who, &body, None).await.data(201)["cfdiId"].as_str().unwrap().to_owned();
            wait_for(20, "the company's e-mail", async || smtp.received().len() == antes + 2).await;
            assert_eq!(correos(&app, &who, &siempre).await.len(), 1);
            assert!(correos(&app, &who, &negado).await.is_empty());

            // Cancelling a CFDI that was e-mailed sends a notice to the same addresses.
            cancelar(&app, &who, &pedido, json!({ "motivo": "02" }), None).await.data(200);
            wait_for(20, "the notice", async || smtp.received().len() == antes + 3).await;
            let aviso = smtp.received()[antes + 2].clone();
            assert_eq!(aviso.rcpt, vec![CLIENTE_EMAIL.to_owned()]);
            let mensaje = aviso.parsed();
            assert!(mensaje.subject().unwrap().starts_with("Aviso de cancelación del CFDI"), "{:?}", mensaje.subject());
            assert!(mensaje.body_text(0).unwrap().contains("fue cancelado ante el SAT"));
            assert_eq!(mensaje.attachments().count(), 0);
            let log = correos(&app, &who, &pedido).await;
            assert_eq!(
                log.iter().map(|c| c["motivo"].as_str().unwrap()).collect::<Vec<_>>(),
                ["TIMBRADO", "CANCELACION"]
            );
            // Cancelling one never e-mailed sends nothing.
            cancelar(&app, &who, &negado, json!({ "motivo": "02" }), None).await.data(200);
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert_eq!(smtp.received().len(), antes + 3);
            let (status, _) = raw(&app, &format!("/api/cfdi/{negado}/correos"), Some(&who)).await;
            assert_eq!(status, 200);
        }
    })
    .await;
}

#[tokio::test]
async fn two_instances_on_one_database_send_each_email_once() {
    let Some(url) = timbra_testkit::postgres_url() else { return };
    use crate::harness::{Server, free_port, fresh_postgres_url};
    use crate::instances::{call, tenant};
    let smtp = Smtp::start().await;
    let master = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [9u8; 32]);
    let env = [
        ("TIMBRA_DATABASE_URL", fresh_postgres_url(&url).await),
        ("TIMBRA_MASTER_KEY", master),
        ("TIMBRA_SMTP_URL", smtp.url.clone()),
        ("TIMBRA_SMTP_FROM", "facturas@timbra.example".to_owned()),
        ("TIMBRA_WORKERS", "4".to_owned()),
    ];
    let (dir_a, dir_b) = (TempDir::new(), TempDir::new());
    let a = Server::start(&dir_a.0, free_port().await, &env).await;
    let b = Server::start(&dir_b.0, free_port().await, &env).await;
    let (key, empresa, cliente) = tenant(&a.base, &b.base, "dos-correos@example.com").await;

    // 20 stamps, then 20 sendings queued half on each instance, all at once.
    let mut ids = Vec::new();
    for _ in 0..20 {
        let (status, body) =
            call(&a.base, Method::POST, "/api/cfdi/timbrar", Some(&key), Some(&empresa), Some(factura(&cliente))).await;
        assert_eq!(status, 201, "{body}");
        ids.push(body["data"]["cfdiId"].as_str().unwrap().to_owned());
    }
    let envios: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let base = if i % 2 == 0 { a.base.clone() } else { b.base.clone() };
            let (key, empresa, path) = (key.clone(), empresa.clone(), format!("/api/cfdi/{id}/correo"));
            tokio::spawn(async move {
                call(&base, Method::POST, &path, Some(&key), Some(&empresa), Some(json!({ "para": [CLIENTE_EMAIL] })))
                    .await
            })
        })
        .collect();
    for envio in envios {
        let (status, body) = envio.await.unwrap();
        assert_eq!(status, 202, "{body}");
    }
    wait_for(60, "20 messages", async || smtp.received().len() >= 20).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut asuntos: Vec<String> =
        smtp.received().iter().map(|m| m.parsed().subject().unwrap_or_default().to_owned()).collect();
    asuntos.sort();
    asuntos.dedup();
    assert_eq!((smtp.received().len(), asuntos.len()), (20, 20), "each e-mail once: {asuntos:?}");
    for id in &ids {
        let (_, log) =
            call(&b.base, Method::GET, &format!("/api/cfdi/{id}/correos"), Some(&key), Some(&empresa), None).await;
        assert_eq!(
            (log["data"][0]["estado"].clone(), log["data"][0]["intentos"].clone()),
            (json!("ENVIADO"), json!(1))
        );
    }
}

#[tokio::test]
async fn mailing_a_payroll_receipt_needs_nomina_view_as_every_read_of_one() {
    use crate::nomina_timbrado::{empresa_nomina, periodo_calculado};
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    let smtp = &smtp;
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| async move {
        let antes = smtp.received().len();
        let owner = empresa_nomina(&app, "nomina-correo@example.com", Some("B5510768108")).await;
        let (empresa, owner_key) = (owner.empresa.clone().unwrap(), owner.key.clone().unwrap());
        let (periodo, _) = periodo_calculado(&app, &owner, &["500.00"], &[]).await;
        let timbrado = crate::nomina_timbrado::timbrar(&app, &owner, &periodo).await;
        let cfdi_id = timbrado.data(201)["recibos"][0]["cfdiId"].as_str().unwrap().to_owned();

        // A FACTURADOR may send invoices but may not read payroll: the receipt is not there.
        let email = "fact-correo@example.com";
        let (_, key) = app.user(email).await;
        let members = format!("/api/empresas/{empresa}/miembros");
        app.post(&members, &As::key(&owner_key), json!({ "email": email, "role": "FACTURADOR" })).await.data(201);
        let facturador = As::key(&key).in_empresa(&empresa);
        enviar(&app, &facturador, &cfdi_id, json!({ "para": ["empleado@example.com"] }))
            .await
            .assert_error(404, "NOT_FOUND");
        app.get(&format!("/api/cfdi/{cfdi_id}/correos"), &facturador).await.assert_error(404, "NOT_FOUND");
        // A key with cfdi:timbrar only, the same.
        let creada =
            app.post("/api/api-keys", &As::key(&owner_key), json!({ "name": "k", "scopes": ["cfdi:timbrar"] })).await;
        let llave = As::key(creada.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
        enviar(&app, &llave, &cfdi_id, json!({ "para": ["empleado@example.com"] }))
            .await
            .assert_error(404, "NOT_FOUND");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(smtp.received().len(), antes);

        // The owner may: an employee has no stored address, so para is needed.
        enviar(&app, &owner, &cfdi_id, json!({})).await.assert_error(400, "CORREO_003");
        let queued = enviar(&app, &owner, &cfdi_id, json!({ "para": ["empleado@example.com"] })).await;
        assert_eq!(queued.data(202)["para"], json!(["empleado@example.com"]));
        wait_for(20, "the receipt's e-mail", async || smtp.received().len() == antes + 1).await;
        let mensaje = smtp.received()[antes].clone();
        let parsed = mensaje.parsed();
        assert!(parsed.body_text(0).unwrap().contains("el recibo de nómina"));
        assert_eq!(parsed.attachments().count(), 2);
    })
    .await;
}

#[tokio::test]
async fn the_dashboard_sends_an_invoice_and_shows_its_sending_log() {
    use crate::panel::{ConFormulario, crear_empresa, csrf_de, location, registrar};
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    let smtp = &smtp;
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| async move {
        let antes = smtp.received().len();
        let (client, token) = registrar(&app, "panel-correo@example.com").await;
        let empresa = crear_empresa(&app, &client, &token).await;
        let creada = app
            .post(
                "/api/api-keys",
                &As::default(),
                json!({ "name": "t", "email": "panel-correo@example.com", "password": "Secreto1!" }),
            )
            .await;
        let who = As::key(creada.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
        let cliente = app
            .post(
                "/api/clientes",
                &who,
                json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN",
                "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03", "email": CLIENTE_EMAIL }),
            )
            .await
            .data(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (id, _) = timbrada(&app, &who, &cliente).await;
        let url = format!("{}/panel/facturas/{id}", app.base);
        let page = client.get(&url).send().await.unwrap().text().await.unwrap();
        assert!(page.contains("Enviar por correo") && !page.contains(r#"id="envios""#), "{page}");
        let token = csrf_de(&page);

        // Without the CSRF token nothing is sent.
        let sin = client.post(format!("{url}/correo")).formulario(&[("para", "")]).send().await.unwrap();
        assert_eq!(sin.status(), 403);
        // An empty para: the customer's address.
        let enviado = client
            .post(format!("{url}/correo"))
            .formulario(&[("_csrf", token.as_str()), ("para", "")])
            .send()
            .await
            .unwrap();
        assert_eq!(enviado.status(), 303);
        assert!(location(&enviado).contains("aviso=correo-encolado"));
        wait_for(20, "the message", async || smtp.received().len() == antes + 1).await;
        wait_for(10, "ENVIADO", async || correos(&app, &who, &id).await[0]["estado"] == "ENVIADO").await;
        let page = client.get(&url).send().await.unwrap().text().await.unwrap();
        assert!(page.contains(r#"id="envios""#) && page.contains(CLIENTE_EMAIL) && page.contains("ENVIADO"), "{page}");
        assert!(page.contains("Reenviar XML y PDF"));

        // A bad address comes back on the page with the API's message.
        let mal = client
            .post(format!("{url}/correo"))
            .formulario(&[("_csrf", token.as_str()), ("para", "no-es-correo")])
            .send()
            .await
            .unwrap();
        assert_eq!(mal.status(), 400);
        assert!(mal.text().await.unwrap().contains("no-es-correo"));
        assert_eq!(correos(&app, &who, &id).await.len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_payment_stamped_with_enviar_correo_mails_its_own_xml_and_pdf() {
    let clock = Clock::shifted(0, 1.0);
    let smtp = Smtp::start().await;
    each_backend_with(con_smtp(&smtp.url, &clock), |app: TestApp| {
        let smtp = &smtp;
        async move {
            let antes = smtp.received().len();
            let (who, empresa, cliente) =
                empresa_con_cliente(&app, "pagocorreo@example.com", Some(CLIENTE_EMAIL)).await;
            let ppd = timbrar(&app, &who, &crate::pagos::ppd(&cliente), None).await.data(201).clone();
            // The invoice itself was not asked to be mailed: only the payment is.
            let mut body = crate::pagos::pago(ppd["uuid"].as_str().unwrap(), 1, "10600.00", "10600.00", "0.00");
            body["enviarCorreo"] = json!(true);
            let pago = app.post("/api/cfdi/pagos/timbrar", &who, body).await.data(201).clone();
            let (pago_id, pago_uuid) = (pago["cfdiId"].as_str().unwrap(), pago["uuid"].as_str().unwrap());
            wait_for(20, "the payment's e-mail", async || smtp.received().len() == antes + 1).await;
            assert!(correos(&app, &who, ppd["cfdiId"].as_str().unwrap()).await.is_empty());
            assert_eq!(correos(&app, &who, pago_id).await.len(), 1);

            let recibido = smtp.received()[antes].clone();
            assert_eq!(recibido.rcpt, vec![CLIENTE_EMAIL.to_owned()]);
            let adjuntos = recibido.adjuntos();
            let nombres: Vec<&str> = adjuntos.iter().map(|(nombre, _)| nombre.as_str()).collect();
            assert_eq!(nombres, vec![format!("{pago_uuid}.xml"), format!("{pago_uuid}.pdf")]);
            let descargado = app
                .client
                .get(format!("{}/api/cfdi/{pago_id}/xml", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", &empresa)
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            assert_eq!(adjuntos[0].1, descargado.to_vec(), "the attached XML is the payment's stored XML");
            let xml = String::from_utf8(adjuntos[0].1.clone()).unwrap();
            assert!(xml.contains("TipoDeComprobante=\"P\"") && xml.contains("pago20:Pagos"), "{xml}");
            assert!(adjuntos[1].1.starts_with(b"%PDF"), "the second attachment is a PDF");
        }
    })
    .await;
}
