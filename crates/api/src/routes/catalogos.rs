//! SAT's catalogs for forms (issue 29): c_ClaveProdServ and c_ClaveUnidad searched, a postal
//! code looked up, and the small catalogs whole. Any authenticated caller; nothing here is a
//! company's data. Answers come from the edition validation holds (`AppContext::catalogos`), so
//! what a form offers is what a stamp accepts.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Page, Path, Query, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::Auth;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_services::scoped::check_search;

/// A search's parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct BusquedaParams {
    /// Code prefix, or words of the description (case and accents ignored: `cafe` finds Café).
    pub q: Option<String>,
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
}

/// A c_ClaveProdServ entry.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductoServicioOut {
    clave: String,
    descripcion: String,
    /// SAT's "Incluir IVA trasladado": `No`, `Sí` or `Opcional`.
    incluir_iva: String,
    /// SAT's "Incluir IEPS trasladado".
    incluir_ieps: String,
    /// In force today.
    vigente: bool,
}

/// A c_ClaveUnidad entry.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnidadOut {
    clave: String,
    nombre: String,
    simbolo: String,
}

/// A c_CodigoPostal entry.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodigoPostalOut {
    codigo_postal: String,
    /// c_Estado.
    estado: String,
    /// c_Municipio, within the state.
    municipio: String,
    /// c_Localidad, within the state (often empty).
    localidad: String,
    /// SAT's time zone (`Tiempo del Centro`, `Tiempo del Noroeste`, …).
    huso_horario: String,
    /// In the border region whose stimulus allows IVA at 8%.
    estimulo_fronterizo: bool,
}

fn paging(params: &BusquedaParams) -> HttpResult<(timbra_store::Paging, String)> {
    let paging = parse_paging(params.page, params.page_size, 100)?;
    check_search("q", params.q.as_deref())?;
    Ok((paging, params.q.clone().unwrap_or_default()))
}

fn rango(paging: &timbra_store::Paging) -> (usize, usize) {
    let saltar = usize::try_from(paging.offset()).unwrap_or(usize::MAX);
    (saltar, usize::try_from(paging.page_size).unwrap_or(20))
}

fn total(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Searches c_ClaveProdServ: by code prefix (digits), or by every word as a prefix of a word of
/// the description or of SAT's similar words, ranked (descriptions starting with the words
/// first, then shorter ones).
#[utoipa::path(get, path = "/catalogos/productos-servicios", tag = "catalogos", params(BusquedaParams),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<ProductoServicioOut>>),
        (status = 400, description = "REQUEST_001 bad paging or q over 200 characters", body = ErrorBody),
        (status = 401, description = "AUTH_001", body = ErrorBody),
    ))]
pub async fn productos_servicios(
    State(app): State<AppContext>,
    Auth(_caller): Auth,
    Query(params): Query<BusquedaParams>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(buscar_productos_servicios(&app, &params)?))
}

/// One page of c_ClaveProdServ, as `GET /api/catalogos/productos-servicios` and the MCP tool
/// `buscar_clave_producto` search it.
pub(crate) fn buscar_productos_servicios(
    app: &AppContext,
    params: &BusquedaParams,
) -> HttpResult<Page<ProductoServicioOut>> {
    let (paging, q) = paging(params)?;
    let (saltar, limite) = rango(&paging);
    let hoy = app.clock.now().date();
    let pagina = app.catalogos.buscador.buscar(&q, saltar, limite);
    let items = pagina
        .filas
        .into_iter()
        .map(|producto| ProductoServicioOut {
            clave: producto.clave.clone(),
            descripcion: producto.descripcion.clone(),
            incluir_iva: producto.datos.incluir_iva.texto().to_owned(),
            incluir_ieps: producto.datos.incluir_ieps.texto().to_owned(),
            vigente: producto.datos.vigencia.vigente(hoy),
        })
        .collect();
    Ok(Page::new(items, total(pagina.total), paging))
}

/// Searches c_ClaveUnidad by code prefix or by words of its name (case and accents ignored).
#[utoipa::path(get, path = "/catalogos/unidades", tag = "catalogos", params(BusquedaParams),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<UnidadOut>>),
        (status = 400, description = "REQUEST_001", body = ErrorBody),
    ))]
pub async fn unidades(
    State(app): State<AppContext>,
    Auth(_caller): Auth,
    Query(params): Query<BusquedaParams>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(buscar_unidades(&app, &params)?))
}

/// One page of c_ClaveUnidad, as `GET /api/catalogos/unidades` and the MCP tool `buscar_unidad`
/// search it.
pub(crate) fn buscar_unidades(app: &AppContext, params: &BusquedaParams) -> HttpResult<Page<UnidadOut>> {
    let (paging, q) = paging(params)?;
    let (saltar, limite) = rango(&paging);
    let hoy = app.clock.now().date();
    let encontradas = timbra_catalogos::buscador::buscar_unidades(&app.catalogos.unidades, &q, hoy);
    let total_encontradas = encontradas.len();
    let items = encontradas
        .into_iter()
        .skip(saltar)
        .take(limite)
        .map(|unidad| UnidadOut {
            clave: unidad.clave.clone(),
            nombre: unidad.nombre.clone(),
            simbolo: unidad.simbolo.clone(),
        })
        .collect();
    Ok(Page::new(items, total(total_encontradas), paging))
}

