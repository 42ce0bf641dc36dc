//! Sales tickets and the global invoice over HTTP (issue 31): a ticket's taxes backed out of
//! the prices paid to the centavo, its self-invoicing code and link; every bad ticket body a
//! RECIBO_001; the listing's filters and another company's tickets out of sight; the global
//! invoice to "PUBLICO EN GENERAL" checked with SAT's tools (xmllint, the cadena of SAT's XSLT,
//! openssl for both seals), its tickets GLOBAL in the stamp's transaction and ABIERTO again
//! when it is cancelled; two global invoices of one range at once give one stamp.

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::cfdi::{cancelar, event_types, raw, sandbox_pac_cer, sat_oracle, setup};
use crate::harness::{As, TempDir, TestApp, each_backend, each_backend_with};

/// The month and year of the Zona Centro now (the tickets' dates and the global's period).
fn mes_actual() -> (String, i32) {
    let ahora = OffsetDateTime::now_utc().to_offset(time::UtcOffset::from_hms(-6, 0, 0).unwrap());
    (format!("{:02}", u8::from(ahora.month())), ahora.year())
}

fn linea(descripcion: &str, cantidad: Value, precio: Value) -> Value {
    json!({ "claveProdServ": "50202306", "claveUnidad": "H87", "descripcion": descripcion,
            "cantidad": cantidad, "precioUnitario": precio })
}

async fn recibo(app: &TestApp, who: &As, body: Value) -> crate::harness::Answer {
    app.post("/api/recibos", who, body).await
}

#[tokio::test]
async fn tickets_back_taxes_out_to_the_centavo_and_refuse_bad_bodies() {
    each_backend_with(
        |config| config.public_url = Some("https://facturas.example.com".into()),
        |app: TestApp| async move {
            let (who, _) = setup(&app, "recibos@example.com").await;
            let empresa = who.empresa.clone().unwrap();
            // Two sodas at 23.20 with 16% IVA inside, a sandwich at 57.99: the customer paid 104.39.
            let body = json!({ "formaPago": "01", "sucursal": "Centro", "email": "cliente@example.com",
                "conceptos": [ linea("Refresco 600 ml", json!(2), json!("23.20")), linea("Torta", json!(1), json!(57.99)) ] });
            let creado = recibo(&app, &who, body.clone()).await;
            let r = creado.data(201).clone();
            assert_eq!(r["total"], json!("104.39"), "{r}");
            assert_eq!(r["subtotal"], json!("89.99"), "{r}");
            assert_eq!(r["status"], json!("ABIERTO"));
            assert_eq!(r["folio"], json!("1"));
            assert_eq!(r["conceptos"][0]["precioUnitario"], json!("20"), "{r}");
            let clave = r["claveAutofactura"].as_str().unwrap().to_owned();
            assert_eq!(clave.len(), 10);
            assert!(clave.chars().all(|c| c.is_ascii_alphanumeric() && !"01OIL".contains(c)), "{clave}");
            // No page yet: no link.
            assert_eq!(r["urlAutofactura"], Value::Null);
            // By default a ticket may be invoiced until the end of its month (SAT's global invoice
            // takes what is left of the month): the first instant of the next month, in the
            // sale's own offset.
            let rfc3339 = &time::format_description::well_known::Rfc3339;
            let vendido = OffsetDateTime::parse(r["fecha"].as_str().unwrap(), rfc3339).unwrap();
            let vence = OffsetDateTime::parse(r["autofacturaVence"].as_str().unwrap(), rfc3339).unwrap();
            let (ano, mes) = match vendido.month() {
                time::Month::December => (vendido.year() + 1, time::Month::January),
                otro => (vendido.year(), otro.next()),
            };
            let primero = time::Date::from_calendar_date(ano, mes, 1).unwrap().midnight().assume_offset(vendido.offset());
            assert_eq!(vence, primero, "{r}");

            // Prices without taxes: the service adds them, as on an invoice.
            let neto = recibo(
                &app,
                &who,
                json!({ "formaPago": "04", "preciosConImpuestos": false, "conceptos": [ linea("Café", json!(3), json!("33.33")) ] }),
            )
            .await
            .data(201)
            .clone();
            assert_eq!((neto["subtotal"].as_str(), neto["total"].as_str()), (Some("99.99"), Some("115.99")), "{neto}");
            assert_eq!(neto["folio"], json!("2"));
            assert_ne!(neto["claveAutofactura"], json!(clave));

            // The company's page: every ticket gets its link, with TIMBRA_PUBLIC_URL.
            let patch = app
                .call(
                    reqwest::Method::PATCH,
                    &format!("/api/empresas/{empresa}"),
                    &who,
                    Some(json!({ "autofactura": { "slug": "la-tiendita", "diasVigencia": 3 } })),
                )
                .await;
            assert_eq!(patch.data(200)["autofactura"]["slug"], json!("la-tiendita"), "{}", patch.body);
            let id = r["id"].as_str().unwrap();
            let detalle = app.get(&format!("/api/recibos/{id}"), &who).await.data(200).clone();
            assert_eq!(
                detalle["urlAutofactura"],
                json!(format!("https://facturas.example.com/autofactura/la-tiendita?clave={clave}"))
            );
            // diasVigencia: three days from the sale.
            let con_dias = recibo(&app, &who, body.clone()).await.data(201).clone();
            let fecha = OffsetDateTime::parse(con_dias["fecha"].as_str().unwrap(), &time::format_description::well_known::Rfc3339).unwrap();
            let vence = OffsetDateTime::parse(con_dias["autofacturaVence"].as_str().unwrap(), &time::format_description::well_known::Rfc3339).unwrap();
            assert_eq!(vence - fecha, time::Duration::days(3));
            assert!(con_dias["urlAutofactura"].as_str().unwrap().starts_with("https://facturas.example.com/autofactura/la-tiendita?clave="));

            // Bad bodies, each a RECIBO_001 naming the field; nothing written.
            let malos = [
                (json!({ "formaPago": "01", "conceptos": [] }), "conceptos"),
                (json!({ "formaPago": "01" }), "conceptos"),
                (json!({ "formaPago": "01", "conceptos": [ linea("X", json!(1), json!("-5")) ] }), "conceptos[0].precioUnitario"),
                (json!({ "formaPago": "01", "conceptos": [ linea("X", json!(1), json!(0)) ] }), "conceptos[0].precioUnitario"),
                (json!({ "formaPago": "01", "conceptos": [ linea("X", json!(0), json!(10)) ] }), "conceptos[0].cantidad"),
                (json!({ "formaPago": "01", "conceptos": [ linea("X", json!(-2), json!(10)) ] }), "conceptos[0].cantidad"),
                (json!({ "formaPago": "01", "moneda": "USD", "conceptos": [ linea("X", json!(1), json!(10)) ] }), "tipoCambio"),
                (json!({ "conceptos": [ linea("X", json!(1), json!(10)) ] }), "formaPago"),
                (json!({ "formaPago": "01", "folio": "1", "conceptos": [ linea("X", json!(1), json!(10)) ] }), "folio"),
                (json!({ "formaPago": "01", "conceptos": [ { "claveProdServ": "99999999", "claveUnidad": "H87", "descripcion": "X", "cantidad": 1, "precioUnitario": 10 } ] }), "ClaveProdServ"),
            ];
            for (malo, campo) in malos {
                let answer = recibo(&app, &who, malo.clone()).await;
                answer.assert_error(400, "RECIBO_001");
                let texto = answer.body.to_string().to_lowercase();
                assert!(texto.contains(&campo.to_lowercase()), "{campo} not named for {malo}: {}", answer.body);
            }
            // A ticket in dollars with its exchange rate.
            let usd = recibo(
                &app,
                &who,
                json!({ "formaPago": "04", "moneda": "USD", "tipoCambio": "17.50", "conceptos": [ linea("Souvenir", json!(1), json!("11.60")) ] }),
            )
            .await
            .data(201)
            .clone();
            assert_eq!((usd["moneda"].as_str(), usd["total"].as_str(), usd["tipoCambio"].as_str()), (Some("USD"), Some("11.60"), Some("17.50")));

            // The listing: filters and search; nothing of the bad bodies.
            let lista = app.get("/api/recibos", &who).await.data(200).clone();
            assert_eq!(lista["total"], json!(4), "{lista}");
            assert_eq!(app.get("/api/recibos?search=centro", &who).await.data(200)["total"], json!(2));
            assert_eq!(app.get(&format!("/api/recibos?search={clave}"), &who).await.data(200)["total"], json!(1));
            assert_eq!(app.get("/api/recibos?status=ABIERTO&pageSize=2", &who).await.data(200)["items"].as_array().unwrap().len(), 2);
            assert_eq!(app.get("/api/recibos?hasta=2020-01-01", &who).await.data(200)["total"], json!(0));
            app.get("/api/recibos?status=OTRO", &who).await.assert_error(400, "REQUEST_001");
            app.get("/api/recibos?desde=ayer", &who).await.assert_error(400, "REQUEST_001");

            // Cancel: only ABIERTO.
            let cancelado = app.post(&format!("/api/recibos/{id}/cancelar"), &who, json!({})).await.data(200).clone();
            assert_eq!(cancelado["status"], json!("CANCELADO"));
            app.post(&format!("/api/recibos/{id}/cancelar"), &who, json!({})).await.assert_error(409, "RECIBO_003");
            assert_eq!(app.get("/api/recibos?status=CANCELADO", &who).await.data(200)["total"], json!(1));

            // Another company sees none of it and cannot cancel it.
            let (otro, _) = setup(&app, "recibos-otra@example.com").await;
            app.get(&format!("/api/recibos/{id}"), &otro).await.assert_error(404, "NOT_FOUND");
            app.post(&format!("/api/recibos/{}/cancelar", neto["id"].as_str().unwrap()), &otro, json!({}))
                .await
                .assert_error(404, "NOT_FOUND");
            assert_eq!(app.get("/api/recibos", &otro).await.data(200)["total"], json!(0));
            // Its slug cannot be taken by another company.
            let otra_empresa = otro.empresa.clone().unwrap();
            app.call(
                reqwest::Method::PATCH,
                &format!("/api/empresas/{otra_empresa}"),
                &otro,
                Some(json!({ "autofactura": { "slug": "la-tiendita" } })),
            )
            .await
            .assert_error(400, "EMPRESA_001");
        },
    )
    .await;
}

