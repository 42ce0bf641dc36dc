//! A period's CFDI in one ZIP (issue 32): `POST /api/cfdi/zip` queues a durable job, `GET
//! /api/cfdi/zip/{jobId}` shows it and, once TERMINADO, a signed link; the ZIP is unpacked and
//! each XML and PDF compared with the invoice's own download, `resumen.csv` with the listing.
//! Issued invoices are stamped in the sandbox, received ones synchronized from the SAT
//! simulator; both backends.

use std::collections::BTreeMap;
use std::io::Read;

use serde_json::{Value, json};
use timbra_services::clock::Clock;

use crate::cfdi::{factura, timbrar};
use crate::harness::{As, TestApp, each_backend_with};
use crate::receiver::wait_for;

/// The bytes at `path` (a route or a signed link), with `who`'s credentials when given.
async fn bajar(app: &TestApp, path: &str, who: Option<&As>) -> (u16, Vec<u8>) {
    let mut request = app.client.get(format!("{}{path}", app.base));
    if let Some(who) = who {
        request =
            request.bearer_auth(who.key.as_deref().unwrap()).header("x-empresa-id", who.empresa.as_deref().unwrap());
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.bytes().await.unwrap().to_vec())
}

/// Waits for export `job` to end and gives its `data`.
async fn terminada(app: &TestApp, who: &As, job: &str) -> Value {
    let path = format!("/api/cfdi/zip/{job}");
    let mut last = Value::Null;
    wait_for(60, "the ZIP export", async || {
        last = app.get(&path, who).await.data(200).clone();
        last["status"] == "TERMINADO" || last["status"] == "FALLIDO"
    })
    .await;
    assert_eq!(last["status"], json!("TERMINADO"), "{last:#}");
    last
}

/// Every file of a ZIP by name.
fn abrir(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP");
    let mut archivos = BTreeMap::new();
    for i in 0..zip.len() {
        let mut archivo = zip.by_index(i).unwrap();
        let mut contenido = Vec::new();
        archivo.read_to_end(&mut contenido).unwrap();
        archivos.insert(archivo.name().unwrap().to_string(), contenido);
    }
    archivos
}

/// A file name as the export writes it: the UUID's letters, digits and `-`.
fn nombre(uuid: &str) -> String {
    uuid.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect()
}