/// A postal code of c_CodigoPostal.
#[utoipa::path(get, path = "/catalogos/codigos-postales/{cp}", tag = "catalogos", params(("cp" = String, Path)),
    responses(
        (status = 200, description = "The postal code", body = Envelope<CodigoPostalOut>),
        (status = 404, description = "NOT_FOUND: not in c_CodigoPostal", body = ErrorBody),
    ))]
pub async fn codigo_postal(
    State(app): State<AppContext>,
    Auth(_caller): Auth,
    Path(cp): Path<String>,
) -> HttpResult<impl IntoResponse> {
    let encontrado = app.catalogos.codigos_postales.get(cp.trim()).ok_or_else(|| {
        ApiError::new(Code::NotFound, format!("postal code {:?} is not in SAT's catalog c_CodigoPostal", cp.trim()))
    })?;
    Ok(ok(CodigoPostalOut {
        codigo_postal: encontrado.codigo_postal.clone(),
        estado: encontrado.estado.clone(),
        municipio: encontrado.municipio.clone(),
        localidad: encontrado.localidad.clone(),
        huso_horario: encontrado.huso_horario.descripcion().to_owned(),
        estimulo_fronterizo: encontrado.estimulo_frontera != timbra_cfdi::catalogos::EstimuloFrontera::Ninguno,
    }))
}

/// The small catalogs by the name of their path, and SAT's id of each.
pub const PEQUENOS: &[(&str, &str)] = &[
    ("regimenes-fiscales", "cfdi40/c_RegimenFiscal"),
    ("usos-cfdi", "cfdi40/c_UsoCFDI"),
    ("formas-pago", "cfdi40/c_FormaPago"),
    ("metodos-pago", "cfdi40/c_MetodoPago"),
    ("monedas", "cfdi40/c_Moneda"),
    ("paises", "cfdi40/c_Pais"),
    ("objetos-impuesto", "cfdi40/c_ObjetoImp"),
    ("motivos-cancelacion", "cancelacion/c_MotivoCancelacion"),
    ("tipos-relacion", "cfdi40/c_TipoRelacion"),
    ("exportaciones", "cfdi40/c_Exportacion"),
    ("periodicidades", "cfdi40/c_Periodicidad"),
    ("meses", "cfdi40/c_Meses"),
    ("impuestos", "cfdi40/c_Impuesto"),
    ("tipos-comprobante", "cfdi40/c_TipoDeComprobante"),
];

/// A small catalog, whole (not paged): each entry's code, description, whether it is in force
/// today, and every column of SAT's file; `usos-cfdi` adds the receiver régimenes each use
/// allows and whether it applies to personas físicas and morales.
#[utoipa::path(get, path = "/catalogos/{nombre}", tag = "catalogos", params(("nombre" = String, Path)),
    responses(
        (status = 200, description = "Every entry", body = Envelope<Vec<Object>>),
        (status = 404, description = "NOT_FOUND: no catalog of that name (the message lists them)", body = ErrorBody),
    ))]
pub async fn pequeno(
    State(app): State<AppContext>,
    Auth(_caller): Auth,
    Path(nombre): Path<String>,
) -> HttpResult<impl IntoResponse> {
    let hoy = app.clock.now().date();
    let desconocido = || {
        let nombres: Vec<&str> = PEQUENOS.iter().map(|(nombre, _)| *nombre).collect();
        ApiError::new(
            Code::NotFound,
            format!(
                "no catalog named {nombre:?}: use one of {}, or the searches productos-servicios, unidades and \
                 codigos-postales/{{cp}}",
                nombres.join(", ")
            ),
        )
    };
    let id = PEQUENOS.iter().find(|(conocido, _)| *conocido == nombre).map(|(_, id)| *id).ok_or_else(desconocido)?;
    let catalogo = app.catalogos.pequenos.get(id).ok_or_else(desconocido)?;
    let mut items: Vec<Value> = catalogo
        .filas
        .iter()
        .map(|fila| {
            let columnas: Map<String, Value> = catalogo
                .columnas
                .iter()
                .zip(&fila.valores)
                .map(|(columna, valor)| (columna.clone(), Value::String(valor.clone())))
                .collect();
            serde_json::json!({
                "clave": fila.clave,
                "descripcion": fila.descripcion,
                "vigente": fila.vigencia.vigente(hoy),
                "columnas": columnas,
            })
        })
        .collect();
    if nombre == "usos-cfdi" {
        for (item, uso) in items.iter_mut().zip(&app.catalogos.usos) {
            item["fisica"] = Value::Bool(uso.aplica_fisica);
            item["moral"] = Value::Bool(uso.aplica_moral);
            item["regimenesReceptor"] = serde_json::json!(uso.regimenes_receptores);
        }
    }
    Ok(ok(items))
}
