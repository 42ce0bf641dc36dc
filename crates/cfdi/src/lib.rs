//! # timbra-cfdi
//!
//! CFDI 4.0 (Anexo 20 de la RMF, versión 4.0) as a pure library: the document model with
//! the Pagos 2.0, Nómina 1.2, Impuestos Locales 1.0, Carta Porte 3.1, Comercio Exterior 2.0
//! and TimbreFiscalDigital 1.1 complements, tax and rounding rules with a builder, an XML writer, a parser, the native
//! cadena original (byte-identical to SAT's XSLT), sealing and verification, TFD generation,
//! the QR expresión impresa and validation against SAT's rules and small catalogs.

// Tests may unwrap; the library itself is linted without this (the lib target builds without
// `cfg(test)` under `clippy --all-targets`).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

pub mod aceptacion_rechazo;
pub mod cadena;
pub mod cancelacion;
pub mod catalogos;
pub mod complementos;
pub mod construccion;
pub mod entrada;
pub mod escritura;
pub mod model;
pub mod numero;
pub mod parser;
pub mod sello;
pub mod timbre;
pub mod tipos;
pub mod validacion;

pub use complementos::{carta_porte, comercio_exterior, implocal, nomina, pagos, tfd};
pub use model::{
    ACuentaTerceros, CfdiRelacionados, Complemento, Comprobante, Concepto, Emisor, Impuestos, ImpuestosConcepto,
    InformacionGlobal, NS_CFDI, NS_XSI, Parte, Receptor, Retencion, RetencionComprobante, Traslado,
    TrasladoComprobante, XSD_CFDI, XmlCrudo,
};
pub use numero::Numero;
pub use tipos::{CodigoPostal, Importe, Rfc, TextoSat};
