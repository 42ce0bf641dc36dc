//! Live mode against `timbra sim pac` (Finkok's protocol, Finkok's real answers) on both
//! backends: cancellations follow SAT's status, not the PAC's answer to the request; every
//! live folio is listed or explained; every PAC call leaves one structured log line.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::cfdi::{EMISOR, cancelar, concepto, csd, event_types, factura, live_company, start_pac_sim, timbrar};
use crate::harness::{As, TestApp, each_backend_with};

/// The JSON log lines of `timbra_server::cfdi::pac_log`, from every test of this process (a
/// test reads the lines of its own company).
fn pac_log_lines() -> &'static Mutex<Vec<u8>> {
    static LINES: OnceLock<&'static Mutex<Vec<u8>>> = OnceLock::new();
    LINES.get_or_init(|| {
        let lines: &'static Mutex<Vec<u8>> = Box::leak(Box::new(Mutex::new(Vec::new())));
        struct Sink(&'static Mutex<Vec<u8>>);
        impl Write for Sink {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_env_filter(tracing_subscriber::EnvFilter::new("timbra_server::cfdi::pac_log=info"))
            .with_writer(move || Sink(lines))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber in the tests");
        lines
    })
}

/// The PAC call lines logged for `empresa`, as JSON (level and fields).
fn pac_calls(empresa: &str) -> Vec<Value> {
    let text = String::from_utf8(pac_log_lines().lock().unwrap().clone()).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["fields"]["empresa.id"] == empresa)
        .collect()
}

/// A live test app whose PAC is the simulator at `url`, with a clock the test moves.
fn live_config(url: String, clock: timbra_services::clock::Clock) -> impl Fn(&mut timbra_services::config::Config) {
    move |config| {
        let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
        pac.timeout = std::time::Duration::from_secs(3);
        config.pac = Some(pac);
        config.clock = clock.clone();
        config.jobs.poll = std::time::Duration::from_millis(20);
    }
}

async fn estado(app: &TestApp, who: &As, id: &str) -> (String, String) {
    let detail = app.get(&format!("/api/cfdi/{id}"), who).await.data(200).clone();
    (
        detail["status"].as_str().unwrap().to_owned(),
        detail["cancellationStatus"].as_str().unwrap_or_default().to_owned(),
    )
}

