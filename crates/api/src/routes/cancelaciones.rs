//! The cancellation requests the company received as the receiver of a CFDI:
//! `GET /api/cancelaciones/pendientes` and `POST /api/cancelaciones/pendientes/{uuid}`. The
//! operations are `timbra_services::cfdi::receptor::solicitudes`.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::cfdi::parse_body;
use crate::envelope::{Page, Path, Query, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::receptor::solicitudes::{self, RespuestaOut, SolicitudOut};
use timbra_services::context::AppContext;

/// Listing parameters.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct PendientesParams {
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
}

/// The receiver's answer.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RespuestaBody {
    /// `aceptar` (SAT cancels the CFDI) or `rechazar` (it stays valid).
    respuesta: String,
}

/// The cancellation requests waiting for this company's answer, the nearest deadline first
/// (CONTADOR or higher; scope `cfdi:view`). Live: asked to the PAC (`get_pending`) first.
#[utoipa::path(get, path = "/cancelaciones/pendientes", tag = "cancelaciones", params(PendientesParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page of requests", body = Envelope<Page<SolicitudOut>>),
        (status = 400, description = "REQUEST_001 bad paging; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003 (below CONTADOR)", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured (live)", body = ErrorBody),
        (status = 502, description = "PAC_001 / PAC_002 the PAC refused or did not answer (live)", body = ErrorBody),
    ))]
pub async fn pendientes(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<PendientesParams>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiEstadoSat).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    let (items, total) = solicitudes::listar(&app, &empresa_id, paging).await?;
    Ok(ok(Page::new(items, total, paging)).with_mode(access.mode()))
}

/// Accepts or rejects a cancellation request (CONTADOR or higher; scope `cfdi:cancelar`): SAT's
/// answer document signed with the company's CSD, sent through the PAC; the acuse is stored.
#[utoipa::path(post, path = "/cancelaciones/pendientes/{uuid}", tag = "cancelaciones", request_body = RespuestaBody,
    params(("uuid" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Answered", body = Envelope<RespuestaOut>),
        (status = 400, description = "CANCELACION_003 respuesta not aceptar or rechazar; CFDI_002/CFDI_003 no valid CSD; REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003 (below CONTADOR)", body = ErrorBody),
        (status = 404, description = "CANCELACION_001 no request waits for this UUID", body = ErrorBody),
        (status = 409, description = "CANCELACION_002 already answered", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC or SAT refused (details.pacCode); PAC_002 no usable answer", body = ErrorBody),
    ))]
pub async fn responder(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(uuid): Path<String>,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiCancelar).await?;
    let body: RespuestaBody = parse_body(&body)?;
    let data = solicitudes::responder(&app, &empresa_id, &uuid, &body.respuesta).await?;
    Ok(ok(data).with_mode(access.mode()))
}
