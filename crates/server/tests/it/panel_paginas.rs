//! The dashboard's API-key, webhook, job and payroll pages over plain HTTP (no browser): forms
//! without their CSRF token are refused, a key made in the dashboard opens the API within its
//! narrowing until revoked, a test ping shows in the delivery log, the calculator's figures are
//! the API's, and another person's company is a 404.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::redirect::Policy;
use serde_json::json;
use timbra_services::clock::Clock;
use timbra_services::config::Config;

use crate::harness::{As, TestApp, each_backend_with};
use crate::receiver::{Receiver, wait_for};

/// Dates pinned; private webhook targets allowed (the receiver is on loopback); quick jobs.
fn ajustes(config: &mut Config) {
    let objetivo = time::macros::datetime!(2026-03-20 18:00 UTC);
    config.clock = Clock::shifted((objetivo - time::OffsetDateTime::now_utc()).whole_seconds(), 1.0);
    config.webhooks.allow_private = true;
    config.webhooks.timeout = Duration::from_secs(2);
    config.jobs.poll = Duration::from_millis(20);
}

/// A page as a browser gets it: status, `Location`, HTML.
struct Html {
    status: StatusCode,
    location: String,
    body: String,
}

/// A person of the dashboard: their session cookie, an API key and a company.
struct Persona {
    session: String,
    key: String,
    empresa: String,
}

async fn persona(app: &TestApp, email: &str, rfc: &str) -> Persona {
    let (_, key) = app.user(email).await;
    let empresa = app.empresa(&key, rfc).await;
    let session = app.login(email).await;
    Persona { session, key, empresa }
}

fn cliente() -> reqwest::Client {
    reqwest::Client::builder().redirect(Policy::none()).build().unwrap()
}

async fn leer(response: reqwest::Response) -> Html {
    let status = response.status();
    let location = response.headers().get("location").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    Html { status, location, body: response.text().await.unwrap() }
}

async fn ver(app: &TestApp, quien: &Persona, path: &str) -> Html {
    let response = cliente()
        .get(format!("{}{path}", app.base))
        .header("cookie", format!("timbra_session={}", quien.session))
        .send()
        .await
        .unwrap();
    leer(response).await
}

/// POSTs an urlencoded form with the session cookie (and `extra` headers).
async fn enviar(app: &TestApp, quien: &Persona, path: &str, campos: &[(&str, &str)], extra: &[(&str, &str)]) -> Html {
    let body = campos
        .iter()
        .map(|(k, v)| format!("{}={}", urlencoding::encode(k), urlencoding::encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let mut request = cliente()
        .post(format!("{}{path}", app.base))
        .header("cookie", format!("timbra_session={}", quien.session))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    leer(request.send().await.unwrap()).await
}

/// The text after `antes` up to the next `"` or `<`.
fn tras<'a>(html: &'a str, antes: &str) -> &'a str {
    let inicio = html.find(antes).unwrap_or_else(|| panic!("{antes:?} not in the page:\n{html}")) + antes.len();
    let resto = &html[inicio..];
    &resto[..resto.find(['"', '<']).unwrap()]
}