#[tokio::test]
async fn the_global_invoice_takes_the_open_tickets_passes_sat_tools_and_gives_them_back_on_cancel() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "global@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        let (meses, ano) = mes_actual();
        let cuerpos = [
            json!({ "formaPago": "01", "conceptos": [ linea("Refresco", json!(2), json!("23.20")), linea("Torta", json!(1), json!("57.99")) ] }),
            json!({ "formaPago": "04", "conceptos": [ { "claveProdServ": "50202306", "claveUnidad": "H87", "descripcion": "Pan", "cantidad": 1, "precioUnitario": "30.00", "descuento": "5.00" },
                                                      { "claveProdServ": "50131700", "claveUnidad": "H87", "descripcion": "Leche", "cantidad": 1, "precioUnitario": "26.50", "impuestos": { "traslados": [ { "impuesto": "IVA", "tasaOCuota": "0" } ] } } ] }),
            json!({ "formaPago": "04", "moneda": "USD", "tipoCambio": "17.50", "conceptos": [ linea("Souvenir", json!(1), json!("11.60")) ] }),
            json!({ "formaPago": "01", "conceptos": [ linea("Cancelado", json!(1), json!("10")) ] }),
        ];
        let mut recibos = Vec::new();
        for cuerpo in cuerpos {
            recibos.push(recibo(&app, &who, cuerpo).await.data(201).clone());
        }
        let cancelado = recibos[3]["id"].as_str().unwrap();
        app.post(&format!("/api/recibos/{cancelado}/cancelar"), &who, json!({})).await.data(200);

        // Bad bodies.
        for (malo, campo) in [
            (json!({ "periodicidad": "06", "meses": meses, "año": ano }), "periodicidad"),
            (json!({ "periodicidad": "04", "meses": "13", "año": ano }), "meses"),
            (json!({ "periodicidad": "05", "meses": meses, "año": ano }), "meses"),
            (json!({ "periodicidad": "04", "meses": meses }), "año"),
            (json!({ "periodicidad": "04", "meses": meses, "año": ano, "desde": "2020-01-01" }), "desde"),
        ] {
            let answer = app.post("/api/cfdi/global", &who, malo.clone()).await;
            answer.assert_error(400, "RECIBO_001");
            assert!(answer.body.to_string().contains(campo), "{campo}: {}", answer.body);
        }
        // A month without tickets: RECIBO_002.
        app.post("/api/cfdi/global", &who, json!({ "periodicidad": "04", "meses": "01", "año": 2023 }))
            .await
            .assert_error(400, "RECIBO_002");

        // `ano` is accepted too.
        let global = app.post("/api/cfdi/global", &who, json!({ "periodicidad": "04", "meses": meses, "ano": ano.to_string() })).await;
        let g = global.data(201).clone();
        assert_eq!(g["recibos"], json!(3), "{g}");
        assert!(g["uuid"].as_str().unwrap().starts_with("SANDBOX-"));
        let cfdi_id = g["cfdiId"].as_str().unwrap().to_owned();
        // 104.39 + (25.00 + 26.50) + 11.60 × 17.50 = 358.89
        assert_eq!(g["total"], json!("358.89"), "{g}");
        for r in &recibos[..3] {
            let d = app.get(&format!("/api/recibos/{}", r["id"].as_str().unwrap()), &who).await.data(200).clone();
            assert_eq!((d["status"].as_str(), d["cfdiId"].as_str()), (Some("GLOBAL"), Some(cfdi_id.as_str())));
        }
        let c = app.get(&format!("/api/recibos/{cancelado}"), &who).await.data(200).clone();
        assert_eq!(c["status"], json!("CANCELADO"));
        // Nothing left: the same request again includes nothing.
        app.post("/api/cfdi/global", &who, json!({ "periodicidad": "04", "meses": meses, "año": ano }))
            .await
            .assert_error(400, "RECIBO_002");

        // The XML as SAT's filling guide asks, checked with SAT's tools.
        let (status, xml) = raw(&app, &format!("/api/cfdi/{cfdi_id}/xml"), Some(&who)).await;
        assert_eq!(status, 200, "{xml}");
        for esperado in [
            format!("<cfdi:InformacionGlobal Periodicidad=\"04\" Meses=\"{meses}\" Año=\"{ano}\"/>"),
            "Rfc=\"XAXX010101000\" Nombre=\"PUBLICO EN GENERAL\" DomicilioFiscalReceptor=\"42501\" RegimenFiscalReceptor=\"616\" UsoCFDI=\"S01\"".into(),
            "LugarExpedicion=\"42501\"".into(),
            format!("ClaveProdServ=\"01010101\" NoIdentificacion=\"{}\" Cantidad=\"1\" ClaveUnidad=\"ACT\" Descripcion=\"Venta\"", recibos[0]["folio"].as_str().unwrap()),
            "ValorUnitario=\"89.99\"".into(),
            "Descuento=\"4.31\"".into(),
            "ValorUnitario=\"175.00\"".into(),
            "TipoFactor=\"Tasa\" TasaOCuota=\"0.000000\"".into(),
            "Total=\"358.89\"".into(),
        ] {
            assert!(xml.contains(&esperado), "{esperado} missing:\n{xml}");
        }
        assert_eq!(xml.matches("<cfdi:Concepto ").count(), 3);
        let dir = TempDir::new();
        let path = dir.0.join("global.xml");
        std::fs::write(&path, &xml).unwrap();
        sat_oracle(&[(path, xml.clone())], &sandbox_pac_cer(&app).await, &dir.0);

        // factura.timbrada with global: true.
        assert!(event_types(&app, &empresa).await.contains(&"factura.timbrada".to_owned()));
        let mut conn = app.db.conn().await.unwrap();
        let datos: Vec<(String,)> = timbra_store::sql!(fetch_all conn, (String,),
            "SELECT data FROM events WHERE empresa_id = $1 AND type = 'factura.timbrada'", &empresa)
        .unwrap();
        drop(conn);
        let data: Value = serde_json::from_str(&datos[0].0).unwrap();
        assert_eq!((data["global"].clone(), data["cfdiId"].clone()), (json!(true), json!(cfdi_id)), "{data}");

        // Cancelling the global invoice gives its tickets back; another global takes them.
        let cancelada = cancelar(&app, &who, &cfdi_id, json!({ "motivo": "02" }), None).await;
        assert_eq!(cancelada.data(200)["status"], json!("CANCELADO"));
        let abiertos = app.get("/api/recibos?status=ABIERTO", &who).await.data(200).clone();
        assert_eq!(abiertos["total"], json!(3), "{abiertos}");
        assert!(abiertos["items"].as_array().unwrap().iter().all(|r| r["cfdiId"].is_null()));
        let otra = app.post("/api/cfdi/global", &who, json!({ "periodicidad": "04", "meses": meses, "año": ano })).await;
        assert_eq!(otra.data(201)["recibos"], json!(3));

        // Another company's global invoice includes nothing of these.
        let (otro, _) = setup(&app, "global-otra@example.com").await;
        app.post("/api/cfdi/global", &otro, json!({ "periodicidad": "04", "meses": meses, "año": ano }))
            .await
            .assert_error(400, "RECIBO_002");
    })
    .await;
}

