//! Sales tickets (issue 31): the list with its filter, a ticket's detail with the QR of its
//! self-invoicing link, the global invoice button, and the settings of the self-invoicing page
//! and the automatic global invoice with a preview of the public page drawn here (the public
//! page itself cannot be framed) and its QR. Each action calls the services the API's
//! `/api/recibos`, `/api/cfdi/global` and `PATCH /api/empresas/{id}` call
//! (`timbra_services::cfdi::recibos_consulta`, `empresas::actualizar`), with the same
//! permissions.

use axum::Router;
use axum::extract::{Path as AxumPath, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use maud::{Markup, PreEscaped, html};
use serde_json::{Value, json};

use super::layout::{
    Columna, Contexto, Errores, Tipo, caja_errores, campo_con, csrf_oculto, encabezados, listado, pagina, seleccion,
};
use super::{Accion, Campos, Pagina, Vista, html_con, html_ok, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::factura::Solicitante;
use timbra_services::cfdi::recibos::GlobalBody;
use timbra_services::cfdi::recibos_consulta::{self, Consulta, ReciboOut, url_publica};
use timbra_services::context::AppContext;
use timbra_services::empresas;
use timbra_store::Paging;
use timbra_store::recibos::Ajustes;

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
    recibos: Vec<ReciboOut>,
    total: i64,
    razon_social: String,
    ajustes: Option<Ajustes>,
}

/// The newest 100 tickets of `status`, the company's name and its self-invoicing settings.
async fn leer(
    app: &AppContext,
    ctx: &Contexto,
    headers: &HeaderMap,
    status: Option<String>,
) -> Result<Datos, super::Fallo> {
    let empresa = ctx.empresa()?;
    let caller = &ctx.session.caller;
    caller.authorize(app, &empresa.id, Permission::CfdiView).await?;
    let consulta = Consulta { status, ..Consulta::default() };
    let paging = Paging { page: 1, page_size: 100 };
    let (recibos, total) =
        recibos_consulta::listar(app, &empresa.id, &consulta, &paging, &url_publica(app, headers)).await?;
    caller.authorize(app, &empresa.id, Permission::EmpresaView).await?;
    let razon_social = empresas::get(app, caller, empresa.id.as_str()).await?.razon_social;
    let ajustes = {
        let mut conn = app.db.conn().await?;
        timbra_store::recibos::ajustes(&mut conn, &empresa.id).await?
    };
    Ok(Datos { recibos, total, razon_social, ajustes })
}

fn pagina_lista(
    ctx: &Contexto,
    d: &Datos,
    aviso: Option<&str>,
    campos: &Campos,
    errores: &Errores,
    base: &str,
) -> Markup {
    let items = &d.recibos;
    let af = d.ajustes.as_ref();
    let slug = af.and_then(|a| a.autofactura_slug.as_deref()).unwrap_or_default();
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
        (listado(
            &items[..],
            html! { "No hay tickets." },
            html! { "Tickets (" (d.total) ")" },
            &[Columna::Texto("Folio"), Columna::Texto("Fecha"), Columna::Texto("Total"), Columna::Texto("Estado"), Columna::Texto("Código")],
            |r| html! {
                tr {
                    td data-titulo="Folio" { a href={ (RUTA) "/" (r.id) } { (r.folio) } }
                    td data-titulo="Fecha" { (r.fecha) }
                    td data-titulo="Total" { "$" (r.total) " " (r.moneda) }
                    td data-titulo="Estado" { (estado(&r.status)) }
                    td data-titulo="Código" { code { (r.clave_autofactura) } }
                }
            },
            None,
        ))
        section aria-labelledby="global" {
            h2 id="global" { "Factura global" }
            p { "Timbra una factura a PUBLICO EN GENERAL con los tickets abiertos del periodo." }
            form method="post" action="/panel/recibos/global" {
                (csrf_oculto(&ctx.session))
                (seleccion("periodicidad", "Periodicidad", &periodicidades, Some(&valor("periodicidad", "04")), errores))
                (campo_con("meses", "Mes (01 a 12; 13 a 18 bimestres)", Tipo::Texto, Some(&valor("meses", &mes)), true, errores, None))
                (campo_con("año", "Año", Tipo::Texto, Some(&valor("año", &ano)), true, errores, None))
                button type="submit" { "Timbrar factura global" }
            }
        }
        section aria-labelledby="ajustes" {
            h2 id="ajustes" { "Autofacturación y factura global automática" }
            form method="post" action="/panel/recibos/ajustes" {
                (csrf_oculto(&ctx.session))
                (campo_con("slug", "Dirección de su página", Tipo::Texto, Some(slug), false, errores, Some("Letras minúsculas, números y guiones: /autofactura/mi-tienda")))
                (campo_con("diasVigencia", "Días para facturar un ticket", Tipo::Texto,
                    af.and_then(|a| a.autofactura_dias_vigencia).map(|d| d.to_string()).as_deref(), false, errores, Some("Vacío: hasta el fin del mes del ticket")))
                div.campo { div {
                    input type="checkbox" name="activa" value="true" id="campo-activa" checked[af.is_none_or(|a| a.autofactura_activa)];
                    label for="campo-activa" { "Página activa" }
                } }
                div.campo { div {
                    input type="checkbox" name="automatica" value="true" id="campo-automatica" checked[af.is_some_and(|a| a.global_automatica)];
                    label for="campo-automatica" { "Timbrar la factura global de cada periodo cerrado automáticamente" }
                } }
                (seleccion("periodicidadGlobal", "Periodicidad de la automática", &periodicidades, af.map(|a| a.global_periodicidad.as_str()), errores))
                button type="submit" { "Guardar" }
            }
            @if let Some(url) = &ejemplo {
                h3 { "Vista previa de su página" }
                p { "Sus clientes abren " a href=(url) { (url) } " o escanean este código:" }
                (qr(url))
                div.vista-previa aria-label="Vista previa de la página pública" {
                    p.marca { (d.razon_social) }
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
    url_publica(app, headers)
}

/// `GET /panel/recibos`.
async fn lista(State(app): State<AppContext>, headers: HeaderMap, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
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

/// `POST /panel/recibos/global`: the global invoice, as `POST /api/cfdi/global` stamps it.
async fn global(State(app): State<AppContext>, headers: HeaderMap, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let body = json!({ "periodicidad": campos.valor("periodicidad"), "meses": campos.valor("meses"), "año": campos.valor("año") });
    let respuesta = async {
        let caller = &ctx.session.caller;
        let access = caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
        let bytes = body.to_string();
        let cuerpo: GlobalBody = super::cuerpo(body)?;
        let solicitante = Solicitante { user_id: &caller.user_id, mode: access.mode(), clave: None };
        let answer =
            recibos_consulta::timbrar_global(&app, &empresa_id, solicitante, &cuerpo, bytes.as_bytes()).await?;
        match answer.error() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
    .await;
    match respuesta {
        Ok(()) => Ok(redirigir(&format!("{RUTA}?hecho=global"))),
        Err(error) => {
            let d = leer(&app, &ctx, &headers, None).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &d, None, &campos, &errores, &base(&app, &headers))))
        }
    }
}

/// `POST /panel/recibos/ajustes`: the company's settings, as `PATCH /api/empresas/{id}` saves
/// them.
async fn ajustes(State(app): State<AppContext>, headers: HeaderMap, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let dias =
        campos.valor("diasVigencia").map(|d| d.parse::<i64>().map(Value::from).unwrap_or(Value::String(d.to_owned())));
    let cambio = empresas::Cambio {
        autofactura: Some(
            json!({ "slug": campos.valor("slug"), "diasVigencia": dias, "activa": campos.valor("activa").is_some() }),
        ),
        factura_global: Some(
            json!({ "automatica": campos.valor("automatica").is_some(), "periodicidad": campos.valor("periodicidadGlobal").unwrap_or("04") }),
        ),
        ..empresas::Cambio::default()
    };
    let guardado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::EmpresaEdit).await?;
        empresas::actualizar(&app, &ctx.session.caller, empresa_id.as_str(), cambio).await
    }
    .await;
    match guardado {
        Ok(_) => Ok(redirigir(&format!("{RUTA}?hecho=ajustes"))),
        Err(error) => {
            let d = leer(&app, &ctx, &headers, None).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &d, None, &campos, &errores, &base(&app, &headers))))
        }
    }
}