/// The CSRF token of a page's forms.
fn csrf(html: &str) -> String {
    tras(html, r#"name="_csrf" value=""#).to_owned()
}

#[tokio::test]
async fn a_key_made_in_the_dashboard_opens_the_api_within_its_narrowing_until_revoked() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "ana@example.com", "EKU9003173C9").await;
        let pagina = ver(&app, &ana, "/panel/llaves").await;
        assert_eq!(pagina.status, 200, "{}", pagina.body);
        assert!(pagina.body.contains("Llaves de API"));
        let token = csrf(&pagina.body);
        let campos = [("name", "ERP"), ("empresaIds", ana.empresa.as_str()), ("scopes", "cliente:view")];

        // Without the token, or with another one: the 403 page, and no key.
        let sin = enviar(&app, &ana, "/panel/llaves", &campos, &[]).await;
        assert_eq!(sin.status, 403);
        assert!(sin.body.contains("CSRF"), "{}", sin.body);
        let mut ajeno = campos.to_vec();
        ajeno.push(("_csrf", "0000"));
        assert_eq!(enviar(&app, &ana, "/panel/llaves", &ajeno, &[]).await.status, 403);
        let sesion = As { session: Some(ana.session.clone()), ..As::default() };
        let llaves = app.get("/api/api-keys", &sesion).await.data(200).clone();
        assert!(llaves.as_array().unwrap().iter().all(|k| k["name"] != "ERP"), "{llaves:#}");

        // With it: the key, shown once, narrowed to the company and to reading customers.
        let mut con = campos.to_vec();
        con.push(("_csrf", token.as_str()));
        let creada = enviar(&app, &ana, "/panel/llaves", &con, &[]).await;
        assert_eq!(creada.status, 200, "{}", creada.body);
        let key = tras(&creada.body, r#"id="llave-nueva">"#).to_owned();
        assert!(key.len() > 20, "{key}");
        assert!(creada.body.contains("data-copiar=\"#llave-nueva\""));
        let who = As::key(&key).in_empresa(&ana.empresa);
        app.get("/api/clientes", &who).await.data(200);
        let body = json!({ "rfc": "XAXX010101000", "razonSocial": "PUBLICO EN GENERAL", "regimenFiscal": "616", "codigoPostal": "42501" });
        app.post("/api/clientes", &who, body).await.assert_error(403, "SCOPE_002");

        // The list shows its prefix, never the key; a reload does not show it again.
        let lista = ver(&app, &ana, "/panel/llaves").await.body;
        assert!(lista.contains(&key[..8]) && !lista.contains(&key), "{lista}");

        // A bad expiry is explained beside its field.
        let mal = [("name", "Otra"), ("expiresInDays", "9999"), ("_csrf", token.as_str())];
        let rechazada = enviar(&app, &ana, "/panel/llaves", &mal, &[]).await;
        assert_eq!(rechazada.status, 400);
        assert!(rechazada.body.contains("APIKEY_001") && rechazada.body.contains("3650"), "{}", rechazada.body);

        // Revoked from the dashboard: the API refuses it.
        let llaves = app.get("/api/api-keys", &sesion).await.data(200).clone();
        let id = llaves.as_array().unwrap().iter().find(|k| k["name"] == "ERP").unwrap()["id"].as_str().unwrap().to_owned();
        let revocada =
            enviar(&app, &ana, &format!("/panel/llaves/{id}/revocar"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!((revocada.status, revocada.location.as_str()), (StatusCode::SEE_OTHER, "/panel/llaves?hecho=revocada"));
        app.get("/api/clientes", &who).await.assert_error(401, "AUTH_001");
        assert!(ver(&app, &ana, "/panel/llaves?hecho=revocada").await.body.contains("Revocada o vencida"));
    })
    .await;
}

