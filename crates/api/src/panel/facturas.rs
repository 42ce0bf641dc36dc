//! Invoices: the stamp form with its live preview, the list, the detail page, XML and PDF
//! downloads and cancellation.
//!
//! The preview runs the stamping code's own preparation
//! ([`preparar_factura`](crate::routes::cfdi::timbrar::preparar_factura): the cfdi crate's validation,
//! tax and rounding rules) on the form as typed and shows the comprobante's totals, so what
//! the person sees is what the stamp will carry; the browser does no arithmetic.

use std::collections::HashMap;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as AxumPath, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use serde_json::{Value, json};

use super::catalogos::Catalogo;
use super::layout::{Contexto, Errores, caja_errores, contexto, csrf_oculto, error_api, pagina};
use super::{Campos, Formulario, Pagina, Session, cuerpo, datos, html_con, html_ok, pesos, pesos_de, redirigir, texto};
use crate::envelope::{Path, Query as ApiQuery};
use crate::extract::EmpresaHeader;
use crate::routes::cfdi;
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;

/// Routes of the invoices' pages.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route("/panel/facturas", get(lista).post(timbrar))
        .route("/panel/facturas/nueva", get(nueva))
        .route("/panel/facturas/vista-previa", post(vista_previa))
        .route("/panel/facturas/{id}", get(detalle))
        .route("/panel/facturas/{id}/xml", get(descargar_xml))
        .route("/panel/facturas/{id}/pdf", get(descargar_pdf))
        .route("/panel/facturas/{id}/cancelar", post(cancelar))
        .route("/panel/facturas/{id}/correo", post(enviar_correo))
}

const FORMAS_PAGO: &[(&str, &str)] = &[
    ("03", "03 Transferencia electrónica"),
    ("01", "01 Efectivo"),
    ("02", "02 Cheque nominativo"),
    ("04", "04 Tarjeta de crédito"),
    ("28", "28 Tarjeta de débito"),
    ("99", "99 Por definir"),
];

const METODOS_PAGO: &[(&str, &str)] =
    &[("PUE", "PUE Pago en una sola exhibición"), ("PPD", "PPD Pago en parcialidades o diferido")];

const TASAS_IVA: &[(&str, &str)] = &[
    ("0.160000", "IVA 16%"),
    ("0.080000", "IVA 8% (frontera)"),
    ("0.000000", "IVA 0%"),
    ("exento", "IVA exento"),
    ("no-objeto", "No objeto de impuesto"),
];

const RETENCIONES_ISR: &[(&str, &str)] =
    &[("", "Sin retención de ISR"), ("0.100000", "ISR 10%"), ("0.012500", "ISR 1.25% (RESICO)")];

const RETENCIONES_IVA: &[(&str, &str)] =
    &[("", "Sin retención de IVA"), ("0.106667", "IVA retenido 2/3"), ("0.040000", "IVA retenido 4% (fletes)")];

const MOTIVOS: &[(&str, &str)] = &[
    ("02", "02 Comprobante emitido con errores sin relación"),
    ("01", "01 Comprobante emitido con errores con relación (requiere folio de sustitución)"),
    ("03", "03 No se llevó a cabo la operación"),
    ("04", "04 Operación nominativa relacionada en una factura global"),
];

/// Fields of one invoice line, in the form.
const CAMPOS_LINEA: &[&str] = &[
    "descripcion",
    "claveProdServ",
    "claveUnidad",
    "cantidad",
    "precioUnitario",
    "descuento",
    "tasaIva",
    "retIsr",
    "retIva",
];

