//! The public self-invoicing page `/autofactura/{slug}` (issue 31): a customer types the code
//! printed on a ticket (or opens its `urlAutofactura`), sees the ticket's lines and total, and
//! types their fiscal data; the service stamps a type I invoice to them from the ticket
//! (`timbra_services::cfdi::recibos::autofacturar`) and the page links its XML and PDF.
//!
//! No account: the forms carry a CSRF token tied to a random cookie (double submit, signed,
//! as the dashboard's login form); wrong codes are counted per client address and refused
//! past `TIMBRA_AUTOFACTURA_LIMIT_PER_HOUR` in an hour. Nothing on the page names another
//! ticket or customer: an unknown code, another company's code and a malformed code get the
//! same answer; an invoiced ticket says so without showing the invoice.

use std::collections::HashMap;
use std::net::SocketAddr;
use timbra_store::ids::{CfdiId, EmpresaId};

use axum::Router;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use maud::{DOCTYPE, Markup, html};
use serde_json::Value;
use sha2::Digest;
use time::OffsetDateTime;

use timbra_cfdi::catalogos::{RegimenFiscal, UsoCfdi, usos_para_regimen};
use timbra_panel::{csrf, html_con, leer_campos};
use timbra_services::cfdi::recibos::{self, DatosCliente};
use timbra_services::cfdi::{contexto, links};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::recibos::{self as db, Ajustes, ReciboRow};

/// The page's cookie of its CSRF token (path `/autofactura`).
const COOKIE: &str = "timbra_autofactura";

/// The page's routes (public: no credential, outside the API's table).
pub fn router() -> Router<AppContext> {
    Router::new()
        .route("/autofactura/{slug}", get(pagina).post(enviar))
        .route("/autofactura/{slug}/usos", get(usos))
        .route("/autofactura/{slug}/logo", get(logo))
        .route("/autofactura/{slug}/marca.css", get(marca_css))
}

/// The company of `slug` while its page is on.
async fn empresa_de(app: &AppContext, slug: &str) -> Result<Ajustes, Response> {
    let mut conn = app.db.conn().await.map_err(|e| error_page(&ApiError::from(e)))?;
    match db::por_slug(&mut conn, &slug.to_lowercase()).await {
        Ok(Some(ajustes)) if ajustes.autofactura_activa => Ok(ajustes),
        Ok(_) => Err(html_con(
            StatusCode::NOT_FOUND,
            pagina_publica(
                "Página no encontrada",
                None,
                html! { p { "Esta página de facturación no existe o el negocio la desactivó." } },
            ),
        )),
        Err(e) => Err(error_page(&ApiError::from(e))),
    }
}

fn error_page(error: &ApiError) -> Response {
    html_con(error.code.status(), pagina_publica("Facturación", None, html! { (aviso_error(error)) }))
}

/// The page's CSRF token, and the cookie to set when the browser has none yet.
fn token(app: &AppContext, headers: &HeaderMap) -> Result<(String, Option<HeaderValue>), ApiError> {
    if let Some(valor) = csrf::cookie(headers, COOKIE).filter(|v| v.len() >= 32) {
        return Ok((csrf::token_previo(app, valor)?, None));
    }
    let valor = timbra_services::auth::secrets::random_token();
    let secure = if app.config.session.secure_cookie { "; Secure" } else { "" };
    let cookie =
        HeaderValue::from_str(&format!("{COOKIE}={valor}; Path=/autofactura; HttpOnly; SameSite=Strict{secure}")).ok();
    Ok((csrf::token_previo(app, &valor)?, cookie))
}

fn con_cookie(mut response: Response, cookie: Option<HeaderValue>) -> Response {
    if let Some(cookie) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// The digest an address's wrong codes are counted under (IPv6 by its /64).
fn digest_ip(ip: std::net::IpAddr) -> String {
    let bytes = match ip {
        std::net::IpAddr::V4(v4) => v4.octets().to_vec(),
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.octets().to_vec(),
            None => v6.octets()[..8].to_vec(),
        },
    };
    hex::encode(sha2::Sha256::digest([b"autofactura:".as_slice(), &bytes].concat()))
}

