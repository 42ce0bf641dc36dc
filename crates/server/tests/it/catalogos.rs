//! SAT's catalogs (issue 29): sandbox refuses codes SAT's catalogs do not have, the forms'
//! searches and lookups, `/readyz`'s edition, and `timbra catalogos estado|importar`.

use std::process::Command;

use reqwest::Method;
use serde_json::{Value, json};

use crate::cfdi::{concepto, factura, setup, timbrar};
use crate::harness::{TempDir, TestApp, each_backend};

/// SAT's edition shipped in timbra-catalogos (its README says where the date comes from).
const EDICION_INCLUIDA: &str = "2026-08-06";

fn campos(answer: &crate::harness::Answer) -> Vec<String> {
    answer.body["error"]["details"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn sandbox_refuses_product_unit_and_postal_codes_sats_catalogs_do_not_have() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "catalogos@example.com").await;
        let mut body = factura(&cliente);
        body["conceptos"] = json!([
            { "claveProdServ": "99999999", "claveUnidad": "E48", "descripcion": "x", "cantidad": 1, "precioUnitario": 10 },
            { "claveProdServ": "81112100", "claveUnidad": "ZZZ", "descripcion": "y", "cantidad": 1, "precioUnitario": 10 },
        ]);
        let answer = timbrar(&app, &who, &body, None).await;
        answer.assert_error(400, "CFDI_001");
        let fields = campos(&answer);
        assert!(fields.contains(&"Conceptos[0].ClaveProdServ".to_owned()), "{fields:?}");
        assert!(fields.contains(&"Conceptos[1].ClaveUnidad".to_owned()), "{fields:?}");
        assert_eq!(fields.len(), 2, "only the two unknown codes: {}", answer.body);
        assert!(answer.body.to_string().contains("c_ClaveProdServ"), "{}", answer.body);
        // Nothing was stamped; the same invoice with real codes is folio 1.
        let mut bien = factura(&cliente);
        bien["conceptos"] = json!([concepto("x", json!(1), json!(10))]);
        assert_eq!(timbrar(&app, &who, &bien, None).await.data(201)["folio"], json!("1"));
    })
    .await;
}

