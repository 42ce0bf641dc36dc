//! Issue 11, points 4 and 5, over HTTP on both backends: texts that would break the XML
//! (control characters, `|`) and amounts that would overflow or be rounded are refused at
//! every edge with a 400 naming the field, never stamped and never a 500.

use serde_json::{Value, json};

use crate::harness::{Answer, As, TestApp, each_backend};

const EMISOR: &str = "EKU9003173C9";

/// The `field`s of a 400's `details.fields`, in order.
fn fields(answer: &Answer) -> Vec<String> {
    answer.body["error"]["details"]["fields"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|f| f["field"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The message given for `field`.
fn message<'a>(answer: &'a Answer, field: &str) -> &'a str {
    answer.body["error"]["details"]["fields"]
        .as_array()
        .and_then(|all| all.iter().find(|f| f["field"] == json!(field)))
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("no problem for {field}: {:#}", answer.body))
}

async fn setup(app: &TestApp, email: &str) -> (As, String) {
    let (_, key) = app.user(email).await;
    let empresa = app.empresa(&key, EMISOR).await;
    (As::key(&key).in_empresa(&empresa), empresa)
}

async fn patch(app: &TestApp, path: &str, who: &As, body: Value) -> Answer {
    app.call(reqwest::Method::PATCH, path, who, Some(body)).await
}

fn cliente(razon_social: &str) -> Value {
    json!({ "rfc": "XIQB891116QE4", "razonSocial": razon_social, "regimenFiscal": "626", "codigoPostal": "42501" })
}

fn producto(descripcion: &str, precio: Value) -> Value {
    json!({ "claveProdServ": "81112100", "claveUnidad": "E48", "descripcion": descripcion, "precioUnitario": precio })
}

fn factura(conceptos: Vec<Value>) -> Value {
    json!({ "formaPago": "03", "metodoPago": "PUE", "conceptos": conceptos })
}

fn concepto(descripcion: &str, cantidad: Value, precio: Value) -> Value {
    json!({ "claveProdServ": "81112100", "claveUnidad": "E48", "descripcion": descripcion, "cantidad": cantidad, "precioUnitario": precio })
}

#[tokio::test]
async fn control_characters_and_pipes_are_refused_naming_the_field() {
    each_backend(|app: TestApp| async move {
        let (who, empresa) = setup(&app, "textos@example.com").await;

        // Customers: razonSocial (cfdv40.xsd Receptor/@Nombre, [^|]{1,300}).
        for bad in ["XIMENA\u{7}QUIROZ", "XIMENA\u{0}", "\u{1B}[31mXIMENA", "XIMENA\u{FFFE}", "XIMENA|QUIROZ"] {
            let answer = app.post("/api/clientes", &who, cliente(bad)).await;
            answer.assert_error(400, "CLIENTE_001");
            assert_eq!(fields(&answer), ["razonSocial"], "{bad:?}");
        }
        let answer = app.post("/api/clientes", &who, cliente("XIMENA\u{1}QUIROZ")).await;
        assert!(message(&answer, "razonSocial").contains("U+0001"), "{:#}", answer.body);
        let answer = app.post("/api/clientes", &who, cliente("A|B")).await;
        assert!(message(&answer, "razonSocial").contains('|'), "{:#}", answer.body);
        // Tab, LF and CR are characters XML carries (escaped); they are not refused.
        let ok = app.post("/api/clientes", &who, cliente("XIMENA\tQUIROZ")).await;
        let id = ok.data(201)["id"].as_str().unwrap().to_owned();
        let answer = patch(&app, &format!("/api/clientes/{id}"), &who, json!({ "razonSocial": "X\u{1F}" })).await;
        answer.assert_error(400, "CLIENTE_001");
        assert_eq!(fields(&answer), ["razonSocial"]);

        // Products: descripcion (Concepto/@Descripcion, [^|]{1,1000}).
        for bad in ["Servicio\u{8}", "Servicio|A", "\u{FFFF}"] {
            let answer = app.post("/api/productos", &who, producto(bad, json!(10))).await;
            answer.assert_error(400, "PRODUCTO_001");
            assert_eq!(fields(&answer), ["descripcion"], "{bad:?}");
        }
        let ok = app.post("/api/productos", &who, producto("Servicio", json!(10))).await;
        let id = ok.data(201)["id"].as_str().unwrap().to_owned();
        let answer = patch(&app, &format!("/api/productos/{id}"), &who, json!({ "descripcion": "a\u{2}" })).await;
        answer.assert_error(400, "PRODUCTO_001");
        assert_eq!(fields(&answer), ["descripcion"]);

        // Companies: razonSocial (Emisor/@Nombre), on create and update.
        let (_, key) = app.user("textos-empresa@example.com").await;
        let answer = app
            .post(
                "/api/empresas",
                &As::key(&key),
                json!({ "rfc": EMISOR, "razonSocial": "ESCUELA\u{7}KEMPER", "regimenFiscal": "601", "codigoPostal": "42501" }),
            )
            .await;
        answer.assert_error(400, "EMPRESA_001");
        assert_eq!(fields(&answer), ["razonSocial"]);
        let answer = patch(&app, &format!("/api/empresas/{empresa}"), &who, json!({ "razonSocial": "ESCUELA|KEMPER" })).await;
        answer.assert_error(400, "EMPRESA_001");
        assert_eq!(fields(&answer), ["razonSocial"]);

        // Invoice body: every free text that reaches the CFDI, all problems at once.
        let mut linea = concepto("Servicio\u{7}", json!(1), json!(10));
        linea["unidad"] = json!("pieza|s");
        linea["noIdentificacion"] = json!("SKU\u{0}1");
        linea["claveUnidad"] = json!("E4\u{7}");
        let mut body = factura(vec![linea, concepto("Bien|mal", json!(1), json!(10))]);
        body["condicionesDePago"] = json!("30 días\u{1}");
        body["serie"] = json!("A|B");
        let answer = app.post("/api/cfdi/timbrar", &who, body).await;
        answer.assert_error(400, "CFDI_001");
        let got = fields(&answer);
        for expected in [
            "serie",
            "condicionesDePago",
            "conceptos[0].descripcion",
            "conceptos[0].unidad",
            "conceptos[0].noIdentificacion",
            "conceptos[0].claveUnidad",
            "conceptos[1].descripcion",
        ] {
            assert!(got.iter().any(|f| f == expected), "{expected} missing in {got:?}");
        }

        // Nothing was stamped.
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(0));
    })
    .await;
}

