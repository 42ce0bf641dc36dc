//! timbra's HTTP side over `timbra-services`: the router ([`router::build`]), the handlers
//! and their DTOs with OpenAPI schemas, the extractors, the envelope, the connection
//! handling, and the dashboard's pages.

pub mod autofactura;
pub mod connections;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod mcp;
pub mod observability;
pub mod openapi;
pub mod panel;
pub mod router;
pub mod routes;
