//! Payroll through the year (issue 35) over HTTP on both backends: the company's payroll
//! settings, extraordinary (TipoNomina E) aguinaldo periods calculated with the brief's worked
//! figures (PAYROLL_EXTRAS_2026.md §1.5), stamped and checked by SAT's own tools, a second
//! aguinaldo of the year refused or paid as a supplement, and the bad paths.

use reqwest::Method;
use serde_json::{Value, json};

use crate::cfdi::{sandbox_pac_cer, sat_oracle};
use crate::harness::{As, TempDir, TestApp, each_backend};
use crate::nomina_timbrado::{empleado_generado, empresa_nomina, timbrar, xmls};

/// A JSON number or decimal string as f64 (figures are compared to the centavo).
fn num(valor: &Value) -> f64 {
    valor.as_f64().or_else(|| valor.as_str().and_then(|s| s.parse().ok())).unwrap_or_else(|| panic!("{valor}"))
}

/// Employee `k` with its salary, hire date and periodicidad.
fn empleado(k: usize, salario: &str, alta: &str, periodicidad: &str) -> Value {
    let mut e = empleado_generado(k);
    e["salarioDiario"] = json!(salario);
    e["salarioDiarioIntegrado"] = json!(salario);
    e["fechaInicioRelLaboral"] = json!(alta);
    e["periodicidad"] = json!(periodicidad);
    e
}

async fn crear_empleado(app: &TestApp, who: &As, body: Value) -> String {
    app.post("/api/nomina/empleados", who, body).await.data(201)["id"].as_str().unwrap().to_owned()
}

fn aguinaldo_body(fecha_pago: &str) -> Value {
    json!({ "tipo": "EXTRAORDINARIA", "concepto": "AGUINALDO", "fechaPago": fecha_pago })
}

async fn periodo_aguinaldo(app: &TestApp, who: &As, fecha_pago: &str) -> String {
    let creado = app.post("/api/nomina/periodos", who, aguinaldo_body(fecha_pago)).await;
    let data = creado.data(201);
    assert_eq!(
        (data["tipo"].as_str(), data["concepto"].as_str(), data["periodicidad"].as_str(), data["status"].as_str()),
        (Some("EXTRAORDINARIA"), Some("AGUINALDO"), Some("99"), Some("ABIERTO")),
        "{data}"
    );
    assert_eq!((data["fechaInicio"].as_str(), data["fechaFin"].as_str()), (Some(fecha_pago), Some(fecha_pago)));
    data["id"].as_str().unwrap().to_owned()
}

/// The period's receipt of `empleado_id`.
fn recibo_de<'a>(detalle: &'a Value, empleado_id: &str) -> &'a Value {
    detalle["recibos"].as_array().unwrap().iter().find(|r| r["empleadoId"] == empleado_id).unwrap()
}

#[tokio::test]
async fn company_payroll_settings_have_defaults_rules_and_round_trip() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ajustes@example.com").await;
        let base = json!({ "rfc": "EKU9003173C9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "86000" });
        // Bad values: every problem at once.
        let mut malo = base.clone();
        malo["diasAguinaldo"] = json!(14);
        malo["metodoIsrExtraordinario"] = json!("ART174");
        malo["primaRiesgo"] = json!(16);
        let error = app.post("/api/empresas", &As::key(&key), malo).await;
        error.assert_error(400, "EMPRESA_001");
        let campos: Vec<&str> = error.body["error"]["details"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap())
            .collect();
        for campo in ["diasAguinaldo", "metodoIsrExtraordinario", "primaRiesgo"] {
            assert!(campos.contains(&campo), "{campo} missing: {:?}", error.body);
        }
        for (campo, valor) in
            [("diasAguinaldo", json!("15")), ("diasAguinaldo", json!(15.5)), ("primaRiesgo", json!(0.4)), ("primaRiesgo", json!("x"))]
        {
            let mut malo = base.clone();
            malo[campo] = valor.clone();
            app.post("/api/empresas", &As::key(&key), malo).await.assert_error(400, "EMPRESA_001");
        }
        // Defaults.
        let creada = app.post("/api/empresas", &As::key(&key), base).await.data(201).clone();
        assert_eq!(
            (creada["diasAguinaldo"].as_i64(), creada["metodoIsrExtraordinario"].as_str(), creada["primaRiesgo"].is_null()),
            (Some(15), Some("ART96"), true),
            "{creada}"
        );
        let id = creada["id"].as_str().unwrap();
        let path = format!("/api/empresas/{id}");
        let cambio = json!({ "diasAguinaldo": 20, "metodoIsrExtraordinario": "rlisr174", "primaRiesgo": 0.54355 });
        let cambiada = app.call(Method::PATCH, &path, &As::key(&key), Some(cambio)).await.data(200).clone();
        assert_eq!(
            (cambiada["diasAguinaldo"].as_i64(), cambiada["metodoIsrExtraordinario"].as_str(), num(&cambiada["primaRiesgo"])),
            (Some(20), Some("RLISR174"), 0.54355),
            "{cambiada}"
        );
        // Other fields untouched by a PATCH that does not send them; a bad value changes nothing.
        let otra = app.call(Method::PATCH, &path, &As::key(&key), Some(json!({ "nombreComercial": "EKU" }))).await;
        assert_eq!(otra.data(200)["diasAguinaldo"], 20);
        assert_eq!(num(&otra.data(200)["primaRiesgo"]), 0.54355);
        app.call(Method::PATCH, &path, &As::key(&key), Some(json!({ "primaRiesgo": "15.5" })))
            .await
            .assert_error(400, "EMPRESA_001");
        let leida = app.get(&path, &As::key(&key)).await.data(200).clone();
        assert_eq!((leida["diasAguinaldo"].as_i64(), num(&leida["primaRiesgo"])), (Some(20), 0.54355));
    })
    .await;
}

/// PAYROLL_EXTRAS_2026.md §1.5: (salario, alta, importe, exento, gravado, ISR ART96, ISR RLISR174).
const CASOS: [(&str, &str, f64, f64, f64, f64, f64); 4] = [
    ("350.00", "2019-03-01", 5250.00, 3519.30, 1730.70, 188.30, 188.30),
    ("800.00", "2026-07-01", 6049.32, 3519.30, 2530.02, 540.41, 540.41),
    ("570.00", "2018-01-15", 8550.00, 3519.30, 5030.70, 1067.47, 989.51),
    ("2500.00", "2015-06-01", 37500.00, 3519.30, 33980.70, 10265.61, 10194.21),
];

