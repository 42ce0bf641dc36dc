//! Payments (Pagos 2.0) over HTTP on both backends: the PPD → payments → settled flow checked
//! against SAT's tools, cross-currency payments, every bad input with its code and order, the
//! stored balances under 20 concurrent payments, cancellation giving balances back, live
//! stamping holding the balance until the PAC decides, the PDF and 500 documents in one payment.

use std::collections::BTreeSet;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::cfdi::{
    EMISOR, cancelar, concepto, csd, event_types, live_company, raw, sandbox_pac_cer, sat_oracle, setup, sh,
    start_pac_sim, timbrar, uuid_of,
};
use crate::harness::{Answer, As, TempDir, TestApp, each_backend_with};

/// Runs the futures at once (each on its own task) and gives their outputs in order.
async fn a_la_vez<T: Send + 'static>(
    futures: impl IntoIterator<Item = impl Future<Output = T> + Send + 'static>,
) -> Vec<T> {
    let tasks: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}

/// Sends a payment, optionally with an Idempotency-Key.
async fn pagar(app: &TestApp, who: &As, body: &Value, key: Option<&str>) -> Answer {
    let mut request = app
        .client
        .post(format!("{}/api/cfdi/pagos/timbrar", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .json(body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    TestApp::read(request.send().await.unwrap()).await
}

/// A PPD invoice to `cliente`: 10,000.00 + 16% IVA − 10% ISR withheld = 10,600.00 (or the lines given).
pub(crate) fn ppd(cliente: &str) -> Value {
    json!({ "formaPago": "99", "metodoPago": "PPD", "clienteId": cliente, "conceptos": [
        { "claveProdServ": "80101500", "claveUnidad": "E48", "descripcion": "Asesoría", "cantidad": 1, "precioUnitario": "10000",
          "impuestos": { "traslados": [ { "impuesto": "IVA", "tasaOCuota": "0.16" } ], "retenciones": [ { "impuesto": "ISR", "tasaOCuota": "0.10" } ] } } ] })
}

/// A payment body of one document.
pub(crate) fn pago(uuid: &str, parcialidad: i64, ant: &str, pagado: &str, insoluto: &str) -> Value {
    json!({ "fechaPago": "2026-11-20T12:00:00", "formaPago": "03", "monto": pagado, "numOperacion": "SPEI-1",
        "doctoRelacionados": [ { "idDocumento": uuid, "numParcialidad": parcialidad, "impSaldoAnt": ant,
            "impPagado": pagado, "impSaldoInsoluto": insoluto } ] })
}

async fn detalle(app: &TestApp, who: &As, id: &str) -> Value {
    app.get(&format!("/api/cfdi/{id}"), who).await.data(200).clone()
}

/// Writes the XML of each CFDI id to `dir`; returns (path, xml).
async fn xmls(app: &TestApp, who: &As, ids: &[String], dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for id in ids {
        let (status, xml) = raw(app, &format!("/api/cfdi/{id}/xml"), Some(who)).await;
        assert_eq!(status, 200);
        let path = dir.join(format!("{id}.xml"));
        std::fs::write(&path, &xml).unwrap();
        files.push((path, xml));
    }
    files
}

/// The value of attribute `name` in the first element that has it.
fn attr<'a>(xml: &'a str, name: &str) -> &'a str {
    let start = xml.find(&format!(" {name}=\"")).unwrap_or_else(|| panic!("{name} missing in {xml}")) + name.len() + 3;
    &xml[start..start + xml[start..].find('"').unwrap()]
}

/// The clock of these tests: 2026-11-20 18:00 UTC (noon in Mexico City), so fechaPago is in the past.
fn clock() -> timbra_services::clock::Clock {
    let at = time::macros::datetime!(2026-11-20 18:00 UTC);
    timbra_services::clock::Clock::shifted((at - OffsetDateTime::now_utc()).whole_seconds(), 1.0)
}

fn at_clock(config: &mut timbra_services::config::Config) {
    config.clock = clock();
}

#[tokio::test]
async fn a_ppd_invoice_is_settled_by_two_payments_that_pass_sat_schema_cadena_and_seals() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-flujo@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
        assert_eq!(factura["total"], "10600.00");
        let id = factura["cfdiId"].as_str().unwrap().to_owned();
        let uuid = factura["uuid"].as_str().unwrap().to_owned();
        let antes = detalle(&app, &who, &id).await;
        assert_eq!((antes["saldoInsoluto"].as_str(), antes["pagado"].as_str()), (Some("10600.00"), Some("0.00")));
        assert_eq!(antes["pagos"], json!([]));
        let pendientes = app.get("/api/cfdi?saldoPendiente=true", &who).await.data(200).clone();
        assert_eq!(pendientes["total"], 1);

        // First installment, with the SANDBOX- form of the UUID; a replay by key gives the same answer.
        let primero = pagar(&app, &who, &pago(&uuid, 1, "10600.00", "4000.00", "6600.00"), Some("pago-1")).await;
        let primero = primero.data(201).clone();
        assert_eq!((primero["serie"].as_str(), primero["folio"].as_str()), (Some("P"), Some("1")));
        assert_eq!(primero["monto"], "4000.00");
        assert_eq!(primero["sandbox"], true);
        assert_eq!(primero["doctoRelacionados"], json!([ { "uuid": uuid, "pagado": "4000.00", "saldoInsoluto": "6600.00" } ]));
        let replay = pagar(&app, &who, &pago(&uuid, 1, "10600.00", "4000.00", "6600.00"), Some("pago-1")).await;
        assert_eq!(replay.data(201), &primero);
        // Second installment with the bare UUID settles it.
        let bare = uuid_of(&factura).to_owned();
        let segundo = pagar(&app, &who, &pago(&bare, 2, "6600.00", "6600.00", "0.00"), None).await.data(201).clone();
        assert_eq!(segundo["folio"], "2");
        assert_eq!(segundo["doctoRelacionados"][0]["saldoInsoluto"], "0.00");

        let despues = detalle(&app, &who, &id).await;
        assert_eq!((despues["saldoInsoluto"].as_str(), despues["pagado"].as_str()), (Some("0.00"), Some("10600.00")));
        let pagos = despues["pagos"].as_array().unwrap();
        assert_eq!(pagos.len(), 2);
        assert_eq!((pagos[0]["uuid"].clone(), pagos[0]["numParcialidad"].clone(), pagos[0]["impPagado"].clone()),
            (primero["uuid"].clone(), json!(1), json!("4000.00")));
        assert_eq!((pagos[1]["numParcialidad"].clone(), pagos[1]["impSaldoInsoluto"].clone()), (json!(2), json!("0.00")));
        assert!(pagos[0]["fecha"].as_str().unwrap().starts_with("2026-11-20T12:00:"), "{pagos:?}");
        // The payment's own detail names what it paid.
        let pago_detalle = detalle(&app, &who, primero["cfdiId"].as_str().unwrap()).await;
        assert_eq!((pago_detalle["tipoComprobante"].as_str(), pago_detalle["total"].as_str()), (Some("P"), Some("0")));
        assert_eq!(pago_detalle["doctoRelacionados"][0]["impPagado"], "4000.00");
        // Listings: the payments by tipo, the settled invoice by saldoPendiente.
        assert_eq!(app.get("/api/cfdi?tipo=P", &who).await.data(200)["total"], 2);
        assert_eq!(app.get("/api/cfdi?saldoPendiente=true", &who).await.data(200)["total"], 0);
        let liquidadas = app.get("/api/cfdi?saldoPendiente=false", &who).await.data(200).clone();
        assert_eq!((liquidadas["total"].clone(), liquidadas["cfdis"][0]["id"].clone()), (json!(1), json!(id)));
        // Settled: a third payment is refused on its arithmetic (impPagado > impSaldoAnt).
        pagar(&app, &who, &pago(&uuid, 3, "0", "1.00", "0"), None).await.assert_error(400, "PAGO_004");

        // factura.timbrada for payments: total 0, tipoComprobante P and monto.
        let mut conn = app.db.conn().await.unwrap();
        let datos = timbra_store::sql!(fetch_all conn, (String,),
            "SELECT data FROM events WHERE empresa_id = $1 AND type = 'factura.timbrada' ORDER BY created_at, id", &empresa).unwrap();
        drop(conn);
        let datos: Vec<Value> = datos.into_iter().map(|(d,)| serde_json::from_str(&d).unwrap()).collect();
        assert_eq!(datos.len(), 3);
        assert_eq!(datos[0]["tipoComprobante"], "I");
        assert!(datos[0].get("monto").is_none());
        assert_eq!((datos[1]["tipoComprobante"].clone(), datos[1]["total"].to_string(), datos[1]["monto"].to_string()),
            (json!("P"), "0".to_owned(), "4000.00".to_owned()));

        // The XML: type P, Pagos 2.0 with the invoice's taxes in proportion, Totales in MXN.
        let dir = TempDir::new();
        let ids = [primero["cfdiId"].as_str().unwrap().to_owned(), segundo["cfdiId"].as_str().unwrap().to_owned()];
        let files = xmls(&app, &who, &ids, &dir.0).await;
        let xml = &files[0].1;
        for esperado in ["TipoDeComprobante=\"P\"", "SubTotal=\"0\"", "Total=\"0\"", "Moneda=\"XXX\"", "UsoCFDI=\"CP01\"",
            "ClaveProdServ=\"84111506\"", "ClaveUnidad=\"ACT\"", "Descripcion=\"Pago\"", "ObjetoImp=\"01\"",
            "Rfc=\"XIQB891116QE4\"", "NumOperacion=\"SPEI-1\"", "FormaDePagoP=\"03\"", "MonedaP=\"MXN\"", "TipoCambioP=\"1\"",
            "EquivalenciaDR=\"1\"", "NumParcialidad=\"1\"", "ImpSaldoAnt=\"10600.00\"", "ObjetoImpDR=\"02\"", "Serie=\"A\""] {
            assert!(xml.contains(esperado), "{esperado} missing in {xml}");
        }
        // 4,000 of 10,600 paid: base 10,000 × 4,000 / 10,600 = 3,773.584906; IVA = base × 0.16;
        // ISR = base × 0.10. Totales in MXN, rounded to the centavo.
        assert_eq!(attr(xml, "BaseDR"), "3773.584906");
        assert!(xml.contains("ImporteDR=\"603.773585\"") && xml.contains("ImporteDR=\"377.358491\""), "{xml}");
        assert_eq!(attr(xml, "BaseP"), "3773.584906");
        assert_eq!(attr(xml, "TotalTrasladosBaseIVA16"), "3773.58");
        assert_eq!(attr(xml, "TotalTrasladosImpuestoIVA16"), "603.77");
        assert_eq!(attr(xml, "TotalRetencionesISR"), "377.36");
        assert_eq!(attr(xml, "MontoTotalPagos"), "4000.00");
        assert!(xml.contains("ImpuestoDR=\"001\"") && xml.contains("ImpuestoP=\"001\""), "{xml}");
        assert_eq!(attr(&files[1].1, "MontoTotalPagos"), "6600.00");
        let pac = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac, &dir.0);

        // The OpenAPI document describes the body and the answer.
        let doc = app.get("/api/docs", &As::default()).await.body;
        let operacion = &doc["paths"]["/api/cfdi/pagos/timbrar"]["post"];
        assert_eq!(operacion["requestBody"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/PagoBody", "{operacion}");
        let cuerpo = &doc["components"]["schemas"]["PagoBody"]["properties"];
        for campo in ["fechaPago", "formaPago", "monedaP", "tipoCambioP", "monto", "numOperacion", "doctoRelacionados"] {
            assert!(cuerpo[campo].is_object(), "{campo} missing in {cuerpo}");
        }
        let docto = &doc["components"]["schemas"]["DoctoBody"]["properties"];
        for campo in ["idDocumento", "numParcialidad", "impSaldoAnt", "impPagado", "impSaldoInsoluto", "monedaDR", "equivalenciaDR", "objetoImpDR"] {
            assert!(docto[campo].is_object(), "{campo} missing in {docto}");
        }
        let respuesta = &doc["components"]["schemas"]["PagoTimbradoOut"]["properties"];
        for campo in ["cfdiId", "uuid", "fechaTimbrado", "serie", "folio", "monto", "doctoRelacionados", "sandbox"] {
            assert!(respuesta[campo].is_object(), "{campo} missing in {respuesta}");
        }
        assert!(operacion["responses"]["409"]["description"].as_str().unwrap().contains("PAGO_005"));
        assert!(doc["x-error-codes"]["PAGO_005"].is_object());
    })
    .await;
}

