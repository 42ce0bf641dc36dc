//! The Buzón: cancellation requests from suppliers waiting for this company's answer (with
//! their deadline and accept/reject buttons), and received CFDI whose status at SAT changed.
//! The page calls the API's own handlers (`routes::cancelaciones`) in process.

use std::collections::HashMap;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as AxumPath, Query, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use maud::html;
use serde_json::{Value, json};

use super::layout::{Contexto, Errores, caja_errores, contexto, csrf_oculto, error_api, pagina};
use super::{Formulario, Pagina, Session, cuerpo, datos, html_con, pesos_de, redirigir, texto};
use crate::envelope::{Path, Query as ApiQuery};
use crate::extract::EmpresaHeader;
use crate::routes::cancelaciones;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::receptor::estado_sat;
use timbra_services::context::AppContext;

/// Routes of the Buzón.
pub fn rutas() -> Router<AppContext> {
    Router::new().route("/panel/buzon", get(buzon)).route("/panel/buzon/{uuid}", post(responder))
}

fn fecha(valor: &Value, campo: &str) -> String {
    texto(valor, campo).replace('T', " ").chars().take(16).collect()
}

async fn pagina_buzon(app: &AppContext, ctx: &Contexto, page: i64, errores: &Errores) -> Pagina {
    let empresa = ctx.empresa()?;
    let resultado = async {
        let params = ApiQuery(cuerpo(json!({ "page": page, "pageSize": 20 }))?);
        datos(
            cancelaciones::pendientes(
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
    let pendientes = lista.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    let cambiadas = match ctx.sesion.caller.authorize(app, &empresa.id, Permission::CfdiEstadoSat).await {
        Ok(_) => estado_sat::recibidas_cambiadas(app, &empresa.id, 50).await.unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let total_pages = lista.get("totalPages").and_then(Value::as_i64).unwrap_or(0);
    let contenido = html! {
        p { "Cuando un proveedor pide cancelar un comprobante que usted recibió, el SAT espera su respuesta "
            "durante tres días hábiles; si no responde, el SAT lo cancela (plazo vencido)." }
        (caja_errores(errores))
        @if let Some(error) = &error { (error_api(error)) }
        section aria-labelledby="pendientes" {
            h2 id="pendientes" { "Solicitudes de cancelación pendientes" }
            @if pendientes.is_empty() {
                p { "No hay solicitudes pendientes de su respuesta." }
            } @else {
                table.apilada {
                    caption { "Solicitudes por responder" }
                    thead { tr {
                        th scope="col" { "Folio fiscal (UUID)" } th scope="col" { "Emisor" } th.importe scope="col" { "Total" }
                        th scope="col" { "Solicitada" } th scope="col" { "Vence" } th scope="col" { "Respuesta" }
                    } }
                    tbody {
                        @for s in &pendientes {
                            tr {
                                td.uuid data-titulo="UUID" { (texto(s, "uuid")) }
                                td data-titulo="Emisor" { (texto(s, "nombreEmisor")) br; small { (texto(s, "rfcEmisor")) } }
                                td.importe data-titulo="Total" { (pesos_de(&s["total"])) }
                                td data-titulo="Solicitada" { (fecha(s, "fechaSolicitud")) }
                                td data-titulo="Vence" { strong { (fecha(s, "plazoVence")) } }
                                td data-titulo="Respuesta" {
                                    form method="post" action={ "/panel/buzon/" (texto(s, "uuid")) } {
                                        (csrf_oculto(&ctx.sesion))
                                        button type="submit" name="respuesta" value="aceptar" { "Aceptar" }
                                        " "
                                        button.peligro type="submit" name="respuesta" value="rechazar" { "Rechazar" }
                                    }
                                }
                            }
                        }
                    }
                }
                nav.paginas aria-label="Páginas" {
                    span { (lista.get("total").and_then(Value::as_i64).unwrap_or(0)) " en total · página " (page) }
                    @if page > 1 { a href={ "/panel/buzon?page=" (page - 1) } rel="prev" { "← Anterior" } }
                    @if page < total_pages { a href={ "/panel/buzon?page=" (page + 1) } rel="next" { "Siguiente →" } }
                }
            }
        }
        section aria-labelledby="cambiadas" {
            h2 id="cambiadas" { "Comprobantes recibidos cuyo estado cambió en el SAT" }
            @if cambiadas.is_empty() {
                p { "Ningún comprobante recibido cambió de estado." }
            } @else {
                table.apilada {
                    caption { "Cambios de estado" }
                    thead { tr {
                        th scope="col" { "Folio fiscal (UUID)" } th scope="col" { "Emisor" } th.importe scope="col" { "Total" }
                        th scope="col" { "Estado en el SAT" } th scope="col" { "Visto" }
                    } }
                    tbody {
                        @for c in &cambiadas {
                            tr {
                                td.uuid data-titulo="UUID" { a href={ "/panel/facturas/" (c.cfdi_id) } { (c.uuid) } }
                                td data-titulo="Emisor" { (c.emisor_nombre) br; small { (c.emisor_rfc) } }
                                td.importe data-titulo="Total" { (pesos_de(&Value::String(c.total.clone()))) }
                                td data-titulo="Estado en el SAT" {
                                    (c.estado) @if !c.estatus_cancelacion.is_empty() { " · " (c.estatus_cancelacion) }
                                }
                                td data-titulo="Visto" { (c.cambiado_en.clone().unwrap_or_default().replace('T', " ").chars().take(16).collect::<String>()) }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(html_con(errores.status(), pagina(ctx, "Buzón", "/panel/buzon", contenido)))
}

/// `GET /panel/buzon`.
pub async fn buzon(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let page = params.get("page").and_then(|p| p.parse::<i64>().ok()).filter(|p| *p >= 1).unwrap_or(1);
    pagina_buzon(&app, &ctx, page, &Errores::default()).await
}

/// `POST /panel/buzon/{uuid}`: the API's answer to the request.
pub async fn responder(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(uuid): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let respuesta = campos.valor("respuesta").unwrap_or_default().to_owned();
    let body = Bytes::from(json!({ "respuesta": respuesta }).to_string());
    let result = cancelaciones::responder(
        State(app.clone()),
        crate::extract::Auth(ctx.sesion.caller.clone()),
        EmpresaHeader(empresa_id),
        Path(uuid),
        body,
    )
    .await;
    match result {
        Ok(_) => {
            let aviso = if respuesta == "aceptar" { "cancelacion-aceptada" } else { "cancelacion-rechazada" };
            Ok(redirigir(&format!("/panel/buzon?aviso={aviso}")))
        }
        Err(error) => pagina_buzon(&app, &ctx, 1, &Errores::de(error.0)).await,
    }
}