/// The API's stamping body (`POST /api/cfdi/timbrar`) of the form.
fn cuerpo_factura(campos: &Campos) -> Value {
    let columnas: HashMap<&str, Vec<&str>> = CAMPOS_LINEA.iter().map(|name| (*name, campos.todos(name))).collect();
    let lineas = columnas.get("descripcion").map_or(0, Vec::len);
    let valor = |name: &str, i: usize| -> Option<String> {
        columnas.get(name).and_then(|col| col.get(i)).filter(|v| !v.is_empty()).map(|v| (*v).to_owned())
    };
    let mut conceptos = Vec::new();
    for i in 0..lineas {
        let mut concepto = json!({
            "descripcion": valor("descripcion", i),
            "claveProdServ": valor("claveProdServ", i),
            "claveUnidad": valor("claveUnidad", i),
            "cantidad": valor("cantidad", i),
            "precioUnitario": valor("precioUnitario", i),
        });
        if let Some(descuento) = valor("descuento", i) {
            concepto["descuento"] = json!(descuento);
        }
        let tasa = valor("tasaIva", i).unwrap_or_else(|| "0.160000".to_owned());
        if tasa == "no-objeto" {
            concepto["objetoImpuesto"] = json!("01");
        } else {
            concepto["objetoImpuesto"] = json!("02");
            let traslado = if tasa == "exento" {
                json!({ "impuesto": "IVA", "tipoFactor": "Exento" })
            } else {
                json!({ "impuesto": "IVA", "tipoFactor": "Tasa", "tasaOCuota": tasa })
            };
            let mut retenciones = Vec::new();
            if let Some(isr) = valor("retIsr", i) {
                retenciones.push(json!({ "impuesto": "ISR", "tipoFactor": "Tasa", "tasaOCuota": isr }));
            }
            if let Some(iva) = valor("retIva", i) {
                retenciones.push(json!({ "impuesto": "IVA", "tipoFactor": "Tasa", "tasaOCuota": iva }));
            }
            concepto["impuestos"] = json!({ "traslados": [traslado], "retenciones": retenciones });
        }
        conceptos.push(concepto);
    }
    let mut body = json!({
        "formaPago": campos.valor("formaPago"),
        "metodoPago": campos.valor("metodoPago"),
        "conceptos": conceptos,
    });
    if let Some(cliente) = campos.valor("clienteId") {
        body["clienteId"] = json!(cliente);
    }
    if let Some(uso) = campos.valor("usoCfdi") {
        body["usoCfdi"] = json!(uso);
    }
    body
}

fn seleccion_linea(nombre: &str, etiqueta: &str, n: usize, opciones: &[(&str, &str)], valor: Option<&str>) -> Markup {
    let id = format!("{nombre}-{n}");
    html! {
        div.campo {
            label for=(id) { (etiqueta) }
            select id=(id) name=(nombre) {
                @for (value, text) in opciones { option value=(value) selected[Some(*value) == valor] { (text) } }
            }
        }
    }
}

fn entrada_linea(
    nombre: &str,
    etiqueta: &str,
    n: usize,
    valor: Option<&str>,
    inicial: Option<&str>,
    decimal: bool,
    errores: &Errores,
) -> Markup {
    let id = format!("{nombre}-{n}");
    let problemas = errores.de_campo(&format!("conceptos[{}].{nombre}", n - 1));
    html! {
        div.campo {
            label for=(id) { (etiqueta) }
            input id=(id) name=(nombre) type="text" inputmode=[decimal.then_some("decimal")]
                value=[valor.or(inicial)] data-inicial=[inicial]
                aria-invalid=[(!problemas.is_empty()).then_some("true")];
            @if !problemas.is_empty() { ul.problemas { @for p in problemas { li { (p) } } } }
        }
    }
}

