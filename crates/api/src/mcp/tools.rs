//! The MCP tools: one per operation, each calling the operation its route calls (the same
//! authorization, validation, idempotency and answer), never the HTTP API. A tool's input
//! schema is the OpenAPI schema of the route's body or parameters (the same DTOs and field
//! names), plus `empresaId` and, on stamping and cancelling, `idempotencyKey`. A result's
//! `structuredContent` is the route's `data` (a list as `{ items }`, since MCP wants an object)
//! with a short text; a failure is a tool error whose text starts with the code of the code
//! table (`CFDI_001: …`) and whose `structuredContent` holds `code`, `message` and `details`.

use std::sync::{Arc, OnceLock};
use timbra_store::ids::EmpresaId;

use axum::http::{HeaderMap, HeaderValue};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use utoipa::openapi::Required;
use utoipa::openapi::path::ParameterIn;
use utoipa::{IntoParams, ToSchema};

use super::Llamante;
use crate::error::HttpError;
use crate::extract::EmpresaScope;
use crate::routes::catalogos::BusquedaParams;
use crate::routes::cfdi::cancelar::CancelarBody;
use crate::routes::cfdi::list::ListCfdiParams;
use crate::routes::cfdi::por_uuid::DescargarBody;
use crate::routes::cfdi::recibidos::SyncBody;
use crate::routes::clientes::ClienteBody;
use crate::routes::scoped::ListParams;
use crate::routes::{catalogos, cfdi, clientes, empresas, nomina};
use timbra_services::auth::roles::{MCP_LIVE, Permission};
use timbra_services::cfdi::pagos::PagoBody;
use timbra_services::cfdi::timbrado::TimbrarBody;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, ApiResult, Code};
use timbra_services::idempotency::{self, Answer};

/// One tool: its name, its description (what it does and costs, in Spanish) and its schema.
struct Herramienta {
    nombre: &'static str,
    titulo: &'static str,
    descripcion: &'static str,
    /// The schema of its own arguments (the route's body or parameters).
    esquema: fn() -> JsonObject,
    /// Acts on a company (`empresaId`).
    empresa: bool,
    /// Takes `idempotencyKey` (stamping and cancelling).
    idempotente: bool,
    /// Only reads.
    lectura: bool,
}

const LIVE: &str = " En una empresa en modo live gasta un timbre del saldo y emite un comprobante fiscal real ante el \
    SAT (la llave necesita el scope mcp:live); en sandbox es de prueba (UUID SANDBOX-…) y no cuesta. Pasa \
    `idempotencyKey` para reintentar sin duplicar: la misma llave con los mismos argumentos devuelve la primera respuesta.";

