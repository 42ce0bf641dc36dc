//! Payroll receipts stamped and cancelled over HTTP on both backends: every receipt a CFDI tipo
//! N with Nómina 1.2 checked by SAT's own tools, partial stamping and its retry, the period's
//! states, events, downloads, cancellation with its acuse, live stamping through the PAC
//! simulator with the stamp balance, roles, scopes and tenant isolation.

use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::cfdi::{EMISOR, csd, event_types, live_company, raw, sandbox_pac_cer, sat_oracle, start_pac_sim};
use crate::harness::{Answer, As, TempDir, TestApp, each_backend, each_backend_with};

/// Employees with valid RFC, CURP and NSS check digits, all QUINCENAL.
fn empleado(n: usize, salario: &str) -> Value {
    let datos = [
        ("E-001", "BERENICE XIMO QUEZADA", "XIQB891116QE4", "XIQB891116MCHZRL78", "04078873454"),
        ("E-002", "MARIO GOMEZ ARANDA", "GOMA850312AB0", "GOMA850312HDFMRN09", "12345678903"),
        ("E-003", "JUAN PEREZ LOPEZ", "PELJ900520K97", "PELJ900520HJCRPN08", "78901234563"),
        ("E-004", "MARIA ROSAS SANDOVAL", "ROSM921105T31", "ROSM921105MNLDNR03", "55667788990"),
    ];
    let (num, nombre, rfc, curp, nss) = datos[n];
    json!({
        "numEmpleado": num, "nombre": nombre, "rfc": rfc, "curp": curp, "nss": nss, "codigoPostal": "86000",
        "fechaInicioRelLaboral": "2020-01-01", "salarioDiario": salario, "salarioDiarioIntegrado": salario,
        "periodicidad": "QUINCENAL", "tipoContrato": "01", "tipoJornada": "01", "tipoRegimen": "02",
        "riesgoPuesto": 1, "departamento": "Docencia", "puesto": "Profesor", "claveEntFed": "TAB"
    })
}

fn periodo_quincenal() -> Value {
    json!({ "fechaInicio": "2026-11-01", "fechaFin": "2026-11-15", "fechaPago": "2026-11-15",
        "periodicidad": "QUINCENAL", "diasPagados": 15 })
}