#[tokio::test]
async fn an_aguinaldo_period_pays_every_active_employee_by_the_brief_and_stamps_as_tipo_e() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "aguinaldo@example.com", Some("B5510768108")).await;
        let periodicidades = ["QUINCENAL", "SEMANAL", "MENSUAL", "CATORCENAL"];
        let mut ids = Vec::new();
        for (k, (salario, alta, ..)) in CASOS.iter().enumerate() {
            ids.push(crear_empleado(&app, &who, empleado(k, salario, alta, periodicidades[k])).await);
        }
        // Hired after the period ends (fechaFin 2026-11-15): listed, not paid. Inactive: not covered.
        let tarde = crear_empleado(&app, &who, empleado(7, "400.00", "2026-11-20", "QUINCENAL")).await;
        let baja = crear_empleado(&app, &who, empleado(8, "400.00", "2020-01-01", "QUINCENAL")).await;
        app.call(Method::DELETE, &format!("/api/nomina/empleados/{baja}"), &who, None).await;

        let mut body = aguinaldo_body("2026-12-18");
        (body["fechaInicio"], body["fechaFin"]) = (json!("2026-01-01"), json!("2026-11-15"));
        let periodo = app.post("/api/nomina/periodos", &who, body).await.data(201)["id"].as_str().unwrap().to_owned();
        let calculado = app.post(&format!("/api/nomina/periodos/{periodo}"), &who, json!({})).await.data(200).clone();
        assert_eq!(calculado["recibosCalculados"], 4, "{calculado}");
        let omitidos = calculado["omitidos"].as_array().unwrap();
        assert_eq!(omitidos.len(), 1, "{calculado}");
        assert_eq!(omitidos[0]["empleadoId"], tarde.as_str());
        let detalle = app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200).clone();
        let mut total = 0.0;
        for (k, (_, _, importe, exento, gravado, art96, _)) in CASOS.iter().enumerate() {
            let r = recibo_de(&detalle, &ids[k]);
            assert_eq!(
                (num(&r["importe"]), num(&r["exento"]), num(&r["gravado"]), num(&r["isrRetenido"])),
                (*importe, *exento, *gravado, *art96),
                "{r}"
            );
            assert!((num(&r["total"]) - (importe - art96)).abs() < 0.001, "{r}");
            assert_eq!(r["lineas"]["percepciones"][0]["tipo"], "002");
            total += importe - art96;
        }
        assert!((num(&detalle["totalNomina"]) - total).abs() < 0.001, "{detalle}");
        assert_eq!(recibo_de(&detalle, &ids[1])["aguinaldo"]["diasTrabajados"], 184);

        // The company switches to Art. 174 RLISR: recalculating (nothing stamped yet) applies it.
        let empresa = who.empresa.clone().unwrap();
        app.call(
            Method::PATCH,
            &format!("/api/empresas/{empresa}"),
            &who,
            Some(json!({ "metodoIsrExtraordinario": "RLISR174" })),
        )
        .await
        .data(200);
        app.post(&format!("/api/nomina/periodos/{periodo}"), &who, json!({})).await.data(200);
        let detalle = app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200).clone();
        for (k, (.., rlisr)) in CASOS.iter().enumerate() {
            let r = recibo_de(&detalle, &ids[k]);
            assert_eq!(num(&r["isrRetenido"]), *rlisr, "{r}");
            assert_eq!(r["aguinaldo"]["metodo"], "RLISR174");
        }

        // Stamped through the period's stamping: TipoNomina E, PeriodicidadPago 99, 002 with
        // its split, ISR 002, no subsidy node; SAT's XSD, XSLT cadena and seals.
        let timbrado = timbrar(&app, &who, &periodo).await.data(201).clone();
        assert_eq!(
            (timbrado["timbrados"].as_u64(), timbrado["status"].as_str()),
            (Some(4), Some("TIMBRADO")),
            "{timbrado}"
        );
        let dir = TempDir::new();
        let files = xmls(&app, &who, &timbrado, &dir).await;
        for (_, xml) in &files {
            for esperado in [
                "TipoNomina=\"E\"",
                "PeriodicidadPago=\"99\"",
                "TipoPercepcion=\"002\"",
                "FechaPago=\"2026-12-18\"",
                "FechaInicialPago=\"2026-01-01\"",
                "FechaFinalPago=\"2026-11-15\"",
            ] {
                assert!(xml.contains(esperado), "{esperado} missing: {xml}");
            }
            assert!(!xml.contains("TipoOtroPago=\"002\""), "{xml}");
        }
        assert!(files.iter().any(|(_, xml)| xml.contains("ImporteGravado=\"5030.70\" ImporteExento=\"3519.30\"")
            && xml.contains("TipoDeduccion=\"002\"")
            && xml.contains("Importe=\"989.51\"")));
        assert!(files.iter().any(|(_, xml)| xml.contains("NumDiasPagados=\"184\"")));
        let pac_cer = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac_cer, &dir.0);

        // A second aguinaldo of the year with nothing changed (the late hire leaves first, or it
        // would be paid): 409 naming the first period.
        app.call(Method::DELETE, &format!("/api/nomina/empleados/{tarde}"), &who, None).await;
        let segundo = periodo_aguinaldo(&app, &who, "2026-12-19").await;
        let repetido = app.post(&format!("/api/nomina/periodos/{segundo}"), &who, json!({})).await;
        repetido.assert_error(409, "NOMINA_035");
        assert_eq!(repetido.body["error"]["details"]["periodoId"], periodo.as_str(), "{:?}", repetido.body);
        // After a raise it pays the difference alone, exempt only by what is left of the 30 UMA.
        app.call(
            Method::PATCH,
            &format!("/api/nomina/empleados/{}", ids[2]),
            &who,
            Some(json!({ "salarioDiario": "600.00", "salarioDiarioIntegrado": "600.00" })),
        )
        .await
        .data(200);
        let complemento = app.post(&format!("/api/nomina/periodos/{segundo}"), &who, json!({})).await.data(200).clone();
        assert_eq!(complemento["recibosCalculados"], 1, "{complemento}");
        let detalle = app.get(&format!("/api/nomina/periodos/{segundo}"), &who).await.data(200).clone();
        let r = recibo_de(&detalle, &ids[2]);
        // 600 × 15 − 8,550.00 = 450.00, all taxable; RLISR174 on O = 600 × 30.4 = 18,240.00:
        // proporción 37.4794…, f(O + p) − f(O) at 21.36 %, ISR = 0.2136 × 450.00 = 96.12.
        assert_eq!((num(&r["importe"]), num(&r["exento"]), num(&r["gravado"])), (450.0, 0.0, 450.0), "{r}");
        assert_eq!((num(&r["isrRetenido"]), r["complemento"].as_bool()), (96.12, Some(true)), "{r}");
        let timbrado = timbrar(&app, &who, &segundo).await.data(201).clone();
        assert_eq!(timbrado["timbrados"], 1, "{timbrado}");
        let dir = TempDir::new();
        let files = xmls(&app, &who, &timbrado, &dir).await;
        assert!(files[0].1.contains("ImporteGravado=\"450.00\" ImporteExento=\"0.00\""), "{}", files[0].1);
        sat_oracle(&files, &pac_cer, &dir.0);
    })
    .await;
}