#[tokio::test]
async fn a_webhook_test_ping_is_recorded_in_the_delivery_log_and_can_be_redelivered() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "ana@example.com", "EKU9003173C9").await;
        let receiver = Receiver::start().await;
        let token = csrf(&ver(&app, &ana, "/panel/webhooks").await.body);
        let campos = [
            ("url", receiver.url.as_str()),
            ("events", "factura.timbrada"),
            ("description", "ERP"),
            ("active", "true"),
            ("_csrf", token.as_str()),
        ];
        let creado = enviar(&app, &ana, "/panel/webhooks", &campos, &[]).await;
        assert_eq!(creado.status, 200, "{}", creado.body);
        let secreto = tras(&creado.body, r#"id="secreto-nuevo">"#).to_owned();
        assert!(!secreto.is_empty());
        let who = As::key(&ana.key).in_empresa(&ana.empresa);
        let lista = app.get("/api/webhooks", &who).await.data(200).clone();
        let id = lista["items"][0]["id"].as_str().unwrap().to_owned();
        assert_eq!(lista["items"][0]["events"], json!(["factura.timbrada"]));

        // A url the API refuses is explained beside the field.
        let mala = [("url", "ftp://ejemplo"), ("_csrf", token.as_str())];
        let rechazado = enviar(&app, &ana, "/panel/webhooks", &mala, &[]).await;
        assert_eq!(rechazado.status, 400);
        assert!(
            rechazado.body.contains("WEBHOOK_001") && rechazado.body.contains("campo-url-error"),
            "{}",
            rechazado.body
        );

        // The test ping: queued, delivered, and in the page's log.
        let base = format!("/panel/webhooks/{id}");
        let ping = enviar(&app, &ana, &format!("{base}/probar"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!((ping.status, ping.location.clone()), (StatusCode::SEE_OTHER, format!("{base}?hecho=ping")));
        wait_for(10, "the ping's delivery", async || !receiver.accepted().is_empty()).await;
        assert_eq!(receiver.accepted()[0].json()["type"], "webhook.ping");
        wait_for(10, "the delivery log to say delivered", async || {
            ver(&app, &ana, &base).await.body.contains("Entregada")
        })
        .await;
        let pagina = ver(&app, &ana, &base).await.body;
        assert!(pagina.contains("webhook.ping") && pagina.contains("HTTP 200"), "{pagina}");

        // Redelivered from the log: a second delivery of the same event.
        let entregas = app.get(&format!("/api/webhooks/{id}/deliveries"), &who).await.data(200).clone();
        let entrega = entregas["items"][0]["id"].as_str().unwrap().to_owned();
        let otra = enviar(
            &app,
            &ana,
            &format!("/panel/webhooks/entregas/{entrega}/reenviar"),
            &[("_csrf", token.as_str())],
            &[],
        )
        .await;
        assert_eq!(otra.location, format!("{base}?hecho=reenviada"));
        wait_for(10, "the redelivery", async || receiver.accepted().len() == 2).await;

        // The rotated secret is shown once and differs; the jobs page lists the deliveries.
        let rotado = enviar(&app, &ana, &format!("{base}/secreto"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!(rotado.status, 200);
        assert_ne!(tras(&rotado.body, r#"id="secreto-nuevo">"#), secreto);
        let trabajos = ver(&app, &ana, "/panel/trabajos").await;
        assert_eq!(trabajos.status, 200);
        assert!(trabajos.body.contains("Entrega de webhook"), "{}", trabajos.body);

        // Deleted from the dashboard.
        let borrado = enviar(&app, &ana, &format!("{base}/borrar"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!(borrado.location, "/panel/webhooks?hecho=borrado");
        assert_eq!(ver(&app, &ana, &base).await.status, 404);
    })
    .await;
}

/// The `data-valor` of the amount `campo` in a calculator answer.
fn valor<'a>(html: &'a str, campo: &str) -> &'a str {
    tras(html, &format!(r#"data-campo="{campo}" data-valor=""#))
}

#[tokio::test]
async fn the_calculator_shows_the_apis_figures() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "ana@example.com", "EKU9003173C9").await;
        let token = csrf(&ver(&app, &ana, "/panel/nomina").await.body);
        let entrada = json!({
            "salarioDiario": "815.37", "salarioDiarioIntegrado": "852.11", "diasPagados": "15",
            "periodicidad": "quincenal", "riesgoPuesto": "2", "zona": "general", "fechaPago": "2026-03-15",
            "percepciones": [{ "tipo": "019", "concepto": "Horas extra", "importe": "1200.50" }],
            "deducciones": [{ "tipo": "004", "concepto": "Préstamo", "importe": "333.33" }],
        });
        let api = app.post("/api/nomina/calcular", &As::default(), entrada).await.data(200).clone();
        let campos = [
            ("salarioDiario", "815.37"),
            ("salarioDiarioIntegrado", "852.11"),
            ("diasPagados", "15"),
            ("periodicidad", "quincenal"),
            ("riesgoPuesto", "2"),
            ("zona", "general"),
            ("fechaPago", "2026-03-15"),
            ("percepcionTipo", "019"),
            ("percepcionConcepto", "Horas extra"),
            ("percepcionImporte", "1200.50"),
            ("deduccionTipo", "004"),
            ("deduccionConcepto", "Préstamo"),
            ("deduccionImporte", "333.33"),
            ("_csrf", token.as_str()),
        ];
        // As htmx sends it while the person types: the result section only.
        let parcial = enviar(&app, &ana, "/panel/nomina/calculadora", &campos, &[("hx-request", "true")]).await;
        assert_eq!(parcial.status, 200, "{}", parcial.body);
        assert!(parcial.body.starts_with("<section id=\"resultado\""), "{}", parcial.body);
        let figuras = [
            ("netoAPagar", &api["netoAPagar"]),
            ("totalPercepciones", &api["percepciones"]["totalPercepciones"]),
            ("totalGravado", &api["percepciones"]["totalGravado"]),
            ("isrRetenido", &api["deducciones"]["isrRetenido"]),
            ("imssEmpleado", &api["deducciones"]["imssEmpleado"]),
            ("totalDeducciones", &api["deducciones"]["totalDeducciones"]),
            ("baseGravableISR", &api["desglose"]["baseGravableISR"]),
        ];
        for (campo, esperado) in figuras {
            assert_eq!(valor(&parcial.body, campo), esperado.to_string().trim_matches('"'), "{campo}");
        }
        // A plain form post: the whole page, the net pay in MXN.
        let completa = enviar(&app, &ana, "/panel/nomina/calculadora", &campos, &[]).await;
        assert_eq!(completa.status, 200);
        let neto: rust_decimal::Decimal = api["netoAPagar"].to_string().trim_matches('"').parse().unwrap();
        assert!(completa.body.contains(&timbra_api::panel::pesos(neto)), "{}", completa.body);
        assert!(completa.body.contains("<html"));

        // Problems come back beside the fields, in the result htmx swaps in.
        let malos = [("salarioDiario", "abc"), ("diasPagados", "15"), ("_csrf", token.as_str())];
        let mal = enviar(&app, &ana, "/panel/nomina/calculadora", &malos, &[("hx-request", "true")]).await;
        assert_eq!(mal.status, 200);
        assert!(mal.body.contains("NOMINA_001"), "{}", mal.body);
    })
    .await;
}

#[tokio::test]
async fn employees_and_periods_from_the_dashboard() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "ana@example.com", "EKU9003173C9").await;
        let token = csrf(&ver(&app, &ana, "/panel/nomina/empleados/nuevo").await.body);
        let mut campos = vec![
            ("numEmpleado", "E001"),
            ("nombre", "ANA PEREZ GARCIA"),
            ("rfc", "PEGA700101A06"),
            ("curp", "PEGA700101HDFRRN02"),
            ("nss", "12100000004"),
            ("codigoPostal", "06600"),
            ("fechaInicioRelLaboral", "2020-01-15"),
            ("salarioDiario", "500.00"),
            ("salarioDiarioIntegrado", "524.65"),
            ("periodicidad", "QUINCENAL"),
            ("tipoContrato", "01"),
            ("tipoJornada", "01"),
            ("riesgoPuesto", "1"),
            ("claveEntFed", "CMX"),
            ("_csrf", token.as_str()),
        ];
        // A wrong CURP is explained beside its field; the rest stays typed.
        campos[3].1 = "PEGA700101HDFRRN0";
        let mal = enviar(&app, &ana, "/panel/nomina/empleados", &campos, &[]).await;
        assert_eq!(mal.status, 400, "{}", mal.body);
        assert!(mal.body.contains("campo-curp-error") && mal.body.contains("value=\"PEGA700101A06\""), "{}", mal.body);
        campos[3].1 = "PEGA700101HDFRRN02";
        let creado = enviar(&app, &ana, "/panel/nomina/empleados", &campos, &[]).await;
        assert_eq!(creado.location, "/panel/nomina/empleados?hecho=empleado-creado", "{}", creado.body);
        let lista = ver(&app, &ana, "/panel/nomina/empleados?q=perez").await.body;
        assert!(lista.contains("ANA PEREZ GARCIA") && lista.contains("$500.00"), "{lista}");

        let periodo = [
            ("periodicidad", "QUINCENAL"),
            ("fechaInicio", "2026-03-01"),
            ("fechaFin", "2026-03-15"),
            ("fechaPago", "2026-03-15"),
            ("_csrf", token.as_str()),
        ];
        let creado = enviar(&app, &ana, "/panel/nomina/periodos", &periodo, &[]).await;
        assert_eq!(creado.status, StatusCode::SEE_OTHER, "{}", creado.body);
        let base = creado.location.split('?').next().unwrap().to_owned();
        let calculado = enviar(&app, &ana, &format!("{base}/calcular"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!(calculado.location, format!("{base}?hecho=calculado"));
        let id = base.rsplit('/').next().unwrap();
        let who = As::key(&ana.key).in_empresa(&ana.empresa);
        let api = app.get(&format!("/api/nomina/periodos/{id}"), &who).await.data(200).clone();
        let neto: rust_decimal::Decimal = api["recibos"][0]["total"].to_string().parse().unwrap();
        let pagina = ver(&app, &ana, &base).await.body;
        assert!(pagina.contains("ANA PEREZ GARCIA") && pagina.contains(&timbra_api::panel::pesos(neto)), "{pagina}");
        assert!(pagina.contains("Timbrar recibos"));

        // Stamping needs the company's registro patronal: said in words on the period's page.
        let sin_registro = enviar(&app, &ana, &format!("{base}/timbrar"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!(sin_registro.status, 400, "{}", sin_registro.body);
        assert!(sin_registro.body.contains("registro patronal"), "{}", sin_registro.body);
    })
    .await;
}

#[tokio::test]
async fn another_persons_company_pages_are_not_found() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "ana@example.com", "EKU9003173C9").await;
        let beto = persona(&app, "beto@example.com", "XIA190128J61").await;
        let who = As::key(&ana.key).in_empresa(&ana.empresa);
        let webhook = app.post("/api/webhooks", &who, json!({ "url": "https://example.com/hook" })).await;
        let webhook = webhook.data(201)["id"].as_str().unwrap().to_owned();
        let ajena = &ana.empresa;
        for path in [
            format!("/panel/webhooks?empresa={ajena}"),
            format!("/panel/trabajos?empresa={ajena}"),
            format!("/panel/nomina/empleados?empresa={ajena}"),
            format!("/panel/nomina/periodos?empresa={ajena}"),
            format!("/panel/webhooks/{webhook}"),
        ] {
            let pagina = ver(&app, &beto, &path).await;
            assert_eq!(pagina.status, 404, "{path}: {}", pagina.body);
            assert!(!pagina.body.contains("example.com/hook"), "{path}");
        }
        // Nor can Beto act on Ana's endpoint from his own company.
        let token = csrf(&ver(&app, &beto, "/panel/webhooks").await.body);
        let ping =
            enviar(&app, &beto, &format!("/panel/webhooks/{webhook}/probar"), &[("_csrf", token.as_str())], &[]).await;
        assert_eq!(ping.status, 404);
        let entregas = app.get(&format!("/api/webhooks/{webhook}/deliveries"), &who).await.data(200).clone();
        assert_eq!(entregas["total"], 0);
        // Not logged in: the login page.
        let fuera = cliente().get(format!("{}/panel/llaves", app.base)).send().await.unwrap();
        assert_eq!(fuera.status(), StatusCode::SEE_OTHER);
    })
    .await;
}

