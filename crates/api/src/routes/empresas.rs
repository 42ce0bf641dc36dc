//! Companies: create, list, get, update, delete. The rules and the transactions live in
//! `timbra_services::empresas`.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::EmpresaId;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
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
    /// E-mail of its CFDI: what is absent stays.
    correo: Option<CorreoAjustesBody>,
    /// Branding of its PDFs: what is absent stays.
    pdf: Option<PdfAjustesBody>,
}

/// A company's PDF branding as sent (`PATCH`): what is absent stays, `""` clears. The logo has
/// its own route (`PUT /api/empresas/{empresaId}/logo`).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PdfAjustesBody {
    /// The section bars' color, `#RRGGBB`.
    color_primario: Option<String>,
    /// One line printed at the foot of every page, at most 300 characters.
    nota_pie: Option<String>,
}

/// A company's PDF branding.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PdfAjustesOut {
    /// `#RRGGBB`, or null (the default grey bars).
    color_primario: Option<String>,
    /// The footer note.
    nota_pie: Option<String>,
    /// Whether a logo is stored (`GET /api/empresas/{empresaId}/logo`).
    logo: bool,
}

/// A company's e-mail settings as sent (`PATCH`): what is absent stays.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CorreoAjustesBody {
    /// The sender's display name, one line of at most 100 characters (`""`: the company's
    /// razonSocial); a line break is CORREO_002.
    nombre_remitente: Option<String>,
    /// The Reply-To address (`""` removes it); an invalid one is CORREO_002.
    responder_a: Option<String>,
    /// Queue the e-mail of every stamp to its customer (default false); a stamp body's
    /// `enviarCorreo` overrides it.
    enviar_al_timbrar: Option<bool>,
}

/// A company's e-mail settings.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorreoAjustesOut {
    /// The sender's display name (null: the company's razonSocial).
    nombre_remitente: Option<String>,
    /// The Reply-To address.
    responder_a: Option<String>,
    /// Whether every stamp queues its e-mail.
    enviar_al_timbrar: bool,
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
    /// E-mail of its CFDI.
    correo: CorreoAjustesOut,
    /// Branding of its PDFs.
    pdf: PdfAjustesOut,
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
            id: String::from(row.id),
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
            correo: CorreoAjustesOut {
                nombre_remitente: row.correo_nombre_remitente,
                responder_a: row.correo_responder_a,
                enviar_al_timbrar: row.correo_enviar_al_timbrar,
            },
            pdf: PdfAjustesOut {
                color_primario: row.pdf_color_primario,
                nota_pie: row.pdf_nota_pie,
                logo: row.tiene_logo,
            },
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
    Ok(ok(listar(&app, &caller).await?))
}

/// The companies the caller (and the key) can access, as `GET /api/empresas` and the MCP tool
/// `listar_empresas` read them.
pub(crate) async fn listar(app: &AppContext, caller: &Caller) -> HttpResult<Vec<EmpresaOut>> {
    Ok(empresas::list(app, caller).await?.into_iter().map(empresa_out).collect())
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
    Path(id): Path<EmpresaId>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaView).await?;
    let out = empresa_out(empresas::get(&app, &caller, id.as_str()).await?);
    Ok(ok(con_ajustes(&app, out).await?))
}