#[tokio::test]
async fn two_global_invoices_of_one_range_at_once_give_one_stamp() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "global-doble@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        let (meses, ano) = mes_actual();
        for i in 0..5 {
            recibo(&app, &who, json!({ "formaPago": "01", "conceptos": [ linea("Venta", json!(1), json!(100 + i)) ] }))
                .await
                .data(201);
        }
        let body = json!({ "periodicidad": "01", "meses": meses, "año": ano });
        let (a, b) = tokio::join!(app.post("/api/cfdi/global", &who, body.clone()), app.post("/api/cfdi/global", &who, body));
        let mut estados = [a.status.as_u16(), b.status.as_u16()];
        estados.sort();
        assert_eq!(estados[0], 201, "{} {}", a.body, b.body);
        let perdedor = if a.status == 201 { &b } else { &a };
        assert!(
            ["RECIBO_002", "RECIBO_003"].contains(&perdedor.code()),
            "the second request: {}",
            perdedor.body
        );
        let mut conn = app.db.conn().await.unwrap();
        let cfdis = timbra_store::sql!(scalar_one conn, i64, "SELECT COUNT(*) FROM cfdis WHERE empresa_id = $1", &empresa).unwrap();
        assert_eq!(cfdis, 1);
        let global = timbra_store::sql!(scalar_one conn, i64, "SELECT COUNT(*) FROM recibos WHERE empresa_id = $1 AND status = 'GLOBAL'", &empresa).unwrap();
        assert_eq!(global, 5);
    })
    .await;
}

