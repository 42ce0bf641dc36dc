//! Events written in the same transaction as the state change they announce.

use rust_decimal::Decimal;

use crate::db::Tx;
use crate::error::ApiResult;

/// `factura.timbrada` data (`{cfdiId, uuid, total, serie, folio}`).
#[derive(Debug)]
pub struct FacturaTimbrada<'a> {
    /// The company.
    pub empresa_id: &'a str,
    /// The invoice id.
    pub cfdi_id: &'a str,
    /// The UUID as the API shows it.
    pub uuid: &'a str,
    /// Total of the invoice.
    pub total: Decimal,
    /// Series.
    pub serie: &'a str,
    /// Folio.
    pub folio: &'a str,
}

/// HOOK for the events module (issue 6): it will write `factura.timbrada` through the event
/// mechanism inside `tx`, the stamping transaction, so the event exists exactly when the
/// invoice does. Until that module is merged this deliberately does nothing: it is the one
/// placeholder of the stamping path.
pub async fn emitir_factura_timbrada(tx: &mut Tx, factura: &FacturaTimbrada<'_>) -> ApiResult<()> {
    let _ = (tx, factura);
    Ok(())
}