#[tokio::test]
async fn a_period_in_one_zip_holds_every_xml_and_pdf_as_downloaded_and_its_summary() {
    let documentos = crate::recibidos::recibidas(3);
    let sat = crate::recibidos::sat(|c| c.documentos = documentos.clone()).await;
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(crate::recibidos::configurar(&sat, &clock), |app: TestApp| {
        let (sat, clock) = (&sat, &clock);
        async move {
            sat.sim.reiniciar();
            let (empresa, who) = crate::recibidos::empresa(&app, "zip@example.com").await;
            let cliente = app
                .post(
                    "/api/clientes",
                    &who,
                    json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN",
                    "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }),
                )
                .await
                .data(201)["id"]
                .as_str()
                .unwrap()
                .to_owned();
            for _ in 0..3 {
                timbrar(&app, &who, &factura(&cliente), None).await.data(201);
            }
            let (year, month, primero) = crate::recibidos::mes_pasado();
            app.post("/api/cfdi/sync-recibidos", &who, json!({ "year": year, "month": month })).await.data(200);
            let sync = crate::recibidos::sync_terminada(&app, &who).await;
            assert_eq!(sync["totalRecibidos"], json!(3), "{sync:#}");

            // What to fix, field by field.
            let desde = primero.date().to_string();
            let hoy = clock.now().to_offset(time::UtcOffset::from_hms(-6, 0, 0).unwrap()).date().to_string();
            for (body, campo) in [
                (json!({}), "desde"),
                (json!({ "desde": desde }), "hasta"),
                (json!({ "desde": "01/11/2026", "hasta": hoy }), "desde"),
                (json!({ "desde": hoy, "hasta": desde }), "hasta"),
                (json!({ "desde": desde, "hasta": hoy, "tipo": "AMBAS" }), "tipo"),
                (json!({ "desde": desde, "hasta": hoy, "tipoComprobante": "X" }), "tipoComprobante"),
                (json!({ "desde": desde, "hasta": hoy, "status": "VIGENTE" }), "status"),
                (json!({ "desde": desde, "hasta": hoy, "formato": "rar" }), "body"),
            ] {
                let refused = app.post("/api/cfdi/zip", &who, body.clone()).await;
                refused.assert_error(400, "ZIP_001");
                assert_eq!(refused.body["error"]["details"]["campo"], json!(campo), "{body}: {:#}", refused.body);
            }

            let pedido =
                app.post("/api/cfdi/zip", &who, json!({ "desde": desde, "hasta": hoy, "incluirPdf": true })).await;
            let job = pedido.data(202)["jobId"].as_str().unwrap().to_owned();
            let hecho = terminada(&app, &who, &job).await;
            assert_eq!((hecho["cfdis"].clone(), hecho["archivos"].clone()), (json!(6), json!(13)), "{hecho:#}");
            assert_eq!(hecho["downloadExpiresIn"], json!(3600));
            let url = hecho["downloadUrl"].as_str().unwrap().to_owned();
            assert!(url.starts_with("/api/descargas/"), "{url}");
            // The link is the permission: no credentials.
            let (status, bytes) = bajar(&app, &url, None).await;
            assert_eq!(status, 200);
            assert_eq!(hecho["bytes"], json!(bytes.len()));
            let archivos = abrir(&bytes);
            assert_eq!(archivos.len(), 13, "{:?}", archivos.keys().collect::<Vec<_>>());

            let listado = app.get("/api/cfdi?limit=100", &who).await.data(200)["cfdis"].as_array().unwrap().clone();
            assert_eq!(listado.len(), 6);
            for cfdi in &listado {
                let (id, uuid) = (cfdi["id"].as_str().unwrap(), cfdi["uuid"].as_str().unwrap());
                let carpeta = if cfdi["tipo"] == "RECIBIDA" { "RECIBIDOS" } else { "EMITIDOS" };
                let (_, xml) = bajar(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
                let en_zip = &archivos[&format!("{carpeta}/{}.xml", nombre(uuid))];
                assert!(en_zip == &xml, "{carpeta}/{uuid}.xml differs from the XML download");
                let (_, pdf) = bajar(&app, &format!("/api/cfdi/{id}/pdf"), Some(&who)).await;
                let en_zip = &archivos[&format!("{carpeta}/{}.pdf", nombre(uuid))];
                assert!(
                    en_zip.starts_with(b"%PDF") && en_zip == &pdf,
                    "{carpeta}/{uuid}.pdf differs from the PDF download"
                );
            }

            // resumen.csv: one row per CFDI, oldest first, as the listing shows them.
            let csv = String::from_utf8(archivos["resumen.csv"].clone()).unwrap();
            let mut lineas = csv.trim_start_matches('\u{feff}').lines();
            assert_eq!(
                lineas.next(),
                Some(
                    "uuid,tipo,tipoComprobante,fecha,serie,folio,emisor,receptor,subtotal,impuestos,total,moneda,status"
                )
            );
            let filas: Vec<Vec<&str>> = lineas.map(|linea| linea.split(',').collect()).collect();
            assert_eq!(filas.len(), 6);
            assert_eq!(filas.iter().filter(|fila| fila[1] == "RECIBIDA").count(), 3);
            assert!(filas.windows(2).all(|par| par[0][3] <= par[1][3]), "oldest first");
            for fila in &filas {
                let cfdi = listado.iter().find(|cfdi| cfdi["uuid"] == fila[0]).unwrap_or_else(|| panic!("{fila:?}"));
                assert_eq!(fila[2], cfdi["tipoComprobante"].as_str().unwrap());
                assert_eq!(fila[3], cfdi["fecha"].as_str().unwrap());
                assert_eq!(fila[6], cfdi["emisorRfc"].as_str().unwrap());
                assert_eq!(fila[7], cfdi["receptorRfc"].as_str().unwrap());
                let total: rust_decimal::Decimal = fila[10].parse().unwrap();
                assert_eq!(total, cfdi["total"].as_str().unwrap().parse().unwrap(), "{fila:?}");
                let subtotal: rust_decimal::Decimal = fila[8].parse().unwrap();
                let impuestos: rust_decimal::Decimal = fila[9].parse().unwrap();
                assert!(impuestos >= rust_decimal::Decimal::ZERO && subtotal > impuestos, "{fila:?}");
                assert_eq!((fila[11], fila[12]), (cfdi["moneda"].as_str().unwrap(), cfdi["status"].as_str().unwrap()));
            }
            let emitida = filas.iter().find(|fila| fila[1] == "EMITIDA").unwrap();
            assert_eq!((emitida[8], emitida[9], emitida[10]), ("3001.00", "480.16", "3481.16"), "{emitida:?}");

            // Only what was asked: the issued invoices, without PDF.
            let pedido =
                app.post("/api/cfdi/zip", &who, json!({ "desde": desde, "hasta": hoy, "tipo": "EMITIDA" })).await;
            let emitidas = terminada(&app, &who, pedido.data(202)["jobId"].as_str().unwrap()).await;
            assert_eq!((emitidas["cfdis"].clone(), emitidas["archivos"].clone()), (json!(3), json!(4)));
            let (_, bytes) = bajar(&app, emitidas["downloadUrl"].as_str().unwrap(), None).await;
            assert!(
                abrir(&bytes).keys().all(
                    |nombre| nombre.starts_with("EMITIDOS/") && nombre.ends_with(".xml") || nombre == "resumen.csv"
                )
            );

            // Another company's export is not there; the stored file is this company's.
            let (_, otra) = app.user("otra-zip@example.com").await;
            let otra_empresa = app.empresa(&otra, crate::cfdi::EMISOR).await;
            let ajena = As::key(&otra).in_empresa(&otra_empresa);
            app.get(&format!("/api/cfdi/zip/{job}"), &ajena).await.assert_error(404, "NOT_FOUND");
            app.get("/api/cfdi/zip/no-such-job", &who).await.assert_error(404, "NOT_FOUND");
            let guardado = app.data_dir().join("files").join(format!("zip/{empresa}/{job}.zip"));
            assert!(guardado.is_file(), "{guardado:?}");
            assert!(
                std::fs::read_dir(app.data_dir().join("tmp")).map(|dir| dir.count()).unwrap_or(0) == 0,
                "no temporary file left"
            );
        }
    })
    .await;
}
