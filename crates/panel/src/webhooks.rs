//! Webhooks and background jobs: endpoints (create with the secret shown once, edit, pause,
//! delete), secret rotation, test ping, the delivery log with redeliver; the company's jobs in
//! progress and the SAT synchronization's progress. Each action calls the services the API's
//! `/api/webhooks`, `/api/jobs` and `/api/cfdi/sync-recibidos` call
//! (`timbra_services::webhooks::endpoints`, `jobs::page`, `cfdi::recibidos::sincronizacion`),
//! with the same permissions.

use std::collections::HashMap;
use timbra_store::ids::EmpresaId;

use axum::Router;
use axum::extract::{Path as AxumPath, State};
use axum::routing::{get, post};
use maud::{Markup, html};

use super::api_keys::momento;
use super::layout::{
    Columna, Contexto, Errores, Tipo, caja_errores, campo_con, csrf_oculto, encabezados, listado, pagina, paginas_de,
};
use super::{Accion, Campos, Pagina, Session, Vista, html_con, html_ok, paging, paging_de, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::recibidos::{self, sincronizacion};
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;
use timbra_services::events::EventType;
use timbra_services::scoped;
use timbra_services::webhooks::endpoints::{self, Endpoints, Fields};
use timbra_store::Paging;
use timbra_store::webhooks::{DeliveryRow, WebhookRow};

/// Path of the endpoints' page.
pub const RUTA: &str = "/panel/webhooks";
/// Path of the jobs' page.
pub const JOBS: &str = "/panel/trabajos";

/// Routes of the webhooks' and jobs' pages.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route(RUTA, get(lista).post(crear))
        .route("/panel/webhooks/{id}", get(detalle).post(editar))
        .route("/panel/webhooks/{id}/borrar", post(borrar))
        .route("/panel/webhooks/{id}/secreto", post(rotar))
        .route("/panel/webhooks/{id}/probar", post(probar))
        .route("/panel/webhooks/entregas/{id}/reenviar", post(reenviar))
        .route(JOBS, get(jobs))
}

/// The notice of a finished action (query `hecho`).
fn aviso(params: &HashMap<String, String>) -> Option<&'static str> {
    Some(match params.get("hecho").map(String::as_str)? {
        "guardado" => "Cambios guardados.",
        "borrado" => "Endpoint eliminado; sus entregas pendientes ya no se intentarán.",
        "ping" => "Evento de prueba (webhook.ping) en cola: su entrega aparece abajo.",
        "reenviada" => "Entrega reenviada: aparece abajo como una entrega nueva.",
        _ => return None,
    })
}

/// Event types a person can subscribe to (the ping goes only to the endpoint tested).
fn tipos() -> impl Iterator<Item = EventType> {
    EventType::ALL.iter().copied().filter(|t| *t != EventType::WebhookPing)
}

/// The endpoint form (create or edit): url, event types, description, active.
fn formulario(
    ctx: &Contexto,
    accion: &str,
    guardado: Option<&WebhookRow>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let enviado = !campos.0.is_empty();
    let valor = |name: &str| -> Option<String> {
        if enviado {
            campos.valor(name).map(str::to_owned)
        } else {
            guardado.map(|g| match name {
                "url" => g.url.clone(),
                "description" => g.description.clone().unwrap_or_default(),
                _ => String::new(),
            })
        }
    };
    let elegidos: Vec<String> = if enviado {
        campos.todos("events").into_iter().map(str::to_owned).collect()
    } else {
        guardado.and_then(endpoints::events).unwrap_or_default()
    };
    let activo = if enviado { campos.valor("active").is_some() } else { guardado.is_none_or(|g| g.active) };
    html! {
        (caja_errores(errores))
        form method="post" action=(accion) {
            (csrf_oculto(&ctx.session))
            (campo_con("url", "URL que recibe los eventos", Tipo::Texto, valor("url").as_deref(), true, errores,
                Some("https:// pública; timbra firma cada envío con X-Service-Signature")))
            fieldset {
                legend { "Eventos" }
                small { "Sin marcar ninguno, recibe todos (también los que se agreguen)." }
                div.linea {
                    @for tipo in tipos() {
                        @let id = format!("evento-{}", tipo.as_str().replace(['.', '_'], "-"));
                        div {
                            input type="checkbox" name="events" value=(tipo.as_str()) id=(id)
                                checked[elegidos.iter().any(|e| e == tipo.as_str())];
                            label for=(id) { code { (tipo.as_str()) } }
                        }
                    }
                }
                @for problema in errores.frases_con_prefijo("events") { p.problemas { (problema) } }
            }
            (campo_con("description", "Descripción", Tipo::Texto, valor("description").as_deref(), false, errores,
                Some("Una nota para su equipo, hasta 500 caracteres")))
            div.campo {
                div {
                    input type="checkbox" name="active" value="true" id="campo-active" checked[activo];
                    label for="campo-active" { "Activo (desmarque para pausar los envíos)" }
                }
            }
            button type="submit" { @if guardado.is_some() { "Guardar cambios" } @else { "Crear endpoint" } }
        }
    }
}