#[tokio::test]
async fn tickets_sent_at_once_take_folios_1_to_n_and_a_taken_folio_fails_only_its_ticket() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "recibos-juntos@example.com").await;
        let (otro, _) = setup(&app, "recibos-juntos-otra@example.com").await;
        // 60 tickets of two companies at once (the writer commits what is waiting together),
        // with two asking for the same folio of their own.
        let app = std::sync::Arc::new(app);
        let mut pedidos = Vec::new();
        for i in 0..60 {
            let quien = if i % 3 == 0 { otro.clone() } else { who.clone() };
            let mut body = json!({ "formaPago": "01", "conceptos": [ linea("Venta", json!(1), json!(10 + i)) ] });
            if i == 10 || i == 11 {
                body["folio"] = json!("CAJA1-77");
            }
            let app = app.clone();
            pedidos.push(tokio::spawn(async move { recibo(&app, &quien, body).await }));
        }
        let mut respuestas = Vec::new();
        for pedido in pedidos {
            respuestas.push(pedido.await.unwrap());
        }
        let mut folios = std::collections::BTreeMap::<String, Vec<i64>>::new();
        let mut claves = std::collections::HashSet::new();
        let mut repetido = 0;
        for (i, r) in respuestas.iter().enumerate() {
            if r.status == 400 {
                r.assert_error(400, "RECIBO_001");
                assert!(r.body.to_string().contains("CAJA1-77"), "{}", r.body);
                repetido += 1;
                continue;
            }
            let d = r.data(201);
            assert!(claves.insert(d["claveAutofactura"].as_str().unwrap().to_owned()), "a code twice");
            let folio = d["folio"].as_str().unwrap();
            if i == 10 || i == 11 {
                assert_eq!(folio, "CAJA1-77");
            } else {
                let empresa = if i % 3 == 0 { "otra" } else { "una" };
                folios.entry(empresa.into()).or_default().push(folio.parse().unwrap());
            }
        }
        assert_eq!(repetido, 1, "one of the two tickets with folio CAJA1-77 is refused");
        // Each company's counter: 1..N, none repeated, none skipped.
        for (empresa, mut lista) in folios {
            lista.sort();
            let n = lista.len() as i64;
            assert_eq!(lista, (1..=n).collect::<Vec<_>>(), "{empresa}");
        }
        let siguiente =
            recibo(&app, &otro, json!({ "formaPago": "01", "conceptos": [ linea("Venta", json!(1), json!(5)) ] }))
                .await
                .data(201)["folio"]
                .clone();
        assert_eq!(siguiente, json!("21"), "company two had 20 tickets: the next is 21");
    })
    .await;
}

/// A browser of the public page: its cookie and the form's token.
struct Navegador {
    cookie: String,
    token: String,
}

async fn abrir(app: &TestApp, ruta: &str) -> (u16, String, Option<Navegador>) {
    let response = app.client.get(format!("{}{ruta}", app.base)).send().await.unwrap();
    let status = response.status().as_u16();
    let cookie =
        response.headers().get("set-cookie").map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned());
    let html = response.text().await.unwrap();
    let token = html.split("name=\"_csrf\" value=\"").nth(1).map(|t| t.split('"').next().unwrap().to_owned());
    let navegador = match (cookie, token) {
        (Some(cookie), Some(token)) => Some(Navegador { cookie, token }),
        _ => None,
    };
    (status, html, navegador)
}

async fn enviar(app: &TestApp, slug: &str, nav: Option<&Navegador>, campos: &[(&str, &str)]) -> (u16, String) {
    let mut form: Vec<(&str, &str)> = campos.to_vec();
    let mut request = app.client.post(format!("{}/autofactura/{slug}", app.base));
    if let Some(nav) = nav {
        form.push(("_csrf", &nav.token));
        request = request.header("cookie", &nav.cookie);
    }
    let cuerpo: Vec<String> = form.iter().map(|(k, v)| format!("{}={}", codificar(k), codificar(v))).collect();
    let response = request
        .header("content-type", "application/x-www-form-urlencoded")
        .body(cuerpo.join("&"))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// application/x-www-form-urlencoded of one value.
fn codificar(texto: &str) -> String {
    texto
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            b' ' => "+".to_owned(),
            otro => format!("%{otro:02X}"),
        })
        .collect()
}

fn cliente(clave: &str) -> Vec<(&str, &str)> {
    vec![
        ("clave", clave),
        ("rfc", "XIQB891116QE4"),
        ("razonSocial", "Ximena Quiroz Barragan"),
        ("regimenFiscal", "626"),
        ("codigoPostal", "42501"),
        ("usoCfdi", "G03"),
        ("email", "ximena@example.com"),
    ]
}

async fn con_pagina(app: &TestApp, email: &str, slug: &str) -> As {
    let (who, _) = setup(app, email).await;
    let empresa = who.empresa.clone().unwrap();
    app.call(
        reqwest::Method::PATCH,
        &format!("/api/empresas/{empresa}"),
        &who,
        Some(json!({ "autofactura": { "slug": slug } })),
    )
    .await
    .data(200);
    who
}