const HERRAMIENTAS: &[Herramienta] = &[
    Herramienta {
        nombre: "listar_empresas",
        titulo: "Listar empresas",
        descripcion: "Lista las empresas a las que llega la llave, con su RFC, tu rol y su modo (sandbox o live). Úsala \
            primero para saber qué `empresaId` pasar a las demás herramientas. Solo lee; no cuesta.",
        esquema: sin_argumentos,
        empresa: false,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "crear_cliente",
        titulo: "Crear cliente",
        descripcion: "Registra un cliente (receptor) de la empresa: RFC, razón social tal como está en el SAT, régimen \
            fiscal, código postal fiscal, uso de CFDI. Devuelve su `id` para `timbrar_factura` (`clienteId`). Rol \
            FACTURADOR o superior. No cuesta.",
        esquema: esquema_de::<ClienteBody>,
        empresa: true,
        idempotente: false,
        lectura: false,
    },
    Herramienta {
        nombre: "buscar_clientes",
        titulo: "Buscar clientes",
        descripcion: "Busca clientes de la empresa por RFC o razón social (`q`), por páginas. Solo lee; no cuesta.",
        esquema: esquema_de_parametros::<ListParams>,
        empresa: true,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "buscar_clave_producto",
        titulo: "Buscar clave de producto o servicio",
        descripcion: "Busca en el catálogo c_ClaveProdServ del SAT por clave o palabras (`q`: \"consultoria\", \
            \"8111\"): la `claveProdServ` de cada concepto de una factura. Solo lee; no cuesta.",
        esquema: esquema_de_parametros::<BusquedaParams>,
        empresa: false,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "buscar_unidad",
        titulo: "Buscar clave de unidad",
        descripcion: "Busca en el catálogo c_ClaveUnidad del SAT por clave o nombre (`q`: \"servicio\", \"pieza\", \
            \"E48\"): la `claveUnidad` de cada concepto. Solo lee; no cuesta.",
        esquema: esquema_de_parametros::<BusquedaParams>,
        empresa: false,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "validar_factura",
        titulo: "Validar factura (ensayo)",
        descripcion: "Revisa una factura con las mismas reglas que el timbrado, sin timbrarla: responde `valido`, cada \
            problema con su regla y campo, y para una válida sus totales y el XML sin sellar. No reserva folio, no \
            sella, no guarda nada y no cuesta. Mismos argumentos que `timbrar_factura`.",
        esquema: esquema_de::<TimbrarBody>,
        empresa: true,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "timbrar_factura",
        titulo: "Timbrar factura",
        descripcion: "Emite, sella y timbra una factura CFDI 4.0 (ingreso, egreso o traslado) de la empresa para un \
            cliente (`clienteId`) o el público en general; devuelve su UUID, serie, folio y total. Rol FACTURADOR o \
            superior.",
        esquema: esquema_de::<TimbrarBody>,
        empresa: true,
        idempotente: true,
        lectura: false,
    },
    Herramienta {
        nombre: "timbrar_pago",
        titulo: "Timbrar complemento de pago",
        descripcion: "Emite y timbra un CFDI de pago (tipo P, Pagos 2.0) aplicado a facturas PPD de la empresa; \
            devuelve el nuevo saldo insoluto de cada factura. Rol FACTURADOR o superior.",
        esquema: esquema_de::<PagoBody>,
        empresa: true,
        idempotente: true,
        lectura: false,
    },
    Herramienta {
        nombre: "listar_cfdi",
        titulo: "Listar CFDI",
        descripcion: "Lista los CFDI de la empresa (emitidos y recibidos), los más recientes primero, con filtros por \
            tipo, estado, fechas, búsqueda (UUID, folio, RFC, nombre) y saldo pendiente. Solo lee; no cuesta.",
        esquema: esquema_de_parametros::<ListCfdiParams>,
        empresa: true,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "obtener_cfdi",
        titulo: "Obtener CFDI",
        descripcion: "Un CFDI de la empresa por su `id` (el `cfdiId` de un timbrado): conceptos, estado, saldo y pagos \
            de una factura PPD, y enlaces firmados para descargar su XML y su PDF (válidos una hora). Solo lee; no \
            cuesta.",
        esquema: esquema_de_id,
        empresa: true,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "cancelar_cfdi",
        titulo: "Cancelar CFDI",
        descripcion: "Solicita la cancelación de un CFDI emitido (`id`) con su motivo (01 con `folioSustitucion`, 02, \
            03, 04). En sandbox se cancela al momento; en live la solicitud va al SAT por el PAC, es un acto fiscal \
            real y el receptor puede tener que aceptarla (la llave necesita el scope mcp:live). No cuesta timbres. \
            Rol CONTADOR o superior. Pasa `idempotencyKey` para reintentar sin duplicar.",
        esquema: esquema_de_cancelacion,
        empresa: true,
        idempotente: true,
        lectura: false,
    },
    Herramienta {
        nombre: "estado_sat",
        titulo: "Estado ante el SAT",
        descripcion: "Consulta al SAT el estado de un CFDI de la empresa (`id`): Vigente, Cancelado o No Encontrado, \
            si es cancelable y el estado de su cancelación; en sandbox responde con los registros del servicio. Rol \
            CONTADOR o superior. No cuesta timbres.",
        esquema: esquema_de_id,
        empresa: true,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "calcular_nomina",
        titulo: "Calcular nómina (bruto a neto)",
        descripcion: "Calcula el neto de un trabajador en un periodo: ISR (Art. 96 LISR), subsidio para el empleo, \
            cuotas obreras del IMSS, percepciones y deducciones extra. No timbra, no guarda nada y no cuesta.",
        esquema: esquema_de_nomina,
        empresa: false,
        idempotente: false,
        lectura: true,
    },
    Herramienta {
        nombre: "sincronizar_recibidos",
        titulo: "Sincronizar CFDI recibidos",
        descripcion: "Empieza a descargar del SAT (descarga masiva, con la FIEL de la empresa) los CFDI recibidos de un \
            mes; responde al momento con el `jobId` del trabajo. Usa una de las descargas diarias del SAT; no cuesta \
            timbres. Rol CONTADOR o superior.",
        esquema: esquema_de::<SyncBody>,
        empresa: true,
        idempotente: false,
        lectura: false,
    },
    Herramienta {
        nombre: "descargar_por_uuid",
        titulo: "Descargar CFDI recibido por UUID",
        descripcion: "Descarga del SAT un CFDI recibido por la empresa, por su UUID (o la URL de verificación del SAT), \
            y lo guarda; si el SAT tarda, responde con un `jobId`. Usa una de las descargas diarias del SAT; no cuesta \
            timbres. Rol CONTADOR o superior.",
        esquema: esquema_de::<DescargarBody>,
        empresa: true,
        idempotente: false,
        lectura: false,
    },
];

