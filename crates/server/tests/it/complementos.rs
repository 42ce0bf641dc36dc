//! Carta Porte 3.1 and Comercio Exterior 2.0 over HTTP (issue 33): a traslado, a freight
//! ingreso with hazardous goods and a trailer, an international Carta Porte and an export
//! invoice stamped in sandbox and checked with SAT's tools; every rule's failing body answered
//! CFDI_001 with its rule id; the complement returned by `GET /api/cfdi/{id}`, the listing's
//! `complemento` filter, the PDF's route, vehicle and operator with the Carta Porte QR, and a
//! live stamp through the PAC simulator.

use std::path::Path;

use reqwest::Method;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::cfdi::{EMISOR, live_company, raw, sandbox_pac_cer, sat_oracle, setup, sh, start_pac_sim, timbrar, uuid_of};
use crate::harness::{As, TempDir, TestApp, each_backend, each_backend_with};

/// `AAAA-MM-DDThh:mm:ss`, `hours` from now (the ubicaciones' times are the trip's, ahead).
fn hora(hours: i64) -> String {
    let at = OffsetDateTime::now_utc() + Duration::hours(hours);
    format!("{:04}-{:02}-{:02}T{:02}:00:00", at.year(), u8::from(at.month()), at.day(), at.hour())
}

/// Issue 33's example: a traslado of the issuer's own goods by road, HID → QUE.
fn traslado() -> Value {
    json!({ "tipoComprobante": "T",
        "conceptos": [{ "claveProdServ": "24112700", "claveUnidad": "XBX", "descripcion": "Cajas de cartón", "cantidad": 100, "precioUnitario": 0, "objetoImpuesto": "01" }],
        "complementos": { "cartaPorte": { "transpInternac": "No", "totalDistRec": "250",
            "ubicaciones": [
                { "tipoUbicacion": "Origen", "idUbicacion": "OR000001", "rfcRemitenteDestinatario": EMISOR, "fechaHoraSalidaLlegada": hora(24),
                  "domicilio": { "estado": "HID", "pais": "MEX", "codigoPostal": "42501" } },
                { "tipoUbicacion": "Destino", "idUbicacion": "DE000001", "rfcRemitenteDestinatario": "XIA190128J61", "fechaHoraSalidaLlegada": hora(30),
                  "distanciaRecorrida": "250", "domicilio": { "estado": "QUE", "pais": "MEX", "codigoPostal": "76343" } } ],
            "mercancias": { "pesoBrutoTotal": "1500", "unidadPeso": "KGM", "numTotalMercancias": 1,
                "mercancia": [{ "bienesTransp": "24112700", "descripcion": "Cajas de cartón", "cantidad": "100", "claveUnidad": "XBX", "pesoEnKg": "1500", "materialPeligroso": "No" }],
                "autotransporte": { "permSCT": "TPAF01", "numPermisoSCT": "0X2XTXZ0X5X0X3X2X1X0",
                    "identificacionVehicular": { "configVehicular": "C2", "pesoBrutoVehicular": "12", "placaVM": "501AAA", "anioModeloVM": 2020 },
                    "seguros": { "aseguraRespCivil": "SEGUROS SA", "polizaRespCivil": "123456" } } },
            "figuraTransporte": [{ "tipoFigura": "01", "rfcFigura": "VAAM130719H60", "numLicencia": "a234567890", "nombreFigura": "OPERADOR" }] } } })
}

/// A freight service (ingreso) for the customer: gasoline (hazardous, UN 1203, steel drums)
/// and pallets, CDMX → Puebla → Veracruz, a T3S2 tractor with its semi-trailer, environmental
/// and cargo insurance; the derived totals left to the service.
fn flete(cliente: &str) -> Value {
    json!({ "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente,
        "conceptos": [{ "claveProdServ": "78101802", "claveUnidad": "E48", "descripcion": "Flete de gasolina y tarimas CDMX-Puebla-Veracruz", "cantidad": 1, "precioUnitario": "28500" }],
        "complementos": { "cartaPorte": { "transpInternac": "No",
            "ubicaciones": [
                { "tipoUbicacion": "Origen", "idUbicacion": "OR000001", "rfcRemitenteDestinatario": EMISOR, "nombreRemitenteDestinatario": "ESCUELA KEMPER URGATE",
                  "fechaHoraSalidaLlegada": hora(24), "domicilio": { "calle": "Av. Juárez", "numeroExterior": "10", "estado": "CMX", "pais": "MEX", "codigoPostal": "06002" } },
                { "tipoUbicacion": "Destino", "idUbicacion": "DE000001", "rfcRemitenteDestinatario": "XIQB891116QE4", "fechaHoraSalidaLlegada": hora(30),
                  "distanciaRecorrida": "210.5", "domicilio": { "estado": "PUE", "pais": "MEX", "codigoPostal": "72000" } },
                { "tipoUbicacion": "Destino", "idUbicacion": "DE000002", "rfcRemitenteDestinatario": "XIA190128J61", "fechaHoraSalidaLlegada": hora(35),
                  "distanciaRecorrida": 130, "domicilio": { "estado": "VER", "pais": "MEX", "codigoPostal": "91000" } } ],
            "mercancias": { "unidadPeso": "KGM",
                "mercancia": [
                    { "bienesTransp": "15101514", "descripcion": "Gasolina", "cantidad": "20000", "claveUnidad": "LTR", "materialPeligroso": "Sí",
                      "cveMaterialPeligroso": "1203", "embalaje": "1A1", "descripEmbalaje": "Tambores de acero", "pesoEnKg": "15000",
                      "cantidadTransporta": [ { "cantidad": "12000", "idOrigen": "OR000001", "idDestino": "DE000001" },
                                              { "cantidad": "8000", "idOrigen": "OR000001", "idDestino": "DE000002" } ] },
                    { "bienesTransp": "24112700", "descripcion": "Tarimas", "cantidad": 10, "claveUnidad": "XBX", "materialPeligroso": "No", "pesoEnKg": "250.5" } ],
                "autotransporte": { "permSCT": "TPAF02", "numPermisoSCT": "PERM-2026-001",
                    "identificacionVehicular": { "configVehicular": "T3S2", "pesoBrutoVehicular": "41.5", "placaVM": "85AB3C", "anioModeloVM": 2022 },
                    "seguros": { "aseguraRespCivil": "SEGUROS SA", "polizaRespCivil": "RC-123456", "aseguraMedAmbiente": "ECOSEGUROS SA", "polizaMedAmbiente": "MA-998877",
                                 "aseguraCarga": "SEGUROS SA", "polizaCarga": "CG-5544", "primaSeguro": "1500.00" },
                    "remolques": [ { "subTipoRem": "CTR004", "placa": "47XY2Z" } ] } },
            "figuraTransporte": [ { "tipoFigura": "01", "rfcFigura": "VAAM130719H60", "numLicencia": "LIC-0098765", "nombreFigura": "MARIO VARGAS" } ] } } })
}