fn linea(n: usize, productos: &[Value], campos: &Campos, errores: &Errores) -> Markup {
    let valor = |name: &str| campos.todos(name).get(n - 1).copied().filter(|v| !v.is_empty());
    html! {
        fieldset.concepto {
            legend { "Concepto " (n) }
            div.linea {
                div.campo {
                    label for={ "producto-" (n) } { "Producto" }
                    select id={ "producto-" (n) } data-producto {
                        option value="" { "— Escriba los datos o elija un producto —" }
                        @for p in productos {
                            option value=(texto(p, "id"))
                                data-descripcion=(texto(p, "descripcion"))
                                data-preciounitario=(p.get("precioUnitario").map(Value::to_string).unwrap_or_default())
                                data-claveprodserv=(texto(p, "claveProdServ"))
                                data-claveunidad=(texto(p, "claveUnidad"))
                                data-tasaiva=(tasa_de_producto(p)) { (texto(p, "descripcion")) }
                        }
                    }
                }
                (entrada_linea("descripcion", "Descripción", n, valor("descripcion"), None, false, errores))
                (entrada_linea("cantidad", "Cantidad", n, valor("cantidad"), Some("1"), true, errores))
                (entrada_linea("precioUnitario", "Precio unitario", n, valor("precioUnitario"), None, true, errores))
                (entrada_linea("descuento", "Descuento", n, valor("descuento"), None, true, errores))
                (entrada_linea("claveProdServ", "Clave producto/servicio", n, valor("claveProdServ"), Some("01010101"), false, errores))
                (entrada_linea("claveUnidad", "Clave unidad", n, valor("claveUnidad"), Some("E48"), false, errores))
                (seleccion_linea("tasaIva", "IVA", n, TASAS_IVA, valor("tasaIva")))
                (seleccion_linea("retIsr", "Retención ISR", n, RETENCIONES_ISR, valor("retIsr")))
                (seleccion_linea("retIva", "Retención IVA", n, RETENCIONES_IVA, valor("retIva")))
                button.secundario type="button" data-quitar-linea { "Quitar concepto" }
            }
        }
    }
}

/// A product's IVA rate as the form's option value (`0.160000`).
fn tasa_de_producto(producto: &Value) -> String {
    let text = producto.get("ivaRate").map(Value::to_string).unwrap_or_default();
    match text.trim_matches('"').parse::<rust_decimal::Decimal>() {
        Ok(rate) => format!("{:.6}", rate),
        Err(_) => "0.160000".to_owned(),
    }
}

async fn pagina_nueva(
    app: &AppContext,
    ctx: &Contexto,
    campos: &Campos,
    errores: &Errores,
    previa: Markup,
) -> Result<Markup, super::Fallo> {
    let empresa = ctx.empresa()?;
    let clientes = Catalogo::Clientes.listar(app, &ctx.sesion, &empresa.id, json!({ "pageSize": 100 })).await?;
    let productos = Catalogo::Productos.listar(app, &ctx.sesion, &empresa.id, json!({ "pageSize": 100 })).await?;
    let clientes = clientes.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    let productos = productos.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    let lineas = campos.todos("descripcion").len().max(1);
    let cliente = campos.valor("clienteId");
    let contenido = html! {
        (caja_errores(errores))
        @for (campo, mensaje) in errores.con_prefijo("") {
            @if !campo.starts_with("conceptos[") && !matches!(campo.as_str(), "clienteId" | "formaPago" | "metodoPago") {
                p.problemas { (campo) ": " (mensaje) }
            }
        }
        form id="factura" method="post" action="/panel/facturas"
            hx-post="/panel/facturas/vista-previa" hx-trigger="input delay:400ms, change" hx-target="#totales" hx-swap="innerHTML" {
            (csrf_oculto(&ctx.sesion))
            fieldset {
                legend { "Receptor y pago" }
                div.linea {
                    div.campo {
                        label for="clienteId" { "Cliente" }
                        select id="clienteId" name="clienteId" {
                            option value="" { "Público en general (XAXX010101000)" }
                            @for c in &clientes {
                                option value=(texto(c, "id")) selected[Some(texto(c, "id")) == cliente] {
                                    (texto(c, "razonSocial")) " (" (texto(c, "rfc")) ")"
                                }
                            }
                        }
                        @for p in errores.de_campo("clienteId") { p.problemas { (p) } }
                    }
                    (seleccion_linea("formaPago", "Forma de pago", 0, FORMAS_PAGO, campos.valor("formaPago")))
                    (seleccion_linea("metodoPago", "Método de pago", 0, METODOS_PAGO, campos.valor("metodoPago")))
                }
            }
            div id="lineas" {
                @for n in 1..=lineas { (linea(n, &productos, campos, errores)) }
            }
            p { button.secundario type="button" data-agregar-linea { "Agregar concepto" } }
            section aria-labelledby="titulo-totales" {
                h2 id="titulo-totales" { "Totales" }
                div id="totales" aria-live="polite" { (previa) }
            }
            button type="submit" { "Timbrar factura" }
        }
    };
    Ok(pagina(ctx, "Nueva factura", "/panel/facturas", contenido))
}