#[tokio::test]
async fn cross_currency_payments_carry_equivalencia_and_pass_sat_oracle() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-divisas@example.com").await;
        // A USD invoice (1,000.00 + IVA = 1,160.00 USD) paid in MXN: the document's amounts in USD,
        // monto in MXN; equivalenciaDR omitted with one document = impPagado ÷ monto.
        let usd = json!({ "formaPago": "99", "metodoPago": "PPD", "moneda": "USD", "tipoCambio": "17.25", "clienteId": cliente,
            "conceptos": [concepto("Licencia", json!(1), json!("1000"))] });
        let usd = timbrar(&app, &who, &usd, None).await.data(201).clone();
        let en_mxn = json!({ "fechaPago": "2026-11-20T09:00:00", "formaPago": "03", "monto": "10350.00",
            "doctoRelacionados": [ { "idDocumento": usd["uuid"], "numParcialidad": 1, "monedaDR": "USD",
                "impSaldoAnt": "1160.00", "impPagado": "600.00", "impSaldoInsoluto": "560.00" } ] });
        let primero = pagar(&app, &who, &en_mxn, None).await.data(201).clone();
        assert_eq!(primero["doctoRelacionados"][0]["saldoInsoluto"], "560.00");

        // An MXN invoice paid in USD with an explicit equivalenciaDR (MXN per USD).
        let mxn = json!({ "formaPago": "99", "metodoPago": "PPD", "clienteId": cliente,
            "conceptos": [concepto("Servicio", json!(1), json!("5000"))] });
        let mxn = timbrar(&app, &who, &mxn, None).await.data(201).clone();
        assert_eq!(mxn["total"], "5800.00");
        let en_usd = json!({ "fechaPago": "2026-11-20T09:00:00", "formaPago": "03", "monedaP": "USD", "tipoCambioP": "17.25",
            "monto": "200.00", "doctoRelacionados": [ { "idDocumento": mxn["uuid"], "numParcialidad": 1,
                "equivalenciaDR": "17.25", "impSaldoAnt": "5800.00", "impPagado": "3450.00", "impSaldoInsoluto": "2350.00" } ] });
        let segundo = pagar(&app, &who, &en_usd, None).await.data(201).clone();
        // Monto must be Σ impPagado ÷ equivalenciaDR to the centavo: 3,450 ÷ 17.25 = 200.00.
        let mut mal = en_usd.clone();
        mal["monto"] = json!("201.00");
        mal["doctoRelacionados"][0]["numParcialidad"] = json!(2);
        mal["doctoRelacionados"][0]["impSaldoAnt"] = json!("2350.00");
        mal["doctoRelacionados"][0]["impSaldoInsoluto"] = json!("-1100.00");
        let answer = pagar(&app, &who, &mal, None).await;
        answer.assert_error(400, "PAGO_001");

        let dir = TempDir::new();
        let ids = [primero["cfdiId"].as_str().unwrap().to_owned(), segundo["cfdiId"].as_str().unwrap().to_owned()];
        let files = xmls(&app, &who, &ids, &dir.0).await;
        let (a, b) = (&files[0].1, &files[1].1);
        // 600 USD ÷ 10,350 MXN.
        assert_eq!(attr(a, "EquivalenciaDR"), "0.0579710145");
        assert_eq!((attr(a, "MonedaDR"), attr(a, "MonedaP"), attr(a, "TipoCambioP")), ("USD", "MXN", "1"));
        assert_eq!(attr(a, "MontoTotalPagos"), "10350.00");
        // Base 1,000 × 600 / 1,160 = 517.241379 USD; in MXN (÷ equivalencia) 8,922.41.
        assert_eq!(attr(a, "BaseDR"), "517.241379");
        assert_eq!(attr(a, "TotalTrasladosBaseIVA16"), "8922.41");
        assert_eq!((attr(b, "MonedaP"), attr(b, "TipoCambioP"), attr(b, "EquivalenciaDR")), ("USD", "17.25", "17.25"));
        // 200 USD × 17.25 = 3,450.00 MXN.
        assert_eq!(attr(b, "MontoTotalPagos"), "3450.00");
        let pac = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac, &dir.0);
    })
    .await;
}

