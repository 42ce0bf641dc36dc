//! HTTP handlers, one module per resource; `router.rs` lists every route.

pub mod api_keys;
pub mod auth;
pub mod cancelaciones;
pub mod catalogos;
pub mod certificados;
pub mod cfdi;
pub mod clientes;
pub mod docs;
pub mod empresas;
pub mod fiel;
pub mod jobs;
pub mod memberships;
pub mod nomina;
pub mod productos;
pub mod recibos;
pub mod retenciones;
pub mod sandbox;
pub mod scoped;
pub mod timbres;
pub mod webhooks;