/// The tools as `tools/list` answers them (built once).
pub fn lista() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| HERRAMIENTAS.iter().map(herramienta).collect())
}

fn herramienta(h: &Herramienta) -> Tool {
    let mut esquema = (h.esquema)();
    let propiedades = esquema.entry("properties").or_insert_with(|| json!({}));
    if let Some(propiedades) = propiedades.as_object_mut() {
        if h.empresa {
            propiedades.insert(
                "empresaId".into(),
                json!({ "type": "string", "description": "La empresa sobre la que actúa (su id, de listar_empresas); \
                    sin él, la cabecera x-empresa-id de la petición HTTP." }),
            );
        }
        if h.idempotente {
            propiedades.insert(
                "idempotencyKey".into(),
                json!({ "type": "string", "maxLength": idempotency::MAX_KEY, "description": "Llave de idempotencia \
                    (como la cabecera Idempotency-Key): la misma llave con los mismos argumentos devuelve la primera \
                    respuesta sin timbrar ni cancelar otra vez." }),
            );
        }
    }
    let descripcion = if h.idempotente && h.nombre.starts_with("timbrar_") {
        format!("{}{LIVE}", h.descripcion)
    } else {
        h.descripcion.to_owned()
    };
    let anotaciones = ToolAnnotations::with_title(h.titulo)
        .read_only(h.lectura)
        .destructive(h.nombre == "cancelar_cfdi")
        .idempotent(h.lectura)
        .open_world(!h.lectura);
    Tool::new(h.nombre, descripcion, Arc::new(esquema)).with_title(h.titulo).with_annotations(anotaciones)
}

fn sin_argumentos() -> JsonObject {
    objeto(json!({ "type": "object", "properties": {} }))
}

/// The OpenAPI schema of `T` (the route's body) as a JSON Schema: the types it refers to go in
/// `$defs`.
fn esquema_de<T: ToSchema>() -> JsonObject {
    let mut referidos = Vec::new();
    T::schemas(&mut referidos);
    let mut raiz = serde_json::to_value(T::schema()).unwrap_or_else(|_| json!({ "type": "object" }));
    if !referidos.is_empty()
        && let Some(raiz) = raiz.as_object_mut()
    {
        let defs: serde_json::Map<String, Value> = referidos
            .into_iter()
            .filter_map(|(nombre, esquema)| Some((nombre, serde_json::to_value(esquema).ok()?)))
            .collect();
        raiz.insert("$defs".into(), Value::Object(defs));
    }
    // OpenAPI's references point into `components`; a tool's schema stands alone.
    let texto = raiz.to_string().replace("#/components/schemas/", "#/$defs/");
    objeto(serde_json::from_str(&texto).unwrap_or_else(|_| json!({ "type": "object" })))
}