/// Moves the clock a quarter of an hour at a time until the follow-up job has brought the
/// invoice to `wanted` (at most 40 times).
async fn until(app: &TestApp, who: &As, clock: &timbra_services::clock::Clock, id: &str, wanted: (&str, &str)) {
    for _ in 0..40 {
        let now = estado(app, who, id).await;
        if (now.0.as_str(), now.1.as_str()) == wanted {
            return;
        }
        clock.advance(std::time::Duration::from_secs(16 * 60));
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    panic!("the cancellation never reached {wanted:?}: {:?}", estado(app, who, id).await);
}

fn cancel_events(events: &[String]) -> Vec<&str> {
    events.iter().map(String::as_str).filter(|t| t.starts_with("factura.cancel")).collect()
}

#[tokio::test]
async fn a_cancellation_follows_sats_status_and_its_events_follow_the_real_state() {
    pac_log_lines();
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    each_backend_with(live_config(url, clock.clone()), |app: TestApp| {
        let (sim, good, clock) = (sim.clone(), good.clone(), clock.clone());
        async move {
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let (who, empresa) = live_company(&app, "live-sat@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            let cliente = app
                .post("/api/clientes", &who, json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }))
                .await
                .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            let motivo = json!({ "motivo": "02" });

            // Cancelable without acceptance, but SAT's status has not caught up with the request:
            // the PAC's "Petición de cancelación realizada exitosamente" alone cancels nothing.
            let small = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Venta", json!(1), json!(100))] });
            let small = timbrar(&app, &who, &small, None).await.data(201).clone();
            let small_id = small["cfdiId"].as_str().unwrap().to_owned();
            sim.configurar(|c| c.consultas_sin_reflejar = 1);
            let answer = cancelar(&app, &who, &small_id, motivo.clone(), None).await.data(200).clone();
            sim.configurar(|c| c.consultas_sin_reflejar = 0);
            assert_eq!((answer["status"].as_str(), answer["cancellationStatus"].as_str()), (Some("TIMBRADO"), Some("SOLICITADA")));
            assert!(cancel_events(&event_types(&app, &empresa).await).is_empty());
            // Not final: a second request waits for SAT's answer to the first.
            cancelar(&app, &who, &small_id, motivo.clone(), None).await.assert_error(400, "CANCEL_003");
            let listed = app.get("/api/cfdi?status=CANCELADO", &who).await.data(200).clone();
            assert_eq!(listed["total"], json!(0));
            until(&app, &who, &clock, &small_id, ("CANCELADO", "SIN_ACEPTACION")).await;
            assert_eq!(cancel_events(&event_types(&app, &empresa).await), ["factura.cancelada"]);

            // One cancelled by SAT at once: the first status query says so.
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let small = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Venta", json!(1), json!(200))] });
            let small = timbrar(&app, &who, &small, None).await.data(201).clone();
            let answer = cancelar(&app, &who, small["cfdiId"].as_str().unwrap(), motivo.clone(), None).await.data(200).clone();
            assert_eq!((answer["status"].as_str(), answer["cancellationStatus"].as_str()), (Some("CANCELADO"), Some("SIN_ACEPTACION")));
            assert_eq!(cancel_events(&event_types(&app, &empresa).await), ["factura.cancelada", "factura.cancelada"]);

            // The receiver must accept: PENDIENTE, only factura.cancelacion_pendiente; then
            // ACEPTADA and CANCELADO with factura.cancelada.
            let big = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
            let big_id = big["cfdiId"].as_str().unwrap().to_owned();
            let answer = cancelar(&app, &who, &big_id, motivo.clone(), None).await.data(200).clone();
            assert_eq!((answer["status"].as_str(), answer["cancellationStatus"].as_str()), (Some("TIMBRADO"), Some("PENDIENTE")));
            let events = event_types(&app, &empresa).await;
            assert_eq!(cancel_events(&events)[2..], ["factura.cancelacion_pendiente"]);
            until(&app, &who, &clock, &big_id, ("CANCELADO", "ACEPTADA")).await;
            let events = event_types(&app, &empresa).await;
            assert_eq!(
                cancel_events(&events)[2..],
                ["factura.cancelacion_pendiente", "factura.cancelacion_aceptada", "factura.cancelada"]
            );

            // Rejected: RECHAZADA, still TIMBRADO; a second request works and is accepted.
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let rejected = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
            let rejected_id = rejected["cfdiId"].as_str().unwrap().to_owned();
            sim.configurar(|c| c.receptores_que_rechazan = vec!["XIQB891116QE4".into()]);
            cancelar(&app, &who, &rejected_id, motivo.clone(), None).await.data(200);
            until(&app, &who, &clock, &rejected_id, ("TIMBRADO", "RECHAZADA")).await;
            sim.configurar(|c| c.receptores_que_rechazan.clear());
            let again = cancelar(&app, &who, &rejected_id, motivo.clone(), None).await.data(200).clone();
            assert_eq!((again["status"].as_str(), again["cancellationStatus"].as_str()), (Some("TIMBRADO"), Some("PENDIENTE")));
            until(&app, &who, &clock, &rejected_id, ("CANCELADO", "ACEPTADA")).await;
            let events = event_types(&app, &empresa).await;
            assert_eq!(
                cancel_events(&events)[5..],
                [
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_rechazada",
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_aceptada",
                    "factura.cancelada"
                ]
            );
            assert_eq!(events.iter().filter(|t| *t == "factura.cancelada").count(), 4);

            // Every PAC call left one line: the requests with Finkok's 201, the status queries
            // (at once and from the job) with SAT's text; no XML anywhere.
            let calls = pac_calls(&empresa);
            let of = |operation: &str| -> Vec<&Value> {
                calls.iter().filter(|c| c["fields"]["pac.operation"] == operation).collect()
            };
            assert_eq!(of("cancel_signature").len(), 5, "{calls:#?}");
            for call in of("cancel_signature") {
                assert_eq!(call["level"], "INFO");
                assert_eq!((call["fields"]["pac.outcome"].as_str(), call["fields"]["pac.code"].as_str()), (Some("ok"), Some("201")));
                assert_eq!(call["fields"]["cfdi.serie"], big["serie"]);
                assert!(call["fields"]["cfdi.folio"].is_i64() && call["fields"]["pac.duration_ms"].is_u64());
            }
            let codes: Vec<&str> = of("get_sat_status").iter().filter_map(|c| c["fields"]["pac.code"].as_str()).collect();
            for text in ["Vigente", "Cancelado sin aceptación", "En proceso", "Cancelado con aceptación", "Solicitud rechazada"] {
                assert!(codes.contains(&text), "{text} not in {codes:?}");
            }
            let all = serde_json::to_string(&calls).unwrap();
            assert!(!all.contains('<') && !all.contains("secreto"), "{all}");

            // A refused request: a WARN line with the code and what was done; the client's
            // message is English, carries the code and no SOAP.
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let refused = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
            sim.configurar(|c| c.usuario = Some("otra-cuenta".into()));
            let answer = cancelar(&app, &who, refused["cfdiId"].as_str().unwrap(), motivo.clone(), None).await;
            sim.configurar(|c| c.usuario = None);
            answer.assert_error(502, "PAC_001");
            assert_eq!(answer.body["error"]["details"]["pacCode"], "300");
            let message = answer.body["error"]["message"].as_str().unwrap();
            assert!(message.starts_with("the PAC refused the request (300)") && !message.contains('<'), "{message}");
            let calls = pac_calls(&empresa);
            let failed = calls.last().unwrap();
            assert_eq!(failed["level"], "WARN");
            assert_eq!(failed["fields"]["pac.operation"], "cancel_signature");
            assert_eq!((failed["fields"]["pac.outcome"].as_str(), failed["fields"]["pac.code"].as_str()), (Some("rejected"), Some("300")));
            assert_eq!(failed["fields"]["pac.recovery"], "invoice unchanged; the client is told to retry");
            assert_eq!(estado(&app, &who, refused["cfdiId"].as_str().unwrap()).await, ("TIMBRADO".to_owned(), String::new()));
        }
    })
    .await;
}

