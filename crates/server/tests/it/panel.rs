//! The web dashboard (`/panel`): HTTP tests of its login redirect, CSRF refusal, tenant
//! isolation and the exact preview totals; and the end-to-end test in a real headless browser
//! (Debian's chromium through chromedriver, driven with fantoccini), which also takes the
//! screenshots the README shows (`docs/capturas/*.png`).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use reqwest::redirect::Policy;
use serde_json::{Value, json};

use crate::harness::{As, TestApp, each_backend, free_port};

/// A browser-like client: keeps cookies, does not follow redirects.
pub(crate) fn navegador() -> reqwest::Client {
    reqwest::Client::builder().cookie_store(true).redirect(Policy::none()).build().unwrap()
}

/// An urlencoded form body, as a browser sends it.
pub(crate) trait ConFormulario {
    fn formulario(self, pairs: &[(&str, &str)]) -> Self;
}

impl ConFormulario for reqwest::RequestBuilder {
    fn formulario(self, pairs: &[(&str, &str)]) -> Self {
        let body: Vec<String> =
            pairs.iter().map(|(k, v)| format!("{}={}", urlencoding::encode(k), urlencoding::encode(v))).collect();
        self.header("content-type", "application/x-www-form-urlencoded").body(body.join("&"))
    }
}