#[tokio::test]
async fn extraordinary_periods_refuse_bad_input_roles_and_other_companies() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "extra-malo@example.com", Some("B5510768108")).await;
        let crear = |body: Value| {
            let (app, who) = (&app, &who);
            async move { app.post("/api/nomina/periodos", who, body).await }
        };
        let campo = |answer: &crate::harness::Answer, campo: &str| {
            answer.assert_error(400, "NOMINA_001");
            let fields = answer.body["error"]["details"]["fields"].as_array().unwrap().clone();
            fields.into_iter().find(|f| f["field"] == campo).unwrap_or_else(|| panic!("{campo}: {:?}", answer.body))
        };
        let r = crear(json!({ "tipo": "ESPECIAL", "fechaPago": "2026-12-18" })).await;
        campo(&r, "tipo");
        let r = crear(json!({ "tipo": "EXTRAORDINARIA", "fechaPago": "2026-12-18" })).await;
        campo(&r, "concepto");
        let r = crear(json!({ "tipo": "EXTRAORDINARIA", "concepto": "BONO", "fechaPago": "2026-12-18" })).await;
        campo(&r, "concepto");
        let r = crear(json!({ "tipo": "EXTRAORDINARIA", "concepto": "PTU", "fechaPago": "2026-05-29" })).await;
        assert!(campo(&r, "concepto")["message"].as_str().unwrap().contains("/api/nomina/ptu"), "{:?}", r.body);
        let r = crear(json!({ "tipo": "EXTRAORDINARIA", "concepto": "FINIQUITO", "fechaPago": "2026-05-29" })).await;
        assert!(campo(&r, "concepto")["message"].as_str().unwrap().contains("/baja"), "{:?}", r.body);
        let mut con_periodicidad = aguinaldo_body("2026-12-18");
        con_periodicidad["periodicidad"] = json!("QUINCENAL");
        con_periodicidad["diasPagados"] = json!(15);
        let r = crear(con_periodicidad).await;
        campo(&r, "periodicidad");
        campo(&r, "diasPagados");
        let r = crear(json!({ "tipo": "EXTRAORDINARIA", "concepto": "AGUINALDO" })).await;
        campo(&r, "fechaPago");
        let mut al_reves = aguinaldo_body("2026-12-18");
        al_reves["fechaInicio"] = json!("2026-12-20");
        al_reves["fechaFin"] = json!("2026-12-19");
        let r = crear(al_reves).await;
        campo(&r, "fechaFin");
        campo(&r, "fechaPago");
        let ordinaria = json!({ "fechaInicio": "2026-11-01", "fechaFin": "2026-11-15", "fechaPago": "2026-11-15",
            "periodicidad": "QUINCENAL", "diasPagados": 15, "concepto": "AGUINALDO" });
        let r = crear(ordinaria).await;
        campo(&r, "concepto");
        // Explicit "99" and dates are accepted; an ordinary period's dates do not collide with it.
        let mut completo = aguinaldo_body("2026-12-18");
        completo["periodicidad"] = json!("99");
        completo["fechaInicio"] = json!("2026-01-01");
        completo["fechaFin"] = json!("2026-12-18");
        let periodo = crear(completo).await.data(201)["id"].as_str().unwrap().to_owned();

        // An empty company calculates to no receipts; another company's period is not found.
        let calculado = app.post(&format!("/api/nomina/periodos/{periodo}"), &who, json!({})).await;
        assert_eq!(calculado.data(200)["recibosCalculados"], 0);
        let otra = empresa_nomina(&app, "extra-otra@example.com", Some("B5510768108")).await;
        app.post(&format!("/api/nomina/periodos/{periodo}"), &otra, json!({})).await.assert_error(404, "NOT_FOUND");
        app.get(&format!("/api/nomina/periodos/{periodo}"), &otra).await.assert_error(404, "NOT_FOUND");
        // A key narrowed to nomina:view cannot create one.
        let empresa = who.empresa.clone().unwrap();
        let narrow = app
            .post(
                "/api/api-keys",
                &who,
                json!({ "name": "lector", "scopes": ["nomina:view"], "empresaIds": [empresa] }),
            )
            .await;
        let lector = As::key(narrow.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
        app.post("/api/nomina/periodos", &lector, aguinaldo_body("2026-12-18")).await.assert_error(403, "SCOPE_002");
    })
    .await;
}

/// PAYROLL_EXTRAS_2026.md §3.7: a liquidación and a finiquito by resignation, stamped with
/// SeparacionIndemnizacion where it applies; the employees deactivated at the exit date.
#[tokio::test]
async fn a_baja_writes_the_finiquito_or_liquidacion_by_the_brief_and_stamps_it() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "baja@example.com", Some("B5510768108")).await;
        let mut liquidado = empleado(0, "1000.00", "2019-01-01", "QUINCENAL");
        liquidado["salarioDiarioIntegrado"] = json!("1056.16");
        let liquidado = crear_empleado(&app, &who, liquidado).await;
        let mut renuncia = empleado(1, "500.00", "2024-01-15", "SEMANAL");
        renuncia["salarioDiarioIntegrado"] = json!("524.65");
        let renuncia = crear_empleado(&app, &who, renuncia).await;

        let baja = |id: &str, body: Value| {
            let (app, who, path) = (&app, &who, format!("/api/nomina/empleados/{id}/baja"));
            async move { app.post(&path, who, body).await }
        };
        // Bad input first: nothing is written.
        let antes = baja(&liquidado, json!({ "fecha": "2018-12-31", "motivo": "RENUNCIA" })).await;
        antes.assert_error(400, "NOMINA_001");
        assert_eq!(antes.body["error"]["details"]["fields"][0]["field"], "fecha", "{:?}", antes.body);
        assert!(antes.body["error"]["details"]["fields"][0]["message"].as_str().unwrap().contains("hire date"));
        let r = baja(&liquidado, json!({ "fecha": "2026-07-15", "motivo": "JUBILACION", "diasSueldoPendientes": -1 }))
            .await;
        r.assert_error(400, "NOMINA_001");
        let campos = r.body["error"]["details"]["fields"].to_string();
        assert!(campos.contains("motivo") && campos.contains("diasSueldoPendientes"), "{campos}");
        baja(&liquidado, json!({ "motivo": "RENUNCIA" })).await.assert_error(400, "NOMINA_001");
        baja(&liquidado, json!({ "fecha": "2026-07-15", "motivo": "RENUNCIA", "fechaPago": "2026-07-14" }))
            .await
            .assert_error(400, "NOMINA_001");
        baja("no-such-employee", json!({ "fecha": "2026-07-15", "motivo": "RENUNCIA" }))
            .await
            .assert_error(404, "NOT_FOUND");
        let otra = empresa_nomina(&app, "baja-otra@example.com", Some("B5510768108")).await;
        app.post(
            &format!("/api/nomina/empleados/{liquidado}/baja"),
            &otra,
            json!({ "fecha": "2026-07-15", "motivo": "RENUNCIA" }),
        )
        .await
        .assert_error(404, "NOT_FOUND");
        let empleado_leido = app.get(&format!("/api/nomina/empleados/{liquidado}"), &who).await;
        assert_eq!(empleado_leido.data(200)["activo"], true);

        // The liquidación: 002, 001 vacations, 021, 022 and 025, ISR 38,184.97, net 295,883.46.
        let hecha = baja(
            &liquidado,
            json!({ "fecha": "2026-07-15", "motivo": "DESPIDO_INJUSTIFICADO", "incluirIndemnizacion": true }),
        )
        .await;
        let data = hecha.data(201).clone();
        assert_eq!(
            (data["empleado"]["activo"].as_bool(), data["empleado"]["fechaBaja"].as_str()),
            (Some(false), Some("2026-07-15"))
        );
        assert_eq!(num(&data["calculo"]["totalNomina"]), 295_883.46, "{data}");
        let f = &data["finiquito"];
        assert_eq!(
            (num(&f["primaAntiguedad"]), num(&f["indemnizacion"]), num(&f["isrSeparacion"]), num(&f["isr"])),
            (56_986.85, 254_259.67, 34_166.06, 38_184.97),
            "{f}"
        );
        let periodo_liq = data["periodoId"].as_str().unwrap().to_owned();
        let detalle = app.get(&format!("/api/nomina/periodos/{periodo_liq}"), &who).await.data(200).clone();
        assert_eq!(
            (detalle["tipo"].as_str(), detalle["concepto"].as_str()),
            (Some("EXTRAORDINARIA"), Some("FINIQUITO"))
        );
        assert_eq!(detalle["empleadoId"], liquidado.as_str());
        let r = recibo_de(&detalle, &liquidado);
        let lineas: Vec<(String, f64, f64)> = r["lineas"]["percepciones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["tipo"].as_str().unwrap().to_owned(), num(&p["gravado"]), num(&p["exento"])))
            .collect();
        assert_eq!(
            lineas,
            [
                ("002".to_owned(), 4535.49, 3519.30),
                ("001".to_owned(), 11_813.70, 0.0),
                ("021".to_owned(), 1193.77, 1759.65),
                ("022".to_owned(), 0.0, 56_986.85),
                ("025".to_owned(), 226_783.32, 27_476.35),
            ],
            "{r}"
        );
        // A second baja of the same employee is refused.
        baja(&liquidado, json!({ "fecha": "2026-07-16", "motivo": "RENUNCIA" })).await.assert_error(400, "NOMINA_001");

        // The resignation: no separation items; ISR 744.24.
        let hecha =
            baja(&renuncia, json!({ "fecha": "2026-06-30", "motivo": "RENUNCIA", "incluirIndemnizacion": true })).await;
        let data = hecha.data(201).clone();
        let f = &data["finiquito"];
        assert_eq!(
            (num(&f["aguinaldo"]), num(&f["vacaciones"]), num(&f["primaVacacional"]), num(&f["isr"])),
            (3719.18, 3660.27, 915.07, 744.24),
            "{f}"
        );
        assert!(f["separacion"].is_null(), "{f}");
        let periodo_ren = data["periodoId"].as_str().unwrap().to_owned();

        // Both stamped although the employees are inactive now; SAT's oracle.
        let dir = TempDir::new();
        let mut files = Vec::new();
        for periodo in [&periodo_liq, &periodo_ren] {
            let timbrado = timbrar(&app, &who, periodo).await.data(201).clone();
            assert_eq!(
                (timbrado["timbrados"].as_u64(), timbrado["errores"].as_u64()),
                (Some(1), Some(0)),
                "{timbrado}"
            );
            files.extend(xmls(&app, &who, &timbrado, &dir).await);
        }
        let liq = &files[0].1;
        for esperado in [
            "TipoNomina=\"E\"",
            "PeriodicidadPago=\"99\"",
            "TotalSeparacionIndemnizacion=\"311246.52\"",
            "<nomina12:SeparacionIndemnizacion ",
            "NumAñosServicio=\"8\"",
            "UltimoSueldoMensOrd=\"30000.00\"",
            "IngresoAcumulable=\"30000.00\"",
            "IngresoNoAcumulable=\"196783.32\"",
            "TipoPercepcion=\"025\"",
            "TipoPercepcion=\"022\"",
            "FechaFinalPago=\"2026-07-15\"",
        ] {
            assert!(liq.contains(esperado), "{esperado} missing: {liq}");
        }
        assert!(!files[1].1.contains("SeparacionIndemnizacion"), "{}", files[1].1);
        let pac_cer = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac_cer, &dir.0);
    })
    .await;
}

