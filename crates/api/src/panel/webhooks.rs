//! Webhooks and background jobs: endpoints (create with the secret shown once, edit, pause,
//! delete), secret rotation, test ping, the delivery log with redeliver; the company's jobs in
//! progress and the SAT synchronization's progress. Each action is the API's handler
//! (`routes::webhooks`, `routes::jobs`, `routes::cfdi::recibidos`) called in process.

use std::collections::HashMap;

use axum::Router;
use axum::extract::{Path as AxumPath, Query, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use maud::{Markup, html};
use serde_json::{Value, json};

use super::api_keys::momento;
use super::layout::{Contexto, Errores, Tipo, caja_errores, campo_con, contexto, csrf_oculto, pagina, paginas};
use super::{Campos, Formulario, Pagina, Session, cuerpo, datos, html_con, html_ok, redirigir, texto};
use crate::envelope::{Json, Path, Query as ApiQuery};
use crate::extract::EmpresaHeader;
use crate::routes::{jobs, webhooks};
use timbra_services::context::AppContext;
use timbra_services::events::EventType;

/// Path of the endpoints' page.
pub const RUTA: &str = "/panel/webhooks";
/// Path of the jobs' page.
pub const TRABAJOS: &str = "/panel/trabajos";

/// Routes of the webhooks' and jobs' pages.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route(RUTA, get(lista).post(crear))
        .route("/panel/webhooks/{id}", get(detalle).post(editar))
        .route("/panel/webhooks/{id}/borrar", post(borrar))
        .route("/panel/webhooks/{id}/secreto", post(rotar))
        .route("/panel/webhooks/{id}/probar", post(probar))
        .route("/panel/webhooks/entregas/{id}/reenviar", post(reenviar))
        .route(TRABAJOS, get(trabajos))
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

fn empresa_header(id: &str) -> EmpresaHeader {
    EmpresaHeader(id.to_owned())
}

/// The endpoint form (create or edit): url, event types, description, active.
fn formulario(ctx: &Contexto, accion: &str, guardado: Option<&Value>, campos: &Campos, errores: &Errores) -> Markup {
    let enviado = !campos.0.is_empty();
    let valor = |name: &str| -> Option<String> {
        if enviado { campos.valor(name).map(str::to_owned) } else { guardado.map(|g| texto(g, name).to_owned()) }
    };
    let elegidos: Vec<String> = if enviado {
        campos.todos("events").into_iter().map(str::to_owned).collect()
    } else {
        guardado
            .and_then(|g| g["events"].as_array())
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let activo = if enviado {
        campos.valor("active").is_some()
    } else {
        guardado.is_none_or(|g| g["active"].as_bool().unwrap_or(true))
    };
    html! {
        (caja_errores(errores))
        form method="post" action=(accion) {
            (csrf_oculto(&ctx.sesion))
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
                @for (_, problema) in errores.con_prefijo("events") { p.problemas { (problema) } }
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

/// The API's body of the form; `events` always sent (none marked = every type).
fn cuerpo_de(campos: &Campos) -> Value {
    let events: Vec<&str> = campos.todos("events").into_iter().filter(|e| !e.is_empty()).collect();
    json!({
        "url": campos.valor("url").unwrap_or_default(),
        "events": events,
        "description": campos.valor("description").unwrap_or_default(),
        "active": campos.valor("active").is_some(),
    })
}

/// The secret, shown once after creation or rotation, with a copy button.
fn secreto_nuevo(webhook: &Value) -> Markup {
    html! {
        section.aviso role="status" aria-labelledby="secreto" {
            h2 id="secreto" { "Secreto de firma" }
            p { strong { "Cópielo ahora: no se volverá a mostrar." }
                " Con él su servidor comprueba el encabezado " code { "X-Service-Signature" } " (HMAC-SHA256 del cuerpo)." }
            p.llave id="secreto-nuevo" { (texto(webhook, "secret")) }
            button type="button" data-copiar="#secreto-nuevo" { "Copiar secreto" }
        }
    }
}

async fn listar(app: &AppContext, sesion: &Session, empresa_id: &str) -> Result<Vec<Value>, crate::error::HttpError> {
    let params = ApiQuery(webhooks::ListParams { page: Some(1), page_size: Some(100) });
    let lista = datos(
        webhooks::list(
            State(app.clone()),
            crate::extract::Auth(sesion.caller.clone()),
            empresa_header(empresa_id),
            params,
        )
        .await?,
    )
    .await?;
    Ok(lista["items"].as_array().cloned().unwrap_or_default())
}

fn pagina_lista(
    ctx: &Contexto,
    endpoints: &[Value],
    aviso: Option<&str>,
    nuevo: Option<&Value>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let contenido = html! {
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        @if let Some(nuevo) = nuevo {
            p.aviso role="status" { "Endpoint creado: " a href={ (RUTA) "/" (texto(nuevo, "id")) } { (texto(nuevo, "url")) } }
            (secreto_nuevo(nuevo))
        }
        p { "timbra avisa a sus sistemas por HTTP cuando ocurre un evento (factura timbrada, cancelada, nómina…). "
            "Los envíos fallidos se reintentan; vea cada entrega en la página del endpoint." }
        @if endpoints.is_empty() {
            p { "Aún no hay endpoints." }
        } @else {
            table.apilada {
                caption { "Endpoints" }
                thead { tr { th scope="col" { "URL" } th scope="col" { "Eventos" } th scope="col" { "Estado" } th scope="col" { "Descripción" } } }
                tbody {
                    @for e in endpoints {
                        tr {
                            td data-titulo="URL" { a.uuid href={ (RUTA) "/" (texto(e, "id")) } { (texto(e, "url")) } }
                            td data-titulo="Eventos" { (eventos(e)) }
                            td data-titulo="Estado" { @if e["active"].as_bool().unwrap_or(false) { "Activo" } @else { "Pausado" } }
                            td data-titulo="Descripción" { (texto(e, "description")) }
                        }
                    }
                }
            }
        }
        section aria-labelledby="nuevo-endpoint" {
            h2 id="nuevo-endpoint" { "Nuevo endpoint" }
            (formulario(ctx, RUTA, None, campos, errores))
        }
    };
    pagina(ctx, "Webhooks", RUTA, contenido)
}

fn eventos(endpoint: &Value) -> String {
    match endpoint["events"].as_array() {
        Some(lista) if !lista.is_empty() => lista.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "),
        _ => "Todos".to_owned(),
    }
}

/// `GET /panel/webhooks`.
async fn lista(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let endpoints = listar(&app, &ctx.sesion, &empresa_id).await?;
    Ok(html_ok(pagina_lista(&ctx, &endpoints, aviso(&params), None, &Campos::default(), &Errores::default())))
}

/// `POST /panel/webhooks`: the API's creation; the page shows the secret this once.
async fn crear(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let creado = async {
        let body = Json(cuerpo(cuerpo_de(&campos))?);
        datos(
            webhooks::create(
                State(app.clone()),
                crate::extract::Auth(ctx.sesion.caller.clone()),
                empresa_header(&empresa_id),
                body,
            )
            .await?,
        )
        .await
    }
    .await;
    let endpoints = listar(&app, &ctx.sesion, &empresa_id).await?;
    match creado {
        Ok(nuevo) => {
            Ok(html_ok(pagina_lista(&ctx, &endpoints, None, Some(&nuevo), &Campos::default(), &Errores::default())))
        }
        Err(error) => {
            let errores = Errores::de(error.0);
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
    webhook: Value,
    entregas: Value,
}

async fn leer(
    app: &AppContext,
    sesion: &Session,
    empresa_id: &str,
    id: &str,
    page: i64,
) -> Result<Detalle, crate::error::HttpError> {
    let (state, caller) = (State(app.clone()), sesion.caller.clone());
    let webhook = datos(
        webhooks::get(state, crate::extract::Auth(caller), empresa_header(empresa_id), Path(id.to_owned())).await?,
    )
    .await?;
    let params = ApiQuery(webhooks::ListParams { page: Some(page), page_size: Some(20) });
    let entregas = datos(
        webhooks::deliveries(
            State(app.clone()),
            crate::extract::Auth(sesion.caller.clone()),
            empresa_header(empresa_id),
            Path(id.to_owned()),
            params,
        )
        .await?,
    )
    .await?;
    Ok(Detalle { webhook, entregas })
}

fn pagina_detalle(
    ctx: &Contexto,
    detalle: &Detalle,
    aviso: Option<&str>,
    secreto: Option<&Value>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let w = &detalle.webhook;
    let id = texto(w, "id");
    let base = format!("{RUTA}/{id}");
    let entregas = detalle.entregas["items"].as_array().cloned().unwrap_or_default();
    let contenido = html! {
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        @if let Some(secreto) = secreto { (secreto_nuevo(secreto)) }
        p { a href=(RUTA) { "← Todos los endpoints" } }
        section aria-labelledby="acciones-webhook" {
            h2 id="acciones-webhook" { "Acciones" }
            ul.acciones {
                li { form.en-linea method="post" action={ (base) "/probar" } {
                    (csrf_oculto(&ctx.sesion))
                    button type="submit" { "Enviar evento de prueba" }
                } }
                li { form.en-linea method="post" action={ (base) "/secreto" } {
                    (csrf_oculto(&ctx.sesion))
                    button.secundario type="submit" { "Cambiar secreto" }
                } }
                li { form.en-linea method="post" action={ (base) "/borrar" } {
                    (csrf_oculto(&ctx.sesion))
                    button.peligro type="submit" { "Eliminar endpoint" }
                } }
            }
            p { small { "Al cambiar el secreto, el anterior deja de firmar en ese momento." } }
        }
        section aria-labelledby="entregas" {
            h2 id="entregas" { "Entregas" }
            @if entregas.is_empty() {
                p { "Aún no hay entregas a este endpoint." }
            } @else {
                table.apilada {
                    caption { "Registro de entregas, la más reciente primero" }
                    thead { tr {
                        th scope="col" { "Evento" } th scope="col" { "Estado" } th scope="col" { "Respuesta" }
                        th scope="col" { "Intentos" } th scope="col" { "Siguiente intento" } th scope="col" { "Creada" }
                        th scope="col" { span.oculto { "Acciones" } }
                    } }
                    tbody {
                        @for e in &entregas {
                            tr {
                                td data-titulo="Evento" { code { (texto(e, "eventType")) } }
                                td data-titulo="Estado" { (estado_entrega(texto(e, "status"))) }
                                td data-titulo="Respuesta" {
                                    @if let Some(code) = e["lastStatusCode"].as_i64() { "HTTP " (code) }
                                    @if let Some(ms) = e["lastLatencyMs"].as_i64() { " · " (ms) " ms" }
                                    @if let Some(error) = e["lastError"].as_str() { br; small { (error) } }
                                }
                                td.importe data-titulo="Intentos" { (e["attempts"].as_i64().unwrap_or(0)) }
                                td data-titulo="Siguiente intento" { @if e["nextRetryAt"].is_null() { "—" } @else { (momento(&e["nextRetryAt"])) } }
                                td data-titulo="Creada" { (momento(&e["createdAt"])) }
                                td {
                                    form.en-linea method="post" action={ (RUTA) "/entregas/" (texto(e, "id")) "/reenviar" } {
                                        (csrf_oculto(&ctx.sesion))
                                        button.secundario type="submit" aria-label={ "Reenviar la entrega de " (texto(e, "eventType")) } { "Reenviar" }
                                    }
                                }
                            }
                        }
                    }
                }
                (paginas(&base, None, &detalle.entregas))
            }
        }
        section aria-labelledby="editar-webhook" {
            h2 id="editar-webhook" { "Configuración" }
            (formulario(ctx, &base, Some(w), campos, errores))
        }
    };
    pagina(ctx, &format!("Webhook {}", texto(w, "url")), RUTA, contenido)
}

/// `GET /panel/webhooks/{id}`: the endpoint, its actions and its delivery log.
async fn detalle(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let page = params.get("page").and_then(|p| p.parse::<i64>().ok()).unwrap_or(1);
    let detalle = leer(&app, &ctx.sesion, &empresa_id, &id, page).await?;
    Ok(html_ok(pagina_detalle(&ctx, &detalle, aviso(&params), None, &Campos::default(), &Errores::default())))
}

/// `POST /panel/webhooks/{id}`: the API's update.
async fn editar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { sesion, campos } = formulario;
    let ctx = contexto(&app, sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let guardado = async {
        let body = Json(cuerpo(cuerpo_de(&campos))?);
        let (state, caller) = (State(app.clone()), ctx.sesion.caller.clone());
        webhooks::update(state, crate::extract::Auth(caller), empresa_header(&empresa_id), Path(id.clone()), body)
            .await
            .map(|_| ())
    }
    .await;
    match guardado {
        Ok(()) => Ok(redirigir(&format!("{RUTA}/{id}?hecho=guardado"))),
        Err(error) => {
            let detalle = leer(&app, &ctx.sesion, &empresa_id, &id, 1).await?;
            let errores = Errores::de(error.0);
            Ok(html_con(errores.status(), pagina_detalle(&ctx, &detalle, None, None, &campos, &errores)))
        }
    }
}

/// `POST /panel/webhooks/{id}/borrar`.
async fn borrar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let ctx = contexto(&app, formulario.sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    webhooks::delete(
        State(app.clone()),
        crate::extract::Auth(ctx.sesion.caller.clone()),
        empresa_header(&empresa_id),
        Path(id),
    )
    .await?;
    Ok(redirigir(&format!("{RUTA}?hecho=borrado")))
}

/// `POST /panel/webhooks/{id}/secreto`: the API's rotation; the page shows the new secret once.
async fn rotar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let ctx = contexto(&app, formulario.sesion, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let (state, caller) = (State(app.clone()), ctx.sesion.caller.clone());
    let rotado = datos(
        webhooks::rotate_secret(state, crate::extract::Auth(caller), empresa_header(&empresa_id), Path(id.clone()))
            .await?,
    )
    .await?;
    let detalle = leer(&app, &ctx.sesion, &empresa_id, &id, 1).await?;
    let aviso = Some("Secreto cambiado: el anterior ya no firma.");
    Ok(html_ok(pagina_detalle(&ctx, &detalle, aviso, Some(&rotado), &Campos::default(), &Errores::default())))
}

/// `POST /panel/webhooks/{id}/probar`: the API's test ping.
async fn probar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let ctx = contexto(&app, formulario.sesion, &headers, &HashMap::new()).await?;
    let (state, caller, empresa) = ctx.para_api(&app)?;
    webhooks::test(state, crate::extract::Auth(caller), empresa, Path(id.clone())).await?;
    Ok(redirigir(&format!("{RUTA}/{id}?hecho=ping")))
}

/// `POST /panel/webhooks/entregas/{id}/reenviar`: the API's redelivery.
async fn reenviar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let ctx = contexto(&app, formulario.sesion, &headers, &HashMap::new()).await?;
    let (state, caller, empresa) = ctx.para_api(&app)?;
    let nueva = datos(webhooks::redeliver(state, crate::extract::Auth(caller), empresa, Path(id)).await?).await?;
    Ok(redirigir(&format!("{RUTA}/{}?hecho=reenviada", texto(&nueva, "webhookId"))))
}

/// A job's status in Spanish.
fn estado_trabajo(status: &str) -> &str {
    match status {
        "queued" => "En cola",
        "running" => "En proceso",
        "done" => "Terminado",
        "dead" => "Falló (sin más intentos)",
        other => other,
    }
}

/// What a job does, in Spanish where known.
fn tipo_trabajo(kind: &str) -> String {
    let texto = match kind {
        "webhook.deliver" => "Entrega de webhook",
        _ if kind.contains("recibidos") || kind.contains("sync") => "Sincronización con el SAT",
        _ if kind.contains("descarga") => "Descarga del SAT",
        _ => return kind.to_owned(),
    };
    format!("{texto} ({kind})")
}

/// The SAT synchronization of received invoices, when the person may see it and it exists.
async fn sincronizacion(app: &AppContext, sesion: &Session, empresa_id: &str) -> Option<Value> {
    let answer = crate::routes::cfdi::recibidos::sync_recibidos_status(
        State(app.clone()),
        crate::extract::Auth(sesion.caller.clone()),
        empresa_header(empresa_id),
    )
    .await
    .ok()?;
    if !answer.status().is_success() {
        return None;
    }
    datos(answer).await.ok().filter(|estado| !estado["jobId"].is_null() || estado["syncStatus"] != "IDLE")
}

fn seccion_sincronizacion(estado: &Value) -> Markup {
    let progreso = &estado["progress"];
    let de = |hechos: &str, total: &str| match progreso[total].as_i64() {
        Some(total) => format!("{} de {total}", progreso[hechos].as_i64().unwrap_or(0)),
        None => format!("{} (el SAT aún prepara el total)", progreso[hechos].as_i64().unwrap_or(0)),
    };
    html! {
        section aria-labelledby="sat" {
            h2 id="sat" { "Sincronización de facturas recibidas (SAT)" }
            dl.datos {
                dt { "Estado" }
                dd { (match texto(estado, "syncStatus") { "RUNNING" => "En proceso", "FAILED" => "Falló", _ => "Sin sincronización en curso" }) }
                @if let (Some(year), Some(month)) = (estado["year"].as_i64(), estado["month"].as_i64()) {
                    dt { "Mes" } dd { (format!("{year}-{month:02}")) }
                }
                @if !progreso.is_null() {
                    dt { "Paquetes" } dd { (de("paquetesHechos", "paquetesTotal")) }
                    dt { "CFDI leídos" } dd { (de("cfdiHechos", "cfdiTotal")) }
                    dt { "CFDI nuevos" } dd { (progreso["cfdiNuevos"].as_i64().unwrap_or(0)) }
                }
                dt { "Recibidas guardadas" } dd { (estado["totalRecibidos"].as_i64().unwrap_or(0)) }
                dt { "Última sincronización completa" } dd { @if estado["lastSyncAt"].is_null() { "—" } @else { (momento(&estado["lastSyncAt"])) } }
                @if let Some(error) = estado["error"].as_object() {
                    dt { "Error" } dd { code { (error.get("code").and_then(Value::as_str).unwrap_or_default()) } " " (error.get("message").and_then(Value::as_str).unwrap_or_default()) }
                }
            }
        }
    }
}

/// `GET /panel/trabajos`: the company's background jobs (filter by status, paging), refreshed
/// every few seconds, and the SAT synchronization's progress.
async fn trabajos(
    State(app): State<AppContext>,
    sesion: Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, sesion, &headers, &params).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let status = params.get("status").map(String::as_str).filter(|s| !s.is_empty());
    let page = params.get("page").and_then(|p| p.parse::<i64>().ok()).unwrap_or(1);
    let consulta =
        ApiQuery(jobs::JobParams { status: status.map(str::to_owned), page: Some(page), page_size: Some(20) });
    let lista = datos(
        jobs::list(
            State(app.clone()),
            crate::extract::Auth(ctx.sesion.caller.clone()),
            empresa_header(&empresa_id),
            consulta,
        )
        .await?,
    )
    .await?;
    let sat = sincronizacion(&app, &ctx.sesion, &empresa_id).await;
    let items = lista["items"].as_array().cloned().unwrap_or_default();
    let filtros: &[(&str, &str)] = &[
        ("", "Todos"),
        ("queued", "En cola"),
        ("running", "En proceso"),
        ("done", "Terminados"),
        ("dead", "Fallidos"),
    ];
    let actual = format!("{TRABAJOS}?status={}&page={page}", status.unwrap_or_default());
    let contenido = html! {
        div id="trabajos" hx-get=(actual) hx-trigger="every 5s" hx-select="#trabajos" hx-swap="outerHTML" {
            @if let Some(sat) = &sat { (seccion_sincronizacion(sat)) }
            form.busqueda method="get" action=(TRABAJOS) {
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
                    thead { tr {
                        th scope="col" { "Trabajo" } th scope="col" { "Estado" } th scope="col" { "Intentos" }
                        th scope="col" { "Programado / vence" } th scope="col" { "Último error" } th scope="col" { "Creado" }
                    } }
                    tbody {
                        @for job in &items {
                            tr {
                                td data-titulo="Trabajo" { (tipo_trabajo(texto(job, "kind"))) }
                                td data-titulo="Estado" { (estado_trabajo(texto(job, "status"))) }
                                td.importe data-titulo="Intentos" { (job["attempts"].as_i64().unwrap_or(0)) " de " (job["maxAttempts"].as_i64().unwrap_or(0)) }
                                td data-titulo="Programado / vence" { (momento(&job["runAt"])) }
                                td data-titulo="Último error" { (texto(job, "lastError")) }
                                td data-titulo="Creado" { (momento(&job["createdAt"])) }
                            }
                        }
                    }
                }
                (paginas(TRABAJOS, None, &lista))
            }
        }
    };
    Ok(html_ok(pagina(&ctx, "Trabajos en segundo plano", TRABAJOS, contenido)))
}
