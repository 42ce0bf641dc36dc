//! API keys: the person's keys by prefix, creation (the key shown once, with a copy button),
//! narrowing to companies and scopes, revocation, and a key for AI agents (MCP) with the
//! configuration snippet of a desktop assistant. Each action calls the services the API's
//! `/api/api-keys` calls (`timbra_services::auth::api_keys`) with the session.

use std::collections::{BTreeSet, HashMap};

use axum::Router;
use axum::extract::{Path as AxumPath, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use maud::{Markup, html};
use time::OffsetDateTime;

use super::layout::{
    Columna, Contexto, Errores, Tipo, caja_errores, campo_con, contexto, csrf_oculto, listado, pagina,
};
use super::{Campos, Formulario, Pagina, Vista, html_con, html_ok, redirigir};
use timbra_services::auth::api_keys::{self, CreatedKey, KeyRequest};
use timbra_services::auth::roles::{MCP_LIVE, Permission};
use timbra_services::cfdi::recibos_consulta::url_publica;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_store::users::KeyRow;

/// Path of the keys' page.
pub const RUTA: &str = "/panel/llaves";

/// Routes of the keys' pages.
pub fn rutas() -> Router<AppContext> {
    Router::new().route(RUTA, get(lista).post(crear)).route("/panel/llaves/{id}/revocar", post(revocar))
}

/// The scopes a key can be narrowed to, in the role table's order, without repeats, and
/// `mcp:live` last.
fn alcances() -> Vec<&'static str> {
    let mut vistos = BTreeSet::new();
    let mut alcances: Vec<&str> = Permission::ALL.iter().map(|p| p.scope()).filter(|s| vistos.insert(*s)).collect();
    alcances.push(MCP_LIVE);
    alcances
}

/// What an agent needs to invoice through `/mcp`: read its companies, customers, products and
/// CFDI, create customers, stamp. Cancelling, SAT downloads and `mcp:live` are ticked by hand
/// ([`OPCIONES_AGENTE`]).
const ALCANCES_AGENTE: &[&str] =
    &["empresa:view", "cliente:view", "cliente:create", "producto:view", "cfdi:view", "cfdi:timbrar"];

/// The form of a key for agents: one company, the agent's scopes, `mcp:live` only if marked.
/// The agent key's optional scopes: the MCP tools `cancelar_cfdi`, and `sincronizar_recibidos`
/// with `descargar_por_uuid`.
const OPCIONES_AGENTE: &[(&str, &str)] =
    &[("cfdi:cancelar", "Permitir cancelar CFDI"), ("cfdi:descargar", "Permitir descargar del SAT los CFDI recibidos")];

fn formulario_agente(ctx: &Contexto) -> Markup {
    html! {
        section aria-labelledby="llave-agente" {
            h2 id="llave-agente" { "Una llave para agentes (MCP)" }
            p { "Para un asistente de IA que factura por " code { "/mcp" } ": una sola empresa y solo los permisos de "
                "facturar (" @for (i, alcance) in ALCANCES_AGENTE.iter().enumerate() { @if i > 0 { ", " } code { (alcance) } } "). "
                "En una empresa en modo live, timbrar y cancelar por MCP gastan timbres y son actos fiscales reales: "
                "solo con el permiso " code { (MCP_LIVE) } ", que ninguna otra opción incluye." }
            form method="post" action=(RUTA) {
                (csrf_oculto(&ctx.session))
                input type="hidden" name="name" value="Agente MCP";
                @for alcance in ALCANCES_AGENTE { input type="hidden" name="scopes" value=(alcance); }
                fieldset {
                    legend { "Empresa" }
                    @for (i, e) in ctx.empresas.iter().enumerate() {
                        div {
                            input type="radio" name="empresaIds" value=(e.id) id={ "agente-" (e.id) } checked[i == 0] required;
                            label for={ "agente-" (e.id) } { (e.razon_social) " (" (e.rfc) ")" }
                        }
                    }
                }
                @for (alcance, texto) in OPCIONES_AGENTE {
                    div {
                        input type="checkbox" name="scopes" value=(alcance) id={ "agente-" (alcance) };
                        label for={ "agente-" (alcance) } { (texto) " (" code { (alcance) } ")" }
                    }
                }
                div {
                    input type="checkbox" name="scopes" value=(MCP_LIVE) id="agente-live";
                    label for="agente-live" { "Permitir timbrar y cancelar (si se permite arriba) en modo live (" code { (MCP_LIVE) } ")" }
                }
                button type="submit" { "Crear llave para agente" }
            }
        }
    }
}