#[tokio::test]
async fn forms_search_products_and_units_look_up_postal_codes_and_read_small_catalogs() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "formas@example.com").await;
        // Words without accents find SAT's accented descriptions; every item says its flags.
        let cafe = app.get("/api/catalogos/productos-servicios?q=cafe", &who).await;
        let data = cafe.data(200);
        assert!(data["total"].as_i64().unwrap() > 0, "{data}");
        let items = data["items"].as_array().unwrap();
        assert!(items.iter().any(|item| item["descripcion"].as_str().unwrap().contains("Café")), "{data}");
        for item in items {
            assert!(["No", "Sí", "Opcional"].contains(&item["incluirIva"].as_str().unwrap()), "{item}");
            assert!(item["vigente"].is_boolean(), "{item}");
        }
        // A code prefix lists codes in order, the exact one first.
        let codigo = app.get("/api/catalogos/productos-servicios?q=81112100", &who).await;
        assert_eq!(codigo.data(200)["items"][0]["clave"], "81112100");
        let pagina = app.get("/api/catalogos/productos-servicios?q=501&page=2&pageSize=5", &who).await;
        let pagina = pagina.data(200);
        assert_eq!(pagina["items"].as_array().unwrap().len(), 5, "{pagina}");
        assert!(pagina["items"][0]["clave"].as_str().unwrap().starts_with("501"), "{pagina}");
        // Nothing matches: an empty page, not an error.
        let nada = app.get("/api/catalogos/productos-servicios?q=zzzqqqxx", &who).await;
        assert_eq!(nada.data(200)["total"], 0);
        // 200 characters are searched; 201 are refused as other listings refuse them.
        let largo = "a".repeat(200);
        app.get(&format!("/api/catalogos/productos-servicios?q={largo}"), &who).await.data(200);
        let demasiado = "a".repeat(201);
        app.get(&format!("/api/catalogos/productos-servicios?q={demasiado}"), &who)
            .await
            .assert_error(400, "REQUEST_001");

        let unidades = app.get("/api/catalogos/unidades?q=E48", &who).await;
        let unidad = &unidades.data(200)["items"][0];
        assert_eq!(unidad["clave"], "E48");
        assert!(unidad["nombre"].as_str().unwrap().to_lowercase().contains("servicio"), "{unidad}");
        let pieza = app.get("/api/catalogos/unidades?q=pieza", &who).await;
        assert!(pieza.data(200)["items"].as_array().unwrap().iter().any(|u| u["clave"] == "H87"), "{}", pieza.body);

        // Tijuana: border stimulus and the Pacific zone; an unknown code is a 404.
        let tijuana = app.get("/api/catalogos/codigos-postales/22000", &who).await;
        let tijuana = tijuana.data(200);
        assert_eq!(tijuana["estado"], "BCN", "{tijuana}");
        assert_eq!(tijuana["estimuloFronterizo"], true, "{tijuana}");
        assert!(tijuana["husoHorario"].as_str().unwrap().starts_with("Tiempo del"), "{tijuana}");
        let centro = app.get("/api/catalogos/codigos-postales/06600", &who).await;
        assert_eq!(centro.data(200)["estimuloFronterizo"], false);
        app.get("/api/catalogos/codigos-postales/00001", &who).await.assert_error(404, "NOT_FOUND");

        // Small catalogs come whole; usos-cfdi with the régimenes each allows.
        let monedas = app.get("/api/catalogos/monedas", &who).await;
        let mxn = monedas.data(200).as_array().unwrap().iter().find(|m| m["clave"] == "MXN").cloned().unwrap();
        assert_eq!(mxn["columnas"]["decimales"], "2", "{mxn}");
        let usos = app.get("/api/catalogos/usos-cfdi", &who).await;
        let g03 = usos.data(200).as_array().unwrap().iter().find(|u| u["clave"] == "G03").cloned().unwrap();
        assert!(g03["regimenesReceptor"].as_array().unwrap().contains(&json!("601")), "{g03}");
        assert_eq!((g03["fisica"].clone(), g03["moral"].clone()), (json!(true), json!(true)));
        let regimenes = app.get("/api/catalogos/regimenes-fiscales", &who).await;
        assert!(regimenes.data(200).as_array().unwrap().iter().any(|r| r["clave"] == "626"));
        let desconocido = app.get("/api/catalogos/no-existe", &who).await;
        desconocido.assert_error(404, "NOT_FOUND");
        assert!(desconocido.body["error"]["message"].as_str().unwrap().contains("usos-cfdi"), "{}", desconocido.body);

        // Only for callers with a credential.
        let anonimo = app.client.get(format!("{}/api/catalogos/monedas", app.base)).send().await.unwrap();
        assert_eq!(anonimo.status(), 401);

        // /readyz says which edition validation holds.
        let listo: Value = app.client.get(format!("{}/readyz", app.base)).send().await.unwrap().json().await.unwrap();
        assert_eq!(listo["catalogos"], json!({ "edicion": EDICION_INCLUIDA, "origen": "incluida" }));
    })
    .await;
}

