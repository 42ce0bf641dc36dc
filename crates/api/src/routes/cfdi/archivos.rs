//! Files of an invoice: the stamped XML, the PDF (rendered on its first download), SAT's
//! cancellation acuse, and any of them through a signed link.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use timbra_store::ids::{CfdiId, EmpresaId};

use super::cargar;
use crate::envelope::Path;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::ErrorBody;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::archivos::{self, Descarga};
use timbra_services::cfdi::links;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::cfdi_xml;

/// The answer of a download ([`Descarga`]: attachment, no shared caching, a sandboxing policy).
pub(crate) fn respuesta(descarga: Descarga) -> HttpResult<Response> {
    let headers = descarga.headers()?;
    let mut response = descarga.bytes.into_response();
    for (name, value) in headers {
        response.headers_mut().insert(name, value);
    }
    Ok(response)
}

/// [`respuesta`] of the file `bytes` stored at `path`, offered as `name`.
fn file_response(bytes: Vec<u8>, path: &str, name: &str) -> HttpResult<Response> {
    respuesta(Descarga::new(bytes, path, name))
}

/// A stored file ([`timbra_services::cfdi::archivos::leer`]).
pub(super) async fn read_file(app: &AppContext, path: &str) -> HttpResult<Vec<u8>> {
    Ok(timbra_services::cfdi::archivos::leer(app, path).await?)
}

/// The stamped XML of an invoice.
#[utoipa::path(get, path = "/cfdi/{id}/xml", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for a payroll receipt without nomina:view)", body = ErrorBody),
    ))]
pub async fn xml(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let ve_nomina = super::ve_nomina(&caller, &access);
    xml_de(&app, &empresa_id, &id, ve_nomina).await
}

/// The XML download of the company's CFDI `id` (an invoice, a payment, a payroll receipt when
/// `ve_nomina`).
pub(crate) async fn xml_de(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    ve_nomina: bool,
) -> HttpResult<Response> {
    respuesta(archivos::xml_de(app, empresa_id, id, ve_nomina).await?)
}

/// The printed representation of an invoice (PDF with the verification QR), rendered from the
/// stored XML on the first request and stored beside it.
#[utoipa::path(get, path = "/cfdi/{id}/pdf", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for metadata-only invoices: no XML, no PDF; and for a payroll receipt without nomina:view)", body = ErrorBody),
    ))]
pub async fn pdf(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let ve_nomina = super::ve_nomina(&caller, &access);
    pdf_de(&app, &empresa_id, &id, ve_nomina).await
}

/// The PDF download of the company's CFDI `id` (rendered from its XML on the first request; a
/// payroll receipt when `ve_nomina`).
pub(crate) async fn pdf_de(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    ve_nomina: bool,
) -> HttpResult<Response> {
    respuesta(archivos::pdf_de(app, empresa_id, id, ve_nomina).await?)
}

/// The stored PDF at `path`, rendered on its first request
/// ([`timbra_services::cfdi::archivos::pdf`]).
async fn pdf_guardado(app: &AppContext, path: &str) -> HttpResult<Vec<u8>> {
    Ok(timbra_services::cfdi::archivos::pdf(app, path).await?)
}

/// A file through a signed link (no credentials: the link is the permission; 1 hour). With S3
/// storage, a file kept in the bucket answers `302` to a URL the bucket presigned (valid
/// 3,600 s), so the bytes come from S3; stamped XML (kept in the database) and files in a local
/// folder are served here.
#[utoipa::path(get, path = "/descargas/{token}", tag = "cfdi", params(("token" = String, Path)),
    responses(
        (status = 200, description = "The file (XML, PDF, or the ZIP of an export)", content_type = "application/xml", body = String),
        (status = 302, description = "S3 storage: the presigned URL of the file in `Location`"),
        (status = 503, description = "STORAGE_001 the file storage cannot be reached; retry", body = ErrorBody),
        (status = 403, description = "DOWNLOAD_001 the link is altered or expired; ask for a new one", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn descarga(State(app): State<AppContext>, Path(token): Path<String>) -> HttpResult<Response> {
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
        if let Some(xml) = cfdi_xml::leer(&mut conn, &path).await? {
            return file_response(xml, &path, &name);
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
            return file_response(bytes, &path, &name);
        }
        if !present {
            return Err(ApiError::not_found("file").into());
        }
        let mut response = axum::http::StatusCode::FOUND.into_response();
        let location = HeaderValue::from_str(&url).map_err(|e| ApiError::internal("presigned URL", e))?;
        response.headers_mut().insert(header::LOCATION, location);
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
        return Ok(response);
    }
    // A ZIP export in a folder is sent as it is read: it may be larger than memory should hold.
    if path.ends_with(".zip")
        && let Some(local) = storage.local_path(&path)
    {
        let archivo = match tokio::fs::File::open(&local).await {
            Ok(archivo) => archivo,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(ApiError::not_found("file").into());
            }
            Err(error) => return Err(ApiError::storage(error, "file").into()),
        };
        let mut response = file_response(Vec::new(), &path, &name)?;
        *response.body_mut() = axum::body::Body::new(ArchivoBody { archivo, parte: vec![0; 64 * 1024] });
        return Ok(response);
    }
    let bytes = if path.ends_with(".pdf") { pdf_guardado(&app, &path).await? } else { read_file(&app, &path).await? };
    file_response(bytes, &path, &name)
}

/// A file sent as it is read, 64 KiB at a time (a ZIP export may be larger than memory should
/// hold).
struct ArchivoBody {
    archivo: tokio::fs::File,
    parte: Vec<u8>,
}

impl hyper::body::Body for ArchivoBody {
    type Data = axum::body::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        use std::task::Poll;
        let this = self.get_mut();
        let mut leido = tokio::io::ReadBuf::new(&mut this.parte);
        match tokio::io::AsyncRead::poll_read(std::pin::Pin::new(&mut this.archivo), cx, &mut leido) {
            Poll::Ready(Ok(())) if leido.filled().is_empty() => Poll::Ready(None),
            Poll::Ready(Ok(())) => {
                Poll::Ready(Some(Ok(hyper::body::Frame::data(axum::body::Bytes::copy_from_slice(leido.filled())))))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Some(Err(error))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// SAT's acuse of an invoice's cancellation (live), as the PAC returned it.
#[utoipa::path(get, path = "/cfdi/{id}/acuse", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The acuse XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (no cancellation acuse for this invoice)", body = ErrorBody),
    ))]
pub async fn acuse(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    // A payroll receipt's acuse only for who may read payroll.
    cargar(&app, &empresa_id, &id, super::ve_nomina(&caller, &access)).await?;
    let path = {
        let mut conn = app.db.conn().await?;
        timbra_store::cfdis::acuse_url(&mut conn, &empresa_id, &CfdiId::from(&id)).await?
    }
    .ok_or_else(|| ApiError::not_found("cancellation acuse of this invoice"))?;
    let bytes = read_file(&app, &path).await?;
    file_response(bytes, &path, &format!("{id}.acuse.xml"))
}
