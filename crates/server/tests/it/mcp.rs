//! The MCP endpoint (issue 36) with the official SDK's client (`rmcp`): an agent connects to
//! `/mcp` with an API key, lists the tools, stamps a sandbox invoice that SAT's own tools accept,
//! gets the code table's errors as tool errors, and is refused what the API refuses: no key,
//! a foreign Origin, another company, a live company without `mcp:live`. And `timbra mcp`, the
//! stdio bridge, against the running server.

use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams, ResourceContents};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::cfdi::{EMISOR, concepto, factura, live_company, raw, sandbox_pac_cer, sat_oracle, setup, start_pac_sim};
use crate::harness::{As, TempDir, TestApp, each_backend, each_backend_with};

type Cliente = RunningService<RoleClient, ()>;

/// An MCP session at the app's `/mcp` with `key`.
async fn cliente(app: &TestApp, key: &str) -> Cliente {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", app.base)).auth_header(key.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("MCP session")
}

/// Calls a tool; the answer is a tool result (an error is `is_error`), never a protocol error.
async fn llamar(cliente: &Cliente, nombre: &str, argumentos: Value) -> CallToolResult {
    let argumentos = argumentos.as_object().cloned().unwrap_or_default();
    cliente
        .call_tool(CallToolRequestParams::new(nombre.to_owned()).with_arguments(argumentos))
        .await
        .unwrap_or_else(|error| panic!("{nombre}: protocol error {error}"))
}

fn texto(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|content| content.as_text().map(|text| text.text.clone())).collect()
}

/// The `structuredContent` of a successful call.
#[track_caller]
fn datos(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}: {:?}", texto(result), result.structured_content);
    result.structured_content.clone().expect("structuredContent")
}

/// Asserts a tool error with `code`: the text starts with it, `structuredContent` repeats it.
#[track_caller]
fn falla(result: &CallToolResult, code: &str) -> Value {
    assert_eq!(result.is_error, Some(true), "{}", texto(result));
    assert!(texto(result).starts_with(&format!("{code}: ")), "{}", texto(result));
    let structured = result.structured_content.clone().expect("structuredContent");
    assert_eq!(structured["code"], code, "{structured}");
    structured
}

const TOOLS: [&str; 15] = [
    "listar_empresas",
    "crear_cliente",
    "buscar_clientes",
    "buscar_clave_producto",
    "buscar_unidad",
    "validar_factura",
    "timbrar_factura",
    "timbrar_pago",
    "listar_cfdi",
    "obtener_cfdi",
    "cancelar_cfdi",
    "estado_sat",
    "calcular_nomina",
    "sincronizar_recibidos",
    "descargar_por_uuid",
];

