//! Companies: create, list, get, update, delete.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_cfdi::tipos::{CampoTexto, Rfc, TextoSat};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::{Permission, Role};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_services::validate;
use timbra_store::empresas::{self, EmpresaRow};
use timbra_store::ids;

/// Series used for invoices when none is given.
const DEFAULT_SERIE: &str = "A";
/// Series of payment CFDI when none is given.
const DEFAULT_SERIE_PAGOS: &str = "P";

/// Company creation body.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateEmpresaBody {
    /// 12 (persona moral) or 13 (persona física) characters.
    rfc: Option<String>,
    /// Legal name, as in the Constancia de Situación Fiscal (without "S.A. de C.V.").
    razon_social: Option<String>,
    /// c_RegimenFiscal code that applies to the RFC's kind of taxpayer.
    regimen_fiscal: Option<String>,
    /// Postal code of the fiscal address (LugarExpedicion), 5 digits.
    codigo_postal: Option<String>,
    /// Trade name.
    nombre_comercial: Option<String>,
    /// Default true: stamp in sandbox.
    sandbox: Option<bool>,
    /// Employer registration (registro patronal IMSS) for payroll stamping.
    registro_patronal: Option<String>,
    /// Invoice series (default "A").
    serie_predeterminada: Option<String>,
    /// Series of payment CFDI (`POST /api/cfdi/pagos/timbrar`), default "P"; its folios run
    /// on their own.
    serie_pagos: Option<String>,
}

/// Company update body: every field optional.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateEmpresaBody {
    razon_social: Option<String>,
    regimen_fiscal: Option<String>,
    codigo_postal: Option<String>,
    nombre_comercial: Option<String>,
    sandbox: Option<bool>,
    registro_patronal: Option<String>,
    serie_predeterminada: Option<String>,
    serie_pagos: Option<String>,
}

/// A company.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmpresaOut {
    id: String,
    rfc: String,
    razon_social: String,
    regimen_fiscal: String,
    codigo_postal: String,
    nombre_comercial: Option<String>,
    registro_patronal: Option<String>,
    sandbox: bool,
    serie_predeterminada: String,
    /// Series of payment CFDI (default "P").
    serie_pagos: String,
    /// Last folio used in the current mode (sandbox and live count separately).
    folio_actual: i64,
    csd_configured: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    csd_vigencia_fin: Option<OffsetDateTime>,
    /// The caller's role.
    role: Role,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

/// The API's view of a company row.
fn empresa_out(row: EmpresaRow) -> EmpresaOut {
    {
        EmpresaOut {
            folio_actual: row.folio_actual,
            role: Role::parse(&row.role).unwrap_or(Role::Usuario),
            id: row.id,
            rfc: row.rfc,
            razon_social: row.razon_social,
            regimen_fiscal: row.regimen_fiscal,
            codigo_postal: row.codigo_postal,
            nombre_comercial: row.nombre_comercial,
            registro_patronal: row.registro_patronal,
            sandbox: row.sandbox,
            serie_predeterminada: row.serie_predeterminada,
            serie_pagos: row.serie_pagos,
            csd_configured: row.csd_vigencia_fin.is_some(),
            csd_vigencia_fin: row.csd_vigencia_fin,
            created_at: row.created_at,
        }
    }
}

fn serie(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>, default: &str) -> String {
    let value = value.map(str::trim).unwrap_or(default).to_owned();
    // Anexo 20: Serie is 1 to 25 characters, [^|]{1,25}; we also keep spaces out.
    if TextoSat::new(CampoTexto::SERIE, &value).is_err() || value.chars().any(char::is_whitespace) {
        problems.push(FieldProblem::new(field, "the series has 1 to 25 characters, without spaces or |"));
    }
    value
}

fn nombre_comercial(problems: &mut Vec<FieldProblem>, value: Option<&str>) -> Option<String> {
    let value = value.map(str::trim).filter(|v| !v.is_empty())?;
    if value.chars().count() > 300 {
        problems.push(FieldProblem::new("nombreComercial", "nombreComercial has at most 300 characters"));
    }
    Some(value.to_owned())
}

fn registro_patronal(problems: &mut Vec<FieldProblem>, value: Option<&str>) -> Option<String> {
    let value = value.map(|v| v.trim().to_uppercase()).filter(|v| !v.is_empty())?;
    // Nómina 1.2: RegistroPatronal is 1 to 20 alphanumeric characters.
    if value.len() > 20 || !value.chars().all(|c| c.is_ascii_alphanumeric()) {
        problems.push(FieldProblem::new(
            "registroPatronal",
            "registroPatronal has 1 to 20 letters or digits (IMSS employer registration)",
        ));
    }
    Some(value)
}