#[tokio::test]
async fn the_attempts_are_listed_and_every_live_folio_is_explained() {
    pac_log_lines();
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    each_backend_with(live_config(url, clock.clone()), |app: TestApp| {
        let (sim, good, clock) = (sim.clone(), good.clone(), clock.clone());
        async move {
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let (who, empresa) = live_company(&app, "live-folios@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            let body = json!({ "formaPago": "01", "metodoPago": "PUE", "conceptos": [concepto("Venta", json!(1), json!(100))] });

            // Stamped, refused twice (Finkok's 300), stamped.
            let first = timbrar(&app, &who, &body, None).await.data(201).clone();
            sim.configurar(|c| c.usuario = Some("otra-cuenta".into()));
            for _ in 0..2 {
                timbrar(&app, &who, &body, None).await.assert_error(502, "PAC_001");
            }
            sim.configurar(|c| c.usuario = None);
            let last = timbrar(&app, &who, &body, None).await.data(201).clone();
            let serie = first["serie"].as_str().unwrap().to_owned();
            assert_eq!((first["folio"].as_str(), last["folio"].as_str()), (Some("1"), Some("4")));

            let listed = app.get("/api/cfdi/intentos", &who).await.data(200).clone();
            assert_eq!((listed["total"].clone(), listed["page"].clone(), listed["pageSize"].clone()), (json!(4), json!(1), json!(20)));
            let items = listed["items"].as_array().unwrap();
            let seen: Vec<(i64, &str)> = items.iter().map(|i| (i["folio"].as_i64().unwrap(), i["status"].as_str().unwrap())).collect();
            assert_eq!(seen, [(1, "TIMBRADO"), (2, "RECHAZADO"), (3, "RECHAZADO"), (4, "TIMBRADO")]);
            assert_eq!(items[0]["uuid"], first["uuid"]);
            assert_eq!(items[0]["cfdiId"], first["cfdiId"]);
            assert_eq!(items[0]["serie"], serie.as_str());
            assert!(items[0]["pacCode"].is_null() && items[0]["createdAt"].is_string() && items[0]["updatedAt"].is_string());
            assert_eq!(items[1]["pacCode"], "300");
            assert!(items[1]["pacMessage"].as_str().is_some_and(|m| !m.is_empty() && !m.contains('<')), "{}", items[1]);
            assert!(items[1]["uuid"].is_null() && items[1]["cfdiId"].is_null());

            // Filters by serie, folio number and status; paging as the other lists.
            let page = app.get(&format!("/api/cfdi/intentos?serie={serie}&desde=2&hasta=3"), &who).await.data(200).clone();
            assert_eq!(page["total"], json!(2));
            let page = app.get("/api/cfdi/intentos?status=TIMBRADO", &who).await.data(200).clone();
            assert_eq!(page["total"], json!(2));
            assert_eq!(app.get("/api/cfdi/intentos?serie=ZZ", &who).await.data(200)["total"], json!(0));
            let page = app.get("/api/cfdi/intentos?pageSize=3&page=2", &who).await.data(200).clone();
            assert_eq!((page["items"].as_array().unwrap().len(), page["totalPages"].clone()), (1, json!(2)));
            assert_eq!(page["items"][0]["folio"], json!(4));
            app.get("/api/cfdi/intentos?desde=3&hasta=2", &who).await.assert_error(400, "REQUEST_001");

            // "Explain the folios of serie A from 1 to N": every number is an invoice or an attempt.
            let explained =
                app.get(&format!("/api/cfdi/intentos/folios?serie={serie}&desde=1&hasta=5"), &who).await.data(200).clone();
            assert_eq!((explained["ultimoFolio"].clone(), explained["sinRegistro"].clone()), (json!(4), json!(0)));
            let folios = explained["folios"].as_array().unwrap();
            let tipos: Vec<(i64, &str)> = folios.iter().map(|f| (f["folio"].as_i64().unwrap(), f["tipo"].as_str().unwrap())).collect();
            assert_eq!(tipos, [(1, "CFDI"), (2, "INTENTO"), (3, "INTENTO"), (4, "CFDI"), (5, "SIN_USAR")]);
            assert_eq!((folios[0]["uuid"].clone(), folios[0]["status"].clone()), (first["uuid"].clone(), json!("TIMBRADO")));
            assert_eq!((folios[1]["status"].as_str(), folios[1]["pacCode"].as_str()), (Some("RECHAZADO"), Some("300")));
            // Defaults: from 1 to the last folio used.
            let all = app.get(&format!("/api/cfdi/intentos/folios?serie={serie}"), &who).await.data(200).clone();
            assert_eq!((all["desde"].clone(), all["hasta"].clone(), all["sinRegistro"].clone()), (json!(1), json!(4), json!(0)));
            // A cancelled invoice still explains its folio.
            cancelar(&app, &who, first["cfdiId"].as_str().unwrap(), json!({ "motivo": "02" }), None).await.data(200);
            let again = app.get(&format!("/api/cfdi/intentos/folios?serie={serie}&hasta=1"), &who).await.data(200).clone();
            assert_eq!((again["folios"][0]["tipo"].as_str(), again["folios"][0]["status"].as_str()), (Some("CFDI"), Some("CANCELADO")));
            app.get("/api/cfdi/intentos/folios", &who).await.assert_error(400, "REQUEST_001");
            app.get(&format!("/api/cfdi/intentos/folios?serie={serie}&desde=1&hasta=1001"), &who)
                .await
                .assert_error(400, "REQUEST_001");

            // CONTADOR or higher; a key needs cfdi:view.
            let (_, facturador) = app.user("facturador@example.com").await;
            let members = format!("/api/empresas/{empresa}/miembros");
            app.post(&members, &who, json!({ "email": "facturador@example.com", "role": "FACTURADOR" })).await.data(201);
            let facturador = As::key(&facturador).in_empresa(&empresa);
            assert_eq!(app.get("/api/cfdi", &facturador).await.status, 200);
            assert_eq!(app.get("/api/cfdi/intentos", &facturador).await.status, 403);
            assert_eq!(app.get(&format!("/api/cfdi/intentos/folios?serie={serie}"), &facturador).await.status, 403);
            let (_, contador) = app.user("contador@example.com").await;
            app.post(&members, &who, json!({ "email": "contador@example.com", "role": "CONTADOR" })).await.data(201);
            assert_eq!(app.get("/api/cfdi/intentos", &As::key(&contador).in_empresa(&empresa)).await.data(200)["total"], json!(4));
            let owner_key = who.key.clone().unwrap();
            let narrow = app
                .post("/api/api-keys", &As::key(&owner_key), json!({ "name": "timbrar", "scopes": ["cfdi:timbrar"] }))
                .await
                .data(201)["key"]
                .as_str()
                .unwrap()
                .to_owned();
            app.get("/api/cfdi/intentos", &As::key(&narrow).in_empresa(&empresa)).await.assert_error(403, "SCOPE_002");
            // Another company sees none of these attempts.
            let (_, other) = app.user("other-folios@example.com").await;
            let other_empresa = app.empresa(&other, "XIA190128J61").await;
            let other = As::key(&other).in_empresa(&other_empresa);
            assert_eq!(app.get("/api/cfdi/intentos", &other).await.data(200)["total"], json!(0));
        }
    })
    .await;
}