#[tokio::test]
async fn an_agent_stamps_a_sandbox_invoice_that_sats_tools_accept() {
    each_backend(|app: TestApp| async move {
        let (who, cliente_id) = setup(&app, "agente@example.com").await;
        let key = who.key.clone().unwrap();
        let empresa = who.empresa.clone().unwrap();
        let agente = cliente(&app, &key).await;
        let info = agente.peer_info().expect("initialized");
        assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("timbra"));
        assert!(info.instructions.as_deref().is_some_and(|i| i.contains("mcp:live")));

        // Every tool, with the OpenAPI body's fields and the company and idempotency arguments.
        let tools = agente.list_all_tools().await.unwrap();
        let nombres: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        for nombre in TOOLS {
            assert!(nombres.contains(&nombre), "{nombre} missing from {nombres:?}");
        }
        let timbrar = tools.iter().find(|tool| tool.name == "timbrar_factura").unwrap();
        let propiedades = &timbrar.input_schema["properties"];
        for campo in ["conceptos", "clienteId", "formaPago", "metodoPago", "empresaId", "idempotencyKey"] {
            assert!(propiedades.get(campo).is_some(), "{campo} missing from {propiedades}");
        }
        assert!(timbrar.description.as_deref().is_some_and(|d| d.contains("live") && d.contains("timbre")));
        let listar = tools.iter().find(|tool| tool.name == "listar_cfdi").unwrap();
        assert!(listar.input_schema["properties"].get("includeDownloadUrls").is_some(), "{:?}", listar.input_schema);

        // The guide and the error table as resources.
        let recursos = agente.list_all_resources().await.unwrap();
        assert_eq!(recursos.len(), 2, "{recursos:?}");
        let guia = agente.read_resource(ReadResourceRequestParams::new("timbra://guia")).await.unwrap();
        let ResourceContents::TextResourceContents { text, .. } = &guia.contents[0] else { panic!("text") };
        assert!(text.contains("# timbra API guide") && text.contains("Agents (MCP)") && text.contains("CFDI_001"));

        let empresas = datos(&llamar(&agente, "listar_empresas", json!({})).await);
        assert_eq!(empresas["items"][0]["id"], json!(empresa), "{empresas}");

        // A customer, found again.
        let nuevo = llamar(&agente, "crear_cliente", json!({ "empresaId": empresa, "rfc": "XIA190128J61",
            "razonSocial": "XENON INDUSTRIAL ARTICLES", "regimenFiscal": "601", "codigoPostal": "42501", "usoCfdi": "G03" }))
        .await;
        assert!(datos(&nuevo)["id"].is_string());
        let encontrados = datos(&llamar(&agente, "buscar_clientes", json!({ "empresaId": empresa, "q": "XENON" })).await);
        assert_eq!(encontrados["total"], 1, "{encontrados}");
        let claves = datos(&llamar(&agente, "buscar_clave_producto", json!({ "q": "81112100" })).await);
        assert_eq!(claves["items"][0]["clave"], "81112100", "{claves}");
        let unidades = datos(&llamar(&agente, "buscar_unidad", json!({ "q": "E48" })).await);
        assert_eq!(unidades["items"][0]["clave"], "E48", "{unidades}");

        // The dry run, then the stamp.
        let mut cuerpo = factura(&cliente_id);
        cuerpo["empresaId"] = json!(empresa);
        let ensayo = datos(&llamar(&agente, "validar_factura", cuerpo.clone()).await);
        assert_eq!(ensayo["valido"], true, "{ensayo}");
        cuerpo["idempotencyKey"] = json!("agente-1");
        let timbrado = llamar(&agente, "timbrar_factura", cuerpo.clone()).await;
        let stamped = datos(&timbrado);
        let uuid = stamped["uuid"].as_str().unwrap().to_owned();
        assert!(uuid.starts_with("SANDBOX-"), "{stamped}");
        assert_eq!(stamped["total"], "3481.16");
        assert!(texto(&timbrado).contains(&uuid) && texto(&timbrado).contains("sandbox"), "{}", texto(&timbrado));
        let cfdi_id = stamped["cfdiId"].as_str().unwrap().to_owned();

        // The same key and arguments replay the stamp; another body with it is refused.
        let repetido = llamar(&agente, "timbrar_factura", cuerpo.clone()).await;
        assert_eq!(datos(&repetido)["uuid"], json!(uuid));
        assert!(texto(&repetido).contains("idempotencyKey"), "{}", texto(&repetido));
        let mut otro = cuerpo.clone();
        otro["conceptos"] = json!([concepto("Otro servicio", json!(1), json!(10))]);
        falla(&llamar(&agente, "timbrar_factura", otro).await, "IDEMPOTENCY_001");
        let listado = datos(&llamar(&agente, "listar_cfdi", json!({ "empresaId": empresa })).await);
        assert_eq!(listado["total"], 1, "one stamp for the replayed key: {listado}");

        // The stamped XML, as every stamp is checked: both seals and SAT's schema and cadena.
        let detalle = datos(&llamar(&agente, "obtener_cfdi", json!({ "empresaId": empresa, "id": cfdi_id })).await);
        assert_eq!(detalle["uuid"], json!(uuid));
        assert!(detalle["xmlDownloadUrl"].as_str().is_some_and(|url| !url.is_empty()), "signed link: {detalle}");
        let (status, xml) = raw(&app, &format!("/api/cfdi/{cfdi_id}/xml"), Some(&who)).await;
        assert_eq!(status, 200);
        let pac_cer = sandbox_pac_cer(&app).await;
        let pac = timbra_credentials::Certificate::from_bytes(&pac_cer).unwrap();
        timbra_cfdi::sello::verificar_sello_xml(&xml).unwrap();
        timbra_cfdi::sello::verificar_timbre_xml(&xml, &pac).unwrap();
        let dir = TempDir::new();
        let path = dir.0.join("mcp.xml");
        std::fs::write(&path, &xml).unwrap();
        sat_oracle(&[(path, xml)], &pac_cer, &dir.0);

        // A bad body is CFDI_001 with its details, as a tool error (not a protocol error).
        let malo = json!({ "empresaId": empresa, "formaPago": "03", "metodoPago": "PUE", "clienteId": cliente_id,
            "conceptos": [{ "claveProdServ": "99999999", "claveUnidad": "E48", "descripcion": "x", "cantidad": 1, "precioUnitario": 10 }] });
        let error = falla(&llamar(&agente, "timbrar_factura", malo).await, "CFDI_001");
        assert_eq!(error["details"]["problemas"][0]["regla"], "CFDI40162", "{error}");
        assert_eq!(error["details"]["fields"][0]["field"], "Conceptos[0].ClaveProdServ", "{error}");
        falla(&llamar(&agente, "timbrar_factura", json!({ "formaPago": "03" })).await, "EMPRESA_003");

        // SAT's status, the payroll calculator, and the cancellation.
        let estado = datos(&llamar(&agente, "estado_sat", json!({ "empresaId": empresa, "id": cfdi_id })).await);
        assert_eq!(estado["estado"], "Vigente", "{estado}");
        let neto = datos(&llamar(&agente, "calcular_nomina", json!({ "salarioDiario": 500, "salarioDiarioIntegrado": 522.6,
            "diasPagados": 15, "periodicidad": "quincenal", "riesgoPuesto": "1", "fechaPago": "2026-03-15" })).await);
        assert!(neto["netoAPagar"].is_string() || neto["netoAPagar"].is_number(), "{neto}");
        let cancelado = llamar(&agente, "cancelar_cfdi", json!({ "empresaId": empresa, "id": cfdi_id, "motivo": "02",
            "idempotencyKey": "cancelar-1" })).await;
        assert_eq!(datos(&cancelado)["status"], "CANCELADO", "{}", texto(&cancelado));
        agente.cancel().await.unwrap();
    })
    .await;
}