/// The endpoint's fields of the form; `events` always sent (none marked = every type).
fn campos_de(campos: &Campos) -> Fields {
    let events = campos.todos("events").into_iter().filter(|e| !e.is_empty()).map(str::to_owned).collect();
    Fields {
        url: Some(campos.valor("url").unwrap_or_default().to_owned()),
        events: Some(events),
        description: Some(campos.valor("description").unwrap_or_default().to_owned()),
        active: Some(campos.valor("active").is_some()),
    }
}

/// The secret, shown once after creation or rotation, with a copy button.
fn secreto_nuevo(secret: &str) -> Markup {
    html! {
        section.aviso role="status" aria-labelledby="secreto" {
            h2 id="secreto" { "Secreto de firma" }
            p { strong { "Cópielo ahora: no se volverá a mostrar." }
                " Con él su servidor comprueba el encabezado " code { "X-Service-Signature" } " (HMAC-SHA256 del cuerpo)." }
            p.llave id="secreto-nuevo" { (secret) }
            button type="button" data-copiar="#secreto-nuevo" { "Copiar secreto" }
        }
    }
}

/// The company's endpoints (the newest 100), for who may manage them.
async fn listar(app: &AppContext, session: &Session, empresa_id: &EmpresaId) -> Result<Vec<WebhookRow>, ApiError> {
    session.caller.authorize(app, empresa_id, Permission::WebhookManage).await?;
    // Endpoints are not searched.
    let (filas, _) = scoped::page::<Endpoints>(app, empresa_id, None, &Paging { page: 1, page_size: 100 }).await?;
    Ok(filas)
}

fn pagina_lista(
    ctx: &Contexto,
    endpoints: &[WebhookRow],
    aviso: Option<&str>,
    nuevo: Option<&(WebhookRow, String)>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let contenido = html! {
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        @if let Some((nuevo, secret)) = nuevo {
            p.aviso role="status" { "Endpoint creado: " a href={ (RUTA) "/" (nuevo.id) } { (nuevo.url) } }
            (secreto_nuevo(secret))
        }
        p { "timbra avisa a sus sistemas por HTTP cuando ocurre un evento (factura timbrada, cancelada, nómina…). "
            "Los envíos fallidos se reintentan; vea cada entrega en la página del endpoint." }
        (listado(
            endpoints,
            html! { "Aún no hay endpoints." },
            html! { "Endpoints" },
            &[Columna::Texto("URL"), Columna::Texto("Eventos"), Columna::Texto("Estado"), Columna::Texto("Descripción")],
            |e| html! {
                tr {
                    td data-titulo="URL" { a.uuid href={ (RUTA) "/" (e.id) } { (e.url) } }
                    td data-titulo="Eventos" { (eventos(e)) }
                    td data-titulo="Estado" { @if e.active { "Activo" } @else { "Pausado" } }
                    td data-titulo="Descripción" { (e.description.as_deref().unwrap_or_default()) }
                }
            },
            None,
        ))
        section aria-labelledby="nuevo-endpoint" {
            h2 id="nuevo-endpoint" { "Nuevo endpoint" }
            (formulario(ctx, RUTA, None, campos, errores))
        }
    };
    pagina(ctx, "Webhooks", RUTA, contenido)
}

fn eventos(endpoint: &WebhookRow) -> String {
    match endpoints::events(endpoint) {
        Some(lista) if !lista.is_empty() => lista.join(", "),
        _ => "Todos".to_owned(),
    }
}

