//! Sales tickets (issue 31): `POST/GET /api/recibos`, `GET /api/recibos/{id}`,
//! `POST /api/recibos/{id}/cancelar` (this file) and the global invoice
//! `POST /api/cfdi/global` ([`global`]). The computation and the stamps are
//! `timbra_services::cfdi::recibos`; the SQL `timbra_store::recibos`.

pub mod global;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::parse_body;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::credenciales::rfc3339;
use timbra_services::cfdi::recibos::{self, CrearReciboBody};
use timbra_services::cfdi::{contexto, hora_de_expedicion};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::recibos::{self as db, Filtro, ReciboRow};

/// A ticket.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReciboOut {
    id: String,
    folio: String,
    /// The sale's instant, ISO 8601 with the issuer's offset.
    fecha: String,
    moneda: String,
    tipo_cambio: Option<String>,
    forma_pago: String,
    /// Exact decimal text.
    subtotal: String,
    descuento: Option<String>,
    /// Exact decimal text.
    total: String,
    /// ABIERTO, FACTURADO, GLOBAL or CANCELADO.
    status: String,
    /// The code the customer types on the self-invoicing page (10 characters, no 0/O/1/I/L).
    clave_autofactura: String,
    /// The self-invoicing page with the code filled in; `null` until the company has an
    /// `autofactura.slug`.
    url_autofactura: Option<String>,
    /// The page refuses the code after this instant.
    autofactura_vence: String,
    /// The invoice (FACTURADO: the customer's; GLOBAL: the global invoice).
    cfdi_id: Option<String>,
    sucursal: Option<String>,
    email: Option<String>,
    /// The lines as computed: net `precioUnitario` (taxes backed out) and `importe`.
    #[schema(value_type = Object)]
    conceptos: serde_json::Value,
    created_at: String,
}

/// The base of public links: `TIMBRA_PUBLIC_URL`, else the request's Host (and
/// `X-Forwarded-Proto`, default http).
pub fn url_publica(app: &AppContext, headers: &HeaderMap) -> String {
    if let Some(url) = &app.config.public_url {
        return url.clone();
    }
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
        .filter(|p| *p == "https" || *p == "http")
        .unwrap_or("http");
    format!("{proto}://{host}")
}

/// `urlAutofactura` of the code `clave` on the page of `slug`.
pub fn url_autofactura(base: &str, slug: &str, clave: &str) -> String {
    format!("{base}/autofactura/{slug}?clave={clave}")
}

fn recibo_out(row: ReciboRow, app: &AppContext, codigo_postal: &str, base: &str, slug: Option<&str>) -> ReciboOut {
    let catalogos = &*app.catalogos.indice;
    let local = |t| rfc3339(hora_de_expedicion(catalogos, codigo_postal, t));
    ReciboOut {
        url_autofactura: slug.map(|slug| url_autofactura(base, slug, &row.clave_autofactura)),
        fecha: local(row.fecha),
        autofactura_vence: local(row.vence),
        created_at: rfc3339(row.created_at),
        conceptos: serde_json::from_str(&row.conceptos).unwrap_or(serde_json::Value::Null),
        id: row.id,
        folio: row.folio,
        moneda: row.moneda,
        tipo_cambio: row.tipo_cambio.map(|t| t.0.to_string()),
        forma_pago: row.forma_pago,
        subtotal: row.subtotal.0.to_string(),
        descuento: row.descuento.map(|d| d.0.to_string()),
        total: row.total.0.to_string(),
        status: row.status,
        clave_autofactura: row.clave_autofactura,
        cfdi_id: row.cfdi_id,
        sucursal: row.sucursal,
        email: row.email,
    }
}

async fn slug_de(app: &AppContext, empresa_id: &str) -> HttpResult<Option<String>> {
    let mut conn = app.db.conn().await?;
    Ok(db::ajustes(&mut conn, empresa_id).await?.and_then(|a| a.autofactura_slug))
}

/// Records a sales ticket (FACTURADOR or higher): its lines computed as an invoice's, prices
/// with taxes by default (`preciosConImpuestos`), a self-invoicing code and link.
#[utoipa::path(post, path = "/recibos", tag = "recibos", request_body = CrearReciboBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "The ticket, ABIERTO", body = Envelope<ReciboOut>),
        (status = 400, description = "RECIBO_001 every problem in details.fields (amounts greater than 0, at least one line, tipoCambio for a currency, SAT's catalogs); REQUEST_001 malformed JSON", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn crear(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
    let json: serde_json::Value = parse_body(&body)?;
    let lineas = match json.get("conceptos") {
        Some(serde_json::Value::Array(lineas)) => lineas.clone(),
        _ => Vec::new(),
    };
    let cuerpo: CrearReciboBody = parse_body(&body)?;
    let now = app.clock.now();
    let (empresa, _) = contexto::emisora_y_receptor(&app, &empresa_id, None).await?;
    let (row, slug) = recibos::crear(&app, &empresa, cuerpo, lineas, now).await?;
    Ok(created(recibo_out(row, &app, &empresa.codigo_postal, &url_publica(&app, &headers), slug.as_deref())))
}

/// Listing parameters.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListRecibosParams {
    /// Page from 1 (default 1).
    page: Option<i64>,
    /// Items per page, 1 to 1,000 (default 20).
    page_size: Option<i64>,
    /// ABIERTO, FACTURADO, GLOBAL or CANCELADO.
    status: Option<String>,
    /// First day `AAAA-MM-DD` (the issuer's local time).
    desde: Option<String>,
    /// Last day `AAAA-MM-DD`, included.
    hasta: Option<String>,
    /// Part of the folio, the code, the branch or the e-mail.
    search: Option<String>,
}