/// Creates a company; the caller becomes its PROPIETARIO.
#[utoipa::path(post, path = "/empresas", tag = "empresas", request_body = CreateEmpresaBody,
    responses(
        (status = 201, description = "Company created", body = Envelope<EmpresaOut>),
        (status = 400, description = "EMPRESA_001 with `details.fields`", body = ErrorBody),
        (status = 401, description = "AUTH_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 the key is narrowed to companies; SCOPE_002 its scopes lack empresa:create", body = ErrorBody),
        (status = 409, description = "EMPRESA_002 you already have a company with this RFC", body = ErrorBody),
    ))]
pub async fn create(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Json(body): Json<CreateEmpresaBody>,
) -> HttpResult<impl IntoResponse> {
    if let timbra_services::auth::caller::Credential::ApiKey { empresa_ids, scopes, .. } = &caller.credential {
        if empresa_ids.is_some() {
            return Err(ApiError::new(
                Code::Scope001,
                "this API key is limited to some companies and cannot create new ones",
            )
            .into());
        }
        if let Some(scopes) = scopes
            && !scopes.iter().any(|scope| Permission::EmpresaCreate.granted_by(scope))
        {
            return Err(ApiError::new(
                Code::Scope002,
                "this API key's scopes do not include empresa:create; create a key with that scope to create companies",
            )
            .with_details(serde_json::json!({ "action": "empresa:create", "scopes": scopes }))
            .into());
        }
    }
    let mut problems = Vec::new();
    let (rfc, persona) = validate::rfc_field(&mut problems, "rfc", body.rfc.as_deref());
    let razon_social =
        validate::sat_text(&mut problems, "razonSocial", body.razon_social.as_deref(), CampoTexto::NOMBRE);
    let regimen = validate::regimen_fiscal(&mut problems, "regimenFiscal", body.regimen_fiscal.as_deref(), persona);
    let codigo_postal = validate::codigo_postal(&mut problems, "codigoPostal", body.codigo_postal.as_deref());
    let serie_pagos = serie(&mut problems, "seriePagos", body.serie_pagos.as_deref(), DEFAULT_SERIE_PAGOS);
    let serie = serie(&mut problems, "seriePredeterminada", body.serie_predeterminada.as_deref(), DEFAULT_SERIE);
    let registro = registro_patronal(&mut problems, body.registro_patronal.as_deref());
    let nombre_comercial = nombre_comercial(&mut problems, body.nombre_comercial.as_deref());
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Empresa001, problems).into());
    }
    let sandbox = body.sandbox.unwrap_or(true);
    let id = ids::new_id();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    if empresas::rfc_tomado(&mut tx, &caller.user_id, &rfc).await? {
        return Err(ApiError::new(Code::Empresa002, format!("you already have a company with RFC {rfc}")).into());
    }
    let datos = empresas::Datos {
        razon_social: &razon_social,
        regimen_fiscal: &regimen,
        codigo_postal: &codigo_postal,
        nombre_comercial: nombre_comercial.as_deref(),
        registro_patronal: registro.as_deref(),
        sandbox,
        serie_predeterminada: &serie,
        serie_pagos: &serie_pagos,
    };
    let inserted = empresas::crear(&mut tx, &id, &caller.user_id, &rfc, &datos, Role::Propietario.as_str(), now).await;
    match inserted {
        Err(error) if error.is_duplicate() => {
            return Err(ApiError::new(Code::Empresa002, format!("you already have a company with RFC {rfc}")).into());
        }
        other => other?,
    };
    tx.commit().await?;
    timbra_services::auth::cache::changed(&app).await;
    caller.note_mode(sandbox);
    let out = EmpresaOut {
        id,
        rfc,
        razon_social,
        regimen_fiscal: regimen,
        codigo_postal,
        nombre_comercial,
        registro_patronal: registro,
        sandbox,
        serie_predeterminada: serie,
        serie_pagos,
        folio_actual: 0,
        csd_configured: false,
        csd_vigencia_fin: None,
        role: Role::Propietario,
        created_at: now,
    };
    Ok(created(out))
}

/// Lists the companies the caller (and the key) can access, with the caller's role.
#[utoipa::path(get, path = "/empresas", tag = "empresas",
    responses(
        (status = 200, description = "Companies", body = Envelope<Vec<EmpresaOut>>),
        (status = 401, description = "AUTH_001", body = ErrorBody),
    ))]