/// The traslado made international: goods entering from the United States by road under
/// definitive import, with their tariff fraction and pedimento.
fn internacional() -> Value {
    let mut body = traslado();
    let cp = &mut body["complementos"]["cartaPorte"];
    cp["transpInternac"] = json!("Sí");
    cp["entradaSalidaMerc"] = json!("Entrada");
    cp["paisOrigenDestino"] = json!("USA");
    cp["viaEntradaSalida"] = json!("01");
    cp["regimenesAduaneros"] = json!([{ "regimenAduanero": "IMD" }]);
    let mercancia = &mut cp["mercancias"]["mercancia"][0];
    mercancia["fraccionArancelaria"] = json!("4819100100");
    mercancia["documentacionAduanera"] = json!([{ "tipoDocumento": "01", "numPedimento": "26  47  3807  6001234" }]);
    body
}

/// An export sale in dollars (Exportación 02) to a customer abroad, with its Comercio Exterior.
fn exportacion(cliente: &str) -> Value {
    let iva0 = json!({ "traslados": [ { "impuesto": "IVA", "tasaOCuota": "0" } ] });
    json!({ "formaPago": "03", "metodoPago": "PUE", "moneda": "USD", "tipoCambio": "17.2545", "exportacion": "02", "clienteId": cliente,
        "conceptos": [
            { "claveProdServ": "43211503", "claveUnidad": "H87", "noIdentificacion": "LAP-14", "descripcion": "Laptop X14", "cantidad": 2, "precioUnitario": "950.00", "impuestos": iva0 },
            { "claveProdServ": "43211708", "claveUnidad": "H87", "noIdentificacion": "MOU-01", "descripcion": "Mouse inalámbrico", "cantidad": 1, "precioUnitario": "100.00", "impuestos": iva0 } ],
        "complementos": { "comercioExterior": { "claveDePedimento": "A1", "certificadoOrigen": 0, "incoterm": "FOB", "tipoCambioUSD": "17.2545",
            "emisor": { "domicilio": { "calle": "Av. Industria", "numeroExterior": "100", "estado": "HID", "pais": "MEX", "codigoPostal": "42501" } },
            "receptor": { "domicilio": { "calle": "Main St", "numeroExterior": "500", "estado": "TX", "pais": "USA", "codigoPostal": "78701" } },
            "mercancias": [
                { "noIdentificacion": "LAP-14", "fraccionArancelaria": "8471300101", "cantidadAduana": "2", "unidadAduana": "06", "valorUnitarioAduana": "950.00", "valorDolares": "1900.00",
                  "descripcionesEspecificas": [ { "marca": "ACME", "modelo": "X14", "numeroSerie": "SN-0001" } ] },
                { "noIdentificacion": "MOU-01", "fraccionArancelaria": "8471300199", "cantidadAduana": "1", "unidadAduana": "06", "valorUnitarioAduana": "100.00", "valorDolares": "100" } ] } } })
}

/// The export body as a traslado (goods sent abroad without a sale): no payment, no taxes,
/// totals at 0 (c_TipoDeComprobante's maximum for T).
fn traslado_de_exportacion(body: &mut Value) {
    body["tipoComprobante"] = json!("T");
    for campo in ["formaPago", "metodoPago"] {
        body.as_object_mut().unwrap().remove(campo);
    }
    for concepto in body["conceptos"].as_array_mut().unwrap() {
        concepto.as_object_mut().unwrap().remove("impuestos");
        concepto["objetoImpuesto"] = json!("01");
        concepto["precioUnitario"] = json!(0);
    }
}

/// A customer abroad: RFC XEXX010101000 with its country and foreign tax id.
async fn cliente_extranjero(app: &TestApp, who: &As) -> String {
    let created = app
        .post(
            "/api/clientes",
            who,
            json!({ "rfc": "XEXX010101000", "razonSocial": "ACME INC", "regimenFiscal": "616", "codigoPostal": "42501", "usoCfdi": "S01",
                    "residenciaFiscal": "USA", "numRegIdTrib": "123456789" }),
        )
        .await;
    let data = created.data(201);
    assert_eq!((data["residenciaFiscal"].as_str(), data["numRegIdTrib"].as_str()), (Some("USA"), Some("123456789")));
    data["id"].as_str().unwrap().to_owned()
}

