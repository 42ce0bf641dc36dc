//! Pay periods (SPEC "Payroll"): create, list, get with their receipts, and calculate.

use axum::response::IntoResponse;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use timbra_store::ids::PeriodoId;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::error::{ApiError, Code};
use timbra_services::nomina::calculo::{self, Calculado};
use timbra_services::nomina::periodos;
use timbra_services::nomina::recibo::ReciboOut;
use timbra_store::nomina::PeriodoRow;

/// Period body (SPEC: all required).
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct PeriodoBody {
    /// First day: AAAA-MM-DD or a datetime (its date is taken).
    fecha_inicio: Option<String>,
    /// Last day, not before fechaInicio.
    fecha_fin: Option<String>,
    /// Payment day, not before fechaFin; selects the tariffs, UMA and minimum wage in force.
    fecha_pago: Option<String>,
    /// SEMANAL, CATORCENAL, QUINCENAL or MENSUAL: the employees of this periodicidad are paid.
    periodicidad: Option<String>,
    /// 7 (SEMANAL), 14 (CATORCENAL), 15 (QUINCENAL) or 30 (MENSUAL).
    #[schema(value_type = Option<i64>)]
    dias_pagados: Option<serde_json::Value>,
    /// ORDINARIA (default) or EXTRAORDINARIA (TipoNomina E, PeriodicidadPago 99: every active
    /// employee whatever their periodicidad; no periodicidad or diasPagados; fechaInicio and
    /// fechaFin default to fechaPago).
    tipo: Option<String>,
    /// An EXTRAORDINARIA period's concepto: AGUINALDO (PTU is created by `POST /api/nomina/ptu`,
    /// FINIQUITO by `POST /api/nomina/empleados/{id}/baja`).
    concepto: Option<String>,
    /// Stamping the period's receipts e-mails each one (its XML and PDF) to its employee's
    /// `email` (default false; CORREO_001 when e-mail is not configured). Also
    /// `PATCH /api/nomina/periodos/{id}`.
    enviar_correo: Option<bool>,
}

/// `PATCH /api/nomina/periodos/{id}` body.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AjustesPeriodoBody {
    /// Stamping the period's receipts e-mails each one to its employee (required).
    enviar_correo: Option<bool>,
}

/// A pay period.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PeriodoOut {
    id: String,
    /// ABIERTO, CALCULADO, TIMBRADO or TIMBRADO_PARCIAL.
    status: String,
    /// AAAA-MM-DD.
    fecha_inicio: String,
    /// AAAA-MM-DD.
    fecha_fin: String,
    /// AAAA-MM-DD.
    fecha_pago: String,
    /// SEMANAL, CATORCENAL, QUINCENAL, MENSUAL, or "99" for an EXTRAORDINARIA period.
    periodicidad: String,
    /// 7, 14, 15 or 30; 0 for an EXTRAORDINARIA period (each receipt carries its days).
    dias_pagados: i64,
    /// ORDINARIA or EXTRAORDINARIA.
    tipo: String,
    /// AGUINALDO, PTU or FINIQUITO (EXTRAORDINARIA); null for an ORDINARIA period.
    concepto: Option<String>,
    /// A FINIQUITO's employee.
    empleado_id: Option<String>,
    /// Receipts of the last calculation.
    recibos_calculados: i64,
    /// Σ receipts' net pay (their CFDI Total); null until calculated.
    #[serde(with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(value_type = Option<f64>)]
    total_nomina: Option<Decimal>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    calculado_at: Option<OffsetDateTime>,
    /// Stamping its receipts e-mails each one to its employee.
    enviar_correo: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<PeriodoRow> for PeriodoOut {
    fn from(row: PeriodoRow) -> Self {
        Self {
            id: String::from(row.id),
            status: row.status,
            fecha_inicio: row.fecha_inicio,
            fecha_fin: row.fecha_fin,
            fecha_pago: row.fecha_pago,
            periodicidad: row.periodicidad,
            dias_pagados: row.dias_pagados,
            tipo: row.tipo,
            concepto: row.concepto,
            empleado_id: row.empleado_id,
            recibos_calculados: row.recibos_calculados,
            total_nomina: row.total_nomina.map(|m| m.0),
            calculado_at: row.calculado_at,
            enviar_correo: row.enviar_correo,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// A period with its receipts.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PeriodoConRecibos {
    #[serde(flatten)]
    periodo: PeriodoOut,
    /// Its receipts, by employee name.
    recibos: Vec<ReciboOut>,
}

/// Listing parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct PeriodoParams {
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
    /// ABIERTO, CALCULADO, TIMBRADO or TIMBRADO_PARCIAL.
    pub status: Option<String>,
}

impl From<PeriodoBody> for periodos::Campos {
    fn from(body: PeriodoBody) -> Self {
        Self {
            fecha_inicio: body.fecha_inicio,
            fecha_fin: body.fecha_fin,
            fecha_pago: body.fecha_pago,
            periodicidad: body.periodicidad,
            dias_pagados: body.dias_pagados,
            tipo: body.tipo,
            concepto: body.concepto,
            enviar_correo: body.enviar_correo,
        }
    }
}

/// Creates a pay period, ABIERTO (CONTADOR or higher; key scope `nomina:manage`).
#[utoipa::path(post, path = "/nomina/periodos", tag = "nomina", request_body = PeriodoBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Period created, status ABIERTO", body = Envelope<PeriodoOut>),
        (status = 400, description = "NOMINA_001 with every problem in `details.fields`", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 409, description = "NOMINA_004 another period of the periodicidad covers some of the dates", body = ErrorBody),
        (status = 412, description = "CORREO_001 enviarCorreo without e-mail configured (TIMBRA_SMTP_URL)", body = ErrorBody),
    ))]
