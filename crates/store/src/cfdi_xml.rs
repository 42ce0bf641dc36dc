//! The stamped XML is kept in the database, written in the same transaction as the invoice
//! row, so an acknowledged stamp always has its XML and no XML exists without its record (a
//! rollback or a kill -9 takes both or neither). It is the tax record itself, a few kilobytes
//! that compress to about a third; PDFs and acuses, which can be made or fetched again, stay in
//! the file storage. This holds whatever the file storage is (local folder or S3): the XML
//! never depends on a second system committing with the database.
//!
//! Rows are addressed by the storage path the invoice shows as `xmlUrl`, so signed links and
//! downloads name files the same way whichever store holds them; invoices stamped before this
//! table existed are read from the file storage.

use crate::ids::{CfdiId, EmpresaId};
use std::io::{Read, Write};

use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::{Compress, Compression, FlushCompress, Status};
use time::OffsetDateTime;

use crate::{AsExec, Tx, Value, sql};

/// The XML deflated (fast level: it is on the stamping path). Each thread keeps one compressor
/// and resets it: a new one allocates and zeroes about 300 KB of tables, which cost more than
/// compressing a CFDI (page faults and memset on every stamp).
pub fn comprimir(xml: &str) -> Vec<u8> {
    thread_local! {
        static COMPRESOR: std::cell::RefCell<Compress> = std::cell::RefCell::new(Compress::new(Compression::fast(), false));
    }
    COMPRESOR.with(|compresor| {
        let mut compresor = compresor.borrow_mut();
        compresor.reset();
        // Deflate never grows data by more than a few bytes per 16 KB block.
        let mut salida = Vec::with_capacity(xml.len() + xml.len() / 16 + 64);
        match compresor.compress_vec(xml.as_bytes(), &mut salida, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => salida,
            // Never with that capacity; the stream way is the fallback.
            _ => {
                let mut encoder = DeflateEncoder::new(Vec::with_capacity(xml.len() / 2), Compression::fast());
                // Writing into a Vec cannot fail.
                let _ = encoder.write_all(xml.as_bytes());
                encoder.finish().unwrap_or_default()
            }
        }
    })
}

/// The XML back from [`comprimir`].
pub fn descomprimir(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut xml = Vec::with_capacity(bytes.len() * 3);
    DeflateDecoder::new(bytes).read_to_end(&mut xml)?;
    Ok(xml)
}

/// The `cfdi_xml` columns a stored XML is written with ([`valores`] gives them in order).
pub const INSERT: &str = "INSERT INTO cfdi_xml (cfdi_id, empresa_id, path, xml_deflate, created_at)";
/// How many columns [`INSERT`] names.
pub const COLUMNS: usize = 5;

/// A row of [`INSERT`], for a batch of stamps written with one statement.
pub fn valores(
    cfdi_id: &CfdiId,
    empresa_id: &EmpresaId,
    path: &str,
    comprimido: Vec<u8>,
    now: OffsetDateTime,
) -> Vec<Value> {
    vec![cfdi_id.into(), empresa_id.into(), path.into(), comprimido.into(), now.into()]
}

/// Stores the compressed XML of invoice `cfdi_id` at `path`, inside the stamping transaction.
pub async fn guardar(
    tx: &mut Tx,
    cfdi_id: &CfdiId,
    empresa_id: &EmpresaId,
    path: &str,
    comprimido: &[u8],
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO cfdi_xml (cfdi_id, empresa_id, path, xml_deflate, created_at) VALUES ($1, $2, $3, $4, $5)",
        cfdi_id,
        empresa_id,
        path,
        comprimido,
        now
    )
}

/// The XML stored at `path`, or `None` when this table does not hold it.
pub async fn leer(conn: &mut impl AsExec, path: &str) -> crate::DbResult<Option<Vec<u8>>> {
    let comprimido = sql!(scalar_optional * conn, Vec<u8>, "SELECT xml_deflate FROM cfdi_xml WHERE path = $1", path)?;
    Ok(comprimido
        .map(|bytes| descomprimir(&bytes).map_err(|error| sqlx::Error::Decode(Box::new(error))))
        .transpose()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_smaller() {
        let xml = format!("<cfdi:Comprobante>{}</cfdi:Comprobante>", "<cfdi:Concepto Descripcion=\"x\"/>".repeat(50));
        let comprimido = comprimir(&xml);
        assert!(comprimido.len() * 3 < xml.len(), "{} of {}", comprimido.len(), xml.len());
        assert_eq!(descomprimir(&comprimido).unwrap(), xml.as_bytes());
        // The thread's compressor is reused: a second, different document comes back whole,
        // with nothing of the first, and the first compresses to the same bytes again.
        let otro = "<cfdi:Comprobante Total=\"1.00\"/>".repeat(3);
        assert_eq!(descomprimir(&comprimir(&otro)).unwrap(), otro.as_bytes());
        assert_eq!(comprimir(&xml), comprimido);
    }
}
