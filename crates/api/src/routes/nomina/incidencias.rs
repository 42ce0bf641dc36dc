//! Incidences (incidencias) of a company's employees: record, list, get, and approve or reject
//! once. Only APROBADA incidences dated within a period feed its calculation.

use axum::response::IntoResponse;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use timbra_store::ids::IncidenciaId;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Json, Page, Path, Query, created, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::error::{ApiError, Code};
use timbra_services::nomina::incidencias::{self as reglas, TIPOS};
use timbra_services::nomina::leer_fecha;
use timbra_services::validate::RawAmount;
use timbra_store::incidencias::{self, IncidenciaRow};

/// Incidence body. Every kind has `tipo`, `empleadoId` and `fecha`; the others belong to one
/// kind each (see `tipo`).
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct IncidenciaBody {
    /// HORAS_EXTRA (`horas`), INCAPACIDAD (`dias`, `tipoIncapacidad`), FALTA (`dias`),
    /// VACACIONES (`dias`: prima vacacional of 25 % of their wage), PRIMA_DOMINICAL
    /// (`domingos`), PERCEPCION (`tipoPercepcion`, `importe`, optional `concepto`, `gravado`,
    /// `exento`) or DEDUCCION (`tipoDeduccion`, `importe`, optional `concepto`).
    tipo: Option<String>,
    /// An active employee of the company.
    empleado_id: Option<String>,
    /// The day, AAAA-MM-DD (a datetime's date is taken); the first day for several days. It
    /// decides the period the incidence falls in (and, for overtime, its week).
    fecha: Option<String>,
    /// HORAS_EXTRA: whole hours worked beyond the jornada that day, 1 to 24. The first 9 of a
    /// week are paid double, the rest triple (LFT Art. 67–68).
    horas: Option<i64>,
    /// INCAPACIDAD (1 to 366), FALTA and VACACIONES (1 to 31): whole days.
    dias: Option<i64>,
    /// INCAPACIDAD: c_TipoIncapacidad 01 riesgo de trabajo, 02 enfermedad general, 03
    /// maternidad, 04 cuidados médicos de hijos con cáncer.
    tipo_incapacidad: Option<String>,
    /// PRIMA_DOMINICAL: Sundays worked, 1 to 5.
    domingos: Option<i64>,
    /// PERCEPCION: c_TipoPercepcion (not 001, 019, 020 or 021: the period computes those).
    tipo_percepcion: Option<String>,
    /// DEDUCCION: c_TipoDeduccion (not 001 or 002: the period computes those).
    tipo_deduccion: Option<String>,
    /// PERCEPCION, DEDUCCION: the receipt's Concepto (default "Percepción 038", …).
    concepto: Option<String>,
    /// PERCEPCION, DEDUCCION: the amount, more than 0.
    #[schema(value_type = Option<f64>)]
    importe: Option<RawAmount>,
    /// PERCEPCION: the taxable part (with `exento`, adding up to `importe`); without both, the
    /// whole is taxable except what Art. 93 LISR exempts for its type (aguinaldo 002, PTU 003).
    #[schema(value_type = Option<f64>)]
    gravado: Option<RawAmount>,
    /// PERCEPCION: the exempt part.
    #[schema(value_type = Option<f64>)]
    exento: Option<RawAmount>,
}

/// Decision body.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct DecisionBody {
    /// APROBADA or RECHAZADA (from PENDIENTE, once).
    status: Option<String>,
}

/// An incidence.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IncidenciaOut {
    id: String,
    empleado_id: String,
    tipo: String,
    /// AAAA-MM-DD.
    fecha: String,
    /// PENDIENTE, APROBADA or RECHAZADA.
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    horas: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dias: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tipo_incapacidad: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    domingos: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tipo_percepcion: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tipo_deduccion: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    concepto: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(value_type = Option<f64>)]
    importe: Option<Decimal>,
    #[serde(skip_serializing_if = "Option::is_none", with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(value_type = Option<f64>)]
    gravado: Option<Decimal>,
    #[serde(skip_serializing_if = "Option::is_none", with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(value_type = Option<f64>)]
    exento: Option<Decimal>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<IncidenciaRow> for IncidenciaOut {
    fn from(row: IncidenciaRow) -> Self {
        let campos = row.campos;
        let percepcion = campos.tipo == "PERCEPCION";
        Self {
            id: campos.id,
            empleado_id: campos.empleado_id,
            fecha: campos.fecha,
            status: row.status,
            horas: campos.horas,
            dias: campos.dias,
            tipo_incapacidad: campos.tipo_incapacidad,
            domingos: campos.domingos,
            tipo_percepcion: campos.clave_sat.clone().filter(|_| percepcion),
            tipo_deduccion: campos.clave_sat.filter(|_| !percepcion),
            concepto: campos.concepto,
            importe: campos.importe.map(|m| m.0),
            gravado: campos.gravado.map(|m| m.0),
            exento: campos.exento.map(|m| m.0),
            created_at: row.created_at,
            updated_at: row.updated_at,
            tipo: campos.tipo,
        }
    }
}