/// The configuration of a desktop assistant for `key` on this server (`base`).
fn configuracion_mcp(base: &str, key: &str) -> String {
    let config = serde_json::json!({ "mcpServers": { "timbra": {
        "command": "timbra", "args": ["mcp", "--url", base], "env": { "TIMBRA_API_KEY": key } } } });
    serde_json::to_string_pretty(&config).unwrap_or_default()
}

/// An instant as `AAAA-MM-DD HH:MM UTC`, or "—".
pub(super) fn momento(instante: Option<OffsetDateTime>) -> String {
    match instante {
        Some(at) => {
            let at = at.to_offset(time::UtcOffset::UTC);
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02} UTC",
                at.year(),
                u8::from(at.month()),
                at.day(),
                at.hour(),
                at.minute()
            )
        }
        None => "—".to_owned(),
    }
}

/// The notice of a finished action (query `hecho`).
fn aviso(params: &HashMap<String, String>) -> Option<&'static str> {
    match params.get("hecho").map(String::as_str) {
        Some("revocada") => Some("Llave revocada: ya no abre la API."),
        _ => None,
    }
}

fn formulario(ctx: &Contexto, campos: &Campos, errores: &Errores) -> Markup {
    let empresas_elegidas = campos.todos("empresaIds");
    let alcances_elegidos = campos.todos("scopes");
    let problemas_de = |prefijo: &str| errores.frases_con_prefijo(prefijo);
    html! {
        section aria-labelledby="nueva-llave" {
            h2 id="nueva-llave" { "Nueva llave" }
            (caja_errores(errores))
            form method="post" action=(RUTA) {
                (csrf_oculto(&ctx.session))
                (campo_con("name", "Nombre", Tipo::Texto, campos.valor("name"), true, errores,
                    Some("Para reconocerla después, p. ej. «ERP producción»")))
                (campo_con("expiresInDays", "Vence en (días)", Tipo::Texto, campos.valor("expiresInDays"), false, errores,
                    Some("De 1 a 3650; vacío = no vence")))
                fieldset {
                    legend { "Empresas" }
                    small { "Sin marcar ninguna, la llave abre todas sus empresas (también las futuras)." }
                    @for e in &ctx.empresas {
                        @let id = e.id.as_str();
                        div {
                            input type="checkbox" name="empresaIds" value=(id) id={ "empresa-" (id) }
                                checked[empresas_elegidas.contains(&id)];
                            label for={ "empresa-" (id) } { (e.razon_social) " (" (e.rfc) ")" }
                        }
                    }
                    @for problema in problemas_de("empresaIds") { p.problemas { (problema) } }
                }
                fieldset {
                    legend { "Permisos (alcances)" }
                    small { "Sin marcar ninguno, la llave puede todo lo que su rol permite en cada empresa." }
                    div.linea {
                        @for alcance in alcances() {
                            div {
                                input type="checkbox" name="scopes" value=(alcance) id={ "alcance-" (alcance.replace(':', "-")) }
                                    checked[alcances_elegidos.contains(&alcance)];
                                label for={ "alcance-" (alcance.replace(':', "-")) } { code { (alcance) } }
                            }
                        }
                    }
                    @for problema in problemas_de("scopes") { p.problemas { (problema) } }
                }
                button type="submit" { "Crear llave" }
            }
        }
    }
}

fn tabla(ctx: &Contexto, keys: &[KeyRow]) -> Markup {
    html! {
        (listado(
            keys,
            html! { "Aún no tiene llaves de API." },
            html! { "Sus llaves (se muestra solo el prefijo; la llave completa no se guarda)" },
            &[Columna::Texto("Nombre"), Columna::Texto("Prefijo"), Columna::Texto("Estado"), Columna::Texto("Último uso"), Columna::Texto("Vence"), Columna::Texto("Creada"), Columna::Oculta("Acciones")],
            |key| html! {
                tr {
                    td data-titulo="Nombre" { (key.name) }
                    td data-titulo="Prefijo" { code { (key.key_prefix) "…" } }
                    td data-titulo="Estado" { @if key.active { "Activa" } @else { "Revocada o vencida" } }
                    td data-titulo="Último uso" { (momento(key.last_used_at)) }
                    td data-titulo="Vence" { @if key.expires_at.is_none() { "No vence" } @else { (momento(key.expires_at)) } }
                    td data-titulo="Creada" { (momento(Some(key.created_at))) }
                    td {
                        @if key.active {
                            form.en-linea method="post" action={ "/panel/llaves/" (key.id) "/revocar" } {
                                (csrf_oculto(&ctx.session))
                                button.peligro type="submit" aria-label={ "Revocar la llave " (key.name) } { "Revocar" }
                            }
                        }
                    }
                }
            },
            None,
        ))
    }
}