/// PAYROLL_EXTRAS_2026.md §2.3: the PTU of 2025, 150,000.00 paid 2026-05-29; the eventual worker
/// with 47 days is excluded; receipts 003 stamped and checked by SAT's tools.
#[tokio::test]
async fn the_ptu_is_distributed_by_the_brief_and_refuses_bad_amounts_years_and_repeats() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "ptu@example.com", Some("B5510768108")).await;
        // (salario, alta, tipoContrato, PTU, ISR ART96)
        let casos = [
            ("400.00", "2020-01-10", "01", Some((26_677.35, 5104.47))),
            ("800.00", "2022-05-01", "01", Some((33_815.09, 7342.31))),
            ("600.00", "2025-03-01", "01", Some((25_357.10, 5180.27))),
            ("2500.00", "2018-07-01", "01", Some((64_150.46, 19_356.84))),
            ("500.00", "2025-11-15", "03", None),
        ];
        let mut ids = Vec::new();
        for (k, (salario, alta, contrato, _)) in casos.iter().enumerate() {
            let mut e = empleado(k, salario, alta, "QUINCENAL");
            e["tipoContrato"] = json!(contrato);
            ids.push(crear_empleado(&app, &who, e).await);
        }
        let ptu = |body: Value| {
            let (app, who) = (&app, &who);
            async move { app.post("/api/nomina/ptu", who, body).await }
        };
        let campo = |answer: &crate::harness::Answer, campo: &str| {
            answer.assert_error(400, "NOMINA_001");
            assert!(
                answer.body["error"]["details"]["fields"].to_string().contains(campo),
                "{campo}: {:?}",
                answer.body
            );
        };
        campo(&ptu(json!({ "ejercicio": 2025, "monto": 0 })).await, "monto");
        campo(&ptu(json!({ "ejercicio": 2025, "monto": "-10.00" })).await, "monto");
        campo(&ptu(json!({ "ejercicio": 2026, "monto": 1000 })).await, "ejercicio");
        campo(&ptu(json!({ "ejercicio": 2031, "monto": 1000 })).await, "ejercicio");
        campo(&ptu(json!({ "monto": 1000 })).await, "ejercicio");
        campo(&ptu(json!({ "ejercicio": 2025, "monto": 1000, "fechaPago": "2025-12-31" })).await, "fechaPago");
        // Nobody worked in 2017: nothing to distribute.
        ptu(json!({ "ejercicio": 2017, "monto": 1000, "fechaPago": "2026-05-29" }))
            .await
            .assert_error(400, "NOMINA_001");

        let hecho = ptu(json!({ "ejercicio": 2025, "monto": "150000.00", "fechaPago": "2026-05-29" })).await;
        let data = hecho.data(201).clone();
        assert_eq!(
            (data["reparto"]["totalDias"].as_u64(), num(&data["reparto"]["totalSalarios"])),
            (Some(1401), 1_534_100.0),
            "{data}"
        );
        assert_eq!(num(&data["reparto"]["totalPagado"]), 150_000.0);
        assert_eq!(data["calculo"]["recibosCalculados"], 4);
        assert_eq!(data["calculo"]["omitidos"][0]["empleadoId"], ids[4].as_str());
        let periodo = data["periodoId"].as_str().unwrap().to_owned();
        let detalle = app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200).clone();
        assert_eq!((detalle["concepto"].as_str(), detalle["fechaPago"].as_str()), (Some("PTU"), Some("2026-05-29")));
        for (k, (.., esperado)) in casos.iter().enumerate() {
            let Some((monto, isr)) = esperado else { continue };
            let r = recibo_de(&detalle, &ids[k]);
            assert_eq!((num(&r["ptu"]), num(&r["exento"]), num(&r["isrRetenido"])), (*monto, 1759.65, *isr), "{r}");
        }
        // One PTU per ejercicio; and its period is not recalculated by the periods' route.
        let repetido = ptu(json!({ "ejercicio": 2025, "monto": "1000.00", "fechaPago": "2026-05-29" })).await;
        repetido.assert_error(409, "NOMINA_035");
        assert_eq!(repetido.body["error"]["details"]["periodoId"], periodo.as_str());
        app.post(&format!("/api/nomina/periodos/{periodo}"), &who, json!({})).await.assert_error(400, "NOMINA_001");
        // Another company sees nothing of it.
        let otra = empresa_nomina(&app, "ptu-otra@example.com", Some("B5510768108")).await;
        app.get(&format!("/api/nomina/periodos/{periodo}"), &otra).await.assert_error(404, "NOT_FOUND");

        let timbrado = timbrar(&app, &who, &periodo).await.data(201).clone();
        assert_eq!(
            (timbrado["timbrados"].as_u64(), timbrado["status"].as_str()),
            (Some(4), Some("TIMBRADO")),
            "{timbrado}"
        );
        let dir = TempDir::new();
        let files = xmls(&app, &who, &timbrado, &dir).await;
        for (_, xml) in &files {
            for esperado in
                ["TipoNomina=\"E\"", "PeriodicidadPago=\"99\"", "TipoPercepcion=\"003\"", "ImporteExento=\"1759.65\""]
            {
                assert!(xml.contains(esperado), "{esperado} missing: {xml}");
            }
        }
        assert!(files.iter().any(|(_, xml)| xml.contains("ImporteGravado=\"24917.70\"")));
        let pac_cer = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac_cer, &dir.0);
    })
    .await;
}