pub async fn create(scope: EmpresaScope, Json(body): Json<PeriodoBody>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaManage).await?;
    let row = periodos::create(&scope.app, &scope.empresa_id, body.into()).await?;
    Ok(created(PeriodoOut::from(row)))
}

/// Lists pay periods, newest first.
#[utoipa::path(get, path = "/nomina/periodos", tag = "nomina", params(PeriodoParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<PeriodoOut>>),
        (status = 400, description = "REQUEST_001 bad paging or status", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002 (`nomina:view`)", body = ErrorBody),
    ))]
pub async fn list(scope: EmpresaScope, Query(params): Query<PeriodoParams>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let (rows, total) = periodos::listar(&scope.app, &scope.empresa_id, params.status.as_deref(), &paging).await?;
    Ok(ok(Page::<PeriodoOut>::from_rows(rows, total, paging)))
}

/// One pay period with its receipts (`recibos`), each with its breakdown under the names of
/// `POST /api/nomina/calcular` and, once stamped, signed links to its XML and PDF
/// (`xmlDownloadUrl`, `pdfDownloadUrl`, `downloadExpiresIn`).
#[utoipa::path(get, path = "/nomina/periodos/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The period and its receipts", body = Envelope<PeriodoConRecibos>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaView).await?;
    let periodo = periodos::leer(&scope.app, &scope.empresa_id, &id).await?;
    let links = Some((scope.app.cfdi.link_secret()?, scope.app.clock.now().unix_timestamp()));
    let recibos = periodos::recibos(&scope.app, &scope.empresa_id, &id, links).await?;
    Ok(ok(PeriodoConRecibos { periodo: PeriodoOut::from(periodo), recibos }))
}

/// Changes a period's settings (CONTADOR or higher; key scope `nomina:manage`): `enviarCorreo`,
/// whether stamping its receipts e-mails each one (XML and PDF) to its employee's `email`, in
/// the stamp's own transaction (a receipt whose employee has no address is stamped, not sent).
#[utoipa::path(patch, path = "/nomina/periodos/{id}", tag = "nomina", request_body = AjustesPeriodoBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The period", body = Envelope<PeriodoOut>),
        (status = 400, description = "REQUEST_001 not a body { enviarCorreo: bool }", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
        (status = 412, description = "CORREO_001 e-mail is not configured (TIMBRA_SMTP_URL)", body = ErrorBody),
    ))]
pub async fn ajustar(
    scope: EmpresaScope,
    Path(id): Path<String>,
    Json(body): Json<AjustesPeriodoBody>,
) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaManage).await?;
    let Some(enviar) = body.enviar_correo else {
        // Another company's period is not there, whatever the body.
        periodos::leer(&scope.app, &scope.empresa_id, &id).await?;
        return Err(ApiError::new(Code::Request001, "send { \"enviarCorreo\": true } or false").into());
    };
    let row = periodos::ajustar_correo(&scope.app, &scope.empresa_id, &id, enviar).await?;
    Ok(ok(PeriodoOut::from(row)))
}

/// Calculates a period (no body): every active employee of its periodicidad gets a receipt
/// (ISR 2026, subsidio, IMSS) with the APROBADA incidences dated in it. Recalculating a
/// CALCULADO period replaces its receipts; once a receipt is stamped it cannot be recalculated.
#[utoipa::path(post, path = "/nomina/periodos/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "periodoId, recibosCalculados, totalNomina, status CALCULADO, omitidos", body = Envelope<Calculado>),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "NOMINA_003 the period has stamped receipts; NOMINA_035 a second AGUINALDO period of the year owes nobody anything", body = ErrorBody),
    ))]
pub async fn calcular(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaManage).await?;
    Ok(ok(calculo::calcular_periodo(&scope.app, &scope.empresa_id, &PeriodoId::from(&id)).await?))
}