/// `GET /panel/facturas/nueva`.
pub async fn nueva(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let previa = html! { p { "Escriba los conceptos: los totales se calculan al escribir." } };
    Ok(html_ok(pagina_nueva(&app, &ctx, &Campos::default(), &Errores::default(), previa).await?))
}

/// The totals of the comprobante the form would stamp, or what keeps it from being built.
async fn calcular(app: &AppContext, sesion: &Session, empresa_id: &str, campos: &Campos) -> Markup {
    let factura = async {
        sesion.caller.authorize(app, empresa_id, Permission::CfdiTimbrar).await?;
        let body = cuerpo(cuerpo_factura(campos))?;
        cfdi::timbrar::preparar_factura(app, empresa_id, body, app.clock.now()).await
    }
    .await;
    let factura = match factura {
        Ok(factura) => factura,
        Err(error) => {
            let errores = Errores::de(error.0);
            return html! {
                p { "Aún no se puede calcular:" }
                @if errores.con_prefijo("").is_empty() {
                    @if let Some(error) = &errores.error { (error_api(error)) }
                } @else {
                    ul.problemas {
                        @for (campo, mensaje) in errores.con_prefijo("") { li { (nombre_campo(&campo)) ": " (mensaje) } }
                    }
                }
            };
        }
    };
    let c = &factura.preparado.comprobante;
    let importe = |n: &timbra_cfdi::Numero| n.valor().map_or_else(|_| n.texto().to_owned(), pesos);
    let impuestos = c.impuestos.as_ref();
    html! {
        table.totales {
            caption.oculto { "Totales de la factura" }
            tbody {
                @for (i, concepto) in c.conceptos.iter().enumerate() {
                    tr { th scope="row" { "Concepto " (i + 1) } td { (importe(&concepto.importe)) } }
                }
                tr { th scope="row" { "Subtotal" } td data-total="subtotal" { (importe(&c.sub_total)) } }
                @if let Some(descuento) = &c.descuento { tr { th scope="row" { "Descuento" } td { "−" (importe(descuento)) } } }
                @if let Some(t) = impuestos.and_then(|i| i.total_impuestos_trasladados.as_ref()) {
                    tr { th scope="row" { "Impuestos trasladados" } td data-total="trasladados" { (importe(t)) } }
                }
                @if let Some(r) = impuestos.and_then(|i| i.total_impuestos_retenidos.as_ref()) {
                    tr { th scope="row" { "Impuestos retenidos" } td data-total="retenidos" { "−" (importe(r)) } }
                }
                tr.total { th scope="row" { "Total" } td data-total="total" { (importe(&c.total)) } }
            }
        }
    }
}

/// A field path of the API in words (`conceptos[0].cantidad` → "Concepto 1, cantidad").
fn nombre_campo(campo: &str) -> String {
    if let Some(rest) = campo.strip_prefix("conceptos[")
        && let Some((n, field)) = rest.split_once("].")
        && let Ok(n) = n.parse::<usize>()
    {
        return format!("Concepto {}, {}", n + 1, field);
    }
    campo.to_owned()
}

