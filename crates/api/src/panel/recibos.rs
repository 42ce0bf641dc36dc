//! Sales tickets (issue 31): the list with its filter, a ticket's detail with the QR of its
//! self-invoicing link, the global invoice button, and the settings of the self-invoicing page
//! and the automatic global invoice with a preview of the public page drawn here (the public
//! page itself cannot be framed) and its QR. Each action is the API's handler called in process.

use std::collections::HashMap;

use axum::Router;
use axum::extract::{Path as AxumPath, Query, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use maud::{Markup, PreEscaped, html};
use serde_json::{Value, json};

use super::layout::{Contexto, Errores, Tipo, caja_errores, campo_con, contexto, csrf_oculto, pagina, seleccion};
use super::{Campos, Formulario, Pagina, datos, html_con, html_ok, redirigir, texto};
use crate::envelope::{Json, Path, Query as ApiQuery};
use crate::extract::Auth;
use crate::routes::{empresas, recibos};
use timbra_services::context::AppContext;

/// Path of the tickets' page.
pub const RUTA: &str = "/panel/recibos";

/// Routes of the tickets' pages.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route(RUTA, get(lista))
        .route("/panel/recibos/global", post(global))
        .route("/panel/recibos/ajustes", post(ajustes))
        .route("/panel/recibos/{id}", get(detalle))
}

fn estado(status: &str) -> &str {
    match status {
        "ABIERTO" => "Abierto",
        "FACTURADO" => "Facturado al cliente",
        "GLOBAL" => "En factura global",
        "CANCELADO" => "Cancelado",
        otro => otro,
    }
}

fn qr(texto: &str) -> Markup {
    match timbra_pdf::qr_svg(texto) {
        // The SVG is ours (no text of the person in it but the link, encoded as modules).
        Some(svg) => html! { div.qr { (PreEscaped(svg)) } },
        None => html! {},
    }
}

struct Datos {
    recibos: Value,
    empresa: Value,
}

async fn leer(
    app: &AppContext,
    ctx: &Contexto,
    headers: &HeaderMap,
    status: Option<String>,
) -> Result<Datos, super::Fallo> {
    let (state, caller, empresa) = ctx.para_api(app)?;
    let params = ApiQuery(recibos::ListRecibosParams::de(status));
    let lista =
        datos(recibos::listar(state, Auth(caller.clone()), empresa.clone(), headers.clone(), params).await?).await?;
    let e = datos(empresas::get(State(app.clone()), Auth(caller), Path(empresa.0)).await?).await?;
    Ok(Datos { recibos: lista, empresa: e })
}