/// The rule ids of a CFDI_001 answer.
fn reglas(answer: &crate::harness::Answer) -> Vec<String> {
    answer.assert_error(400, "CFDI_001");
    assert!(answer.body["error"]["details"]["fields"].is_array(), "{}", answer.body);
    answer.body["error"]["details"]["problemas"]
        .as_array()
        .unwrap_or_else(|| panic!("no problemas: {}", answer.body))
        .iter()
        .map(|p| p["regla"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn carta_porte_and_comercio_exterior_stamp_and_pass_sat_schema_cadena_and_seals() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "carta-porte@example.com").await;
        let extranjero = cliente_extranjero(&app, &who).await;
        let bodies = [traslado(), flete(&cliente), internacional(), exportacion(&extranjero)];
        let mut stamped = Vec::new();
        for body in &bodies {
            let answer = timbrar(&app, &who, body, None).await;
            assert_eq!(answer.status, 201, "{}", answer.body);
            stamped.push(answer.data(201).clone());
        }
        // Traslado: totals at 0.
        assert_eq!(stamped[0]["total"], json!("0"));

        let dir = TempDir::new();
        let mut files = Vec::new();
        for (i, s) in stamped.iter().enumerate() {
            let (status, xml) =
                raw(&app, &format!("/api/cfdi/{}/xml", s["cfdiId"].as_str().unwrap()), Some(&who)).await;
            assert_eq!(status, 200);
            let path = dir.0.join(format!("c{i}.xml"));
            std::fs::write(&path, &xml).unwrap();
            files.push((path, xml));
        }
        // What SAT derives, filled by the service; nothing the body did not send.
        let flete_xml = &files[1].1;
        for expected in [
            "Version=\"3.1\"",
            "IdCCP=\"CCC",
            "TotalDistRec=\"340.5\"",
            "PesoBrutoTotal=\"15250.5\"",
            "NumTotalMercancias=\"2\"",
            "ConfigVehicular=\"T3S2\"",
            "SubTipoRem=\"CTR004\"",
            "CveMaterialPeligroso=\"1203\"",
            "AseguraMedAmbiente=\"ECOSEGUROS SA\"",
        ] {
            assert!(flete_xml.contains(expected), "{expected} missing:\n{flete_xml}");
        }
        assert!(
            files[0].1.contains("TipoDeComprobante=\"T\"")
                && files[0].1.contains("SubTotal=\"0\"")
                && files[0].1.contains("Total=\"0\""),
            "{}",
            files[0].1
        );
        assert!(files[2].1.contains("TranspInternac=\"Sí\"") && files[2].1.contains("RegimenAduanero=\"IMD\""));
        let cce = &files[3].1;
        assert!(
            cce.contains("Exportacion=\"02\"")
                && cce.contains("TotalUSD=\"2000.00\"")
                && cce.contains("ResidenciaFiscal=\"USA\""),
            "{cce}"
        );
        // Pinned: the receiver's NumRegIdTrib stays on the CFDI's Receptor, not copied into the complement.
        let cce_receptor = cce.split("<cce20:Receptor").nth(1).unwrap().split('>').next().unwrap();
        assert!(!cce_receptor.contains("NumRegIdTrib"), "{cce_receptor}");

        // The parser reads the service's own output back, and the complement comes back equal.
        for (_, xml) in &files {
            let comprobante = timbra_cfdi::parser::parsear(xml).unwrap();
            let again = timbra_cfdi::parser::parsear(&timbra_cfdi::escritura::escribir(&comprobante).unwrap()).unwrap();
            assert_eq!(again.complementos, comprobante.complementos);
        }
        let pac_cer = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac_cer, &dir.0);

        // GET returns the complement under the body's names, decimals as strings.
        let detalle = app.get(&format!("/api/cfdi/{}", stamped[1]["cfdiId"].as_str().unwrap()), &who).await;
        let cp = &detalle.data(200)["complementos"]["cartaPorte"];
        assert!(cp["idCCP"].as_str().unwrap().starts_with("CCC"), "{cp}");
        assert_eq!(cp["totalDistRec"], json!("340.5"));
        assert_eq!(cp["ubicaciones"][1]["idUbicacion"], json!("DE000001"));
        assert_eq!(cp["mercancias"]["mercancia"][0]["cantidadTransporta"][1]["idDestino"], json!("DE000002"));
        assert_eq!(cp["mercancias"]["autotransporte"]["remolques"][0]["subTipoRem"], json!("CTR004"));
        assert_eq!(cp["figuraTransporte"][0]["rfcFigura"], json!("VAAM130719H60"));
        // Members come in SAT's order, as timbra-cfdi writes them.
        let (_, texto) = raw(&app, &format!("/api/cfdi/{}", stamped[1]["cfdiId"].as_str().unwrap()), Some(&who)).await;
        let posicion =
            |clave: &str| texto.find(&format!("\"{clave}\":")).unwrap_or_else(|| panic!("{clave} in {texto}"));
        assert!(posicion("version") < posicion("idCCP") && posicion("idCCP") < posicion("ubicaciones"), "{texto}");
        assert!(
            posicion("ubicaciones") < posicion("mercancias") && posicion("mercancias") < posicion("figuraTransporte"),
            "{texto}"
        );
        let sent = &bodies[1]["complementos"]["cartaPorte"];
        assert_eq!(cp["ubicaciones"][0]["domicilio"], sent["ubicaciones"][0]["domicilio"]);
        let detalle = app.get(&format!("/api/cfdi/{}", stamped[3]["cfdiId"].as_str().unwrap()), &who).await;
        let cce_json = &detalle.data(200)["complementos"]["comercioExterior"];
        assert_eq!(cce_json["totalUSD"], json!("2000.00"));
        assert_eq!(cce_json["mercancias"][0]["descripcionesEspecificas"][0]["marca"], json!("ACME"));
        // An invoice without complements has none.
        let plain = timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await.data(201).clone();
        let detalle = app.get(&format!("/api/cfdi/{}", plain["cfdiId"].as_str().unwrap()), &who).await;
        assert!(detalle.data(200).get("complementos").is_none());

        // The listing filters by complement.
        let ids = |listed: &Value| -> Vec<String> {
            listed["cfdis"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_owned()).collect()
        };
        let listed = app.get("/api/cfdi?complemento=cartaPorte", &who).await.data(200).clone();
        assert_eq!(listed["total"], json!(3));
        let mut got = ids(&listed);
        got.sort();
        let mut want: Vec<String> = stamped[..3].iter().map(|s| s["cfdiId"].as_str().unwrap().to_owned()).collect();
        want.sort();
        assert_eq!(got, want);
        let listed = app.get("/api/cfdi?complemento=comercioExterior", &who).await.data(200).clone();
        assert_eq!(ids(&listed), vec![stamped[3]["cfdiId"].as_str().unwrap().to_owned()]);
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(5));
        app.get("/api/cfdi?complemento=nomina", &who).await.assert_error(400, "REQUEST_001");

        // Cancelled like any invoice.
        let id = stamped[0]["cfdiId"].as_str().unwrap();
        let cancelada = crate::cfdi::cancelar(&app, &who, id, json!({ "motivo": "02" }), None).await;
        assert_eq!(cancelada.status, 200, "{}", cancelada.body);
        let listed = app.get("/api/cfdi?complemento=cartaPorte&status=CANCELADO", &who).await.data(200).clone();
        assert_eq!(ids(&listed), vec![id.to_owned()]);
    })
    .await;
}

