//! The MCP endpoint (issue 36): `/mcp` speaks the Model Context Protocol over streamable HTTP
//! through the official SDK (`rmcp`), so an AI agent invoices, pays and runs payroll with the
//! same rules as the API. Each HTTP request passes [`guardia`] first: its `Origin` (a foreign
//! one is 403 MCP_001) and its API key (none or a bad one is 401 AUTH_001, the API's envelope);
//! the router's rate limit has already drawn from the key's bucket. The verified caller travels
//! to the tools in the request's extensions ([`Llamante`]); the tools (`tools.rs`) call the same
//! operations as the routes, and the resources (`resources.rs`) are the guide and the error
//! table.

mod resources;
mod tools;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::error::HttpError;
use timbra_services::auth::caller::{Caller, ModeSlot, Verified, authenticate};
use timbra_services::auth::secrets::KEY_PREFIX_SHOWN;
use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// The path of the endpoint.
pub const PATH: &str = "/mcp";

/// What the tools know of the caller of one HTTP request: who they are (verified by
/// [`guardia`]) and the shown prefix of their key, for the log.
#[derive(Clone, Debug)]
pub struct Llamante {
    /// The caller, checked against roles by each tool as the routes do.
    pub caller: Caller,
    /// The first characters of the key (`tmb_sk_…`), as the dashboard shows them.
    pub prefijo: String,
}

/// `/mcp` with its guard, to merge into the application's router (inside the rate limit).
pub fn router(app: &AppContext) -> Router<AppContext> {
    let servidor = {
        let app = app.clone();
        move || Ok(Servidor { app: app.clone() })
    };
    // Hosts are not checked here: the service answers on its public name behind a proxy, and
    // every request needs an API key; the Origin is checked by `guardia`.
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    let servicio = StreamableHttpService::new(servidor, Arc::new(LocalSessionManager::default()), config);
    Router::new().route_service(PATH, servicio).layer(middleware::from_fn_with_state(app.clone(), guardia))
}

/// Checks the `Origin` (MCP_001) and the API key (AUTH_001) of every request to `/mcp`, and
/// hands the verified caller to the tools.
async fn guardia(State(app): State<AppContext>, mut request: Request, next: Next) -> Response {
    if let Err(error) = origen_permitido(&app.config, request.headers()) {
        return HttpError(error).into_response();
    }
    let Some(prefijo) = clave(request.headers()).map(|key| key.chars().take(KEY_PREFIX_SHOWN).collect::<String>())
    else {
        return HttpError(ApiError::new(
            Code::Auth001,
            "send an API key as 'Authorization: Bearer <key>': /mcp takes API keys (create one at /panel or POST /api/api-keys)",
        ))
        .into_response();
    };
    // The rate limit verified the key already (and drew from its bucket).
    let verified = match request.extensions_mut().remove::<Verified>() {
        Some(Verified(verified)) => verified,
        None => authenticate(&app, request.headers()).await,
    };
    let (user_id, credential) = match verified {
        Ok(verified) => verified,
        Err(error) => return HttpError(error).into_response(),
    };
    let mode = request.extensions().get::<ModeSlot>().cloned().unwrap_or_default();
    request.extensions_mut().insert(Llamante { caller: Caller::new(user_id, credential, mode), prefijo });
    next.run(request).await
}

/// The bearer key of the request, if any.
fn clave(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// A request without `Origin` passes (agents and desktop clients send none); a browser's must
/// be the service's own (`TIMBRA_PUBLIC_URL`, or `TIMBRA_LISTEN` as `http://…`, with
/// `localhost` for a loopback address) or one of `TIMBRA_MCP_ORIGINS`.
fn origen_permitido(config: &Config, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(origin) = headers.get(header::ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or_default().trim().trim_end_matches('/');
    let propio = |candidato: &str| candidato.eq_ignore_ascii_case(origin);
    let listen = config.listen;
    let mut propios = vec![format!("http://{listen}")];
    if listen.ip().is_loopback() || listen.ip().is_unspecified() {
        propios.push(format!("http://localhost:{}", listen.port()));
        propios.push(format!("http://127.0.0.1:{}", listen.port()));
    }
    let permitido = config.public_url.as_deref().is_some_and(propio)
        || propios.iter().any(|candidato| propio(candidato))
        || config.mcp_origins.iter().any(|candidato| propio(candidato));
    if permitido {
        return Ok(());
    }
    Err(ApiError::new(
        Code::Mcp001,
        format!(
            "the Origin {origin:?} may not use /mcp: call it from the service's own origin or without Origin, or add \
             the origin to TIMBRA_MCP_ORIGINS"
        ),
    ))
}

/// The MCP server of one session: its tools and resources over the application.
#[derive(Clone)]
struct Servidor {
    app: AppContext,
}

/// The caller that [`guardia`] put in the HTTP request of this MCP request.
fn llamante(context: &RequestContext<RoleServer>) -> Option<Llamante> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    parts.extensions.get::<Llamante>().cloned()
}

/// The `x-empresa-id` header of the HTTP request, the company of tools called without
/// `empresaId`.
fn empresa_de_cabecera(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    let value = parts.headers.get("x-empresa-id")?.to_str().ok()?.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

impl ServerHandler for Servidor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("timbra", env!("CARGO_PKG_VERSION")).with_title("timbra: CFDI 4.0"))
            .with_instructions(INSTRUCCIONES)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::lista().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(llamante) = llamante(&context) else {
            return Err(ErrorData::internal_error("the request carries no verified caller", None));
        };
        let empresa = empresa_de_cabecera(&context);
        tools::llamar(&self.app, &llamante, empresa, &request.name, request.arguments.unwrap_or_default())
            .await
            .map(CallToolResponse::from)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::lista()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::leer(&request.uri).map(ReadResourceResponse::from)
    }
}

/// What the server tells an agent when it connects.
const INSTRUCCIONES: &str = "timbra emite y timbra CFDI 4.0 (facturas, pagos, nómina) ante el SAT. Cada herramienta \
    actúa sobre una empresa: pasa `empresaId` (las empresas a tu alcance las da `listar_empresas`). En una empresa en \
    modo sandbox los timbres son de prueba (UUID SANDBOX-…) y no cuestan; en modo live cada timbre gasta un timbre del \
    saldo y es un comprobante fiscal real, y la llave necesita el scope mcp:live. Antes de timbrar, prueba el cuerpo \
    con `validar_factura`; pasa `idempotencyKey` al timbrar o cancelar para poder reintentar sin duplicar. La guía \
    completa (cómo llenar un CFDI) y la tabla de códigos de error son recursos de este servidor.";
