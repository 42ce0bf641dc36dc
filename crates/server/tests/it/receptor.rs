//! The receiver's side (issue 30) on both backends: SAT's status of any CFDI
//! (`GET /api/cfdi/{id}/estado-sat`), the cancellation requests to answer
//! (`/api/cancelaciones/pendientes`), sandbox playing both sides with regla 2.7.1.35 as of 2026
//! and the three business days, and live mode against `timbra sim pac` (Finkok's
//! `get_pending` / `accept_reject_signature` and SAT's ConsultaCFDIService on the same address).
//! The clock is pinned to Monday 23 November 2026, 10:00 in Mexico City.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use timbra_services::clock::Clock;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use crate::cfdi::{EMISOR, cancelar, concepto, csd, event_types, live_company, setup, start_pac_sim, timbrar};
use crate::harness::{Answer, As, TestApp, each_backend_with};

/// The receiver every test's invoices go to (the customer of `cfdi::setup`).
const RECEPTOR: &str = "XIQB891116QE4";

/// Monday 23 November 2026, 10:00 in Mexico City.
fn lunes() -> OffsetDateTime {
    datetime!(2026-11-23 16:00 UTC)
}

/// A configuration whose clock starts at [`lunes`] (a fresh clock per backend, kept in `reloj`
/// for the test body), with quick job polling; `live`: the PAC and SAT's status service are the
/// simulator at that URL.
fn pinned(reloj: Arc<Mutex<Option<Clock>>>, live: Option<String>) -> impl Fn(&mut timbra_services::config::Config) {
    move |config| {
        let clock = Clock::shifted((lunes() - OffsetDateTime::now_utc()).whole_seconds(), 1.0);
        *reloj.lock().unwrap() = Some(clock.clone());
        config.clock = clock;
        config.jobs.poll = std::time::Duration::from_millis(20);
        config.receptor.vigilancia_pausa = std::time::Duration::ZERO;
        if let Some(url) = &live {
            let mut pac = timbra_pac::finkok::FinkokConfig::new(url, "cuenta", "secreto");
            pac.timeout = std::time::Duration::from_secs(3);
            config.pac = Some(pac);
            let mut consulta = timbra_pac::consulta::ConsultaConfig::new(&format!("{url}/ConsultaCFDIService.svc"));
            consulta.timeout = std::time::Duration::from_secs(3);
            config.receptor.consulta = consulta;
        }
    }
}

fn reloj_de(reloj: &Arc<Mutex<Option<Clock>>>) -> Clock {
    reloj.lock().unwrap().clone().unwrap()
}

/// A sandbox company with RFC `rfc` for a new user.
async fn empresa_sandbox(app: &TestApp, email: &str, rfc: &str) -> As {
    let (_, key) = app.user(email).await;
    let regimen = if rfc.len() == 13 { "626" } else { "601" };
    let created = app
        .post("/api/empresas", &As::key(&key), json!({ "rfc": rfc, "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": regimen, "codigoPostal": "42501" }))
        .await;
    As::key(&key).in_empresa(created.data(201)["id"].as_str().unwrap())
}

async fn pendientes(app: &TestApp, who: &As, query: &str) -> Answer {
    app.get(&format!("/api/cancelaciones/pendientes{query}"), who).await
}

async fn responder(app: &TestApp, who: &As, uuid: &str, respuesta: &str) -> Answer {
    app.post(&format!("/api/cancelaciones/pendientes/{uuid}"), who, json!({ "respuesta": respuesta })).await
}