/// `GET /panel/webhooks`.
async fn lista(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa_id = ctx.empresa()?.id.clone();
    let endpoints = listar(&app, &ctx.session, &empresa_id).await?;
    Ok(html_ok(pagina_lista(&ctx, &endpoints, aviso(&params), None, &Campos::default(), &Errores::default())))
}

/// `POST /panel/webhooks`: creates the endpoint as the API does; the page shows the secret
/// this once.
async fn crear(State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let creado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
        endpoints::create(&app, &empresa_id, campos_de(&campos)).await
    }
    .await;
    let endpoints = listar(&app, &ctx.session, &empresa_id).await?;
    match creado {
        Ok(nuevo) => {
            Ok(html_ok(pagina_lista(&ctx, &endpoints, None, Some(&nuevo), &Campos::default(), &Errores::default())))
        }
        Err(error) => {
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &endpoints, None, None, &campos, &errores)))
        }
    }
}

/// The delivery log's status in Spanish.
fn estado_entrega(status: &str) -> &str {
    match status {
        "pending" => "Pendiente",
        "succeeded" => "Entregada",
        "failed" => "Fallida",
        other => other,
    }
}

struct Detalle {
    webhook: WebhookRow,
    entregas: Vec<DeliveryRow>,
    total: i64,
    paging: Paging,
}

async fn leer(
    app: &AppContext,
    session: &Session,
    empresa_id: &EmpresaId,
    id: &str,
    paging: Paging,
) -> Result<Detalle, ApiError> {
    session.caller.authorize(app, empresa_id, Permission::WebhookManage).await?;
    let webhook = scoped::get::<Endpoints>(app, empresa_id, id).await?;
    let (entregas, total) = endpoints::deliveries(app, empresa_id, id, &paging).await?;
    Ok(Detalle { webhook, entregas, total, paging })
}

fn pagina_detalle(
    ctx: &Contexto,
    detalle: &Detalle,
    aviso: Option<&str>,
    secreto: Option<&str>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let w = &detalle.webhook;
    let id = w.id.as_str();
    let base = format!("{RUTA}/{id}");
    let entregas = &detalle.entregas;
    let contenido = html! {
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        @if let Some(secreto) = secreto { (secreto_nuevo(secreto)) }
        p { a href=(RUTA) { "← Todos los endpoints" } }
        section aria-labelledby="acciones-webhook" {
            h2 id="acciones-webhook" { "Acciones" }
            ul.acciones {
                li { form.en-linea method="post" action={ (base) "/probar" } {
                    (csrf_oculto(&ctx.session))
                    button type="submit" { "Enviar evento de prueba" }
                } }
                li { form.en-linea method="post" action={ (base) "/secreto" } {
                    (csrf_oculto(&ctx.session))
                    button.secundario type="submit" { "Cambiar secreto" }
                } }
                li { form.en-linea method="post" action={ (base) "/borrar" } {
                    (csrf_oculto(&ctx.session))
                    button.peligro type="submit" { "Eliminar endpoint" }
                } }
            }
            p { small { "Al cambiar el secreto, el anterior deja de firmar en ese momento." } }
        }
        section aria-labelledby="entregas" {
            h2 id="entregas" { "Entregas" }
            (listado(
                &entregas[..],
                html! { "Aún no hay entregas a este endpoint." },
                html! { "Registro de entregas, la más reciente primero" },
                &[Columna::Texto("Evento"), Columna::Texto("Estado"), Columna::Texto("Respuesta"), Columna::Texto("Intentos"), Columna::Texto("Siguiente intento"), Columna::Texto("Creada"), Columna::Oculta("Acciones")],
                |e| html! {
                    tr {
                        td data-titulo="Evento" { code { (e.event_type) } }
                        td data-titulo="Estado" { (estado_entrega(&e.status)) }
                        td data-titulo="Respuesta" {
                            @if let Some(code) = e.last_status_code { "HTTP " (code) }
                            @if let Some(ms) = e.last_latency_ms { " · " (ms) " ms" }
                            @if let Some(error) = &e.last_error { br; small { (error) } }
                        }
                        td.importe data-titulo="Intentos" { (e.attempts) }
                        td data-titulo="Siguiente intento" { (momento(e.next_retry_at)) }
                        td data-titulo="Creada" { (momento(Some(e.created_at))) }
                        td {
                            form.en-linea method="post" action={ (RUTA) "/entregas/" (e.id) "/reenviar" } {
                                (csrf_oculto(&ctx.session))
                                button.secundario type="submit" aria-label={ "Reenviar la entrega de " (e.event_type) } { "Reenviar" }
                            }
                        }
                    }
                },
                Some(paginas_de(&base, None, detalle.total, detalle.paging)),
            ))
        }
        section aria-labelledby="editar-webhook" {
            h2 id="editar-webhook" { "Configuración" }
            (formulario(ctx, &base, Some(w), campos, errores))
        }
    };
    pagina(ctx, &format!("Webhook {}", w.url), RUTA, contenido)
}

