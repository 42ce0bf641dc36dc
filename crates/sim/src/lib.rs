//! # timbra-sim
//!
//! Simulators of the outside services timbra talks to, speaking the same wire protocols on
//! loopback, for tests and local development:
//!
//! * [`pac`]: a PAC with Finkok's SOAP 1.1 `stamp` and `cancel` services (PROTOCOLS.md §2.2):
//!   it checks the pre-CFDI like a PAC (schema rules, seal, certificate, 72 h window,
//!   duplicates), stamps with its own key, cancels with a controllable receiver, answers the
//!   SAT status query, and can be told to misbehave (garbage, delays).
//! * [`cli`]: the `timbra sim pac` subcommand.

#![warn(missing_docs)]

pub mod cli;
pub mod pac;

pub use pac::{Sim, SimConfig, serve};
