//! Files of an invoice: the stamped XML, the PDF (rendered on its first download), SAT's
//! cancellation acuse, and any of them through a signed link.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::cargar;
use crate::auth::caller::{Caller, EmpresaHeader};
use crate::auth::roles::Permission;
use crate::cfdi::links::{self, ruta_pdf};
use crate::cfdi::xml_db;
use crate::envelope::Path;
use crate::error::{ApiError, ApiResult, Code};
use crate::openapi::ErrorBody;
use crate::state::AppState;

fn file_response(bytes: Vec<u8>, path: &str, name: &str) -> Response {
    let content_type = if path.ends_with(".pdf") { "application/pdf" } else { "application/xml; charset=utf-8" };
    let disposition = format!("attachment; filename=\"{name}\"");
    let mut response = bytes.into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // Taxpayers' documents: never sniffed into another type, never kept by shared caches.
    response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// A stored file: a stamped XML from the database ([`xml_db`]), anything else (PDFs, acuses,
/// XML stamped before the table existed) from the file storage.
pub(super) async fn read_file(app: &AppState, path: &str) -> ApiResult<Vec<u8>> {
    if path.ends_with(".xml") {
        let mut conn = app.db.conn().await?;
        if let Some(xml) = xml_db::leer(&mut conn, path).await? {
            return Ok(xml);
        }
    }
    app.cfdi.storage.get(path).await.map_err(|error| ApiError::storage(error, "file"))
}

/// The stamped XML of an invoice.
#[utoipa::path(get, path = "/cfdi/{id}/xml", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn xml(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    xml_de(&app, &empresa_id, &id).await
}

/// The XML download of the company's CFDI `id` (an invoice, a payment, a payroll receipt).
pub(crate) async fn xml_de(app: &AppState, empresa_id: &str, id: &str) -> ApiResult<Response> {
    let (row, _) = cargar(app, empresa_id, id).await?;
    let path = row.xml_url.ok_or_else(|| ApiError::not_found("XML of this invoice"))?;
    let bytes = read_file(app, &path).await?;
    Ok(file_response(bytes, &path, &format!("{}.xml", row.uuid)))
}

/// The printed representation of an invoice (PDF with the verification QR), rendered from the
/// stored XML on the first request and stored beside it.
#[utoipa::path(get, path = "/cfdi/{id}/pdf", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for metadata-only invoices: no XML, no PDF)", body = ErrorBody),
    ))]
pub async fn pdf(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    pdf_de(&app, &empresa_id, &id).await
}

/// The PDF download of the company's CFDI `id` (rendered from its XML on the first request).
pub(crate) async fn pdf_de(app: &AppState, empresa_id: &str, id: &str) -> ApiResult<Response> {
    let (row, _) = cargar(app, empresa_id, id).await?;
    let xml_path = row.xml_url.ok_or_else(|| ApiError::not_found("XML of this invoice"))?;
    let path = ruta_pdf(&xml_path);
    let bytes = pdf_guardado(app, &path).await?;
    Ok(file_response(bytes, &path, &format!("{}.pdf", row.uuid)))
}

/// The stored PDF at `path`, rendered from its XML sibling (and stored) when it is not there
/// yet. Rendering runs on the blocking pool: it is CPU work of a few milliseconds.
async fn pdf_guardado(app: &AppState, path: &str) -> ApiResult<Vec<u8>> {
    match app.cfdi.storage.get(path).await {
        Ok(bytes) => return Ok(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(ApiError::storage(error, "PDF")),
    }
    let xml_path = format!("{}.xml", path.strip_suffix(".pdf").unwrap_or(path));
    let xml = String::from_utf8(read_file(app, &xml_path).await?).map_err(|e| ApiError::internal("stored XML", e))?;
    let bytes = tokio::task::spawn_blocking(move || timbra_pdf::render_xml(&xml))
        .await
        .map_err(|e| ApiError::internal("pdf task", e))?
        .map_err(|e| ApiError::internal("pdf render", e))?;
    // Two first requests at once render twice and store the same bytes: harmless.
    app.cfdi.storage.put(path, bytes.clone()).await.map_err(|e| ApiError::storage(e, "PDF"))?;
    Ok(bytes)
}

/// A file through a signed link (no credentials: the link is the permission; 1 hour). With S3
/// storage, a file kept in the bucket answers `302` to a URL the bucket presigned (valid
/// 3,600 s), so the bytes come from S3; stamped XML (kept in the database) and files in a local
/// folder are served here.
#[utoipa::path(get, path = "/descargas/{token}", tag = "cfdi", params(("token" = String, Path)),
    responses(
        (status = 200, description = "The file (XML or PDF)", content_type = "application/xml", body = String),
        (status = 302, description = "S3 storage: the presigned URL of the file in `Location`"),
        (status = 503, description = "STORAGE_001 the file storage cannot be reached; retry", body = ErrorBody),
        (status = 403, description = "DOWNLOAD_001 the link is altered or expired; ask for a new one", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn descarga(State(app): State<AppState>, Path(token): Path<String>) -> ApiResult<Response> {
    let secret = app.cfdi.link_secret()?;
    let path = links::verify(&secret, &token, app.clock.now().unix_timestamp()).map_err(|error| match error {
        links::LinkError::Expired => {
            ApiError::new(Code::Download001, "this download link expired; request the invoice again for a fresh one")
        }
        links::LinkError::Invalid => ApiError::new(Code::Download001, "this download link is not valid"),
    })?;
    let name = path.rsplit('/').next().unwrap_or("cfdi.xml").to_owned();
    if path.ends_with(".xml") {
        let mut conn = app.db.conn().await?;
        if let Some(xml) = xml_db::leer(&mut conn, &path).await? {
            return Ok(file_response(xml, &path, &name));
        }
    }
    // In a bucket: the client downloads from S3 itself, once the file is there.
    let storage = &app.cfdi.storage;
    if let Some(url) = storage
        .presigned_url(&path, links::LINK_SECONDS.unsigned_abs())
        .await
        .map_err(|e| ApiError::storage(e, "download link"))?
    {
        let present = storage.exists(&path).await.map_err(|e| ApiError::storage(e, "file"))?;
        if !present && path.ends_with(".pdf") {
            let bytes = pdf_guardado(&app, &path).await?;
            return Ok(file_response(bytes, &path, &name));
        }
        if !present {
            return Err(ApiError::not_found("file"));
        }
        let mut response = axum::http::StatusCode::FOUND.into_response();
        let location = HeaderValue::from_str(&url).map_err(|e| ApiError::internal("presigned URL", e))?;
        response.headers_mut().insert(header::LOCATION, location);
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
        return Ok(response);
    }
    let bytes = if path.ends_with(".pdf") { pdf_guardado(&app, &path).await? } else { read_file(&app, &path).await? };
    Ok(file_response(bytes, &path, &name))
}

/// SAT's acuse of an invoice's cancellation (live), as the PAC returned it.
#[utoipa::path(get, path = "/cfdi/{id}/acuse", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The acuse XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (no cancellation acuse for this invoice)", body = ErrorBody),
    ))]
pub async fn acuse(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let path = {
        let mut conn = app.db.conn().await?;
        timbra_store::cfdis::acuse_url(&mut conn, &empresa_id, &id).await?
    }
    .ok_or_else(|| ApiError::not_found("cancellation acuse of this invoice"))?;
    let bytes = read_file(&app, &path).await?;
    Ok(file_response(bytes, &path, &format!("{id}.acuse.xml")))
}
