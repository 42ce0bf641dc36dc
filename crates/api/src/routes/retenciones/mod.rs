//! CFDI de Retenciones e Información de Pagos 2.0, one file per operation: stamping
//! (`timbrar`), a month's batch (`lote`), listing (`listar`), detail, XML and PDF (`obtener`),
//! cancellation (`cancelar`). The document type itself is
//! `timbra_services::cfdi::retenciones`; its SQL `timbra_store::retenciones`.

pub mod cancelar;
pub mod listar;
pub mod lote;
pub mod obtener;
pub mod timbrar;
