//! Customers (clientes) of a company: create, list with search, get, update, delete.

use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Page, Path, Query, created, ok};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::scoped::{self, ListParams, Routed};
use timbra_services::auth::roles::Permission;
use timbra_services::clientes::{Campos, Clientes};
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

impl Routed for Clientes {
    type Out = ClienteOut;
    const VIEW: Permission = Permission::ClienteView;
    const CREATE: Permission = Permission::ClienteCreate;
    const EDIT: Permission = Permission::ClienteEdit;
    const DELETE: Permission = Permission::ClienteDelete;
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
pub async fn create(scope: EmpresaScope, Json(body): Json<ClienteBody>) -> HttpResult<impl IntoResponse> {
    Ok(created(crear(&scope, body).await?))
}

/// Creates a customer, as `POST /api/clientes` and the MCP tool `crear_cliente` do it.
pub(crate) async fn crear(scope: &EmpresaScope, body: ClienteBody) -> HttpResult<ClienteOut> {
    scoped::create::<Clientes>(scope, body.into()).await
}

/// Lists customers, newest first, with `q` over RFC and name.
#[utoipa::path(get, path = "/clientes", tag = "clientes", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<ClienteOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(scope: EmpresaScope, Query(params): Query<ListParams>) -> HttpResult<impl IntoResponse> {
    Ok(ok(buscar(&scope, &params).await?))
}

/// One page of customers, as `GET /api/clientes` and the MCP tool `buscar_clientes` read it.
pub(crate) async fn buscar(scope: &EmpresaScope, params: &ListParams) -> HttpResult<Page<ClienteOut>> {
    scoped::list::<Clientes>(scope, params).await
}

/// One customer.
#[utoipa::path(get, path = "/clientes/{id}", tag = "clientes", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The customer", body = Envelope<ClienteOut>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::get::<Clientes>(&scope, &id).await?))
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
    scope: EmpresaScope,
    Path(id): Path<String>,
    Json(body): Json<ClienteBody>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::update::<Clientes>(&scope, &id, body.into()).await?))
}

/// Deletes a customer (CONTADOR or higher). Issued invoices keep their own copy of the data.
#[utoipa::path(delete, path = "/clientes/{id}", tag = "clientes", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Object>),
        (status = 403, description = "AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::delete::<Clientes>(&scope, &id).await?))
}