/// The OpenAPI query parameters of `T` (the route's) as the properties of an object.
fn esquema_de_parametros<T: IntoParams>() -> JsonObject {
    let mut propiedades = serde_json::Map::new();
    let mut requeridos = Vec::new();
    for parametro in T::into_params(|| Some(ParameterIn::Query)) {
        let mut esquema = parametro.schema.and_then(|s| serde_json::to_value(s).ok()).unwrap_or_else(|| json!({}));
        if let (Some(descripcion), Some(esquema)) = (parametro.description, esquema.as_object_mut()) {
            esquema.insert("description".into(), Value::String(descripcion));
        }
        if matches!(parametro.required, Required::True) {
            requeridos.push(Value::String(parametro.name.clone()));
        }
        propiedades.insert(parametro.name, esquema);
    }
    objeto(json!({ "type": "object", "properties": propiedades, "required": requeridos }))
}

fn esquema_de_id() -> JsonObject {
    objeto(json!({ "type": "object", "required": ["id"], "properties": {
        "id": { "type": "string", "description": "El id del CFDI en timbra (`cfdiId` de un timbrado, `id` de listar_cfdi)." }
    } }))
}

fn esquema_de_cancelacion() -> JsonObject {
    let mut esquema = esquema_de::<CancelarBody>();
    if let Some(propiedades) = esquema.get_mut("properties").and_then(Value::as_object_mut) {
        propiedades.insert("id".into(), esquema_de_id()["properties"]["id"].clone());
    }
    if let Some(requeridos) = esquema.entry("required").or_insert_with(|| json!([])).as_array_mut() {
        requeridos.push(Value::String("id".into()));
    }
    esquema
}

/// `POST /api/nomina/calcular`'s body (`CalculoNomina`, the route's OpenAPI schema); every field
/// is optional in the type so that validation can name each missing one, but these three are
/// what a calculation needs.
fn esquema_de_nomina() -> JsonObject {
    let mut esquema = esquema_de::<timbra_nomina::CalculoNomina>();
    esquema.insert("required".into(), json!(["salarioDiario", "diasPagados", "periodicidad"]));
    esquema
}

fn objeto(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// What a tool answered: the route's `data` and a short text (saying when the company is live).
struct Salida {
    data: Value,
    texto: String,
}

/// Runs the tool `nombre` for the caller; unknown tools are a protocol error, everything else
/// (a bad body, a refusal) a tool error with the code.
pub async fn llamar(
    app: &AppContext,
    llamante: &Llamante,
    empresa_cabecera: Option<String>,
    nombre: &str,
    mut argumentos: JsonObject,
) -> Result<CallToolResult, ErrorData> {
    if !HERRAMIENTAS.iter().any(|h| h.nombre == nombre) {
        return Err(ErrorData::invalid_params(format!("no tool named {nombre:?}; see tools/list"), None));
    }
    let empresa = match argumentos.remove("empresaId") {
        Some(Value::String(id)) if !id.trim().is_empty() => Some(id.trim().to_owned()),
        _ => empresa_cabecera,
    };
    let resultado = ejecutar(app, llamante, empresa.as_deref(), nombre, argumentos).await;
    let codigo = resultado.as_ref().err().map(|error| error.code.as_str());
    tracing::info!(
        mcp.tool = nombre,
        key.prefix = %llamante.prefijo,
        empresa.id = empresa.as_deref().unwrap_or_default(),
        error.code = codigo.unwrap_or_default(),
        "MCP tool call"
    );
    Ok(match resultado {
        Ok(salida) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(salida.texto)]);
            result.structured_content = Some(match salida.data {
                Value::Object(data) => Value::Object(data),
                otro => json!({ "items": otro }),
            });
            result
        }
        Err(error) => {
            let mut result =
                CallToolResult::error(vec![ContentBlock::text(format!("{}: {}", error.code.as_str(), error.message))]);
            result.structured_content =
                Some(json!({ "code": error.code.as_str(), "message": error.message, "details": error.details }));
            result
        }
    })
}

