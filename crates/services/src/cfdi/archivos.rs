//! The stored files of a CFDI as the downloads and the e-mail read them: the stamped XML (in
//! the database, `timbra_store::cfdi_xml`, or the file storage for older ones) and the PDF,
//! rendered from the XML on its first request and stored beside it.

use crate::context::AppContext;
use crate::error::{ApiError, ApiResult};
use timbra_store::cfdi_xml;

/// A stored file: a stamped XML from the database, anything else (PDFs, acuses, XML stamped
/// before the table existed) from the file storage.
pub async fn leer(app: &AppContext, path: &str) -> ApiResult<Vec<u8>> {
    if path.ends_with(".xml") {
        let mut conn = app.db.conn().await?;
        if let Some(xml) = cfdi_xml::leer(&mut conn, path).await? {
            return Ok(xml);
        }
    }
    app.cfdi.storage.get(path).await.map_err(|error| ApiError::storage(error, "file"))
}

/// The stored PDF at `path`, rendered from its XML sibling (and stored) when it is not there
/// yet. Rendering runs on the blocking pool: it is CPU work of a few milliseconds.
pub async fn pdf(app: &AppContext, path: &str) -> ApiResult<Vec<u8>> {
    match app.cfdi.storage.get(path).await {
        Ok(bytes) => return Ok(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(ApiError::storage(error, "PDF")),
    }
    let xml_path = format!("{}.xml", path.strip_suffix(".pdf").unwrap_or(path));
    let xml = String::from_utf8(leer(app, &xml_path).await?).map_err(|e| ApiError::internal("stored XML", e))?;
    let bytes = tokio::task::spawn_blocking(move || timbra_pdf::render_xml(&xml))
        .await
        .map_err(|e| ApiError::internal("pdf task", e))?
        .map_err(|e| ApiError::internal("pdf render", e))?;
    // Two first requests at once render twice and store the same bytes: harmless.
    app.cfdi.storage.put(path, bytes.clone()).await.map_err(|e| ApiError::storage(e, "PDF"))?;
    Ok(bytes)
}
