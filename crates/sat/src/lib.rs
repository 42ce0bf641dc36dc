//! # timbra-sat
//!
//! A client of SAT's "Descarga Masiva de CFDI y Retenciones" web service v1.5
//! (PROTOCOLS.md §1), signed with the taxpayer's FIEL:
//!
//! * [`mensajes`]: the pure translator. Builds the signed SOAP envelopes (`Autentica` with a
//!   WS-Security timestamp; `SolicitaDescargaRecibidos`, `SolicitaDescargaEmitidos`,
//!   `SolicitaDescargaFolio`, `VerificaSolicitudDescarga`, `Descargar` with an enveloped
//!   exclusive-c14n rsa-sha1 signature) and reads SAT's answers.
//! * [`paquete`]: the pure package reader. Unzips, parses each CFDI with `timbra_cfdi`,
//!   verifies its `Sello`, verifies the TFD `SelloSAT` when SAT's certificate is known, reads
//!   metadata rows.
//! * [`cliente`]: the transport ([`ClienteSat`]) over reqwest: token kept until it expires,
//!   one re-authentication on `CodEstatus` 300, polling with a configured pause.
//! * [`SatError`] maps every failure to the error code of SPEC.md ([`SatError::codigo`]).
//!
//! `timbra-sim` serves the same protocol on loopback (`timbra sim sat`).

#![warn(missing_docs)]

pub mod cliente;
mod error;
pub mod mensajes;
pub mod paquete;

pub use cliente::{ClienteSat, Reloj, SatConfig};
pub use error::SatError;
pub use mensajes::{
    EstadoComprobante, EstadoSolicitud, Periodo, SolicitudAceptada, SolicitudEmitidos, SolicitudRecibidos,
    TipoSolicitud, Token, Verificacion,
};
pub use paquete::{
    CertificadosSat, DocumentoCfdi, DocumentoIlegible, EstadoSello, EstadoTimbre, Metadato, Paquete, leer_paquete,
};