/// PAYROLL_EXTRAS_2026.md §5.6: April 2026, primaRiesgo 0.54355 %, workers in their first year.
#[tokio::test]
async fn a_month_of_imss_dues_follows_the_brief_per_worker_and_branch() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "imss@example.com", Some("B5510768108")).await;
        let empresa = who.empresa.clone().unwrap();
        // Without primaRiesgo the month cannot be computed.
        let sin_prima = app.get("/api/nomina/imss/2026/4", &who).await;
        sin_prima.assert_error(400, "NOMINA_001");
        assert!(
            sin_prima.body["error"]["details"]["fields"].to_string().contains("primaRiesgo"),
            "{:?}",
            sin_prima.body
        );
        app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(json!({ "primaRiesgo": "0.54355" })))
            .await
            .data(200);
        // (SD, SDI, employer, worker): employer = the monthly branches + the month's share of
        // retiro, CEAV and INFONAVIT (1,375.38 + 1,714.14 for the first).
        let casos = [
            ("400.00", "419.73", 1375.38 + 1714.14, 307.20),
            ("1000.00", "1049.32", 2535.78 + 4568.63, 831.34),
            ("3500.00", "3672.60", 6007.06 + 12_768.91, 2399.28),
        ];
        let mut ids = Vec::new();
        for (k, (sd, sdi, ..)) in casos.iter().enumerate() {
            let mut e = empleado(k, sd, "2026-01-05", "QUINCENAL");
            e["salarioDiarioIntegrado"] = json!(sdi);
            ids.push(crear_empleado(&app, &who, e).await);
        }
        // Hired on 16 April: 15 days registered.
        let tarde = crear_empleado(&app, &who, empleado(3, "400.00", "2026-04-16", "QUINCENAL")).await;
        // Hired in May: not in April's list.
        crear_empleado(&app, &who, empleado(4, "400.00", "2026-05-04", "QUINCENAL")).await;

        let mes = app.get("/api/nomina/imss/2026/04", &who).await.data(200).clone();
        let trabajadores = mes["trabajadores"].as_array().unwrap();
        assert_eq!(trabajadores.len(), 4, "{mes}");
        let de = |id: &str| trabajadores.iter().find(|t| t["empleadoId"] == id).unwrap();
        let (mut patronal, mut obrero) = (0.0, 0.0);
        for (k, (_, _, esperado_patronal, esperado_obrero)) in casos.iter().enumerate() {
            let t = de(&ids[k]);
            assert_eq!(t["dias"], 30, "{t}");
            assert!((num(&t["cuotasPatronal"]) - esperado_patronal).abs() < 0.001, "{t}");
            assert!((num(&t["cuotasObrero"]) - esperado_obrero).abs() < 0.001, "{t}");
            assert!(t["nss"].as_str().is_some_and(|n| n.len() == 11), "{t}");
            assert_eq!(t["porRamo"].as_array().unwrap().len(), 10, "{t}");
            patronal += num(&t["cuotasPatronal"]);
            obrero += num(&t["cuotasObrero"]);
        }
        // The first worker's branches as the brief spells them out.
        let ramos = de(&ids[0])["porRamo"].as_array().unwrap().clone();
        let patronales: Vec<f64> = ramos.iter().map(|r| num(&r["patronal"])).collect();
        for esperado in [717.94, 22.37, 88.14, 132.21, 68.44, 220.36, 125.92, 251.84, 832.70, 629.60] {
            assert!(patronales.iter().any(|p| (p - esperado).abs() < 0.001), "{esperado} not in {patronales:?}");
        }
        assert_eq!(num(&de(&ids[2])["sbc"]), 2932.75, "25 UMA cap");
        assert_eq!(de(&tarde)["dias"], 15);
        patronal += num(&de(&tarde)["cuotasPatronal"]);
        obrero += num(&de(&tarde)["cuotasObrero"]);
        assert!((num(&mes["totales"]["cuotasPatronal"]) - patronal).abs() < 0.001, "{mes}");
        assert!((num(&mes["totales"]["cuotasObrero"]) - obrero).abs() < 0.001, "{mes}");

        // Bad months; another company sees only its own workers; a nomina:view key reads.
        app.get("/api/nomina/imss/2026/13", &who).await.assert_error(400, "NOMINA_001");
        app.get("/api/nomina/imss/dos/4", &who).await.assert_error(400, "NOMINA_001");
        let otra = empresa_nomina(&app, "imss-otra@example.com", Some("B5510768108")).await;
        let otra_empresa = otra.empresa.clone().unwrap();
        app.call(
            Method::PATCH,
            &format!("/api/empresas/{otra_empresa}"),
            &otra,
            Some(json!({ "primaRiesgo": 2.5984 })),
        )
        .await
        .data(200);
        let vacio = app.get("/api/nomina/imss/2026/4", &otra).await.data(200).clone();
        assert_eq!(vacio["trabajadores"].as_array().unwrap().len(), 0, "{vacio}");
        let narrow = app
            .post(
                "/api/api-keys",
                &who,
                json!({ "name": "lector", "scopes": ["nomina:view"], "empresaIds": [empresa] }),
            )
            .await;
        let lector = As::key(narrow.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
        assert_eq!(
            app.get("/api/nomina/imss/2026/4", &lector).await.data(200)["trabajadores"].as_array().unwrap().len(),
            4
        );
    })
    .await;
}

/// PAYROLL_EXTRAS_2026.md §4.5: workers D (30,000.00 every month) and F (15,000.00 January to
/// March, 30,000.00 after), twelve MENSUAL periods of 2026 stamped, the adjustment written into
/// the aguinaldo period: D owes 0.11 (Deduccion 002), F is owed 261.40 (OtroPago 004).
#[tokio::test]
async fn the_annual_adjustment_reads_the_stamped_year_and_writes_into_the_target_period() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "ajuste@example.com", Some("B5510768108")).await;
        let d = crear_empleado(&app, &who, empleado(0, "1000.00", "2025-06-01", "MENSUAL")).await;
        let f = crear_empleado(&app, &who, empleado(1, "500.00", "2025-06-01", "MENSUAL")).await;
        let ajuste = |body: Value| {
            let (app, who) = (&app, &who);
            async move { app.post("/api/nomina/ajuste-anual", who, body).await }
        };
        // Before anything is stamped: no receipts in the year.
        let objetivo = periodo_aguinaldo(&app, &who, "2026-12-18").await;
        app.post(&format!("/api/nomina/periodos/{objetivo}"), &who, json!({})).await.data(200);
        ajuste(json!({ "ejercicio": 2026, "periodoId": objetivo })).await.assert_error(400, "NOMINA_036");

        for mes in 1..=12u8 {
            if mes == 4 {
                app.call(
                    Method::PATCH,
                    &format!("/api/nomina/empleados/{f}"),
                    &who,
                    Some(json!({ "salarioDiario": "1000.00", "salarioDiarioIntegrado": "1000.00" })),
                )
                .await
                .data(200);
            }
            let ultimo = time::Month::try_from(mes).unwrap().length(2026);
            let body = json!({ "fechaInicio": format!("2026-{mes:02}-01"), "fechaFin": format!("2026-{mes:02}-{ultimo}"),
                "fechaPago": format!("2026-{mes:02}-{ultimo}"), "periodicidad": "MENSUAL", "diasPagados": 30 });
            let periodo = app.post("/api/nomina/periodos", &who, body).await.data(201)["id"].as_str().unwrap().to_owned();
            app.post(&format!("/api/nomina/periodos/{periodo}"), &who, json!({})).await.data(200);
            let timbrado = timbrar(&app, &who, &periodo).await.data(201).clone();
            assert_eq!(timbrado["timbrados"], 2, "{timbrado}");
        }

        // Bad input.
        ajuste(json!({ "ejercicio": 2026 })).await.assert_error(400, "NOMINA_001");
        ajuste(json!({ "ejercicio": 2031, "periodoId": objetivo })).await.assert_error(400, "NOMINA_001");
        ajuste(json!({ "ejercicio": 2025, "periodoId": objetivo })).await.assert_error(400, "NOMINA_036");
        ajuste(json!({ "ejercicio": 2026, "periodoId": "no-such" })).await.assert_error(404, "NOT_FOUND");
        let otra = empresa_nomina(&app, "ajuste-otra@example.com", Some("B5510768108")).await;
        app.post("/api/nomina/ajuste-anual", &otra, json!({ "ejercicio": 2026, "periodoId": objetivo }))
            .await
            .assert_error(404, "NOT_FOUND");

        // Applied twice: the second replaces the first (no line twice).
        ajuste(json!({ "ejercicio": 2026, "periodoId": objetivo })).await.data(200);
        let hecho = ajuste(json!({ "ejercicio": 2026, "periodoId": objetivo })).await.data(200).clone();
        let leido = app.get("/api/nomina/ajuste-anual/2026", &who).await.data(200).clone();
        assert_eq!(hecho["items"], leido["items"]);
        let item = |id: &str| leido["items"].as_array().unwrap().iter().find(|i| i["empleadoId"] == id).unwrap().clone();
        let (id, ig) = (item(&d), item(&f));
        assert_eq!(
            (num(&id["isrAnual"]), num(&id["isrRetenido"]), num(&id["saldoACargo"]), num(&id["saldoAFavor"])),
            (54_235.91, 54_235.80, 0.11, 0.0),
            "{id}"
        );
        assert_eq!(
            (num(&ig["isrAnual"]), num(&ig["isrRetenido"]), num(&ig["saldoACargo"]), num(&ig["saldoAFavor"])),
            (44_623.91, 44_885.31, 0.0, 261.40),
            "{ig}"
        );
        assert_eq!((num(&id["aplicado"]), num(&ig["aplicado"])), (0.11, 261.40));
        assert!(app.get("/api/nomina/ajuste-anual/2026", &otra).await.data(200)["items"].as_array().unwrap().is_empty());
        app.get("/api/nomina/ajuste-anual/dos", &who).await.assert_error(400, "NOMINA_001");

        // The target's receipts carry it; stamped, SAT's tools accept them.
        let detalle = app.get(&format!("/api/nomina/periodos/{objetivo}"), &who).await.data(200).clone();
        let rd = recibo_de(&detalle, &d);
        let ajustes: Vec<&Value> =
            rd["lineas"]["deducciones"].as_array().unwrap().iter().filter(|x| x["concepto"] == "ISR ajuste anual").collect();
        assert_eq!(ajustes.len(), 1, "{rd}");
        assert_eq!(num(&ajustes[0]["importe"]), 0.11);
        let timbrado = timbrar(&app, &who, &objetivo).await.data(201).clone();
        assert_eq!(timbrado["timbrados"], 2, "{timbrado}");
        let dir = TempDir::new();
        let files = xmls(&app, &who, &timbrado, &dir).await;
        assert!(files.iter().any(|(_, xml)| xml.contains("Concepto=\"ISR ajuste anual\" Importe=\"0.11\"")), "{files:?}");
        assert!(
            files.iter().any(|(_, xml)| xml.contains("TipoOtroPago=\"004\"")
                && xml.contains("SaldoAFavor=\"261.40\"")
                && xml.contains("Año=\"2026\"")
                && xml.contains("RemanenteSalFav=\"0.00\"")),
            "{files:?}"
        );
        let pac_cer = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac_cer, &dir.0);
        // Once the target is stamped the adjustment cannot be redone.
        ajuste(json!({ "ejercicio": 2026, "periodoId": objetivo })).await.assert_error(409, "NOMINA_003");
    })
    .await;
}