#[tokio::test]
async fn customers_invoice_their_ticket_on_the_public_page_once_and_strangers_learn_nothing() {
    each_backend_with(
        |config| config.autofactura_limit_per_hour = 6,
        |app: TestApp| async move {
            let who = con_pagina(&app, "pagina@example.com", "tienda-uno").await;
            let empresa = who.empresa.clone().unwrap();
            let venta = json!({ "formaPago": "28", "conceptos": [ linea("Refresco", json!(2), json!("23.20")), linea("Torta", json!(1), json!("57.99")) ] });
            let r = recibo(&app, &who, venta.clone()).await.data(201).clone();
            let clave = r["claveAutofactura"].as_str().unwrap().to_owned();
            let url = r["urlAutofactura"].as_str().unwrap().to_owned();
            assert!(url.starts_with(&app.base) && url.ends_with(&format!("/autofactura/tienda-uno?clave={clave}")), "{url}");

            // The page with the code: the ticket's lines and total, a form with its token.
            let (status, html, nav) = abrir(&app, &format!("/autofactura/tienda-uno?clave={clave}")).await;
            assert_eq!(status, 200, "{html}");
            assert!(html.contains("ESCUELA KEMPER URGATE") || html.contains("KEMPER"), "company name missing: {html}");
            assert!(html.contains("104.39") && html.contains("Torta") && html.contains("name=\"viewport\""), "{html}");
            let nav = nav.expect("cookie and token");
            // Only the usos régimen 605 may receive.
            let (_, usos, _) = abrir(&app, "/autofactura/tienda-uno/usos?regimenFiscal=605").await;
            assert!(usos.contains("S01") && usos.contains("D01") && !usos.contains("G01"), "{usos}");

            // Without the token: refused, nothing stamped.
            let (status, _) = enviar(&app, "tienda-uno", None, &cliente(&clave)).await;
            assert_eq!(status, 403);
            // Bad fiscal data, in Spanish, nothing stamped.
            let mut malo = cliente(&clave);
            malo[1] = ("rfc", "XIQB891116QE");
            let (status, html) = enviar(&app, "tienda-uno", Some(&nav), &malo).await;
            assert_eq!(status, 400, "{html}");
            assert!(html.contains("Revise sus datos fiscales") && html.contains("RFC"), "{html}");
            let mut uso_malo = cliente(&clave);
            uso_malo[5] = ("usoCfdi", "D01");
            uso_malo[3] = ("regimenFiscal", "601");
            let (status, html) = enviar(&app, "tienda-uno", Some(&nav), &uso_malo).await;
            assert_eq!(status, 400, "{html}");
            // A SAT catalog rule (DomicilioFiscalReceptor must be in c_CodigoPostal, CFDI40147),
            // checked with the shipped catalogs as the customer's data are read: refused in
            // Spanish naming the field, nothing stamped.
            let mut cp_malo = cliente(&clave);
            cp_malo[4] = ("codigoPostal", "00001");
            let (status, html) = enviar(&app, "tienda-uno", Some(&nav), &cp_malo).await;
            assert_eq!(status, 400, "{html}");
            assert!(html.contains("Revise: código postal"), "{html}");
            assert!(!html.contains("Su factura quedó emitida"), "{html}");
            assert_eq!(app.get(&format!("/api/recibos/{}", r["id"].as_str().unwrap()), &who).await.data(200)["status"], json!("ABIERTO"));

            // The invoice, once: two submissions at once give one.
            let datos = cliente(&clave);
            let (a, b) = tokio::join!(
                enviar(&app, "tienda-uno", Some(&nav), &datos),
                enviar(&app, "tienda-uno", Some(&nav), &datos)
            );
            let mut estados = [a.0, b.0];
            estados.sort();
            assert_eq!(estados, [201, 409], "{} / {}", a.1, b.1);
            let (ganador, perdedor) = if a.0 == 201 { (&a.1, &b.1) } else { (&b.1, &a.1) };
            assert!(ganador.contains("Su factura quedó emitida") && ganador.contains("/api/descargas/"), "{ganador}");
            assert!(perdedor.contains("ya fue facturado") && !perdedor.contains("SANDBOX-"), "{perdedor}");
            let detalle = app.get(&format!("/api/recibos/{}", r["id"].as_str().unwrap()), &who).await.data(200).clone();
            assert_eq!(detalle["status"], json!("FACTURADO"));
            let cfdi_id = detalle["cfdiId"].as_str().unwrap().to_owned();
            let factura = app.get(&format!("/api/cfdi/{cfdi_id}"), &who).await.data(200).clone();
            assert_eq!(factura["total"].to_string().trim_matches('"'), "104.39", "{factura}");
            let (_, xml) = raw(&app, &format!("/api/cfdi/{cfdi_id}/xml"), Some(&who)).await;
            for esperado in ["Rfc=\"XIQB891116QE4\"", "UsoCFDI=\"G03\"", "FormaPago=\"28\"", "MetodoPago=\"PUE\"", "Total=\"104.39\""] {
                assert!(xml.contains(esperado), "{esperado}: {xml}");
            }
            let dir = TempDir::new();
            let path = dir.0.join("autofactura.xml");
            std::fs::write(&path, &xml).unwrap();
            sat_oracle(&[(path, xml.clone())], &sandbox_pac_cer(&app).await, &dir.0);
            let clientes = app.get("/api/clientes?q=XIQB891116QE4", &who).await.data(200).clone();
            assert_eq!(clientes["total"], json!(1), "one customer, reused by RFC: {clientes}");
            let mut conn = app.db.conn().await.unwrap();
            let n = timbra_store::sql!(scalar_one conn, i64, "SELECT COUNT(*) FROM cfdis WHERE empresa_id = $1", &empresa).unwrap();
            assert_eq!(n, 1);
            drop(conn);
            // Again later: already invoiced, the invoice not shown.
            let (status, html, _) = abrir(&app, &format!("/autofactura/tienda-uno?clave={clave}")).await;
            assert_eq!(status, 409);
            assert!(html.contains("ya fue facturado") && !html.contains(&cfdi_id) && !html.contains("XIQB891116QE4"), "{html}");

            // A ticket in a global invoice; a cancelled one; an expired one.
            let en_global = recibo(&app, &who, venta.clone()).await.data(201)["claveAutofactura"].as_str().unwrap().to_owned();
            let (meses, ano) = mes_actual();
            app.post("/api/cfdi/global", &who, json!({ "periodicidad": "04", "meses": meses, "año": ano })).await.data(201);
            let (status, html, _) = abrir(&app, &format!("/autofactura/tienda-uno?clave={en_global}")).await;
            assert_eq!(status, 409);
            assert!(html.contains("factura global"), "{html}");
            app.call(
                reqwest::Method::PATCH,
                &format!("/api/empresas/{empresa}"),
                &who,
                Some(json!({ "autofactura": { "diasVigencia": 1 } })),
            )
            .await
            .data(200);
            let ayer = OffsetDateTime::now_utc().to_offset(time::UtcOffset::from_hms(-6, 0, 0).unwrap()) - time::Duration::days(2);
            let fecha = format!("{:04}-{:02}-{:02}T12:00:00", ayer.year(), u8::from(ayer.month()), ayer.day());
            let vencido = recibo(&app, &who, json!({ "fecha": fecha, "formaPago": "01", "conceptos": [ linea("X", json!(1), json!(10)) ] }))
                .await
                .data(201)["claveAutofactura"]
                .as_str()
                .unwrap()
                .to_owned();
            let (status, html, _) = abrir(&app, &format!("/autofactura/tienda-uno?clave={vencido}")).await;
            assert_eq!(status, 410, "{html}");
            assert!(html.contains("plazo"), "{html}");

            // Another company's code on this page: the same answer as an unknown code.
            let otra = con_pagina(&app, "pagina-otra@example.com", "tienda-dos").await;
            let ajena = recibo(&app, &otra, venta.clone()).await.data(201)["claveAutofactura"].as_str().unwrap().to_owned();
            let (status, ajeno, _) = abrir(&app, &format!("/autofactura/tienda-uno?clave={ajena}")).await;
            assert_eq!(status, 404);
            let (_, desconocido, _) = abrir(&app, "/autofactura/tienda-uno?clave=ZZZZZZZZZZ").await;
            assert!(ajeno.contains("No encontramos un ticket"), "{ajeno}");
            assert_eq!(ajeno.replace(&ajena, ""), desconocido.replace("ZZZZZZZZZZ", ""));
            let (status, _) = enviar(&app, "tienda-uno", Some(&nav), &cliente(&ajena)).await;
            assert_eq!(status, 404);
            // Its own page works for it.
            let (status, _, _) = abrir(&app, &format!("/autofactura/tienda-dos?clave={ajena}")).await;
            assert_eq!(status, 200);

            // Wrong codes per address: past the limit (6 here) even a right code waits.
            for i in 0..3 {
                let (status, _, _) = abrir(&app, &format!("/autofactura/tienda-uno?clave=WRONG{i:05}")).await;
                assert_eq!(status, 404);
            }
            let (status, html, _) = abrir(&app, &format!("/autofactura/tienda-dos?clave={ajena}")).await;
            assert_eq!(status, 429, "{html}");
            assert!(html.contains("Demasiados códigos incorrectos"), "{html}");
            // An unknown page.
            let (status, _, _) = abrir(&app, "/autofactura/no-existe").await;
            assert_eq!(status, 404);
        },
    )
    .await;
}