#[tokio::test]
async fn every_carta_porte_and_comercio_exterior_rule_has_a_failing_body() {
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "reglas-cp@example.com").await;
        let extranjero = cliente_extranjero(&app, &who).await;
        type Caso = (&'static str, fn(&mut Value));
        let carta_porte: &[Caso] = &[
            ("CP31_VERSION", |b| b["complementos"]["cartaPorte"]["version"] = json!("3.0")),
            ("CP31_ID_CCP", |b| b["complementos"]["cartaPorte"]["idCCP"] = json!("CCC-123")),
            ("CP31_TOTAL_DIST_REC", |b| b["complementos"]["cartaPorte"]["totalDistRec"] = json!("300")),
            ("CP31_NUM_TOTAL_MERCANCIAS", |b| b["complementos"]["cartaPorte"]["mercancias"]["numTotalMercancias"] = json!(2)),
            ("CP31_PESO_BRUTO_TOTAL", |b| b["complementos"]["cartaPorte"]["mercancias"]["pesoBrutoTotal"] = json!("1400")),
            ("CP31_TRANSP_INTERNAC", |b| b["complementos"]["cartaPorte"]["transpInternac"] = json!("Si")),
            ("CP31_INTERNACIONAL", |b| b["complementos"]["cartaPorte"]["transpInternac"] = json!("Sí")),
            ("CP31_PAIS_ORIGEN_DESTINO", |b| {
                *b = internacional();
                b["complementos"]["cartaPorte"]["paisOrigenDestino"] = json!("MEX");
            }),
            ("CP31_REGIMEN_ADUANERO", |b| {
                *b = internacional();
                b["complementos"]["cartaPorte"]["regimenesAduaneros"][0]["regimenAduanero"] = json!("XXX");
            }),
            ("CP31_FRACCION_REQUERIDA", |b| {
                *b = internacional();
                b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0].as_object_mut().unwrap().remove("fraccionArancelaria");
            }),
            ("CP31_DOCUMENTACION_ADUANERA", |b| {
                *b = internacional();
                b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0]["documentacionAduanera"] = json!([]);
            }),
            ("CP31_TIPO_DOCUMENTO", |b| {
                *b = internacional();
                b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0]["documentacionAduanera"][0]["tipoDocumento"] = json!("99");
            }),
            ("CP31_FRACCION_ARANCELARIA", |b| {
                *b = internacional();
                b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0]["fraccionArancelaria"] = json!("48191");
            }),
            ("CP31_ESTADO", |b| b["complementos"]["cartaPorte"]["ubicaciones"][0]["domicilio"]["estado"] = json!("Hidalgo")),
            ("CP31_CODIGO_POSTAL", |b| b["complementos"]["cartaPorte"]["ubicaciones"][0]["domicilio"]["codigoPostal"] = json!("4250")),
            ("CP31_UBICACIONES", |b| b["complementos"]["cartaPorte"]["ubicaciones"][1]["tipoUbicacion"] = json!("Origen")),
            ("CP31_ID_UBICACION", |b| b["complementos"]["cartaPorte"]["ubicaciones"][1]["idUbicacion"] = json!("OR000002")),
            ("CP31_RFC_UBICACION", |b| b["complementos"]["cartaPorte"]["ubicaciones"][1]["rfcRemitenteDestinatario"] = json!("XIA190128")),
            ("CP31_EXTRANJERO_UBICACION", |b| b["complementos"]["cartaPorte"]["ubicaciones"][1]["rfcRemitenteDestinatario"] = json!("XEXX010101000")),
            ("CP31_FECHA", |b| b["complementos"]["cartaPorte"]["ubicaciones"][1]["fechaHoraSalidaLlegada"] = json!("2026-12-01 14:00")),
            ("CP31_FECHAS_ORDEN", |b| b["complementos"]["cartaPorte"]["ubicaciones"][1]["fechaHoraSalidaLlegada"] = json!(hora(20))),
            ("CP31_DISTANCIA_RECORRIDA", |b| {
                b["complementos"]["cartaPorte"]["ubicaciones"][1].as_object_mut().unwrap().remove("distanciaRecorrida");
                b["complementos"]["cartaPorte"].as_object_mut().unwrap().remove("totalDistRec");
            }),
            ("CP31_UNIDAD_PESO", |b| b["complementos"]["cartaPorte"]["mercancias"]["unidadPeso"] = json!("KILOS")),
            ("CP31_BIENES_TRANSP", |b| b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0]["bienesTransp"] = json!("2411270")),
            ("CP31_MATERIAL_PELIGROSO", |b| b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0]["cveMaterialPeligroso"] = json!("1203")),
            ("CP31_CVE_MATERIAL_PELIGROSO", |b| {
                let m = &mut b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0];
                m["materialPeligroso"] = json!("Sí");
                m["cveMaterialPeligroso"] = json!("12AB");
                m["embalaje"] = json!("1A1");
            }),
            ("CP31_EMBALAJE", |b| {
                let m = &mut b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0];
                m["materialPeligroso"] = json!("Sí");
                m["cveMaterialPeligroso"] = json!("1203");
                m["embalaje"] = json!("9Z9");
            }),
            ("CP31_SEGURO_AMBIENTAL", |b| {
                let m = &mut b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0];
                m["materialPeligroso"] = json!("Sí");
                m["cveMaterialPeligroso"] = json!("1203");
                m["embalaje"] = json!("1A1");
            }),
            ("CP31_CANTIDAD_TRANSPORTA", |b| {
                b["complementos"]["cartaPorte"]["mercancias"]["mercancia"][0]["cantidadTransporta"] =
                    json!([{ "cantidad": "100", "idOrigen": "OR000009", "idDestino": "DE000001" }]);
            }),
            ("CP31_PERM_SCT", |b| b["complementos"]["cartaPorte"]["mercancias"]["autotransporte"]["permSCT"] = json!("TPAF99")),
            ("CP31_CONFIG_VEHICULAR", |b| {
                b["complementos"]["cartaPorte"]["mercancias"]["autotransporte"]["identificacionVehicular"]["configVehicular"] = json!("C9")
            }),
            ("CP31_REMOLQUE", |b| {
                b["complementos"]["cartaPorte"]["mercancias"]["autotransporte"]["identificacionVehicular"]["configVehicular"] = json!("T3S2")
            }),
            ("CP31_SUBTIPO_REM", |b| {
                let a = &mut b["complementos"]["cartaPorte"]["mercancias"]["autotransporte"];
                a["identificacionVehicular"]["configVehicular"] = json!("T3S2");
                a["remolques"] = json!([{ "subTipoRem": "CTR999", "placa": "47XY2Z" }]);
            }),
            ("CP31_SEGURO_PAR", |b| b["complementos"]["cartaPorte"]["mercancias"]["autotransporte"]["seguros"]["aseguraCarga"] = json!("SEGUROS SA")),
            ("CP31_ANIO_MODELO", |b| {
                b["complementos"]["cartaPorte"]["mercancias"]["autotransporte"]["identificacionVehicular"]["anioModeloVM"] = json!(1890)
            }),
            ("CP31_FIGURA_REQUERIDA", |b| b["complementos"]["cartaPorte"]["figuraTransporte"] = json!([])),
            ("CP31_TIPO_FIGURA", |b| b["complementos"]["cartaPorte"]["figuraTransporte"][0]["tipoFigura"] = json!("07")),
            ("CP31_FIGURA_OPERADOR", |b| {
                b["complementos"]["cartaPorte"]["figuraTransporte"][0].as_object_mut().unwrap().remove("numLicencia");
            }),
            ("CP31_FIGURA_IDENTIDAD", |b| {
                b["complementos"]["cartaPorte"]["figuraTransporte"][0].as_object_mut().unwrap().remove("rfcFigura");
            }),
            ("CP31_PARTE_TRANSPORTE", |b| {
                b["complementos"]["cartaPorte"]["figuraTransporte"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({ "tipoFigura": "02", "rfcFigura": EMISOR, "nombreFigura": "ESCUELA KEMPER URGATE" }));
            }),
            ("CP31_CATALOGO", |b| b["complementos"]["cartaPorte"]["ubicaciones"][0]["tipoEstacion"] = json!("09")),
            ("CP31_CATALOGO_FORMA", |b| b["complementos"]["cartaPorte"]["ubicaciones"][0]["numEstacion"] = json!("¿?")),
            ("CP31_TIPO_COMPROBANTE", |b| {
                b["tipoComprobante"] = json!("E");
                b["formaPago"] = json!("03");
                b["metodoPago"] = json!("PUE");
                b["usoCfdi"] = json!("G02");
            }),
            ("ENTRADA", |b| b["complementos"]["cartaPorte"]["ubicaciones"][0]["estadoo"] = json!("HID")),
            ("ENTRADA", |b| b["complementos"]["nomina"] = json!({})),
        ];
        for (regla, romper) in carta_porte {
            let mut body = traslado();
            romper(&mut body);
            let answer = timbrar(&app, &who, &body, None).await;
            let found = reglas(&answer);
            assert!(found.iter().any(|r| r == regla), "{regla}: {found:?} {}", answer.body);
            // A complement's problem names the member of the body to fix.
            let problema = answer.body["error"]["details"]["problemas"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["regla"] == json!(regla))
                .unwrap()
                .clone();
            let campo = problema["campo"].as_str().unwrap();
            if regla.starts_with("CP31_") && *regla != "CP31_TIPO_COMPROBANTE" {
                assert!(campo.starts_with("complementos.cartaPorte"), "{regla}: {campo}");
            }
            assert!(!problema["mensaje"].as_str().unwrap().is_empty());
        }
        // One JSON path, checked whole.
        let mut body = traslado();
        body["complementos"]["cartaPorte"]["ubicaciones"][1]["domicilio"]["estado"] = json!("Querétaro");
        let answer = timbrar(&app, &who, &body, None).await;
        let problemas = answer.body["error"]["details"]["problemas"].as_array().unwrap().clone();
        assert!(
            problemas.iter().any(|p| p["regla"] == json!("CP31_ESTADO") && p["campo"] == json!("complementos.cartaPorte.ubicaciones[1].domicilio.estado")),
            "{problemas:?}"
        );
        assert!(answer.body["error"]["details"]["fields"].as_array().unwrap().iter().any(|f| f["field"] == json!("complementos.cartaPorte.ubicaciones[1].domicilio.estado")));

        let comercio_exterior: &[Caso] = &[
            ("CCE20_VERSION", |b| b["complementos"]["comercioExterior"]["version"] = json!("1.1")),
            ("CCE20_TOTAL_USD", |b| b["complementos"]["comercioExterior"]["totalUSD"] = json!("2500")),
            ("CCE20_EXPORTACION", |b| b["exportacion"] = json!("01")),
            // Exportación 02 without the complement is SAT's CFDI40122 (crates/cfdi/REGLAS.md).
            ("CFDI40122", |b| {
                b.as_object_mut().unwrap().remove("complementos");
            }),
            ("CCE20_CLAVE_PEDIMENTO", |b| b["complementos"]["comercioExterior"]["claveDePedimento"] = json!("B1")),
            ("CCE20_CERTIFICADO_ORIGEN", |b| b["complementos"]["comercioExterior"]["certificadoOrigen"] = json!(1)),
            ("CCE20_INCOTERM", |b| b["complementos"]["comercioExterior"]["incoterm"] = json!("XYZ")),
            ("CCE20_MOTIVO_TRASLADO", |b| b["complementos"]["comercioExterior"]["motivoTraslado"] = json!("01")),
            ("CCE20_MOTIVO_TRASLADO", traslado_de_exportacion),
            ("CCE20_PROPIETARIO", |b| {
                traslado_de_exportacion(b);
                b["complementos"]["comercioExterior"]["motivoTraslado"] = json!("05");
            }),
            ("CCE20_TIPO_CAMBIO_USD", |b| b["complementos"]["comercioExterior"]["tipoCambioUSD"] = json!("18.00")),
            ("CCE20_DOMICILIO_EMISOR", |b| b["complementos"]["comercioExterior"]["emisor"]["domicilio"]["pais"] = json!("USA")),
            ("CCE20_ESTADO", |b| {
                let d = &mut b["complementos"]["comercioExterior"]["receptor"]["domicilio"];
                d["pais"] = json!("MEX");
                d["estado"] = json!("TX");
            }),
            ("CCE20_NO_IDENTIFICACION", |b| b["conceptos"][1]["noIdentificacion"] = json!("KEY-99")),
            ("CCE20_MERCANCIA_SIN_CONCEPTO", |b| b["complementos"]["comercioExterior"]["mercancias"][1]["noIdentificacion"] = json!("KEY-99")),
            ("CCE20_FRACCION_ARANCELARIA", |b| b["complementos"]["comercioExterior"]["mercancias"][0]["fraccionArancelaria"] = json!("84713")),
            ("CCE20_ADUANA_GRUPO", |b| {
                b["complementos"]["comercioExterior"]["mercancias"][1].as_object_mut().unwrap().remove("unidadAduana");
            }),
            ("CCE20_UNIDAD_ADUANA", |b| b["complementos"]["comercioExterior"]["mercancias"][1]["unidadAduana"] = json!("77")),
            ("CCE20_VALOR_DOLARES", |b| {
                let m = &mut b["complementos"]["comercioExterior"]["mercancias"][1];
                m["valorDolares"] = json!("150");
                b["complementos"]["comercioExterior"]["totalUSD"] = json!("2050.00");
            }),
        ];
        for (regla, romper) in comercio_exterior {
            let mut body = exportacion(&extranjero);
            romper(&mut body);
            let answer = timbrar(&app, &who, &body, None).await;
            let found = reglas(&answer);
            assert!(found.iter().any(|r| r == regla), "{regla}: {found:?} {}", answer.body);
        }
        // The receiver abroad needs its country and tax id on the customer.
        let sin_registro = app
            .post("/api/clientes", &who, json!({ "rfc": "XEXX010101000", "razonSocial": "OTRA INC", "regimenFiscal": "616", "codigoPostal": "42501", "usoCfdi": "S01" }))
            .await;
        let sin_registro = sin_registro.data(201)["id"].as_str().unwrap().to_owned();
        let found = reglas(&timbrar(&app, &who, &exportacion(&sin_registro), None).await);
        assert!(found.iter().any(|r| r == "CCE20_RECEPTOR_EXTRANJERO"), "{found:?}");
        // Customers: both or neither, and only abroad.
        app.post("/api/clientes", &who, json!({ "rfc": "XEXX010101000", "razonSocial": "MEDIA INC", "regimenFiscal": "616", "codigoPostal": "42501", "residenciaFiscal": "CAN" }))
            .await
            .assert_error(400, "CLIENTE_001");
        app.call(Method::PATCH, &format!("/api/clientes/{cliente}"), &who, Some(json!({ "residenciaFiscal": "USA", "numRegIdTrib": "1" })))
            .await
            .assert_error(400, "CLIENTE_001");
        // Nothing was stamped.
        assert_eq!(app.get("/api/cfdi", &who).await.data(200)["total"], json!(0));
    })
    .await;
}