impl ListRecibosParams {
    /// The first 100 tickets, of `status` when given (the dashboard's list).
    pub fn de(status: Option<String>) -> Self {
        Self { page: Some(1), page_size: Some(100), status, ..Self::default() }
    }
}

fn dia(campo: &str, texto: &str) -> Result<time::Date, ApiError> {
    time::Date::parse(texto.trim(), &time::macros::format_description!("[year]-[month]-[day]"))
        .map_err(|_| ApiError::new(Code::Request001, format!("{campo} is a date AAAA-MM-DD")))
}

/// Lists the company's tickets, newest first (CONSULTA or higher).
#[utoipa::path(get, path = "/recibos", tag = "recibos", params(ListRecibosParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "A page", body = Envelope<Page<ReciboOut>>),
        (status = 400, description = "REQUEST_001 bad paging, status or date", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn listar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    headers: HeaderMap,
    Query(params): Query<ListRecibosParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let paging = parse_paging(params.page, params.page_size, 1000)?;
    let status = match params.status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s @ ("ABIERTO" | "FACTURADO" | "GLOBAL" | "CANCELADO")) => Some(s.to_owned()),
        Some(_) => {
            return Err(ApiError::new(Code::Request001, "status is ABIERTO, FACTURADO, GLOBAL or CANCELADO").into());
        }
    };
    let (empresa, _) = contexto::emisora_y_receptor(&app, &empresa_id, None).await?;
    let catalogos = &*app.catalogos.indice;
    let inicio = |d: time::Date| {
        timbra_services::cfdi::fecha_de_expedicion(
            catalogos,
            &empresa.codigo_postal,
            time::PrimitiveDateTime::new(d, time::Time::MIDNIGHT),
        )
        .to_offset(time::UtcOffset::UTC)
    };
    let desde = params.desde.as_deref().map(|t| dia("desde", t)).transpose()?.map(inicio);
    let hasta =
        params.hasta.as_deref().map(|t| dia("hasta", t)).transpose()?.map(|d| inicio(d.next_day().unwrap_or(d)));
    let patron = params
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| timbra_store::search::like_pattern(Some(s)));
    let filtro = Filtro { status, desde, hasta, patron };
    let (rows, total) = {
        let mut conn = app.db.conn().await?;
        db::page(&mut conn, &empresa_id, &filtro, &paging).await?
    };
    let slug = slug_de(&app, &empresa_id).await?;
    let base = url_publica(&app, &headers);
    let items = rows.into_iter().map(|r| recibo_out(r, &app, &empresa.codigo_postal, &base, slug.as_deref())).collect();
    Ok(ok(Page::new(items, total, paging)))
}

/// One ticket (CONSULTA or higher).
#[utoipa::path(get, path = "/recibos/{id}", tag = "recibos", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The ticket", body = Envelope<ReciboOut>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also another company's)", body = ErrorBody),
    ))]
pub async fn obtener(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let row = {
        let mut conn = app.db.conn().await?;
        db::get(&mut conn, &empresa_id, &id).await?.ok_or_else(|| ApiError::not_found("ticket"))?
    };
    let (empresa, _) = contexto::emisora_y_receptor(&app, &empresa_id, None).await?;
    let slug = slug_de(&app, &empresa_id).await?;
    Ok(ok(recibo_out(row, &app, &empresa.codigo_postal, &url_publica(&app, &headers), slug.as_deref())))
}

/// Cancels an ABIERTO ticket (FACTURADOR or higher): its code stops working and no global
/// invoice includes it.
#[utoipa::path(post, path = "/recibos/{id}/cancelar", tag = "recibos", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The ticket, CANCELADO", body = Envelope<ReciboOut>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also another company's)", body = ErrorBody),
        (status = 409, description = "RECIBO_003 the ticket is not ABIERTO (invoiced, in a global invoice or already cancelled)", body = ErrorBody),
    ))]
pub async fn cancelar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
    let now = app.clock.now();
    let row = {
        let mut tx = app.db.begin().await?;
        let row = db::get(&mut tx, &empresa_id, &id).await?.ok_or_else(|| ApiError::not_found("ticket"))?;
        if db::cancelar(&mut tx, &empresa_id, &id, now).await? == 0 {
            return Err(ApiError::new(
                Code::Recibo003,
                format!("ticket {} is {}: only an ABIERTO ticket can be cancelled", row.folio, row.status),
            )
            .into());
        }
        tx.commit().await?;
        ReciboRow { status: "CANCELADO".into(), updated_at: now, ..row }
    };
    let (empresa, _) = contexto::emisora_y_receptor(&app, &empresa_id, None).await?;
    let slug = slug_de(&app, &empresa_id).await?;
    Ok(ok(recibo_out(row, &app, &empresa.codigo_postal, &url_publica(&app, &headers), slug.as_deref())))
}
