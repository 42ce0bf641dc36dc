//! What can go wrong reading SAT's files or the shipped data file.

use std::path::PathBuf;

/// A catalog that could not be read. Messages name the file or catalog and the line, so an
/// operator importing SAT's files knows what to fix.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read.
    #[error("{ruta}: {fuente}")]
    Io {
        /// The file or folder.
        ruta: PathBuf,
        /// Why.
        #[source]
        fuente: std::io::Error,
    },
    /// A row of a catalog is malformed.
    #[error("{catalogo}, line {linea}: {motivo}")]
    Fila {
        /// The catalog's id (`cfdi40/c_Moneda`).
        catalogo: String,
        /// The line the row starts on.
        linea: usize,
        /// What is wrong.
        motivo: String,
    },
    /// A catalog as a whole is malformed (a missing column, a duplicate key).
    #[error("{catalogo}: {motivo}")]
    Catalogo {
        /// The catalog's id.
        catalogo: String,
        /// What is wrong.
        motivo: String,
    },
    /// A folder of SAT's files that is not one (no catalog in it, no edition date).
    #[error("{0}")]
    Directorio(String),
    /// The shipped data file is damaged (a build that changed it by hand).
    #[error("the catalogs' data file is damaged: {0}")]
    Paquete(String),
}

/// What the readers of this crate return.
pub type Resultado<T> = Result<T, Error>;