#[tokio::test]
async fn products_hold_the_complements_defaults() {
    each_backend(|app: TestApp| async move {
        let (who, _) = setup(&app, "productos-cp@example.com").await;
        let created = app
            .post("/api/productos", &who, json!({ "claveProdServ": "15101514", "claveUnidad": "LTR", "descripcion": "Gasolina", "precioUnitario": "24.50",
                "fraccionArancelaria": "2710124990", "materialPeligroso": "Sí" }))
            .await;
        let data = created.data(201).clone();
        assert_eq!((data["fraccionArancelaria"].as_str(), data["materialPeligroso"].as_str()), (Some("2710124990"), Some("Sí")));
        let id = data["id"].as_str().unwrap();
        let updated = app.call(Method::PATCH, &format!("/api/productos/{id}"), &who, Some(json!({ "materialPeligroso": "No" }))).await;
        assert_eq!(updated.data(200)["materialPeligroso"], json!("No"));
        assert_eq!(updated.data(200)["fraccionArancelaria"], json!("2710124990"));
        app.post("/api/productos", &who, json!({ "claveProdServ": "15101514", "claveUnidad": "LTR", "descripcion": "Gasolina", "precioUnitario": 1, "fraccionArancelaria": "27101" }))
            .await
            .assert_error(400, "PRODUCTO_001");
        app.post("/api/productos", &who, json!({ "claveProdServ": "15101514", "claveUnidad": "LTR", "descripcion": "Gasolina", "precioUnitario": 1, "materialPeligroso": "Quizá" }))
            .await
            .assert_error(400, "PRODUCTO_001");
    })
    .await;
}

