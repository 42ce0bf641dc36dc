//! timbra's operations, over an application context ([`context::AppContext`]) that knows
//! nothing of HTTP: the stamping pipeline and the registry of document types, payments,
//! payroll, cancellation, received invoices, jobs, events, webhooks, the rules of
//! authentication and authorization, idempotency, rate limits and the code table. The HTTP
//! side (`timbra-api`) calls these with typed values and turns their outcomes and errors
//! into answers; nothing here imports it.

pub mod auth;
pub mod catalogos;
pub mod cfdi;
pub mod clientes;
pub mod clock;
pub mod config;
pub mod context;
pub mod correo;
pub mod empresas;
pub mod error;
pub mod events;
pub mod idempotency;
pub mod jobs;
mod layers;
pub mod marca;
pub mod memberships;
pub mod metrics;
pub mod nomina;
pub mod private_fs;
pub mod productos;
pub mod rate_limit;
pub mod scoped;
pub mod validate;
pub mod webhooks;
pub mod wiring;