/// `GET /panel/webhooks/{id}`: the endpoint, its actions and its delivery log.
async fn detalle(State(app): State<AppContext>, vista: Vista, AxumPath(id): AxumPath<String>) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa_id = ctx.empresa()?.id.clone();
    let detalle = leer(&app, &ctx.session, &empresa_id, &id, paging(&params)?).await?;
    Ok(html_ok(pagina_detalle(&ctx, &detalle, aviso(&params), None, &Campos::default(), &Errores::default())))
}

/// `POST /panel/webhooks/{id}`: updates the endpoint as the API does.
async fn editar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let guardado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
        endpoints::update(&app, &empresa_id, &id, campos_de(&campos)).await
    }
    .await;
    match guardado {
        Ok(_) => Ok(redirigir(&format!("{RUTA}/{id}?hecho=guardado"))),
        Err(error) => {
            let detalle = leer(&app, &ctx.session, &empresa_id, &id, paging_de(1)?).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_detalle(&ctx, &detalle, None, None, &campos, &errores)))
        }
    }
}

/// `POST /panel/webhooks/{id}/borrar`.
async fn borrar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    scoped::delete::<Endpoints>(&app, &empresa_id, &id).await?;
    Ok(redirigir(&format!("{RUTA}?hecho=borrado")))
}

/// `POST /panel/webhooks/{id}/secreto`: rotates the secret as the API does; the page shows the
/// new secret once.
async fn rotar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let (_, secret) = endpoints::rotate_secret(&app, &empresa_id, &id).await?;
    let detalle = leer(&app, &ctx.session, &empresa_id, &id, paging_de(1)?).await?;
    let aviso = Some("Secreto cambiado: el anterior ya no firma.");
    Ok(html_ok(pagina_detalle(&ctx, &detalle, aviso, Some(&secret), &Campos::default(), &Errores::default())))
}

/// `POST /panel/webhooks/{id}/probar`: queues the test ping as the API does.
async fn probar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    endpoints::ping(&app, &empresa_id, &id).await?;
    Ok(redirigir(&format!("{RUTA}/{id}?hecho=ping")))
}

/// `POST /panel/webhooks/entregas/{id}/reenviar`: redelivers as the API does.
async fn reenviar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::WebhookManage).await?;
    let nueva = endpoints::redeliver(&app, &empresa_id, &id).await?;
    Ok(redirigir(&format!("{RUTA}/{}?hecho=reenviada", nueva.webhook_id)))
}

/// A job's status in Spanish.
fn job_status_label(status: &str) -> &str {
    match status {
        "queued" => "En cola",
        "running" => "En proceso",
        "done" => "Terminado",
        "dead" => "Falló (sin más intentos)",
        other => other,
    }
}

/// What a job does, in Spanish where known.
fn job_kind_label(kind: &str) -> String {
    let texto = match kind {
        "webhook.deliver" => "Entrega de webhook",
        _ if kind.contains("recibidos") || kind.contains("sync") => "Sincronización con el SAT",
        _ if kind.contains("descarga") => "Descarga del SAT",
        _ => return kind.to_owned(),
    };
    format!("{texto} ({kind})")
}

/// The SAT synchronization of received invoices, when the person may see it (cfdi:descargar,
/// as `GET /api/cfdi/sync-recibidos`) and it exists.
async fn sincronizacion(app: &AppContext, session: &Session, empresa_id: &EmpresaId) -> Option<sincronizacion::Estado> {
    session.caller.authorize(app, empresa_id, Permission::CfdiDescargar).await.ok()?;
    let empresa = recibidos::empresa(app, empresa_id).await.ok()?;
    let estado = sincronizacion::estado(app, &empresa.id).await.ok()?;
    (estado.ultima.is_some() || estado.sync_status != "IDLE").then_some(estado)
}

