//! The Buzón: cancellation requests from suppliers waiting for this company's answer (with
//! their deadline and accept/reject buttons), and received CFDI whose status at SAT changed.
//! The page calls the services the API's `/api/cancelaciones/pendientes` calls
//! (`timbra_services::cfdi::receptor::solicitudes`).

use axum::Router;
use axum::extract::{Path as AxumPath, State};
use axum::routing::{get, post};
use maud::html;
use timbra_store::Paging;

use super::layout::{
    Columna, Contexto, Errores, caja_errores, csrf_oculto, error_api, listado, pagina, paginas_breves,
};
use super::{Accion, Pagina, Vista, fecha_hora, html_con, paging, paging_de, pesos_texto, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::receptor::{estado_sat, solicitudes};
use timbra_services::context::AppContext;

/// Routes of the Buzón.
pub fn rutas() -> Router<AppContext> {
    Router::new().route("/panel/buzon", get(buzon)).route("/panel/buzon/{uuid}", post(responder))
}

async fn pagina_buzon(app: &AppContext, ctx: &Contexto, paging: Paging, errores: &Errores) -> Pagina {
    let empresa = ctx.empresa()?;
    let resultado = async {
        ctx.session.caller.authorize(app, &empresa.id, Permission::CfdiEstadoSat).await?;
        solicitudes::listar(app, &empresa.id, paging).await
    }
    .await;
    let ((pendientes, total), error) = match resultado {
        Ok(lista) => (lista, None),
        Err(error) => ((Vec::new(), 0), Some(error)),
    };
    let cambiadas = match ctx.session.caller.authorize(app, &empresa.id, Permission::CfdiEstadoSat).await {
        Ok(_) => estado_sat::recibidas_cambiadas(app, &empresa.id, 50).await.unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let contenido = html! {
        p { "Cuando un proveedor pide cancelar un comprobante que usted recibió, el SAT espera su respuesta "
            "durante tres días hábiles; si no responde, el SAT lo cancela (plazo vencido)." }
        (caja_errores(errores))
        @if let Some(error) = &error { (error_api(error)) }
        section aria-labelledby="pendientes" {
            h2 id="pendientes" { "Solicitudes de cancelación pendientes" }
            (listado(
                &pendientes[..],
                html! { "No hay solicitudes pendientes de su respuesta." },
                html! { "Solicitudes por responder" },
                &[Columna::Texto("Folio fiscal (UUID)"), Columna::Texto("Emisor"), Columna::Importe("Total"), Columna::Texto("Solicitada"), Columna::Texto("Vence"), Columna::Texto("Respuesta")],
                |s| html! {
                    tr {
                        td.uuid data-titulo="UUID" { (s.uuid) }
                        td data-titulo="Emisor" { (s.nombre_emisor.as_deref().unwrap_or_default()) br; small { (s.rfc_emisor.as_deref().unwrap_or_default()) } }
                        td.importe data-titulo="Total" { (s.total.as_deref().map(pesos_texto).unwrap_or_default()) }
                        td data-titulo="Solicitada" { (fecha_hora(s.fecha_solicitud)) }
                        td data-titulo="Vence" { strong { (fecha_hora(s.plazo_vence)) } }
                        td data-titulo="Respuesta" {
                            form method="post" action={ "/panel/buzon/" (s.uuid) } {
                                (csrf_oculto(&ctx.session))
                                button type="submit" name="respuesta" value="aceptar" { "Aceptar" }
                                " "
                                button.peligro type="submit" name="respuesta" value="rechazar" { "Rechazar" }
                            }
                        }
                    }
                },
                Some(paginas_breves("/panel/buzon", total, paging)),
            ))
        }
        section aria-labelledby="cambiadas" {
            h2 id="cambiadas" { "Comprobantes recibidos cuyo estado cambió en el SAT" }
            (listado(
                &cambiadas[..],
                html! { "Ningún comprobante recibido cambió de estado." },
                html! { "Cambios de estado" },
                &[Columna::Texto("Folio fiscal (UUID)"), Columna::Texto("Emisor"), Columna::Importe("Total"), Columna::Texto("Estado en el SAT"), Columna::Texto("Visto")],
                |c| html! {
                    tr {
                        td.uuid data-titulo="UUID" { a href={ "/panel/facturas/" (c.cfdi_id) } { (c.uuid) } }
                        td data-titulo="Emisor" { (c.emisor_nombre) br; small { (c.emisor_rfc) } }
                        td.importe data-titulo="Total" { (pesos_texto(&c.total)) }
                        td data-titulo="Estado en el SAT" {
                            (c.estado) @if !c.estatus_cancelacion.is_empty() { " · " (c.estatus_cancelacion) }
                        }
                        td data-titulo="Visto" { (c.cambiado_en.clone().unwrap_or_default().replace('T', " ").chars().take(16).collect::<String>()) }
                    }
                },
                None,
            ))
        }
    };
    Ok(html_con(errores.status(), pagina(ctx, "Buzón", "/panel/buzon", contenido)))
}

/// `GET /panel/buzon`.
pub async fn buzon(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    pagina_buzon(&app, &ctx, paging(&params)?, &Errores::default()).await
}

/// `POST /panel/buzon/{uuid}`: the answer to the request, as the API gives it.
pub async fn responder(State(app): State<AppContext>, AxumPath(uuid): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let respuesta = campos.valor("respuesta").unwrap_or_default().to_owned();
    let result = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::CfdiCancelar).await?;
        solicitudes::responder(&app, &empresa_id, &uuid, &respuesta).await
    }
    .await;
    match result {
        Ok(_) => {
            let aviso = if respuesta == "aceptar" { "cancelacion-aceptada" } else { "cancelacion-rechazada" };
            Ok(redirigir(&format!("/panel/buzon?aviso={aviso}")))
        }
        Err(error) => pagina_buzon(&app, &ctx, paging_de(1)?, &Errores::de(error)).await,
    }
}