/// `POST /panel/facturas/vista-previa` (htmx, as the person types): the totals fragment.
pub async fn vista_previa(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    Ok(html_ok(calcular(&app, &ctx.sesion, &empresa_id, &campos).await))
}

/// `POST /panel/facturas`: the API's stamping handler with the form as its body.
pub async fn timbrar(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let body = Bytes::from(cuerpo_factura(&campos).to_string());
    let answer = cfdi::timbrar::timbrar(
        State(app.clone()),
        crate::extract::Auth(ctx.sesion.caller.clone()),
        EmpresaHeader(empresa_id.clone()),
        HeaderMap::new(),
        body,
    )
    .await;
    let result = match answer {
        Ok(answer) => datos(answer).await,
        Err(error) => Err(error),
    };
    match result {
        Ok(timbrada) => {
            Ok(redirigir(&format!("/panel/facturas/{}?aviso=factura-timbrada", texto(&timbrada, "cfdiId"))))
        }
        Err(error) => {
            let previa = calcular(&app, &ctx.sesion, &empresa_id, &campos).await;
            let errores = Errores::de(error.0);
            Ok(html_con(errores.status(), pagina_nueva(&app, &ctx, &campos, &errores, previa).await?))
        }
    }
}

fn estado(factura: &Value) -> String {
    let status = texto(factura, "status");
    let base = match status {
        "TIMBRADO_SANDBOX" => "Timbrada (pruebas)",
        "TIMBRADO" => "Timbrada",
        "CANCELADO" => "Cancelada",
        other => other,
    };
    match factura.get("cancellationStatus").and_then(Value::as_str) {
        Some("SOLICITADA") => format!("{base} · cancelación solicitada"),
        Some("PENDIENTE") => format!("{base} · cancelación pendiente de aceptación del receptor"),
        Some("RECHAZADA") => format!("{base} · cancelación rechazada por el receptor"),
        Some("SIN_ACEPTACION") => format!("{base} (sin aceptación del receptor)"),
        Some("ACEPTADA") => format!("{base} (aceptada por el receptor)"),
        Some("PLAZO_VENCIDO") => format!("{base} (plazo de aceptación vencido)"),
        _ => base.to_owned(),
    }
}

