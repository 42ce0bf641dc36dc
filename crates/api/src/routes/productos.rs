//! Products (productos) of a company: create, list with search, get, update, delete.

use axum::response::IntoResponse;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Page, Path, Query, created, ok};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::scoped::{self, ListParams, Routed};
use timbra_services::auth::roles::Permission;
use timbra_services::productos::{Campos, Productos};
use timbra_services::validate::RawAmount;
use timbra_store::productos::ProductoRow;

/// Product body for create (all required but `ivaRate`) and update (all optional). Amounts are
/// JSON numbers or strings, read exactly.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct ProductoBody {
    /// c_ClaveProdServ code, 8 digits.
    clave_prod_serv: Option<String>,
    /// c_ClaveUnidad code (E48 service, H87 piece).
    clave_unidad: Option<String>,
    /// Description printed on the invoice (cfdv40.xsd Concepto/@Descripcion: 1 to 1,000
    /// characters, no `|`, no control characters).
    descripcion: Option<String>,
    /// Unit price in MXN, plain decimal notation, up to 18 integer digits and 6 decimals
    /// (tdCFDI t_Importe).
    #[schema(value_type = Option<f64>)]
    precio_unitario: Option<RawAmount>,
    /// VAT rate, default 0.16 (one of 0, 0.08, 0.16).
    #[schema(value_type = Option<f64>)]
    iva_rate: Option<RawAmount>,
    /// Default c_FraccionArancelaria (8 or 10 digits) of the goods, for Comercio Exterior's
    /// `mercancias[].fraccionArancelaria` and Carta Porte's.
    fraccion_arancelaria: Option<String>,
    /// Default Carta Porte `materialPeligroso`: `Sí` or `No`.
    material_peligroso: Option<String>,
}

/// A product.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductoOut {
    id: String,
    clave_prod_serv: String,
    clave_unidad: String,
    descripcion: String,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    precio_unitario: Decimal,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    iva_rate: Decimal,
    #[serde(skip_serializing_if = "Option::is_none")]
    fraccion_arancelaria: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    material_peligroso: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<ProductoRow> for ProductoOut {
    fn from(row: ProductoRow) -> Self {
        Self {
            id: row.id,
            clave_prod_serv: row.clave_prod_serv,
            clave_unidad: row.clave_unidad,
            descripcion: row.descripcion,
            precio_unitario: row.precio_unitario.0,
            iva_rate: row.iva_rate.0,
            fraccion_arancelaria: row.fraccion_arancelaria,
            material_peligroso: row.material_peligroso,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

impl Routed for Productos {
    type Out = ProductoOut;
    const VIEW: Permission = Permission::ProductoView;
    const CREATE: Permission = Permission::ProductoCreate;
    const EDIT: Permission = Permission::ProductoEdit;
    const DELETE: Permission = Permission::ProductoDelete;
}

impl From<ProductoBody> for Campos {
    fn from(body: ProductoBody) -> Self {
        Self {
            clave_prod_serv: body.clave_prod_serv,
            clave_unidad: body.clave_unidad,
            descripcion: body.descripcion,
            precio_unitario: body.precio_unitario,
            iva_rate: body.iva_rate,
            fraccion_arancelaria: body.fraccion_arancelaria,
            material_peligroso: body.material_peligroso,
        }
    }
}

/// Creates a product (FACTURADOR or higher).
#[utoipa::path(post, path = "/productos", tag = "productos", request_body = ProductoBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "Product created", body = Envelope<ProductoOut>),
        (status = 400, description = "PRODUCTO_001 with `details.fields`; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn create(scope: EmpresaScope, Json(body): Json<ProductoBody>) -> HttpResult<impl IntoResponse> {
    Ok(created(scoped::create::<Productos>(&scope, body.into()).await?))
}

/// Lists products, newest first, with `q` over the code and description.
#[utoipa::path(get, path = "/productos", tag = "productos", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<ProductoOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(scope: EmpresaScope, Query(params): Query<ListParams>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::list::<Productos>(&scope, &params).await?))
}

/// One product.
#[utoipa::path(get, path = "/productos/{id}", tag = "productos", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The product", body = Envelope<ProductoOut>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::get::<Productos>(&scope, &id).await?))
}

/// Updates a product; fields left out keep their value (FACTURADOR or higher).
#[utoipa::path(patch, path = "/productos/{id}", tag = "productos", request_body = ProductoBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The updated product", body = Envelope<ProductoOut>),
        (status = 400, description = "PRODUCTO_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn update(
    scope: EmpresaScope,
    Path(id): Path<String>,
    Json(body): Json<ProductoBody>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::update::<Productos>(&scope, &id, body.into()).await?))
}

/// Deletes a product (CONTADOR or higher).
#[utoipa::path(delete, path = "/productos/{id}", tag = "productos", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Object>),
        (status = 403, description = "AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn delete(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    Ok(ok(scoped::delete::<Productos>(&scope, &id).await?))
}