/// RATE_001 when the address already typed as many wrong codes as the hour allows.
async fn limite(app: &AppContext, ip: &str, now: OffsetDateTime) -> Result<(), ApiError> {
    let hora = time::Duration::hours(1);
    let mut conn = app.db.conn().await?;
    if let Some((fallos, desde)) = db::fallos(&mut conn, ip, now - hora).await?
        && fallos >= i64::from(app.config.autofactura_limit_per_hour)
    {
        let espera = (desde + hora - now).whole_seconds().max(1);
        let mut error =
            ApiError::new(Code::Rate001, format!("too many wrong codes from this address; retry in {espera} s"));
        error.retry_after = Some(espera as u64);
        return Err(error);
    }
    Ok(())
}

async fn contar_fallo(app: &AppContext, ip: &str, now: OffsetDateTime) -> Result<(), ApiError> {
    let mut conn = app.db.conn().await?;
    db::contar_fallo(&mut conn, ip, now, now - time::Duration::hours(1)).await?;
    Ok(())
}

/// The ticket of `clave` for this page, counting a wrong code against the address.
async fn buscar(
    app: &AppContext,
    empresa: &Ajustes,
    clave: &str,
    ip: &str,
    now: OffsetDateTime,
) -> Result<ReciboRow, ApiError> {
    limite(app, ip, now).await?;
    let resultado = recibos::recibo_para_autofactura(app, &EmpresaId::from(&empresa.id), clave, now).await;
    if let Err(error) = &resultado
        && error.code == Code::Recibo004
    {
        contar_fallo(app, ip, now).await?;
    }
    resultado
}

fn ip_de(request_ip: Option<&ConnectInfo<SocketAddr>>) -> String {
    digest_ip(request_ip.map_or(std::net::IpAddr::from([0, 0, 0, 0]), |c| c.0.ip()))
}

/// `GET /autofactura/{slug}[?clave=…]`.
pub async fn pagina(
    State(app): State<AppContext>,
    Path(slug): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    headers: HeaderMap,
    request: Request,
) -> Response {
    let empresa = match empresa_de(&app, &slug).await {
        Ok(empresa) => empresa,
        Err(response) => return response,
    };
    let (token, cookie) = match token(&app, &headers) {
        Ok(t) => t,
        Err(error) => return error_page(&error),
    };
    let ip = ip_de(request.extensions().get::<ConnectInfo<SocketAddr>>());
    let now = app.clock.now();
    let clave = params.get("clave").map(|c| c.trim()).filter(|c| !c.is_empty());
    let (status, contenido) = match clave {
        None => (StatusCode::OK, form_clave(&slug, None)),
        Some(clave) => match buscar(&app, &empresa, clave, &ip, now).await {
            Ok(recibo) => (StatusCode::OK, form_datos(&slug, &token, &recibo, &DatosCliente::default(), None)),
            Err(error) => (error.code.status(), html! { (aviso_error(&error)) (form_clave(&slug, Some(clave))) }),
        },
    };
    con_cookie(html_con(status, pagina_publica("Facturación de su compra", Some(&empresa), contenido)), cookie)
}