#[tokio::test]
async fn the_automatic_global_invoice_stamps_each_closed_period_once() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "automatica@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        app.call(
            reqwest::Method::PATCH,
            &format!("/api/empresas/{empresa}"),
            &who,
            Some(json!({ "facturaGlobal": { "automatica": true, "periodicidad": "01" } })),
        )
        .await
        .data(200);
        // Two sales yesterday (the issuer's day), one today: yesterday is the closed day.
        let ayer =
            OffsetDateTime::now_utc().to_offset(time::UtcOffset::from_hms(-6, 0, 0).unwrap()) - time::Duration::days(1);
        for hora in ["10:00:00", "18:30:00"] {
            let fecha = format!("{:04}-{:02}-{:02}T{hora}", ayer.year(), u8::from(ayer.month()), ayer.day());
            recibo(
                &app,
                &who,
                json!({ "fecha": fecha, "formaPago": "01", "conceptos": [ linea("Venta", json!(1), json!(116)) ] }),
            )
            .await
            .data(201);
        }
        let hoy =
            recibo(&app, &who, json!({ "formaPago": "01", "conceptos": [ linea("Venta", json!(1), json!(58)) ] }))
                .await
                .data(201)
                .clone();
        // Planned twice (two instances, or the daily occurrence and a restart): one job.
        let dia = timbra_services::jobs::Day { day: "hoy".into() };
        let mut conn = app.db.conn().await.unwrap();
        for i in 0..2 {
            let job = timbra_services::jobs::NewJob::of::<timbra_services::cfdi::recibos::PlanearGlobales>(&dia)
                .dedupe(format!("test-plan-{i}"));
            timbra_services::jobs::enqueue(&mut conn, OffsetDateTime::now_utc(), job).await.unwrap();
        }
        drop(conn);
        let mut globales = 0;
        for _ in 0..200 {
            let mut conn = app.db.conn().await.unwrap();
            globales = timbra_store::sql!(scalar_one conn, i64,
                "SELECT COUNT(*) FROM recibos WHERE empresa_id = $1 AND status = 'GLOBAL'", &empresa)
            .unwrap();
            let pendientes = timbra_store::sql!(scalar_one conn, i64,
                "SELECT COUNT(*) FROM jobs WHERE kind LIKE 'recibos.%' AND status NOT IN ('done', 'dead')")
            .unwrap();
            if globales == 2 && pendientes == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(globales, 2);
        let mut conn = app.db.conn().await.unwrap();
        let trabajos = timbra_store::sql!(scalar_one conn, i64,
            "SELECT COUNT(*) FROM jobs WHERE kind = 'recibos.factura_global' AND empresa_id = $1", &empresa)
        .unwrap();
        assert_eq!(trabajos, 1);
        let cfdis =
            timbra_store::sql!(scalar_one conn, i64, "SELECT COUNT(*) FROM cfdis WHERE empresa_id = $1", &empresa)
                .unwrap();
        assert_eq!(cfdis, 1);
        drop(conn);
        // Today's ticket waits for tomorrow; the job shows in /api/jobs; the event says global.
        let hoy = app.get(&format!("/api/recibos/{}", hoy["id"].as_str().unwrap()), &who).await.data(200).clone();
        assert_eq!(hoy["status"], json!("ABIERTO"));
        let jobs = app.get("/api/jobs", &who).await.data(200).clone();
        assert!(jobs.to_string().contains("recibos.factura_global"), "{jobs}");
        let mut conn = app.db.conn().await.unwrap();
        let datos: Vec<(String,)> = timbra_store::sql!(fetch_all conn, (String,),
            "SELECT data FROM events WHERE empresa_id = $1 AND type = 'factura.timbrada'", &empresa)
        .unwrap();
        assert_eq!(datos.len(), 1);
        assert!(datos[0].0.contains("\"global\":true"), "{}", datos[0].0);
    })
    .await;
}