/// The `field` of every problem in `details.fields`.
fn fields(answer: &Answer) -> BTreeSet<String> {
    answer.body["error"]["details"]["fields"]
        .as_array()
        .unwrap_or_else(|| panic!("no details.fields: {:#}", answer.body))
        .iter()
        .map(|p| p["field"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn every_bad_payment_gets_its_code_in_order_and_nothing_is_spent() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-errores@example.com").await;
        let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
        let uuid = factura["uuid"].as_str().unwrap().to_owned();
        let ok = pago(&uuid, 1, "10600.00", "1000.00", "9600.00");

        // Body problems, all at once (PAGO_001), before anything else.
        pagar(&app, &who, &json!({}), None).await.assert_error(400, "PAGO_001");
        let vacio = pagar(&app, &who, &json!({ "fechaPago": "2026-11-20T12:00:00", "formaPago": "03", "monto": 1, "doctoRelacionados": [] }), None).await;
        vacio.assert_error(400, "PAGO_001");
        assert_eq!(fields(&vacio), BTreeSet::from(["doctoRelacionados".to_owned()]));
        let todo_mal = json!({ "formaPago": "99", "monedaP": "USD", "monto": 0, "doctoRelacionados": [
            { "idDocumento": "no-uuid", "numParcialidad": 0, "impSaldoAnt": "-5", "impPagado": "1.1234567", "impSaldoInsoluto": "1" },
            { "idDocumento": "5FB2822E-396D-4725-8521-CDC4BDD20CCF", "numParcialidad": 1, "impSaldoAnt": "10", "impPagado": "20", "impSaldoInsoluto": "0", "objetoImpDR": "05" } ] });
        let answer = pagar(&app, &who, &todo_mal, None).await;
        answer.assert_error(400, "PAGO_001");
        let esperados = ["fechaPago", "formaPago", "tipoCambioP", "monto", "doctoRelacionados[0].idDocumento",
            "doctoRelacionados[0].numParcialidad", "doctoRelacionados[0].impSaldoAnt", "doctoRelacionados[0].impPagado",
            "doctoRelacionados[0].equivalenciaDR",
            "doctoRelacionados[1].objetoImpDR", "doctoRelacionados[1].impPagado", "doctoRelacionados[1].equivalenciaDR"];
        assert_eq!(fields(&answer), esperados.iter().map(|f| f.to_string()).collect::<BTreeSet<_>>(), "{:#}", answer.body);
        // More than 2 decimals in MXN, a zero amount, a negative one.
        for (campo, valor) in [("impPagado", json!("10.001")), ("impPagado", json!(-1)), ("monto", json!("0.00"))] {
            let mut body = ok.clone();
            if campo == "monto" { body["monto"] = valor } else { body["doctoRelacionados"][0][campo] = valor }
            let answer = pagar(&app, &who, &body, None).await;
            answer.assert_error(400, "PAGO_001");
        }
        // impPagado 0 is a balance problem, and monto no longer adds up: both, PAGO_001.
        let mut cero = ok.clone();
        cero["doctoRelacionados"][0]["impPagado"] = json!(0);
        cero["doctoRelacionados"][0]["impSaldoInsoluto"] = json!("10600.00");
        let answer = pagar(&app, &who, &cero, None).await;
        answer.assert_error(400, "PAGO_001");
        assert_eq!(fields(&answer), BTreeSet::from(["monto".to_owned(), "doctoRelacionados[0].impPagado".to_owned()]));
        // More documents than a payment takes: a clear limit.
        let muchos: Vec<Value> = (0..1001).map(|_| ok["doctoRelacionados"][0].clone()).collect();
        let answer = pagar(&app, &who, &json!({ "fechaPago": "2026-11-20T12:00:00", "formaPago": "03", "monto": 1, "doctoRelacionados": muchos }), None).await;
        answer.assert_error(400, "PAGO_001");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("at most 1000"), "{:#}", answer.body);
        // monedaP USD without tipoCambioP.
        let mut sin_tc = ok.clone();
        sin_tc["monedaP"] = json!("USD");
        sin_tc["doctoRelacionados"][0]["equivalenciaDR"] = json!("17.25");
        let answer = pagar(&app, &who, &sin_tc, None).await;
        answer.assert_error(400, "PAGO_001");
        assert_eq!(fields(&answer), BTreeSet::from(["tipoCambioP".to_owned()]));
        // monto ≠ Σ impPagado.
        let mut monto = ok.clone();
        monto["monto"] = json!("999.99");
        let answer = pagar(&app, &who, &monto, None).await;
        answer.assert_error(400, "PAGO_001");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("1000.00"), "{:#}", answer.body);
        // Only the balance arithmetic: PAGO_004.
        pagar(&app, &who, &pago(&uuid, 1, "10600.00", "1000.00", "9000.00"), None).await.assert_error(400, "PAGO_004");
        pagar(&app, &who, &pago(&uuid, 1, "100.00", "1000.00", "0"), None).await.assert_error(400, "PAGO_004");
        // A body problem and an unknown document: the body first.
        let mut ambos = pago("5FB2822E-396D-4725-8521-CDC4BDD20CCF", 1, "10", "10", "0");
        ambos["formaPago"] = json!("XX");
        pagar(&app, &who, &ambos, None).await.assert_error(400, "PAGO_001");

        // Unknown document, and another company's invoice: the same PAGO_002, nothing revealed.
        let desconocido = pagar(&app, &who, &pago("5FB2822E-396D-4725-8521-CDC4BDD20CCF", 1, "10", "10", "0"), None).await;
        desconocido.assert_error(404, "PAGO_002");
        let (otra, otro_cliente) = setup(&app, "pagos-otra@example.com").await;
        let ajena = timbrar(&app, &otra, &ppd(&otro_cliente), None).await.data(201).clone();
        let ajeno = ajena["uuid"].as_str().unwrap();
        let answer = pagar(&app, &who, &pago(ajeno, 1, "10600.00", "1000.00", "9600.00"), None).await;
        answer.assert_error(404, "PAGO_002");
        assert_eq!(answer.body["error"]["message"].as_str().unwrap().replace(uuid_of(&ajena), "X"),
            desconocido.body["error"]["message"].as_str().unwrap().replace("5FB2822E-396D-4725-8521-CDC4BDD20CCF", "X"));

        // Unusable documents (PAGO_003): a PUE invoice, a cancelled one, another currency, another receiver.
        let pue = timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await.data(201).clone();
        let answer = pagar(&app, &who, &pago(pue["uuid"].as_str().unwrap(), 1, "3481.16", "3481.16", "0"), None).await;
        answer.assert_error(400, "PAGO_003");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("PPD"), "{:#}", answer.body);
        let cancelada = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
        cancelar(&app, &who, cancelada["cfdiId"].as_str().unwrap(), json!({ "motivo": "02" }), None).await.data(200);
        let cancelada_uuid = cancelada["uuid"].as_str().unwrap();
        pagar(&app, &who, &pago(cancelada_uuid, 1, "10600.00", "10600.00", "0"), None).await.assert_error(400, "PAGO_003");
        let mut moneda = ok.clone();
        moneda["doctoRelacionados"][0]["monedaDR"] = json!("USD");
        moneda["doctoRelacionados"][0]["equivalenciaDR"] = json!("0.058");
        moneda["monto"] = json!("17241.38");
        pagar(&app, &who, &moneda, None).await.assert_error(400, "PAGO_003");
        let publico = json!({ "formaPago": "99", "metodoPago": "PPD", "conceptos": [concepto("Venta", json!(1), json!(100))] });
        let publico = timbrar(&app, &who, &publico, None).await.data(201).clone();
        let dos = json!({ "fechaPago": "2026-11-20T12:00:00", "formaPago": "03", "monto": "1116.00", "doctoRelacionados": [
            { "idDocumento": uuid, "numParcialidad": 1, "impSaldoAnt": "10600.00", "impPagado": "1000.00", "impSaldoInsoluto": "9600.00" },
            { "idDocumento": publico["uuid"], "numParcialidad": 1, "impSaldoAnt": "116.00", "impPagado": "116.00", "impSaldoInsoluto": "0" } ] });
        let answer = pagar(&app, &who, &dos, None).await;
        answer.assert_error(400, "PAGO_003");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("XAXX010101000"), "{:#}", answer.body);
        // An unknown document beside a cancelled one: PAGO_002 first.
        let mixto = json!({ "fechaPago": "2026-11-20T12:00:00", "formaPago": "03", "monto": "10610.00", "doctoRelacionados": [
            { "idDocumento": cancelada_uuid, "numParcialidad": 1, "impSaldoAnt": "10600.00", "impPagado": "10600.00", "impSaldoInsoluto": "0" },
            { "idDocumento": "5FB2822E-396D-4725-8521-CDC4BDD20CCF", "numParcialidad": 1, "impSaldoAnt": "10", "impPagado": "10", "impSaldoInsoluto": "0" } ] });
        pagar(&app, &who, &mixto, None).await.assert_error(404, "PAGO_002");

        // The stored balance and installment (PAGO_005), with the expected values in the message.
        let answer = pagar(&app, &who, &pago(&uuid, 1, "10000.00", "1000.00", "9000.00"), None).await;
        answer.assert_error(409, "PAGO_005");
        let message = answer.body["error"]["message"].as_str().unwrap();
        assert!(message.contains("10600.00") && message.contains("numParcialidad 1"), "{message}");
        assert_eq!(answer.body["error"]["details"]["numParcialidad"], 1);
        let answer = pagar(&app, &who, &pago(&uuid, 2, "10600.00", "1000.00", "9600.00"), None).await;
        answer.assert_error(409, "PAGO_005");

        // Nothing was spent: the first good payment is folio 1 of serie P and the balance is whole.
        assert_eq!(detalle(&app, &who, factura["cfdiId"].as_str().unwrap()).await["saldoInsoluto"], "10600.00");
        let stamped = pagar(&app, &who, &ok, None).await.data(201).clone();
        assert_eq!((stamped["serie"].as_str(), stamped["folio"].as_str()), (Some("P"), Some("1")));

        // The payments serie is the company's `seriePagos`.
        let empresa = who.empresa.clone().unwrap();
        let updated = app.call(reqwest::Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(json!({ "seriePagos": "REC" }))).await;
        assert_eq!(updated.data(200)["seriePagos"], "REC");
        app.call(reqwest::Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(json!({ "seriePagos": "A B" })))
            .await
            .assert_error(400, "EMPRESA_001");
        let rec = pagar(&app, &who, &pago(&uuid, 2, "9600.00", "600.00", "9000.00"), None).await.data(201).clone();
        assert_eq!((rec["serie"].as_str(), rec["folio"].as_str()), (Some("REC"), Some("1")));

        // A company switched to live cannot pay its sandbox invoices with live payments.
        app.call(reqwest::Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(json!({ "sandbox": false }))).await.data(200);
        let answer = pagar(&app, &who, &pago(&uuid, 3, "9000.00", "600.00", "8400.00"), None).await;
        answer.assert_error(400, "PAGO_003");
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("sandbox"), "{:#}", answer.body);
    })
    .await;
}

