//! Invoices, one file per operation: stamping (`timbrar`), payments (`pagos`), listing
//! (`listar`), detail (`obtener`), downloads of XML, PDF, acuse and signed links (`descargas`), cancellation
//! (`cancelar`), the live stamping attempts with the explanation of every folio
//! (`intentos`), and received invoices from SAT: month synchronization (`recibidos`) and
//! download by UUID (`descargar`). Their SQL lives in `db::cfdis`; stamping itself in `cfdi::pipeline`.

mod cancelar;
mod descargar;
mod descargas;
mod intentos;
mod listar;
mod obtener;
mod pagos;
mod recibidos;
mod timbrar;

pub use cancelar::*;
pub use descargar::*;
pub use descargas::*;
pub use intentos::*;
pub use listar::*;
pub use obtener::*;
pub use pagos::*;
pub use recibidos::*;
pub use timbrar::*;

use crate::error::{ApiError, ApiResult, Code};

/// Most items a listing page may hold.
pub const MAX_LIMIT: i64 = 1000;

/// A JSON body, or REQUEST_001 saying what is wrong with it.
pub(crate) fn parse_body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> ApiResult<T> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(Code::Request001, "send a JSON body (Content-Type: application/json)"));
    }
    serde_json::from_slice(bytes).map_err(|error| {
        let what = if error.is_data() { "a field has the wrong type" } else { "the body is not valid JSON" };
        ApiError::new(Code::Request001, format!("{what}: {error}"))
    })
}

/// Whether the caller may read the company's payroll receipts (type N CFDI) through the
/// invoice routes: `nomina:view` (CONTADOR or higher, or a key with that scope). They hold
/// employees' CURP, NSS, salary and bank account (issue 28, finding 2).
pub(crate) async fn ve_nomina(
    app: &crate::state::AppState,
    caller: &crate::auth::caller::Caller,
    empresa_id: &str,
) -> ApiResult<bool> {
    caller.allows(app, empresa_id, crate::auth::roles::Permission::NominaView).await
}

/// The company's invoice `id`, or NOT_FOUND (also for ids of other companies, and for a
/// payroll receipt when `ve_nomina` is false: like another tenant's record, it is not there).
async fn cargar(
    app: &crate::state::AppState,
    empresa_id: &str,
    id: &str,
    ve_nomina: bool,
) -> ApiResult<(timbra_store::cfdis::CfdiRow, String)> {
    let mut conn = app.db.conn().await?;
    timbra_store::cfdis::leer(&mut conn, empresa_id, id)
        .await?
        .filter(|(row, _)| ve_nomina || row.tipo_comprobante != "N")
        .ok_or_else(|| ApiError::not_found("invoice"))
}