fn keys_page(
    ctx: &Contexto,
    base: &str,
    keys: &[KeyRow],
    nueva: Option<&CreatedKey>,
    aviso: Option<&str>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let contenido = html! {
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        @if let Some(nueva) = nueva {
            section.aviso role="status" aria-labelledby="llave-creada" {
                h2 id="llave-creada" { "Llave «" (nueva.name) "» creada" }
                p { strong { "Cópiela ahora: no se volverá a mostrar." } " Úsela en el encabezado "
                    code { "Authorization: Bearer …" } "." }
                p.llave id="llave-nueva" { (nueva.key) }
                button type="button" data-copiar="#llave-nueva" { "Copiar llave" }
                details {
                    summary { "Para un asistente de IA (MCP)" }
                    p { "Conéctelo a " code { (base) "/mcp" } " con esta llave, o en un asistente de escritorio use "
                        code { "timbra mcp" } " con esta configuración:" }
                    pre id="config-mcp" { (configuracion_mcp(base, &nueva.key)) }
                    button type="button" data-copiar="#config-mcp" { "Copiar configuración" }
                }
            }
        }
        p { "Las llaves abren la API (" a href="/llms-full.txt" { "guía" } ") en nombre de usted, con su rol en cada empresa; "
            "puede limitarlas a algunas empresas y permisos." }
        (tabla(ctx, keys))
        (formulario(ctx, campos, errores))
        (formulario_agente(ctx))
    };
    pagina(ctx, "Llaves de API", RUTA, contenido)
}

/// `GET /panel/llaves`.
async fn lista(State(app): State<AppContext>, headers: HeaderMap, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let keys = api_keys::list(&app, &ctx.session.caller).await?;
    let markup = keys_page(
        &ctx,
        &url_publica(&app, &headers),
        &keys,
        None,
        aviso(&params),
        &Campos::default(),
        &Errores::default(),
    );
    Ok(html_ok(markup))
}

/// What the form asks for: name, expiry, companies and scopes (absent when none marked).
fn pedido(campos: &Campos) -> Result<KeyRequest, ApiError> {
    let expires_in_days = match campos.valor("expiresInDays") {
        None => None,
        Some(dias) => Some(dias.parse::<i64>().map_err(|_| {
            ApiError::fields(
                Code::ApiKey001,
                vec![FieldProblem::new("expiresInDays", "escriba un número entero de días, o déjelo vacío")],
            )
        })?),
    };
    let marcados = |name: &str| -> Option<Vec<String>> {
        let valores: Vec<String> =
            campos.todos(name).into_iter().filter(|v| !v.is_empty()).map(str::to_owned).collect();
        (!valores.is_empty()).then_some(valores)
    };
    Ok(KeyRequest {
        name: Some(campos.valor("name").unwrap_or_default().to_owned()),
        expires_in_days,
        empresa_ids: marcados("empresaIds"),
        scopes: marcados("scopes"),
        revoke_current: false,
    })
}

/// `POST /panel/llaves`: creates the key as the API does; the page shows the key this once.
async fn crear(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { session, campos } = formulario;
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let caller = &ctx.session.caller;
    let creada = match pedido(&campos) {
        Ok(pedido) => api_keys::create(&app, &caller.user_id, &caller.credential, pedido).await,
        Err(error) => Err(error),
    };
    let keys = api_keys::list(&app, caller).await?;
    let base = url_publica(&app, &headers);
    match creada {
        Ok(nueva) => {
            Ok(html_ok(keys_page(&ctx, &base, &keys, Some(&nueva), None, &Campos::default(), &Errores::default())))
        }
        Err(error) => {
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), keys_page(&ctx, &base, &keys, None, None, &campos, &errores)))
        }
    }
}

/// `POST /panel/llaves/{id}/revocar`.
async fn revocar(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, formulario: Formulario) -> Pagina {
    api_keys::revoke(&app, &formulario.session.caller, Some(id)).await?;
    Ok(redirigir(&format!("{RUTA}?hecho=revocada")))
}