/// Rasterizes every page of `pdf` and decodes every QR code with zbarimg.
fn qrs_of(pdf: &Path) -> Vec<String> {
    let prefix = pdf.with_extension("");
    let (ok, _, err) =
        sh("pdftoppm", &["-png", "-r", "150", pdf.to_str().unwrap(), prefix.to_str().unwrap()], Path::new("."));
    assert!(ok, "pdftoppm: {err}");
    let dir = pdf.parent().unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "png") {
            let (_, out, _) = sh("zbarimg", &["--raw", "-q", path.to_str().unwrap()], Path::new("."));
            found.extend(String::from_utf8(out).unwrap().lines().map(str::to_owned));
        }
    }
    found
}

#[tokio::test]
async fn the_pdf_prints_route_goods_vehicle_operator_export_data_and_the_carta_porte_qr() {
    if !timbra_testkit::tools(&["pdftotext", "pdftoppm", "zbarimg"]) {
        return;
    }
    let app = crate::harness::sqlite_app().await;
    let (who, cliente) = setup(&app, "pdf-cp@example.com").await;
    let extranjero = cliente_extranjero(&app, &who).await;
    let stamped = timbrar(&app, &who, &flete(&cliente), None).await.data(201).clone();
    let export = timbrar(&app, &who, &exportacion(&extranjero), None).await.data(201).clone();
    let pdf = |id: String| {
        let app = &app;
        let who = &who;
        async move {
            let response = app
                .client
                .get(format!("{}/api/cfdi/{id}/pdf", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", who.empresa.as_deref().unwrap())
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            response.bytes().await.unwrap()
        }
    };
    let dir = TempDir::new();
    let file = dir.0.join("flete.pdf");
    std::fs::write(&file, pdf(stamped["cfdiId"].as_str().unwrap().to_owned()).await).unwrap();
    let (ok, text, err) = sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], Path::new("."));
    assert!(ok, "pdftotext: {err}");
    let text = String::from_utf8(text).unwrap();
    for expected in [
        "COMPLEMENTO CARTA PORTE 3.1",
        "UBICACIONES",
        "Origen",
        "OR000001",
        "DE000002",
        "CMX",
        "VER",
        "Gasolina",
        "1203",
        "T3S2",
        "85AB3C",
        "CTR004",
        "47XY2Z",
        "TPAF02",
        "ECOSEGUROS SA",
        "VAAM130719H60",
        "MARIO VARGAS",
        "LIC-0098765",
        "340.5",
    ] {
        assert!(text.contains(expected), "{expected} missing from the PDF:\n{text}");
    }
    // Both QR codes: the CFDI's and SAT's Carta Porte verification of the IdCCP.
    let xml = raw(&app, &format!("/api/cfdi/{}/xml", stamped["cfdiId"].as_str().unwrap()), Some(&who)).await.1;
    let comprobante = timbra_cfdi::parser::parsear(&xml).unwrap();
    let cp = comprobante.carta_porte().unwrap();
    let tfd = comprobante.timbre().unwrap();
    let expected = format!(
        "https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP={}&FechaOrig={}&FechaTimb={}",
        cp.id_ccp, cp.ubicaciones[0].fecha_hora_salida_llegada, tfd.fecha_timbrado
    );
    // A live Carta Porte prints SAT's verificaccp QR beside the CFDI's; this sandbox one prints
    // only the test QR (issue 38), no SAT URL.
    assert_eq!(timbra_pdf::url_carta_porte(&comprobante).unwrap(), expected);
    let qrs = qrs_of(&file);
    assert_eq!(qrs, vec![timbra_pdf::texto_qr_pruebas(uuid_of(&stamped))], "{qrs:?}");
    assert!(text.contains(timbra_pdf::MARCA_PRUEBAS));

    let dir = TempDir::new();
    let file = dir.0.join("export.pdf");
    std::fs::write(&file, pdf(export["cfdiId"].as_str().unwrap().to_owned()).await).unwrap();
    let (_, text, _) = sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], Path::new("."));
    let text = String::from_utf8(text).unwrap();
    for expected in
        ["COMERCIO EXTERIOR 2.0", "FOB", "A1", "8471300101", "LAP-14", "17.2545", "2,000.00", "Main St", "123456789"]
    {
        assert!(text.contains(expected), "{expected} missing from the PDF:\n{text}");
    }
}