#[tokio::test]
async fn retentions_are_issued_listed_and_downloaded_from_the_dashboard() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "ana-ret@example.com", "EKU9003173C9").await;
        let pagina = ver(&app, &ana, "/panel/retenciones").await;
        assert_eq!(pagina.status, 200, "{}", pagina.body);
        assert!(pagina.body.contains("Aún no hay retenciones"), "{}", pagina.body);
        let token = csrf(&pagina.body);
        let formulario = |isr: &'static str| {
            vec![
                ("_csrf", token.clone()),
                ("cveRetenc", "01".to_owned()),
                ("rfcR", "xiqb891116qe4".to_owned()),
                ("nomDenRazSocR", "KARLA FUENTE NOLASCO".to_owned()),
                ("domicilioFiscalR", "01030".to_owned()),
                ("mesIni", "03".to_owned()),
                ("mesFin", "03".to_owned()),
                ("ejercicio", "2026".to_owned()),
                ("montoTotOperacion", "10,000.00".to_owned()),
                ("isrRetenido", isr.to_owned()),
                ("ivaRetenido", "1066.67".to_owned()),
            ]
        };
        // Without its CSRF token the form is refused and nothing is stamped.
        let todos = formulario("1000.00");
        let sin: Vec<(&str, &str)> = todos.iter().skip(1).map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(enviar(&app, &ana, "/panel/retenciones", &sin, &[]).await.status, 403);
        // A bad amount names the field; SAT's rules come back as the API's problems.
        let campos = formulario("mil pesos");
        let campos: Vec<(&str, &str)> = campos.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mala = enviar(&app, &ana, "/panel/retenciones", &campos, &[]).await;
        assert_eq!(mala.status, 400, "{}", mala.body);
        assert!(mala.body.contains("mil pesos") && mala.body.contains("RETENCION_001"), "{}", mala.body);
        let campos = formulario("1000.00");
        let campos: Vec<(&str, &str)> = campos.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let hecha = enviar(&app, &ana, "/panel/retenciones", &campos, &[]).await;
        assert_eq!(hecha.status, 303, "{}", hecha.body);
        assert_eq!(hecha.location, "/panel/retenciones?aviso=retencion-timbrada");

        // The API sees what the dashboard stamped: ISR and IVA withheld for March.
        let who = As::key(&ana.key).in_empresa(&ana.empresa);
        let lista = app.get("/api/retenciones", &who).await.data(200).clone();
        assert_eq!(lista["total"], json!(1), "{lista}");
        let r = &lista["retenciones"][0];
        assert_eq!(r["montoTotRet"], json!("2066.67"));
        assert_eq!(r["receptorRfc"], json!("XIQB891116QE4"));
        assert_eq!(r["periodo"], json!({ "mesIni": "03", "mesFin": "03", "ejercicio": "2026" }));
        // The list shows it with its signed XML and PDF links, which download without a login.
        let pagina = ver(&app, &ana, "/panel/retenciones").await;
        assert!(pagina.body.contains("Retención timbrada.") || pagina.body.contains("R1"), "{}", pagina.body);
        assert!(pagina.body.contains("KARLA FUENTE NOLASCO") && pagina.body.contains("2,066.67"), "{}", pagina.body);
        let pdf = tras(&pagina.body, "· <a href=\"");
        let descarga = cliente().get(format!("{}{}", app.base, pdf.replace("&amp;", "&"))).send().await.unwrap();
        assert_eq!(descarga.status(), 200);
        assert!(descarga.bytes().await.unwrap().starts_with(b"%PDF-"));
        // Another person's company page is not found.
        let beto = persona(&app, "beto-ret@example.com", "XIA190128J61").await;
        let ajena = ver(&app, &beto, &format!("/panel/retenciones?empresa={}", ana.empresa)).await;
        assert_eq!(ajena.status, 404);
        assert!(!ajena.body.contains("KARLA"));
    })
    .await;
}

