//! Sales tickets (issue 31): `POST/GET /api/recibos`, `GET /api/recibos/{id}`,
//! `POST /api/recibos/{id}/cancelar` (this file) and the global invoice
//! `POST /api/cfdi/global` ([`global`]). The computation and the stamps are
//! `timbra_services::cfdi::recibos`; the SQL `timbra_store::recibos`.

pub mod global;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde::Deserialize;
use timbra_store::ids::{EmpresaId, ReciboId};
use utoipa::IntoParams;

use crate::envelope::{Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::parse_body;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::contexto;
use timbra_services::cfdi::recibos::{self, CrearReciboBody};
use timbra_services::cfdi::recibos_consulta;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::recibos::{self as db, ReciboRow};

pub use timbra_services::cfdi::recibos_consulta::{ReciboOut, url_autofactura, url_publica};

fn recibo_out(row: ReciboRow, app: &AppContext, codigo_postal: &str, base: &str, slug: Option<&str>) -> ReciboOut {
    recibos_consulta::recibo_out(row, app, codigo_postal, base, slug)
}

async fn slug_de(app: &AppContext, empresa_id: &EmpresaId) -> HttpResult<Option<String>> {
    Ok(recibos_consulta::slug_de(app, empresa_id).await?)
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
    let consulta = recibos_consulta::Consulta {
        status: params.status,
        desde: params.desde,
        hasta: params.hasta,
        search: params.search,
    };
    let (items, total) =
        recibos_consulta::listar(&app, &empresa_id, &consulta, &paging, &url_publica(&app, &headers)).await?;
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
    Ok(ok(recibos_consulta::obtener(&app, &empresa_id, &id, &url_publica(&app, &headers)).await?))
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
        let row =
            db::get(&mut tx, &empresa_id, &ReciboId::from(&id)).await?.ok_or_else(|| ApiError::not_found("ticket"))?;
        if db::cancelar(&mut tx, &empresa_id, &ReciboId::from(&id), now).await? == 0 {
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