/// A sandbox company EKU9003173C9 with its registro patronal; returns who acts in it.
pub(crate) async fn empresa_nomina(app: &TestApp, email: &str, registro: Option<&str>) -> As {
    let (_, key) = app.user(email).await;
    let mut body = json!({ "rfc": EMISOR, "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "86000" });
    if let Some(registro) = registro {
        body["registroPatronal"] = json!(registro);
    }
    let empresa = app.post("/api/empresas", &As::key(&key), body).await.data(201)["id"].as_str().unwrap().to_owned();
    As::key(&key).in_empresa(&empresa)
}

/// Employees `salarios`, their approved `incidencias` (employee index, body) and a calculated
/// QUINCENAL period; returns (period id, employee ids).
pub(crate) async fn periodo_calculado(
    app: &TestApp,
    who: &As,
    salarios: &[&str],
    incidencias: &[(usize, Value)],
) -> (String, Vec<String>) {
    let mut empleados = Vec::new();
    for (n, salario) in salarios.iter().enumerate() {
        let creado = app.post("/api/nomina/empleados", who, empleado(n, salario)).await;
        empleados.push(creado.data(201)["id"].as_str().unwrap().to_owned());
    }
    for (n, incidencia) in incidencias {
        let mut body = incidencia.clone();
        body["empleadoId"] = json!(empleados[*n]);
        let id = app.post("/api/nomina/incidencias", who, body).await.data(201)["id"].as_str().unwrap().to_owned();
        let aprobada = app
            .call(
                reqwest::Method::PATCH,
                &format!("/api/nomina/incidencias/{id}"),
                who,
                Some(json!({ "status": "APROBADA" })),
            )
            .await;
        assert_eq!(aprobada.data(200)["status"], "APROBADA");
    }
    (periodo_de(app, who, salarios.len()).await, empleados)
}

/// A QUINCENAL period calculated over the company's `recibos` active employees; its id.
async fn periodo_de(app: &TestApp, who: &As, recibos: usize) -> String {
    let periodo =
        app.post("/api/nomina/periodos", who, periodo_quincenal()).await.data(201)["id"].as_str().unwrap().to_owned();
    let calculado = app.post(&format!("/api/nomina/periodos/{periodo}"), who, json!({})).await;
    assert_eq!(calculado.data(200)["recibosCalculados"], json!(recibos));
    periodo
}

/// Deactivates (DELETE) or re-activates (PATCH `activo: true`) employee `id`.
async fn activar(app: &TestApp, who: &As, id: &str, activo: bool) {
    let path = format!("/api/nomina/empleados/{id}");
    let answer = if activo {
        app.call(reqwest::Method::PATCH, &path, who, Some(json!({ "activo": true }))).await
    } else {
        app.call(reqwest::Method::DELETE, &path, who, None).await
    };
    assert!(answer.status.is_success(), "{:?}", answer.body);
}

pub(crate) async fn timbrar(app: &TestApp, who: &As, periodo: &str) -> Answer {
    app.post(&format!("/api/nomina/periodos/{periodo}/timbrar"), who, json!({})).await
}

async fn cancelar(app: &TestApp, who: &As, periodo: &str, body: Value) -> Answer {
    app.post(&format!("/api/nomina/periodos/{periodo}/cancelar"), who, body).await
}

/// The stamped XML of every receipt of `timbrado`, written to `dir`; (path, xml) pairs.
pub(crate) async fn xmls(
    app: &TestApp,
    who: &As,
    timbrado: &Value,
    dir: &TempDir,
) -> Vec<(std::path::PathBuf, String)> {
    let mut files = Vec::new();
    for recibo in timbrado["recibos"].as_array().unwrap() {
        let cfdi_id = recibo["cfdiId"].as_str().unwrap();
        // The receipt's own route serves its CFDI's XML.
        let recibo_id = recibo["reciboId"].as_str().unwrap();
        let (status, xml) = raw(app, &format!("/api/nomina/recibos/{recibo_id}/xml"), Some(who)).await;
        assert_eq!(status, 200, "{xml}");
        assert_eq!(raw(app, &format!("/api/cfdi/{cfdi_id}/xml"), Some(who)).await, (status, xml.clone()));
        // The answer's signed link serves the same XML to anyone holding it, without a session.
        let enlace = recibo["xmlDownloadUrl"].as_str().unwrap_or_else(|| panic!("no xmlDownloadUrl: {recibo}"));
        assert!(enlace.starts_with("/api/descargas/"), "{recibo}");
        assert_eq!(raw(app, enlace, None).await, (status, xml.clone()));
        assert_eq!(recibo["downloadExpiresIn"], 3600, "{recibo}");
        assert!(recibo["xmlUrl"].as_str().unwrap().ends_with(&format!("{cfdi_id}.xml")), "{recibo}");
        if files.is_empty() {
            let pdf = app.client.get(format!("{}{}", app.base, recibo["pdfDownloadUrl"].as_str().unwrap()));
            let pdf = pdf.send().await.unwrap();
            assert_eq!(pdf.status(), 200);
            assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF"));
            let pdf = app
                .client
                .get(format!("{}/api/nomina/recibos/{recibo_id}/pdf", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", who.empresa.as_deref().unwrap())
                .send()
                .await
                .unwrap();
            assert_eq!(pdf.status(), 200);
            assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF"));
            let (status, _) = raw(app, "/api/nomina/recibos/no-such-receipt/xml", Some(who)).await;
            assert_eq!(status, 404);
        }
        let path = dir.0.join(format!("{cfdi_id}.xml"));
        std::fs::write(&path, &xml).unwrap();
        files.push((path, xml));
    }
    files
}

#[tokio::test]
async fn a_period_stamps_receipt_by_receipt_and_every_xml_passes_sats_oracle() {
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "nomina-sandbox@example.com", Some("B5510768108")).await;
        // Overtime (HorasExtra nodes) and a disability (Incapacidades) on the receipts too.
        let incidencias = [
            (0, json!({ "tipo": "HORAS_EXTRA", "fecha": "2026-11-03", "horas": 12 })),
            (2, json!({ "tipo": "INCAPACIDAD", "fecha": "2026-11-05", "dias": 2, "tipoIncapacidad": "02" })),
        ];
        let (periodo, empleados) = periodo_calculado(&app, &who, &["500.00", "1200.00", "278.80"], &incidencias).await;

        // An employee deactivated after the calculation: that receipt alone waits, PENDIENTE.
        activar(&app, &who, &empleados[1], false).await;
        let primero = timbrar(&app, &who, &periodo).await;
        let data = primero.data(201).clone();
        assert_eq!(primero.body["mode"], "sandbox");
        assert_eq!(
            (data["totalRecibos"].as_u64(), data["timbrados"].as_u64(), data["errores"].as_u64()),
            (Some(3), Some(2), Some(1)),
            "{data}"
        );
        assert_eq!(data["status"], "TIMBRADO_PARCIAL");
        let error = &data["detalleErrores"][0];
        assert_eq!(error["empleadoNombre"], "MARIO GOMEZ ARANDA");
        assert!(error["error"].as_str().unwrap().contains("no longer active"), "{error}");
        for recibo in data["recibos"].as_array().unwrap() {
            assert!(recibo["uuid"].as_str().unwrap().starts_with("SANDBOX-"), "{recibo}");
        }
        let consultado = app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await;
        assert_eq!(consultado.data(200)["status"], "TIMBRADO_PARCIAL");
        // The detail's stamped receipts carry signed links to their files; the PENDIENTE one none.
        for recibo in consultado.data(200)["recibos"].as_array().unwrap() {
            if recibo["status"] == "PENDIENTE" {
                assert!(recibo.get("xmlDownloadUrl").is_none() && recibo["cfdiId"].is_null(), "{recibo}");
                continue;
            }
            let (xml_link, pdf_link) = (recibo["xmlDownloadUrl"].as_str(), recibo["pdfDownloadUrl"].as_str());
            let (Some(xml_link), Some(pdf_link)) = (xml_link, pdf_link) else { panic!("links missing: {recibo}") };
            assert_eq!(recibo["downloadExpiresIn"], 3600);
            let (status, xml) = raw(&app, xml_link, None).await;
            assert_eq!(status, 200, "{xml}");
            assert!(xml.contains(recibo["uuid"].as_str().unwrap().trim_start_matches("SANDBOX-")), "{xml}");
            let pdf = app.client.get(format!("{}{pdf_link}", app.base)).send().await.unwrap();
            assert_eq!(pdf.status(), 200);
            // An altered link is refused.
            let (status, _) = raw(&app, &xml_link.replacen("/descargas/", "/descargas/x", 1), None).await;
            assert_eq!(status, 403);
        }

        let dir = TempDir::new();
        let mut files = xmls(&app, &who, &data, &dir).await;
        for (_, xml) in &files {
            for esperado in [
                "TipoDeComprobante=\"N\"",
                "RegimenFiscalReceptor=\"605\"",
                "UsoCFDI=\"CN01\"",
                "Serie=\"N\"",
                "RegistroPatronal=\"B5510768108\"",
                "TipoOtroPago=\"002\"",
                "<nomina12:SubsidioAlEmpleo",
                "Antigüedad=\"P358W\"",
            ] {
                assert!(xml.contains(esperado), "{esperado} missing: {xml}");
            }
            assert!(!xml.contains("FormaPago="), "{xml}");
        }
        assert!(
            files
                .iter()
                .any(|(_, xml)| xml.contains("<nomina12:HorasExtra ") && xml.contains("TipoPercepcion=\"019\""))
        );
        assert!(
            files
                .iter()
                .any(|(_, xml)| xml.contains("<nomina12:Incapacidad ") && xml.contains("TipoIncapacidad=\"02\""))
        );
        // The receipt's Total is its net pay, as calculated.
        let detalle = consultado.data(200)["recibos"].as_array().unwrap().clone();
        for recibo in data["recibos"].as_array().unwrap() {
            let calculado = detalle.iter().find(|r| r["reciboId"] == recibo["reciboId"]).unwrap();
            let neto = calculado.get("netoAPagar").or_else(|| calculado.get("neto")).unwrap();
            assert_eq!(
                recibo["total"].as_str().unwrap().parse::<f64>().unwrap(),
                neto.as_f64().unwrap_or_else(|| neto.as_str().unwrap().parse().unwrap())
            );
        }

        // Re-activated, the pending receipt is stamped by the next call; the period is complete.
        activar(&app, &who, &empleados[1], true).await;
        let segundo = timbrar(&app, &who, &periodo).await.data(201).clone();
        assert_eq!(
            (segundo["totalRecibos"].as_u64(), segundo["timbrados"].as_u64(), segundo["errores"].as_u64()),
            (Some(1), Some(1), Some(0))
        );
        assert_eq!(segundo["status"], "TIMBRADO");
        files.extend(xmls(&app, &who, &segundo, &dir).await);
        let folios: Vec<String> = files
            .iter()
            .map(|(_, xml)| xml.split("Folio=\"").nth(1).unwrap().split('"').next().unwrap().to_owned())
            .collect();
        assert_eq!(folios, ["1", "2", "3"]);
        // Nothing left: a third call stamps nothing and changes nothing.
        let tercero = timbrar(&app, &who, &periodo).await.data(201).clone();
        assert_eq!((tercero["totalRecibos"].as_u64(), tercero["status"].as_str()), (Some(0), Some("TIMBRADO")));

        // SAT's schemas, XSLT cadena and both seals, one xmllint call over the three.
        let pac_cer = sandbox_pac_cer(&app).await;
        sat_oracle(&files, &pac_cer, &dir.0);

        // One event per receipt, in the stamp's transaction; the receipts are CFDI rows too.
        let empresa = who.empresa.clone().unwrap();
        let eventos = event_types(&app, &empresa).await;
        assert_eq!(eventos.iter().filter(|e| *e == "nomina.recibo_timbrado").count(), 3, "{eventos:?}");
        assert!(!eventos.iter().any(|e| e == "factura.timbrada"));
        let listado = app.get("/api/cfdi?tipo=N", &who).await;
        assert_eq!(listado.data(200)["total"], 3, "{:?}", listado.body);
        let cfdi_id = data["recibos"][0]["cfdiId"].as_str().unwrap();
        let pdf = app
            .client
            .get(format!("{}/api/cfdi/{cfdi_id}/pdf", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .header("x-empresa-id", &empresa)
            .send()
            .await
            .unwrap();
        assert_eq!(pdf.status(), 200);
        assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF-"));

        // Cancellation: the invoices' checks, then CANCELADO with a sandbox acuse.
        let recibo = data["recibos"][0]["reciboId"].as_str().unwrap().to_owned();
        let uuid = data["recibos"][0]["uuid"].as_str().unwrap().to_owned();
        cancelar(&app, &who, &periodo, json!({ "reciboId": recibo, "motivo": "05" }))
            .await
            .assert_error(400, "CANCEL_001");
        cancelar(&app, &who, &periodo, json!({ "reciboId": recibo, "motivo": "01" }))
            .await
            .assert_error(400, "CANCEL_004");
        cancelar(&app, &who, &periodo, json!({ "reciboId": recibo, "motivo": "02", "folioSustitucion": uuid }))
            .await
            .assert_error(400, "CANCEL_001");
        cancelar(&app, &who, &periodo, json!({ "reciboId": "no-such", "motivo": "02" }))
            .await
            .assert_error(404, "NOT_FOUND");
        cancelar(&app, &who, &periodo, json!({ "motivo": "02" })).await.assert_error(400, "REQUEST_001");
        let cancelado = cancelar(&app, &who, &periodo, json!({ "reciboId": recibo, "motivo": "02" })).await;
        let c = cancelado.data(200).clone();
        assert_eq!(
            (c["status"].as_str(), c["uuid"].as_str(), c["empleado"].as_str()),
            (Some("CANCELADO"), Some(uuid.as_str()), data["recibos"][0]["empleadoNombre"].as_str())
        );
        let acuse = c["acuse"].as_str().unwrap();
        assert!(acuse.starts_with("<?xml") && acuse.contains(uuid.trim_start_matches("SANDBOX-")), "{acuse}");
        cancelar(&app, &who, &periodo, json!({ "reciboId": recibo, "motivo": "02" }))
            .await
            .assert_error(400, "NOMINA_012");
        let cfdi = app.get(&format!("/api/cfdi/{cfdi_id}"), &who).await;
        assert_eq!(cfdi.data(200)["status"], "CANCELADO");
        // The period stays TIMBRADO when single receipts are cancelled.
        let despues = app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await;
        assert_eq!(despues.data(200)["status"], "TIMBRADO");
    })
    .await;
}

/// Employee `k` of a large period: RFC, CURP and NSS with their check digits found by the
/// crates' own rules (RFC, CURP and NSS are unique per company).
pub(crate) fn empleado_generado(k: usize) -> Value {
    const L: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ";
    let letras = format!("GA{}{}", L[k % 20] as char, L[(k / 20) % 20] as char);
    let rfc = format!("{letras}900101A10");
    let digito = timbra_cfdi::tipos::Rfc::new(&rfc).unwrap().digito_verificador();
    let rfc = format!("{}{digito}", &rfc[..12]);
    let con_digito = |base: String, valida: fn(&str) -> Result<(), String>| {
        (0..10).map(|d| format!("{base}{d}")).find(|v| valida(v).is_ok()).unwrap()
    };
    let curp = con_digito(format!("{letras}900101HDFRRN0"), timbra_nomina::identificadores::validar_curp);
    let nss = con_digito(format!("{:010}", 1_000_000 + k), timbra_nomina::identificadores::validar_nss);
    let mut empleado = empleado(0, "450.00");
    empleado["numEmpleado"] = json!(format!("G-{k:03}"));
    empleado["nombre"] = json!(format!("EMPLEADO {k} DE PRUEBA"));
    (empleado["rfc"], empleado["curp"], empleado["nss"]) = (json!(rfc), json!(curp), json!(nss));
    empleado
}

/// A period of more receipts than a sandbox transaction holds is written in several: every
/// receipt stamped once, folios 1..N with none repeated or skipped, the period TIMBRADO_PARCIAL
/// while one receipt waits and TIMBRADO once it is stamped by the next call.
#[tokio::test]
async fn a_period_larger_than_a_transaction_stamps_every_receipt_once_with_folios_in_a_row() {
    const N: usize = 150;
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "nomina-grande@example.com", Some("B5510768108")).await;
        let mut empleados = Vec::new();
        for k in 0..N {
            let creado = app.post("/api/nomina/empleados", &who, empleado_generado(k)).await;
            empleados.push(creado.data(201)["id"].as_str().unwrap().to_owned());
        }
        let periodo = periodo_de(&app, &who, N).await;
        // One employee deactivated after the calculation: the last receipt to be written waits.
        activar(&app, &who, &empleados[77], false).await;

        let data = timbrar(&app, &who, &periodo).await.data(201).clone();
        assert_eq!((data["timbrados"].as_u64(), data["errores"].as_u64()), (Some(N as u64 - 1), Some(1)), "{data}");
        assert_eq!(data["status"], "TIMBRADO_PARCIAL");
        assert_eq!(
            app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200)["status"],
            "TIMBRADO_PARCIAL"
        );
        activar(&app, &who, &empleados[77], true).await;
        let segundo = timbrar(&app, &who, &periodo).await.data(201).clone();
        assert_eq!(
            (segundo["timbrados"].as_u64(), segundo["status"].as_str()),
            (Some(1), Some("TIMBRADO")),
            "{segundo}"
        );

        let detalle = app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200).clone();
        assert_eq!(detalle["status"], "TIMBRADO");
        let mut folios = Vec::new();
        for recibo in data["recibos"].as_array().unwrap().iter().chain(segundo["recibos"].as_array().unwrap()) {
            let cfdi = app.get(&format!("/api/cfdi/{}", recibo["cfdiId"].as_str().unwrap()), &who).await;
            let cfdi = cfdi.data(200);
            assert_eq!(cfdi["serie"], "N", "{cfdi}");
            folios.push(cfdi["folio"].as_str().unwrap().parse::<usize>().unwrap());
        }
        folios.sort_unstable();
        assert_eq!(folios, (1..=N).collect::<Vec<_>>());
        let recibos = detalle["recibos"].as_array().unwrap();
        assert_eq!(recibos.len(), N);
        assert!(recibos.iter().all(|r| r["status"] == "TIMBRADO_SANDBOX"), "{detalle}");
    })
    .await;
}

