//! Received retentions (issue 34, item 5), end to end against `timbra sim sat` over loopback
//! HTTP, whose retention service (`/retenciones/…`, its own documents and tokens) stands for
//! SAT's `retendescargamasiva*` hosts: a month synchronized with `tipo: "retenciones"` brings a
//! platform's retention (Servicios de Plataformas Tecnológicas) and a dividends one (the
//! Dividendos complement kept raw), listed under `GET /api/retenciones?tipo=RECIBIDA` with
//! their amounts and seals verified, never among received invoices; a second sync stores nothing
//! twice; a download by UUID finds a retention on the retention service; another company sees
//! none of it.

use std::collections::HashSet;

use serde_json::{Value, json};
use timbra_services::clock::Clock;
use timbra_sim::sat::DocumentoSim;
use timbra_sim::sat::lote;
use time::PrimitiveDateTime;

use crate::cfdi::raw;
use crate::harness::{As, TestApp, each_backend_with};
use crate::recibidos::{FIRMANTES, RFC, configurar, empresa, mes_pasado, pedir, recibidas, sat, sync_terminada};

/// The two retentions of the previous month, and one of the month before (only downloaded by
/// UUID).
fn retenciones() -> (Vec<DocumentoSim>, DocumentoSim) {
    let (_, _, desde) = mes_pasado();
    let del_mes = lote::retenciones_recibidas(&FIRMANTES, RFC, "ESCUELA KEMPER URGATE", desde).unwrap();
    let anterior: PrimitiveDateTime = desde.replace_date(desde.date().previous_day().unwrap().replace_day(1).unwrap());
    let otra = lote::retenciones_recibidas(&FIRMANTES, RFC, "ESCUELA KEMPER URGATE", anterior).unwrap();
    (del_mes, otra[1].clone())
}

async fn recibidas_listadas(app: &TestApp, who: &As) -> Value {
    app.get("/api/retenciones?tipo=RECIBIDA&limit=100", who).await.data(200).clone()
}

