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
/// yet, or when the issuer's branding changed since it was rendered (a CFDI it issued:
/// `cfdi/{empresaId}/…/{cfdiId}.pdf`). Rendering runs on the blocking pool: it is CPU work of a
/// few milliseconds.
pub async fn pdf(app: &AppContext, path: &str) -> ApiResult<Vec<u8>> {
    let emitido = emitido(path);
    let (marca, version) = match emitido {
        Some((empresa_id, cfdi_id)) => {
            let (marca, version) = crate::marca::de_cfdi(app, empresa_id, cfdi_id).await?;
            (marca, Some(version))
        }
        None => (timbra_pdf::Marca::default(), None),
    };
    let vigente = match version {
        // Before any branding (version 0) a PDF with no record is current.
        Some(version) => {
            let mut conn = app.db.conn().await?;
            timbra_store::marca::version_de_pdf(&mut conn, path).await?.unwrap_or(0) == version
        }
        None => true,
    };
    if vigente {
        match app.cfdi.storage.get(path).await {
            Ok(bytes) => return Ok(bytes),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(ApiError::storage(error, "PDF")),
        }
    }
    let xml_path = format!("{}.xml", path.strip_suffix(".pdf").unwrap_or(path));
    let xml = String::from_utf8(leer(app, &xml_path).await?).map_err(|e| ApiError::internal("stored XML", e))?;
    let bytes = tokio::task::spawn_blocking(move || timbra_pdf::render_xml_con_marca(&xml, &marca))
        .await
        .map_err(|e| ApiError::internal("pdf task", e))?
        .map_err(|e| ApiError::internal("pdf render", e))?;
    // Two first requests at once render twice and store the same bytes: harmless.
    app.cfdi.storage.put(path, bytes.clone()).await.map_err(|e| ApiError::storage(e, "PDF"))?;
    if let Some(version) = version {
        let mut conn = app.db.conn().await?;
        timbra_store::marca::registrar_pdf(&mut conn, path, version).await?;
    }
    Ok(bytes)
}

/// `(empresaId, cfdiId)` of the PDF of a CFDI the company issued (`cfdi/{empresaId}/…/{cfdiId}.pdf`).
fn emitido(path: &str) -> Option<(&str, &str)> {
    let resto = path.strip_prefix("cfdi/")?;
    let (empresa_id, resto) = resto.split_once('/')?;
    let archivo = resto.rsplit('/').next()?;
    let cfdi_id = archivo.strip_suffix(".pdf")?;
    (!empresa_id.is_empty() && !cfdi_id.is_empty() && !resto.starts_with("acuses/")).then_some((empresa_id, cfdi_id))
}