async fn ejecutar(
    app: &AppContext,
    llamante: &Llamante,
    empresa: Option<&str>,
    nombre: &str,
    mut args: JsonObject,
) -> ApiResult<Salida> {
    let caller = &llamante.caller;
    let empresa_id = || {
        empresa.ok_or_else(|| {
            ApiError::new(
                Code::Empresa003,
                "pass the company as the argument empresaId (its id, from listar_empresas) or the x-empresa-id header",
            )
        })
    };
    let salida = match nombre {
        "listar_empresas" => {
            let empresas = empresas::listar(app, caller).await.map_err(sin_http)?;
            let texto = format!("{} empresa(s) al alcance de esta llave.", empresas.len());
            Salida { data: a_json(&empresas)?, texto }
        }
        "crear_cliente" => {
            let body: ClienteBody = argumentos(args)?;
            let cliente = clientes::crear(&EmpresaScope::new(app, caller, &EmpresaId::from(empresa_id()?)), body)
                .await
                .map_err(sin_http)?;
            let data = a_json(&cliente)?;
            let texto = format!("Cliente creado: id {}, RFC {}.", data["id"], data["rfc"]);
            Salida { data, texto }
        }
        "buscar_clientes" => {
            let params: ListParams = argumentos(args)?;
            let pagina = clientes::buscar(&EmpresaScope::new(app, caller, &EmpresaId::from(empresa_id()?)), &params)
                .await
                .map_err(sin_http)?;
            pagina_de(a_json(&pagina)?, "cliente(s)")
        }
        "buscar_clave_producto" => {
            let params: BusquedaParams = argumentos(args)?;
            pagina_de(a_json(&catalogos::buscar_productos_servicios(app, &params).map_err(sin_http)?)?, "clave(s)")
        }
        "buscar_unidad" => {
            let params: BusquedaParams = argumentos(args)?;
            pagina_de(a_json(&catalogos::buscar_unidades(app, &params).map_err(sin_http)?)?, "unidad(es)")
        }
        "validar_factura" => {
            let bytes = cuerpo(&args)?;
            let ensayo = cfdi::validar::validar_factura(app, caller, &EmpresaId::from(empresa_id()?), &bytes)
                .await
                .map_err(sin_http)?;
            let data = a_json(&ensayo)?;
            let texto = if data["valido"] == json!(true) {
                "La factura es válida: se puede timbrar con estos argumentos.".to_owned()
            } else {
                let problemas = data["problemas"].as_array().map_or(0, Vec::len);
                format!("La factura no es válida: {problemas} problema(s) en structuredContent.problemas.")
            };
            Salida { data, texto }
        }
        "timbrar_factura" | "timbrar_pago" => {
            let empresa_id = empresa_id()?;
            let live = en_vivo(app, llamante, &EmpresaId::from(empresa_id), Permission::CfdiTimbrar).await?;
            let (clave, bytes) = clave_y_cuerpo(&mut args)?;
            let answer = if nombre == "timbrar_factura" {
                cfdi::timbrar::timbrar_factura(app, caller, &EmpresaId::from(empresa_id), clave, &bytes).await
            } else {
                cfdi::pagos::timbrar(app, caller, &EmpresaId::from(empresa_id), clave, &bytes).await
            }
            .map_err(sin_http)?;
            let data = datos_de(&answer)?;
            let que = if nombre == "timbrar_factura" { "Factura timbrada" } else { "Pago timbrado" };
            let texto = format!(
                "{que}{}: UUID {}, serie {} folio {}, total {}.{}",
                if answer.replayed { " (respuesta repetida por idempotencyKey)" } else { "" },
                texto_de(&data["uuid"]),
                texto_de(&data["serie"]),
                texto_de(&data["folio"]),
                texto_de(&data["total"]),
                aviso(live, "Gastó un timbre del saldo y es un comprobante fiscal real ante el SAT.")
            );
            Salida { data, texto }
        }
        "listar_cfdi" => {
            let params: ListCfdiParams = argumentos(args)?;
            let pagina =
                cfdi::list::page(app, caller, &EmpresaId::from(empresa_id()?), params).await.map_err(sin_http)?;
            let data = a_json(&pagina)?;
            let texto = format!(
                "{} CFDI en esta página de {} en total.",
                data["cfdis"].as_array().map_or(0, Vec::len),
                data["total"]
            );
            Salida { data, texto }
        }
        "obtener_cfdi" => {
            let id = id_de(&mut args)?;
            let cfdi =
                cfdi::obtener::obtener(app, caller, &EmpresaId::from(empresa_id()?), &id).await.map_err(sin_http)?;
            let data = a_json(&cfdi)?;
            let texto = format!(
                "CFDI {} ({}), total {}; XML en xmlDownloadUrl (enlace firmado, una hora).",
                texto_de(&data["uuid"]),
                texto_de(&data["status"]),
                texto_de(&data["total"])
            );
            Salida { data, texto }
        }
        "cancelar_cfdi" => {
            let empresa_id = empresa_id()?;
            let live = en_vivo(app, llamante, &EmpresaId::from(empresa_id), Permission::CfdiCancelar).await?;
            let id = id_de(&mut args)?;
            let (clave, bytes) = clave_y_cuerpo(&mut args)?;
            let answer = cfdi::cancelar::cancelar_cfdi(app, caller, &EmpresaId::from(empresa_id), &id, clave, &bytes)
                .await
                .map_err(sin_http)?;
            let data = datos_de(&answer)?;
            let texto = format!(
                "Cancelación de {}: estado {}, cancelación {}.{}",
                texto_de(&data["uuid"]),
                texto_de(&data["status"]),
                texto_de(&data["cancellationStatus"]),
                aviso(live, "Es una solicitud real ante el SAT.")
            );
            Salida { data, texto }
        }
        "estado_sat" => {
            let id = id_de(&mut args)?;
            let (estado, _) = cfdi::estado_sat::consultar(app, caller, &EmpresaId::from(empresa_id()?), &id)
                .await
                .map_err(sin_http)?;
            let data = a_json(&estado)?;
            let texto = format!("Estado ante el SAT: {}.", texto_de(&data["estado"]));
            Salida { data, texto }
        }
        "calcular_nomina" => {
            let body: timbra_nomina::CalculoNomina = argumentos(args)?;
            let data = a_json(&nomina::calcular::neto(&body).map_err(sin_http)?)?;
            let texto = format!("Neto a pagar: {}.", texto_de(&data["netoAPagar"]));
            Salida { data, texto }
        }
        "sincronizar_recibidos" => {
            let (empresa, _) =
                cfdi::recibidos::acceso_sat(app, caller, &EmpresaId::from(empresa_id()?)).await.map_err(sin_http)?;
            let bytes = cuerpo(&args)?;
            let data = a_json(&cfdi::recibidos::iniciar(app, &empresa, &bytes).await.map_err(sin_http)?)?;
            let texto = format!("Sincronización iniciada: trabajo {}.", texto_de(&data["jobId"]));
            Salida { data, texto }
        }
        "descargar_por_uuid" => {
            let (empresa, access) =
                cfdi::recibidos::acceso_sat(app, caller, &EmpresaId::from(empresa_id()?)).await.map_err(sin_http)?;
            let bytes = cuerpo(&args)?;
            match cfdi::por_uuid::descargar(app, caller, &empresa, &access, &bytes).await.map_err(sin_http)? {
                Ok(descarga) => {
                    let data = a_json(&descarga)?;
                    let texto = format!("CFDI descargado (fuente {}).", texto_de(&data["source"]));
                    Salida { data, texto }
                }
                Err(en_curso) => {
                    let data = a_json(&en_curso)?;
                    let texto = format!("El SAT tarda: la descarga sigue en el trabajo {}.", texto_de(&data["jobId"]));
                    Salida { data, texto }
                }
            }
        }
        _ => return Err(ApiError::internal("mcp tool", nombre)),
    };
    Ok(salida)
}

