//! Companies: create, list, get, update, delete. The rules and the transactions live in
//! `timbra_services::empresas`.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::{Permission, Role};
use timbra_services::context::AppContext;
use timbra_services::empresas;
use timbra_store::empresas::EmpresaRow;

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
    /// Días de aguinaldo paid for a full year, an integer ≥ 15 (LFT Art. 87); default 15.
    #[schema(value_type = Option<i64>)]
    dias_aguinaldo: Option<serde_json::Value>,
    /// ISR method of extraordinary payments (aguinaldo, PTU): `ART96` (default) or `RLISR174`.
    metodo_isr_extraordinario: Option<String>,
    /// Riesgo de trabajo premium in percent, 0.5 to 15 (LSS Art. 74), e.g. 0.54355.
    #[schema(value_type = Option<f64>)]
    prima_riesgo: Option<serde_json::Value>,
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
    /// Días de aguinaldo paid for a full year, an integer ≥ 15 (LFT Art. 87); default 15.
    #[schema(value_type = Option<i64>)]
    dias_aguinaldo: Option<serde_json::Value>,
    /// ISR method of extraordinary payments (aguinaldo, PTU): `ART96` (default) or `RLISR174`.
    metodo_isr_extraordinario: Option<String>,
    /// Riesgo de trabajo premium in percent, 0.5 to 15 (LSS Art. 74), e.g. 0.54355.
    #[schema(value_type = Option<f64>)]
    prima_riesgo: Option<serde_json::Value>,
    /// The self-invoicing page `/autofactura/{slug}`: `{ slug, diasVigencia, activa }`
    /// (diasVigencia null: a ticket's code works until the end of its month).
    #[schema(value_type = Option<Object>)]
    autofactura: Option<serde_json::Value>,
    /// The automatic global invoice: `{ automatica, periodicidad }` (c_Periodicidad 01–05).
    #[schema(value_type = Option<Object>)]
    factura_global: Option<serde_json::Value>,
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
    /// Días de aguinaldo (LFT Art. 87).
    dias_aguinaldo: i64,
    /// ART96 or RLISR174.
    metodo_isr_extraordinario: String,
    /// Riesgo de trabajo premium in percent; null until set.
    #[serde(with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(value_type = Option<f64>)]
    prima_riesgo: Option<rust_decimal::Decimal>,
    /// The caller's role.
    role: Role,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    /// The self-invoicing page's settings (detail and update).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    autofactura: Option<serde_json::Value>,
    /// The automatic global invoice's settings (detail and update).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    factura_global: Option<serde_json::Value>,
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
            dias_aguinaldo: row.dias_aguinaldo,
            metodo_isr_extraordinario: row.metodo_isr_extraordinario,
            prima_riesgo: row.prima_riesgo.map(|m| m.0),
            autofactura: None,
            factura_global: None,
        }
    }
}

impl From<CreateEmpresaBody> for empresas::Campos {
    fn from(body: CreateEmpresaBody) -> Self {
        Self {
            rfc: body.rfc,
            razon_social: body.razon_social,
            regimen_fiscal: body.regimen_fiscal,
            codigo_postal: body.codigo_postal,
            nombre_comercial: body.nombre_comercial,
            sandbox: body.sandbox,
            registro_patronal: body.registro_patronal,
            serie_predeterminada: body.serie_predeterminada,
            serie_pagos: body.serie_pagos,
            dias_aguinaldo: body.dias_aguinaldo,
            metodo_isr_extraordinario: body.metodo_isr_extraordinario,
            prima_riesgo: body.prima_riesgo,
        }
    }
}

impl From<UpdateEmpresaBody> for empresas::Campos {
    fn from(body: UpdateEmpresaBody) -> Self {
        Self {
            rfc: None,
            razon_social: body.razon_social,
            regimen_fiscal: body.regimen_fiscal,
            codigo_postal: body.codigo_postal,
            nombre_comercial: body.nombre_comercial,
            sandbox: body.sandbox,
            registro_patronal: body.registro_patronal,
            serie_predeterminada: body.serie_predeterminada,
            serie_pagos: body.serie_pagos,
            dias_aguinaldo: body.dias_aguinaldo,
            metodo_isr_extraordinario: body.metodo_isr_extraordinario,
            prima_riesgo: body.prima_riesgo,
        }
    }
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
    let row = empresas::create(&app, &caller, body.into()).await?;
    Ok(created(empresa_out(row)))
}

/// Lists the companies the caller (and the key) can access, with the caller's role.
#[utoipa::path(get, path = "/empresas", tag = "empresas",
    responses(
        (status = 200, description = "Companies", body = Envelope<Vec<EmpresaOut>>),
        (status = 401, description = "AUTH_001", body = ErrorBody),
    ))]
pub async fn list(State(app): State<AppContext>, Auth(caller): Auth) -> HttpResult<impl IntoResponse> {
    let items: Vec<EmpresaOut> = empresas::list(&app, &caller).await?.into_iter().map(empresa_out).collect();
    Ok(ok(items))
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
    let out = empresa_out(empresas::get(&app, &caller, &id).await?);
    Ok(ok(con_ajustes(&app, out).await?))
}

/// The company's self-invoicing and global invoice settings (issue 31).
async fn con_ajustes(app: &AppContext, mut out: EmpresaOut) -> HttpResult<EmpresaOut> {
    let mut conn = app.db.conn().await?;
    if let Some(ajustes) = timbra_store::recibos::ajustes(&mut conn, &out.id).await? {
        let (autofactura, global) = timbra_services::cfdi::recibos::ajustes_json(&ajustes);
        out.autofactura = Some(autofactura);
        out.factura_global = Some(global);
    }
    Ok(out)
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
    // The settings are checked before anything is written, and written after the company.
    let ajustes = match (&body.autofactura, &body.factura_global) {
        (None, None) => None,
        (autofactura, global) => {
            Some(timbra_services::cfdi::recibos::leer_ajustes(&app, &id, autofactura.as_ref(), global.as_ref()).await?)
        }
    };
    let out = empresa_out(empresas::update(&app, &caller, &id, body.into()).await?);
    if let Some(ajustes) = ajustes {
        timbra_services::cfdi::recibos::guardar_ajustes(&app, &ajustes, app.clock.now()).await?;
    }
    Ok(ok(con_ajustes(&app, out).await?))
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
    empresas::delete(&app, &id).await?;
    Ok(ok(serde_json::json!({ "deleted": true, "id": id })))
}
