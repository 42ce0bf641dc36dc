//! The dry run (issue 29): `POST /api/cfdi/validar` and `/api/cfdi/pagos/validar` answer the
//! stamp's verdict on the same body (every problem with its rule, the checks left to the PAC,
//! the totals and the unsealed XML) and reserve, stamp, store and move nothing.

use serde_json::{Value, json};

use crate::cfdi::{concepto, factura, setup, timbrar};
use crate::harness::{Answer, As, TestApp, each_backend};
use crate::pagos::{pago, ppd};

async fn validar(app: &TestApp, who: &As, ruta: &str, body: &Value) -> Answer {
    app.post(ruta, who, body.clone()).await
}

fn reglas(data: &Value) -> Vec<(String, String)> {
    data["problemas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["regla"].as_str().unwrap().to_owned(), p["campo"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn an_invoice_dry_run_gives_the_stamps_verdict_and_reserves_nothing() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "ensayo@example.com").await;

        // A valid body: its totals to the centavo and the XML as it would be stamped, unsealed
        // and without a folio.
        let bien = validar(&app, &who, "/api/cfdi/validar", &factura(&cliente)).await;
        let data = bien.data(200);
        assert_eq!(data["valido"], true, "{data}");
        assert_eq!(data["problemas"], json!([]));
        assert_eq!(
            data["totales"],
            json!({ "subTotal": "3001.00", "descuento": "0", "totalImpuestosTrasladados": "480.16",
                    "totalImpuestosRetenidos": "0", "total": "3481.16" })
        );
        let xml = data["xml"].as_str().unwrap();
        assert!(xml.contains(r#"SubTotal="3001.00""#) && xml.contains(r#"Total="3481.16""#), "{xml}");
        assert!(xml.contains(r#"Serie="A""#) && !xml.contains("Folio="), "no folio is reserved: {xml}");
        assert!(xml.contains(r#"Sello="""#) && !xml.contains("tfd:TimbreFiscalDigital"), "{xml}");
        let omitidas: Vec<&str> =
            data["omitidas"].as_array().unwrap().iter().map(|o| o["regla"].as_str().unwrap()).collect();
        assert!(omitidas.contains(&"CFDI40143-CFDI40145"), "registry rules are left to the PAC: {omitidas:?}");
        assert!(omitidas.iter().any(|r| r.starts_with("CFDI40118")), "no rate source: {omitidas:?}");

        // What the stamp refuses is `valido: false` with every problem and its SAT code, 200.
        let mut mal = factura(&cliente);
        mal["conceptos"] = json!([
            { "claveProdServ": "99999999", "claveUnidad": "E48", "descripcion": "x", "cantidad": 1, "precioUnitario": 10 },
            { "claveProdServ": "81112100", "claveUnidad": "ZZZ", "descripcion": "y", "cantidad": 1, "precioUnitario": 10 },
        ]);
        let data = validar(&app, &who, "/api/cfdi/validar", &mal).await.data(200).clone();
        assert_eq!((data["valido"].clone(), data["totales"].clone(), data["xml"].clone()), (json!(false), Value::Null, Value::Null));
        let problemas = reglas(&data);
        assert!(problemas.contains(&("CFDI40162".into(), "Conceptos[0].ClaveProdServ".into())), "{problemas:?}");
        assert!(problemas.contains(&("CFDI40165".into(), "Conceptos[1].ClaveUnidad".into())), "{problemas:?}");
        assert!(data["problemas"].as_array().unwrap().iter().all(|p| !p["mensaje"].as_str().unwrap().is_empty()));

        // The body's shape and an unknown customer are problems too, not errors.
        let data = validar(&app, &who, "/api/cfdi/validar", &json!({ "clienteId": cliente })).await.data(200).clone();
        assert!(reglas(&data).contains(&("ENTRADA".into(), "conceptos".into())), "{data}");
        let mut ajeno = factura(&cliente);
        ajeno["clienteId"] = json!("no-such-customer");
        let data = validar(&app, &who, "/api/cfdi/validar", &ajeno).await.data(200).clone();
        assert_eq!(reglas(&data)[0].0, "CFDI_004", "{data}");

        // Only malformed JSON is an error; a key that may not stamp may not dry-run either.
        let roto = app
            .client
            .post(format!("{}/api/cfdi/validar", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .header("content-type", "application/json")
            .body("{\"conceptos\": [")
            .send()
            .await
            .unwrap();
        TestApp::read(roto).await.assert_error(400, "REQUEST_001");
        let ver = app
            .post("/api/api-keys", &As::key(who.key.as_deref().unwrap()), json!({ "name": "ver", "scopes": ["cfdi:view"] }))
            .await
            .data(201)["key"]
            .as_str()
            .unwrap()
            .to_owned();
        let ver = As::key(&ver).in_empresa(who.empresa.as_deref().unwrap());
        assert_eq!(validar(&app, &ver, "/api/cfdi/validar", &factura(&cliente)).await.status, 403);

        // Nothing was stored or reserved: no invoice, and the first stamp is folio 1.
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], 0);
        let mut uno = factura(&cliente);
        uno["conceptos"] = json!([concepto("x", json!(1), json!(10))]);
        assert_eq!(timbrar(&app, &who, &uno, None).await.data(201)["folio"], json!("1"));
    })
    .await;
}

#[tokio::test]
async fn a_payment_dry_run_reads_the_balances_and_moves_none() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "ensayo-pago@example.com").await;
        let factura = timbrar(&app, &who, &ppd(&cliente), None).await.data(201).clone();
        let uuid = factura["uuid"].as_str().unwrap().to_owned();
        let id = factura["cfdiId"].as_str().unwrap().to_owned();

        let data = validar(&app, &who, "/api/cfdi/pagos/validar", &pago(&uuid, 1, "10600.00", "1000.00", "9600.00"))
            .await
            .data(200)
            .clone();
        assert_eq!(data["valido"], true, "{data}");
        assert_eq!(data["totales"]["total"], "0", "a payment CFDI totals 0: {data}");
        let xml = data["xml"].as_str().unwrap();
        assert!(xml.contains("pago20:Pagos") && xml.contains(r#"ImpSaldoInsoluto="9600.00""#), "{xml}");

        // A stale balance is the problem the stamp would answer (PAGO_005), not an error.
        let data = validar(&app, &who, "/api/cfdi/pagos/validar", &pago(&uuid, 2, "9600.00", "1000.00", "8600.00"))
            .await
            .data(200)
            .clone();
        assert_eq!(data["valido"], false, "{data}");
        assert_eq!(reglas(&data)[0].0, "PAGO_005", "{data}");
        // An unknown invoice is PAGO_002.
        let data = validar(
            &app,
            &who,
            "/api/cfdi/pagos/validar",
            &pago("11111111-2222-4333-8444-555555555555", 1, "1.00", "1.00", "0"),
        )
        .await
        .data(200)
        .clone();
        assert_eq!(reglas(&data)[0].0, "PAGO_002", "{data}");

        // The balance did not move: the real payment of installment 1 is stamped.
        let detalle = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
        assert_eq!(detalle["saldoInsoluto"], "10600.00", "{detalle}");
        let pagado = app.post("/api/cfdi/pagos/timbrar", &who, pago(&uuid, 1, "10600.00", "1000.00", "9600.00")).await;
        pagado.data(201);
    })
    .await;
}

/// A company of `codigo_postal` and a key in it.
async fn empresa_en(app: &TestApp, email: &str, codigo_postal: &str) -> As {
    let (_, key) = app.user(email).await;
    let empresa = app
        .post(
            "/api/empresas",
            &As::key(&key),
            json!({ "rfc": "EKU9003173C9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": codigo_postal }),
        )
        .await
        .data(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    As::key(&key).in_empresa(&empresa)
}

/// `Fecha` of an XML read as a local time with `offset_horas`, as an instant.
fn fecha_xml(xml: &str, offset_horas: i8) -> time::OffsetDateTime {
    let inicio = xml.find(" Fecha=\"").unwrap() + 8;
    let texto = &xml[inicio..inicio + 19];
    let formato = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    time::PrimitiveDateTime::parse(texto, &formato)
        .unwrap()
        .assume_offset(time::UtcOffset::from_hms(offset_horas, 0, 0).unwrap())
}

/// Anexo 20: `Fecha` is the local time of the LugarExpedicion (c_CodigoPostal's zone), not
/// always the Centro's: Tijuana (UTC−8, UTC−7 in the border strip's summer time),
/// Cancún (UTC−5), Hermosillo (UTC−7), Hidalgo (UTC−6). The 72-hour and future checks use the
/// same local time.
#[tokio::test]
async fn fecha_is_the_local_time_of_the_place_of_issue() {
    each_backend(|app: TestApp| async move {
        // Tijuana's offset today: −8, or −7 between March and November (the DST dates
        // themselves are pinned in timbra-cfdi's unit test of `HusoHorario::desfase`).
        let tijuana =
            timbra_cfdi::catalogos::HusoHorario::Noroeste.desfase(time::OffsetDateTime::now_utc()).whole_hours();
        for (i, (cp, horas)) in
            [("22000", tijuana), ("77500", -5), ("83000", -7), ("42501", -6)].into_iter().enumerate()
        {
            let who = empresa_en(&app, &format!("zona{i}@example.com"), cp).await;
            let body = json!({ "formaPago": "03", "metodoPago": "PUE",
                "conceptos": [concepto("Servicio", json!(1), json!(100))] });
            let antes = time::OffsetDateTime::now_utc();
            let ensayo = validar(&app, &who, "/api/cfdi/validar", &body).await.data(200).clone();
            let xml = ensayo["xml"].as_str().unwrap();
            let fecha = fecha_xml(xml, horas);
            assert!(
                (fecha - antes).abs() < time::Duration::seconds(60),
                "{cp}: Fecha {fecha} is not now in UTC{horas}"
            );
            assert!(xml.contains(&format!(r#"LugarExpedicion="{cp}""#)), "{xml}");

            // The stamp writes the same Fecha, and the record keeps the instant.
            let timbrada = timbrar(&app, &who, &body, None).await.data(201).clone();
            let id = timbrada["cfdiId"].as_str().unwrap();
            let (status, xml) = crate::cfdi::raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
            assert_eq!(status, 200);
            assert!((fecha_xml(&xml, horas) - antes).abs() < time::Duration::seconds(60), "{cp}: {xml}");
            let detalle = app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
            let guardada = time::OffsetDateTime::parse(
                detalle["fecha"].as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap();
            assert!((guardada - antes).abs() < time::Duration::seconds(60), "{cp}: stored {guardada}, {detalle}");

            // An hour ahead of the issuer's clock is in the future there.
            let adelantada =
                (antes + time::Duration::hours(1)).to_offset(time::UtcOffset::from_hms(horas, 0, 0).unwrap());
            let mut futura = body.clone();
            futura["fecha"] = json!(format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                adelantada.year(),
                u8::from(adelantada.month()),
                adelantada.day(),
                adelantada.hour(),
                adelantada.minute(),
                adelantada.second()
            ));
            let data = validar(&app, &who, "/api/cfdi/validar", &futura).await.data(200).clone();
            assert_eq!(data["valido"], false, "{cp}: {data}");
            assert!(reglas(&data).iter().any(|(_, campo)| campo == "fecha"), "{cp}: {data}");
        }
    })
    .await;
}

/// Posts `cuerpo` to the validator with `content_type`.
async fn validar_xml(app: &TestApp, who: &As, content_type: &str, cuerpo: Vec<u8>) -> Answer {
    let mut request =
        app.client.post(format!("{}/api/cfdi/validar-xml", app.base)).header("content-type", content_type).body(cuerpo);
    if let Some(key) = who.key.as_deref() {
        request = request.bearer_auth(key);
    }
    TestApp::read(request.send().await.unwrap()).await
}

/// The validator of any CFDI: this installation's sandbox stamps are valid with their timbre
/// verified; a changed amount breaks the seal; the verdict on the schema and on the seal
/// agrees with xmllint and openssl on every sample of SAT's folder (its manifest records
/// them); hostile and foreign input is refused or reported.
#[tokio::test]
async fn the_validator_checks_schema_seal_timbre_and_rules_of_any_cfdi() {
    let Some(sat) = crate::cfdi::sat_dir() else { return };
    each_backend(|app: TestApp| {
        let sat = sat.clone();
        async move {
            let (who, cliente) = setup(&app, "validador@example.com").await;
            let timbrada = timbrar(&app, &who, &factura(&cliente), None).await.data(201).clone();
            let id = timbrada["cfdiId"].as_str().unwrap();
            let (_, xml) = crate::cfdi::raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
            // Any authenticated caller, no company needed.
            let (_, otra) = app.user("cualquiera@example.com").await;
            let otra = As::key(&otra);
            let data = validar_xml(&app, &otra, "application/xml", xml.clone().into_bytes()).await.data(200).clone();
            assert_eq!(
                (data["valido"].clone(), data["esquema"].clone(), data["sello"].clone(), data["timbre"].clone()),
                (json!(true), json!("ok"), json!("ok"), json!("ok")),
                "{data}"
            );
            assert_eq!(data["uuid"], crate::cfdi::uuid_of(&timbrada), "{data}");
            assert_eq!((data["emisorRfc"].as_str(), data["total"].as_str()), (Some("EKU9003173C9"), Some("3481.16")));
            assert_eq!(data["problemas"], json!([]));
            let como_json =
                app.post("/api/cfdi/validar-xml", &otra, json!({ "xml": xml })).await.data(200)["valido"].clone();
            assert_eq!(como_json, true);

            // One amount changed after sealing: the seal no longer verifies, the totals rule breaks.
            let alterada = xml.replacen(r#"Total="3481.16""#, r#"Total="3481.17""#, 1);
            let data = validar_xml(&app, &otra, "text/xml", alterada.into_bytes()).await.data(200).clone();
            assert_eq!((data["valido"].clone(), data["sello"].clone()), (json!(false), json!("error")), "{data}");
            assert!(data["motivos"]["sello"].is_string(), "{data}");
            assert!(reglas(&data).iter().any(|(regla, _)| regla == "CFDI40119"), "{data}");

            // SAT's samples: schema and seal as xmllint and openssl judged them (manifest.csv).
            let manifest = std::fs::read_to_string(sat.join("samples/manifest.csv")).unwrap();
            let mut revisadas = 0;
            for linea in manifest.lines().skip(1) {
                let celdas: Vec<&str> = linea.split(',').collect();
                let (archivo, esquema, sello) = (celdas[0], celdas[9], celdas[10]);
                let cuerpo = std::fs::read(sat.join("samples").join(archivo)).unwrap();
                let data = validar_xml(&app, &otra, "application/xml", cuerpo).await.data(200).clone();
                let esperado = |v: &str| if v == "ok" { "ok" } else { "error" };
                assert_eq!(data["esquema"], esperado(esquema), "{archivo}: {data}");
                assert_eq!(data["sello"], esperado(sello), "{archivo}: {data}");
                revisadas += 1;
            }
            assert!(revisadas >= 20, "{revisadas} samples");

            // Not XML, a DOCTYPE with an external entity: CFDI_005, nothing resolved.
            validar_xml(&app, &otra, "application/xml", b"esto no es XML".to_vec()).await.assert_error(400, "CFDI_005");
            let xxe = format!(
                "<?xml version=\"1.0\"?><!DOCTYPE c [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>{}",
                xml.trim_start_matches("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
            );
            let refused = validar_xml(&app, &otra, "application/xml", xxe.into_bytes()).await;
            refused.assert_error(400, "CFDI_005");
            assert!(!refused.body.to_string().contains("root:"), "{}", refused.body);
            // Over the body limit (2 MiB by default): 413 before it is read.
            let grande = format!("<a>{}</a>", "x".repeat(3 * 1024 * 1024)).into_bytes();
            validar_xml(&app, &otra, "application/xml", grande).await.assert_error(413, "REQUEST_002");
            // A CFDI 3.3 is reported, not validated as 4.0.
            let v33 =
                br#"<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/3" Version="3.3" Total="1"/>"#.to_vec();
            let data = validar_xml(&app, &otra, "application/xml", v33).await.data(200).clone();
            assert_eq!((data["valido"].clone(), data["esquema"].clone()), (json!(false), json!("error")), "{data}");
            assert!(data["motivos"]["esquema"].as_str().unwrap().contains("3.3"), "{data}");
            // Without a credential: 401.
            validar_xml(&app, &As::default(), "application/xml", xml.into_bytes()).await.assert_error(401, "AUTH_001");
        }
    })
    .await;
}