fn timbra(data: &TempDir, args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_timbra"))
        .args(args)
        .env("TIMBRA_DATA_DIR", &data.0)
        .env_remove("TIMBRA_DATABASE_URL")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn the_command_line_imports_a_newer_edition_once_and_reports_the_one_in_use() {
    let Some(sat) = timbra_testkit::sat("catalogs/cfdi40") else { return };
    let sat = sat.join("catalogs");
    let data = TempDir::new();
    let (status, out) = timbra(&data, &["catalogos", "estado"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains(&format!("edición en uso: {EDICION_INCLUIDA} (incluida)")), "{out}");
    assert!(out.contains("cfdi40/c_ClaveProdServ") && out.contains("52514 filas"), "{out}");

    // SAT's files as a newer edition: the same rows as the shipped one, so nothing changed.
    let sat = sat.to_str().unwrap();
    let (status, out) = timbra(&data, &["catalogos", "importar", sat, "--edicion", "2026-11-01"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("edición 2026-11-01 importada") && out.contains("sin cambios"), "{out}");
    let (status, out) = timbra(&data, &["catalogos", "estado"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("edición en uso: 2026-11-01 (importada)"), "{out}");
    // Again: idempotent.
    let (status, out) = timbra(&data, &["catalogos", "importar", sat, "--edicion", "2026-11-01"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("sin cambios"), "{out}");
    // A folder that is not SAT's catalogs is refused, and changes nothing.
    let (status, out) = timbra(&data, &["catalogos", "importar", "/nonexistent-folder"]);
    assert_ne!(status, 0, "{out}");
    let (_, out) = timbra(&data, &["catalogos", "estado"]);
    assert!(out.contains("edición en uso: 2026-11-01 (importada)"), "{out}");
}

/// Customers and products are checked against SAT's catalogs when saved (CLIENTE_001 /
/// PRODUCTO_001 naming the field), so what is saved stamps; a refused update leaves the row.
#[tokio::test]
async fn customers_and_products_are_checked_against_the_catalogs_when_saved() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "guardar@example.com").await;
        let campos_de = |answer: &crate::harness::Answer| campos(answer);

        let sin_cp = app
            .post("/api/clientes", &who, json!({ "rfc": "XIA190128J61", "razonSocial": "XENON INDUSTRIAL ARTICLES",
                "regimenFiscal": "601", "codigoPostal": "00001", "usoCfdi": "G03" }))
            .await;
        sin_cp.assert_error(400, "CLIENTE_001");
        assert_eq!(campos_de(&sin_cp), ["codigoPostal"], "{}", sin_cp.body);
        assert!(sin_cp.body.to_string().contains("c_CodigoPostal"), "{}", sin_cp.body);
        let pais = app
            .post("/api/clientes", &who, json!({ "rfc": "XEXX010101000", "razonSocial": "ACME INC",
                "regimenFiscal": "616", "codigoPostal": "42501", "usoCfdi": "S01",
                "residenciaFiscal": "QQQ", "numRegIdTrib": "123456789" }))
            .await;
        pais.assert_error(400, "CLIENTE_001");
        assert_eq!(campos_de(&pais), ["residenciaFiscal"], "{}", pais.body);
        // A refused update keeps the stored customer.
        app.call(Method::PATCH, &format!("/api/clientes/{cliente}"), &who, Some(json!({ "codigoPostal": "00001" })))
            .await
            .assert_error(400, "CLIENTE_001");
        assert_eq!(app.get(&format!("/api/clientes/{cliente}"), &who).await.data(200)["codigoPostal"], "42501");

        let producto = |clave: &str, unidad: &str| {
            json!({ "claveProdServ": clave, "claveUnidad": unidad, "descripcion": "Gasolina", "precioUnitario": "23.50" })
        };
        let mal = app.post("/api/productos", &who, producto("99999999", "ZZZ")).await;
        mal.assert_error(400, "PRODUCTO_001");
        assert_eq!(campos_de(&mal), ["claveProdServ", "claveUnidad"], "{}", mal.body);
        // 15101506 left c_ClaveProdServ on 2020-01-15: not in force today.
        let vencida = app.post("/api/productos", &who, producto("15101506", "LTR")).await;
        vencida.assert_error(400, "PRODUCTO_001");
        assert!(vencida.body.to_string().contains("not in force"), "{}", vencida.body);
        let bien = app.post("/api/productos", &who, producto("15101514", "LTR")).await;
        let id = bien.data(201)["id"].as_str().unwrap().to_owned();
        app.call(Method::PATCH, &format!("/api/productos/{id}"), &who, Some(json!({ "claveUnidad": "ZZZ" })))
            .await
            .assert_error(400, "PRODUCTO_001");
        assert_eq!(app.get(&format!("/api/productos/{id}"), &who).await.data(200)["claveUnidad"], "LTR");
    })
    .await;
}
