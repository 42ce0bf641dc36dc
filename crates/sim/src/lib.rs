//! # timbra-sim
//!
//! Simulators of the outside services timbra talks to, speaking the same wire protocols on
//! loopback, for tests and local development:
//!
//! * [`pac`]: a PAC with Finkok's SOAP 1.1 `stamp` and `cancel` services (PROTOCOLS.md §2.2):
//!   it checks the pre-CFDI like a PAC (schema rules, seal, certificate, 72 h window,
//!   duplicates), stamps with its own key, cancels with a controllable receiver, answers the
//!   SAT status query, holds the cancellations waiting for the receiver (`get_pending`,
//!   `accept_reject_signature`), and can be told to misbehave (garbage, delays).
//! * [`consulta`]: SAT's `ConsultaCFDIService` over the PAC simulator's documents, served on
//!   the PAC simulator's address (`/ConsultaCFDIService.svc`).
//! * [`sat`]: SAT's descarga masiva v1.5 (PROTOCOLS.md §1): authentication with a FIEL-signed
//!   WS-Security timestamp, requests, verification and downloads, each message's signature,
//!   certificate, RFC and token checked like SAT; packages built from XML files; every state
//!   and refusal reachable.
//! * [`cli`]: the `timbra sim pac` and `timbra sim sat` subcommands.

#![warn(missing_docs)]

pub mod cli;
pub mod consulta;
pub mod pac;
pub mod sat;

pub use pac::{Falla, Sim, SimConfig, serve};
pub use sat::{Desenlace, DocumentoSim, SatSim, SatSimConfig};