#[tokio::test]
async fn the_keys_page_offers_a_key_for_agents_with_the_assistants_configuration() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let ana = persona(&app, "agentes@example.com", "EKU9003173C9").await;
        let pagina = ver(&app, &ana, "/panel/llaves").await;
        assert!(
            pagina.body.contains("Una llave para agentes (MCP)") && pagina.body.contains("mcp:live"),
            "{}",
            pagina.body
        );
        let token = csrf(&pagina.body);
        // What the agent form sends: its hidden scopes, and two of its boxes ticked.
        let formulario = &pagina.body[pagina.body.find(r#"id="llave-agente""#).unwrap()..];
        let formulario = &formulario[..formulario.find("</section>").unwrap()];
        let ocultos: Vec<&str> = formulario
            .split(r#"type="hidden" name="scopes" value=""#)
            .skip(1)
            .map(|resto| resto.split('"').next().unwrap())
            .collect();
        assert!(ocultos.contains(&"cfdi:timbrar") && !ocultos.contains(&"mcp:live"), "{ocultos:?}");
        for caja in ["cfdi:cancelar", "cfdi:descargar", "mcp:live"] {
            assert!(formulario.contains(&format!(r#"type="checkbox" name="scopes" value="{caja}""#)), "{caja}");
        }
        let mut campos = vec![("_csrf", token.as_str()), ("name", "Agente MCP"), ("empresaIds", ana.empresa.as_str())];
        campos.extend(ocultos.iter().map(|alcance| ("scopes", *alcance)));
        campos.extend([("scopes", "cfdi:cancelar"), ("scopes", "mcp:live")]);
        let creada = enviar(&app, &ana, "/panel/llaves", &campos, &[]).await;
        assert_eq!(creada.status, 200, "{}", creada.body);
        let key = tras(&creada.body, r#"id="llave-nueva">"#).to_owned();
        let configuracion = tras(&creada.body, r#"id="config-mcp">"#);
        assert!(configuracion.contains("mcpServers") && configuracion.contains(&key), "{configuracion}");
        assert!(configuracion.contains(&app.base) && creada.body.contains("/mcp"), "{configuracion}");
        // The key reads the company and nothing beyond its scopes.
        let who = As::key(&key).in_empresa(&ana.empresa);
        app.get("/api/cfdi", &who).await.data(200);
        app.get("/api/webhooks", &who).await.assert_error(403, "SCOPE_002");
        // Cancelling was ticked (an unknown CFDI, not a missing scope); SAT downloads were not.
        let cancelar = app.post("/api/cfdi/no-existe/cancelar", &who, json!({ "motivo": "02" })).await;
        assert_eq!(cancelar.status, 404, "{:?}", cancelar.body);
        app.post("/api/cfdi/sync-recibidos", &who, json!({ "year": 2026, "month": 10 }))
            .await
            .assert_error(403, "SCOPE_002");
    })
    .await;
}
