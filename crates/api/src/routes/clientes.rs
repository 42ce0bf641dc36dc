//! Customers (clientes) of a company: create, list with search, get, update, delete.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_cfdi::catalogos::{CompatibilidadUso, UsoCfdi, compatibilidad_uso_regimen};
use timbra_cfdi::tipos::CampoTexto;
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_services::validate;
use timbra_store::AsExec;
use timbra_store::clientes::{self, ClienteRow, Clientes};
use timbra_store::ids;
use timbra_store::scoped;
use timbra_store::search::like_pattern;

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

/// Longest search text, in characters, of the listings.
pub const MAX_SEARCH: usize = 200;

/// REQUEST_001 when a search text is longer than [`MAX_SEARCH`].
pub fn check_search(field: &str, q: Option<&str>) -> Result<(), ApiError> {
    if q.is_some_and(|q| q.chars().count() > MAX_SEARCH) {
        return Err(ApiError::new(Code::Request001, format!("{field} has at most {MAX_SEARCH} characters")));
    }
    Ok(())
}

struct Valid {
    rfc: String,
    razon_social: String,
    regimen_fiscal: String,
    codigo_postal: String,
    uso_cfdi: String,
    email: Option<String>,
}

fn check(body: ClienteBody) -> HttpResult<Valid> {
    let mut problems = Vec::new();
    let (rfc, persona) = validate::rfc_field(&mut problems, "rfc", body.rfc.as_deref());
    let razon_social =
        validate::sat_text(&mut problems, "razonSocial", body.razon_social.as_deref(), CampoTexto::NOMBRE);
    let regimen_fiscal =
        validate::regimen_fiscal(&mut problems, "regimenFiscal", body.regimen_fiscal.as_deref(), persona);
    let codigo_postal = validate::codigo_postal(&mut problems, "codigoPostal", body.codigo_postal.as_deref());
    let uso_cfdi = body.uso_cfdi.map(|u| u.trim().to_uppercase()).unwrap_or_else(|| "G03".into());
    // Anexo 20, c_UsoCFDI: each use lists the receiver régimenes it is valid with.
    match compatibilidad_uso_regimen(&uso_cfdi, &regimen_fiscal) {
        CompatibilidadUso::UsoDesconocido => {
            problems.push(FieldProblem::new("usoCfdi", format!("{uso_cfdi:?} is not a use of SAT's catalog c_UsoCFDI")))
        }
        CompatibilidadUso::Incompatible { sugeridos } => {
            let allowed: Vec<&str> = sugeridos.iter().map(|uso| uso.codigo()).collect();
            problems.push(FieldProblem::new(
                "usoCfdi",
                format!(
                    "uso {uso_cfdi} is not allowed with régimen {regimen_fiscal}; use one of: {}",
                    allowed.join(", ")
                ),
            ));
        }
        // An unknown régimen is already reported on its own field.
        CompatibilidadUso::RegimenDesconocido | CompatibilidadUso::Compatible => {}
    }
    if let Some(uso) = UsoCfdi::desde_codigo(&uso_cfdi) {
        match persona {
            Some(validate::Persona::Moral) if !uso.aplica_moral() => {
                problems.push(FieldProblem::new("usoCfdi", format!("uso {uso_cfdi} applies only to personas físicas")))
            }
            Some(validate::Persona::Fisica) if !uso.aplica_fisica() => {
                problems.push(FieldProblem::new("usoCfdi", format!("uso {uso_cfdi} applies only to personas morales")))
            }
            _ => {}
        }
    }
    let email = body.email.map(|e| e.trim().to_owned()).filter(|e| !e.is_empty());
    if let Some(email) = &email
        && !crate::routes::auth::valid_email(email)
    {
        problems.push(FieldProblem::new("email", "email is not a valid address"));
    }
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Cliente001, problems).into());
    }
    Ok(Valid { rfc, razon_social, regimen_fiscal, codigo_postal, uso_cfdi, email })
}

fn duplicate(rfc: &str) -> ApiError {
    ApiError::new(Code::Cliente002, format!("a customer with RFC {rfc} already exists in this company"))
}

async fn load(app: &AppContext, empresa_id: &str, id: &str) -> HttpResult<ClienteOut> {
    load_in(&mut app.db.conn().await?, empresa_id, id).await
}

async fn load_in(conn: &mut impl AsExec, empresa_id: &str, id: &str) -> HttpResult<ClienteOut> {
    Ok(scoped::get::<Clientes>(conn, empresa_id, id)
        .await?
        .map(ClienteOut::from)
        .ok_or_else(|| ApiError::not_found("customer"))?)
}

impl Valid {
    fn datos(&self) -> clientes::Datos<'_> {
        clientes::Datos {
            rfc: &self.rfc,
            razon_social: &self.razon_social,
            regimen_fiscal: &self.regimen_fiscal,
            codigo_postal: &self.codigo_postal,
            uso_cfdi: &self.uso_cfdi,
            email: self.email.as_deref(),
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
    caller.authorize(&app, &empresa_id, Permission::ClienteCreate).await?;
    let valid = check(body)?;
    let id = ids::new_id();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let inserted = clientes::insert(&mut tx, &empresa_id, &id, &valid.datos(), now).await;
    match inserted {
        Err(error) if error.is_duplicate() => return Err(crate::error::HttpError(duplicate(&valid.rfc))),
        other => other?,
    };
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    Ok(created(out))
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
    caller.authorize(&app, &empresa_id, Permission::ClienteView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    check_search("q", params.q.as_deref())?;
    let pattern = like_pattern(params.q.as_deref());
    let mut conn = app.db.conn().await?;
    let (items, total) = scoped::page::<Clientes>(&mut conn, &empresa_id, &pattern, &paging).await?;
    Ok(ok(Page::new(items.into_iter().map(ClienteOut::from).collect(), total, paging)))
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
    Ok(ok(load(&app, &empresa_id, &id).await?))
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
    let current = load(&app, &empresa_id, &id).await?;
    let merged = ClienteBody {
        rfc: body.rfc.or(Some(current.rfc)),
        razon_social: body.razon_social.or(Some(current.razon_social)),
        regimen_fiscal: body.regimen_fiscal.or(Some(current.regimen_fiscal)),
        codigo_postal: body.codigo_postal.or(Some(current.codigo_postal)),
        uso_cfdi: body.uso_cfdi.or(Some(current.uso_cfdi)),
        email: body.email.or(current.email),
    };
    let valid = check(merged)?;
    let mut tx = app.db.begin().await?;
    let updated = clientes::update(&mut tx, &empresa_id, &id, &valid.datos(), app.clock.now()).await;
    match updated {
        Err(error) if error.is_duplicate() => return Err(crate::error::HttpError(duplicate(&valid.rfc))),
        other => other?,
    };
    let out = load_in(&mut tx, &empresa_id, &id).await?;
    tx.commit().await?;
    // Stamps here and on other instances read the customer again (`cfdi::contexto`).
    timbra_services::auth::cache::changed(&app).await;
    Ok(ok(out))
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
    let mut tx = app.db.begin().await?;
    if !scoped::delete::<Clientes>(&mut tx, &empresa_id, &id, app.clock.now()).await? {
        return Err(ApiError::not_found("customer").into());
    }
    tx.commit().await?;
    timbra_services::auth::cache::changed(&app).await;
    Ok(ok(serde_json::json!({ "deleted": true, "id": id })))
}