#[tokio::test]
async fn bad_paths_registro_patronal_roles_scopes_and_other_companies() {
    each_backend(|app: TestApp| async move {
        // No registro patronal: NOMINA_002 and nothing stamped.
        let sin_registro = empresa_nomina(&app, "sin-registro@example.com", None).await;
        let (periodo, _) = periodo_calculado(&app, &sin_registro, &["500.00"], &[]).await;
        timbrar(&app, &sin_registro, &periodo).await.assert_error(400, "NOMINA_002");
        let consultado = app.get(&format!("/api/nomina/periodos/{periodo}"), &sin_registro).await;
        assert_eq!(consultado.data(200)["status"], "CALCULADO");

        let who = empresa_nomina(&app, "con-registro@example.com", Some("B5510768108")).await;
        // ABIERTO: calculate first.
        let abierto = app.post("/api/nomina/periodos", &who, periodo_quincenal()).await.data(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        timbrar(&app, &who, &abierto).await.assert_error(409, "NOMINA_011");
        timbrar(&app, &who, "no-such-period").await.assert_error(404, "NOT_FOUND");
        // Another company's period is not found, for stamping and cancelling alike.
        timbrar(&app, &who, &periodo).await.assert_error(404, "NOT_FOUND");
        cancelar(&app, &who, &periodo, json!({ "reciboId": "x", "motivo": "02" })).await.assert_error(404, "NOT_FOUND");

        // Deductions above the perceptions: that receipt waits, PENDIENTE, with what to fix; with
        // nothing stamped the period stays CALCULADO.
        let fonacot = json!({ "tipo": "DEDUCCION", "fecha": "2026-11-10", "tipoDeduccion": "011", "concepto": "Fonacot", "importe": "20000.00" });
        let deudor = empresa_nomina(&app, "deducciones@example.com", Some("B5510768108")).await;
        let (excedido, _) = periodo_calculado(&app, &deudor, &["500.00"], &[(0, fonacot)]).await;
        let data = timbrar(&app, &deudor, &excedido).await.data(201).clone();
        assert_eq!((data["timbrados"].as_u64(), data["errores"].as_u64(), data["status"].as_str()), (Some(0), Some(1), Some("CALCULADO")), "{data}");
        assert!(data["detalleErrores"][0]["error"].as_str().unwrap().contains("totalDeducciones"), "{data}");
        let recibos = app.get(&format!("/api/nomina/periodos/{excedido}"), &deudor).await.data(200)["recibos"].clone();
        assert_eq!(recibos[0]["status"], "PENDIENTE");
        assert!(recibos[0]["detalleErrores"].as_str().unwrap().contains("totalDeducciones"));

        // A key narrowed to nomina:view cannot stamp.
        let empresa = who.empresa.clone().unwrap();
        let creada = app
            .post(
                "/api/api-keys",
                &who,
                json!({ "name": "solo lectura", "scopes": ["nomina:view"], "empresaIds": [empresa] }),
            )
            .await;
        if creada.status.is_success() {
            let lectura = As::key(creada.data(201)["key"].as_str().unwrap()).in_empresa(&empresa);
            timbrar(&app, &lectura, &abierto).await.assert_error(403, "SCOPE_002");
        }
    })
    .await;
}

#[tokio::test]
async fn live_receipts_take_one_stamp_each_or_none_and_cancel_with_a_refund() {
    let (_sim, url) = start_pac_sim().await;
    let good = crate::cfdi::csd_vigente();
    let adjust = crate::cfdi::con_pac(&url);
    each_backend_with(adjust, |app: TestApp| {
        let good = good.clone();
        async move {
            let (who, empresa) = live_company(&app, "nomina-live@example.com", &good).await;
            let patch = app
                .call(
                    reqwest::Method::PATCH,
                    &format!("/api/empresas/{empresa}"),
                    &who,
                    Some(json!({ "registroPatronal": "B5510768108" })),
                )
                .await;
            assert!(patch.status.is_success(), "{:?}", patch.body);
            let (periodo, _) = periodo_calculado(&app, &who, &["500.00", "1200.00"], &[]).await;
            let saldo = async || app.get("/api/timbres", &who).await.data(200)["saldo"].as_i64().unwrap();

            // One stamp for two receipts: TIMBRE_001 and nothing stamped.
            app.recargar(&who, json!({ "cantidad": 1 })).await.data(201);
            let sin_saldo = timbrar(&app, &who, &periodo).await;
            sin_saldo.assert_error(402, "TIMBRE_001");
            assert_eq!(saldo().await, 1);
            assert_eq!(
                app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200)["status"],
                "CALCULADO"
            );

            app.recargar(&who, json!({ "cantidad": 1 })).await.data(201);
            let timbrado = timbrar(&app, &who, &periodo).await;
            let data = timbrado.data(201).clone();
            assert_eq!(timbrado.body["mode"], "live");
            assert_eq!((data["timbrados"].as_u64(), data["status"].as_str()), (Some(2), Some("TIMBRADO")), "{data}");
            assert_eq!(saldo().await, 0);
            let dir = TempDir::new();
            let files = xmls(&app, &who, &data, &dir).await;
            for ((_, xml), recibo) in files.iter().zip(data["recibos"].as_array().unwrap()) {
                let uuid = recibo["uuid"].as_str().unwrap();
                assert_eq!(uuid.len(), 36);
                assert!(
                    xml.contains(&format!("UUID=\"{}\"", uuid.to_uppercase()))
                        || xml.contains(&format!("UUID=\"{uuid}\""))
                );
                timbra_cfdi::sello::verificar_sello_xml(xml).unwrap();
            }
            let eventos = event_types(&app, &empresa).await;
            assert_eq!(eventos.iter().filter(|e| *e == "nomina.recibo_timbrado").count(), 2, "{eventos:?}");

            // Cancelled through the PAC, at once (a payroll receipt needs no acceptance): the
            // acuse comes back and the stamp returns to the balance.
            let recibo = data["recibos"][0]["reciboId"].as_str().unwrap();
            let cancelado = cancelar(&app, &who, &periodo, json!({ "reciboId": recibo, "motivo": "02" })).await;
            let c = cancelado.data(200).clone();
            assert_eq!(c["status"], "CANCELADO", "{c}");
            assert!(c["acuse"].as_str().unwrap().contains("Acuse"), "{c}");
            assert_eq!(saldo().await, 1);
            assert_eq!(app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200)["status"], "TIMBRADO");
        }
    })
    .await;
}