/// The CSRF token in a page's first form.
pub(crate) fn csrf_de(html: &str) -> String {
    let start =
        html.find(r#"name="_csrf" value=""#).expect("the page has a CSRF field") + r#"name="_csrf" value=""#.len();
    html[start..start + 64].to_owned()
}

pub(crate) fn location(response: &reqwest::Response) -> String {
    response.headers().get("location").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
}

/// Registers through the dashboard's form and returns the logged-in client and its CSRF token.
pub(crate) async fn registrar(app: &TestApp, email: &str) -> (reqwest::Client, String) {
    let client = navegador();
    let page = client.get(format!("{}/panel/registro", app.base)).send().await.unwrap().text().await.unwrap();
    let token = csrf_de(&page);
    let response = client
        .post(format!("{}/panel/registro", app.base))
        .formulario(&[("_csrf", token.as_str()), ("name", "Ana Pérez"), ("email", email), ("password", "Secreto1!")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/panel/empresas?aviso=bienvenida");
    let page = client.get(format!("{}/panel/empresas", app.base)).send().await.unwrap().text().await.unwrap();
    let token = csrf_de(&page);
    (client, token)
}

/// Creates a company through the dashboard's form and returns its id.
pub(crate) async fn crear_empresa(app: &TestApp, client: &reqwest::Client, token: &str) -> String {
    let response = client
        .post(format!("{}/panel/empresas", app.base))
        .formulario(&[
            ("_csrf", token),
            ("rfc", "EKU9003173C9"),
            ("razonSocial", "ESCUELA KEMPER URGATE"),
            ("regimenFiscal", "601"),
            ("codigoPostal", "42501"),
            ("sandbox", "true"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let to = location(&response);
    to.strip_prefix("/panel/empresas/").unwrap().split('?').next().unwrap().to_owned()
}

#[tokio::test]
async fn root_and_pages_send_strangers_to_the_login_page() {
    each_backend(|app| async move {
        let client = navegador();
        for path in ["/", "/panel", "/panel/facturas", "/panel/clientes"] {
            let response = client.get(format!("{}{path}", app.base)).send().await.unwrap();
            assert_eq!(response.status(), 303, "{path}");
            assert_eq!(location(&response), "/panel/entrar", "{path}");
        }
        let login = client.get(format!("{}/panel/entrar", app.base)).send().await.unwrap();
        assert_eq!(login.status(), 200);
        assert!(login.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
        let page = login.text().await.unwrap();
        assert!(page.contains("lang=\"es-MX\"") && page.contains("Correo electrónico"), "{page}");

        // Logged in, `/` goes to the dashboard; a wrong password says so in Spanish.
        let (client, _) = registrar(&app, "ana@example.com").await;
        let response = client.get(format!("{}/", app.base)).send().await.unwrap();
        assert_eq!(location(&response), "/panel");
        let stranger = navegador();
        let page = stranger.get(format!("{}/panel/entrar", app.base)).send().await.unwrap().text().await.unwrap();
        let wrong = stranger
            .post(format!("{}/panel/entrar", app.base))
            .formulario(&[("_csrf", csrf_de(&page).as_str()), ("email", "ana@example.com"), ("password", "Otro123!")])
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), 401);
        assert!(wrong.text().await.unwrap().contains("Correo o contraseña incorrectos"));
        // An unknown dashboard path is an HTML 404, not the API's JSON.
        let missing = client.get(format!("{}/panel/no-existe", app.base)).send().await.unwrap();
        assert_eq!(missing.status(), 404);
        assert!(missing.text().await.unwrap().contains("No encontrado"));
    })
    .await;
}

#[tokio::test]
async fn forms_without_the_csrf_token_are_refused_while_the_json_api_keeps_working() {
    each_backend(|app| async move {
        let (client, token) = registrar(&app, "ana@example.com").await;
        let campos = [("rfc", "EKU9003173C9"), ("razonSocial", "ESCUELA KEMPER URGATE"), ("regimenFiscal", "601"), ("codigoPostal", "42501")];
        let sin = client.post(format!("{}/panel/empresas", app.base)).formulario(&campos).send().await.unwrap();
        assert_eq!(sin.status(), 403);
        assert!(sin.text().await.unwrap().contains("código de seguridad"));
        let mut con_otro = campos.to_vec();
        con_otro.push(("_csrf", "0000000000000000000000000000000000000000000000000000000000000000"));
        let otro = client.post(format!("{}/panel/empresas", app.base)).formulario(&con_otro).send().await.unwrap();
        assert_eq!(otro.status(), 403);
        // Nothing was created by the refused forms.
        let page = client.get(format!("{}/panel/empresas", app.base)).send().await.unwrap().text().await.unwrap();
        assert!(page.contains("Aún no tiene empresas"));
        // Login and registration forms need their pre-session token too.
        let stranger = navegador();
        let login = stranger
            .post(format!("{}/panel/entrar", app.base))
            .formulario(&[("email", "ana@example.com"), ("password", "Secreto1!")])
            .send()
            .await
            .unwrap();
        assert_eq!(login.status(), 403);

        // The JSON API with the same session cookie is unchanged (no token needed).
        let created = client
            .post(format!("{}/api/empresas", app.base))
            .json(&json!({ "rfc": "EKU9003173C9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" }))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201);
        // With the token, the form works and shows the field problems in place.
        let mut con = campos.to_vec();
        con[0] = ("rfc", "NO-ES-RFC");
        con.push(("_csrf", token.as_str()));
        let invalid = client.post(format!("{}/panel/empresas", app.base)).formulario(&con).send().await.unwrap();
        assert_eq!(invalid.status(), 400);
        let page = invalid.text().await.unwrap();
        assert!(page.contains("Revise los datos de la empresa") && page.contains("EMPRESA_001"), "{page}");
        assert!(page.contains(r#"aria-invalid="true""#));
    })
    .await;
}

#[tokio::test]
async fn one_person_cannot_see_another_companys_pages() {
    each_backend(|app| async move {
        let (ana, ana_token) = registrar(&app, "ana@example.com").await;
        let empresa_ana = crear_empresa(&app, &ana, &ana_token).await;
        let factura = ana
            .post(format!("{}/api/cfdi/timbrar", app.base))
            .header("x-empresa-id", &empresa_ana)
            .json(&json!({ "formaPago": "03", "metodoPago": "PUE",
                "conceptos": [{ "claveProdServ": "81112100", "claveUnidad": "E48", "descripcion": "Servicio", "cantidad": "1", "precioUnitario": "100" }] }))
            .send()
            .await
            .unwrap();
        assert_eq!(factura.status(), 201);
        let factura: Value = factura.json().await.unwrap();
        let factura_id = factura["data"]["cfdiId"].as_str().unwrap().to_owned();

        let (beto, beto_token) = registrar(&app, "beto@example.com").await;
        let empresa_beto = crear_empresa(&app, &beto, &beto_token).await;
        for path in [
            format!("/panel/empresas/{empresa_ana}"),
            format!("/panel/clientes?empresa={empresa_ana}"),
            format!("/panel/facturas?empresa={empresa_ana}"),
            format!("/panel/empresa?id={empresa_ana}"),
            // Beto's current company is his own: Ana's invoice id is not found there.
            format!("/panel/facturas/{factura_id}"),
            format!("/panel/facturas/{factura_id}/pdf"),
        ] {
            let response = beto.get(format!("{}{path}", app.base)).send().await.unwrap();
            assert_eq!(response.status(), 404, "{path}");
            assert!(response.text().await.unwrap().contains("No encontrado"), "{path}");
        }
        // A form aimed at Ana's company is refused the same way.
        let response = beto
            .post(format!("{}/panel/empresas/{empresa_ana}", app.base))
            .formulario(&[("_csrf", beto_token.as_str()), ("razonSocial", "OTRA")])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
        // Ana still sees her invoice; Beto sees his own company.
        let page = ana.get(format!("{}/panel/facturas/{factura_id}", app.base)).send().await.unwrap();
        assert_eq!(page.status(), 200);
        let page = beto.get(format!("{}/panel/empresas/{empresa_beto}", app.base)).send().await.unwrap();
        assert_eq!(page.status(), 200);
    })
    .await;
}

#[tokio::test]
async fn the_preview_shows_the_exact_totals_the_stamp_carries() {
    each_backend(|app| async move {
        let (client, token) = registrar(&app, "ana@example.com").await;
        let empresa = crear_empresa(&app, &client, &token).await;
        // Amounts whose rounding matters: 3 × 1234.505, 16% IVA, 10% ISR and 2/3 IVA withheld, and a
        // second line of 7 × 0.333 with a discount.
        let form = [
            ("formaPago", "03"),
            ("metodoPago", "PUE"),
            ("clienteId", ""),
            ("descripcion", "Consultoría"),
            ("cantidad", "3"),
            ("precioUnitario", "1234.505"),
            ("descuento", ""),
            ("claveProdServ", "81112100"),
            ("claveUnidad", "E48"),
            ("tasaIva", "0.160000"),
            ("retIsr", "0.100000"),
            ("retIva", "0.106667"),
            ("descripcion", "Tornillos"),
            ("cantidad", "7"),
            ("precioUnitario", "0.333"),
            ("descuento", "0.10"),
            ("claveProdServ", "31161500"),
            ("claveUnidad", "H87"),
            ("tasaIva", "0.160000"),
            ("retIsr", ""),
            ("retIva", ""),
        ];
        let preview = client
            .post(format!("{}/panel/facturas/vista-previa", app.base))
            .header("x-csrf-token", &token)
            .formulario(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(preview.status(), 200);
        let preview = preview.text().await.unwrap();
        let celda = |name: &str| {
            let start =
                preview.find(&format!(r#"data-total="{name}">"#)).unwrap_or_else(|| panic!("{name} in {preview}"));
            let rest = &preview[start + name.len() + 14..];
            rest[..rest.find('<').unwrap()].to_owned()
        };
        // Stamp the same form; the stamped invoice's totals are the preview's.
        let mut with_token = form.to_vec();
        with_token.push(("_csrf", token.as_str()));
        let response =
            client.post(format!("{}/panel/facturas", app.base)).formulario(&with_token).send().await.unwrap();
        assert_eq!(response.status(), 303);
        let id = location(&response).trim_start_matches("/panel/facturas/").split('?').next().unwrap().to_owned();
        let key = {
            let created = app
                .post(
                    "/api/api-keys",
                    &As::default(),
                    json!({ "name": "t", "email": "ana@example.com", "password": "Secreto1!" }),
                )
                .await;
            created.data(201)["key"].as_str().unwrap().to_owned()
        };
        let detail = app.get(&format!("/api/cfdi/{id}"), &As::key(&key).in_empresa(&empresa)).await;
        let detail = detail.data(200);
        let pesos = |text: &str| timbra_api::panel::pesos(text.parse().unwrap());
        let exacto = |value: &Value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        assert_eq!(celda("subtotal"), pesos(&exacto(&detail["subtotal"])));
        assert_eq!(celda("total"), pesos(&exacto(&detail["total"])));
        // The figures themselves, worked by hand with Anexo 20's rounding per line:
        // line 1 importe 3703.515 → 3703.52; IVA 592.5624 → 592.56; ISR 370.3515 → 370.35;
        // IVA withheld 395.0400 → 395.04; line 2 importe 2.331 → 2.33, base 2.23, IVA 0.3568 → 0.36.
        assert_eq!(celda("subtotal"), "$3,705.85");
        assert_eq!(celda("trasladados"), "$592.92");
        assert_eq!(celda("retenidos"), "−$765.39");
        assert_eq!(celda("total"), "$3,533.28");
    })
    .await;
}

// ---------------------------------------------------------------------------------------------
// The browser test.

/// chromedriver on a free port, stopped on drop.
struct Chromedriver {
    child: Child,
    port: u16,
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn en_path(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|dir| dir.join(tool)).find(|path| path.is_file()))
        .unwrap_or_default()
}

/// The browser and its driver, or `None` after a reported skip (a failure under
/// `TIMBRA_REQUIRE_BROWSER=1`).
fn herramientas() -> Option<(PathBuf, PathBuf)> {
    let chromium = en_path("chromium").or_else(|| en_path("chromium-browser"));
    let driver = en_path("chromedriver");
    match (chromium, driver) {
        (Some(chromium), Some(driver)) => Some((chromium, driver)),
        _ => {
            timbra_testkit::skip(timbra_testkit::Reason::Browser, "chromium or chromedriver");
            None
        }
    }
}

async fn arrancar_chromedriver(driver: &PathBuf) -> Chromedriver {
    let port = free_port().await;
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let guard = Chromedriver { child, port };
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    guard
}

fn capturas() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/capturas");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn captura(browser: &Client, nombre: &str) {
    let png = browser.screenshot().await.unwrap();
    std::fs::write(capturas().join(format!("{nombre}.png")), png).unwrap();
}

async fn escribir(browser: &Client, id: &str, text: &str) {
    let input = browser.find(Locator::Id(id)).await.unwrap_or_else(|e| panic!("#{id}: {e}"));
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

async fn enviar(browser: &Client, css: &str) {
    browser.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}")).click().await.unwrap();
}

async fn texto_de(browser: &Client, css: &str) -> String {
    browser.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}")).text().await.unwrap()
}

/// Waits until the page's path is `path` (after a form's redirect).
async fn esperar_ruta(browser: &Client, prefix: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let url = browser.current_url().await.unwrap();
        if url.path().starts_with(prefix) {
            return url.path().to_owned();
        }
        assert!(Instant::now() < deadline, "still at {url}, waiting for {prefix}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn esperar_texto(browser: &Client, css: &str, expected: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(element) = browser.find(Locator::Css(css)).await
            && let Ok(text) = element.text().await
            && text.contains(expected)
        {
            return text;
        }
        assert!(Instant::now() < deadline, "{css} never showed {expected:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the `datalist` or `select` `id` offers `expected` (its options' values and
/// texts, read by script: a datalist is never visible text).
async fn esperar_opciones(browser: &Client, id: &str, expected: &str) -> String {
    esperar_opciones_sin(browser, id, expected, None).await
}

/// [`esperar_opciones`], also waiting until no option holds `ausente` (a list htmx reloads).
async fn esperar_opciones_sin(browser: &Client, id: &str, expected: &str, ausente: Option<&str>) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let opciones = browser
            .execute(
                "const l = document.getElementById(arguments[0]);
                 return l ? Array.from(l.options).map(o => o.value + ' ' + o.textContent).join('\\n') : '';",
                vec![json!(id)],
            )
            .await
            .unwrap();
        let opciones = opciones.as_str().unwrap_or_default().to_owned();
        if opciones.contains(expected) && ausente.is_none_or(|a| !opciones.contains(a)) {
            return opciones;
        }
        assert!(Instant::now() < deadline, "#{id} never offered {expected:?}: {opciones}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Picks `value` in the select `id` (a person's click: htmx sees the change).
async fn elegir(browser: &Client, id: &str, value: &str) {
    let select = browser.find(Locator::Id(id)).await.unwrap_or_else(|e| panic!("#{id}: {e}"));
    select.select_by_value(value).await.unwrap_or_else(|e| panic!("#{id} = {value}: {e}"));
}

/// The PDF at `href`, fetched by the page with the session, carries "PRUEBAS — SIN VALIDEZ
/// FISCAL" as text (pdftotext reads it: issue 38's pinned detail).
async fn marca_de_pruebas(browser: &Client, href: &str) {
    if !timbra_testkit::tools(&["pdftotext"]) {
        return;
    }
    let bytes = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => done(Array.from(new Uint8Array(b))))
             .catch(e => done(String(e)));",
            vec![json!(href)],
        )
        .await
        .unwrap();
    let bytes: Vec<u8> = serde_json::from_value(bytes).expect("the PDF's bytes");
    let dir = crate::harness::TempDir::new();
    let file = dir.0.join("factura.pdf");
    std::fs::write(&file, &bytes).unwrap();
    let salida = Command::new("pdftotext").args([file.to_str().unwrap(), "-"]).output().unwrap();
    assert!(salida.status.success(), "pdftotext: {}", String::from_utf8_lossy(&salida.stderr));
    let texto = String::from_utf8_lossy(&salida.stdout);
    assert!(texto.contains("PRUEBAS — SIN VALIDEZ FISCAL"), "no sandbox mark on the PDF:\n{texto}");
}

#[tokio::test]
async fn in_a_browser_register_log_in_stamp_download_and_cancel() {
    let Some((chromium, driver)) = herramientas() else { return };
    let started = Instant::now();
    let app = crate::harness::sqlite_app().await;
    let chromedriver = arrancar_chromedriver(&driver).await;
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1000", "--lang=es-MX", "--hide-scrollbars"],
        }),
    );
    let browser = ClientBuilder::rustls()
        .unwrap()
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", chromedriver.port))
        .await
        .expect("a chromedriver session");
    let base = app.base.clone();
    async {
        // Register.
        browser.goto(&format!("{base}/")).await.unwrap();
        esperar_ruta(&browser, "/panel/entrar").await;
        captura(&browser, "entrar").await;
        enviar(&browser, "a[href='/panel/registro']").await;
        esperar_ruta(&browser, "/panel/registro").await;
        escribir(&browser, "campo-name", "Ana Pérez").await;
        escribir(&browser, "campo-email", "ana@example.com").await;
        escribir(&browser, "campo-password", "Secreto1!").await;
        enviar(&browser, "main form button[type=submit]").await;
        esperar_ruta(&browser, "/panel/empresas").await;
        // Log out and in again.
        enviar(&browser, "form.salir button").await;
        esperar_ruta(&browser, "/panel/entrar").await;
        escribir(&browser, "campo-email", "ana@example.com").await;
        escribir(&browser, "campo-password", "Secreto1!").await;
        enviar(&browser, "main form button[type=submit]").await;
        esperar_ruta(&browser, "/panel/empresas").await;

        // Create a company, then upload SAT's test CSD through the file input.
        escribir(&browser, "campo-rfc", "EKU9003173C9").await;
        escribir(&browser, "campo-razonSocial", "ESCUELA KEMPER URGATE").await;
        escribir(&browser, "campo-codigoPostal", "42501").await;
        enviar(&browser, "section[aria-labelledby=nueva] button[type=submit]").await;
        esperar_texto(&browser, "main h1", "ESCUELA KEMPER URGATE").await;
        // Sandbox stamps without it; the upload shows the certificate's number and validity.
        if let Some(sat) = crate::cfdi::sat_dir() {
            // chromedriver takes only canonical paths for a file input (no `..`, no symlinks).
            let certs = std::fs::canonicalize(sat.join("certs")).unwrap();
            let csd = "section[aria-labelledby=csd]";
            for (name, file) in [("cerBase64", "30001000000500003416.cer"), ("keyBase64", "30001000000500003416.key")] {
                let input = browser.find(Locator::Css(&format!("{csd} input[name={name}]"))).await.unwrap();
                input.send_keys(certs.join(file).to_str().unwrap()).await.unwrap();
            }
            browser.find(Locator::Css(&format!("{csd} input[name=password]"))).await.unwrap().send_keys("12345678a").await.unwrap();
            enviar(&browser, &format!("{csd} button[type=submit]")).await;
            let aviso = esperar_texto(&browser, "div.aviso", "30001000000500003416").await;
            assert!(aviso.contains("2027-05-18"), "{aviso}");
        }
        captura(&browser, "empresa").await;

        // A customer: régimen and uso are picked from SAT's catalogs, and the uso picker offers
        // only what c_UsoCFDI allows for the régimen chosen and the RFC typed (616 "sin
        // obligaciones fiscales" takes S01, never G03).
        browser.goto(&format!("{base}/panel/clientes/nuevo")).await.unwrap();
        escribir(&browser, "campo-rfc", "XIA190128J61").await;
        escribir(&browser, "campo-razonSocial", "XENON INDUSTRIAL ARTICLES").await;
        elegir(&browser, "campo-regimenFiscal", "616").await;
        esperar_opciones_sin(&browser, "campo-usoCfdi", "S01", Some("G03")).await;
        elegir(&browser, "campo-regimenFiscal", "601").await;
        esperar_opciones(&browser, "campo-usoCfdi", "G03").await;
        elegir(&browser, "campo-usoCfdi", "G03").await;
        // A postal code of three digits: the problem reads in Spanish beside the field, as the
        // form labels it, and the API's English message is nowhere on the page.
        escribir(&browser, "campo-codigoPostal", "123").await;
        enviar(&browser, "main form button[type=submit]").await;
        esperar_texto(&browser, "#campo-codigoPostal-error", "Escriba un código postal de exactamente 5 dígitos").await;
        assert!(texto_de(&browser, "div.error").await.contains("Revise los datos del cliente."));
        let fuente = browser.source().await.unwrap();
        assert!(!fuente.contains("exactly 5 digits") && !fuente.contains("codigoPostal:"), "{fuente}");
        // The choices survive the failed submission.
        let elegidos = browser
            .execute("return [document.getElementById('campo-regimenFiscal').value, document.getElementById('campo-usoCfdi').value];", vec![])
            .await
            .unwrap();
        assert_eq!(elegidos, json!(["601", "G03"]));
        escribir(&browser, "campo-codigoPostal", "76343").await;
        enviar(&browser, "main form button[type=submit]").await;
        esperar_texto(&browser, "table", "XIA190128J61").await;
        captura(&browser, "clientes").await;

        // A product: words without accents find SAT's codes, and units by name.
        browser.goto(&format!("{base}/panel/productos/nuevo")).await.unwrap();
        escribir(&browser, "campo-descripcion", "Café de grano").await;
        escribir(&browser, "campo-claveProdServ", "cafe").await;
        esperar_opciones(&browser, "lista-claveProdServ", "Café").await;
        escribir(&browser, "campo-claveProdServ", "50201708").await;
        escribir(&browser, "campo-claveUnidad", "kilo").await;
        esperar_opciones(&browser, "lista-claveUnidad", "KGM").await;
        escribir(&browser, "campo-claveUnidad", "KGM").await;
        escribir(&browser, "campo-precioUnitario", "250").await;
        enviar(&browser, "main form button[type=submit]").await;
        esperar_texto(&browser, "table", "50201708").await;

        // The invoice form: totals appear as the person types, from the server's preview.
        browser.goto(&format!("{base}/panel/facturas/nueva")).await.unwrap();
        enviar(&browser, "#clienteId option:nth-child(2)").await;
        escribir(&browser, "descripcion-1", "Consultoría contable de noviembre").await;
        escribir(&browser, "cantidad-1", "3").await;
        escribir(&browser, "claveProdServ-1", "84111500").await;
        escribir(&browser, "precioUnitario-1", "1234.505").await;
        esperar_texto(&browser, "#totales", "$4,296.08").await;
        let totales = texto_de(&browser, "#totales").await;
        assert!(totales.contains("$3,703.52") && totales.contains("$592.56"), "{totales}");
        captura(&browser, "nueva-factura").await;
        browser.set_window_size(390, 844).await.unwrap();
        captura(&browser, "nueva-factura-telefono").await;
        browser.set_window_size(1280, 1000).await.unwrap();
        enviar(&browser, "#factura button[type=submit]").await;
        esperar_texto(&browser, "p.aviso", "Factura timbrada").await;
        let uuid = texto_de(&browser, "#uuid").await;
        assert!(uuid.starts_with("SANDBOX-") && uuid.len() == 8 + 36, "{uuid}");
        captura(&browser, "factura").await;

        // The list shows it with its UUID.
        browser.goto(&format!("{base}/panel/facturas")).await.unwrap();
        esperar_texto(&browser, "table", &uuid).await;
        captura(&browser, "facturas").await;

        // Its PDF downloads (fetched by the page, with the session's cookie).
        browser.find(Locator::Css("td.uuid a")).await.unwrap().click().await.unwrap();
        esperar_texto(&browser, "#uuid", &uuid).await;
        let href = browser.find(Locator::Css("a[href$='/pdf']")).await.unwrap().attr("href").await.unwrap().unwrap();
        let pdf = browser
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 fetch(arguments[0]).then(r => r.arrayBuffer().then(b => done([r.status,
                   r.headers.get('content-type'), String.fromCharCode(...new Uint8Array(b).slice(0, 5)), b.byteLength])))
                 .catch(e => done(String(e)));",
                vec![json!(href)],
            )
            .await
            .unwrap();
        assert_eq!(pdf[0], json!(200), "{pdf}");
        assert_eq!(pdf[1], json!("application/pdf"), "{pdf}");
        assert_eq!(pdf[2], json!("%PDF-"), "{pdf}");
        // The invoice page's tax breakdown, and the sandbox mark on the PDF the page links to
        // (its bytes as the browser received them, read by pdftotext: the mark is text).
        let desglose = texto_de(&browser, "#desglose").await;
        assert!(desglose.contains("IVA trasladado 16 %") && desglose.contains("$592.56"), "{desglose}");
        marca_de_pruebas(&browser, &href).await;

        // Cancel it.
        browser.find(Locator::Id("campo-motivo")).await.unwrap().select_by_value("02").await.unwrap();
        enviar(&browser, "section[aria-labelledby=cancelar] button[type=submit]").await;
        esperar_texto(&browser, "#estado", "Cancelada").await;
        browser.goto(&format!("{base}/panel")).await.unwrap();
        esperar_texto(&browser, "header", "Modo pruebas").await;
        captura(&browser, "panel").await;
    }
    .await;
    browser.close().await.unwrap();
    drop(chromedriver);
    eprintln!("dashboard browser test took {:?}", started.elapsed());
}

/// Issue 28, finding 3, in the browser: an invoice whose stored UUID once broke the
/// `Content-Disposition` header (a quote and a line break) and whose XML carries an XHTML
/// script in its Addenda. Opened in Chromium with the owner's session (the dashboard's XML
/// button and the signed link), the XML is an attachment in a sandbox and its script never
/// runs. Before the fix the header was dropped, Chromium rendered the XML on the service's own
/// origin and the script ran with the session.
#[tokio::test]
async fn in_a_browser_a_hostile_xml_never_runs_its_script() {
    let Some((chromium, driver)) = herramientas() else { return };
    let app = crate::harness::sqlite_app().await;
    let (who, cliente) = crate::cfdi::setup(&app, "xss@example.com").await;
    let stamped = crate::cfdi::timbrar(&app, &who, &crate::cfdi::factura(&cliente), None).await.data(201).clone();
    let id = stamped["cfdiId"].as_str().unwrap().to_owned();
    let testigo = crate::receiver::Receiver::start().await;
    let mut conn = app.db.conn().await.unwrap();
    let path =
        timbra_store::sql!(scalar_one conn, String, "SELECT path FROM cfdi_xml WHERE cfdi_id = $1", &id).unwrap();
    let xml = timbra_store::cfdi_xml::leer(&mut conn, &path).await.unwrap().unwrap();
    let script = format!("fetch('{}', {{method: 'POST', mode: 'no-cors', body: 'xss'}})", testigo.url);
    let xml = String::from_utf8(xml).unwrap().replace(
        "</cfdi:Comprobante>",
        &format!("<cfdi:Addenda><html xmlns=\"http://www.w3.org/1999/xhtml\"><script>{script}</script></html></cfdi:Addenda></cfdi:Comprobante>"),
    );
    timbra_store::sql!(execute conn, "UPDATE cfdi_xml SET xml_deflate = $1 WHERE cfdi_id = $2",
        timbra_store::cfdi_xml::comprimir(&xml), &id)
    .unwrap();
    timbra_store::sql!(execute conn, "UPDATE cfdis SET uuid = $1 WHERE id = $2", "Q\"; filename=evil.html; x=\"\r\n", &id)
        .unwrap();
    drop(conn);
    let detalle = app.get(&format!("/api/cfdi/{id}"), &who).await;
    let enlace = detalle.data(200)["xmlDownloadUrl"].as_str().unwrap().to_owned();
    let enlace = if enlace.starts_with("http") { enlace } else { format!("{}{enlace}", app.base) };

    let chromedriver = arrancar_chromedriver(&driver).await;
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_owned(),
        json!({ "binary": chromium, "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] }),
    );
    let browser = ClientBuilder::rustls()
        .unwrap()
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", chromedriver.port))
        .await
        .expect("a chromedriver session");
    // Logged in as a person would be, the company chosen in the switcher.
    browser.goto(&format!("{}/panel/entrar", app.base)).await.unwrap();
    escribir(&browser, "campo-email", "xss@example.com").await;
    escribir(&browser, "campo-password", "Secreto1!").await;
    enviar(&browser, "main form button[type=submit]").await;
    esperar_ruta(&browser, "/panel").await;
    browser.goto(&format!("{}/panel/empresa?id={}", app.base, who.empresa.clone().unwrap())).await.unwrap();
    for url in [format!("{}/panel/facturas/{id}/xml", app.base), enlace] {
        // A download may end the navigation with an error; what counts is what ran.
        let _ = browser.goto(&url).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(testigo.arrived().is_empty(), "the Addenda's script ran in the browser at {url}");
    }
    browser.close().await.unwrap();
    drop(chromedriver);
}
