//! `timbra mcp --url <base>`: an MCP server on standard input and output for desktop
//! assistants, forwarding every request to the `/mcp` endpoint of a running timbra with the API
//! key of `TIMBRA_API_KEY`. It has no tools of its own: `tools/list`, `tools/call`,
//! `resources/list` and `resources/read` are the server's, through the SDK's streamable-HTTP
//! client, so the key's limits, the company's roles and `mcp:live` apply as over HTTP.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt};

/// The stdio side: answers with what the remote `/mcp` answers.
#[derive(Clone)]
struct Puente {
    remoto: Peer<RoleClient>,
    info: ServerConfig,
}

fn fallo(error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        other => ErrorData::internal_error(format!("the timbra server did not answer: {other}"), None),
    }
}

impl ServerHandler for Puente {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.remoto.list_tools(request).await.map_err(fallo)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.remoto.call_tool_once(request).await.map_err(fallo)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.remoto.list_resources(request).await.map_err(fallo)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.remoto.read_resource_once(request).await.map_err(fallo)
    }
}

/// Connects to `{url}/mcp` with `key`, then serves on stdin/stdout until the client closes.
pub async fn run(url: &str, key: &str) -> anyhow::Result<()> {
    let endpoint = format!("{}/mcp", url.trim_end_matches('/'));
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(endpoint.clone()).auth_header(key.to_owned()),
    );
    let remoto =
        ().serve(transport)
            .await
            .map_err(|error| anyhow::anyhow!("cannot open an MCP session at {endpoint}: {error}"))?;
    let info = remoto.peer_info().map_or_else(
        || ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build()),
        |remota| {
            let mut info = ServerConfig::new(remota.capabilities.clone());
            if let Some(server_info) = remota.server_info.clone() {
                info = info.with_server_info(server_info);
            }
            if let Some(instructions) = remota.instructions.clone() {
                info = info.with_instructions(instructions);
            }
            info
        },
    );
    let puente = Puente { remoto: remoto.peer().clone(), info };
    let local = puente.serve(rmcp::transport::stdio()).await?;
    local.waiting().await?;
    remoto.cancel().await?;
    Ok(())
}