/// `POST /autofactura/{slug}`: stamps the invoice of the ticket.
pub async fn enviar(State(app): State<AppContext>, Path(slug): Path<String>, request: Request) -> Response {
    let empresa = match empresa_de(&app, &slug).await {
        Ok(empresa) => empresa,
        Err(response) => return response,
    };
    let headers = request.headers().clone();
    let ip = ip_de(request.extensions().get::<ConnectInfo<SocketAddr>>());
    let esperado = match csrf::cookie(&headers, COOKIE) {
        Some(valor) => csrf::token_previo(&app, valor),
        None => Err(ApiError::new(Code::Auth001, "no token")),
    };
    let campos = match esperado {
        Ok(esperado) => match leer_campos(&headers, request, &app).await {
            Ok(campos) => csrf::comprobar(&headers, campos, &esperado).ok(),
            Err(_) => None,
        },
        Err(_) => None,
    };
    let Some(campos) = campos else {
        return html_con(
            StatusCode::FORBIDDEN,
            pagina_publica(
                "Formulario vencido",
                Some(&empresa),
                html! {
                    p { "El formulario venció o no traía su código de seguridad. Vuelva a abrir la página e intente de nuevo." }
                    p { a href={ "/autofactura/" (slug) } { "Volver" } }
                },
            ),
        );
    };
    let valor = |k: &str| campos.valor(k).unwrap_or_default().to_owned();
    let clave = valor("clave");
    let datos = DatosCliente {
        rfc: valor("rfc"),
        razon_social: valor("razonSocial"),
        regimen_fiscal: valor("regimenFiscal"),
        codigo_postal: valor("codigoPostal"),
        uso_cfdi: valor("usoCfdi"),
        email: campos.valor("email").map(str::to_owned),
    };
    let now = app.clock.now();
    let (token, cookie) = match token(&app, &headers) {
        Ok(t) => t,
        Err(error) => return error_page(&error),
    };
    let recibo = match buscar(&app, &empresa, &clave, &ip, now).await {
        Ok(recibo) => recibo,
        Err(error) => {
            let contenido = html! { (aviso_error(&error)) (form_clave(&slug, Some(&clave))) };
            return con_cookie(
                html_con(error.code.status(), pagina_publica("Facturación de su compra", Some(&empresa), contenido)),
                cookie,
            );
        }
    };
    let emisora = match contexto::emisora_y_receptor(&app, &EmpresaId::from(&empresa.id), None).await {
        Ok((emisora, _)) => emisora,
        Err(error) => return error_page(&error),
    };
    match recibos::autofacturar(&app, &emisora, &clave, datos.clone(), now).await {
        Ok(factura) => {
            // The invoice by e-mail to the address typed, as a durable sending (the issuer's
            // e-mail settings); without SMTP or with a bad address the page's links remain.
            let enviado_a = match datos.email.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
                Some(email) => {
                    let para = [email.to_owned()];
                    match timbra_services::correo::enviar(
                        &app,
                        &EmpresaId::from(&empresa.id),
                        &CfdiId::from(&factura.cfdi_id),
                        Some(&para),
                        None,
                    )
                    .await
                    {
                        Ok(_) => Some(email.to_owned()),
                        Err(error) => {
                            tracing::info!(error.code = error.code.as_str(), "self-invoice e-mail not queued");
                            None
                        }
                    }
                }
                None => None,
            };
            let secret = match app.cfdi.link_secret() {
                Ok(secret) => secret,
                Err(error) => return error_page(&error),
            };
            let ahora = now.unix_timestamp();
            let xml = links::url(&secret, &factura.xml_path, ahora);
            let pdf = links::url(&secret, &links::ruta_pdf(&factura.xml_path), ahora);
            let contenido = html! {
                p.aviso role="status" { "Su factura quedó emitida." }
                @if let Some(email) = &enviado_a {
                    p { "Le enviamos el XML y el PDF a " strong { (email) } "." }
                }
                dl {
                    dt { "Folio fiscal (UUID)" } dd { code { (factura.uuid) } }
                    dt { "Total" } dd { "$" (factura.total) " " (recibo.moneda) }
                }
                p { a href=(xml) download { "Descargar XML" } " · " a href=(pdf) download { "Descargar PDF" } }
                p.detalle { "Los enlaces valen una hora. Guarde los archivos." }
            };
            con_cookie(
                html_con(StatusCode::CREATED, pagina_publica("Factura emitida", Some(&empresa), contenido)),
                cookie,
            )
        }
        Err(error) => {
            let status = error.code.status();
            let contenido = html! { (form_datos(&slug, &token, &recibo, &datos, Some(&error))) };
            con_cookie(html_con(status, pagina_publica("Facturación de su compra", Some(&empresa), contenido)), cookie)
        }
    }
}

/// `GET /autofactura/{slug}/usos?regimenFiscal=…`: the options of the usos a régimen may
/// receive (the form's select asks for them when the régimen changes).
pub async fn usos(
    State(app): State<AppContext>,
    Path(slug): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    if let Err(response) = empresa_de(&app, &slug).await {
        return response;
    }
    let regimen = params.get("regimenFiscal").map(String::as_str).unwrap_or_default();
    html_con(StatusCode::OK, opciones_uso(regimen, None))
}

fn opciones_uso(regimen: &str, elegido: Option<&str>) -> Markup {
    let usos: Vec<UsoCfdi> = match RegimenFiscal::desde_codigo(regimen) {
        Some(regimen) => usos_para_regimen(regimen),
        None => Vec::new(),
    };
    html! {
        @if usos.is_empty() {
            option value="" { "Elija primero su régimen fiscal" }
        }
        @for uso in usos {
            option value=(uso.codigo()) selected[Some(uso.codigo()) == elegido] { (uso.codigo()) " — " (uso.descripcion()) }
        }
    }
}