async fn estado(app: &TestApp, who: &As, id: &str) -> (String, String) {
    let detail = app.get(&format!("/api/cfdi/{id}"), who).await.data(200).clone();
    (
        detail["status"].as_str().unwrap().to_owned(),
        detail["cancellationStatus"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The big invoice of `cfdi::factura` (3,481.16 MXN) to `cliente`; its id and XML UUID.
async fn factura_grande(app: &TestApp, who: &As, cliente: &str) -> (String, String) {
    let stamped = timbrar(app, who, &crate::cfdi::factura(cliente), None).await.data(201).clone();
    let uuid = stamped["uuid"].as_str().unwrap().trim_start_matches("SANDBOX-").to_uppercase();
    (stamped["cfdiId"].as_str().unwrap().to_owned(), uuid)
}

/// An invoice of 3,481.16 MXN to `cliente` whose text names the backend: the PAC simulator
/// outlives one backend's run, and an identical document would get the same stamp (and UUID).
fn factura_en(app: &TestApp, cliente: &str) -> Value {
    json!({ "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente,
        "conceptos": [concepto(&format!("Servicio de timbrado ({})", app.backend), json!(2), json!("1500.50"))] })
}

fn cancel_events(events: &[String]) -> Vec<&str> {
    events.iter().map(String::as_str).filter(|t| t.starts_with("factura.cancel")).collect()
}

/// Waits (moving nothing) until the invoice reaches `wanted`, at most 10 s.
async fn hasta(app: &TestApp, who: &As, id: &str, wanted: (&str, &str)) {
    for _ in 0..100 {
        let now = estado(app, who, id).await;
        if (now.0.as_str(), now.1.as_str()) == wanted {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("never reached {wanted:?}: {:?}", estado(app, who, id).await);
}

#[tokio::test]
async fn sandbox_status_comes_from_the_services_own_records_and_is_stored() {
    let reloj = Arc::new(Mutex::new(None));
    each_backend_with(pinned(reloj.clone(), None), |app: TestApp| {
        let reloj = reloj.clone();
        async move {
            let clock = reloj_de(&reloj);
            let (who, cliente) = setup(&app, "estado-sat@example.com").await;
            let (id, _) = factura_grande(&app, &who, &cliente).await;

            let data = app.get(&format!("/api/cfdi/{id}/estado-sat"), &who).await.data(200).clone();
            assert_eq!(data["fuente"], "sandbox");
            assert_eq!(data["estado"], "Vigente");
            assert_eq!(data["esCancelable"], "Cancelable sin aceptación", "within the business day after issue");
            assert_eq!(data["estatusCancelacion"], "");
            assert_eq!(data["codigoEstatus"], "S - Comprobante obtenido satisfactoriamente.");
            assert_eq!(data["validacionEfos"], "200");
            let detail = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
            assert_eq!(detail["estadoSat"], "Vigente");
            assert_eq!(detail["estadoSatConsultadoEn"], data["consultadoEn"]);
            let listed = app.get("/api/cfdi", &who).await.data(200).clone();
            assert_eq!(listed["cfdis"][0]["estadoSat"], "Vigente");

            // Two days later (Wednesday) an invoice over 1,000 MXN needs the receiver.
            clock.advance(std::time::Duration::from_secs(2 * 86_400));
            let data = app.get(&format!("/api/cfdi/{id}/estado-sat"), &who).await.data(200).clone();
            assert_eq!(data["esCancelable"], "Cancelable con aceptación");

            // Another company's invoice is not found; so is no invoice at all.
            let (otro, _) = setup(&app, "estado-sat-otro@example.com").await;
            app.get(&format!("/api/cfdi/{id}/estado-sat"), &otro).await.assert_error(404, "NOT_FOUND");
            app.get("/api/cfdi/no-such-id/estado-sat", &who).await.assert_error(404, "NOT_FOUND");

            // CONTADOR or higher: a FACTURADOR of the company may not ask SAT nor read requests.
            let empresa = who.empresa.clone().unwrap();
            let (_, facturador) = app.user("estado-sat-fact@example.com").await;
            app.post(
                &format!("/api/empresas/{empresa}/miembros"),
                &As::key(who.key.as_deref().unwrap()),
                json!({ "email": "estado-sat-fact@example.com", "role": "FACTURADOR" }),
            )
            .await
            .data(201);
            let facturador = As::key(&facturador).in_empresa(&empresa);
            app.get(&format!("/api/cfdi/{id}/estado-sat"), &facturador).await.assert_error(403, "AUTH_003");
            pendientes(&app, &facturador, "").await.assert_error(403, "AUTH_003");

            // A credit note that is not cancelled makes the invoice "No cancelable" (cancel it first).
            let invoice_uuid = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200)["uuid"].clone();
            let egreso = json!({ "tipoComprobante": "E", "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente, "usoCfdi": "G02",
                "cfdiRelacionados": [ { "tipoRelacion": "01", "uuids": [ invoice_uuid ] } ],
                "conceptos": [ { "claveProdServ": "84111506", "claveUnidad": "ACT", "descripcion": "Devolución parcial", "cantidad": 1, "precioUnitario": 100 } ] });
            let nota = timbrar(&app, &who, &egreso, None).await.data(201)["cfdiId"].as_str().unwrap().to_owned();
            let data = app.get(&format!("/api/cfdi/{id}/estado-sat"), &who).await.data(200).clone();
            assert_eq!(data["esCancelable"], "No cancelable");
            let refused = cancelar(&app, &who, &id, json!({ "motivo": "02" }), None).await;
            refused.assert_error(400, "CANCEL_003");
            assert_eq!(refused.body["error"]["details"]["notasCredito"].as_array().unwrap().len(), 1);
            let answer = cancelar(&app, &who, &nota, json!({ "motivo": "02" }), None).await.data(200).clone();
            assert_eq!(answer["cancellationStatus"], "SIN_ACEPTACION", "an egreso needs no acceptance");
            let answer = cancelar(&app, &who, &id, json!({ "motivo": "02" }), None).await.data(200).clone();
            assert_eq!(answer["cancellationStatus"], "PENDIENTE");
        }
    })
    .await;
}

#[tokio::test]
async fn sandbox_plays_both_sides_of_a_cancellation_that_needs_acceptance() {
    let reloj = Arc::new(Mutex::new(None));
    each_backend_with(pinned(reloj.clone(), None), |app: TestApp| {
        let reloj = reloj.clone();
        async move {
            let clock = reloj_de(&reloj);
            let (emisor, cliente) = setup(&app, "emisor-buzon@example.com").await;
            let empresa_emisor = emisor.empresa.clone().unwrap();
            let receptor = empresa_sandbox(&app, "receptor-buzon@example.com", RECEPTOR).await;
            let empresa_receptor = receptor.empresa.clone().unwrap();
            let ajeno = empresa_sandbox(&app, "ajeno-buzon@example.com", "XIA190128J61").await;
            let (primera, uuid) = factura_grande(&app, &emisor, &cliente).await;
            let (segunda, uuid_2) = factura_grande(&app, &emisor, &cliente).await;
            // Cancelled the same day: no acceptance needed (regla 2.7.1.35, fracción IX).
            let (pronto, _) = factura_grande(&app, &emisor, &cliente).await;
            let answer = cancelar(&app, &emisor, &pronto, json!({ "motivo": "02" }), None).await.data(200).clone();
            assert_eq!(
                (answer["status"].as_str(), answer["cancellationStatus"].as_str()),
                (Some("CANCELADO"), Some("SIN_ACEPTACION"))
            );

            // Wednesday: past the next business day, 3,481.16 MXN needs the receiver.
            clock.advance(std::time::Duration::from_secs(2 * 86_400));
            let answer = cancelar(&app, &emisor, &primera, json!({ "motivo": "02" }), None).await.data(200).clone();
            assert_eq!(
                (answer["status"].as_str(), answer["cancellationStatus"].as_str()),
                (Some("TIMBRADO_SANDBOX"), Some("PENDIENTE"))
            );
            let sat = app.get(&format!("/api/cfdi/{primera}/estado-sat"), &emisor).await.data(200).clone();
            assert_eq!(
                (sat["estado"].as_str(), sat["estatusCancelacion"].as_str()),
                (Some("Vigente"), Some("En proceso"))
            );

            // The receiver sees it, with all seven keys; a company of another RFC does not.
            let lista = pendientes(&app, &receptor, "").await.data(200).clone();
            assert_eq!(lista["total"], 1);
            let item = &lista["items"][0];
            let mut keys: Vec<&String> = item.as_object().unwrap().keys().collect();
            keys.sort();
            assert_eq!(keys, ["cfdiId", "fechaSolicitud", "nombreEmisor", "plazoVence", "rfcEmisor", "total", "uuid"]);
            assert_eq!(item["uuid"], uuid.as_str());
            assert_eq!(item["rfcEmisor"], EMISOR);
            assert_eq!(item["cfdiId"], Value::Null, "the receiver has not downloaded the CFDI");
            assert_eq!(item["total"], "3481.16");
            // Requested Wednesday 25 November 10:00 → Monday 30 November 10:00.
            let fecha = OffsetDateTime::parse(
                item["fechaSolicitud"].as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap();
            let plazo = OffsetDateTime::parse(
                item["plazoVence"].as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap();
            assert_eq!(plazo - fecha, Duration::days(5));
            assert_eq!(pendientes(&app, &ajeno, "").await.data(200)["total"], 0);
            assert_eq!(cancel_events(&event_types(&app, &empresa_receptor).await), ["factura.cancelacion_recibida"]);

            // Bad input: another word, an unknown UUID, a UUID that is not one.
            responder(&app, &receptor, &uuid, "acepto").await.assert_error(400, "CANCELACION_003");
            responder(&app, &receptor, "5FB2822E-396D-4725-8521-CDC4BDD20CCF", "aceptar")
                .await
                .assert_error(404, "CANCELACION_001");
            responder(&app, &receptor, "no-uuid", "aceptar").await.assert_error(404, "CANCELACION_001");
            responder(&app, &ajeno, &uuid, "aceptar").await.assert_error(404, "CANCELACION_001");

            // Rejected: the invoice stays TIMBRADO with RECHAZADA; answering twice is refused.
            let data = responder(&app, &receptor, &uuid, "rechazar").await.data(200).clone();
            assert_eq!(
                (data["uuid"].as_str(), data["respuesta"].as_str(), data["estatus"].as_str()),
                (Some(uuid.as_str()), Some("rechazar"), Some("Solicitud rechazada"))
            );
            assert!(data["acuse"].as_str().unwrap().contains("<EstatusUUID>1000</EstatusUUID>"));
            responder(&app, &receptor, &uuid, "aceptar").await.assert_error(409, "CANCELACION_002");
            assert_eq!(estado(&app, &emisor, &primera).await, ("TIMBRADO_SANDBOX".into(), "RECHAZADA".into()));
            assert_eq!(pendientes(&app, &receptor, "").await.data(200)["total"], 0);

            // Asked again after the rejection, then accepted: CANCELADO, ACEPTADA.
            cancelar(&app, &emisor, &primera, json!({ "motivo": "02" }), None).await.data(200);
            assert_eq!(pendientes(&app, &receptor, "").await.data(200)["total"], 1);
            let data = responder(&app, &receptor, &format!("SANDBOX-{uuid}"), "aceptar").await.data(200).clone();
            assert_eq!(data["estatus"], "Cancelado con aceptación");
            assert_eq!(estado(&app, &emisor, &primera).await, ("CANCELADO".into(), "ACEPTADA".into()));
            assert_eq!(
                cancel_events(&event_types(&app, &empresa_emisor).await),
                [
                    "factura.cancelada",
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_rechazada",
                    "factura.cancelacion_pendiente",
                    "factura.cancelacion_aceptada",
                    "factura.cancelada"
                ]
            );
            assert_eq!(
                cancel_events(&event_types(&app, &empresa_receptor).await),
                [
                    "factura.cancelacion_recibida",
                    "factura.cancelacion_respondida",
                    "factura.cancelacion_recibida",
                    "factura.cancelacion_respondida"
                ]
            );

            // No answer: three business days later SAT cancels it ("Plazo vencido").
            cancelar(&app, &emisor, &segunda, json!({ "motivo": "02" }), None).await.data(200);
            assert_eq!(pendientes(&app, &receptor, "").await.data(200)["items"][0]["uuid"], uuid_2.as_str());
            clock.advance(std::time::Duration::from_secs(4 * 86_400));
            assert_eq!(
                estado(&app, &emisor, &segunda).await,
                ("TIMBRADO_SANDBOX".into(), "PENDIENTE".into()),
                "Sunday: not yet"
            );
            clock.advance(std::time::Duration::from_secs(86_400 + 60));
            hasta(&app, &emisor, &segunda, ("CANCELADO", "PLAZO_VENCIDO")).await;
            assert_eq!(
                cancel_events(&event_types(&app, &empresa_emisor).await)[6..],
                ["factura.cancelacion_pendiente", "factura.cancelacion_aceptada", "factura.cancelada"]
            );
            assert_eq!(pendientes(&app, &receptor, "").await.data(200)["total"], 0);
            responder(&app, &receptor, &uuid_2, "aceptar").await.assert_error(404, "CANCELACION_001");
        }
    })
    .await;
}

#[tokio::test]
async fn a_hundred_pending_requests_are_paged() {
    let reloj = Arc::new(Mutex::new(None));
    each_backend_with(pinned(reloj.clone(), None), |app: TestApp| {
        let reloj = reloj.clone();
        async move {
            let clock = reloj_de(&reloj);
            let (emisor, cliente) = setup(&app, "cien-emisor@example.com").await;
            let receptor = empresa_sandbox(&app, "cien-receptor@example.com", RECEPTOR).await;
            let mut ids = Vec::new();
            for _ in 0..100 {
                ids.push(factura_grande(&app, &emisor, &cliente).await);
            }
            clock.advance(std::time::Duration::from_secs(2 * 86_400));
            for (id, _) in &ids {
                cancelar(&app, &emisor, id, json!({ "motivo": "03" }), None).await.data(200);
            }
            let mut vistos = std::collections::BTreeSet::new();
            for page in 1..=4 {
                let lista = pendientes(&app, &receptor, &format!("?page={page}&pageSize=30")).await.data(200).clone();
                assert_eq!(
                    (lista["total"].as_i64(), lista["totalPages"].as_i64(), lista["pageSize"].as_i64()),
                    (Some(100), Some(4), Some(30))
                );
                let items = lista["items"].as_array().unwrap();
                assert_eq!(items.len(), if page == 4 { 10 } else { 30 });
                vistos.extend(items.iter().map(|item| item["uuid"].as_str().unwrap().to_owned()));
            }
            let esperados: std::collections::BTreeSet<String> = ids.iter().map(|(_, uuid)| uuid.clone()).collect();
            assert_eq!(vistos, esperados);
            pendientes(&app, &receptor, "?pageSize=101").await.assert_error(400, "REQUEST_001");
        }
    })
    .await;
}

/// A live company with RFC `rfc` and, when given, its CSD.
async fn live_receptor(
    app: &TestApp,
    email: &str,
    rfc: &str,
    csd: Option<&timbra_credentials::testgen::Generated>,
) -> As {
    let (_, key) = app.user(email).await;
    let created = app
        .post("/api/empresas", &As::key(&key), json!({ "rfc": rfc, "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "sandbox": false }))
        .await;
    let empresa = created.data(201)["id"].as_str().unwrap().to_owned();
    let who = As::key(&key).in_empresa(&empresa);
    if let Some(csd) = csd {
        let b64 = |bytes: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes);
        let upload = json!({ "cerBase64": b64(&csd.cer_der), "keyBase64": b64(&csd.key_der_encrypted), "password": "12345678a" });
        app.post(&format!("/api/empresas/{empresa}/certificados"), &who, upload).await.data(201);
    }
    who
}

#[tokio::test]
async fn live_status_asks_sats_service_and_says_what_went_wrong() {
    let (sim, url) = start_pac_sim().await;
    let good = csd(EMISOR, lunes() - Duration::days(1), lunes() + Duration::days(60));
    let reloj = Arc::new(Mutex::new(None));
    each_backend_with(pinned(reloj.clone(), Some(url)), |app: TestApp| {
        let (sim, good, reloj) = (sim.clone(), good.clone(), reloj.clone());
        async move {
            let clock = reloj_de(&reloj);
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let (who, _) = live_company(&app, "live-estado@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            // A receiver whose RFC carries "&": the expression writes it "&amp;".
            let cliente = app
                .post("/api/clientes", &who, json!({ "rfc": "H&E951128469", "razonSocial": "HERRERIA & ELECTRICOS", "regimenFiscal": "601", "codigoPostal": "42501", "usoCfdi": "G03" }))
                .await
                .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            let body = json!({ "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente, "conceptos": [concepto(&format!("Servicio ({})", app.backend), json!(1), json!(2000))] });
            let id = timbrar(&app, &who, &body, None).await.data(201)["cfdiId"].as_str().unwrap().to_owned();

            let data = app.get(&format!("/api/cfdi/{id}/estado-sat"), &who).await.data(200).clone();
            assert_eq!(data["fuente"], "sat");
            assert_eq!(data["estado"], "Vigente");
            assert_eq!(data["esCancelable"], "Cancelable con aceptación");
            assert_eq!(data["codigoEstatus"], "S - Comprobante obtenido satisfactoriamente.");
            assert_eq!(data["validacionEfos"], "200");
            let consultado = data["consultadoEn"].clone();

            // SAT unreachable: 503 with Retry-After, nothing changed.
            sim.fallar("Consulta", [timbra_sim::Falla::NoDisponible]);
            let answer = app.get(&format!("/api/cfdi/{id}/estado-sat"), &who).await;
            answer.assert_error(503, "SAT_CONSULTA_001");
            assert!(answer.headers.contains_key("retry-after"), "{:?}", answer.headers);
            let detail = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
            assert_eq!((detail["estadoSat"].clone(), detail["estadoSatConsultadoEn"].clone()), (json!("Vigente"), consultado.clone()));

            // SAT answering N - 601 (a total SAT cannot read): 502, nothing changed.
            {
                let mut conn = app.db.conn().await.unwrap();
                timbra_store::sql!(execute conn, "UPDATE cfdis SET total = $1 WHERE id = $2", timbra_store::Money(rust_decimal::Decimal::new(-1, 0)), &id).unwrap();
            }
            let answer = app.get(&format!("/api/cfdi/{id}/estado-sat"), &who).await;
            answer.assert_error(502, "SAT_CONSULTA_002");
            assert!(answer.body["error"]["message"].as_str().unwrap().contains("N - 601"), "{:?}", answer.body);
            let detail = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
            assert_eq!(detail["estadoSatConsultadoEn"], consultado);
        }
    })
    .await;
}

#[tokio::test]
async fn live_requests_come_from_the_pac_and_the_answer_is_signed_and_sent() {
    let (sim, url) = start_pac_sim().await;
    sim.configurar(|c| c.receptores_que_responden = vec![RECEPTOR.to_owned()]);
    let good = csd(EMISOR, lunes() - Duration::days(1), lunes() + Duration::days(60));
    let receptor_csd = csd(RECEPTOR, lunes() - Duration::days(1), lunes() + Duration::days(60));
    let reloj = Arc::new(Mutex::new(None));
    each_backend_with(pinned(reloj.clone(), Some(url)), |app: TestApp| {
        let (sim, good, receptor_csd, reloj) = (sim.clone(), good.clone(), receptor_csd.clone(), reloj.clone());
        async move {
            let clock = reloj_de(&reloj);
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let (emisor, _) = live_company(&app, "live-emisor-buzon@example.com", &good).await;
            app.recargar(&emisor, json!({ "cantidad": 5 })).await.data(201);
            let cliente = app
                .post("/api/clientes", &emisor, json!({ "rfc": RECEPTOR, "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }))
                .await
                .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            let mut facturas = Vec::new();
            for _ in 0..3 {
                let stamped = timbrar(&app, &emisor, &factura_en(&app, &cliente), None).await.data(201).clone();
                facturas.push((stamped["cfdiId"].as_str().unwrap().to_owned(), stamped["uuid"].as_str().unwrap().to_owned()));
                cancelar(&app, &emisor, &facturas.last().unwrap().0, json!({ "motivo": "02" }), None).await.data(200);
            }
            let receptor = live_receptor(&app, "live-receptor-buzon@example.com", RECEPTOR, Some(&receptor_csd)).await;
            let empresa_receptor = receptor.empresa.clone().unwrap();
            let lista = pendientes(&app, &receptor, "").await.data(200).clone();
            assert_eq!(lista["total"], 3);
            let item = &lista["items"][0];
            assert_eq!(item.as_object().unwrap().len(), 7);
            assert_eq!(item["rfcEmisor"], Value::Null, "get_pending gives UUIDs only");
            assert_eq!(item["fechaSolicitud"].as_str().unwrap()[..10], *"2026-11-23");
            // Listed again: still one event per request.
            pendientes(&app, &receptor, "").await.data(200);
            assert_eq!(cancel_events(&event_types(&app, &empresa_receptor).await).len(), 3);

            // Accepted through the PAC: SAT cancels the issuer's invoice.
            let (id, uuid) = &facturas[0];
            let data = responder(&app, &receptor, uuid, "aceptar").await.data(200).clone();
            assert_eq!((data["respuesta"].as_str(), data["estatus"].as_str()), (Some("aceptar"), Some("Cancelado con aceptación")));
            assert!(!data["acuse"].as_str().unwrap().is_empty());
            responder(&app, &receptor, uuid, "rechazar").await.assert_error(409, "CANCELACION_002");
            let sat = app.get(&format!("/api/cfdi/{id}/estado-sat"), &emisor).await.data(200).clone();
            assert_eq!(sat["estatusCancelacion"], "Cancelado con aceptación");

            // A live company of the same RFC without a CSD cannot answer.
            let sin_csd = live_receptor(&app, "live-sin-csd@example.com", RECEPTOR, None).await;
            assert_eq!(pendientes(&app, &sin_csd, "").await.data(200)["total"], 2);
            responder(&app, &sin_csd, &facturas[1].1, "aceptar").await.assert_error(400, "CFDI_002");

            // The PAC refuses the signature (the CSD is not valid at the PAC's clock): nothing recorded.
            sim.configurar(|c| c.ahora = Some(clock.now() + Duration::days(90)));
            let answer = responder(&app, &receptor, &facturas[1].1, "rechazar").await;
            answer.assert_error(502, "PAC_001");
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let data = responder(&app, &receptor, &facturas[1].1, "rechazar").await.data(200).clone();
            assert_eq!(data["estatus"], "Solicitud rechazada");
            let sat = app.get(&format!("/api/cfdi/{}/estado-sat", facturas[1].0), &emisor).await.data(200).clone();
            assert_eq!(sat["estatusCancelacion"], "Solicitud rechazada");
            assert_eq!(pendientes(&app, &receptor, "").await.data(200)["total"], 1);
            assert_eq!(
                cancel_events(&event_types(&app, &empresa_receptor).await),
                [
                    "factura.cancelacion_recibida",
                    "factura.cancelacion_recibida",
                    "factura.cancelacion_recibida",
                    "factura.cancelacion_respondida",
                    "factura.cancelacion_respondida"
                ]
            );
            // The simulator outlives this backend's run: nothing is left pending in it.
            responder(&app, &receptor, &facturas[2].1, "aceptar").await.data(200);
            assert_eq!(pendientes(&app, &receptor, "").await.data(200)["total"], 0);
        }
    })
    .await;
}

/// The `data` of the company's events of `tipo`.
async fn eventos(app: &TestApp, empresa: &str, tipo: &str) -> Vec<Value> {
    let mut conn = app.db.conn().await.unwrap();
    timbra_store::sql!(fetch_all conn, (String,), "SELECT data FROM events WHERE empresa_id = $1 AND type = $2 ORDER BY created_at, id", empresa, tipo)
        .unwrap()
        .into_iter()
        .map(|(data,)| serde_json::from_str(&data).unwrap())
        .collect()
}

/// Writes a run of the watch of received CFDI now (the chain's next run is an hour away).
async fn vigilar(app: &TestApp, clock: &Clock, vez: &str) {
    use timbra_services::cfdi::receptor::estado_sat::VigilarRecibidos;
    let job =
        timbra_services::jobs::NewJob::of::<VigilarRecibidos>(&timbra_services::jobs::Day { day: vez.to_owned() });
    let mut conn = app.db.conn().await.unwrap();
    timbra_services::jobs::enqueue(&mut conn, clock.now(), job).await.unwrap();
}

#[tokio::test]
async fn the_watch_of_received_cfdi_follows_sat_and_announces_a_change_once() {
    let (pac, url) = start_pac_sim().await;
    let sat = crate::recibidos::sat(|_| {}).await;
    let good = csd(EMISOR, lunes() - Duration::days(1), lunes() + Duration::days(60));
    let fiel = timbra_credentials::testgen::generate(&timbra_credentials::testgen::Options::fiel(
        RECEPTOR,
        "XIMENA QUIROZ BARRAGAN",
        lunes() - Duration::days(1),
        lunes() + Duration::days(365),
    ))
    .unwrap();
    let reloj = Arc::new(Mutex::new(None));
    let adjust = {
        let descarga = crate::recibidos::configurar(&sat, &Clock::System);
        let receptor = pinned(reloj.clone(), Some(url));
        move |config: &mut timbra_services::config::Config| {
            descarga(config);
            receptor(config);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let (pac, sat, good, fiel, reloj) = (pac.clone(), &sat, good.clone(), fiel.clone(), reloj.clone());
        async move {
            let clock = reloj_de(&reloj);
            pac.configurar(|c| c.ahora = Some(clock.now()));
            sat.sim.configurar(|c| c.ahora = Some(clock.now()));
            // A live supplier stamps an invoice to RECEPTOR through the PAC; SAT has it.
            let (emisor, _) = live_company(&app, "vigilancia-emisor@example.com", &good).await;
            app.recargar(&emisor, json!({ "cantidad": 5 })).await.data(201);
            let cliente = app
                .post("/api/clientes", &emisor, json!({ "rfc": RECEPTOR, "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }))
                .await
                .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            let stamped = timbrar(&app, &emisor, &factura_en(&app, &cliente), None).await.data(201).clone();
            let (emitida, uuid) = (stamped["cfdiId"].as_str().unwrap().to_owned(), stamped["uuid"].as_str().unwrap().to_owned());
            let (_, xml) = crate::cfdi::raw(&app, &format!("/api/cfdi/{emitida}/xml"), Some(&emisor)).await;
            let documento = timbra_sim::DocumentoSim::desde_xml(&xml).unwrap();
            sat.sim.configurar(|c| c.documentos.push(documento));

            // The receiver downloads it from SAT.
            let receptor = live_receptor(&app, "vigilancia-receptor@example.com", RECEPTOR, None).await;
            let empresa_receptor = receptor.empresa.clone().unwrap();
            let b64 = |bytes: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes);
            let body = json!({ "cerBase64": b64(&fiel.cer_der), "keyBase64": b64(&fiel.key_der_encrypted), "password": "12345678a" });
            app.post(&format!("/api/empresas/{empresa_receptor}/fiel"), &receptor, body).await.data(201);
            let descarga = app.post("/api/cfdi/descargar-por-uuid", &receptor, json!({ "uuid": uuid })).await;
            assert!(descarga.status.is_success(), "{:#}", descarga.body);
            let mut recibida = None;
            crate::receiver::wait_for(30, "the received CFDI", async || {
                let lista = app.get("/api/cfdi?tipo=RECIBIDA", &receptor).await.data(200).clone();
                recibida = lista["cfdis"][0]["id"].as_str().map(str::to_owned);
                recibida.is_some()
            })
            .await;
            let recibida = recibida.unwrap();

            // First reading: in force, as it was downloaded: no event.
            vigilar(&app, &clock, "1").await;
            for _ in 0..600 {
                if app.get(&format!("/api/cfdi/{recibida}"), &receptor).await.data(200)["estadoSat"] == "Vigente" {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            let mut conn = app.db.conn().await.unwrap();
            let trabajos = timbra_store::sql!(fetch_all conn, (String, String, Option<String>), "SELECT kind, status, last_error FROM jobs WHERE kind LIKE 'cfdi.vigilar%'").unwrap();
            drop(conn);
            assert_eq!(app.get(&format!("/api/cfdi/{recibida}"), &receptor).await.data(200)["estadoSat"], "Vigente", "{} {trabajos:?}", app.backend);
            assert!(eventos(&app, &empresa_receptor, "cfdi.estado_cambiado").await.is_empty());

            // The supplier cancels (the receiver accepts at SAT); the next day's reading sees it.
            cancelar(&app, &emisor, &emitida, json!({ "motivo": "02" }), None).await.data(200);
            clock.advance(std::time::Duration::from_secs(2 * 86_400));
            vigilar(&app, &clock, "2").await;
            crate::receiver::wait_for(30, "the change", async || {
                app.get(&format!("/api/cfdi/{recibida}"), &receptor).await.data(200)["status"] == "CANCELADO"
            })
            .await;
            let detalle = app.get(&format!("/api/cfdi/{recibida}"), &receptor).await.data(200).clone();
            assert_eq!(detalle["estadoSat"], "Cancelado");
            let cambios = eventos(&app, &empresa_receptor, "cfdi.estado_cambiado").await;
            assert_eq!(cambios.len(), 1, "{cambios:?}");
            assert_eq!(cambios[0]["cfdiId"], recibida.as_str());
            assert_eq!(cambios[0]["tipo"], "I");
            assert_eq!((cambios[0]["estadoAnterior"].as_str(), cambios[0]["estado"].as_str()), (Some("Vigente"), Some("Cancelado")));
            assert_eq!(cambios[0]["estatusCancelacion"], "Cancelado con aceptación");
            // A CFDI SAT shows cancelled is not asked again: another run changes nothing.
            clock.advance(std::time::Duration::from_secs(2 * 86_400));
            vigilar(&app, &clock, "3").await;
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            assert_eq!(eventos(&app, &empresa_receptor, "cfdi.estado_cambiado").await.len(), 1);
        }
    })
    .await;
}

#[tokio::test]
async fn the_buzon_page_lists_requests_with_their_deadline_and_answers_them_with_csrf() {
    use crate::panel::{ConFormulario, csrf_de, location, navegador, registrar};
    let reloj = Arc::new(Mutex::new(None));
    each_backend_with(pinned(reloj.clone(), None), |app: TestApp| {
        let reloj = reloj.clone();
        async move {
            let clock = reloj_de(&reloj);
            let (emisor, cliente) = setup(&app, "buzon-emisor@example.com").await;
            // The receiver's owner uses the dashboard; its company is made through the API.
            let (client, _) = registrar(&app, "buzon@example.com").await;
            let key = app
                .post("/api/api-keys", &As::default(), json!({ "name": "k", "email": "buzon@example.com", "password": "Secreto1!" }))
                .await
                .data(201)["key"]
                .as_str()
                .unwrap()
                .to_owned();
            app.post("/api/empresas", &As::key(&key), json!({ "rfc": RECEPTOR, "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501" }))
                .await
                .data(201);
            let (id, uuid) = factura_grande(&app, &emisor, &cliente).await;
            clock.advance(std::time::Duration::from_secs(2 * 86_400));
            cancelar(&app, &emisor, &id, json!({ "motivo": "02" }), None).await.data(200);

            let page = client.get(format!("{}/panel/buzon", app.base)).send().await.unwrap().text().await.unwrap();
            assert!(page.contains(&uuid) && page.contains("Aceptar") && page.contains("Rechazar"), "{page}");
            assert!(page.contains("2026-11-30 10:00"), "the deadline: {page}");
            let token = csrf_de(&page);
            let ruta = format!("{}/panel/buzon/{uuid}", app.base);
            let sin = client.post(&ruta).formulario(&[("respuesta", "rechazar")]).send().await.unwrap();
            assert_eq!(sin.status(), 403);
            let otro = navegador().post(&ruta).formulario(&[("_csrf", token.as_str()), ("respuesta", "rechazar")]).send().await.unwrap();
            assert_eq!(otro.status(), 303, "a stranger goes to the login page");
            assert_eq!(estado(&app, &emisor, &id).await.1, "PENDIENTE");
            let respuesta = client.post(&ruta).formulario(&[("_csrf", token.as_str()), ("respuesta", "rechazar")]).send().await.unwrap();
            assert_eq!(respuesta.status(), 303);
            assert_eq!(location(&respuesta), "/panel/buzon?aviso=cancelacion-rechazada");
            assert_eq!(estado(&app, &emisor, &id).await.1, "RECHAZADA");
            // Answering again shows the error in Spanish on the page.
            let otra = client.post(&ruta).formulario(&[("_csrf", token.as_str()), ("respuesta", "aceptar")]).send().await.unwrap();
            assert_eq!(otra.status(), 409);
            assert!(otra.text().await.unwrap().contains("ya fue respondida"));
        }
    })
    .await;
}
