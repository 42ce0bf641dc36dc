//! Payroll receipts by e-mail (issue 32) against the harness's SMTP server: an employee's
//! `email` (CORREO_002 for a bad one), a period's `enviarCorreo` that queues each receipt's
//! e-mail to its employee with the stamp (XML byte for byte and PDF), an employee without an
//! address stamped and not sent, `POST /api/cfdi/{id}/correo` defaulting to the employee's
//! address, and the setting refused where e-mail is not configured.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;
use timbra_services::config::{Config, SmtpConfig};

use crate::harness::{TestApp, each_backend, each_backend_with};
use crate::nomina_timbrado::{empresa_nomina, periodo_calculado, timbrar};
use crate::receiver::wait_for;
use crate::smtp::Smtp;

fn con_smtp(url: &str) -> impl Fn(&mut Config) + use<> {
    let url = url.to_owned();
    move |config: &mut Config| {
        config.jobs.poll = Duration::from_millis(20);
        config.smtp = Some(SmtpConfig {
            url: url.clone(),
            from: "nomina@timbra.example".into(),
            timeout: Duration::from_secs(5),
        });
    }
}

const BERENICE: &str = "berenice@empleados.example";

#[tokio::test]
async fn a_period_with_enviar_correo_mails_each_receipt_to_its_employee() {
    let smtp = Smtp::start().await;
    each_backend_with(con_smtp(&smtp.url), |app: TestApp| {
        let smtp = &smtp;
        async move {
            let antes = smtp.received().len();
            let who = empresa_nomina(&app, "nomina-correo@example.com", Some("B5510768108")).await;
            let (periodo, empleados) = periodo_calculado(&app, &who, &["500.00", "600.00"], &[]).await;
            let ruta = format!("/api/nomina/empleados/{}", empleados[0]);

            let mala =
                app.call(Method::PATCH, &ruta, &who, Some(json!({ "email": "berenice\r\nBcc: x@evil.example" }))).await;
            mala.assert_error(400, "CORREO_002");
            assert_eq!(mala.body["error"]["details"]["campo"], json!("email"));
            let guardada = app.call(Method::PATCH, &ruta, &who, Some(json!({ "email": BERENICE }))).await;
            assert_eq!(guardada.data(200)["email"], json!(BERENICE));
            assert_eq!(app.get(&ruta, &who).await.data(200)["email"], json!(BERENICE));

            let ajuste = format!("/api/nomina/periodos/{periodo}");
            let ajustado = app.call(Method::PATCH, &ajuste, &who, Some(json!({ "enviarCorreo": true }))).await;
            assert_eq!(ajustado.data(200)["enviarCorreo"], json!(true));

            let timbrado = timbrar(&app, &who, &periodo).await;
            let data = timbrado.data(201).clone();
            assert_eq!(data["timbrados"], json!(2), "{data:#}");
            let recibo = |nombre: &str| {
                data["recibos"].as_array().unwrap().iter().find(|r| r["empleadoNombre"] == nombre).unwrap().clone()
            };
            let (berenice, mario) = (recibo("BERENICE XIMO QUEZADA"), recibo("MARIO GOMEZ ARANDA"));
            let cfdi_id = berenice["cfdiId"].as_str().unwrap().to_owned();
            let uuid = berenice["uuid"].as_str().unwrap().to_owned();

            // The sending was written with the stamp: it is in the log at once.
            let log = app.get(&format!("/api/cfdi/{cfdi_id}/correos"), &who).await.data(200).clone();
            assert_eq!((log[0]["para"].clone(), log[0]["motivo"].clone()), (json!([BERENICE]), json!("TIMBRADO")));
            wait_for(20, "the receipt's e-mail", async || smtp.received().len() == antes + 1).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert_eq!(smtp.received().len(), antes + 1, "the employee without an address gets nothing");
            let mario_id = mario["cfdiId"].as_str().unwrap();
            assert_eq!(app.get(&format!("/api/cfdi/{mario_id}/correos"), &who).await.data(200), &json!([]));

            let recibido = smtp.received()[antes].clone();
            assert_eq!(recibido.rcpt, vec![BERENICE.to_owned()]);
            let mensaje = recibido.parsed();
            assert!(mensaje.body_text(0).unwrap().contains("el recibo de nómina"));
            let adjuntos = recibido.adjuntos();
            assert_eq!(adjuntos[0].0, format!("{uuid}.xml"));
            assert_eq!(adjuntos[1].0, format!("{uuid}.pdf"));
            let xml = app
                .client
                .get(format!("{}/api/cfdi/{cfdi_id}/xml", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", who.empresa.as_deref().unwrap())
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            assert!(adjuntos[0].1 == xml.to_vec(), "the XML attached is the stored one, byte for byte");
            assert!(adjuntos[1].1.starts_with(b"%PDF"));

            // Sent again on request: the employee's address by default; without one, CORREO_003.
            let otra = app.post(&format!("/api/cfdi/{cfdi_id}/correo"), &who, json!({})).await;
            assert_eq!(otra.data(202)["para"], json!([BERENICE]));
            app.post(&format!("/api/cfdi/{mario_id}/correo"), &who, json!({})).await.assert_error(400, "CORREO_003");
            wait_for(20, "the second e-mail", async || smtp.received().len() == antes + 2).await;
        }
    })
    .await;
}

#[tokio::test]
async fn enviar_correo_is_refused_where_email_is_not_configured() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "nomina-sin-smtp@example.com", Some("B5510768108")).await;
        let body = json!({ "fechaInicio": "2026-11-01", "fechaFin": "2026-11-15", "fechaPago": "2026-11-15",
            "periodicidad": "QUINCENAL", "diasPagados": 15, "enviarCorreo": true });
        app.post("/api/nomina/periodos", &who, body.clone()).await.assert_error(412, "CORREO_001");
        let mut sin = body;
        sin["enviarCorreo"] = json!(false);
        let creado = app.post("/api/nomina/periodos", &who, sin).await;
        let periodo = creado.data(201)["id"].as_str().unwrap().to_owned();
        assert_eq!(creado.data(201)["enviarCorreo"], json!(false));
        let ruta = format!("/api/nomina/periodos/{periodo}");
        app.call(Method::PATCH, &ruta, &who, Some(json!({ "enviarCorreo": true })))
            .await
            .assert_error(412, "CORREO_001");
        app.call(Method::PATCH, "/api/nomina/periodos/no-existe", &who, Some(json!({ "enviarCorreo": false })))
            .await
            .assert_error(404, "NOT_FOUND");
    })
    .await;
}