/// Whether the company is live, after checking that the caller may act there; a live company
/// refuses stamping and cancelling from a key without the scope `mcp:live` (SCOPE_002).
async fn en_vivo(
    app: &AppContext,
    llamante: &Llamante,
    empresa_id: &EmpresaId,
    permiso: Permission,
) -> ApiResult<bool> {
    let access = llamante.caller.authorize(app, empresa_id, permiso).await?;
    if !access.sandbox && !llamante.caller.names_scope(MCP_LIVE) {
        return Err(ApiError::new(
            Code::Scope002,
            format!(
                "company {empresa_id} is live: through MCP a stamp spends a stamp and is a real tax document, and a \
                 cancellation is a real request to SAT; use an API key created with the scope {MCP_LIVE} (it is never \
                 implied by * nor by a key without scopes)"
            ),
        )
        .with_details(json!({ "action": permiso.scope(), "requiredScope": MCP_LIVE, "mode": "live" })));
    }
    Ok(!access.sandbox)
}

fn aviso(live: bool, texto: &str) -> String {
    if live {
        format!(" Empresa en modo live: {texto}")
    } else {
        " Empresa en modo sandbox: de prueba, sin costo.".into()
    }
}

/// The arguments as the route's typed body or parameters (REQUEST_001 saying what is wrong).
fn argumentos<T: DeserializeOwned>(args: JsonObject) -> ApiResult<T> {
    serde_json::from_value(Value::Object(args)).map_err(|error| {
        ApiError::new(Code::Request001, format!("the arguments do not fit the tool's input schema: {error}"))
    })
}