/// The company's self-invoicing and global invoice settings (issue 31).
async fn con_ajustes(app: &AppContext, mut out: EmpresaOut) -> HttpResult<EmpresaOut> {
    let mut conn = app.db.conn().await?;
    if let Some(ajustes) = timbra_store::recibos::ajustes(&mut conn, &EmpresaId::from(&out.id)).await? {
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
        (status = 400, description = "EMPRESA_001 (also pdf.colorPrimario not #RRGGBB, pdf.notaPie with a line break or over 300 characters); CORREO_002 correo.responderA is not an address or correo.nombreRemitente holds a line break", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn update(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<EmpresaId>,
    Json(mut body): Json<UpdateEmpresaBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaEdit).await?;
    let correo = body.correo.take().map(|correo| timbra_services::correo::CambioAjustes {
        nombre_remitente: correo.nombre_remitente,
        responder_a: correo.responder_a,
        enviar_al_timbrar: correo.enviar_al_timbrar,
    });
    let pdf = body
        .pdf
        .take()
        .map(|pdf| timbra_services::marca::CambioPdf { color_primario: pdf.color_primario, nota_pie: pdf.nota_pie });
    let (autofactura, factura_global) = (body.autofactura.take(), body.factura_global.take());
    let cambio = empresas::Cambio { campos: body.into(), autofactura, factura_global, correo, pdf };
    let row = empresas::actualizar(&app, &caller, id.as_str(), cambio).await?;
    Ok(ok(con_ajustes(&app, empresa_out(row)).await?))
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
    Path(id): Path<EmpresaId>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaDelete).await?;
    empresas::delete(&app, id.as_str()).await?;
    Ok(ok(crate::routes::scoped::deleted(id.as_str())))
}

/// Logo upload: the image as base64 (or send the image itself as the body).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LogoBody {
    /// A PNG or JPEG image, base64, at most 1 MB decoded.
    logo_base64: String,
}

/// Sets the company's logo, printed on its PDFs (ADMINISTRADOR or higher): a PNG or JPEG up to
/// 1 MB as the raw body (`Content-Type: image/png` or `image/jpeg`) or as
/// `{ "logoBase64": "..." }`. It is decoded, scaled down to fit 600 × 240 px and stored
/// re-encoded as PNG; PDFs stored before are rendered again on their next download.
#[utoipa::path(put, path = "/empresas/{empresaId}/logo", tag = "empresas", params(("empresaId" = String, Path)), request_body = LogoBody,
    responses(
        (status = 200, description = "Stored", body = Envelope<Object>),
        (status = 400, description = "LOGO_001 not a PNG or JPEG that can be read, or over 1 MB; REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn put_logo(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<EmpresaId>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaEdit).await?;
    let json = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let bytes = if json {
        let body: LogoBody = crate::routes::cfdi::parse_body(&body)?;
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, body.logo_base64.trim()).map_err(|_| {
            timbra_services::error::ApiError::new(
                timbra_services::error::Code::Logo001,
                "logoBase64 is not base64 of a PNG or JPEG image",
            )
        })?
    } else {
        body.to_vec()
    };
    timbra_services::marca::guardar_logo(&app, &id, &bytes).await?;
    Ok(ok(serde_json::json!({ "logo": true })))
}

/// The company's stored logo (`image/png`, as re-encoded by the service).
#[utoipa::path(get, path = "/empresas/{empresaId}/logo", tag = "empresas", params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "The logo", content_type = "image/png", body = Vec<u8>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no logo", body = ErrorBody),
    ))]
pub async fn get_logo(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<EmpresaId>,
) -> HttpResult<axum::response::Response> {
    caller.authorize(&app, &id, Permission::EmpresaView).await?;
    let png = timbra_services::marca::logo(&app, &id)
        .await?
        .ok_or_else(|| timbra_services::error::ApiError::not_found("logo"))?;
    let mut response = png.into_response();
    let headers = response.headers_mut();
    headers.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("image/png"));
    headers.insert(axum::http::header::CACHE_CONTROL, axum::http::HeaderValue::from_static("private, no-store"));
    Ok(response)
}

/// Removes the company's logo (ADMINISTRADOR or higher).
#[utoipa::path(delete, path = "/empresas/{empresaId}/logo", tag = "empresas", params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "Removed", body = Envelope<Object>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn delete_logo(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(id): Path<EmpresaId>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &id, Permission::EmpresaEdit).await?;
    timbra_services::marca::borrar_logo(&app, &id).await?;
    Ok(ok(serde_json::json!({ "logo": false })))
}