/// The page outside the dashboard: the company's name, mobile-friendly, the panel's styles.
fn pagina_publica(titulo: &str, empresa: Option<&Ajustes>, contenido: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="es-MX" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="htmx-config" content=r#"{"includeIndicatorStyles":false,"allowEval":false}"#;
                title { (titulo) }
                link rel="stylesheet" href="/panel/estatico/panel.css";
                @if let Some(slug) = empresa.filter(|e| e.pdf_color_primario.is_some()).and_then(|e| e.autofactura_slug.as_ref()) {
                    link rel="stylesheet" href={ "/autofactura/" (slug) "/marca.css" };
                }
                script src="/panel/estatico/htmx.min.js" defer {}
            }
            body.suelta.autofactura {
                main id="contenido" {
                    @if let Some(empresa) = empresa {
                        @if empresa.tiene_logo {
                            @if let Some(slug) = &empresa.autofactura_slug {
                                img.logo src={ "/autofactura/" (slug) "/logo" } alt={ "Logotipo de " (empresa.razon_social) };
                            }
                        }
                        p.marca { (empresa.razon_social) }
                    }
                    h1 { (titulo) }
                    (contenido)
                }
            }
        }
    }
}

/// What a customer reads for a refusal.
fn aviso_error(error: &ApiError) -> Markup {
    let texto = match error.code {
        Code::Recibo004 => {
            "No encontramos un ticket con ese código en esta página. Revise el código impreso en su ticket."
        }
        Code::Recibo005 => "Este ticket ya fue facturado. Si usted no lo facturó, comuníquese con el negocio.",
        Code::Recibo006 => {
            "Este ticket ya se incluyó en la factura global del negocio y no puede facturarse a su nombre."
        }
        Code::Recibo007 => "El plazo para facturar este ticket terminó.",
        Code::Recibo003 => "Este ticket fue cancelado por el negocio.",
        Code::Recibo001 | Code::Cliente001 => {
            "Revise sus datos fiscales: deben ser los de su Constancia de Situación Fiscal."
        }
        Code::Cfdi001 => {
            "El SAT no acepta estos datos juntos (por ejemplo, el uso del CFDI con su régimen, o el código postal). Revíselos en su Constancia de Situación Fiscal."
        }
        Code::Rate001 => "Demasiados códigos incorrectos desde esta conexión. Intente de nuevo más tarde.",
        _ => "No pudimos emitir la factura en este momento. Intente de nuevo más tarde.",
    };
    let campos: Vec<&str> = error
        .details
        .get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(error.details.get("problemas").and_then(Value::as_array).into_iter().flatten())
        .filter_map(|p| p.get("field").or_else(|| p.get("campo")).and_then(Value::as_str))
        .filter_map(etiqueta)
        .collect();
    html! {
        div.error role="alert" {
            p { strong { (texto) } }
            @if !campos.is_empty() {
                p { "Revise: " (campos.join(", ")) "." }
            }
        }
    }
}

/// The Spanish label of a field a refusal names.
fn etiqueta(campo: &str) -> Option<&'static str> {
    let campo = campo.to_lowercase();
    Some(if campo.contains("rfc") {
        "RFC"
    } else if campo.contains("razon") || campo.contains("nombre") {
        "razón social"
    } else if campo.contains("regimen") {
        "régimen fiscal"
    } else if campo.contains("codigopostal") || campo.contains("domicilio") {
        "código postal"
    } else if campo.contains("uso") {
        "uso del CFDI"
    } else if campo.contains("email") {
        "correo electrónico"
    } else {
        return None;
    })
}

fn form_clave(slug: &str, clave: Option<&str>) -> Markup {
    html! {
        form method="get" action={ "/autofactura/" (slug) } {
            div.campo {
                label for="campo-clave" { "Código de facturación" }
                small id="campo-clave-ayuda" { "Está impreso en su ticket: 10 letras y números." }
                input id="campo-clave" name="clave" type="text" value=[clave] required autocomplete="off"
                    autocapitalize="characters" aria-describedby="campo-clave-ayuda";
            }
            button type="submit" { "Buscar mi ticket" }
        }
    }
}