#[tokio::test]
async fn a_bad_name_already_stored_is_refused_at_stamping_not_written() {
    each_backend(|app: TestApp| async move {
        let (who, empresa) = setup(&app, "guardado@example.com").await;
        // A name stored before these checks existed.
        let mut conn = app.db.conn().await.unwrap();
        timbra_store::sql!(execute conn, "UPDATE empresas SET razon_social = $1 WHERE id = $2", "ESCUELA\u{7}KEMPER", &empresa)
            .unwrap();
        drop(conn);
        let answer = app.post("/api/cfdi/timbrar", &who, factura(vec![concepto("Servicio", json!(1), json!(10))])).await;
        answer.assert_error(400, "CFDI_001");
        assert!(fields(&answer).iter().any(|f| f == "Emisor.Nombre"), "{:#}", answer.body);
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(0));
    })
    .await;
}

#[tokio::test]
async fn amounts_that_overflow_or_round_are_refused_not_a_500() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "montos@example.com").await;
        let timbrar = |body: Value| {
            let app = &app;
            let who = &who;
            async move { app.post("/api/cfdi/timbrar", who, body).await }
        };

        // 1e28 and Decimal::MAX used to panic in Cantidad × ValorUnitario.
        let started = std::time::Instant::now();
        for (cantidad, precio, field) in [
            (json!("1e28"), json!(10), "conceptos[0].cantidad"),
            (json!(1e28), json!(10), "conceptos[0].cantidad"),
            (json!(2), json!("79228162514264337593543950335"), "conceptos[0].precioUnitario"),
            (json!(2), json!("79228162514264337593543950"), "conceptos[0].precioUnitario"),
            (json!("1_000"), json!(10), "conceptos[0].cantidad"),
            (json!(1), json!("1_000"), "conceptos[0].precioUnitario"),
            (json!("+1"), json!(10), "conceptos[0].cantidad"),
            (json!(1), json!("10.123456789012345678901234567890"), "conceptos[0].precioUnitario"),
            (json!("1.1234567"), json!(10), "conceptos[0].cantidad"),
            (json!(true), json!(10), "conceptos[0].cantidad"),
        ] {
            let answer = timbrar(factura(vec![concepto("x", cantidad.clone(), precio.clone())])).await;
            answer.assert_error(400, "CFDI_001");
            assert_eq!(fields(&answer), [field], "{cantidad} × {precio}");
        }
        // A raw 30-decimal JSON number (not a string) is refused too, not rounded.
        let raw = r#"{"formaPago": "03", "metodoPago": "PUE", "conceptos": [{"claveProdServ": "81112100", "claveUnidad": "E48",
            "descripcion": "x", "cantidad": 1, "precioUnitario": 10.123456789012345678901234567890}]}"#;
        let response = app
            .client
            .post(format!("{}/api/cfdi/timbrar", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", who.empresa.as_deref().unwrap())
            .header("content-type", "application/json")
            .body(raw)
            .send()
            .await
            .unwrap();
        let answer = TestApp::read(response).await;
        answer.assert_error(400, "CFDI_001");
        assert!(message(&answer, "conceptos[0].precioUnitario").contains("30 decimals"), "{:#}", answer.body);

        // Each amount fits t_Importe (18 integer digits) but the product does not: an error,
        // not a panic.
        let big = json!("999999999999999999");
        let answer = timbrar(factura(vec![concepto("x", big.clone(), big)])).await;
        answer.assert_error(400, "CFDI_001");
        assert!(answer.body["error"]["details"]["fields"].to_string().contains("Importe"), "{:#}", answer.body);
        // Taxes too (IEPS cuota on a huge base).
        let mut linea = concepto("x", json!(1), json!(1));
        linea["impuestos"] = json!({ "traslados": [{ "impuesto": "IEPS", "tipoFactor": "Cuota", "tasaOCuota": "999999999999999999", "base": "999999999999999999" }] });
        timbrar(factura(vec![linea])).await.assert_error(400, "CFDI_001");
        // Other amounts of the body.
        let mut body = factura(vec![concepto("x", json!(1), json!(10))]);
        body["moneda"] = json!("USD");
        body["tipoCambio"] = json!("1e3");
        let answer = timbrar(body).await;
        answer.assert_error(400, "CFDI_001");
        assert!(fields(&answer).iter().any(|f| f == "tipoCambio"), "{:#}", answer.body);
        let mut linea = concepto("x", json!(1), json!(10));
        linea["descuento"] = json!("1E1");
        linea["impuestos"] = json!({ "traslados": [{ "impuesto": "IVA", "tasaOCuota": "0.16_0" }] });
        let answer = timbrar(factura(vec![linea])).await;
        let got = fields(&answer);
        assert!(got.iter().any(|f| f == "conceptos[0].descuento"), "{got:?}");
        assert!(got.iter().any(|f| f == "conceptos[0].impuestos.traslados[0].tasaOCuota"), "{got:?}");
        // None of that took long (the panics took about a second each).
        assert!(started.elapsed() < std::time::Duration::from_secs(20));

        // Products: precioUnitario with the same rules (PRODUCTO_001).
        for bad in [json!("1e28"), json!(1e28), json!("1_000"), json!("79228162514264337593543950335"), json!("1.1234567")] {
            let answer = app.post("/api/productos", &who, producto("Servicio", bad.clone())).await;
            answer.assert_error(400, "PRODUCTO_001");
            assert_eq!(fields(&answer), ["precioUnitario"], "{bad}");
        }
        let mut body = producto("Servicio", json!(10));
        body["ivaRate"] = json!("1.6e-1");
        let answer = app.post("/api/productos", &who, body).await;
        answer.assert_error(400, "PRODUCTO_001");
        assert_eq!(fields(&answer), ["ivaRate"]);
        // Plain notation still works, exactly.
        let ok = app.post("/api/productos", &who, producto("Servicio", json!("1000.123456"))).await;
        assert_eq!(ok.data(201)["precioUnitario"].to_string(), "1000.123456");

        // A plain, bounded invoice still stamps.
        let answer = timbrar(factura(vec![concepto("Servicio", json!("1000"), json!("0.5"))])).await;
        assert_eq!(answer.data(201)["total"], json!("580.00"));
    })
    .await;
}

#[tokio::test]
async fn payroll_calculator_refuses_non_plain_amounts_and_bad_concepts() {
    each_backend(|app: TestApp| async move {
        let answer = app
            .post(
                "/api/nomina/calcular",
                &As::default(),
                json!({ "salarioDiario": "1e28", "salarioDiarioIntegrado": "1_000", "diasPagados": 15,
                    "periodicidad": "quincenal", "riesgoPuesto": 1, "fechaPago": "2026-03-15",
                    "percepciones": [{ "tipo": "038", "concepto": "Bono\u{7}", "importe": 100 }] }),
            )
            .await;
        answer.assert_error(400, "NOMINA_001");
        assert_eq!(fields(&answer), ["salarioDiario", "salarioDiarioIntegrado", "percepciones[0].concepto"]);
    })
    .await;
}