#[tokio::test]
async fn twenty_concurrent_payments_never_share_an_installment_nor_overdraw() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-carrera@example.com").await;
        let app = Arc::new(app);
        let body = json!({ "formaPago": "99", "metodoPago": "PPD", "clienteId": cliente,
            "conceptos": [concepto("Servicio", json!(1), json!("1000"))] });
        let factura = timbrar(&app, &who, &body, None).await.data(201).clone();
        assert_eq!(factura["total"], "1160.00");
        let (id, uuid) = (factura["cfdiId"].as_str().unwrap().to_owned(), factura["uuid"].as_str().unwrap().to_owned());

        // 20 at once, all claiming installment 1 of the whole balance: exactly one wins.
        let todos = pago(&uuid, 1, "1160.00", "1160.00", "0");
        let answers = a_la_vez((0..20).map(|_| {
            let (app, who, body) = (app.clone(), who.clone(), todos.clone());
            async move { pagar(&app, &who, &body, None).await }
        }))
        .await;
        let ganadores = answers.iter().filter(|a| a.status == 201).count();
        assert_eq!(ganadores, 1, "{:?}", answers.iter().map(|a| a.code().to_owned()).collect::<Vec<_>>());
        for a in answers.iter().filter(|a| a.status != 201) {
            a.assert_error(409, "PAGO_005");
        }
        let ganador = answers.iter().find(|a| a.status == 201).unwrap().data(201).clone();
        cancelar(&app, &who, ganador["cfdiId"].as_str().unwrap(), json!({ "motivo": "02" }), None).await.data(200);
        assert_eq!(detalle(&app, &who, &id).await["saldoInsoluto"], "1160.00");

        // 20 payers of 58.00 each, racing: each reads the balance and retries on PAGO_005.
        let pagador = |n: usize| {
            let (app, who, id, uuid) = (app.clone(), who.clone(), id.clone(), uuid.clone());
            async move {
                let (app, who) = (&*app, &who);
                for _ in 0..200 {
                    let d = detalle(app, who, &id).await;
                    let saldo: rust_decimal::Decimal = d["saldoInsoluto"].as_str().unwrap().parse().unwrap();
                    let siguiente = d["pagos"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| p["numParcialidad"].as_i64().unwrap())
                        .max()
                        .unwrap_or(0)
                        + 1;
                    let pagado = rust_decimal::Decimal::new(5800, 2);
                    let body =
                        pago(&uuid, siguiente, &saldo.to_string(), &pagado.to_string(), &(saldo - pagado).to_string());
                    let answer = pagar(app, who, &body, None).await;
                    match answer.status.as_u16() {
                        201 => return answer.data(201)["cfdiId"].as_str().unwrap().to_owned(),
                        409 => answer.assert_error(409, "PAGO_005"),
                        _ => panic!("payer {n}: {:#}", answer.body),
                    }
                }
                panic!("payer {n} never got its turn");
            }
        };
        let pagos = a_la_vez((0..20).map(pagador)).await;
        assert_eq!(pagos.iter().collect::<BTreeSet<_>>().len(), 20);
        let d = detalle(&app, &who, &id).await;
        assert_eq!((d["saldoInsoluto"].as_str(), d["pagado"].as_str()), (Some("0.00"), Some("1160.00")));
        let parcialidades: Vec<i64> =
            d["pagos"].as_array().unwrap().iter().map(|p| p["numParcialidad"].as_i64().unwrap()).collect();
        assert_eq!(parcialidades, (1..=20).collect::<Vec<_>>());
        // Each installment's balance chains to the next, never below zero.
        let pagos = d["pagos"].as_array().unwrap();
        for (antes, despues) in pagos.iter().zip(pagos.iter().skip(1)) {
            assert_eq!(antes["impSaldoInsoluto"], despues["impSaldoAnt"]);
        }
        pagar(&app, &who, &pago(&uuid, 21, "0.00", "58.00", "-58.00"), None).await.assert_error(400, "PAGO_001");
    })
    .await;
}