/// The arguments as the route's JSON body.
fn cuerpo(args: &JsonObject) -> ApiResult<Vec<u8>> {
    serde_json::to_vec(args).map_err(|error| ApiError::internal("mcp arguments", error))
}

/// `idempotencyKey` as the route's Idempotency-Key (the same checks, the digest of the same
/// body), and the body without it.
fn clave_y_cuerpo(args: &mut JsonObject) -> ApiResult<(Option<idempotency::Key>, Vec<u8>)> {
    let llave = args.remove("idempotencyKey");
    let bytes = cuerpo(args)?;
    let mut headers = HeaderMap::new();
    match llave {
        None | Some(Value::Null) => {}
        Some(Value::String(llave)) => {
            let value = HeaderValue::from_str(&llave)
                .map_err(|_| ApiError::new(Code::Request001, "idempotencyKey must be visible ASCII characters"))?;
            headers.insert("idempotency-key", value);
        }
        Some(_) => return Err(ApiError::new(Code::Request001, "idempotencyKey is a string")),
    }
    Ok((idempotency::from_headers(&headers, &bytes)?, bytes))
}

/// The `id` argument (REQUEST_001 when missing).
fn id_de(args: &mut JsonObject) -> ApiResult<String> {
    match args.remove("id") {
        Some(Value::String(id)) if !id.trim().is_empty() => Ok(id.trim().to_owned()),
        _ => Err(ApiError::new(Code::Request001, "pass the CFDI's id as the argument id (cfdiId of a stamp)")),
    }
}

/// The `data` of a stored or fresh answer (a stamp, a cancellation).
fn datos_de(answer: &Answer) -> ApiResult<Value> {
    let mut body: Value =
        serde_json::from_str(&answer.body).map_err(|error| ApiError::internal("stored answer", error))?;
    Ok(body["data"].take())
}

fn a_json(value: &impl Serialize) -> ApiResult<Value> {
    serde_json::to_value(value).map_err(|error| ApiError::internal("mcp result", error))
}

fn pagina_de(data: Value, que: &str) -> Salida {
    let texto = format!(
        "{} {que} en esta página (página {} de {}, {} en total).",
        data["items"].as_array().map_or(0, Vec::len),
        data["page"],
        data["totalPages"],
        data["total"]
    );
    Salida { data, texto }
}

fn texto_de(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "—".into(),
        other => other.to_string(),
    }
}

fn sin_http(error: HttpError) -> ApiError {
    error.0
}