/// Listing parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct IncidenciaParams {
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
    /// Only this employee's.
    pub empleado_id: Option<String>,
    /// PENDIENTE, APROBADA or RECHAZADA.
    pub status: Option<String>,
    /// One kind.
    pub tipo: Option<String>,
    /// Dated from (AAAA-MM-DD, inclusive).
    pub desde: Option<String>,
    /// Dated up to (inclusive).
    pub hasta: Option<String>,
}

impl From<IncidenciaBody> for reglas::Campos {
    fn from(body: IncidenciaBody) -> Self {
        Self {
            tipo: body.tipo,
            empleado_id: body.empleado_id,
            fecha: body.fecha,
            horas: body.horas,
            dias: body.dias,
            tipo_incapacidad: body.tipo_incapacidad,
            domingos: body.domingos,
            tipo_percepcion: body.tipo_percepcion,
            tipo_deduccion: body.tipo_deduccion,
            concepto: body.concepto,
            importe: body.importe,
            gravado: body.gravado,
            exento: body.exento,
        }
    }
}

/// Records an incidence, PENDIENTE (CONTADOR or higher; key scope `nomina:manage`).
#[utoipa::path(post, path = "/nomina/incidencias", tag = "nomina", request_body = IncidenciaBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 201, description = "Incidence recorded, status PENDIENTE", body = Envelope<IncidenciaOut>),
        (status = 400, description = "INCIDENCIA_001 with every problem in `details.fields` (also an empleadoId of another company or inactive)", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
    ))]
pub async fn create(scope: EmpresaScope, Json(body): Json<IncidenciaBody>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaManage).await?;
    let row = reglas::create(&scope.app, &scope.empresa_id, body.into()).await?;
    Ok(created(IncidenciaOut::from(row)))
}

/// Lists incidences, newest first, by employee, status, kind and dates.
#[utoipa::path(get, path = "/nomina/incidencias", tag = "nomina", params(IncidenciaParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<Page<IncidenciaOut>>),
        (status = 400, description = "REQUEST_001 bad paging or filter", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002 (`nomina:view`)", body = ErrorBody),
    ))]
pub async fn list(scope: EmpresaScope, Query(params): Query<IncidenciaParams>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaView).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let status = params.status.as_deref().map(|s| s.trim().to_uppercase()).unwrap_or_default();
    if !["", "PENDIENTE", "APROBADA", "RECHAZADA"].contains(&status.as_str()) {
        return Err(ApiError::new(Code::Request001, "status is PENDIENTE, APROBADA or RECHAZADA").into());
    }
    let tipo = params.tipo.as_deref().map(|s| s.trim().to_uppercase()).unwrap_or_default();
    if !tipo.is_empty() && !TIPOS.iter().any(|(n, _)| *n == tipo) {
        return Err(ApiError::new(Code::Request001, format!("tipo {tipo:?} is not a kind of incidence")).into());
    }
    let fecha = |nombre: &str, valor: Option<&str>| -> HttpResult<String> {
        match valor.map(str::trim).filter(|v| !v.is_empty()) {
            None => Ok(String::new()),
            Some(v) => Ok(leer_fecha(v)
                .map(|f| f.to_string())
                .ok_or_else(|| ApiError::new(Code::Request001, format!("{nombre} must be a date AAAA-MM-DD")))?),
        }
    };
    let desde = fecha("desde", params.desde.as_deref())?;
    let hasta = fecha("hasta", params.hasta.as_deref())?;
    let filtro = incidencias::Filtro {
        empleado_id: params.empleado_id.as_deref().map(str::trim).unwrap_or_default(),
        status: &status,
        tipo: &tipo,
        desde: &desde,
        hasta: &hasta,
    };
    let mut conn = scope.app.db.conn().await?;
    let (rows, total) = incidencias::page(&mut conn, &scope.empresa_id, &filtro, &paging).await?;
    Ok(ok(Page::<IncidenciaOut>::from_rows(rows, total, paging)))
}

/// One incidence.
#[utoipa::path(get, path = "/nomina/incidencias/{id}", tag = "nomina", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The incidence", body = Envelope<IncidenciaOut>),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(scope: EmpresaScope, Path(id): Path<String>) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaView).await?;
    let row = incidencias::get(&mut scope.app.db.conn().await?, &scope.empresa_id, &IncidenciaId::from(&id))
        .await?
        .ok_or_else(|| ApiError::not_found("incidence"))?;
    Ok(ok(IncidenciaOut::from(row)))
}

/// Approves or rejects a PENDIENTE incidence (once).
#[utoipa::path(patch, path = "/nomina/incidencias/{id}", tag = "nomina", request_body = DecisionBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The incidence with its new status", body = Envelope<IncidenciaOut>),
        (status = 400, description = "INCIDENCIA_001 status is not APROBADA or RECHAZADA", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INCIDENCIA_002 already decided", body = ErrorBody),
    ))]
pub async fn decide(
    scope: EmpresaScope,
    Path(id): Path<String>,
    Json(body): Json<DecisionBody>,
) -> HttpResult<impl IntoResponse> {
    scope.authorize(Permission::NominaManage).await?;
    let row = reglas::decide(&scope.app, &scope.empresa_id, &id, body.status.as_deref()).await?;
    Ok(ok(IncidenciaOut::from(row)))
}