#[tokio::test]
async fn cancelling_a_payment_gives_the_balance_back_and_a_paid_invoice_cannot_be_cancelled() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-cancelar@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
        let (id, uuid) = (factura["cfdiId"].as_str().unwrap().to_owned(), factura["uuid"].as_str().unwrap().to_owned());
        let primero =
            pagar(&app, &who, &pago(&uuid, 1, "10600.00", "600.00", "10000.00"), None).await.data(201).clone();
        let segundo =
            pagar(&app, &who, &pago(&uuid, 2, "10000.00", "1000.00", "9000.00"), None).await.data(201).clone();

        // The invoice has live payments: SAT's "No cancelable", naming them.
        let answer = cancelar(&app, &who, &id, json!({ "motivo": "02" }), None).await;
        answer.assert_error(400, "CANCEL_003");
        assert_eq!(answer.body["error"]["details"]["pagos"], json!([primero["uuid"], segundo["uuid"]]));
        assert!(answer.body["error"]["message"].as_str().unwrap().contains(primero["uuid"].as_str().unwrap()));

        // Cancelling the last payment gives its amount and its installment back.
        cancelar(&app, &who, segundo["cfdiId"].as_str().unwrap(), json!({ "motivo": "02" }), None).await.data(200);
        let d = detalle(&app, &who, &id).await;
        assert_eq!((d["saldoInsoluto"].as_str(), d["pagado"].as_str()), (Some("10000.00"), Some("600.00")));
        assert_eq!(d["pagos"].as_array().unwrap().len(), 1);
        let pago_cancelado = detalle(&app, &who, segundo["cfdiId"].as_str().unwrap()).await;
        assert_eq!(
            (pago_cancelado["status"].as_str(), pago_cancelado["doctoRelacionados"][0]["status"].as_str()),
            (Some("CANCELADO"), Some("DEVUELTO"))
        );
        // Its replacement takes installment 2 again.
        let reemplazo =
            pagar(&app, &who, &pago(&uuid, 2, "10000.00", "1000.00", "9000.00"), None).await.data(201).clone();
        // Cancelling an earlier payment gives its amount back; the installments go on.
        cancelar(&app, &who, primero["cfdiId"].as_str().unwrap(), json!({ "motivo": "02" }), None).await.data(200);
        let d = detalle(&app, &who, &id).await;
        assert_eq!(d["saldoInsoluto"], "9600.00");
        pagar(&app, &who, &pago(&uuid, 3, "9600.00", "9600.00", "0"), None).await.data(201);
        assert_eq!(detalle(&app, &who, &id).await["saldoInsoluto"], "0.00");
        // Once every payment is cancelled the invoice can be cancelled.
        let vivos: Vec<String> = detalle(&app, &who, &id).await["pagos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["cfdiId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(vivos.len(), 2);
        assert_eq!(vivos[0], reemplazo["cfdiId"].as_str().unwrap());
        for pago_id in &vivos {
            cancelar(&app, &who, pago_id, json!({ "motivo": "02" }), None).await.data(200);
        }
        assert_eq!(detalle(&app, &who, &id).await["saldoInsoluto"], "10600.00");
        cancelar(&app, &who, &id, json!({ "motivo": "02" }), None).await.data(200);
        assert_eq!(app.get("/api/cfdi?saldoPendiente=true", &who).await.data(200)["total"], 0);
        let events = event_types(&app, &empresa).await;
        assert_eq!(events.iter().filter(|t| *t == "factura.cancelada").count(), 5, "{events:?}");
    })
    .await;
}

