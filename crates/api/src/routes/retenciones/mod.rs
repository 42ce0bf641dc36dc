//! CFDI de Retenciones e Información de Pagos 2.0, one file per operation: stamping
//! (`timbrar`), a month's batch (`lote`), listing (`list`), detail, XML and PDF (`obtener`),
//! cancellation (`cancelar`). The document type itself is
//! `timbra_services::cfdi::retenciones`; its SQL `timbra_store::retenciones`.

pub mod cancelar;
pub mod list;
pub mod lote;
pub mod obtener;
pub mod timbrar;

use timbra_services::context::AppContext;
use timbra_services::error::ApiError;
use timbra_store::ids::{CfdiId, EmpresaId};
use timbra_store::retenciones::RetencionRow;

/// The company's retention `id` (issued or received), or NOT_FOUND: another company's, or an
/// invoice's id, is not one.
pub(crate) async fn de_la_empresa(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
) -> Result<RetencionRow, ApiError> {
    let mut conn = app.db.conn().await?;
    timbra_store::retenciones::leer(&mut conn, empresa_id, &CfdiId::from(id))
        .await?
        .ok_or_else(|| ApiError::not_found("retention"))
}