/// A request answered as text (the IDSE file), with the caller's key and company.
async fn texto(app: &TestApp, path: &str, who: &As) -> (u16, reqwest::header::HeaderMap, String) {
    let respuesta = app
        .client
        .get(format!("{}{path}", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    let (status, headers) = (respuesta.status().as_u16(), respuesta.headers().clone());
    (status, headers, respuesta.text().await.unwrap())
}

/// An employee of contract 09 (no labour relationship), who has no NSS.
fn sin_nss(k: usize, salario: &str, alta: &str) -> Value {
    let mut e = empleado(k, salario, alta, "QUINCENAL");
    e.as_object_mut().unwrap().remove("nss");
    (e["tipoContrato"], e["tipoRegimen"]) = (json!("09"), json!("09"));
    e
}

/// The files in a ZIP, by name.
fn unzip(bytes: &[u8]) -> std::collections::BTreeMap<String, String> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut f = zip.by_index(i).unwrap();
            let mut texto = String::new();
            f.read_to_string(&mut texto).unwrap();
            (f.name().unwrap().into_owned(), texto)
        })
        .collect()
}

/// April 2026's SUA files (PAYROLL_EXTRAS_2026.md §6.1–§6.2): three workers with NSS, one
/// without (listed as a problem, the files built for the rest), a salary change (07), an exit
/// (02) and an approved absence (11) in the month; the ZIP behind the signed link, the event
/// with the workers in the file and their dues; and the bad months.
#[tokio::test]
async fn the_sua_files_of_a_month_leave_out_a_worker_without_nss_and_emit_the_event() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "sua@example.com", Some("B5510768108")).await;
        let empresa = who.empresa.clone().unwrap();
        app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(json!({ "primaRiesgo": "0.54355" })))
            .await
            .data(200);
        let mut a = empleado(0, "400.00", "2026-01-05", "QUINCENAL");
        a["salarioDiarioIntegrado"] = json!("419.73");
        let a = crear_empleado(&app, &who, a).await;
        let b = crear_empleado(&app, &who, empleado(1, "1000.00", "2026-01-05", "QUINCENAL")).await;
        let c = crear_empleado(&app, &who, empleado(2, "500.00", "2026-02-01", "QUINCENAL")).await;
        let sin = crear_empleado(&app, &who, sin_nss(3, "450.00", "2026-01-05")).await;
        // B's raise on 10 April (07), C's exit on 20 April (02), A's absence on 7 April (11).
        let cambio =
            json!({ "salarioDiario": "1100.00", "salarioDiarioIntegrado": "1150.00", "fechaMovimiento": "2026-04-10" });
        app.call(Method::PATCH, &format!("/api/nomina/empleados/{b}"), &who, Some(cambio)).await.data(200);
        let baja = json!({ "activo": false, "fechaBaja": "2026-04-20" });
        app.call(Method::PATCH, &format!("/api/nomina/empleados/{c}"), &who, Some(baja)).await.data(200);
        let falta = app
            .post(
                "/api/nomina/incidencias",
                &who,
                json!({ "empleadoId": a, "tipo": "FALTA", "fecha": "2026-04-07", "dias": 1 }),
            )
            .await
            .data(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        app.call(
            Method::PATCH,
            &format!("/api/nomina/incidencias/{falta}"),
            &who,
            Some(json!({ "status": "APROBADA" })),
        )
        .await
        .data(200);

        let cuotas = app.get("/api/nomina/imss/2026/4", &who).await.data(200).clone();
        let de = |id: &str| {
            cuotas["trabajadores"].as_array().unwrap().iter().find(|t| t["empleadoId"] == id).unwrap().clone()
        };
        let esperado: f64 =
            [&a, &b, &c].iter().map(|id| num(&de(id)["cuotasPatronal"]) + num(&de(id)["cuotasObrero"])).sum();
        assert!(num(&cuotas["totales"]["total"]) > esperado, "the worker without NSS has dues too: {cuotas}");

        let generado = app.post("/api/nomina/imss/2026/4/sua", &who, json!({})).await;
        let data = generado.data(201).clone();
        assert_eq!((data["periodo"].as_str(), data["trabajadores"].as_u64()), (Some("2026-04"), Some(3)), "{data}");
        assert_eq!(data["movimientos"], 3, "{data}");
        assert!((num(&data["totalCuotas"]) - esperado).abs() < 0.001, "{data}");
        let problemas = data["problemas"].as_array().unwrap();
        assert_eq!(problemas.len(), 1, "{data}");
        assert_eq!(
            (problemas[0]["empleadoId"].as_str(), problemas[0]["archivo"].as_str()),
            (Some(sin.as_str()), Some("trabajadores"))
        );
        assert!(problemas[0]["mensaje"].as_str().unwrap().contains("NSS"), "{data}");

        // The ZIP behind the signed link: ASEG (164 positions) and MOVT (49), CR LF.
        let enlace = data["archivoUrl"].as_str().unwrap();
        assert!(enlace.starts_with("/api/descargas/"), "{enlace}");
        let respuesta = app.client.get(format!("{}{enlace}", app.base)).send().await.unwrap();
        assert_eq!(respuesta.status(), 200);
        assert_eq!(respuesta.headers()["content-type"], "application/zip");
        let archivos = unzip(&respuesta.bytes().await.unwrap());
        let aseg = &archivos["ASEG202604.txt"];
        let lineas: Vec<&str> = aseg.split_terminator("\r\n").collect();
        assert_eq!(lineas.len(), 3, "{aseg}");
        assert!(lineas.iter().all(|l| l.len() == 164 && l.starts_with("B5510768108")), "{aseg}");
        // A: SDI 419.73 at 114–120, hired 05012026 at 106–113, permanent (1), clave G-000.
        let linea_a = lineas.iter().find(|l| l[120..137].trim() == "G-000").unwrap();
        assert_eq!(
            (&linea_a[103..104], &linea_a[105..113], &linea_a[113..120]),
            ("1", "05012026", "0041973"),
            "{linea_a}"
        );
        let movt = &archivos["MOVT202604.txt"];
        let tipos: Vec<(&str, &str)> = movt.split_terminator("\r\n").map(|l| (&l[22..24], &l[24..32])).collect();
        assert_eq!(tipos, [("11", "07042026"), ("07", "10042026"), ("02", "20042026")], "{movt}");
        assert!(movt.split_terminator("\r\n").all(|l| l.len() == 49), "{movt}");
        assert!(movt.contains("0115000"), "B's new SDI 1,150.00: {movt}");

        // The event: the workers in the file and their dues.
        let mut conn = app.db.conn().await.unwrap();
        let evento = timbra_store::sql!(scalar_one conn, String,
            "SELECT data FROM events WHERE empresa_id = $1 AND type = 'nomina.sua_generado'", &empresa)
        .unwrap();
        drop(conn);
        let evento: Value = serde_json::from_str(&evento).unwrap();
        assert_eq!(
            (evento["periodo"].as_str(), evento["trabajadores"].as_i64()),
            (Some("2026-04"), Some(3)),
            "{evento}"
        );
        assert_eq!(evento["archivoUrl"], data["archivoUrl"]);
        assert!((num(&evento["totalCuotas"]) - esperado).abs() < 0.001, "{evento}");

        // Bad months: malformed, out of range, in the future; a nomina:view key cannot write.
        for (path, campo) in [("2026/13", "mes"), ("dos/4", "año"), ("2026/0", "mes"), ("2099/1", "mes")] {
            let malo = app.post(&format!("/api/nomina/imss/{path}/sua"), &who, json!({})).await;
            malo.assert_error(400, "NOMINA_001");
            assert!(malo.body["error"]["details"]["fields"].to_string().contains(campo), "{path}: {:?}", malo.body);
        }
        let narrow = app
            .post(
                "/api/api-keys",
                &who,
                json!({ "name": "lector", "scopes": ["nomina:view"], "empresaIds": [empresa] }),
            )
            .await;
        let lector = As::key(narrow.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
        app.post("/api/nomina/imss/2026/4/sua", &lector, json!({})).await.assert_error(403, "SCOPE_002");
        // Without a registro patronal there is no file.
        let otra = empresa_nomina(&app, "sua-otra@example.com", None).await;
        let otra_empresa = otra.empresa.clone().unwrap();
        app.call(Method::PATCH, &format!("/api/empresas/{otra_empresa}"), &otra, Some(json!({ "primaRiesgo": 1 })))
            .await
            .data(200);
        let sin_registro = app.post("/api/nomina/imss/2026/4/sua", &otra, json!({})).await;
        sin_registro.assert_error(400, "NOMINA_001");
        assert!(sin_registro.body["error"]["details"]["fields"].to_string().contains("registroPatronal"));
    })
    .await;
}