#[tokio::test]
async fn a_live_receipt_with_an_unknown_outcome_is_reconciled_and_a_late_cancellation_followed() {
    use timbra_sim::Falla;
    let (sim, url) = start_pac_sim().await;
    let now = OffsetDateTime::now_utc();
    let good = csd(EMISOR, now - Duration::days(1), now + Duration::days(30));
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut timbra_services::config::Config| {
            let mut pac = timbra_pac::finkok::FinkokConfig::new(&url, "cuenta", "secreto");
            pac.timeout = std::time::Duration::from_secs(1);
            config.pac = Some(pac);
            config.clock = clock.clone();
            config.jobs.poll = std::time::Duration::from_millis(20);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let (sim, good, clock) = (sim.clone(), good.clone(), clock.clone());
        async move {
            sim.configurar(|c| c.ahora = Some(clock.now()));
            let emitidos_antes = sim.timbres_emitidos();
            let (who, empresa) = live_company(&app, "nomina-unknown@example.com", &good).await;
            let patch = app
                .call(
                    reqwest::Method::PATCH,
                    &format!("/api/empresas/{empresa}"),
                    &who,
                    Some(json!({ "registroPatronal": "B5510768108" })),
                )
                .await;
            assert!(patch.status.is_success(), "{:?}", patch.body);
            let (periodo, _) = periodo_calculado(&app, &who, &["500.00", "1200.00"], &[]).await;
            app.recargar(&who, json!({ "cantidad": 5 })).await.data(201);
            let saldo = async || app.get("/api/timbres", &who).await.data(200)["saldo"].as_i64().unwrap();
            let detalle = async || app.get(&format!("/api/nomina/periodos/{periodo}"), &who).await.data(200).clone();

            // The first receipt's stamp is made by the PAC but its answer is lost, and asking
            // for it fails too: that receipt waits PENDIENTE with PAC_002, the other is stamped.
            sim.fallar("stamp", [Falla::Lenta(std::time::Duration::from_secs(2))]);
            sim.fallar("stamped", [Falla::NoDisponible]);
            let data = timbrar(&app, &who, &periodo).await.data(201).clone();
            assert_eq!(
                (data["timbrados"].as_u64(), data["errores"].as_u64(), data["status"].as_str()),
                (Some(1), Some(1), Some("TIMBRADO_PARCIAL")),
                "{data}"
            );
            let perdido = data["detalleErrores"][0]["reciboId"].as_str().unwrap().to_owned();
            assert!(data["detalleErrores"][0]["error"].as_str().unwrap().starts_with("PAC_002"), "{data}");
            // Both stamps are taken from the balance: the unknown one is held, not given back.
            assert_eq!(saldo().await, 3);

            // The reconciliation job resends the sealed XML once the attempt is due; the PAC
            // answers with the stamp it made, and the receipt is recorded with it.
            clock.advance(std::time::Duration::from_secs(120));
            crate::receiver::wait_for(15, "the reconcile job", async || detalle().await["status"] == "TIMBRADO").await;
            let periodo_final = detalle().await;
            let recibo = periodo_final["recibos"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["reciboId"] == perdido.as_str())
                .unwrap()
                .clone();
            assert_eq!(recibo["status"], "TIMBRADO", "{recibo}");
            assert_eq!(recibo["uuid"].as_str().unwrap().len(), 36, "{recibo}");
            assert!(recibo["detalleErrores"].is_null(), "{recibo}");
            let (status, xml) = raw(&app, recibo["xmlDownloadUrl"].as_str().unwrap(), None).await;
            assert_eq!(status, 200, "{xml}");
            timbra_cfdi::sello::verificar_sello_xml(&xml).unwrap();
            // One PAC stamp per receipt, one stamp each from the balance, one event each and no
            // invoice event for them.
            assert_eq!(sim.timbres_emitidos() - emitidos_antes, 2);
            assert_eq!(saldo().await, 3);
            let eventos = event_types(&app, &empresa).await;
            assert_eq!(eventos.iter().filter(|e| *e == "nomina.recibo_timbrado").count(), 2, "{eventos:?}");
            assert!(!eventos.iter().any(|e| e == "factura.timbrada"), "{eventos:?}");
            // Calling again finds nothing left to stamp and spends nothing.
            let again = timbrar(&app, &who, &periodo).await.data(201).clone();
            assert_eq!((again["totalRecibos"].as_u64(), again["status"].as_str()), (Some(0), Some("TIMBRADO")));
            assert_eq!(saldo().await, 3);

            // SAT's status lags behind the cancellation request: the receipt stays TIMBRADO
            // (SOLICITADA) until the follow-up job reads "Cancelado", then becomes CANCELADO
            // with its CFDI and factura.cancelada is emitted. Not cancelled at once: the stamp
            // stays spent.
            sim.configurar(|c| c.consultas_sin_reflejar = 1);
            let cancelado = cancelar(&app, &who, &periodo, json!({ "reciboId": perdido, "motivo": "02" })).await;
            sim.configurar(|c| c.consultas_sin_reflejar = 0);
            let c = cancelado.data(200).clone();
            assert_eq!(
                (c["status"].as_str(), c["cancellationStatus"].as_str()),
                (Some("TIMBRADO"), Some("SOLICITADA")),
                "{c}"
            );
            let status_recibo = async || {
                detalle().await["recibos"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["reciboId"] == perdido.as_str())
                    .unwrap()["status"]
                    .clone()
            };
            assert_eq!(status_recibo().await, "TIMBRADO");
            for _ in 0..40 {
                if status_recibo().await == "CANCELADO" {
                    break;
                }
                clock.advance(std::time::Duration::from_secs(16 * 60));
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
            assert_eq!(status_recibo().await, "CANCELADO");
            let cfdi = app.get(&format!("/api/cfdi/{}", recibo["cfdiId"].as_str().unwrap()), &who).await;
            assert_eq!(cfdi.data(200)["status"], "CANCELADO");
            let eventos = event_types(&app, &empresa).await;
            assert_eq!(eventos.iter().filter(|e| *e == "factura.cancelada").count(), 1, "{eventos:?}");
            assert_eq!(detalle().await["status"], "TIMBRADO");
            assert_eq!(saldo().await, 3);
        }
    })
    .await;
}

