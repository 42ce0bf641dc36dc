//! Payroll: employees, incidences, pay periods and their calculation, over HTTP on every
//! backend, with the clock pinned to 2026-03-20 (Mexico City) so dates are fixed.

use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::harness::{As, TestApp, each_backend_with};
use timbra_services::clock::Clock;

/// 2026-03-20 12:00 in Mexico City (UTC−6), as seconds from now.
fn pinned() -> Clock {
    let objetivo = time::macros::datetime!(2026-03-20 18:00 UTC);
    Clock::shifted((objetivo - time::OffsetDateTime::now_utc()).whole_seconds(), 1.0)
}

async fn each_backend<F, Fut>(body: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    each_backend_with(|config| config.clock = pinned(), body).await
}

/// Valid identities (RFC with its check digit, CURP with RENAPO's, NSS with Luhn's).
const PERSONAS: [(&str, &str, &str, &str); 6] = [
    ("PEGA700101A06", "PEGA700101HDFRRN02", "12100000004", "ANA PEREZ GARCIA"),
    ("LOMJ710202B04", "LOMJ710202MDFRRN01", "12100079198", "JUANA LOPEZ MARTINEZ"),
    ("RAHC720303C0A", "RAHC720303HDFRRN02", "12100158380", "CARLOS RAMIREZ HERNANDEZ"),
    ("GUSM730404D02", "GUSM730404MDFRRN06", "12100237572", "MARIA GUTIERREZ SANCHEZ"),
    ("MEDL740505E07", "MEDL740505HDFRRN05", "12100316764", "LUIS MENDOZA DIAZ"),
    ("TORF750606F08", "TORF750606MDFRRN01", "12100395958", "FERNANDA TORRES RUIZ"),
];

/// An employee body for person `i`.
fn empleado(i: usize, periodicidad: &str, salario: &str) -> Value {
    let (rfc, curp, nss, nombre) = PERSONAS[i];
    json!({
        "numEmpleado": format!("E{:03}", i + 1), "nombre": nombre, "rfc": rfc, "curp": curp, "nss": nss,
        "codigoPostal": "06600", "fechaInicioRelLaboral": "2020-01-15", "salarioDiario": salario,
        "salarioDiarioIntegrado": (salario.parse::<Decimal>().unwrap() * Decimal::new(10493, 4)).round_dp(2).to_string(),
        "periodicidad": periodicidad, "tipoContrato": "01", "tipoJornada": "01", "riesgoPuesto": 1,
        "departamento": "Ventas", "puesto": "Vendedor", "claveEntFed": "CMX",
    })
}

/// The owner's key and a company.
async fn nueva_empresa(app: &TestApp, email: &str) -> (String, String) {
    let (_, key) = app.user(email).await;
    let empresa = app.empresa(&key, "EKU9003173C9").await;
    (key, empresa)
}

