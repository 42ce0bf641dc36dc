//! # timbra-retenciones
//!
//! CFDI de Retenciones e Información de Pagos 2.0 (`retencionpagov2.xsd`) as a pure
//! library: the document model with the Servicios de Plataformas Tecnológicas 1.0 and
//! TimbreFiscalDigital 1.1 complements (other complements kept as raw XML), an XML writer,
//! a parser, the native cadena original (byte-identical to SAT's `retenciones.xslt`),
//! sealing, stamping and verification, validation with rule ids, and a builder from a simple
//! JSON-shaped input. No HTTP, no SQL.

// Tests may unwrap; the library itself is linted without this.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

pub mod cadena;
pub mod catalogos;
pub mod construccion;
pub mod escritura;
pub mod model;
pub mod parser;
pub mod sello;
pub mod validacion;

pub use construccion::{EntradaRetenciones, construir};
pub use escritura::escribir;
pub use model::{
    CfdiRetenRelacionados, ComisionDelServicio, Complemento, ContribucionGubernamental, DetallesDelServicio, Emisor,
    ImpRetenidos, ImpuestosTrasladadosDelServicio, NS_PLATAFORMAS, NS_RETENCIONES, Periodo, Receptor,
    ReceptorExtranjero, ReceptorNacional, Retenciones, ServiciosPlataformasTecnologicas, TimbreFiscalDigital, Totales,
    VERSION, VERSION_PLATAFORMAS, XSD_PLATAFORMAS, XSD_RETENCIONES, XmlCrudo, formato_fecha, formato_fecha_hora,
    leer_fecha, leer_fecha_hora,
};
pub use parser::parsear;
pub use validacion::{Problema, validar};