/// An `initialize` request sent by hand, with `headers`.
async fn initialize(app: &TestApp, headers: &[(&str, &str)]) -> crate::harness::Answer {
    let mut request = app
        .client
        .post(format!("{}/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "prueba", "version": "1" } } }));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    TestApp::read(request.send().await.unwrap()).await
}

#[tokio::test]
async fn mcp_refuses_what_the_api_refuses() {
    let adjust = |config: &mut timbra_services::config::Config| {
        config.mcp_origins = vec!["https://agentes.example.com".into()];
    };
    each_backend_with(adjust, |app: TestApp| async move {
        let (who, _) = setup(&app, "limites@example.com").await;
        let key = who.key.clone().unwrap();
        let bearer = format!("Bearer {key}");

        // No key, a bad key: 401 with the API's envelope.
        initialize(&app, &[]).await.assert_error(401, "AUTH_001");
        initialize(&app, &[("authorization", "Bearer tmb_sk_no_existe")]).await.assert_error(401, "AUTH_001");
        // A foreign Origin: 403; the allowed ones (none, TIMBRA_MCP_ORIGINS) pass.
        initialize(&app, &[("authorization", &bearer), ("origin", "https://malicioso.example")])
            .await
            .assert_error(403, "MCP_001");
        let permitido = initialize(&app, &[("authorization", &bearer), ("origin", "https://agentes.example.com")]).await;
        assert_eq!(permitido.status, 200, "{:?}", permitido.body);
        assert!(permitido.headers.get("mcp-session-id").is_some(), "{:?}", permitido.headers);

        // Another company's id: the route's SCOPE_001.
        let (_, otra_key) = app.user("otra@example.com").await;
        let ajena = app.empresa(&otra_key, EMISOR).await;
        let agente = cliente(&app, &key).await;
        falla(&llamar(&agente, "listar_cfdi", json!({ "empresaId": ajena })).await, "SCOPE_001");
        falla(&llamar(&agente, "timbrar_factura", json!({ "empresaId": ajena, "conceptos": [] })).await, "SCOPE_001");

        // A live company refuses stamping and cancelling without mcp:live, even to a full key.
        let viva = app
            .post("/api/empresas", &As::key(&key), json!({ "rfc": "XIA190128J61", "razonSocial": "XENON INDUSTRIAL ARTICLES",
                "regimenFiscal": "601", "codigoPostal": "42501", "sandbox": false }))
            .await;
        let viva = viva.data(201)["id"].as_str().unwrap().to_owned();
        let venta = json!({ "empresaId": viva, "formaPago": "01", "metodoPago": "PUE",
            "conceptos": [concepto("Venta", json!(1), json!(100))] });
        let negado = falla(&llamar(&agente, "timbrar_factura", venta.clone()).await, "SCOPE_002");
        assert_eq!(negado["details"]["requiredScope"], "mcp:live", "{negado}");
        falla(&llamar(&agente, "timbrar_pago", json!({ "empresaId": viva })).await, "SCOPE_002");
        falla(&llamar(&agente, "cancelar_cfdi", json!({ "empresaId": viva, "id": "x", "motivo": "02" })).await, "SCOPE_002");
        // Reading is not stamping: the live company lists through MCP.
        datos(&llamar(&agente, "listar_cfdi", json!({ "empresaId": viva })).await);
        agente.cancel().await.unwrap();

        // `*` does not include mcp:live, and a key cannot give a child what it lacks.
        let crear = |scopes: Value| json!({ "name": "agente", "email": "limites@example.com", "password": "Secreto1!", "scopes": scopes });
        let estrella = app.post("/api/api-keys", &As::default(), crear(json!(["*"]))).await;
        let estrella = estrella.data(201)["key"].as_str().unwrap().to_owned();
        let con_estrella = cliente(&app, &estrella).await;
        falla(&llamar(&con_estrella, "timbrar_factura", venta.clone()).await, "SCOPE_002");
        con_estrella.cancel().await.unwrap();
        let hija = json!({ "name": "hija", "scopes": ["mcp:live"] });
        app.post("/api/api-keys", &As::key(&estrella), hija.clone()).await.assert_error(403, "APIKEY_002");
        app.post("/api/api-keys", &As::key(&key), hija.clone()).await.assert_error(403, "APIKEY_002");

        // A key created with mcp:live passes the gate (and meets the stamp's own rules: no CSD).
        let viva_key = app.post("/api/api-keys", &As::default(), crear(json!(["cfdi:*", "empresa:view", "mcp:live"]))).await;
        let viva_key = viva_key.data(201)["key"].as_str().unwrap().to_owned();
        let hija = app.post("/api/api-keys", &As::key(&viva_key), json!({ "name": "hija", "scopes": ["cfdi:timbrar", "mcp:live"] })).await;
        assert_eq!(hija.data(201)["scopes"], json!(["cfdi:timbrar", "mcp:live"]));
        let con_live = cliente(&app, &viva_key).await;
        let sin_csd = falla(&llamar(&con_live, "timbrar_factura", venta).await, "CFDI_002");
        assert!(sin_csd["message"].as_str().is_some_and(|m| !m.is_empty()));
        con_live.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn timbra_mcp_bridges_stdio_to_a_running_server() {
    each_backend(|app: TestApp| async move {
        let (who, cliente_id) = setup(&app, "escritorio@example.com").await;
        let key = who.key.clone().unwrap();
        let empresa = who.empresa.clone().unwrap();
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_timbra")).configure(|command| {
            command.args(["mcp", "--url", &app.base]).env("TIMBRA_API_KEY", &key).env_remove("TIMBRA_LOG");
        });
        let escritorio = ().serve(TokioChildProcess::new(command).unwrap()).await.expect("stdio session");
        let tools = escritorio.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), TOOLS.len(), "{tools:?}");
        let empresas = datos(&llamar(&escritorio, "listar_empresas", json!({})).await);
        assert_eq!(empresas["items"][0]["id"], json!(empresa));
        let mut cuerpo = factura(&cliente_id);
        cuerpo["empresaId"] = json!(empresa);
        let stamped = datos(&llamar(&escritorio, "timbrar_factura", cuerpo).await);
        assert!(stamped["uuid"].as_str().is_some_and(|uuid| uuid.starts_with("SANDBOX-")), "{stamped}");
        falla(&llamar(&escritorio, "timbrar_factura", json!({ "empresaId": empresa })).await, "CFDI_001");
        escritorio.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_live_stamp_through_mcp_spends_a_stamp_and_says_so() {
    let (_sim, url) = start_pac_sim().await;
    let good = crate::cfdi::csd_vigente();
    let adjust = crate::cfdi::con_pac(&url);
    each_backend_with(adjust, |app: TestApp| {
        let good = good.clone();
        async move {
            let (who, empresa) = live_company(&app, "mcp-vivo@example.com", &good).await;
            app.recargar(&who, json!({ "cantidad": 2 })).await.data(201);
            let saldo = async || app.get("/api/timbres", &who).await.data(200)["saldo"].as_i64().unwrap();
            let crear = json!({ "name": "agente", "email": "mcp-vivo@example.com", "password": "Secreto1!",
                "scopes": ["cfdi:*", "empresa:view", "mcp:live"] });
            let viva_key =
                app.post("/api/api-keys", &As::default(), crear).await.data(201)["key"].as_str().unwrap().to_owned();

            // A live stamp through the tool: the PAC stamps it, a stamp is spent, and the
            // result's text says it is a real tax document.
            let agente = cliente(&app, &viva_key).await;
            let venta = json!({ "empresaId": empresa, "formaPago": "01", "metodoPago": "PUE",
                "conceptos": [concepto("Venta", json!(1), json!(100))] });
            let hecho = llamar(&agente, "timbrar_factura", venta).await;
            let data = datos(&hecho);
            assert!(!data["uuid"].as_str().unwrap().starts_with("SANDBOX"), "{data}");
            let dicho = texto(&hecho);
            assert!(dicho.contains("Empresa en modo live") && dicho.contains("Gastó un timbre"), "{dicho}");
            assert_eq!(saldo().await, 1);
            agente.cancel().await.unwrap();

            // A child key created without scopes takes its parent's, but never mcp:live.
            let hija = app.post("/api/api-keys", &As::key(&viva_key), json!({ "name": "hija" })).await;
            let scopes = hija.data(201)["scopes"].clone();
            assert_eq!(scopes, json!(["cfdi:*", "empresa:view"]), "{scopes}");
        }
    })
    .await;
}