pub async fn list(State(app): State<AppContext>, Auth(caller): Auth) -> HttpResult<impl IntoResponse> {
    let mut conn = app.db.conn().await?;
    let rows = empresas::de_usuario(&mut conn, &caller.user_id).await?;
    let allowed = match &caller.credential {
        timbra_services::auth::caller::Credential::ApiKey { empresa_ids: Some(ids), .. } => Some(ids.clone()),
        _ => None,
    };
    let items: Vec<EmpresaOut> = rows
        .into_iter()
        .filter(|row| allowed.as_ref().is_none_or(|ids| ids.contains(&row.id)))
        .map(empresa_out)
        .collect();
    Ok(ok(items))
}

async fn load(app: &AppContext, caller: &Caller, id: &str) -> HttpResult<EmpresaOut> {
    let mut conn = app.db.conn().await?;
    let row = empresas::leer(&mut conn, &caller.user_id, id).await?;
    Ok(row.map(empresa_out).ok_or_else(|| ApiError::not_found("company"))?)
}

/// One company.
#[utoipa::path(get, path = "/empresas/{empresaId}", tag = "empresas", params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "The company", body = Envelope<EmpresaOut>),
        (status = 403, description = "SCOPE_001 not your company", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaView).await?;
    Ok(ok(load(&app, &caller, &id).await?))
}

/// Updates a company (ADMINISTRADOR or higher).
#[utoipa::path(patch, path = "/empresas/{empresaId}", tag = "empresas", params(("empresaId" = String, Path)), request_body = UpdateEmpresaBody,
    responses(
        (status = 200, description = "The updated company", body = Envelope<EmpresaOut>),
        (status = 400, description = "EMPRESA_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn update(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<String>,
    Json(body): Json<UpdateEmpresaBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaEdit).await?;
    let current = load(&app, &caller, &id).await?;
    let persona = Rfc::new(&current.rfc).ok().map(|rfc| rfc.persona());
    let mut problems = Vec::new();
    let razon_social = match &body.razon_social {
        Some(value) => validate::sat_text(&mut problems, "razonSocial", Some(value), CampoTexto::NOMBRE),
        None => current.razon_social,
    };
    let regimen = match &body.regimen_fiscal {
        Some(value) => validate::regimen_fiscal(&mut problems, "regimenFiscal", Some(value), persona),
        None => current.regimen_fiscal,
    };
    let codigo_postal = match &body.codigo_postal {
        Some(value) => validate::codigo_postal(&mut problems, "codigoPostal", Some(value)),
        None => current.codigo_postal,
    };
    let serie_pagos = match &body.serie_pagos {
        Some(value) => serie(&mut problems, "seriePagos", Some(value), DEFAULT_SERIE_PAGOS),
        None => current.serie_pagos,
    };
    let serie = match &body.serie_predeterminada {
        Some(value) => serie(&mut problems, "seriePredeterminada", Some(value), DEFAULT_SERIE),
        None => current.serie_predeterminada,
    };
    let registro = match &body.registro_patronal {
        Some(value) => registro_patronal(&mut problems, Some(value)),
        None => current.registro_patronal,
    };
    let nombre_comercial = match body.nombre_comercial.as_deref() {
        Some(value) => nombre_comercial(&mut problems, Some(value)),
        None => current.nombre_comercial,
    };
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Empresa001, problems).into());
    }
    let sandbox = body.sandbox.unwrap_or(current.sandbox);
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let datos = empresas::Datos {
        razon_social: &razon_social,
        regimen_fiscal: &regimen,
        codigo_postal: &codigo_postal,
        nombre_comercial: nombre_comercial.as_deref(),
        registro_patronal: registro.as_deref(),
        sandbox,
        serie_predeterminada: &serie,
        serie_pagos: &serie_pagos,
    };
    empresas::actualizar(&mut conn, &id, &datos, now).await?;
    drop(conn);
    timbra_services::auth::cache::changed(&app).await;
    caller.note_mode(sandbox);
    Ok(ok(load(&app, &caller, &id).await?))
}

/// Deletes a company (PROPIETARIO only). Its records are kept for the tax retention period but
/// nobody can reach them through the API any more.
#[utoipa::path(delete, path = "/empresas/{empresaId}", tag = "empresas", params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Object>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn delete(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaDelete).await?;
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    empresas::borrar(&mut conn, &id, now).await?;
    timbra_services::auth::cache::changed(&app).await;
    Ok(ok(serde_json::json!({ "deleted": true, "id": id })))
}