/// `GET /panel/recibos/{id}`.
async fn detalle(
    State(app): State<AppContext>,
    headers: HeaderMap,
    vista: Vista,
    AxumPath(id): AxumPath<String>,
) -> Pagina {
    let ctx = vista.ctx;
    let empresa_id = ctx.empresa()?.id.clone();
    ctx.session.caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let r = recibos_consulta::obtener(&app, &empresa_id, &id, &url_publica(&app, &headers)).await?;
    let lineas = recibos_consulta::lineas(&r);
    let contenido = html! {
        dl {
            dt { "Folio" } dd { (r.folio) }
            dt { "Fecha" } dd { (r.fecha) }
            dt { "Estado" } dd { (estado(&r.status)) }
            dt { "Forma de pago" } dd { (r.forma_pago) }
            dt { "Subtotal" } dd { "$" (r.subtotal) }
            dt { "Total" } dd { "$" (r.total) " " (r.moneda) }
            dt { "Código de facturación" } dd { code { (r.clave_autofactura) } }
            dt { "Vence" } dd { (r.autofactura_vence) }
            @if let Some(cfdi) = &r.cfdi_id {
                dt { "Factura" } dd { a href={ "/panel/facturas/" (cfdi) } { (cfdi) } }
            }
        }
        table.apilada {
            caption { "Conceptos (precios sin impuestos)" }
            (encabezados(&[Columna::Texto("Descripción"), Columna::Texto("Cantidad"), Columna::Texto("Precio"), Columna::Texto("Importe")]))
            tbody {
                @for l in &lineas {
                    tr {
                        td data-titulo="Descripción" { (l.descripcion) }
                        td data-titulo="Cantidad" { (l.cantidad) }
                        td data-titulo="Precio" { (l.precio_unitario) }
                        td data-titulo="Importe" { (l.importe) }
                    }
                }
            }
        }
        @if let Some(url) = &r.url_autofactura {
            p { "Enlace de autofacturación: " a href=(url) { (url) } }
            (qr(url))
        } @else {
            p { "Configure la dirección de su página de autofacturación en " a href=(RUTA) { "Tickets" } " para imprimir el enlace y su QR." }
        }
    };
    Ok(html_ok(pagina(&ctx, &format!("Ticket {}", r.folio), RUTA, contenido)))
}