/// `GET /panel/facturas`: the list with filters and search.
pub async fn lista(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let empresa = ctx.empresa()?;
    let filtro = |name: &str| params.get(name).map(String::as_str).filter(|v| !v.is_empty());
    let page = filtro("page").and_then(|p| p.parse::<i64>().ok()).unwrap_or(1);
    let query = json!({
        "page": page, "limit": 25, "tipo": "EMITIDA",
        "status": filtro("status"), "search": filtro("search"), "desde": filtro("desde"), "hasta": filtro("hasta"),
    });
    let resultado = async {
        let params = ApiQuery(cuerpo(query)?);
        datos(
            cfdi::listar::list(
                State(app.clone()),
                crate::extract::Auth(ctx.sesion.caller.clone()),
                EmpresaHeader(empresa.id.clone()),
                params,
            )
            .await?,
        )
        .await
    }
    .await;
    let (lista, error) = match resultado {
        Ok(lista) => (lista, None),
        Err(error) => (Value::Null, Some(error)),
    };
    let facturas = lista.get("cfdis").and_then(Value::as_array).cloned().unwrap_or_default();
    let filtros: String = ["status", "search", "desde", "hasta"]
        .iter()
        .filter_map(|name| filtro(name).map(|v| format!("&{name}={}", urlencoding::encode(v))))
        .collect();
    let contenido = html! {
        p { a.boton href="/panel/facturas/nueva" { "Nueva factura" } }
        form.busqueda method="get" action="/panel/facturas" role="search" {
            div.campo { label for="search" { "Buscar (UUID, folio, RFC o nombre)" } input id="search" name="search" type="search" value=[filtro("search")]; }
            div.campo {
                label for="status" { "Estado" }
                select id="status" name="status" {
                    @for (value, text) in [("", "Todas"), ("TIMBRADO", "Vigentes"), ("CANCELADO", "Canceladas")] {
                        option value=(value) selected[filtro("status").unwrap_or("") == value] { (text) }
                    }
                }
            }
            div.campo { label for="desde" { "Desde" } input id="desde" name="desde" type="date" value=[filtro("desde")]; }
            div.campo { label for="hasta" { "Hasta" } input id="hasta" name="hasta" type="date" value=[filtro("hasta")]; }
            button type="submit" { "Filtrar" }
        }
        @if let Some(error) = &error { (error_api(error)) }
        @if facturas.is_empty() {
            p { "No hay facturas con estos filtros." }
        } @else {
            table.apilada {
                caption { "Facturas emitidas" }
                thead { tr {
                    th scope="col" { "Folio fiscal (UUID)" } th scope="col" { "Serie y folio" } th scope="col" { "Fecha" }
                    th scope="col" { "Receptor" } th.importe scope="col" { "Total" } th scope="col" { "Estado" }
                } }
                tbody {
                    @for f in &facturas {
                        tr {
                            td.uuid data-titulo="UUID" { a href={ "/panel/facturas/" (texto(f, "id")) } { (texto(f, "uuid")) } }
                            td data-titulo="Serie y folio" { (texto(f, "serie")) "-" (texto(f, "folio")) }
                            td data-titulo="Fecha" { (texto(f, "fecha").replace('T', " ")) }
                            td data-titulo="Receptor" { (texto(f, "receptorNombre")) br; small { (texto(f, "receptorRfc")) } }
                            td.importe data-titulo="Total" { (pesos_de(&f["total"])) }
                            td data-titulo="Estado" { (estado(f)) }
                        }
                    }
                }
            }
            nav.paginas aria-label="Páginas" {
                span { (lista.get("total").and_then(Value::as_i64).unwrap_or(0)) " en total · página " (page) }
                @if page > 1 { a href={ "/panel/facturas?page=" (page - 1) (filtros) } rel="prev" { "← Anterior" } }
                @if lista.get("hasMore").and_then(Value::as_bool).unwrap_or(false) {
                    a href={ "/panel/facturas?page=" (page + 1) (filtros) } rel="next" { "Siguiente →" }
                }
            }
        }
    };
    Ok(html_ok(pagina(&ctx, "Facturas", "/panel/facturas", contenido)))
}

async fn leer(app: &AppContext, ctx: &Contexto, id: &str) -> Result<Value, crate::error::HttpError> {
    let empresa_id = ctx.empresa.as_ref().map(|e| e.id.clone()).unwrap_or_default();
    datos(
        cfdi::obtener::get(
            State(app.clone()),
            crate::extract::Auth(ctx.sesion.caller.clone()),
            EmpresaHeader(empresa_id),
            Path(id.to_owned()),
        )
        .await?,
    )
    .await
}

/// The e-mail sendings of invoice `id` (read after [`leer`] found it for the caller).
async fn correos_de(app: &AppContext, ctx: &Contexto, id: &str) -> Vec<timbra_store::correos::CorreoRow> {
    let empresa_id = ctx.empresa.as_ref().map(|e| e.id.clone()).unwrap_or_default();
    let Ok(mut conn) = app.db.conn().await else { return Vec::new() };
    timbra_store::correos::de_cfdi(&mut conn, &empresa_id, id).await.unwrap_or_default()
}