#[tokio::test]
async fn the_dashboard_lists_tickets_stamps_the_global_invoice_and_previews_the_page_with_its_qr() {
    each_backend(|app: TestApp| async move {
        let who = con_pagina(&app, "panel-recibos@example.com", "tienda-panel").await;
        let r = recibo(
            &app,
            &who,
            json!({ "formaPago": "01", "conceptos": [ linea("Refresco", json!(2), json!("23.20")) ] }),
        )
        .await
        .data(201)
        .clone();
        let sesion = app.login("panel-recibos@example.com").await;
        let cookie = format!("timbra_session={sesion}");
        let pagina = |ruta: String| {
            let cookie = cookie.clone();
            let url = format!("{}{ruta}", app.base);
            let client = app.client.clone();
            async move {
                let response = client.get(url).header("cookie", cookie).send().await.unwrap();
                (response.status().as_u16(), response.text().await.unwrap())
            }
        };
        let (status, lista) = pagina("/panel/recibos".into()).await;
        assert_eq!(status, 200, "{lista}");
        for esperado in [
            "Tickets",
            r["folio"].as_str().unwrap(),
            "Abierto",
            "Timbrar factura global",
            "Vista previa",
            "/autofactura/tienda-panel",
            "<svg",
        ] {
            assert!(lista.contains(esperado), "{esperado} missing");
        }
        let id = r["id"].as_str().unwrap();
        let (status, detalle) = pagina(format!("/panel/recibos/{id}")).await;
        assert_eq!(status, 200);
        assert!(detalle.contains(r["claveAutofactura"].as_str().unwrap()) && detalle.contains("<svg"), "{detalle}");

        // The global invoice from its button.
        let token = lista.split("name=\"_csrf\" value=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
        let (meses, ano) = mes_actual();
        let ano = ano.to_string();
        let form =
            [("_csrf", token.as_str()), ("periodicidad", "04"), ("meses", meses.as_str()), ("año", ano.as_str())];
        let cuerpo: Vec<String> = form.iter().map(|(k, v)| format!("{}={}", codificar(k), codificar(v))).collect();
        let response = app
            .client
            .post(format!("{}/panel/recibos/global", app.base))
            .header("cookie", &cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(cuerpo.join("&"))
            .send()
            .await
            .unwrap();
        let html = response.text().await.unwrap();
        assert!(html.contains("Factura global timbrada"), "{html}");
        assert_eq!(app.get(&format!("/api/recibos/{id}"), &who).await.data(200)["status"], json!("GLOBAL"));

        // Another person's dashboard does not show the ticket.
        con_pagina(&app, "panel-recibos-otra@example.com", "tienda-panel-dos").await;
        let otra = app.login("panel-recibos-otra@example.com").await;
        let response = app
            .client
            .get(format!("{}/panel/recibos/{id}", app.base))
            .header("cookie", format!("timbra_session={otra}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 404);
    })
    .await;
}

#[tokio::test]
async fn the_self_invoicing_page_mails_the_invoice_and_shows_the_companys_logo() {
    let smtp = crate::smtp::Smtp::start().await;
    let url = smtp.url.clone();
    let smtp = std::sync::Arc::new(smtp);
    each_backend_with(
        move |config| {
            config.jobs.poll = std::time::Duration::from_millis(20);
            config.smtp = Some(timbra_services::config::SmtpConfig {
                url: url.clone(),
                from: "facturas@timbra.example".into(),
                timeout: std::time::Duration::from_secs(5),
            });
        },
        |app: TestApp| {
            let smtp = smtp.clone();
            async move {
                let who = con_pagina(&app, "pagina-correo@example.com", "tienda-correo").await;
                let empresa = who.empresa.clone().unwrap();
                // No logo yet: the page names the company without an image.
                let venta = json!({ "formaPago": "01", "conceptos": [ linea("Torta", json!(1), json!("57.99")) ] });
                let r = recibo(&app, &who, venta).await.data(201).clone();
                let clave = r["claveAutofactura"].as_str().unwrap().to_owned();
                let (_, html, _) = abrir(&app, &format!("/autofactura/tienda-correo?clave={clave}")).await;
                assert!(!html.contains("/autofactura/tienda-correo/logo"), "{html}");
                let (status, _, _) = abrir(&app, "/autofactura/tienda-correo/logo").await;
                assert_eq!(status, 404);

                // With the company's logo (issue 32's branding), the page shows it, served as stored.
                let mut png = Vec::new();
                image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(120, 40, image::Rgb([20, 90, 160])))
                    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                    .unwrap();
                let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &png);
                app.call(
                    reqwest::Method::PUT,
                    &format!("/api/empresas/{empresa}/logo"),
                    &who,
                    Some(json!({ "logoBase64": b64 })),
                )
                .await
                .data(200);
                let (status, html, nav) = abrir(&app, &format!("/autofactura/tienda-correo?clave={clave}")).await;
                assert_eq!(status, 200);
                assert!(html.contains("src=\"/autofactura/tienda-correo/logo\""), "{html}");
                let logo = app.client.get(format!("{}/autofactura/tienda-correo/logo", app.base)).send().await.unwrap();
                assert_eq!(logo.status(), 200);
                assert_eq!(logo.headers()["content-type"], "image/png");
                let servido = image::load_from_memory(&logo.bytes().await.unwrap()).unwrap();
                assert_eq!((servido.width(), servido.height()), (120, 40));
                // No color set: no stylesheet of the company's. With one (the PDFs' primary
                // color), the page's buttons take it, with text readable on it.
                assert!(!html.contains("marca.css"), "{html}");
                let color = |hex: &str| json!({ "pdf": { "colorPrimario": hex } });
                let ruta_empresa = format!("/api/empresas/{empresa}");
                let patch = |body| app.call(reqwest::Method::PATCH, &ruta_empresa, &who, Some(body));
                patch(color("#7A1F5C")).await.data(200);
                let (_, html, _) = abrir(&app, &format!("/autofactura/tienda-correo?clave={clave}")).await;
                assert!(html.contains(r#"href="/autofactura/tienda-correo/marca.css""#), "{html}");
                let css = |_: ()| async {
                    let r = app
                        .client
                        .get(format!("{}/autofactura/tienda-correo/marca.css", app.base))
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(r.headers()["content-type"], "text/css; charset=utf-8");
                    r.text().await.unwrap()
                };
                let hoja = css(()).await;
                assert!(hoja.contains("--primario: #7a1f5c") && hoja.contains("--sobre-primario: #ffffff"), "{hoja}");
                patch(color("#F5D76E")).await.data(200);
                let hoja = css(()).await;
                assert!(hoja.contains("--primario: #f5d76e") && hoja.contains("--sobre-primario: #1b1f24"), "{hoja}");

                // The customer's invoice goes to the address they typed, XML attached byte for byte.
                let (status, html) = enviar(&app, "tienda-correo", nav.as_ref(), &cliente(&clave)).await;
                assert_eq!(status, 201, "{html}");
                assert!(
                    html.contains("Le enviamos el XML y el PDF a") && html.contains("ximena@example.com"),
                    "{html}"
                );
                let cfdi_id =
                    app.get(&format!("/api/recibos/{}", r["id"].as_str().unwrap()), &who).await.data(200)["cfdiId"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                crate::receiver::wait_for(15, "the self-invoice e-mail", async || {
                    let envios = app.get(&format!("/api/cfdi/{cfdi_id}/correos"), &who).await.data(200).clone();
                    envios.as_array().is_some_and(|e| e.len() == 1 && e[0]["estado"] == json!("ENVIADO"))
                })
                .await;
                let (_, xml) = raw(&app, &format!("/api/cfdi/{cfdi_id}/xml"), Some(&who)).await;
                // The server is shared by both databases' runs: this run's message is the one
                // carrying this invoice's XML, byte for byte, beside its PDF.
                let mut encontrado = false;
                for mensaje in smtp.received() {
                    if !mensaje.rcpt.iter().any(|t| t.contains("ximena@example.com")) {
                        continue;
                    }
                    let adjuntos = mensaje.adjuntos();
                    if adjuntos.iter().any(|(nombre, bytes)| nombre.ends_with(".xml") && bytes == xml.as_bytes()) {
                        assert!(
                            adjuntos.iter().any(|(nombre, pdf)| nombre.ends_with(".pdf") && pdf.starts_with(b"%PDF-"))
                        );
                        encontrado = true;
                    }
                }
                assert!(encontrado, "no e-mail carried this invoice's XML byte for byte");
            }
        },
    )
    .await;
}

#[tokio::test]
async fn a_live_company_stamps_self_invoices_and_the_global_invoice_through_the_pac() {
    let (sim, url) = crate::cfdi::start_pac_sim().await;
    let good = crate::cfdi::csd_vigente();
    let adjust = crate::cfdi::con_pac(&url);
    each_backend_with(adjust, |app: TestApp| {
        let (sim, good) = (sim.clone(), good.clone());
        async move {
            let (who, empresa) = crate::cfdi::live_company(&app, "recibos-vivo@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            let pagina = json!({ "autofactura": { "slug": "tienda-viva" } });
            app.call(reqwest::Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(pagina)).await.data(200);
            let venta =
                |precio: &str| json!({ "formaPago": "01", "conceptos": [ linea("Torta", json!(1), json!(precio)) ] });
            let propio = recibo(&app, &who, venta("58.00")).await.data(201).clone();
            recibo(&app, &who, venta("116.00")).await.data(201);
            recibo(&app, &who, venta("23.20")).await.data(201);

            // The customer's own invoice from the page: stamped by the PAC, a stamp spent.
            let clave = propio["claveAutofactura"].as_str().unwrap();
            let (status, html, nav) = abrir(&app, &format!("/autofactura/tienda-viva?clave={clave}")).await;
            assert_eq!(status, 200, "{html}");
            let (status, html) = enviar(&app, "tienda-viva", nav.as_ref(), &cliente(clave)).await;
            assert_eq!(status, 201, "{html}");
            let detalle =
                app.get(&format!("/api/recibos/{}", propio["id"].as_str().unwrap()), &who).await.data(200).clone();
            let autofactura = detalle["cfdiId"].as_str().unwrap().to_owned();

            // The global invoice of the other two.
            let (meses, ano) = mes_actual();
            let global =
                app.post("/api/cfdi/global", &who, json!({ "periodicidad": "04", "meses": meses, "año": ano })).await;
            let global = global.data(201).clone();
            assert_eq!(global["recibos"], json!(2), "{global}");
            assert_eq!(global["total"].to_string().trim_matches('"'), "139.20", "{global}");
            assert_eq!(app.get("/api/timbres", &who).await.data(200)["saldo"], json!(3));

            // Both are the PAC's: real UUIDs, SelloSAT by the PAC's certificate, SAT's tools agree.
            let dir = TempDir::new();
            let mut archivos = Vec::new();
            for (nombre, id) in [("autofactura", autofactura.as_str()), ("global", global["cfdiId"].as_str().unwrap())]
            {
                let (status, xml) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
                assert_eq!(status, 200);
                assert!(!xml.contains("SANDBOX-") && xml.contains("RfcProvCertif=\"CVD110412TF6\""), "{xml}");
                timbra_cfdi::sello::verificar_timbre_xml(&xml, &sim.certificado_pac()).unwrap();
                let path = dir.0.join(format!("{nombre}.xml"));
                std::fs::write(&path, &xml).unwrap();
                archivos.push((path, xml));
            }
            assert!(archivos[1].1.contains("cfdi:InformacionGlobal") && archivos[1].1.contains("XAXX010101000"));
            sat_oracle(&archivos, sim.certificado_pac().der(), &dir.0);
        }
    })
    .await;
}
