//! A period's CFDI in one ZIP (issue 32): the export form and the company's recent exports with
//! their status and download link (polled while one is running). The page calls the services
//! with typed values: `cfdi::exportacion::{revisar, pedir, recientes}`, as `POST /api/cfdi/zip`
//! and `GET /api/cfdi/zip/{jobId}` do.

use std::collections::HashMap;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::get;
use maud::{Markup, html};

use super::layout::{Contexto, Errores, Tipo, caja_errores, campo, contexto, csrf_oculto, pagina, seleccion};
use super::{Campos, Formulario, Pagina, Vista, html_con, html_ok, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::exportacion::{self, Estado, Pedido};
use timbra_services::context::AppContext;

/// Routes of the export page.
pub fn rutas() -> Router<AppContext> {
    Router::new().route("/panel/exportar", get(ver).post(pedir)).route("/panel/exportar/lista", get(lista))
}

const TIPOS: &[(&str, &str)] =
    &[("", "Emitidos y recibidos"), ("EMITIDA", "Solo emitidos"), ("RECIBIDA", "Solo recibidos")];

/// Exports shown.
const RECIENTES: i64 = 10;

/// `GET /panel/exportar`.
pub async fn ver(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    pagina_exportar(&app, &ctx, &Campos::default(), &Errores::default()).await
}

/// The list of exports; while one is pending it asks for itself again every two seconds.
fn tabla(exportaciones: &[Estado]) -> Markup {
    let en_curso = exportaciones.iter().any(|e| matches!(e.fila.status.as_str(), "PENDIENTE" | "EN_PROCESO"));
    html! {
        div id="exportaciones" hx-get=[en_curso.then_some("/panel/exportar/lista")]
            hx-trigger=[en_curso.then_some("load delay:2s")] hx-swap="outerHTML" {
            @if exportaciones.is_empty() {
                p { "Aún no hay exportaciones." }
            } @else {
                table.apilada {
                    caption { "Exportaciones, la más reciente primero" }
                    thead { tr {
                        th scope="col" { "Pedida" } th scope="col" { "Periodo" } th scope="col" { "Estado" }
                        th.importe scope="col" { "CFDI" } th.importe scope="col" { "Tamaño" } th scope="col" { "Archivo" }
                    } }
                    tbody {
                        @for e in exportaciones {
                            tr {
                                td data-titulo="Pedida" { (timbra_services::cfdi::hora_local(e.fila.created_at).date()) }
                                td data-titulo="Periodo" { (periodo(&e.fila.filtro)) }
                                td data-titulo="Estado" {
                                    (estado(&e.fila.status))
                                    @if let Some(error) = &e.fila.error { br; small { (error) } }
                                }
                                td.importe data-titulo="CFDI" { (e.fila.cfdis) }
                                td.importe data-titulo="Tamaño" { (format!("{:.1} MB", e.fila.bytes as f64 / 1_048_576.0)) }
                                td data-titulo="Archivo" {
                                    @if let Some(url) = &e.download_url { a href=(url) download { "Descargar ZIP" } }
                                }
                            }
                        }
                    }
                }
                p { small { "Los enlaces de descarga valen una hora; al volver a esta página se generan otros." } }
            }
        }
    }
}

/// The period of a stored export as its days: the first and the last included (`hasta` is
/// stored as the instant after it).
fn periodo(filtro: &str) -> String {
    match serde_json::from_str::<exportacion::Periodo>(filtro) {
        Ok(p) => format!("{} a {}", p.desde.date(), (p.hasta - time::Duration::nanoseconds(1)).date()),
        Err(_) => String::new(),
    }
}

fn estado(status: &str) -> &'static str {
    match status {
        "PENDIENTE" => "En cola",
        "EN_PROCESO" => "Generando…",
        "TERMINADO" => "Listo",
        "FALLIDO" => "Falló",
        _ => "—",
    }
}

async fn pagina_exportar(app: &AppContext, ctx: &Contexto, form: &Campos, errores: &Errores) -> Pagina {
    let empresa = ctx.empresa()?;
    ctx.session.caller.authorize(app, &empresa.id, Permission::CfdiDescargar).await?;
    let exportaciones = exportacion::recientes(app, &empresa.id, RECIENTES).await?;
    let hoy = timbra_services::cfdi::hora_local(app.clock.now()).date();
    let primero = hoy.replace_day(1).unwrap_or(hoy).to_string();
    let contenido = html! {
        p { "Todo un periodo en un archivo ZIP: el XML de cada CFDI (tal como se timbró o se descargó del SAT) en "
            code { "EMITIDOS/" } " y " code { "RECIBIDOS/" } ", su PDF si lo pide, y " code { "resumen.csv" }
            " con una fila por comprobante. Se genera en segundo plano." }
        section aria-labelledby="nueva-exportacion" {
            h2 id="nueva-exportacion" { "Exportar" }
            (caja_errores(errores))
            form method="post" action="/panel/exportar" {
                (csrf_oculto(&ctx.session))
                (campo("desde", "Desde (AAAA-MM-DD)", Tipo::Texto, Some(form.valor("desde").unwrap_or(&primero)), true, errores))
                (campo("hasta", "Hasta (AAAA-MM-DD, incluido)", Tipo::Texto, Some(form.valor("hasta").unwrap_or(&hoy.to_string())), true, errores))
                (seleccion("tipo", "Comprobantes", TIPOS, form.valor("tipo"), errores))
                div.campo {
                    label { input type="checkbox" name="incluirPdf" value="true" checked[form.valor("incluirPdf") == Some("true")]; " Incluir el PDF de cada CFDI" }
                }
                button type="submit" { "Generar ZIP" }
            }
        }
        section aria-labelledby="exportaciones-titulo" {
            h2 id="exportaciones-titulo" { "Exportaciones recientes" }
            (tabla(&exportaciones))
        }
    };
    Ok(html_con(errores.status(), pagina(ctx, "Exportar a ZIP", "/panel/exportar", contenido)))
}

/// `GET /panel/exportar/lista`: the list alone (htmx polling).
pub async fn lista(State(app): State<AppContext>, session: super::Session, headers: HeaderMap) -> Pagina {
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let empresa = ctx.empresa()?;
    ctx.session.caller.authorize(&app, &empresa.id, Permission::CfdiDescargar).await?;
    let exportaciones = exportacion::recientes(&app, &empresa.id, RECIENTES).await?;
    Ok(html_ok(tabla(&exportaciones)))
}

/// `POST /panel/exportar`: queues the export, back to the page where it shows.
pub async fn pedir(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { session, campos } = formulario;
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let resultado = async {
        let caller = &ctx.session.caller;
        let access = caller.authorize(&app, &empresa_id, Permission::CfdiDescargar).await?;
        let valor = |nombre: &str| campos.valor(nombre).map(str::to_owned).filter(|v| !v.trim().is_empty());
        let pedido = Pedido {
            desde: valor("desde"),
            hasta: valor("hasta"),
            tipo: valor("tipo"),
            tipo_comprobante: None,
            status: None,
            incluir_pdf: campos.valor("incluirPdf") == Some("true"),
        };
        let periodo = exportacion::revisar(&pedido, !caller.allows(&access, Permission::NominaView))?;
        exportacion::pedir(&app, &empresa_id, &periodo).await
    }
    .await;
    match resultado {
        Ok(_) => Ok(redirigir("/panel/exportar?aviso=zip-pedido")),
        Err(error) => pagina_exportar(&app, &ctx, &campos, &Errores::de(error)).await,
    }
}
