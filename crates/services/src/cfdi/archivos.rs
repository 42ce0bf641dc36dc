//! The stored files of a CFDI as the downloads and the e-mail read them: the stamped XML (in
//! the database, `timbra_store::cfdi_xml`, or the file storage for older ones) and the PDF,
//! rendered from the XML on its first request and stored beside it.

use crate::context::AppContext;
use crate::error::{ApiError, ApiResult};
use timbra_store::cfdi_xml;
use timbra_store::ids::{CfdiId, EmpresaId};

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
/// `cfdi/{empresaId}/…/{cfdiId}.pdf`), or always for a sandbox CFDI (marked as a test
/// document, `timbra_pdf::MARCA_PRUEBAS`). Rendering runs on the blocking pool: it is CPU work of a
/// few milliseconds.
pub async fn pdf(app: &AppContext, path: &str) -> ApiResult<Vec<u8>> {
    let emitido = emitido(path);
    let (marca, version, sandbox) = match emitido {
        Some((empresa_id, cfdi_id)) => {
            let (empresa_id, cfdi_id) = (EmpresaId::from(empresa_id), CfdiId::from(cfdi_id));
            let (marca, version) = crate::marca::de_cfdi(app, &empresa_id, &cfdi_id).await?;
            let mut conn = app.db.conn().await?;
            // The API's UUID of a sandbox stamp is `SANDBOX-` + the XML's (the XML cannot tell).
            let sandbox = timbra_store::cfdis::leer(&mut conn, &empresa_id, &cfdi_id)
                .await?
                .is_some_and(|(row, _)| row.uuid.starts_with("SANDBOX-"));
            (marca, Some(version), sandbox)
        }
        None => (timbra_pdf::Marca::default(), None, false),
    };
    let vigente = match version {
        // A sandbox PDF is rendered again on every request: one stored before sandbox PDFs
        // carried their mark (issue 38) has the current branding version and would otherwise
        // be served unmarked forever; rendering takes a few milliseconds.
        _ if sandbox => false,
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
    let bytes = tokio::task::spawn_blocking(move || timbra_pdf::render_xml_con_marca(&xml, &marca, sandbox))
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

/// A file to download: its bytes and the headers it travels with. Always an attachment, never
/// rendered by the browser; the name is built from checked characters only, so the header
/// always builds; the page's origin is never lent to the document (issue 28: a received
/// CFDI's UUID with a line break made the header fail, it was dropped, and an XHTML script in
/// the Addenda ran inline). The API and the dashboard answer it the same way.
pub struct Descarga {
    /// The file.
    pub bytes: Vec<u8>,
    /// Its media type, from the stored path's extension.
    pub content_type: &'static str,
    /// The file name offered (letters, digits, `.`, `-` and `_` only).
    pub nombre: String,
}

impl Descarga {
    /// The file `bytes` stored at `path`, offered as `name`.
    pub fn new(bytes: Vec<u8>, path: &str, name: &str) -> Self {
        let content_type = if path.ends_with(".pdf") {
            "application/pdf"
        } else if path.ends_with(".zip") {
            "application/zip"
        } else {
            "application/xml; charset=utf-8"
        };
        Self { bytes, content_type, nombre: nombre_de_descarga(name) }
    }

    /// The headers of its answer: type, attachment, no shared caching, and a policy under which
    /// the document, opened directly, runs nothing and reaches nothing (`nosniff` is on every
    /// answer of the router).
    pub fn headers(&self) -> ApiResult<Vec<(http::HeaderName, http::HeaderValue)>> {
        use http::{HeaderValue, header};
        let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", self.nombre))
            .map_err(|error| ApiError::internal("Content-Disposition", error))?;
        Ok(vec![
            (header::CONTENT_TYPE, HeaderValue::from_static(self.content_type)),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, HeaderValue::from_static("private, no-store")),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'; sandbox")),
        ])
    }
}

/// A download's file name from letters, digits, `.`, `-` and `_` only (anything else becomes
/// `_`), at most 100 characters: no quote, `;`, line break or path separator can reach the
/// header, whatever a stored UUID holds.
pub fn nombre_de_descarga(name: &str) -> String {
    let nombre: String = name
        .chars()
        .take(100)
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .collect();
    if nombre.trim_matches(|c| c == '.' || c == '_').is_empty() { "cfdi".to_owned() } else { nombre }
}

/// The stamped XML of the company's CFDI `id` (an invoice, a payment, a retention, a payroll
/// receipt when `ve_nomina`), or NOT_FOUND.
pub async fn xml_de(app: &AppContext, empresa_id: &EmpresaId, id: &str, ve_nomina: bool) -> ApiResult<Descarga> {
    let (row, _) = crate::cfdi::consulta::leer(app, empresa_id, id, ve_nomina).await?;
    let path = row.xml_url.ok_or_else(|| ApiError::not_found("XML of this invoice"))?;
    let bytes = leer(app, &path).await?;
    Ok(Descarga::new(bytes, &path, &format!("{}.xml", row.uuid)))
}

/// The PDF of the company's CFDI `id`, rendered from its XML on the first request (a payroll
/// receipt when `ve_nomina`), or NOT_FOUND (also for a metadata-only CFDI: no XML, no PDF).
pub async fn pdf_de(app: &AppContext, empresa_id: &EmpresaId, id: &str, ve_nomina: bool) -> ApiResult<Descarga> {
    let (row, _) = crate::cfdi::consulta::leer(app, empresa_id, id, ve_nomina).await?;
    let xml_path = row.xml_url.ok_or_else(|| ApiError::not_found("XML of this invoice"))?;
    let path = crate::cfdi::links::ruta_pdf(&xml_path);
    let bytes = pdf(app, &path).await?;
    Ok(Descarga::new(bytes, &path, &format!("{}.pdf", row.uuid)))
}

#[cfg(test)]
mod tests {
    use super::{Descarga, nombre_de_descarga};

    #[test]
    fn download_names_keep_only_checked_characters() {
        assert_eq!(
            nombre_de_descarga("5FB2822E-396D-4725-8521-CDC4BDD20CCF.xml"),
            "5FB2822E-396D-4725-8521-CDC4BDD20CCF.xml"
        );
        assert_eq!(nombre_de_descarga("5FB2822E\n0CCF.xml"), "5FB2822E_0CCF.xml");
        assert_eq!(nombre_de_descarga("../../x.xml"), ".._.._x.xml");
        assert_eq!(nombre_de_descarga("Q\"; filename=evil.html; x=\".xml"), "Q___filename_evil.html__x__.xml");
        assert_eq!(nombre_de_descarga("../"), "cfdi");
        for name in ["a\r\nb", "ñ\"é", "\u{0}"] {
            let headers = Descarga::new(Vec::new(), "x.xml", name).headers().unwrap();
            let disposition = headers[1].1.to_str().unwrap();
            assert!(disposition.starts_with("attachment; filename=\""), "{disposition}");
        }
    }
}