fn pagina_detalle(
    ctx: &Contexto,
    f: &Value,
    correos: &[timbra_store::correos::CorreoRow],
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let id = texto(f, "id");
    let vigente = matches!(texto(f, "status"), "TIMBRADO" | "TIMBRADO_SANDBOX")
        && !matches!(f.get("cancellationStatus").and_then(Value::as_str), Some("SOLICITADA" | "PENDIENTE"));
    let contenido = html! {
        dl.datos {
            dt { "Folio fiscal (UUID)" } dd.uuid id="uuid" { (texto(f, "uuid")) }
            dt { "Serie y folio" } dd { (texto(f, "serie")) "-" (texto(f, "folio")) }
            dt { "Fecha" } dd { (texto(f, "fecha").replace('T', " ")) }
            dt { "Receptor" } dd { (texto(f, "receptorNombre")) " (" (texto(f, "receptorRfc")) ")" }
            dt { "Forma y método de pago" } dd { (texto(f, "formaPago")) " · " (texto(f, "metodoPago")) }
            dt { "Subtotal" } dd { (pesos_de(&f["subtotal"])) }
            dt { "Total" } dd { strong { (pesos_de(&f["total"])) } " " (texto(f, "moneda")) }
            dt { "Estado" } dd id="estado" { (estado(f)) }
        }
        p.acciones {
            a.boton href={ "/panel/facturas/" (id) "/pdf" } download { "Descargar PDF" }
            a.boton href={ "/panel/facturas/" (id) "/xml" } download { "Descargar XML" }
            button.secundario type="button" data-copiar="#uuid" { "Copiar UUID" }
        }
        @if let Some(conceptos) = f.get("conceptos").and_then(Value::as_array) {
            table.apilada {
                caption { "Conceptos" }
                thead { tr { th scope="col" { "Descripción" } th scope="col" { "Cantidad" } th.importe scope="col" { "Precio unitario" } th.importe scope="col" { "Importe" } } }
                tbody {
                    @for c in conceptos {
                        tr {
                            td data-titulo="Descripción" { (texto(c, "descripcion")) }
                            td data-titulo="Cantidad" { (c.get("cantidad").map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).unwrap_or_default()) }
                            td.importe data-titulo="Precio unitario" { (pesos_de(c.get("valorUnitario").or(c.get("precioUnitario")).unwrap_or(&Value::Null))) }
                            td.importe data-titulo="Importe" { (pesos_de(c.get("importe").unwrap_or(&Value::Null))) }
                        }
                    }
                }
            }
        }
        section aria-labelledby="correo" {
            h2 id="correo" { "Enviar por correo" }
            form method="post" action={ "/panel/facturas/" (id) "/correo" } {
                (csrf_oculto(&ctx.sesion))
                (super::layout::campo("para", "Para (vacío: el correo del cliente; varias direcciones separadas por comas)",
                    super::layout::Tipo::Texto, campos.valor("para"), false, errores))
                button type="submit" { @if correos.is_empty() { "Enviar XML y PDF" } @else { "Reenviar XML y PDF" } }
            }
            @if !correos.is_empty() {
                table.apilada id="envios" {
                    caption { "Envíos por correo" }
                    thead { tr { th scope="col" { "Fecha" } th scope="col" { "Motivo" } th scope="col" { "Para" } th scope="col" { "Estado" } th scope="col" { "Intentos" } th scope="col" { "Último error" } } }
                    tbody {
                        @for c in correos {
                            tr {
                                td data-titulo="Fecha" { (c.created_at.date()) " " (c.created_at.time().replace_nanosecond(0).unwrap_or(c.created_at.time())) }
                                td data-titulo="Motivo" { (c.motivo) }
                                td data-titulo="Para" { (serde_json::from_str::<Vec<String>>(&c.para).unwrap_or_default().join(", ")) }
                                td data-titulo="Estado" { (c.estado) }
                                td data-titulo="Intentos" { (c.intentos) }
                                td data-titulo="Último error" { (c.ultimo_error.as_deref().unwrap_or("")) }
                            }
                        }
                    }
                }
            }
        }
        @if vigente {
            section aria-labelledby="cancelar" {
                h2 id="cancelar" { "Cancelar factura" }
                (caja_errores(errores))
                form method="post" action={ "/panel/facturas/" (id) "/cancelar" } {
                    (csrf_oculto(&ctx.sesion))
                    (super::layout::seleccion("motivo", "Motivo de cancelación", MOTIVOS, campos.valor("motivo"), errores))
                    (super::layout::campo("folioSustitucion", "Folio fiscal que la sustituye (solo motivo 01)",
                        super::layout::Tipo::Texto, campos.valor("folioSustitucion"), false, errores))
                    button.peligro type="submit" { "Cancelar factura" }
                }
            }
        }
    };
    let titulo = format!("Factura {}-{}", texto(f, "serie"), texto(f, "folio"));
    pagina(ctx, &titulo, "/panel/facturas", contenido)
}

