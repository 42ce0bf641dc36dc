//! # timbra-catalogos
//!
//! SAT's catalogs as data, for validation and for the forms: the edition shipped with the
//! service (SAT's CSV files, deflated and compiled in, with the edition's date), a reader of
//! SAT's CSV layout for newer editions, typed rows of the catalogs read by column, the diff
//! of two editions, [`Indice`], the in-memory [`Catalogos`] validation holds, and [`Buscador`],
//! c_ClaveProdServ's type-ahead in memory.
//! No SQL and no I/O beyond reading a folder of CSV files: the store crate keeps the rows.
//!
//! [`Catalogos`]: timbra_cfdi::catalogos::Catalogos

// Tests may unwrap; the library itself is linted without this.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

pub mod buscador;
pub mod catalogo;
mod csv;
pub mod diferencias;
pub mod edicion;
mod error;
pub mod indice;
pub mod paquete;
pub mod registros;

pub use buscador::Buscador;
pub use catalogo::{Catalogo, Fila};
pub use diferencias::{CambiosCatalogo, Diferencias, diferencias};
pub use edicion::{Edicion, Huellas};
pub use error::{Error, Resultado};
pub use indice::Indice;

/// Id of c_ClaveProdServ (folder and file of SAT's CSV).
pub const CLAVE_PROD_SERV: &str = "cfdi40/c_ClaveProdServ";
/// Id of c_ClaveUnidad.
pub const CLAVE_UNIDAD: &str = "cfdi40/c_ClaveUnidad";
/// Id of c_CodigoPostal.
pub const CODIGO_POSTAL: &str = "cfdi40/c_CodigoPostal";
/// Id of c_FormaPago.
pub const FORMA_PAGO: &str = "cfdi40/c_FormaPago";
/// Id of c_Pais.
pub const PAIS: &str = "cfdi40/c_Pais";
/// Id of c_Moneda.
pub const MONEDA: &str = "cfdi40/c_Moneda";
/// Id of c_RegimenFiscal.
pub const REGIMEN_FISCAL: &str = "cfdi40/c_RegimenFiscal";
/// Id of c_UsoCFDI.
pub const USO_CFDI: &str = "cfdi40/c_UsoCFDI";

#[cfg(test)]
mod tests;