/// IDSE's batch (PAYROLL_EXTRAS_2026.md §6.3): hires (08) from the employee's creation, a
/// salary change (07) from an update with its fechaMovimiento, an exit (02) from a baja with
/// its causa; the DISPMAG file of 168 positions, the JSON list, a worker without NSS listed as
/// a problem, and the bad dates.
#[tokio::test]
async fn idse_movements_come_from_the_employees_history_as_a_file_or_a_list() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "idse@example.com", Some("B5510768108")).await;
        let a = crear_empleado(&app, &who, empleado(0, "400.00", "2026-03-02", "QUINCENAL")).await;
        let b = crear_empleado(&app, &who, empleado(1, "1000.00", "2026-03-09", "QUINCENAL")).await;
        let sin = crear_empleado(&app, &who, sin_nss(2, "450.00", "2026-03-16")).await;
        // Before the window: not listed.
        crear_empleado(&app, &who, empleado(3, "500.00", "2025-06-01", "QUINCENAL")).await;
        let cambio = json!({ "salarioDiarioIntegrado": "1080.55", "fechaMovimiento": "2026-05-04" });
        app.call(Method::PATCH, &format!("/api/nomina/empleados/{b}"), &who, Some(cambio)).await.data(200);
        // A change that is not a salary records nothing.
        app.call(Method::PATCH, &format!("/api/nomina/empleados/{b}"), &who, Some(json!({ "puesto": "JEFE" })))
            .await
            .data(200);
        app.post(
            &format!("/api/nomina/empleados/{a}/baja"),
            &who,
            json!({ "fecha": "2026-06-30", "motivo": "RENUNCIA" }),
        )
        .await
        .data(201);
        // A bad fechaMovimiento is the employee's error.
        let malo = json!({ "salarioDiarioIntegrado": "1100.00", "fechaMovimiento": "2026-02-30" });
        app.call(Method::PATCH, &format!("/api/nomina/empleados/{b}"), &who, Some(malo))
            .await
            .assert_error(400, "EMPLEADO_001");

        let lista = app.get("/api/nomina/imss/movimientos?desde=2026-01-01&hasta=2026-12-31&formato=json", &who).await;
        let data = lista.data(200).clone();
        assert_eq!(data["registroPatronal"], "B5510768108");
        let movimientos: Vec<(&str, &str, &str)> = data["movimientos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (m["empleadoId"].as_str().unwrap(), m["tipoMovimiento"].as_str().unwrap(), m["fecha"].as_str().unwrap())
            })
            .collect();
        assert_eq!(
            movimientos,
            [
                (a.as_str(), "08", "2026-03-02"),
                (b.as_str(), "08", "2026-03-09"),
                (sin.as_str(), "08", "2026-03-16"),
                (b.as_str(), "07", "2026-05-04"),
                (a.as_str(), "02", "2026-06-30"),
            ],
            "{data}"
        );
        let m = data["movimientos"].as_array().unwrap();
        assert_eq!((num(&m[1]["sbc"]), num(&m[3]["sbc"])), (1000.0, 1080.55), "{data}");
        assert_eq!(
            (m[4]["causaBaja"].as_str(), m[4]["motivo"].as_str(), m[4]["sbc"].is_null()),
            (Some("2"), Some("RENUNCIA"), true)
        );
        assert_eq!(data["registros"], 4);
        assert_eq!(data["problemas"].as_array().unwrap().len(), 1, "{data}");
        assert_eq!(data["problemas"][0]["empleadoId"], sin.as_str());

        // The file: four lines of 168 positions, CR LF, the movement type at 132–133.
        let (status, headers, archivo) =
            texto(&app, "/api/nomina/imss/movimientos?desde=2026-01-01&hasta=2026-12-31", &who).await;
        assert_eq!(status, 200, "{archivo}");
        assert!(headers["content-type"].to_str().unwrap().starts_with("text/plain"));
        assert_eq!(headers["x-idse-problemas"], "1");
        let lineas: Vec<&str> = archivo.split_terminator("\r\n").collect();
        assert_eq!(lineas.len(), 4, "{archivo}");
        assert!(lineas.iter().all(|l| l.len() == 168 && l.starts_with("B5510768108") && l.ends_with('9')), "{archivo}");
        let tipos: Vec<&str> = lineas.iter().map(|l| &l[131..133]).collect();
        assert_eq!(tipos, ["08", "08", "07", "02"]);
        // B's hire: SBC 1,000.00 as 4 + 2 digits at 104–109, date 09032026 at 119–126.
        assert_eq!((&lineas[1][103..109], &lineas[1][118..126]), ("100000", "09032026"), "{}", lineas[1]);
        // A's exit: causa 2 (separación voluntaria) at 149, no CURP.
        assert_eq!((&lineas[3][148..149], lineas[3][149..167].trim()), ("2", ""), "{}", lineas[3]);
        // A window with only the change.
        let solo = app.get("/api/nomina/imss/movimientos?desde=2026-05-01&hasta=2026-05-31&formato=json", &who).await;
        assert_eq!(solo.data(200)["movimientos"].as_array().unwrap().len(), 1);

        // Bad input: desde after hasta, malformed or missing dates, an unknown formato.
        for (query, campo) in [
            ("desde=2026-12-31&hasta=2026-01-01", "hasta"),
            ("desde=2026-13-01&hasta=2026-12-31", "desde"),
            ("desde=2026-01-01&hasta=31/12/2026", "hasta"),
            ("hasta=2026-12-31", "desde"),
            ("desde=2026-01-01&hasta=2026-12-31&formato=xml", "formato"),
        ] {
            let malo = app.get(&format!("/api/nomina/imss/movimientos?{query}"), &who).await;
            malo.assert_error(400, "NOMINA_001");
            assert!(malo.body["error"]["details"]["fields"].to_string().contains(campo), "{query}: {:?}", malo.body);
        }
        // Another company sees none of it.
        let otra = empresa_nomina(&app, "idse-otra@example.com", Some("B5510768108")).await;
        let vacia = app.get("/api/nomina/imss/movimientos?desde=2026-01-01&hasta=2026-12-31&formato=json", &otra).await;
        assert_eq!(vacia.data(200)["movimientos"].as_array().unwrap().len(), 0);
    })
    .await;
}