#[tokio::test]
async fn the_pdf_of_a_payment_shows_the_payment_and_its_documents() {
    if !timbra_testkit::tools(&["pdftotext"]) {
        return;
    }
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-pdf@example.com").await;
        let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
        let uuid = factura["uuid"].as_str().unwrap();
        let pagado = pagar(&app, &who, &pago(uuid, 1, "10600.00", "4000.00", "6600.00"), None).await.data(201).clone();
        let id = pagado["cfdiId"].as_str().unwrap();
        let response = app
            .client
            .get(format!("{}/api/cfdi/{id}/pdf", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let dir = TempDir::new();
        let file = dir.0.join("pago.pdf");
        std::fs::write(&file, response.bytes().await.unwrap()).unwrap();
        let (ok, text, err) = sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], Path::new("."));
        assert!(ok, "pdftotext: {err}");
        let text = String::from_utf8(text).unwrap();
        for expected in
            ["RECEPCIÓN DE PAGOS", uuid_of(&factura), uuid_of(&pagado), "4,000.00", "6,600.00", "10,600.00", "SPEI-1"]
        {
            assert!(text.contains(expected), "{expected} missing from the PDF:\n{text}");
        }
    })
    .await;
}

#[tokio::test]
async fn five_hundred_documents_in_one_payment() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-500@example.com").await;
        let app = Arc::new(app);
        let body = json!({ "formaPago": "99", "metodoPago": "PPD", "clienteId": cliente,
            "conceptos": [concepto("Servicio", json!(1), json!("100"))] });
        let mut uuids = Vec::new();
        for _ in 0..10 {
            let answers = a_la_vez((0..50).map(|_| {
                let (app, who, body) = (app.clone(), who.clone(), body.clone());
                async move { timbrar(&app, &who, &body, None).await }
            }))
            .await;
            uuids.extend(answers.iter().map(|a| a.data(201)["uuid"].as_str().unwrap().to_owned()));
        }
        let doctos: Vec<Value> = uuids
            .iter()
            .map(|u| json!({ "idDocumento": u, "numParcialidad": 1, "impSaldoAnt": "116.00", "impPagado": "116.00", "impSaldoInsoluto": "0.00" }))
            .collect();
        let body = json!({ "fechaPago": "2026-11-20T12:00:00", "formaPago": "03", "monto": "58000.00", "doctoRelacionados": doctos });
        let stamped = pagar(&app, &who, &body, None).await.data(201).clone();
        assert_eq!(stamped["doctoRelacionados"].as_array().unwrap().len(), 500);
        assert_eq!(app.get("/api/cfdi?saldoPendiente=true", &who).await.data(200)["total"], 0);
        let dir = TempDir::new();
        let files = xmls(&app, &who, &[stamped["cfdiId"].as_str().unwrap().to_owned()], &dir.0).await;
        assert_eq!(files[0].1.matches("<pago20:DoctoRelacionado ").count(), 500);
        assert_eq!(attr(&files[0].1, "TotalTrasladosBaseIVA16"), "50000.00");
        let pac = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac, &dir.0);
    })
    .await;
}

