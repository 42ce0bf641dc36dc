//! Events written in the same transaction as the state change they announce.

use rust_decimal::Decimal;
use serde::Serialize;
use time::OffsetDateTime;

use crate::db::Tx;
use crate::error::ApiResult;
use crate::events::{self, EventType};

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

/// The payload SPEC.md gives for `factura.timbrada`; `total` is a JSON number, exact.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FacturaTimbradaData<'a> {
    cfdi_id: &'a str,
    uuid: &'a str,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    total: Decimal,
    serie: &'a str,
    folio: &'a str,
}

/// Writes `factura.timbrada` inside `tx`, the stamping transaction, so the event (and its
/// webhook deliveries) exist exactly when the invoice does.
pub async fn emitir_factura_timbrada(tx: &mut Tx, now: OffsetDateTime, factura: &FacturaTimbrada<'_>) -> ApiResult<()> {
    let data = FacturaTimbradaData {
        cfdi_id: factura.cfdi_id,
        uuid: factura.uuid,
        total: factura.total,
        serie: factura.serie,
        folio: factura.folio,
    };
    events::emit(tx, now, factura.empresa_id, EventType::FacturaTimbrada, &data).await?;
    Ok(())
}
