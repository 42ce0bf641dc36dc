//! `GET /api/nomina/recibos/{id}/xml` and `/pdf`: the stamped receipt's files, by receipt id
//! (the same files as `/api/cfdi/{cfdiId}/xml` and `/pdf` of its CFDI).

use axum::extract::State;
use axum::response::Response;
use timbra_store::ids::EmpresaId;

use crate::envelope::Path;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::ErrorBody;
use crate::routes::cfdi::archivos::{pdf_de, xml_de};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;

/// The CFDI id of the company's stamped receipt `id`.
async fn cfdi_del_recibo(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> HttpResult<String> {
    Ok(timbra_services::nomina::recibo::cfdi_del_recibo(app, empresa_id, id).await?)
}

/// The stamped XML of a payroll receipt (CONTADOR or higher; `nomina:view`).
#[utoipa::path(get, path = "/nomina/recibos/{id}/xml", tag = "nomina",
    params(("id" = String, Path, description = "receipt"), ("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 200, description = "The XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001 / SCOPE_002 (needs nomina:view)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no such receipt in this company, or not stamped yet", body = ErrorBody),
    ))]
pub async fn xml(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    let cfdi_id = cfdi_del_recibo(&app, &empresa_id, &id).await?;
    xml_de(&app, &empresa_id, &cfdi_id, true).await
}

/// The printed payroll receipt (PDF with the verification QR) (CONTADOR or higher;
/// `nomina:view`).
#[utoipa::path(get, path = "/nomina/recibos/{id}/pdf", tag = "nomina",
    params(("id" = String, Path, description = "receipt"), ("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 403, description = "SCOPE_001 / SCOPE_002 (needs nomina:view)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no such receipt in this company, or not stamped yet", body = ErrorBody),
        (status = 503, description = "STORAGE_001 the file storage cannot be reached; retry", body = ErrorBody),
    ))]
pub async fn pdf(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::NominaView).await?;
    let cfdi_id = cfdi_del_recibo(&app, &empresa_id, &id).await?;
    pdf_de(&app, &empresa_id, &cfdi_id, true).await
}