fn pagina_lista(
    ctx: &Contexto,
    d: &Datos,
    aviso: Option<&str>,
    campos: &Campos,
    errores: &Errores,
    base: &str,
) -> Markup {
    let items = d.recibos["items"].as_array().cloned().unwrap_or_default();
    let af = &d.empresa["autofactura"];
    let fg = &d.empresa["facturaGlobal"];
    let slug = texto(af, "slug");
    let ejemplo = (!slug.is_empty()).then(|| format!("{base}/autofactura/{slug}"));
    let ahora = time::OffsetDateTime::now_utc().to_offset(timbra_services::cfdi::OFFSET_CENTRO);
    let mes = format!("{:02}", u8::from(ahora.month()));
    let ano = ahora.year().to_string();
    let valor = |k: &str, defecto: &str| campos.valor(k).unwrap_or(defecto).to_owned();
    let periodicidades =
        [("01", "Diaria"), ("02", "Semanal"), ("03", "Quincenal"), ("04", "Mensual"), ("05", "Bimestral")];
    let contenido = html! {
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        (caja_errores(errores))
        p { "Los tickets de venta se registran con " code { "POST /api/recibos" } ". Su cliente los factura en la página pública; "
            "lo que nadie facture va a la factura global a PUBLICO EN GENERAL." }
        form method="get" action=(RUTA) {
            (seleccion("status", "Estado", &[("", "Todos"), ("ABIERTO", "Abiertos"), ("FACTURADO", "Facturados"), ("GLOBAL", "En factura global"), ("CANCELADO", "Cancelados")], campos.valor("status"), &Errores::default()))
            button type="submit" { "Filtrar" }
        }
        @if items.is_empty() {
            p { "No hay tickets." }
        } @else {
            table.apilada {
                caption { "Tickets (" (d.recibos["total"]) ")" }
                thead { tr { th scope="col" { "Folio" } th scope="col" { "Fecha" } th scope="col" { "Total" } th scope="col" { "Estado" } th scope="col" { "Código" } } }
                tbody {
                    @for r in &items {
                        tr {
                            td data-titulo="Folio" { a href={ (RUTA) "/" (texto(r, "id")) } { (texto(r, "folio")) } }
                            td data-titulo="Fecha" { (texto(r, "fecha")) }
                            td data-titulo="Total" { "$" (texto(r, "total")) " " (texto(r, "moneda")) }
                            td data-titulo="Estado" { (estado(texto(r, "status"))) }
                            td data-titulo="Código" { code { (texto(r, "claveAutofactura")) } }
                        }
                    }
                }
            }
        }
        section aria-labelledby="global" {
            h2 id="global" { "Factura global" }
            p { "Timbra una factura a PUBLICO EN GENERAL con los tickets abiertos del periodo." }
            form method="post" action="/panel/recibos/global" {
                (csrf_oculto(&ctx.sesion))
                (seleccion("periodicidad", "Periodicidad", &periodicidades, Some(&valor("periodicidad", "04")), errores))
                (campo_con("meses", "Mes (01 a 12; 13 a 18 bimestres)", Tipo::Texto, Some(&valor("meses", &mes)), true, errores, None))
                (campo_con("año", "Año", Tipo::Texto, Some(&valor("año", &ano)), true, errores, None))
                button type="submit" { "Timbrar factura global" }
            }
        }
        section aria-labelledby="ajustes" {
            h2 id="ajustes" { "Autofacturación y factura global automática" }
            form method="post" action="/panel/recibos/ajustes" {
                (csrf_oculto(&ctx.sesion))
                (campo_con("slug", "Dirección de su página", Tipo::Texto, Some(slug), false, errores, Some("Letras minúsculas, números y guiones: /autofactura/mi-tienda")))
                (campo_con("diasVigencia", "Días para facturar un ticket", Tipo::Texto,
                    af["diasVigencia"].as_i64().map(|d| d.to_string()).as_deref(), false, errores, Some("Vacío: hasta el fin del mes del ticket")))
                div.campo { div {
                    input type="checkbox" name="activa" value="true" id="campo-activa" checked[af["activa"].as_bool().unwrap_or(true)];
                    label for="campo-activa" { "Página activa" }
                } }
                div.campo { div {
                    input type="checkbox" name="automatica" value="true" id="campo-automatica" checked[fg["automatica"].as_bool().unwrap_or(false)];
                    label for="campo-automatica" { "Timbrar la factura global de cada periodo cerrado automáticamente" }
                } }
                (seleccion("periodicidadGlobal", "Periodicidad de la automática", &periodicidades, fg["periodicidad"].as_str(), errores))
                button type="submit" { "Guardar" }
            }
            @if let Some(url) = &ejemplo {
                h3 { "Vista previa de su página" }
                p { "Sus clientes abren " a href=(url) { (url) } " o escanean este código:" }
                (qr(url))
                div.vista-previa aria-label="Vista previa de la página pública" {
                    p.marca { (texto(&d.empresa, "razonSocial")) }
                    h1 { "Facturación de su compra" }
                    div.campo { label { "Código de facturación" } small { "Está impreso en su ticket: 10 letras y números." } input type="text" disabled; }
                    button type="button" disabled { "Buscar mi ticket" }
                }
            }
        }
    };
    pagina(ctx, "Tickets", RUTA, contenido)
}

fn base(app: &AppContext, headers: &HeaderMap) -> String {
    recibos::url_publica(app, headers)
}

/// `GET /panel/recibos`.
async fn lista(
    State(app): State<AppContext>,
    sesion: super::Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let status = params.get("status").filter(|s| !s.is_empty()).cloned();
    let d = leer(&app, &ctx, &headers, status.clone()).await?;
    let aviso = match params.get("hecho").map(String::as_str) {
        Some("global") => Some("Factura global timbrada: sus tickets quedaron en ella."),
        Some("ajustes") => Some("Cambios guardados."),
        _ => None,
    };
    let campos = Campos(status.map(|s| vec![("status".to_owned(), s)]).unwrap_or_default());
    Ok(html_ok(pagina_lista(&ctx, &d, aviso, &campos, &Errores::default(), &base(&app, &headers))))
}

/// `POST /panel/recibos/global`: the API's global invoice.
async fn global(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let (state, caller, empresa) = ctx.para_api(&app)?;
    let body = json!({ "periodicidad": campos.valor("periodicidad"), "meses": campos.valor("meses"), "año": campos.valor("año") });
    let bytes = axum::body::Bytes::from(body.to_string());
    let respuesta = recibos::global::timbrar(state, Auth(caller), empresa, HeaderMap::new(), bytes).await;
    match respuesta {
        Ok(r) if r.status().is_success() => Ok(redirigir(&format!("{RUTA}?hecho=global"))),
        Ok(r) => {
            let error = datos_error(r).await;
            let d = leer(&app, &ctx, &headers, None).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &d, None, &campos, &errores, &base(&app, &headers))))
        }
        Err(error) => {
            let d = leer(&app, &ctx, &headers, None).await?;
            let errores = Errores::de(error.0);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &d, None, &campos, &errores, &base(&app, &headers))))
        }
    }
}