#[tokio::test]
async fn a_carta_porte_stamps_live_through_the_pac() {
    let (_sim, url) = start_pac_sim().await;
    let good = crate::cfdi::csd_vigente();
    let adjust = crate::cfdi::con_pac(&url);
    each_backend_with(adjust, |app: TestApp| {
        let good = good.clone();
        async move {
            let (who, _) = live_company(&app, "live-cp@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 2 })).await.data(201);
            let stamped = timbrar(&app, &who, &traslado(), None).await;
            assert_eq!(stamped.status, 201, "{}", stamped.body);
            let stamped = stamped.data(201).clone();
            assert_eq!(stamped["uuid"].as_str().unwrap().len(), 36, "{stamped}");
            let id = stamped["cfdiId"].as_str().unwrap();
            let (status, xml) = raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
            assert_eq!(status, 200);
            assert!(xml.contains("cartaporte31:CartaPorte") && xml.contains("tfd:TimbreFiscalDigital"), "{xml}");
            timbra_cfdi::sello::verificar_sello_xml(&xml).unwrap();
            let detalle = app.get(&format!("/api/cfdi/{id}"), &who).await;
            assert_eq!(
                detalle.data(200)["complementos"]["cartaPorte"]["ubicaciones"][0]["idUbicacion"],
                json!("OR000001")
            );
            let listed = app.get("/api/cfdi?complemento=cartaPorte", &who).await.data(200).clone();
            assert_eq!(listed["total"], json!(1));
        }
    })
    .await;
}

/// `documento` (a received invoice of the simulator's batch) re-issued with `complemento`:
/// sealed again with the issuer's CSD and stamped with the simulator's SAT certificate.
fn recibida_con(
    documento: &timbra_sim::sat::DocumentoSim,
    complemento: timbra_cfdi::complementos::Complemento,
) -> timbra_sim::sat::DocumentoSim {
    use timbra_cfdi::complementos::Complemento;
    let firmantes = &*crate::recibidos::FIRMANTES;
    let mut comprobante = timbra_cfdi::parser::parsear(&documento.xml).unwrap();
    let tfd = comprobante.timbre().unwrap().clone();
    comprobante.complementos.retain(|c| !matches!(c, Complemento::TimbreFiscalDigital(_)));
    comprobante.complementos.push(complemento);
    timbra_cfdi::sello::sellar(&mut comprobante, firmantes.csd_emisor.as_ref()).unwrap();
    let datos = timbra_cfdi::timbre::DatosTimbre {
        uuid: tfd.uuid.clone(),
        fecha_timbrado: tfd.fecha_timbrado.clone(),
        rfc_prov_certif: tfd.rfc_prov_certif.clone(),
        leyenda: None,
    };
    timbra_cfdi::timbre::timbrar(&mut comprobante, datos, firmantes.sat.as_ref()).unwrap();
    timbra_sim::sat::DocumentoSim::desde_xml(&timbra_cfdi::escritura::escribir(&comprobante).unwrap()).unwrap()
}

#[tokio::test]
async fn received_invoices_with_carta_porte_show_it_and_are_filtered() {
    use timbra_cfdi::complementos::Complemento;
    let lote = crate::recibidos::recibidas(2);
    let cp_json = traslado()["complementos"]["cartaPorte"].to_string();
    let cp = timbra_cfdi::carta_porte::construir(&cp_json, || timbra_cfdi::carta_porte::id_ccp([9; 16])).unwrap();
    let documentos = vec![recibida_con(&lote[0], Complemento::CartaPorte(Box::new(cp.clone()))), lote[1].clone()];
    let sat = crate::recibidos::sat(|c| c.documentos = documentos.clone()).await;
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    each_backend_with(crate::recibidos::configurar(&sat, &clock), |app: TestApp| {
        let (sat, documentos, cp) = (&sat, documentos.clone(), cp.clone());
        async move {
            sat.sim.reiniciar();
            let (_, who) = crate::recibidos::empresa(&app, "recibidas-cp@example.com").await;
            let (year, month, _) = crate::recibidos::mes_pasado();
            app.post("/api/cfdi/sync-recibidos", &who, json!({ "year": year, "month": month })).await.data(200);
            let status = crate::recibidos::sync_terminada(&app, &who).await;
            assert_eq!(status["totalRecibidos"], json!(2), "{status:#}");
            let listed = app.get("/api/cfdi?complemento=cartaPorte", &who).await.data(200).clone();
            assert_eq!(listed["total"], json!(1), "{listed:#}");
            let item = &listed["cfdis"][0];
            assert_eq!(
                (item["tipo"].as_str(), item["uuid"].as_str()),
                (Some("RECIBIDA"), Some(documentos[0].uuid.as_str()))
            );
            let detalle = app.get(&format!("/api/cfdi/{}", item["id"].as_str().unwrap()), &who).await;
            let json_cp = &detalle.data(200)["complementos"]["cartaPorte"];
            assert_eq!(json_cp["idCCP"], json!(cp.id_ccp));
            assert_eq!(
                timbra_cfdi::carta_porte::desde_json(&json_cp.to_string()).unwrap(),
                cp,
                "the JSON reads back into the model received"
            );
        }
    })
    .await;
}
