//! `GET /api/retenciones/{id}`, its XML and its PDF.

use axum::extract::State;
use axum::response::{IntoResponse, Response};

use super::list::{RetencionOut, retencion_out};
use crate::envelope::{Path, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;

/// One retention with its data under the body's names (CONSULTA or higher).
#[utoipa::path(get, path = "/retenciones/{id}", tag = "retenciones", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The retention", body = Envelope<RetencionOut>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also another company's)", body = ErrorBody),
    ))]
pub async fn obtener(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let row = super::de_la_empresa(&app, &empresa_id, &id).await?;
    let detalle: serde_json::Value =
        serde_json::from_str(&row.detalle).map_err(|e| ApiError::internal("retention detail", e))?;
    let secret = app.cfdi.link_secret()?;
    let mut out = retencion_out(row, &secret, app.clock.now().unix_timestamp());
    out.detalle = Some(detalle);
    Ok(ok(out).with_mode(access.mode()))
}

/// The stamped XML of a retention.
#[utoipa::path(get, path = "/retenciones/{id}/xml", tag = "retenciones", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn xml(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    super::de_la_empresa(&app, &empresa_id, &id).await?;
    crate::routes::cfdi::archivos::xml_de(&app, &empresa_id, &id, false).await
}

/// The printed representation of a retention (PDF with the QR of SAT's retention verification
/// service), rendered from its XML on the first request and kept.
#[utoipa::path(get, path = "/retenciones/{id}/pdf", tag = "retenciones", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn pdf(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    super::de_la_empresa(&app, &empresa_id, &id).await?;
    crate::routes::cfdi::archivos::pdf_de(&app, &empresa_id, &id, false).await
}