#[tokio::test]
async fn live_payments_hold_the_balance_until_the_pac_decides() {
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut timbra_services::config::Config| {
            let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
            pac.timeout = std::time::Duration::from_secs(3);
            config.pac = Some(pac);
            config.clock = clock.clone();
            config.jobs.poll = std::time::Duration::from_millis(20);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let (sim, good, clock) = (sim.clone(), good.clone(), clock.clone());
        async move {
            // The service's clock runs ahead across backends; the PAC checks Fecha against its own.
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let app = Arc::new(app);
            let (who, _) = live_company(&app, "pagos-live@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 10 })).await.data(201);
            let cliente = app
                .post("/api/clientes", &who, json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }))
                .await
                .data(201)["id"].as_str().unwrap().to_owned();
            let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
            let (id, uuid) = (factura["cfdiId"].as_str().unwrap().to_owned(), factura["uuid"].as_str().unwrap().to_owned());
            // The live clock is the machine's: fechaPago 2026-11-20 is in its past.
            let body = |n: i64, ant: &str, pagado: &str, insoluto: &str| pago(&uuid, n, ant, pagado, insoluto);
            let saldo = async || detalle(&app, &who, &id).await["saldoInsoluto"].as_str().unwrap().to_owned();

            // The PAC refuses: the balance comes back.
            sim.configurar(|c| c.usuario = Some("otra-cuenta".into()));
            pagar(&app, &who, &body(1, "10600.00", "4000.00", "6600.00"), None).await.assert_error(502, "PAC_001");
            sim.configurar(|c| c.usuario = None);
            assert_eq!(saldo().await, "10600.00");

            // The outcome is unknown: the balance stays held; the same request again resolves it.
            sim.configurar(|c| c.basura = true);
            let uno = body(1, "10600.00", "4000.00", "6600.00");
            pagar(&app, &who, &uno, None).await.assert_error(502, "PAC_002");
            sim.configurar(|c| c.basura = false);
            assert_eq!(saldo().await, "6600.00");
            // Meanwhile the held installment is taken: another payment for it is PAGO_005.
            pagar(&app, &who, &body(1, "10600.00", "100.00", "10500.00"), None).await.assert_error(409, "PAGO_005");
            let stamped = pagar(&app, &who, &uno, None).await.data(201).clone();
            assert_eq!(stamped["uuid"].as_str().unwrap().len(), 36);
            assert_eq!(stamped["folio"], "2");
            let d = detalle(&app, &who, &id).await;
            assert_eq!((d["saldoInsoluto"].as_str(), d["pagado"].as_str()), (Some("6600.00"), Some("4000.00")));

            let dir = TempDir::new();
            let files = xmls(&app, &who, &[stamped["cfdiId"].as_str().unwrap().to_owned()], &dir.0).await;
            assert!(files[0].1.contains("RfcProvCertif=\"CVD110412TF6\""));
            sat_oracle(&files, sim.certificado_pac().der(), &dir.0);

            // Cancelled (SAT cancels a payment CFDI without acceptance): the balance comes back.
            cancelar(&app, &who, stamped["cfdiId"].as_str().unwrap(), json!({ "motivo": "02" }), None).await.data(200);
            assert_eq!(saldo().await, "10600.00");

            // SAT's status lags behind the request: the payment stays TIMBRADO (SOLICITADA) and
            // keeps its amount until the follow-up job reads "Cancelado", in whose transaction
            // the balance comes back.
            let otro = pagar(&app, &who, &body(1, "10600.00", "600.00", "10000.00"), None).await.data(201).clone();
            let otro_id = otro["cfdiId"].as_str().unwrap().to_owned();
            assert_eq!(saldo().await, "10000.00");
            sim.configurar(|c| c.consultas_sin_reflejar = 1);
            let answer = cancelar(&app, &who, &otro_id, json!({ "motivo": "02" }), None).await.data(200).clone();
            sim.configurar(|c| c.consultas_sin_reflejar = 0);
            assert_eq!((answer["status"].as_str(), answer["cancellationStatus"].as_str()), (Some("TIMBRADO"), Some("SOLICITADA")));
            assert_eq!(saldo().await, "10000.00");
            for _ in 0..40 {
                if detalle(&app, &who, &otro_id).await["status"] == "CANCELADO" {
                    break;
                }
                clock.advance(std::time::Duration::from_secs(16 * 60));
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
            assert_eq!(detalle(&app, &who, &otro_id).await["status"], "CANCELADO");
            assert_eq!(saldo().await, "10600.00");
            assert_eq!(detalle(&app, &who, &otro_id).await["doctoRelacionados"][0]["status"], "DEVUELTO");

            // 20 live payments at once for the same installment: each reserve transaction runs
            // on its own connection (row locks on PostgreSQL), and exactly one holds the balance
            // and reaches the PAC; the others are rolled back with PAGO_005 before a stamp or a
            // folio is spent.
            let timbres = async || app.get("/api/timbres", &who).await.data(200)["saldo"].as_i64().unwrap();
            let antes = timbres().await;
            let intentos_antes = app.get("/api/cfdi/intentos", &who).await.data(200)["total"].as_i64().unwrap();
            // (The PAC's clock follows the service's, which the wait above moved ahead.)
            sim.configurar(|c| {
                c.retraso = std::time::Duration::from_millis(300);
                c.ahora = Some(clock.now());
            });
            let answers = a_la_vez((0..20).map(|n| {
                let (app, who) = (app.clone(), who.clone());
                let mut body = body(1, "10600.00", "100.00", "10500.00");
                // Distinct bodies: the same body would be the same request (a live retry).
                body["numOperacion"] = json!(format!("SPEI-{n}"));
                async move { pagar(&app, &who, &body, None).await }
            }))
            .await;
            sim.configurar(|c| c.retraso = std::time::Duration::ZERO);
            assert_eq!(answers.iter().filter(|a| a.status == 201).count(), 1, "{:?}", answers.iter().map(|a| a.code().to_owned()).collect::<Vec<_>>());
            for a in answers.iter().filter(|a| a.status != 201) {
                a.assert_error(409, "PAGO_005");
            }
            assert_eq!(saldo().await, "10500.00");
            assert_eq!(timbres().await, antes - 1);
            assert_eq!(app.get("/api/cfdi/intentos", &who).await.data(200)["total"].as_i64().unwrap(), intentos_antes + 1);
        }
    })
    .await;
}

