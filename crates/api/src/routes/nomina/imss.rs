//! `GET /api/nomina/imss/{año}/{mes}`: a month of IMSS and INFONAVIT dues per worker and branch;
//! `POST /api/nomina/imss/{año}/{mes}/sua`: SUA's import files of the month; `GET
//! /api/nomina/imss/movimientos`: IDSE's batch of hires, exits and salary changes
//! (`timbra_services::nomina::imss`).

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::envelope::{Path, Query, created, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_services::nomina::imss::{self, CuotasImss, MovimientosIdse, SuaGenerado};

/// A month's IMSS dues (CONTADOR or higher; key scope `nomina:view`): every employee registered
/// some day of the month with SBC, days, worker and employer dues and each branch (the
/// bimonthly retiro, CEAV and INFONAVIT as the month's share), and the totals.
#[utoipa::path(get, path = "/nomina/imss/{anio}/{mes}", tag = "nomina",
    params(("anio" = i32, Path, description = "year"), ("mes" = u8, Path, description = "month 1–12"), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "trabajadores [{empleadoId, nss, sbc, dias, cuotasObrero, cuotasPatronal, porRamo}], totales", body = Envelope<CuotasImss>),
        (status = 400, description = "NOMINA_001 a bad year or month, or the company has no primaRiesgo", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
    ))]
pub async fn cuotas(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path((anio, mes)): Path<(String, String)>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    Ok(ok(imss::cuotas(&app, &empresa_id, &anio, &mes).await?))
}

/// SUA's import files of a month (CONTADOR or higher; key scope `nomina:manage`): the workers
/// (ASEG) and movements (MOVT) files in one ZIP written to the file storage, a signed link to
/// it, and the event `nomina.sua_generado`. A worker or movement that cannot be written (no
/// NSS, an invalid CURP, an incapacity without folio) is listed in `problemas` and the files
/// are built for the rest.
#[utoipa::path(post, path = "/nomina/imss/{anio}/{mes}/sua", tag = "nomina",
    params(("anio" = i32, Path, description = "year"), ("mes" = u8, Path, description = "month 1–12, not after the current one"), ("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "periodo, archivoUrl, trabajadores, movimientos, totalCuotas, problemas, eventId", body = Envelope<SuaGenerado>),
        (status = 400, description = "NOMINA_001 a bad or future year or month, no registroPatronal or primaRiesgo", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
        (status = 503, description = "STORAGE_001 the file storage cannot be reached; retry", body = ErrorBody),
    ))]
pub async fn sua(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path((anio, mes)): Path<(String, String)>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    Ok(created(imss::sua(&app, &empresa_id, &anio, &mes).await?))
}

/// The IDSE batch's query.
#[derive(Deserialize, IntoParams)]
pub struct MovimientosParams {
    /// First day, AAAA-MM-DD (required).
    desde: Option<String>,
    /// Last day, AAAA-MM-DD, not before desde (required).
    hasta: Option<String>,
    /// `json` for the list; absent or `txt` for the file.
    formato: Option<String>,
}

/// IDSE's batch movements file (DISPMAG, 168 positions per line, CR LF) of the IMSS movements
/// effective from `desde` to `hasta` (CONTADOR or higher; key scope `nomina:view`): 08 alta or
/// reingreso, 07 modificación de salario, 02 baja, as recorded when employees are created,
/// given a new salary, re-activated, deactivated or given a baja. With `formato=json`, the
/// list and the problems (movements left out of the file: no NSS, an invalid CURP); the file
/// answers their count in `x-idse-problemas`.
#[utoipa::path(get, path = "/nomina/imss/movimientos", tag = "nomina",
    params(MovimientosParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The file (text/plain), or with formato=json the list", content_type = "text/plain", body = String),
        (status = 400, description = "NOMINA_001 desde or hasta missing or malformed, desde after hasta, a bad formato, no registroPatronal", body = ErrorBody),
        (status = 403, description = "AUTH_003 / SCOPE_002", body = ErrorBody),
    ))]
pub async fn movimientos(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<MovimientosParams>,
) -> HttpResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    let json = match params.formato.as_deref().map(str::trim).map(str::to_ascii_lowercase).as_deref() {
        None | Some("" | "txt") => false,
        Some("json") => true,
        Some(otro) => {
            return Err(ApiError::fields(
                Code::Nomina001,
                vec![FieldProblem::new("formato", format!("formato {otro:?} is not json or txt"))],
            )
            .into());
        }
    };
    let lote: MovimientosIdse =
        imss::movimientos(&app, &empresa_id, params.desde.as_deref(), params.hasta.as_deref()).await?;
    if json {
        return Ok(ok(lote).into_response());
    }
    let nombre = format!("IDSE-{}-{}-{}.txt", lote.registro_patronal, lote.desde, lote.hasta);
    let mut response = lote.archivo.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=us-ascii"));
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{nombre}\""))
        .map_err(|e| ApiError::internal("Content-Disposition", e))?;
    headers.insert(header::CONTENT_DISPOSITION, disposition);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    headers.insert("x-idse-problemas", HeaderValue::from(lote.problemas.len()));
    Ok(response)
}
