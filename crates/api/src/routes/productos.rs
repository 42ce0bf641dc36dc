//! Products (productos) of a company: create, list with search, get, update, delete.

use axum::extract::State;
use axum::response::IntoResponse;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::clientes::ListParams;
use timbra_cfdi::tipos::{CampoTexto, Esquema};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_services::validate;
use timbra_services::validate::RawAmount;
use timbra_store::AsExec;
use timbra_store::ids;
use timbra_store::productos::{self, ProductoRow, Productos};
use timbra_store::scoped;
use timbra_store::search::like_pattern;

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
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

struct Valid {
    clave_prod_serv: String,
    clave_unidad: String,
    descripcion: String,
    precio_unitario: Decimal,
    iva_rate: Decimal,
}

fn check(body: ProductoBody) -> HttpResult<Valid> {
    let mut problems = Vec::new();
    let clave_prod_serv = body.clave_prod_serv.map(|c| c.trim().to_owned()).unwrap_or_default();
    // c_ClaveProdServ codes are 8 digits; membership is checked once the catalog is imported.
    if clave_prod_serv.len() != 8 || !clave_prod_serv.chars().all(|c| c.is_ascii_digit()) {
        problems.push(FieldProblem::new(
            "claveProdServ",
            "claveProdServ is the 8-digit c_ClaveProdServ code, e.g. 81112100",
        ));
    }
    let clave_unidad = body.clave_unidad.map(|c| c.trim().to_owned()).unwrap_or_default();
    if clave_unidad.is_empty() || clave_unidad.len() > 3 || !clave_unidad.chars().all(|c| c.is_ascii_alphanumeric()) {
        problems.push(FieldProblem::new(
            "claveUnidad",
            "claveUnidad is the c_ClaveUnidad code, e.g. E48 (service) or H87 (piece)",
        ));
    }
    let descripcion =
        validate::sat_text(&mut problems, "descripcion", body.descripcion.as_deref(), CampoTexto::DESCRIPCION);
    let precio_unitario =
        validate::amount(&mut problems, "precioUnitario", body.precio_unitario.as_ref(), Esquema::IMPORTE, true)
            .unwrap_or_default();
    let iva_rate = match &body.iva_rate {
        None => Some(Decimal::new(16, 2)),
        Some(raw) => validate::amount(&mut problems, "ivaRate", Some(raw), Esquema::TASA_O_CUOTA, true),
    };
    // c_TasaOCuota: IVA traslado is 0, 0.08 (border stimulus) or 0.16.
    let iva_rate = iva_rate.unwrap_or(Decimal::new(16, 2));
    if ![Decimal::ZERO, Decimal::new(8, 2), Decimal::new(16, 2)].contains(&iva_rate) {
        problems.push(FieldProblem::new("ivaRate", "ivaRate must be 0, 0.08 or 0.16"));
    }
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Producto001, problems).into());
    }
    Ok(Valid { clave_prod_serv, clave_unidad, descripcion, precio_unitario, iva_rate })
}

async fn load(app: &AppContext, empresa_id: &str, id: &str) -> HttpResult<ProductoOut> {
    load_in(&mut app.db.conn().await?, empresa_id, id).await
}

async fn load_in(conn: &mut impl AsExec, empresa_id: &str, id: &str) -> HttpResult<ProductoOut> {
    let row = scoped::get::<Productos>(conn, empresa_id, id).await?;
    Ok(row.map(ProductoOut::from).ok_or_else(|| ApiError::not_found("product"))?)
}

impl Valid {
    fn datos(&self) -> productos::Datos<'_> {
        productos::Datos {
            clave_prod_serv: &self.clave_prod_serv,
            clave_unidad: &self.clave_unidad,
            descripcion: &self.descripcion,
            precio_unitario: self.precio_unitario,
            iva_rate: self.iva_rate,
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
pub async fn create(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<ProductoBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ProductoCreate).await?;
    let valid = check(body)?;
    let id = ids::new_id();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    productos::insert(&mut tx, &empresa_id, &id, &valid.datos(), now).await?;
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    Ok(created(out))
}

/// Lists products, newest first, with `q` over the code and description.
#[utoipa::path(get, path = "/productos", tag = "productos", params(ListParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<ProductoOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ProductoView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    crate::routes::clientes::check_search("q", params.q.as_deref())?;
    let pattern = like_pattern(params.q.as_deref());
    let mut conn = app.db.conn().await?;
    let (rows, total) = scoped::page::<Productos>(&mut conn, &empresa_id, &pattern, &paging).await?;
    Ok(ok(Page::new(rows.into_iter().map(ProductoOut::from).collect(), total, paging)))
}

/// One product.
#[utoipa::path(get, path = "/productos/{id}", tag = "productos", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The product", body = Envelope<ProductoOut>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ProductoView).await?;
    Ok(ok(load(&app, &empresa_id, &id).await?))
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
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    Json(body): Json<ProductoBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::ProductoEdit).await?;
    let current = load(&app, &empresa_id, &id).await?;
    let valid = check(ProductoBody {
        clave_prod_serv: body.clave_prod_serv.or(Some(current.clave_prod_serv)),
        clave_unidad: body.clave_unidad.or(Some(current.clave_unidad)),
        descripcion: body.descripcion.or(Some(current.descripcion)),
        precio_unitario: body.precio_unitario.or(Some(RawAmount::from_decimal(current.precio_unitario))),
        iva_rate: body.iva_rate.or(Some(RawAmount::from_decimal(current.iva_rate))),
    })?;
    let mut tx = app.db.begin().await?;
    productos::update(&mut tx, &empresa_id, &id, &valid.datos(), app.clock.now()).await?;
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    Ok(ok(out))
}

/// Deletes a product (CONTADOR or higher).
#[utoipa::path(delete, path = "/productos/{id}", tag = "productos", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
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
    caller.authorize(&app, &empresa_id, Permission::ProductoDelete).await?;
    let mut tx = app.db.begin().await?;
    if !scoped::delete::<Productos>(&mut tx, &empresa_id, &id, app.clock.now()).await? {
        return Err(ApiError::not_found("product").into());
    }
    tx.commit().await?;
    Ok(ok(serde_json::json!({ "deleted": true, "id": id })))
}