fn seccion_sincronizacion(estado: &sincronizacion::Estado) -> Markup {
    let de = |hechos: i64, total: Option<i64>| match total {
        Some(total) => format!("{hechos} de {total}"),
        None => format!("{hechos} (el SAT aún prepara el total)"),
    };
    let ultima = estado.ultima.as_ref();
    html! {
        section aria-labelledby="sat" {
            h2 id="sat" { "Sincronización de facturas recibidas (SAT)" }
            dl.datos {
                dt { "Estado" }
                dd { (match estado.sync_status { "RUNNING" => "En proceso", "FAILED" => "Falló", _ => "Sin sincronización en curso" }) }
                @if let Some(s) = ultima {
                    dt { "Mes" } dd { (format!("{}-{:02}", s.anio, s.mes)) }
                    dt { "Paquetes" } dd { (de(s.paquetes_hechos, sincronizacion::paquetes_total(s))) }
                    dt { "CFDI leídos" } dd { (de(s.cfdi_hechos, s.cfdi_total)) }
                    dt { "CFDI nuevos" } dd { (s.cfdi_nuevos) }
                }
                dt { "Recibidas guardadas" } dd { (estado.total_recibidos) }
                dt { "Última sincronización completa" } dd { (momento(estado.last_sync_at)) }
                @if let Some((code, message)) = ultima.and_then(|s| Some((s.error_code.as_deref()?, s.error_message.as_deref().unwrap_or_default()))) {
                    dt { "Error" } dd { code { (code) } " " (message) }
                }
            }
        }
    }
}

/// `GET /panel/trabajos`: the company's background jobs (filter by status, paging), refreshed
/// every few seconds, and the SAT synchronization's progress.
async fn jobs(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa_id = ctx.empresa()?.id.clone();
    let status = params.get("status").map(String::as_str).filter(|s| !s.is_empty());
    let paging = paging(&params)?;
    let page = paging.page;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::JobView).await?;
    let (items, total) = timbra_services::jobs::page(&app.db, &empresa_id, status, &paging).await?;
    let sat = sincronizacion(&app, &ctx.session, &empresa_id).await;
    let filtros: &[(&str, &str)] = &[
        ("", "Todos"),
        ("queued", "En cola"),
        ("running", "En proceso"),
        ("done", "Terminados"),
        ("dead", "Fallidos"),
    ];
    let actual = format!("{JOBS}?status={}&page={page}", status.unwrap_or_default());
    let contenido = html! {
        div id="trabajos" hx-get=(actual) hx-trigger="every 5s" hx-select="#trabajos" hx-swap="outerHTML" {
            @if let Some(sat) = &sat { (seccion_sincronizacion(sat)) }
            form.busqueda method="get" action=(JOBS) {
                div.campo {
                    label for="status" { "Mostrar" }
                    select id="status" name="status" {
                        @for (valor, nombre) in filtros {
                            option value=(valor) selected[status.unwrap_or_default() == *valor] { (nombre) }
                        }
                    }
                }
                button type="submit" { "Filtrar" }
            }
            @if items.is_empty() {
                p { "No hay trabajos" @if status.is_some() { " con ese estado" } "." }
            } @else {
                table.apilada aria-live="polite" {
                    caption { "Trabajos en segundo plano, el más reciente primero (se actualiza solo)" }
                    (encabezados(&[Columna::Texto("Trabajo"), Columna::Texto("Estado"), Columna::Texto("Intentos"), Columna::Texto("Programado / vence"), Columna::Texto("Último error"), Columna::Texto("Creado")]))
                    tbody {
                        @for job in &items {
                            tr {
                                td data-titulo="Trabajo" { (job_kind_label(&job.kind)) }
                                td data-titulo="Estado" { (job_status_label(&job.status)) }
                                td.importe data-titulo="Intentos" { (job.attempts) " de " (job.max_attempts) }
                                td data-titulo="Programado / vence" { (momento(Some(job.run_at))) }
                                td data-titulo="Último error" { (job.last_error.as_deref().unwrap_or_default()) }
                                td data-titulo="Creado" { (momento(Some(job.created_at))) }
                            }
                        }
                    }
                }
                (paginas_de(JOBS, None, total, paging))
            }
        }
    };
    Ok(html_ok(pagina(&ctx, "Trabajos en segundo plano", JOBS, contenido)))
}
