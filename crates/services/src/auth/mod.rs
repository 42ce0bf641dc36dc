//! Authentication (API keys, sessions) and authorization (roles per company).

pub mod api_keys;
pub mod cache;
pub mod caller;
pub mod cuentas;
pub mod login_throttle;
pub mod roles;
pub mod secrets;