/// Issue 38: a sandbox invoice's PDF and a sandbox payroll receipt's PDF, downloaded over HTTP,
/// carry the test mark (`pdftotext` reads it), their QR names no SAT URL, and their SAT seal is
/// labelled as a test seal.
#[tokio::test]
async fn sandbox_pdfs_of_an_invoice_and_a_payroll_receipt_carry_the_test_mark() {
    if !timbra_testkit::tools(&["pdftotext"]) {
        return;
    }
    each_backend(|app: TestApp| async move {
        let who = empresa_nomina(&app, "marca-pruebas@example.com", Some("B5510768108")).await;
        let cliente = app
            .post(
                "/api/clientes",
                &who,
                json!({ "rfc": "XIQB891116QE4", "razonSocial": "XIMENA QUIROZ BARRAGAN", "regimenFiscal": "626", "codigoPostal": "42501", "usoCfdi": "G03" }),
            )
            .await
            .data(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let factura = crate::cfdi::timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await.data(201).clone();
        let (periodo, _) = periodo_calculado(&app, &who, &["500.00"], &[]).await;
        let nomina = timbrar(&app, &who, &periodo).await.data(201).clone();
        let recibo = nomina["recibos"][0]["reciboId"].as_str().unwrap().to_owned();
        let dir = TempDir::new();
        for (nombre, ruta) in [
            ("factura", format!("/api/cfdi/{}/pdf", factura["cfdiId"].as_str().unwrap())),
            ("recibo", format!("/api/nomina/recibos/{recibo}/pdf")),
        ] {
            let pdf = app
                .client
                .get(format!("{}{ruta}", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", who.empresa.as_deref().unwrap())
                .send()
                .await
                .unwrap();
            assert_eq!(pdf.status(), 200, "{ruta}");
            let file = dir.0.join(format!("{nombre}.pdf"));
            std::fs::write(&file, pdf.bytes().await.unwrap()).unwrap();
            let (ok, text, err) =
                crate::cfdi::sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], std::path::Path::new("."));
            assert!(ok, "pdftotext: {err}");
            let text = String::from_utf8(text).unwrap();
            assert!(text.contains("PRUEBAS — SIN VALIDEZ FISCAL"), "{nombre}: no sandbox mark:\n{text}");
            assert!(text.contains("sello de pruebas (sandbox)") && !text.contains("sat.gob.mx"), "{nombre}:\n{text}");
        }
    })
    .await;
}
