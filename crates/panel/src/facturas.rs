//! Invoices: the stamp form with its live preview, the list, the detail page, XML and PDF
//! downloads and cancellation.
//!
//! The preview runs the stamping code's own preparation
//! ([`factura::preparar`](timbra_services::cfdi::factura::preparar): the cfdi crate's validation,
//! tax and rounding rules) on the form as typed and shows the comprobante's totals, so what
//! the person sees is what the stamp will carry; the browser does no arithmetic. Stamping,
//! the list, the detail, cancellation, e-mail and downloads call the services the API's
//! `/api/cfdi` routes call, with the same permissions.

use std::collections::HashMap;
use timbra_store::ids::{CfdiId, EmpresaId};

use axum::Router;
use axum::extract::{Path as AxumPath, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use serde_json::{Value, json};

use super::layout::{
    Columna, Contexto, Errores, caja_errores, contexto, csrf_oculto, encabezados, error_api, listado, pagina,
};
use super::{Accion, Campos, Pagina, Session, Vista, cuerpo, html_con, html_ok, pesos, pesos_texto, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::consulta::{self, Concepto};
use timbra_services::cfdi::credenciales::rfc3339;
use timbra_services::cfdi::{archivos, cancelar as cancelacion, factura, hora_local};
use timbra_services::context::AppContext;
use timbra_services::scoped;
use timbra_store::Paging;
use timbra_store::cfdis::CfdiRow;
use timbra_store::clientes::ClienteRow;
use timbra_store::productos::ProductoRow;

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

fn linea(n: usize, productos: &[ProductoRow], campos: &Campos, errores: &Errores) -> Markup {
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
                            option value=(p.id)
                                data-descripcion=(p.descripcion)
                                data-preciounitario=(p.precio_unitario.0.to_string())
                                data-claveprodserv=(p.clave_prod_serv)
                                data-claveunidad=(p.clave_unidad)
                                data-tasaiva=(format!("{:.6}", p.iva_rate.0)) { (p.descripcion) }
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

async fn pagina_nueva(
    app: &AppContext,
    ctx: &Contexto,
    campos: &Campos,
    errores: &Errores,
    previa: Markup,
) -> Result<Markup, super::Fallo> {
    let empresa = ctx.empresa()?;
    // The form offers the newest 100 customers and products (as `GET /api/clientes?pageSize=100`).
    let cien = Paging { page: 1, page_size: 100 };
    ctx.session.caller.authorize(app, &empresa.id, Permission::ClienteView).await?;
    let (clientes, _): (Vec<ClienteRow>, i64) =
        scoped::page::<timbra_services::clientes::Clientes>(app, &empresa.id, None, &cien).await?;
    ctx.session.caller.authorize(app, &empresa.id, Permission::ProductoView).await?;
    let (productos, _): (Vec<ProductoRow>, i64) =
        scoped::page::<timbra_services::productos::Productos>(app, &empresa.id, None, &cien).await?;
    let lineas = campos.todos("descripcion").len().max(1);
    let cliente = campos.valor("clienteId");
    // The usos c_UsoCFDI allows the chosen customer (none: público en general, régimen 616);
    // the empty choice keeps the customer's own.
    let elegido = cliente.and_then(|id| clientes.iter().find(|c| c.id.as_str() == id));
    let (regimen, rfc) = elegido.map_or(("616", "XAXX010101000"), |c| (c.regimen_fiscal.as_str(), c.rfc.as_str()));
    let usos = super::catalogos::usos(app, regimen, rfc);
    let vacia = match elegido {
        Some(c) => format!("{} ({})", super::catalogos::VACIA_USO_FACTURA, c.uso_cfdi),
        None => super::catalogos::VACIA_USO_FACTURA.to_owned(),
    };
    let contenido = html! {
        (caja_errores(errores))
        @for problema in errores.con_prefijo("") {
            @if !problema.campo.starts_with("conceptos[") && !matches!(problema.campo.as_str(), "clienteId" | "usoCfdi") {
                p.problemas { (problema.linea()) }
            }
        }
        form id="factura" method="post" action="/panel/facturas"
            hx-post="/panel/facturas/vista-previa" hx-trigger="input delay:400ms, change" hx-target="#totales" hx-swap="innerHTML" {
            (csrf_oculto(&ctx.session))
            fieldset {
                legend { "Receptor y pago" }
                div.linea {
                    div.campo {
                        label for="clienteId" { "Cliente" }
                        select id="clienteId" name="clienteId" hx-get="/panel/opciones/usos-cfdi" hx-include="#usoCfdi"
                            hx-target="#usoCfdi" hx-swap="innerHTML" hx-trigger="change" {
                            option value="" { "Público en general (XAXX010101000)" }
                            @for c in &clientes {
                                option value=(c.id) selected[Some(c.id.as_str()) == cliente] {
                                    (c.razon_social) " (" (c.rfc) ")"
                                }
                            }
                        }
                        @for p in errores.de_campo("clienteId") { p.problemas { (p) } }
                    }
                    (seleccion_linea("formaPago", "Forma de pago", 0, FORMAS_PAGO, campos.valor("formaPago")))
                    (seleccion_linea("metodoPago", "Método de pago", 0, METODOS_PAGO, campos.valor("metodoPago")))
                    div.campo {
                        label for="usoCfdi" { "Uso del CFDI" }
                        select id="usoCfdi" name="usoCfdi" aria-invalid=[(!errores.de_campo("usoCfdi").is_empty()).then_some("true")] {
                            (super::catalogos::opciones_de(&vacia, &usos, campos.valor("usoCfdi")))
                        }
                        @for p in errores.de_campo("usoCfdi") { p.problemas { (p) } }
                    }
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
pub async fn nueva(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    let previa = html! { p { "Escriba los conceptos: los totales se calculan al escribir." } };
    Ok(html_ok(pagina_nueva(&app, &ctx, &Campos::default(), &Errores::default(), previa).await?))
}

/// The totals of the comprobante the form would stamp, or what keeps it from being built.
async fn calcular(app: &AppContext, session: &Session, empresa_id: &EmpresaId, campos: &Campos) -> Markup {
    let factura = async {
        session.caller.authorize(app, empresa_id, Permission::CfdiTimbrar).await?;
        let body = cuerpo(cuerpo_factura(campos))?;
        factura::preparar(app, empresa_id, body, app.clock.now()).await
    }
    .await;
    let factura = match factura {
        Ok(factura) => factura,
        Err(error) => {
            let errores = Errores::de(error);
            return html! {
                p { "Aún no se puede calcular:" }
                @if errores.con_prefijo("").is_empty() {
                    @if let Some(error) = &errores.error { (error_api(error)) }
                } @else {
                    ul.problemas {
                        @for problema in errores.con_prefijo("") { li { (problema.linea()) } }
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

/// `POST /panel/facturas/vista-previa` (htmx, as the person types): the totals fragment.
pub async fn vista_previa(State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    Ok(html_ok(calcular(&app, &ctx.session, &empresa_id, &campos).await))
}

/// `POST /panel/facturas`: stamps the form's invoice as `POST /api/cfdi/timbrar` does.
pub async fn timbrar(State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let result = async {
        let caller = &ctx.session.caller;
        let access = caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
        let json = cuerpo_factura(&campos);
        let bytes = json.to_string();
        let solicitante = factura::Solicitante { user_id: &caller.user_id, mode: access.mode(), clave: None };
        factura::timbrar(&app, &empresa_id, solicitante, cuerpo(json)?, bytes.as_bytes()).await
    }
    .await;
    match result {
        Ok(timbrada) => {
            Ok(redirigir(&format!("/panel/facturas/{}?aviso=factura-timbrada", timbrada.cfdi_id().unwrap_or_default())))
        }
        Err(error) => {
            let previa = calcular(&app, &ctx.session, &empresa_id, &campos).await;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_nueva(&app, &ctx, &campos, &errores, previa).await?))
        }
    }
}

fn estado(factura: &CfdiRow) -> String {
    let base = match factura.status.as_str() {
        "TIMBRADO_SANDBOX" => "Timbrada (pruebas)",
        "TIMBRADO" => "Timbrada",
        "CANCELADO" => "Cancelada",
        other => other,
    };
    match factura.estado_cancelacion.as_deref() {
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
pub async fn lista(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa = ctx.empresa()?;
    let filtro = |name: &str| params.get(name).map(String::as_str).filter(|v| !v.is_empty());
    let page = filtro("page").and_then(|p| p.parse::<i64>().ok()).unwrap_or(1);
    let resultado = async {
        let access = ctx.session.caller.authorize(&app, &empresa.id, Permission::CfdiView).await?;
        let offset = consulta::saltar(page, POR_PAGINA, POR_PAGINA)?;
        let texto = |name: &str| filtro(name).map(str::to_owned);
        let pedida = consulta::Consulta {
            tipo: Some("EMITIDA".to_owned()),
            status: texto("status"),
            search: texto("search"),
            desde: texto("desde"),
            hasta: texto("hasta"),
            ..consulta::Consulta::default()
        };
        let filtro = consulta::filtro(&pedida, consulta::ve_nomina(&ctx.session.caller, &access))?;
        consulta::listar(&app, &empresa.id, &filtro, POR_PAGINA, offset).await
    }
    .await;
    let ((facturas, total), error) = match resultado {
        Ok(lista) => (lista, None),
        Err(error) => ((Vec::new(), 0), Some(error)),
    };
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
        (listado(
            &facturas[..],
            html! { "No hay facturas con estos filtros." },
            html! { "Facturas emitidas" },
            &[Columna::Texto("Folio fiscal (UUID)"), Columna::Texto("Serie y folio"), Columna::Texto("Fecha"), Columna::Texto("Receptor"), Columna::Importe("Total"), Columna::Texto("Estado")],
            |f| html! {
                tr {
                    td.uuid data-titulo="UUID" { a href={ "/panel/facturas/" (f.id) } { (f.uuid) } }
                    td data-titulo="Serie y folio" { (f.serie.as_deref().unwrap_or_default()) "-" (f.folio.as_deref().unwrap_or_default()) }
                    td data-titulo="Fecha" { (fecha(f)) }
                    td data-titulo="Receptor" { (f.receptor_nombre) br; small { (f.receptor_rfc) } }
                    td.importe data-titulo="Total" { (pesos(f.total.0)) }
                    td data-titulo="Estado" { (estado(f)) }
                }
            },
            Some(html! {
                nav.paginas aria-label="Páginas" {
                    span { (total) " en total · página " (page) }
                    @if page > 1 { a href={ "/panel/facturas?page=" (page - 1) (filtros) } rel="prev" { "← Anterior" } }
                    @if page * POR_PAGINA < total {
                        a href={ "/panel/facturas?page=" (page + 1) (filtros) } rel="next" { "Siguiente →" }
                    }
                }
            }),
        ))
    };
    Ok(html_ok(pagina(&ctx, "Facturas", "/panel/facturas", contenido)))
}

/// Invoices a page of the list shows.
const POR_PAGINA: i64 = 25;

/// The invoice's `Fecha` in the issuer's zone, as `AAAA-MM-DD HH:MM:SS±hh:mm`.
fn fecha(factura: &CfdiRow) -> String {
    rfc3339(hora_local(factura.fecha)).replace('T', " ")
}

/// An invoice of the current company with its lines, as `GET /api/cfdi/{id}` reads it.
struct Factura {
    fila: CfdiRow,
    conceptos: Option<Vec<Concepto>>,
    /// The tax breakdown of its stamped XML (none when the XML cannot be read).
    desglose: Option<super::desglose::Desglose>,
}

async fn leer(app: &AppContext, ctx: &Contexto, id: &str) -> Result<Factura, timbra_services::error::ApiError> {
    let empresa_id = ctx.empresa.as_ref().map_or_else(|| EmpresaId::from(""), |e| e.id.clone());
    let access = ctx.session.caller.authorize(app, &empresa_id, Permission::CfdiView).await?;
    let ve_nomina = consulta::ve_nomina(&ctx.session.caller, &access);
    let (fila, conceptos) = consulta::leer(app, &empresa_id, id, ve_nomina).await?;
    let desglose = match archivos::xml_de(app, &empresa_id, id, ve_nomina).await {
        Ok(xml) => timbra_cfdi::parser::parsear_bytes(&xml.bytes).ok().map(|c| super::desglose::Desglose::de(&c)),
        Err(_) => None,
    };
    Ok(Factura { fila, conceptos: consulta::conceptos(&conceptos), desglose })
}

/// The e-mail sendings of invoice `id` (read after [`leer`] found it for the caller).
async fn correos_de(app: &AppContext, ctx: &Contexto, id: &str) -> Vec<timbra_store::correos::CorreoRow> {
    let empresa_id = ctx.empresa.as_ref().map_or_else(|| EmpresaId::from(""), |e| e.id.clone());
    let Ok(mut conn) = app.db.conn().await else { return Vec::new() };
    timbra_store::correos::de_cfdi(&mut conn, &empresa_id, &CfdiId::from(id)).await.unwrap_or_default()
}

fn pagina_detalle(
    ctx: &Contexto,
    factura: &Factura,
    correos: &[timbra_store::correos::CorreoRow],
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let f = &factura.fila;
    let id = f.id.as_str();
    let vigente = matches!(f.status.as_str(), "TIMBRADO" | "TIMBRADO_SANDBOX")
        && !matches!(f.estado_cancelacion.as_deref(), Some("SOLICITADA" | "PENDIENTE"));
    let (serie, folio) = (f.serie.as_deref().unwrap_or_default(), f.folio.as_deref().unwrap_or_default());
    let cifra = |c: &Option<timbra_services::cfdi::consulta::Cifra>| {
        c.as_ref().map(|c| pesos_texto(&c.texto())).unwrap_or_default()
    };
    let contenido = html! {
        dl.datos {
            dt { "Folio fiscal (UUID)" } dd.uuid id="uuid" { (f.uuid) }
            dt { "Serie y folio" } dd { (serie) "-" (folio) }
            dt { "Fecha" } dd { (fecha(f)) }
            dt { "Receptor" } dd { (f.receptor_nombre) " (" (f.receptor_rfc) ")" }
            dt { "Forma y método de pago" } dd { (f.forma_pago.as_deref().unwrap_or_default()) " · " (f.metodo_pago.as_deref().unwrap_or_default()) }
            dt { "Subtotal" } dd { (pesos(f.subtotal.0)) }
            dt { "Total" } dd { strong { (pesos(f.total.0)) } " " (f.moneda) }
            dt { "Estado" } dd id="estado" { (estado(f)) }
        }
        p.acciones {
            a.boton href={ "/panel/facturas/" (id) "/pdf" } download { "Descargar PDF" }
            a.boton href={ "/panel/facturas/" (id) "/xml" } download { "Descargar XML" }
            button.secundario type="button" data-copiar="#uuid" { "Copiar UUID" }
        }
        @if let Some(conceptos) = &factura.conceptos {
            table.apilada {
                caption { "Conceptos" }
                (encabezados(&[Columna::Texto("Descripción"), Columna::Texto("Cantidad"), Columna::Importe("Precio unitario"), Columna::Importe("Importe")]))
                tbody {
                    @for c in conceptos {
                        tr {
                            td data-titulo="Descripción" { (c.descripcion) }
                            td data-titulo="Cantidad" { (c.cantidad.as_ref().map(|v| v.texto()).unwrap_or_default()) }
                            td.importe data-titulo="Precio unitario" { (cifra(&c.precio_unitario)) }
                            td.importe data-titulo="Importe" { (cifra(&c.importe)) }
                        }
                    }
                }
            }
        }
        @if let Some(desglose) = &factura.desglose { (desglose.tabla()) }
        section aria-labelledby="correo" {
            h2 id="correo" { "Enviar por correo" }
            form method="post" action={ "/panel/facturas/" (id) "/correo" } {
                (csrf_oculto(&ctx.session))
                (super::layout::campo("para", "Para (vacío: el correo del cliente; varias direcciones separadas por comas)",
                    super::layout::Tipo::Texto, campos.valor("para"), false, errores))
                button type="submit" { @if correos.is_empty() { "Enviar XML y PDF" } @else { "Reenviar XML y PDF" } }
            }
            @if !correos.is_empty() {
                table.apilada id="envios" {
                    caption { "Envíos por correo" }
                    (encabezados(&[Columna::Texto("Fecha"), Columna::Texto("Motivo"), Columna::Texto("Para"), Columna::Texto("Estado"), Columna::Texto("Intentos"), Columna::Texto("Último error")]))
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
                    (csrf_oculto(&ctx.session))
                    (super::layout::seleccion("motivo", "Motivo de cancelación", MOTIVOS, campos.valor("motivo"), errores))
                    (super::layout::campo("folioSustitucion", "Folio fiscal que la sustituye (solo motivo 01)",
                        super::layout::Tipo::Texto, campos.valor("folioSustitucion"), false, errores))
                    button.peligro type="submit" { "Cancelar factura" }
                }
            }
        }
    };
    let titulo = format!("Factura {serie}-{folio}");
    pagina(ctx, &titulo, "/panel/facturas", contenido)
}

/// `GET /panel/facturas/{id}`: the invoice with its full UUID, downloads and cancellation.
pub async fn detalle(State(app): State<AppContext>, vista: Vista, AxumPath(id): AxumPath<String>) -> Pagina {
    let ctx = vista.ctx;
    ctx.empresa()?;
    let factura = leer(&app, &ctx, &id).await?;
    let correos = correos_de(&app, &ctx, &id).await;
    Ok(html_ok(pagina_detalle(&ctx, &factura, &correos, &Campos::default(), &Errores::default())))
}

/// `POST /panel/facturas/{id}/cancelar`: the cancellation, as `POST /api/cfdi/{id}/cancelar`
/// does it.
pub async fn cancelar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let result = async {
        let caller = &ctx.session.caller;
        let access = caller.authorize(&app, &empresa_id, Permission::CfdiCancelar).await?;
        // The invoice first: an id of another company is CANCEL_002 whatever the form says.
        let fila = cancelacion::buscar(&app, &empresa_id, &id, consulta::ve_nomina(caller, &access)).await?;
        let motivo = campos.valor("motivo").unwrap_or_default();
        let sustitucion = campos.valor("folioSustitucion");
        cancelacion::cancelar(&app, &empresa_id, &id, &fila, motivo, sustitucion, None, access.mode()).await
    }
    .await;
    match result {
        Ok(_) => Ok(redirigir(&format!("/panel/facturas/{id}?aviso=factura-cancelada"))),
        Err(error) => {
            let factura = leer(&app, &ctx, &id).await?;
            let errores = Errores::de(error);
            let correos = correos_de(&app, &ctx, &id).await;
            Ok(html_con(errores.status(), pagina_detalle(&ctx, &factura, &correos, &campos, &errores)))
        }
    }
}

/// `POST /panel/facturas/{id}/correo`: queues the sending as `POST /api/cfdi/{id}/correo`
/// does (`para` as comma-separated addresses; empty: the customer's email).
pub async fn enviar_correo(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let para: Vec<String> = campos
        .valor("para")
        .unwrap_or_default()
        .split([',', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    let result = async {
        let caller = &ctx.session.caller;
        let access = caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
        consulta::leer(&app, &empresa_id, &id, consulta::ve_nomina(caller, &access)).await?;
        let para = (!para.is_empty()).then_some(para.as_slice());
        timbra_services::correo::enviar(&app, &empresa_id, &CfdiId::from(&id), para, None).await
    }
    .await;
    match result {
        Ok(_) => Ok(redirigir(&format!("/panel/facturas/{id}?aviso=correo-encolado#correo"))),
        Err(error) => {
            let factura = leer(&app, &ctx, &id).await?;
            let correos = correos_de(&app, &ctx, &id).await;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_detalle(&ctx, &factura, &correos, &campos, &errores)))
        }
    }
}

async fn archivo(
    app: AppContext,
    session: Session,
    headers: HeaderMap,
    id: String,
    pdf: bool,
) -> Result<Response, super::Fallo> {
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let access = ctx.session.caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let ve_nomina = consulta::ve_nomina(&ctx.session.caller, &access);
    let archivo = if pdf {
        archivos::pdf_de(&app, &empresa_id, &id, ve_nomina).await?
    } else {
        archivos::xml_de(&app, &empresa_id, &id, ve_nomina).await?
    };
    Ok(super::descarga(archivo)?)
}

/// `GET /panel/facturas/{id}/xml`: the XML download, as the API's.
pub async fn descargar_xml(
    State(app): State<AppContext>,
    session: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
) -> Pagina {
    archivo(app, session, headers, id, false).await
}

/// `GET /panel/facturas/{id}/pdf`: the PDF download, as the API's.
pub async fn descargar_pdf(
    State(app): State<AppContext>,
    session: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
) -> Pagina {
    archivo(app, session, headers, id, true).await
}
