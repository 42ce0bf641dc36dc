//! Customers (clientes) of a company: create, list with search, get, update, delete.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::EmpresaId;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::clientes::{Campos, Clientes};
use timbra_services::context::AppContext;
use timbra_services::scoped;
use timbra_store::clientes::ClienteRow;

/// Customer body for create (all required but `usoCfdi` and `email`) and update (all optional).
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct ClienteBody {
    /// RFC, unique in the company (except XAXX010101000 and XEXX010101000).
    rfc: Option<String>,
    /// Legal name as registered with SAT (cfdv40.xsd Receptor/@Nombre: 1 to 300 characters,
    /// no `|`, no control characters).
    razon_social: Option<String>,
    /// c_RegimenFiscal code of the customer.
    regimen_fiscal: Option<String>,
    /// Postal code of the customer's fiscal address (DomicilioFiscalReceptor).
    codigo_postal: Option<String>,
    /// c_UsoCFDI code, default G03; must be allowed for the régimen.
    uso_cfdi: Option<String>,
    /// Where invoices are sent.
    email: Option<String>,
    /// A customer abroad (RFC XEXX010101000): its country, c_Pais code (USA, CAN, ...); the
    /// invoice's Receptor/@ResidenciaFiscal. Given together with `numRegIdTrib`.
    residencia_fiscal: Option<String>,
    /// A customer abroad: its tax id in its country; the invoice's Receptor/@NumRegIdTrib.
    num_reg_id_trib: Option<String>,
}

/// A customer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClienteOut {
    id: String,
    rfc: String,
    razon_social: String,
    regimen_fiscal: String,
    codigo_postal: String,
    uso_cfdi: String,
    email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    residencia_fiscal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    num_reg_id_trib: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<ClienteRow> for ClienteOut {
    fn from(row: ClienteRow) -> Self {
        Self {
            id: row.id,
            rfc: row.rfc,
            razon_social: row.razon_social,
            regimen_fiscal: row.regimen_fiscal,
            codigo_postal: row.codigo_postal,
            uso_cfdi: row.uso_cfdi,
            email: row.email,
            residencia_fiscal: row.residencia_fiscal,
            num_reg_id_trib: row.num_reg_id_trib,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// Listing parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct ListParams {
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
    /// Search in RFC and legal name (case-insensitive, substring).
    pub q: Option<String>,
}

impl From<ClienteBody> for Campos {
    fn from(body: ClienteBody) -> Self {
        Self {
            rfc: body.rfc,
            razon_social: body.razon_social,
            regimen_fiscal: body.regimen_fiscal,
            codigo_postal: body.codigo_postal,
            uso_cfdi: body.uso_cfdi,
            email: body.email,
            residencia_fiscal: body.residencia_fiscal,
            num_reg_id_trib: body.num_reg_id_trib,
        }
    }
}

/// Creates a customer (FACTURADOR or higher).
#[utoipa::path(post, path = "/clientes", tag = "clientes", request_body = ClienteBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Customer created", body = Envelope<ClienteOut>),
        (status = 400, description = "CLIENTE_001 with `details.fields`; EMPRESA_003 header missing", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 409, description = "CLIENTE_002 RFC already registered", body = ErrorBody),
    ))]
pub async fn create(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<ClienteBody>,
) -> HttpResult<impl IntoResponse> {
    Ok(created(crear(&app, &caller, &empresa_id, body).await?))
}

/// Creates a customer, as `POST /api/clientes` and the MCP tool `crear_cliente` do it.
pub(crate) async fn crear(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    body: ClienteBody,
) -> HttpResult<ClienteOut> {
    caller.authorize(app, empresa_id, Permission::ClienteCreate).await?;
    Ok(ClienteOut::from(scoped::create::<Clientes>(app, empresa_id, body.into()).await?))
}

/// Lists customers, newest first, with `q` over RFC and name.
#[utoipa::path(get, path = "/clientes", tag = "clientes", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<ClienteOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListParams>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(buscar(&app, &caller, &empresa_id, params).await?))
}

/// One page of customers, as `GET /api/clientes` and the MCP tool `buscar_clientes` read it.
pub(crate) async fn buscar(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    params: ListParams,
) -> HttpResult<Page<ClienteOut>> {
    caller.authorize(app, empresa_id, Permission::ClienteView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let (items, total) = scoped::page::<Clientes>(app, empresa_id, params.q.as_deref(), &paging).await?;
    Ok(Page::new(items.into_iter().map(ClienteOut::from).collect(), total, paging))
}

/// One customer.
#[utoipa::path(get, path = "/clientes/{id}", tag = "clientes", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The customer", body = Envelope<ClienteOut>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ClienteView).await?;
    Ok(ok(ClienteOut::from(scoped::get::<Clientes>(&app, &empresa_id, &id).await?)))
}

/// Updates a customer; fields left out keep their value (FACTURADOR or higher).
#[utoipa::path(patch, path = "/clientes/{id}", tag = "clientes", request_body = ClienteBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The updated customer", body = Envelope<ClienteOut>),
        (status = 400, description = "CLIENTE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CLIENTE_002", body = ErrorBody),
    ))]
pub async fn update(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    Json(body): Json<ClienteBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ClienteEdit).await?;
    let row = scoped::update::<Clientes>(&app, &empresa_id, &id, body.into()).await?;
    Ok(ok(ClienteOut::from(row)))
}

/// Deletes a customer (CONTADOR or higher). Issued invoices keep their own copy of the data.
#[utoipa::path(delete, path = "/clientes/{id}", tag = "clientes", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Object>),
        (status = 403, description = "AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ClienteDelete).await?;
    scoped::delete::<Clientes>(&app, &empresa_id, &id).await?;
    Ok(ok(serde_json::json!({ "deleted": true, "id": id })))
}