/// The PTU of 2025 (monto 100,000.00, paid 2026-05-29) over workers that exercise LFT
/// Art. 127: A and B base workers (500.00, 800.00), C de confianza (1,500.00, distributed on
/// 800.00 × 1.2 = 960.00), D director (excluded), E eventual with 47 days (excluded), F
/// eventual with 92 days (included), G permanent with 31 days (included: the 60 days apply to
/// eventual workers). Returns the answer and the ids A..G.
async fn reparto_art_127(app: &TestApp, correo: &str) -> (Value, Vec<String>) {
    let who = empresa_nomina(app, correo, Some("B5510768108")).await;
    // (salario, alta, contrato, confianza, director)
    let casos = [
        ("500.00", "2020-01-01", "01", false, false),
        ("800.00", "2020-01-01", "01", false, false),
        ("1500.00", "2020-01-01", "01", true, false),
        ("3000.00", "2020-01-01", "01", false, true),
        ("400.00", "2025-11-15", "03", false, false),
        ("400.00", "2025-10-01", "02", false, false),
        ("450.00", "2025-12-01", "01", false, false),
    ];
    let mut ids = Vec::new();
    for (k, (salario, alta, contrato, confianza, director)) in casos.iter().enumerate() {
        let mut e = empleado(k, salario, alta, "QUINCENAL");
        (e["tipoContrato"], e["confianza"], e["director"]) = (json!(contrato), json!(confianza), json!(director));
        let creado = app.post("/api/nomina/empleados", &who, e).await.data(201).clone();
        assert_eq!((creado["confianza"].as_bool(), creado["director"].as_bool()), (Some(*confianza), Some(*director)));
        ids.push(creado["id"].as_str().unwrap().to_owned());
    }
    let hecho = app
        .post("/api/nomina/ptu", &who, json!({ "ejercicio": 2025, "monto": "100000.00", "fechaPago": "2026-05-29" }))
        .await;
    let data = hecho.data(201).clone();
    assert_eq!(
        (data["reparto"]["totalDias"].as_u64(), num(&data["reparto"]["totalSalarios"])),
        (Some(1218), 875_650.0),
        "{data}"
    );
    assert_eq!(num(&data["reparto"]["totalPagado"]), 100_000.0, "{data}");
    (data, ids)
}

fn fila<'a>(data: &'a Value, id: &str) -> &'a Value {
    data["reparto"]["trabajadores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["empleadoId"] == id || t["clave"] == id)
        .unwrap()
}

fn omitido(data: &Value, id: &str) -> Option<String> {
    data["calculo"]["omitidos"].as_array().unwrap().iter().find(|o| o["empleadoId"] == id).map(|o| o.to_string())
}

#[tokio::test]
async fn ptu_art_127_i_excludes_directors_and_general_managers() {
    each_backend(|app: TestApp| async move {
        let (data, ids) = reparto_art_127(&app, "ptu-director@example.com").await;
        assert_eq!(fila(&data, &ids[3])["excluido"], "DIRECTOR", "{data}");
        assert_eq!(num(&fila(&data, &ids[3])["ptu"]), 0.0);
        assert!(omitido(&data, &ids[3]).is_some_and(|o| o.contains("DIRECTOR")), "{data}");
        assert_eq!(data["calculo"]["recibosCalculados"], 5);
    })
    .await;
}

#[tokio::test]
async fn ptu_art_127_ii_caps_a_confianza_salary_at_the_highest_base_salary_plus_20_percent() {
    each_backend(|app: TestApp| async move {
        let (data, ids) = reparto_art_127(&app, "ptu-confianza@example.com").await;
        assert_eq!(num(&data["reparto"]["topeConfianza"]), 960.0, "{data}");
        let c = fila(&data, &ids[2]);
        assert_eq!((num(&c["salarioDiarioReparto"]), num(&c["salarioAnual"])), (960.0, 350_400.0), "{c}");
        assert_eq!(
            (num(&c["porDias"]), num(&c["porSalario"]), num(&c["ptu"])),
            (14_983.58, 20_007.99, 34_991.57),
            "{c}"
        );
        // The base workers keep their own salary.
        let (a, b) = (fila(&data, &ids[0]), fila(&data, &ids[1]));
        assert_eq!((num(&a["ptu"]), num(&b["ptu"])), (25_404.41, 31_656.91), "{data}");
    })
    .await;
}

#[tokio::test]
async fn ptu_art_127_vii_excludes_eventual_workers_under_60_days() {
    each_backend(|app: TestApp| async move {
        let (data, ids) = reparto_art_127(&app, "ptu-eventual@example.com").await;
        let e = fila(&data, &ids[4]);
        assert_eq!((e["excluido"].as_str(), e["dias"].as_u64()), (Some("EVENTUAL_MENOS_DE60_DIAS"), Some(47)), "{e}");
        assert!(omitido(&data, &ids[4]).is_some(), "{data}");
    })
    .await;
}

#[tokio::test]
async fn ptu_includes_eventual_workers_with_60_days_or_more_and_permanent_workers_with_fewer() {
    each_backend(|app: TestApp| async move {
        let (data, ids) = reparto_art_127(&app, "ptu-incluidos@example.com").await;
        let (f, g) = (fila(&data, &ids[5]), fila(&data, &ids[6]));
        assert!(f["excluido"].is_null() && g["excluido"].is_null(), "{data}");
        assert_eq!((f["dias"].as_u64(), num(&f["ptu"])), (Some(92), 5877.98), "{f}");
        assert_eq!((g["dias"].as_u64(), num(&g["ptu"])), (Some(31), 2069.13), "{g}");
    })
    .await;
}