/// The error of an envelope answered with a non-success status.
async fn datos_error(response: axum::response::Response) -> timbra_services::error::ApiError {
    use http_body_util::BodyExt;
    let status = response.status();
    let bytes = response.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let code = timbra_services::error::Code::ALL
        .iter()
        .copied()
        .find(|c| c.as_str() == texto(&value["error"], "code"))
        .unwrap_or(timbra_services::error::Code::Internal);
    let mut error = timbra_services::error::ApiError::new(code, texto(&value["error"], "message").to_owned());
    error.details = value["error"]["details"].clone();
    if error.details.is_null() {
        error.details = json!({});
    }
    let _ = status;
    error
}

/// `POST /panel/recibos/ajustes`: the company's settings through `PATCH /api/empresas/{id}`.
async fn ajustes(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let (_, caller, empresa) = ctx.para_api(&app)?;
    let dias =
        campos.valor("diasVigencia").map(|d| d.parse::<i64>().map(Value::from).unwrap_or(Value::String(d.to_owned())));
    let body = json!({
        "autofactura": { "slug": campos.valor("slug"), "diasVigencia": dias, "activa": campos.valor("activa").is_some() },
        "facturaGlobal": { "automatica": campos.valor("automatica").is_some(), "periodicidad": campos.valor("periodicidadGlobal").unwrap_or("04") },
    });
    let cuerpo: empresas::UpdateEmpresaBody = super::cuerpo(body)?;
    match empresas::update(State(app.clone()), Auth(caller), Path(empresa.0.clone()), Json(cuerpo)).await {
        Ok(_) => Ok(redirigir(&format!("{RUTA}?hecho=ajustes"))),
        Err(error) => {
            let d = leer(&app, &ctx, &headers, None).await?;
            let errores = Errores::de(error.0);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &d, None, &campos, &errores, &base(&app, &headers))))
        }
    }
}

/// `GET /panel/recibos/{id}`.
async fn detalle(
    State(app): State<AppContext>,
    sesion: super::Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let (state, caller, empresa) = ctx.para_api(&app)?;
    let r = datos(recibos::obtener(state, Auth(caller), empresa, headers.clone(), Path(id)).await?).await?;
    let lineas = r["conceptos"].as_array().cloned().unwrap_or_default();
    let txt = |v: &Value| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
    let contenido = html! {
        dl {
            dt { "Folio" } dd { (texto(&r, "folio")) }
            dt { "Fecha" } dd { (texto(&r, "fecha")) }
            dt { "Estado" } dd { (estado(texto(&r, "status"))) }
            dt { "Forma de pago" } dd { (texto(&r, "formaPago")) }
            dt { "Subtotal" } dd { "$" (texto(&r, "subtotal")) }
            dt { "Total" } dd { "$" (texto(&r, "total")) " " (texto(&r, "moneda")) }
            dt { "Código de facturación" } dd { code { (texto(&r, "claveAutofactura")) } }
            dt { "Vence" } dd { (texto(&r, "autofacturaVence")) }
            @if let Some(cfdi) = r["cfdiId"].as_str() {
                dt { "Factura" } dd { a href={ "/panel/facturas/" (cfdi) } { (cfdi) } }
            }
        }
        table.apilada {
            caption { "Conceptos (precios sin impuestos)" }
            thead { tr { th scope="col" { "Descripción" } th scope="col" { "Cantidad" } th scope="col" { "Precio" } th scope="col" { "Importe" } } }
            tbody {
                @for l in &lineas {
                    tr {
                        td data-titulo="Descripción" { (txt(&l["descripcion"])) }
                        td data-titulo="Cantidad" { (txt(&l["cantidad"])) }
                        td data-titulo="Precio" { (txt(&l["precioUnitario"])) }
                        td data-titulo="Importe" { (txt(&l["importe"])) }
                    }
                }
            }
        }
        @if let Some(url) = r["urlAutofactura"].as_str() {
            p { "Enlace de autofacturación: " a href=(url) { (url) } }
            (qr(url))
        } @else {
            p { "Configure la dirección de su página de autofacturación en " a href=(RUTA) { "Tickets" } " para imprimir el enlace y su QR." }
        }
    };
    Ok(html_ok(pagina(&ctx, &format!("Ticket {}", texto(&r, "folio")), RUTA, contenido)))
}