/// `GET /panel/facturas/{id}`: the invoice with its full UUID, downloads and cancellation.
pub async fn detalle(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    ctx.empresa()?;
    let factura = leer(&app, &ctx, &id).await?;
    let correos = correos_de(&app, &ctx, &id).await;
    Ok(html_ok(pagina_detalle(&ctx, &factura, &correos, &Campos::default(), &Errores::default())))
}

/// `POST /panel/facturas/{id}/cancelar`: the API's cancellation.
pub async fn cancelar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let body = Bytes::from(campos.objeto(&["motivo", "folioSustitucion"]).to_string());
    let result = cfdi::cancelar::cancelar(
        State(app.clone()),
        crate::extract::Auth(ctx.sesion.caller.clone()),
        EmpresaHeader(empresa_id),
        Path(id.clone()),
        HeaderMap::new(),
        body,
    )
    .await;
    match result {
        Ok(_) => Ok(redirigir(&format!("/panel/facturas/{id}?aviso=factura-cancelada"))),
        Err(error) => {
            let factura = leer(&app, &ctx, &id).await?;
            let errores = Errores::de(error.0);
            let correos = correos_de(&app, &ctx, &id).await;
            Ok(html_con(errores.status(), pagina_detalle(&ctx, &factura, &correos, &campos, &errores)))
        }
    }
}

/// `POST /panel/facturas/{id}/correo`: the API's `POST /api/cfdi/{id}/correo` (`para` as
/// comma-separated addresses; empty: the customer's email).
pub async fn enviar_correo(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let para: Vec<String> = campos
        .valor("para")
        .unwrap_or_default()
        .split([',', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    let body = if para.is_empty() { serde_json::json!({}) } else { serde_json::json!({ "para": para }) };
    let result = cfdi::correo::enviar(
        State(app.clone()),
        crate::extract::Auth(ctx.sesion.caller.clone()),
        EmpresaHeader(empresa_id),
        Path(id.clone()),
        Bytes::from(body.to_string()),
    )
    .await;
    match result {
        Ok(_) => Ok(redirigir(&format!("/panel/facturas/{id}?aviso=correo-encolado#correo"))),
        Err(error) => {
            let factura = leer(&app, &ctx, &id).await?;
            let correos = correos_de(&app, &ctx, &id).await;
            let errores = Errores::de(error.0);
            Ok(html_con(errores.status(), pagina_detalle(&ctx, &factura, &correos, &campos, &errores)))
        }
    }
}

async fn descarga(
    app: AppContext,
    sesion: Session,
    headers: HeaderMap,
    id: String,
    pdf: bool,
) -> Result<Response, super::Fallo> {
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let (state, caller, empresa, path) =
        (State(app.clone()), ctx.sesion.caller.clone(), EmpresaHeader(empresa_id), Path(id));
    Ok(if pdf {
        cfdi::archivos::pdf(state, crate::extract::Auth(caller), empresa, path).await?
    } else {
        cfdi::archivos::xml(state, crate::extract::Auth(caller), empresa, path).await?
    })
}

/// `GET /panel/facturas/{id}/xml`: the API's XML download.
pub async fn descargar_xml(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
) -> Pagina {
    descarga(app, sesion, headers, id, false).await
}

/// `GET /panel/facturas/{id}/pdf`: the API's PDF download.
pub async fn descargar_pdf(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
) -> Pagina {
    descarga(app, sesion, headers, id, true).await
}