#[tokio::test]
async fn received_retentions_are_synchronized_listed_downloaded_by_uuid_and_walled_off() {
    let (del_mes, por_uuid) = retenciones();
    let facturas = recibidas(1);
    let sat = sat(|c| {
        c.documentos = facturas.clone();
        c.retenciones = del_mes.iter().cloned().chain([por_uuid.clone()]).collect();
    })
    .await;
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(configurar(&sat, &clock), |app: TestApp| {
        let (sat, del_mes, por_uuid, facturas) = (&sat, del_mes.clone(), por_uuid.clone(), facturas.clone());
        async move {
            sat.sim.reiniciar();
            let (_, who) = empresa(&app, "retenciones-recibidas@example.com").await;
            let (year, month, _) = mes_pasado();
            let body = json!({ "year": year, "month": month, "tipo": "retenciones" });
            for bad in [
                json!({ "year": year, "month": month, "tipo": "facturas" }),
                json!({ "year": year, "month": month, "tipo": 1 }),
            ] {
                let refused = app.post("/api/cfdi/sync-recibidos", &who, bad).await;
                refused.assert_error(400, "SYNC_001");
                assert!(refused.body["error"]["message"].as_str().unwrap().contains("tipo"), "{}", refused.body);
            }
            app.get("/api/retenciones?tipo=OTRA", &who).await.assert_error(400, "REQUEST_001");

            let started = app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await.data(200).clone();
            assert_eq!(started["status"], json!("started"));
            let status = sync_terminada(&app, &who).await;
            assert_eq!(status["syncStatus"], json!("IDLE"), "{status:#}");
            assert_eq!(status["tipo"], json!("retenciones"));
            assert_eq!(status["progress"]["cfdiNuevos"], json!(2), "{status:#}");
            assert_eq!(status["progress"]["cfdiIlegibles"], json!(0), "{status:#}");
            // Only the retention service was asked (the invoice of the month stays at SAT).
            assert_eq!(sat.sim.solicitudes_retenciones(), 1);
            assert_eq!(sat.sim.solicitudes_aceptadas(), 1);

            let lista = recibidas_listadas(&app, &who).await;
            assert_eq!(lista["total"], json!(2), "{lista:#}");
            let filas = lista["retenciones"].as_array().unwrap();
            let uuids: HashSet<&str> = filas.iter().map(|r| r["uuid"].as_str().unwrap()).collect();
            assert_eq!(uuids, del_mes.iter().map(|d| d.uuid.as_str()).collect());
            let por_cve = |cve: &str| filas.iter().find(|r| r["cveRetenc"] == json!(cve)).unwrap().clone();
            let plataforma = por_cve("26");
            let dividendos = por_cve("14");
            for (fila, operacion, retenido) in
                [(&plataforma, "1500.00", "151.50"), (&dividendos, "10000.00", "1000.00")]
            {
                assert_eq!((&fila["montoTotOperacion"], &fila["montoTotRet"]), (&json!(operacion), &json!(retenido)));
                assert_eq!((&fila["tipo"], &fila["status"]), (&json!("RECIBIDA"), &json!("TIMBRADO")));
                assert_eq!((&fila["emisorRfc"], &fila["receptorRfc"]), (&json!("XIA190128J61"), &json!(RFC)));
                assert_eq!(fila["nacionalidad"], json!("Nacional"));
                let mes = format!("{month:02}");
                assert_eq!(fila["periodo"], json!({ "mesIni": mes, "mesFin": mes, "ejercicio": year.to_string() }));
            }
            // Filters work on received ones too.
            let filtrada = app.get("/api/retenciones?tipo=RECIBIDA&emisor=XIA19", &who).await.data(200).clone();
            assert_eq!(filtrada["total"], json!(2));
            let ninguna = app.get("/api/retenciones?tipo=RECIBIDA&emisor=AAA010101AAA", &who).await.data(200).clone();
            assert_eq!(ninguna["total"], json!(0));
            // Issued retentions (the default) and received invoices do not show them.
            assert_eq!(app.get("/api/retenciones", &who).await.data(200)["total"], json!(0));
            let facturas_recibidas = app.get("/api/cfdi?tipo=RECIBIDA&limit=100", &who).await.data(200).clone();
            assert_eq!(facturas_recibidas["total"], json!(0), "{facturas_recibidas:#}");

            // The detail under the body's names, the complement's data and SAT's XML byte for byte.
            let id = plataforma["id"].as_str().unwrap();
            let detalle = app.get(&format!("/api/retenciones/{id}"), &who).await.data(200).clone();
            let complemento = &detalle["complementos"]["plataformasTecnologicas"];
            assert_eq!(
                (&complemento["totalISRRetenido"], &complemento["totalIVARetenido"], &complemento["numServ"]),
                (&json!("31.50"), &json!("120.00"), &json!(2)),
                "{detalle:#}"
            );
            assert_eq!(detalle["emisor"]["rfcE"], json!("XIA190128J61"));
            let (estado, xml) = raw(&app, &format!("/api/retenciones/{id}/xml"), Some(&who)).await;
            assert_eq!(estado, 200);
            assert_eq!(xml, del_mes.iter().find(|d| d.uuid == plataforma["uuid"].as_str().unwrap()).unwrap().xml);
            let id_div = dividendos["id"].as_str().unwrap();
            let detalle = app.get(&format!("/api/retenciones/{id_div}"), &who).await.data(200).clone();
            assert_eq!(
                detalle["otrosComplementos"],
                json!(["http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos"])
            );
            // Both seals verified on arrival (Dividendos' cadena included), SAT's XML stored.
            let mut conn = app.db.conn().await.unwrap();
            let checks: Vec<(String, String, String)> = timbra_store::sql!(fetch_all conn, (String, String, String),
                "SELECT verificacion_sello, verificacion_timbre, tipo_comprobante FROM cfdis WHERE tipo = 'RECIBIDA'")
            .unwrap();
            drop(conn);
            assert_eq!(checks, vec![("VERIFICADO".to_owned(), "VERIFICADO".to_owned(), "RET".to_owned()); 2]);

            // Again: asked, nothing stored twice.
            app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await.data(200);
            let again = sync_terminada(&app, &who).await;
            assert_eq!(again["syncStatus"], json!("IDLE"), "{again:#}");
            assert_eq!((&again["progress"]["cfdiHechos"], &again["progress"]["cfdiNuevos"]), (&json!(2), &json!(0)));
            assert_eq!(recibidas_listadas(&app, &who).await["total"], json!(2));

            // By UUID: SAT's CFDI service has nothing for it (5004), the retention service has it.
            let descargada = pedir(&app, &who, json!({ "uuid": por_uuid.uuid.to_lowercase() })).await;
            let data = descargada.data(200).clone();
            assert_eq!(data["source"], json!("sat_portal"), "{data:#}");
            assert_eq!(data["cfdi"]["tipoComprobante"], json!("RET"), "{data:#}");
            let id_uuid = data["cfdi"]["id"].as_str().unwrap().to_owned();
            let detalle = app.get(&format!("/api/retenciones/{id_uuid}"), &who).await.data(200).clone();
            assert_eq!((&detalle["uuid"], &detalle["montoTotRet"]), (&json!(por_uuid.uuid), &json!("1000.00")));
            let otra_vez = pedir(&app, &who, json!({ "uuid": por_uuid.uuid })).await;
            assert_eq!(otra_vez.data(200)["source"], json!("cache"));
            assert_eq!(recibidas_listadas(&app, &who).await["total"], json!(3));
            // A UUID neither service has: SAT's 5004, as for an invoice (both services asked).
            let antes = sat.sim.solicitudes_retenciones();
            let nadie =
                pedir(&app, &who, json!({ "uuid": facturas[0].uuid.replace(|c: char| c.is_ascii_digit(), "0") })).await;
            nadie.assert_error(200, "SAT_5004");
            assert_eq!(sat.sim.solicitudes_retenciones(), antes + 1);

            // Another company (same RFC, another owner) sees none of them.
            let (_, otra) = empresa(&app, "otra-retenciones@example.com").await;
            assert_eq!(recibidas_listadas(&app, &otra).await["total"], json!(0));
            app.get(&format!("/api/retenciones/{id}"), &otra).await.assert_error(404, "NOT_FOUND");
            let (estado, _) = raw(&app, &format!("/api/retenciones/{id}/xml"), Some(&otra)).await;
            assert_eq!(estado, 404);
        }
    })
    .await;
}