fn form_datos(slug: &str, token: &str, recibo: &ReciboRow, datos: &DatosCliente, error: Option<&ApiError>) -> Markup {
    let lineas: Vec<Value> = serde_json::from_str(&recibo.conceptos).unwrap_or_default();
    let regimenes: Vec<(&str, &str)> = RegimenFiscal::TODOS.iter().map(|r| (r.codigo(), r.descripcion())).collect();
    let txt = |v: &Value| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
    html! {
        section.ticket aria-label="Su ticket" {
            h2 { "Ticket " (recibo.folio) }
            table {
                thead { tr { th { "Descripción" } th { "Cantidad" } th { "Importe" } } }
                tbody {
                    @for l in &lineas {
                        tr { td { (txt(&l["descripcion"])) } td { (txt(&l["cantidad"])) } td { (txt(&l["importe"])) } }
                    }
                }
            }
            p { "Total: " strong { "$" (recibo.total.0) " " (recibo.moneda) } }
        }
        @if let Some(error) = error { (aviso_error(error)) }
        form method="post" action={ "/autofactura/" (slug) } {
            input type="hidden" name=(csrf::CAMPO) value=(token);
            input type="hidden" name="clave" value=(recibo.clave_autofactura);
            div.campo {
                label for="campo-rfc" { "RFC" }
                input id="campo-rfc" name="rfc" type="text" value=(datos.rfc) required autocapitalize="characters" maxlength="13";
            }
            div.campo {
                label for="campo-razonSocial" { "Razón social (como en su Constancia de Situación Fiscal)" }
                input id="campo-razonSocial" name="razonSocial" type="text" value=(datos.razon_social) required;
            }
            div.campo {
                label for="campo-regimenFiscal" { "Régimen fiscal" }
                select id="campo-regimenFiscal" name="regimenFiscal" required
                    hx-get={ "/autofactura/" (slug) "/usos" } hx-target="#campo-usoCfdi" hx-trigger="change" {
                    option value="" { "Elija su régimen" }
                    @for (codigo, descripcion) in &regimenes {
                        option value=(codigo) selected[*codigo == datos.regimen_fiscal] { (codigo) " — " (descripcion) }
                    }
                }
            }
            div.campo {
                label for="campo-codigoPostal" { "Código postal de su domicilio fiscal" }
                input id="campo-codigoPostal" name="codigoPostal" type="text" inputmode="numeric" maxlength="5"
                    value=(datos.codigo_postal) required;
            }
            div.campo {
                label for="campo-usoCfdi" { "Uso del CFDI" }
                select id="campo-usoCfdi" name="usoCfdi" required {
                    (opciones_uso(&datos.regimen_fiscal, Some(&datos.uso_cfdi)))
                }
            }
            div.campo {
                label for="campo-email" { "Correo electrónico (para enviarle la factura)" }
                input id="campo-email" name="email" type="email" value=[datos.email.as_deref()];
            }
            button type="submit" { "Emitir mi factura" }
        }
    }
}

/// `GET /autofactura/{slug}/marca.css`: the company's primary color (its PDFs', issue 32) for
/// the page's buttons, as a stylesheet (the pages' CSP allows no inline style), with text that
/// stays readable on it.
async fn marca_css(State(app): State<AppContext>, Path(slug): Path<String>) -> Response {
    let empresa = match empresa_de(&app, &slug).await {
        Ok(empresa) => empresa,
        Err(response) => return response,
    };
    let Some(color) = empresa.pdf_color_primario.as_deref().and_then(rgb) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (r, g, b) = color;
    // Perceived brightness (ITU-R BT.601 weights): dark text on a light color, white on a dark one.
    let brillo = (299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b)) / 1000;
    let texto = if brillo > 150 { "#1b1f24" } else { "#ffffff" };
    let css = format!(":root {{ --primario: #{r:02x}{g:02x}{b:02x}; --sobre-primario: {texto}; }}\n");
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], css).into_response()
}

/// `#RRGGBB` as its three channels (the stored color was checked when it was set).
fn rgb(color: &str) -> Option<(u8, u8, u8)> {
    let hex = color.strip_prefix('#').filter(|h| h.len() == 6 && h.is_ascii())?;
    let canal = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some((canal(0)?, canal(2)?, canal(4)?))
}

/// `GET /autofactura/{slug}/logo`: the company's logo as stored (re-encoded PNG, issue 32), the
/// same image its PDFs print; 404 without one or without an active page.
async fn logo(State(app): State<AppContext>, Path(slug): Path<String>) -> Response {
    let empresa = match empresa_de(&app, &slug).await {
        Ok(empresa) => empresa,
        Err(response) => return response,
    };
    match timbra_services::marca::logo(&app, &EmpresaId::from(&empresa.id)).await {
        Ok(Some(png)) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(error) => error_page(&error),
    }
}