fn fields(answer: &crate::harness::Answer) -> Vec<String> {
    answer.body["error"]["details"]["fields"]
        .as_array()
        .map(|f| f.iter().map(|p| p["field"].as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn employees_are_validated_unique_deactivated_and_scoped() {
    each_backend(|app| async move {
        let (key, empresa) = nueva_empresa(&app, "nomina@example.com").await;
        let who = As::key(&key).in_empresa(&empresa);

        let created = app.post("/api/nomina/empleados", &who, empleado(0, "QUINCENAL", "500.00")).await;
        let e = created.data(201).clone();
        assert_eq!(e["activo"], true);
        assert_eq!(e["fechaBaja"], Value::Null);
        assert_eq!(e["tipoRegimen"], "02", "default régimen 02 (sueldos)");
        assert_eq!(e["riesgoPuesto"], "1");
        assert_eq!(e["salarioDiario"].to_string(), "500.00");
        assert_eq!(e["salarioDiarioIntegrado"].to_string(), "524.65");
        let id = e["id"].as_str().unwrap().to_owned();
        let path = format!("/api/nomina/empleados/{id}");
        assert_eq!(app.get(&path, &who).await.data(200)["rfc"], "PEGA700101A06");

        // Every problem at once, each naming its field.
        let malo = json!({
            "numEmpleado": "X|1", "nombre": "", "rfc": "PEGA700101A07", "curp": "PEGA700101HDFRRN03",
            "nss": "12100000005", "codigoPostal": "6600", "fechaInicioRelLaboral": "2026-04-01",
            "salarioDiario": "500", "salarioDiarioIntegrado": "499.99", "periodicidad": "DIARIA",
            "tipoContrato": "01", "tipoRegimen": "09", "riesgoPuesto": 7, "claveEntFed": "XYZ",
            "cuentaBancaria": "1234567890", "banco": "999",
        });
        let answer = app.post("/api/nomina/empleados", &who, malo).await;
        answer.assert_error(400, "EMPLEADO_001");
        let mut got = fields(&answer);
        got.sort();
        let mut want = vec![
            "numEmpleado",
            "nombre",
            "rfc",
            "curp",
            "nss",
            "codigoPostal",
            "fechaInicioRelLaboral",
            "salarioDiarioIntegrado",
            "periodicidad",
            "tipoRegimen",
            "riesgoPuesto",
            "banco",
            "claveEntFed",
        ];
        want.sort();
        assert_eq!(got, want, "{}", answer.body);
        let texto = answer.body.to_string();
        assert!(texto.contains("check digit should be 6"), "{texto}");
        assert!(texto.contains("CURP's check digit should be 2"), "{texto}");
        // A persona moral's RFC, a missing NSS with a contract registered with IMSS, nothing at all.
        let mut moral = empleado(1, "QUINCENAL", "400");
        moral["rfc"] = json!("EKU9003173C9");
        moral["nss"] = Value::Null;
        let answer = app.post("/api/nomina/empleados", &who, moral).await;
        answer.assert_error(400, "EMPLEADO_001");
        assert_eq!(fields(&answer), ["rfc", "nss"]);
        let answer = app.post("/api/nomina/empleados", &who, json!({})).await;
        answer.assert_error(400, "EMPLEADO_001");
        assert!(fields(&answer).len() >= 11, "{}", answer.body);
        // A CLABE with its check digit and no bank; without NSS for a contract outside IMSS (09).
        let mut honorarios = empleado(1, "MENSUAL", "900");
        honorarios["tipoContrato"] = json!("09");
        honorarios["tipoRegimen"] = json!("09");
        honorarios["nss"] = Value::Null;
        honorarios["cuentaBancaria"] = json!("002010077777777771");
        let h = app.post("/api/nomina/empleados", &who, honorarios).await;
        assert_eq!(h.data(201)["cuentaBancaria"], "002010077777777771");

        // The same RFC or number again: 409, naming which.
        let mut otro = empleado(2, "QUINCENAL", "450");
        otro["rfc"] = json!("PEGA700101A06");
        let answer = app.post("/api/nomina/empleados", &who, otro).await;
        answer.assert_error(409, "EMPLEADO_002");
        assert_eq!(fields(&answer), ["rfc"]);
        let mut otro = empleado(2, "QUINCENAL", "450");
        otro["numEmpleado"] = json!("E001");
        app.post("/api/nomina/empleados", &who, otro).await.assert_error(409, "EMPLEADO_002");

        // PATCH changes any field and keeps the rest; a taken number is refused there too.
        let patched = app
            .call(
                Method::PATCH,
                &path,
                &who,
                Some(json!({ "salarioDiario": 520, "salarioDiarioIntegrado": "545.64", "puesto": "Gerente" })),
            )
            .await;
        let p = patched.data(200);
        assert_eq!((p["salarioDiario"].to_string().as_str(), p["puesto"].as_str()), ("520", Some("Gerente")));
        assert_eq!(p["curp"], "PEGA700101HDFRRN02");
        let h_num = h.data(201)["numEmpleado"].as_str().unwrap().to_owned();
        app.call(Method::PATCH, &path, &who, Some(json!({ "numEmpleado": h_num })))
            .await
            .assert_error(409, "EMPLEADO_002");
        app.call(Method::PATCH, &path, &who, Some(json!({ "curp": "PEGA700101HDFRRN0" })))
            .await
            .assert_error(400, "EMPLEADO_001");

        // DELETE deactivates (the record stays); PATCH activo true re-activates.
        let gone = app.call(Method::DELETE, &path, &who, None).await;
        assert_eq!(gone.data(200)["activo"], false);
        assert_eq!(gone.data(200)["fechaBaja"], "2026-03-20");
        assert_eq!(app.get(&path, &who).await.data(200)["activo"], false);
        let back = app.call(Method::PATCH, &path, &who, Some(json!({ "activo": true }))).await;
        assert_eq!((back.data(200)["activo"].clone(), back.data(200)["fechaBaja"].clone()), (json!(true), Value::Null));
        let baja =
            app.call(Method::PATCH, &path, &who, Some(json!({ "activo": false, "fechaBaja": "2026-03-18" }))).await;
        assert_eq!(baja.data(200)["fechaBaja"], "2026-03-18");
        app.call(Method::PATCH, &path, &who, Some(json!({ "activo": true }))).await.data(200);

        // Listing with search.
        let page = app.get("/api/nomina/empleados?q=perez", &who).await;
        assert_eq!(page.data(200)["total"], 1);
        assert_eq!(app.get("/api/nomina/empleados", &who).await.data(200)["total"], 2);

        // Another company's employee does not exist for this one.
        let (other_key, other) = nueva_empresa(&app, "otra@example.com").await;
        let stranger = As::key(&other_key).in_empresa(&other);
        app.get(&path, &stranger).await.assert_error(404, "NOT_FOUND");
        app.call(Method::PATCH, &path, &stranger, Some(json!({ "puesto": "X" }))).await.assert_error(404, "NOT_FOUND");
        app.call(Method::DELETE, &path, &stranger, None).await.assert_error(404, "NOT_FOUND");
        assert_eq!(app.get("/api/nomina/empleados", &stranger).await.data(200)["total"], 0);
        // Its own employee may reuse the RFC: uniqueness is per company.
        app.post("/api/nomina/empleados", &stranger, empleado(0, "SEMANAL", "400")).await.data(201);

        // Roles: CONTADOR and up; keys narrowed to nomina:view read only.
        let (_, facturador) = app.user("fact@example.com").await;
        let (_, contador) = app.user("conta@example.com").await;
        let members = format!("/api/empresas/{empresa}/miembros");
        app.post(&members, &As::key(&key), json!({ "email": "fact@example.com", "role": "FACTURADOR" }))
            .await
            .data(201);
        app.post(&members, &As::key(&key), json!({ "email": "conta@example.com", "role": "CONTADOR" })).await.data(201);
        app.get("/api/nomina/empleados", &As::key(&facturador).in_empresa(&empresa))
            .await
            .assert_error(403, "AUTH_003");
        app.get("/api/nomina/empleados", &As::key(&contador).in_empresa(&empresa)).await.data(200);
        let narrow = app
            .post(
                "/api/api-keys",
                &As::key(&key),
                json!({ "name": "lector", "scopes": ["nomina:view"], "empresaIds": [empresa] }),
            )
            .await;
        let lector = As::key(narrow.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
        app.get(&path, &lector).await.data(200);
        app.post("/api/nomina/empleados", &lector, empleado(3, "SEMANAL", "400")).await.assert_error(403, "SCOPE_002");
        app.post("/api/nomina/periodos", &lector, json!({})).await.assert_error(403, "SCOPE_002");
    })
    .await;
}

#[tokio::test]
async fn incidences_take_the_fields_of_their_kind_and_are_decided_once() {
    each_backend(|app| async move {
        let (key, empresa) = nueva_empresa(&app, "inc@example.com").await;
        let who = As::key(&key).in_empresa(&empresa);
        let e = app.post("/api/nomina/empleados", &who, empleado(0, "QUINCENAL", "500")).await;
        let empleado_id = e.data(201)["id"].as_str().unwrap().to_owned();
        let inc = |body: Value| {
            let mut body = body;
            body["empleadoId"] = json!(empleado_id);
            body
        };
        for body in [
            json!({ "tipo": "HORAS_EXTRA", "fecha": "2026-03-03", "horas": 4 }),
            json!({ "tipo": "INCAPACIDAD", "fecha": "2026-03-05T09:00:00-06:00", "dias": 2, "tipoIncapacidad": "02" }),
            json!({ "tipo": "falta", "fecha": "2026-03-06", "dias": 1 }),
            json!({ "tipo": "VACACIONES", "fecha": "2026-03-09", "dias": 3 }),
            json!({ "tipo": "PRIMA_DOMINICAL", "fecha": "2026-03-08", "domingos": 1 }),
            json!({ "tipo": "PERCEPCION", "fecha": "2026-03-10", "tipoPercepcion": "038", "importe": "1000.00" }),
            json!({ "tipo": "DEDUCCION", "fecha": "2026-03-10", "tipoDeduccion": "011", "concepto": "Fonacot", "importe": 250 }),
        ] {
            let answer = app.post("/api/nomina/incidencias", &who, inc(body.clone())).await;
            let data = answer.data(201);
            assert_eq!(data["status"], "PENDIENTE", "{body}");
        }
        let created = app.get("/api/nomina/incidencias?tipo=INCAPACIDAD", &who).await;
        let incapacidad = &created.data(200)["items"][0];
        assert_eq!((incapacidad["fecha"].as_str(), incapacidad["dias"].as_i64()), (Some("2026-03-05"), Some(2)));
        let percepcion = &app.get("/api/nomina/incidencias?tipo=PERCEPCION", &who).await.data(200)["items"][0].clone();
        assert_eq!(percepcion["concepto"], "Percepción 038");
        assert_eq!(percepcion["tipoPercepcion"], "038");

        // Bad incidences: every problem, each on its field.
        for (body, want) in [
            (json!({ "tipo": "HORAS_EXTRA", "fecha": "2026-03-03", "horas": 0, "dias": 1 }), vec!["dias", "horas"]),
            (json!({ "tipo": "INCAPACIDAD", "fecha": "03/05/2026", "dias": 2, "tipoIncapacidad": "07" }), vec!["fecha", "tipoIncapacidad"]),
            (json!({ "tipo": "PERCEPCION", "fecha": "2026-03-10", "tipoPercepcion": "019", "importe": 0 }), vec!["tipoPercepcion", "importe"]),
            (json!({ "tipo": "PERCEPCION", "fecha": "2026-03-10", "tipoPercepcion": "038", "importe": 10, "gravado": 5, "exento": 5 }), vec!["exento"]),
            (json!({ "tipo": "DEDUCCION", "fecha": "2026-03-10", "tipoDeduccion": "002", "importe": 10 }), vec!["tipoDeduccion"]),
            (json!({ "tipo": "BONO", "fecha": "2026-03-10" }), vec!["tipo"]),
        ] {
            let answer = app.post("/api/nomina/incidencias", &who, inc(body.clone())).await;
            answer.assert_error(400, "INCIDENCIA_001");
            assert_eq!(fields(&answer), want, "{body}: {}", answer.body);
        }
        // An employee of another company, or none, or inactive.
        let (other_key, other) = nueva_empresa(&app, "inc2@example.com").await;
        let stranger = As::key(&other_key).in_empresa(&other);
        let theirs = app.post("/api/nomina/empleados", &stranger, empleado(1, "QUINCENAL", "500")).await;
        let theirs_id = theirs.data(201)["id"].as_str().unwrap().to_owned();
        let answer = app
            .post("/api/nomina/incidencias", &who, json!({ "tipo": "FALTA", "fecha": "2026-03-06", "dias": 1, "empleadoId": theirs_id }))
            .await;
        answer.assert_error(400, "INCIDENCIA_001");
        assert_eq!(fields(&answer), ["empleadoId"]);
        app.call(Method::DELETE, &format!("/api/nomina/empleados/{empleado_id}"), &who, None).await.data(200);
        let answer = app.post("/api/nomina/incidencias", &who, inc(json!({ "tipo": "FALTA", "fecha": "2026-03-06", "dias": 1 }))).await;
        answer.assert_error(400, "INCIDENCIA_001");
        assert!(answer.body.to_string().contains("inactive"), "{}", answer.body);

        // Decided once: PENDIENTE → APROBADA; again → 409; bad status → 400; other company → 404.
        let id = incapacidad["id"].as_str().unwrap().to_owned();
        let path = format!("/api/nomina/incidencias/{id}");
        let approved = app.call(Method::PATCH, &path, &who, Some(json!({ "status": "APROBADA" }))).await;
        assert_eq!(approved.data(200)["status"], "APROBADA");
        app.call(Method::PATCH, &path, &who, Some(json!({ "status": "RECHAZADA" }))).await.assert_error(409, "INCIDENCIA_002");
        app.call(Method::PATCH, &path, &who, Some(json!({ "status": "PENDIENTE" }))).await.assert_error(400, "INCIDENCIA_001");
        app.call(Method::PATCH, &path, &stranger, Some(json!({ "status": "RECHAZADA" }))).await.assert_error(404, "NOT_FOUND");
        app.get(&path, &stranger).await.assert_error(404, "NOT_FOUND");
        assert_eq!(app.get(&path, &who).await.data(200)["status"], "APROBADA");
        let listed = app.get(&format!("/api/nomina/incidencias?status=APROBADA&empleadoId={empleado_id}"), &who).await;
        assert_eq!(listed.data(200)["total"], 1);
        let listed = app.get("/api/nomina/incidencias?desde=2026-03-09&hasta=2026-03-10", &who).await;
        assert_eq!(listed.data(200)["total"], 3);
        app.get("/api/nomina/incidencias?status=OTRA", &who).await.assert_error(400, "REQUEST_001");
        assert_eq!(app.get("/api/nomina/incidencias", &stranger).await.data(200)["total"], 0);
    })
    .await;
}

/// Approves an incidence.
async fn aprobada(app: &TestApp, who: &As, body: Value) -> String {
    let id = app.post("/api/nomina/incidencias", who, body).await.data(201)["id"].as_str().unwrap().to_owned();
    app.call(Method::PATCH, &format!("/api/nomina/incidencias/{id}"), who, Some(json!({ "status": "APROBADA" })))
        .await
        .data(200);
    id
}

/// The calculator's answer for `body`.
async fn calcular(app: &TestApp, body: Value) -> Value {
    app.post("/api/nomina/calcular", &As::default(), body).await.data(200).clone()
}

/// The receipt of `empleado_id` among a period's.
fn recibo<'a>(periodo: &'a Value, empleado_id: &str) -> &'a Value {
    periodo["recibos"].as_array().unwrap().iter().find(|r| r["empleadoId"] == empleado_id).unwrap()
}

/// The figures a receipt shares with the calculator's answer.
fn figuras(v: &Value) -> Value {
    json!({ "percepciones": v["percepciones"], "deducciones": v["deducciones"], "otrosPagos": v["otrosPagos"],
            "netoAPagar": v["netoAPagar"], "desglose": v["desglose"] })
}

#[tokio::test]
async fn a_period_pays_every_active_employee_as_the_calculator_does() {
    each_backend(|app| async move {
        let (key, empresa) = nueva_empresa(&app, "periodo@example.com").await;
        let who = As::key(&key).in_empresa(&empresa);
        let alta = |i: usize, periodicidad: &'static str, salario: &'static str| {
            let (app, who) = (&app, &who);
            async move {
                let e = app.post("/api/nomina/empleados", who, empleado(i, periodicidad, salario)).await;
                e.data(201)["id"].as_str().unwrap().to_owned()
            }
        };
        let ana = alta(0, "QUINCENAL", "500.00").await;
        let juana = alta(1, "QUINCENAL", "315.04").await; // minimum wage
        let semanal = alta(2, "SEMANAL", "600").await;
        let baja = alta(3, "QUINCENAL", "700").await;
        app.call(Method::DELETE, &format!("/api/nomina/empleados/{baja}"), &who, None).await.data(200);

        // Bad periods: every problem named.
        let answer = app
            .post(
                "/api/nomina/periodos",
                &who,
                json!({ "fechaInicio": "2026-03-16", "fechaFin": "2026-03-01", "fechaPago": "2026-02-28",
                        "periodicidad": "QUINCENAL", "diasPagados": 14 }),
            )
            .await;
        answer.assert_error(400, "NOMINA_001");
        assert_eq!(fields(&answer), ["diasPagados", "fechaFin", "fechaPago"]);
        let answer = app
            .post(
                "/api/nomina/periodos",
                &who,
                json!({ "fechaInicio": "2026-03-01", "fechaFin": "2026-03-20", "fechaPago": "2026-03-20",
                        "periodicidad": "QUINCENAL", "diasPagados": 15 }),
            )
            .await;
        answer.assert_error(400, "NOMINA_001");
        assert!(answer.body.to_string().contains("13 to 16"), "{}", answer.body);
        app.post("/api/nomina/periodos", &who, json!({})).await.assert_error(400, "NOMINA_001");

        let created = app
            .post(
                "/api/nomina/periodos",
                &who,
                json!({ "fechaInicio": "2026-03-01T00:00:00-06:00", "fechaFin": "2026-03-15", "fechaPago": "2026-03-15",
                        "periodicidad": "QUINCENAL", "diasPagados": 15 }),
            )
            .await;
        let p = created.data(201).clone();
        assert_eq!((p["status"].as_str(), p["fechaInicio"].as_str(), p["fechaPago"].as_str()), (Some("ABIERTO"), Some("2026-03-01"), Some("2026-03-15")));
        assert_eq!((p["diasPagados"].as_i64(), p["periodicidad"].as_str()), (Some(15), Some("QUINCENAL")));
        let periodo_id = p["id"].as_str().unwrap().to_owned();
        let path = format!("/api/nomina/periodos/{periodo_id}");
        // The same days twice would pay them twice; another periodicidad may share them.
        let traslape = app
            .post(
                "/api/nomina/periodos",
                &who,
                json!({ "fechaInicio": "2026-03-15", "fechaFin": "2026-03-30", "fechaPago": "2026-03-30",
                        "periodicidad": "QUINCENAL", "diasPagados": 15 }),
            )
            .await;
        traslape.assert_error(409, "NOMINA_004");
        assert!(traslape.body.to_string().contains(&periodo_id), "{}", traslape.body);
        app.post(
            "/api/nomina/periodos",
            &who,
            json!({ "fechaInicio": "2026-03-09", "fechaFin": "2026-03-15", "fechaPago": "2026-03-16",
                    "periodicidad": "SEMANAL", "diasPagados": 7 }),
        )
        .await
        .data(201);

        // Ana: overtime 6 h on Tuesday and 5 h on Thursday of one week (9 double, 2 triple), one
        // absence, two days of disability, 3 vacation days, 2 Sundays, a bonus and a deduction.
        for body in [
            json!({ "tipo": "HORAS_EXTRA", "fecha": "2026-03-03", "horas": 6 }),
            json!({ "tipo": "HORAS_EXTRA", "fecha": "2026-03-05", "horas": 5 }),
            json!({ "tipo": "FALTA", "fecha": "2026-03-06", "dias": 1 }),
            json!({ "tipo": "INCAPACIDAD", "fecha": "2026-03-10", "dias": 2, "tipoIncapacidad": "02" }),
            json!({ "tipo": "VACACIONES", "fecha": "2026-03-11", "dias": 3 }),
            json!({ "tipo": "PRIMA_DOMINICAL", "fecha": "2026-03-08", "domingos": 2 }),
            json!({ "tipo": "PERCEPCION", "fecha": "2026-03-12", "tipoPercepcion": "038", "concepto": "Bono de productividad", "importe": "1000.00" }),
            json!({ "tipo": "DEDUCCION", "fecha": "2026-03-12", "tipoDeduccion": "011", "concepto": "Fonacot", "importe": "250.50" }),
        ] {
            let mut body = body;
            body["empleadoId"] = json!(ana);
            aprobada(&app, &who, body).await;
        }
        // Not counted: pending, rejected, or dated outside the period.
        let pendiente = app
            .post("/api/nomina/incidencias", &who, json!({ "tipo": "FALTA", "fecha": "2026-03-13", "dias": 1, "empleadoId": ana }))
            .await;
        let pendiente_id = pendiente.data(201)["id"].as_str().unwrap().to_owned();
        let rechazada = app
            .post("/api/nomina/incidencias", &who, json!({ "tipo": "FALTA", "fecha": "2026-03-13", "dias": 2, "empleadoId": ana }))
            .await;
        let rechazada_id = rechazada.data(201)["id"].as_str().unwrap().to_owned();
        app.call(Method::PATCH, &format!("/api/nomina/incidencias/{rechazada_id}"), &who, Some(json!({ "status": "RECHAZADA" })))
            .await
            .data(200);
        aprobada(&app, &who, json!({ "tipo": "FALTA", "fecha": "2026-03-16", "dias": 3, "empleadoId": ana })).await;
        // Juana, on the minimum wage: 4 h of overtime, all exempt.
        aprobada(&app, &who, json!({ "tipo": "HORAS_EXTRA", "fecha": "2026-03-04", "horas": 4, "empleadoId": juana })).await;

        let calculado = app.post(&path, &who, json!(null)).await;
        let c = calculado.data(200).clone();
        assert_eq!((c["periodoId"].as_str(), c["status"].as_str(), c["recibosCalculados"].as_i64()), (Some(periodo_id.as_str()), Some("CALCULADO"), Some(2)));

        let periodo = app.get(&path, &who).await.data(200).clone();
        assert_eq!(periodo["status"], "CALCULADO");
        assert_eq!(periodo["recibos"].as_array().unwrap().len(), 2, "the weekly and the inactive employee get none");
        let suma: Decimal = periodo["recibos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["netoAPagar"].to_string().parse::<Decimal>().unwrap())
            .sum();
        assert_eq!(c["totalNomina"].to_string().parse::<Decimal>().unwrap(), suma);
        assert_eq!(periodo["totalNomina"], c["totalNomina"]);
        assert!(periodo["recibos"].as_array().unwrap().iter().all(|r| r["empleadoId"] != semanal && r["empleadoId"] != baja));

        // Ana's receipt: 15 − 1 absence − 2 disability = 12 days.
        let r = recibo(&periodo, &ana);
        assert_eq!((r["status"].as_str(), r["empleadoNombre"].as_str()), (Some("CALCULADO"), Some("ANA PEREZ GARCIA")));
        assert_eq!(r["diasPagados"].to_string(), "12");
        assert_eq!(r["total"], r["netoAPagar"]);
        assert_eq!(r["percepciones"]["sueldoBase"].to_string(), "6000.00");
        let tipos: Vec<&str> = r["lineas"]["percepciones"].as_array().unwrap().iter().map(|p| p["tipo"].as_str().unwrap()).collect();
        assert_eq!(tipos, ["001", "019", "021", "020", "038"]);
        // Overtime at 62.50 an hour: 9 double (1,125.00) and 2 triple (375.00); half the double
        // pay is exempt (562.50, under 5 UMA = 586.55).
        let he = &r["lineas"]["percepciones"][1];
        assert_eq!((he["gravado"].to_string().as_str(), he["exento"].to_string().as_str()), ("937.50", "562.50"));
        let horas: Vec<String> = he["horasExtra"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{} {} {} {}", h["tipoHoras"].as_str().unwrap(), h["horas"], h["dias"], h["importePagado"]))
            .collect();
        assert_eq!(horas, ["01 9 2 1125.00", "02 2 1 375.00"]);
        // Prima vacacional 25 % of 3 days (375.00, exempt up to 15 UMA); prima dominical 2 × 125.
        assert_eq!(r["lineas"]["percepciones"][2]["exento"].to_string(), "375.00");
        let dominical = &r["lineas"]["percepciones"][3];
        assert_eq!((dominical["gravado"].to_string().as_str(), dominical["exento"].to_string().as_str()), ("15.38", "234.62"));
        assert_eq!(r["lineas"]["incapacidades"], json!([{ "dias": 2, "tipo": "02" }]));
        let deducciones: Vec<&str> = r["lineas"]["deducciones"].as_array().unwrap().iter().map(|d| d["tipo"].as_str().unwrap()).collect();
        assert_eq!(deducciones, ["001", "002", "011"]);

        // The same figures as the public calculator, to the centavo: for the body the receipt
        // records, and for the body a client would write by hand.
        assert_eq!(figuras(&calcular(&app, r["entrada"].clone()).await), figuras(r));
        let a_mano = json!({
            "salarioDiario": 500, "salarioDiarioIntegrado": "524.65", "diasPagados": 12, "periodicidad": "quincenal",
            "riesgoPuesto": "1", "fechaPago": "2026-03-15",
            "percepciones": [
                { "tipo": "019", "concepto": "Horas extra", "gravado": "937.50", "exento": "562.50" },
                { "tipo": "021", "concepto": "Prima vacacional", "importe": 375 },
                { "tipo": "020", "concepto": "Prima dominical", "importe": 250, "domingos": 2 },
                { "tipo": "038", "concepto": "Bono de productividad", "importe": 1000 },
            ],
            "deducciones": [{ "tipo": "011", "concepto": "Fonacot", "importe": "250.50" }],
        });
        assert_eq!(figuras(&calcular(&app, a_mano).await), figuras(r));

        // Juana on the minimum wage: overtime all exempt, no IMSS withheld (Art. 36 LSS).
        let j = recibo(&periodo, &juana);
        assert_eq!(j["diasPagados"].to_string(), "15");
        let he = &j["lineas"]["percepciones"][1];
        assert_eq!((he["gravado"].to_string().as_str(), he["exento"].to_string().as_str()), ("0.00", "315.04"));
        assert_eq!(j["deducciones"]["imssEmpleado"].to_string(), "0.00");
        assert_eq!(figuras(&calcular(&app, j["entrada"].clone()).await), figuras(j));

        // The event, in the same transaction.
        let mut conn = app.db.conn().await.unwrap();
        let eventos = timbra_store::sql!(fetch_all conn, (String, String),
            "SELECT type, data FROM events WHERE empresa_id = $1 AND type = 'nomina.calculada' ORDER BY created_at, id", &empresa)
        .unwrap();
        assert_eq!(eventos.len(), 1);
        let data: Value = serde_json::from_str(&eventos[0].1).unwrap();
        assert_eq!(data, json!({ "periodoId": periodo_id, "recibosCalculados": 2, "totalNomina": c["totalNomina"] }));

        // Recalculating replaces the receipts: approving the pending absence takes a day off.
        let viejos: Vec<String> = periodo["recibos"].as_array().unwrap().iter().map(|r| r["reciboId"].as_str().unwrap().to_owned()).collect();
        app.call(Method::PATCH, &format!("/api/nomina/incidencias/{pendiente_id}"), &who, Some(json!({ "status": "APROBADA" })))
            .await
            .data(200);
        let otra = app.post(&path, &who, json!(null)).await;
        assert_eq!(otra.data(200)["recibosCalculados"], 2);
        let periodo = app.get(&path, &who).await.data(200).clone();
        assert_eq!(periodo["recibos"].as_array().unwrap().len(), 2);
        assert!(periodo["recibos"].as_array().unwrap().iter().all(|r| !viejos.contains(&r["reciboId"].as_str().unwrap().to_owned())));
        assert_eq!(recibo(&periodo, &ana)["diasPagados"].to_string(), "11");
        let eventos = timbra_store::sql!(scalar_one conn, i64,
            "SELECT COUNT(*) FROM events WHERE empresa_id = $1 AND type = 'nomina.calculada'", &empresa)
        .unwrap();
        assert_eq!(eventos, 2);

        // Another company sees no such period.
        let (other_key, other) = nueva_empresa(&app, "periodo2@example.com").await;
        let stranger = As::key(&other_key).in_empresa(&other);
        app.get(&path, &stranger).await.assert_error(404, "NOT_FOUND");
        app.post(&path, &stranger, json!(null)).await.assert_error(404, "NOT_FOUND");
        assert_eq!(app.get("/api/nomina/periodos", &stranger).await.data(200)["total"], 0);
        let listed = app.get("/api/nomina/periodos?status=CALCULADO", &who).await;
        assert_eq!(listed.data(200)["items"][0]["id"], periodo_id);

        // Once a receipt is stamped the period cannot be recalculated, and nothing changes.
        let stamped_id = recibo(&periodo, &ana)["reciboId"].as_str().unwrap().to_owned();
        timbra_store::sql!(execute conn, "UPDATE nomina_recibos SET status = 'TIMBRADO_SANDBOX', uuid = 'SANDBOX-X' WHERE id = $1", &stamped_id)
            .unwrap();
        let refused = app.post(&path, &who, json!(null)).await;
        refused.assert_error(409, "NOMINA_003");
        assert!(refused.body.to_string().contains("1 stamped receipt"), "{}", refused.body);
        let despues = app.get(&path, &who).await.data(200).clone();
        assert_eq!(recibo(&despues, &ana)["reciboId"], stamped_id.as_str());
        assert_eq!(recibo(&despues, &ana)["uuid"], "SANDBOX-X");
    })
    .await;
}

#[tokio::test]
async fn hires_within_the_period_and_employees_with_nothing_to_pay() {
    each_backend(|app| async move {
        let (key, empresa) = nueva_empresa(&app, "altas@example.com").await;
        let who = As::key(&key).in_empresa(&empresa);
        let mut nueva = empleado(4, "SEMANAL", "450");
        nueva["fechaInicioRelLaboral"] = json!("2026-03-12");
        let nueva = app.post("/api/nomina/empleados", &who, nueva).await.data(201)["id"].as_str().unwrap().to_owned();
        let ausente = app.post("/api/nomina/empleados", &who, empleado(5, "SEMANAL", "450")).await.data(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        aprobada(&app, &who, json!({ "tipo": "INCAPACIDAD", "fecha": "2026-03-09", "dias": 7, "tipoIncapacidad": "03", "empleadoId": ausente })).await;
        let p = app
            .post(
                "/api/nomina/periodos",
                &who,
                json!({ "fechaInicio": "2026-03-09", "fechaFin": "2026-03-15", "fechaPago": "2026-03-16",
                        "periodicidad": "semanal", "diasPagados": 7 }),
            )
            .await;
        let path = format!("/api/nomina/periodos/{}", p.data(201)["id"].as_str().unwrap());
        let c = app.post(&path, &who, json!(null)).await.data(200).clone();
        assert_eq!(c["recibosCalculados"], 1);
        assert_eq!(c["omitidos"][0]["empleadoId"], ausente.as_str());
        assert!(c["omitidos"][0]["motivo"].as_str().unwrap().contains("disabilities"), "{c}");
        let periodo = app.get(&path, &who).await.data(200).clone();
        // Hired on Thursday 12: four days of the week.
        assert_eq!(recibo(&periodo, &nueva)["diasPagados"].to_string(), "4");
        assert_eq!(recibo(&periodo, &nueva)["percepciones"]["sueldoBase"].to_string(), "1800.00");
    })
    .await;
}

#[tokio::test]
async fn yearly_exemptions_count_the_earlier_periods_of_the_year() {
    each_backend(|app| async move {
        let (key, empresa) = nueva_empresa(&app, "anual@example.com").await;
        let who = As::key(&key).in_empresa(&empresa);
        let id = app.post("/api/nomina/empleados", &who, empleado(0, "QUINCENAL", "3000")).await.data(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let quincena = |inicio: &str, fin: &str| {
            json!({ "fechaInicio": inicio, "fechaFin": fin, "fechaPago": fin, "periodicidad": "QUINCENAL", "diasPagados": 15 })
        };
        let primera = app.post("/api/nomina/periodos", &who, quincena("2026-03-01", "2026-03-15")).await;
        let primera = format!("/api/nomina/periodos/{}", primera.data(201)["id"].as_str().unwrap());
        let segunda = app.post("/api/nomina/periodos", &who, quincena("2026-03-16", "2026-03-31")).await;
        let segunda = format!("/api/nomina/periodos/{}", segunda.data(201)["id"].as_str().unwrap());
        aprobada(&app, &who, json!({ "tipo": "VACACIONES", "fecha": "2026-03-02", "dias": 6, "empleadoId": id })).await;
        aprobada(&app, &who, json!({ "tipo": "VACACIONES", "fecha": "2026-03-23", "dias": 2, "empleadoId": id })).await;
        let prima = |periodo: &Value| {
            let p = &recibo(periodo, &id)["lineas"]["percepciones"][1];
            assert_eq!(p["tipo"], "021");
            (p["gravado"].to_string(), p["exento"].to_string())
        };

        // First: 6 days of 3,000 at 25 % = 4,500.00, exempt 15 UMA = 1,759.65.
        app.post(&primera, &who, json!(null)).await.data(200);
        let p1 = app.get(&primera, &who).await.data(200).clone();
        assert_eq!(prima(&p1), ("2740.35".into(), "1759.65".into()));
        // Second: 1,500.00, all taxable: the year's limit is used up.
        app.post(&segunda, &who, json!(null)).await.data(200);
        let p2 = app.get(&segunda, &who).await.data(200).clone();
        assert_eq!(prima(&p2), ("1500.00".into(), "0.00".into()));
        let r2 = recibo(&p2, &id);
        assert_eq!(figuras(&calcular(&app, r2["entrada"].clone()).await), figuras(r2));
        // Recalculating the first does not count itself.
        app.post(&primera, &who, json!(null)).await.data(200);
        assert_eq!(prima(&app.get(&primera, &who).await.data(200).clone()), ("2740.35".into(), "1759.65".into()));
        // A cancelled receipt exempts nothing: the second gets the limit back.
        let mut conn = app.db.conn().await.unwrap();
        let primero = recibo(&app.get(&primera, &who).await.data(200).clone(), &id)["reciboId"].as_str().unwrap().to_owned();
        timbra_store::sql!(execute conn, "UPDATE nomina_recibos SET status = 'CANCELADO' WHERE id = $1", &primero).unwrap();
        app.post(&segunda, &who, json!(null)).await.data(200);
        assert_eq!(prima(&app.get(&segunda, &who).await.data(200).clone()), ("0.00".into(), "1500.00".into()));
    })
    .await;
}