#[tokio::test]
async fn a_payment_and_the_invoices_cancellation_at_once_never_both_succeed() {
    each_backend_with(at_clock, |app: TestApp| async move {
        let (who, cliente) = setup(&app, "pagos-carrera@example.com").await;
        for _ in 0..8 {
            let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
            let (id, uuid) =
                (factura["cfdiId"].as_str().unwrap().to_owned(), factura["uuid"].as_str().unwrap().to_owned());
            let (a, b, c) = (app.base.clone(), who.clone(), id.clone());
            let cancel = tokio::spawn(async move {
                let client = reqwest::Client::new();
                let response = client
                    .post(format!("{a}/api/cfdi/{c}/cancelar"))
                    .bearer_auth(b.key.as_deref().unwrap())
                    .header("x-empresa-id", b.empresa.as_deref().unwrap())
                    .json(&json!({ "motivo": "02" }))
                    .send()
                    .await
                    .unwrap();
                response.status().as_u16()
            });
            let paid = pagar(&app, &who, &pago(&uuid, 1, "10600.00", "600.00", "10000.00"), None).await;
            let cancelled = cancel.await.unwrap();
            let d = detalle(&app, &who, &id).await;
            let applied = d["pagos"].as_array().map_or(0, Vec::len);
            match (paid.status.as_u16(), cancelled) {
                (201, 200) => panic!("both the payment and the cancellation of {id} succeeded: {d}"),
                (201, _) => assert_eq!((d["status"].as_str(), applied), (Some("TIMBRADO_SANDBOX"), 1)),
                (_, 200) => {
                    assert_eq!(d["status"], "CANCELADO");
                    assert_eq!(applied, 0, "{d}");
                    assert!(["PAGO_003", "PAGO_005"].contains(&paid.code()), "{}", paid.body);
                }
                other => panic!("neither succeeded: {other:?} {}", paid.body),
            }
        }
    })
    .await;
}
