//! timbra's HTTP side over `timbra-services`: the router ([`router::build`]), the handlers
//! and their DTOs with OpenAPI schemas, the extractors, the envelope, the connection
//! handling. The dashboard's pages are the `timbra-panel` crate, mounted by the router and
//! re-exported here as [`panel`].

pub mod autofactura;
pub mod connections;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod mcp;
pub mod observability;
pub mod openapi;
pub mod router;
pub mod routes;

pub use timbra_panel as panel;
