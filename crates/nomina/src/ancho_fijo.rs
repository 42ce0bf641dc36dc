//! Fixed-width ASCII fields for the IMSS files ([`crate::sua`], [`crate::idse`]), and the
//! result type they share. PAYROLL_EXTRAS_2026.md §6: one record per line; text left-aligned,
//! space-padded, upper case; numbers right-aligned, zero-padded, with no decimal point; dates
//! DDMMAAAA.
//!
//! Where the brief is silent (it describes the public implementations, not IMSS's layout PDFs):
//! * **line ending**: CR LF after every record, the last included (SUA and IDSE are Windows
//!   programs; the brief does not say);
//! * **characters**: accented vowels lose the accent and Ñ becomes N, Ü becomes U; any other
//!   character outside printable ASCII becomes a space, so every record has exactly its width in
//!   bytes (the brief says "fixed-width ASCII");
//! * **too long**: text is truncated to its field; a number that does not fit is an error for
//!   that record (the record is skipped and reported, the file still built).

use rust_decimal::Decimal;
use serde::Serialize;
use time::Date;

/// Line terminator of every record.
pub const FIN_DE_LINEA: &str = "\r\n";

/// One record left out of a file, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProblemaRegistro {
    /// Position of the record in the input (0-based).
    pub indice: usize,
    /// The caller's key for the worker.
    pub clave: String,
    /// What is wrong, in Spanish.
    pub mensaje: String,
}

/// A generated file: its text and the records left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Archivo {
    /// The file, ASCII, one record per line, CR LF terminated.
    pub contenido: String,
    /// Records written.
    pub registros: usize,
    /// Records left out, with the reason.
    pub problemas: Vec<ProblemaRegistro>,
}

/// Bad file-level input (the whole file cannot be built).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorArchivo {
    /// The registro patronal is not 11 characters (10 plus the check digit).
    #[error("el registro patronal debe tener 11 caracteres alfanuméricos: {0:?}")]
    RegistroPatronal(String),
}

/// Builds a file from per-record results: the lines written and the problems.
pub(crate) fn armar(resultados: impl IntoIterator<Item = (usize, String, Result<String, String>)>) -> Archivo {
    let mut contenido = String::new();
    let mut registros = 0;
    let mut problemas = Vec::new();
    for (indice, clave, resultado) in resultados {
        match resultado {
            Ok(linea) => {
                contenido.push_str(&linea);
                contenido.push_str(FIN_DE_LINEA);
                registros += 1;
            }
            Err(mensaje) => problemas.push(ProblemaRegistro { indice, clave, mensaje }),
        }
    }
    Archivo { contenido, registros, problemas }
}

/// Checks and normalizes a registro patronal: 11 ASCII letters or digits, upper case.
///
/// # Errors
/// [`ErrorArchivo::RegistroPatronal`] otherwise.
pub fn registro_patronal(rp: &str) -> Result<String, ErrorArchivo> {
    let rp = rp.trim().to_ascii_uppercase();
    if rp.len() == 11 && rp.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(rp)
    } else {
        Err(ErrorArchivo::RegistroPatronal(rp))
    }
}

fn ascii(c: char) -> char {
    match c {
        'Á' | 'À' | 'Ä' | 'Â' => 'A',
        'É' | 'È' | 'Ë' | 'Ê' => 'E',
        'Í' | 'Ì' | 'Ï' | 'Î' => 'I',
        'Ó' | 'Ò' | 'Ö' | 'Ô' => 'O',
        'Ú' | 'Ù' | 'Ü' | 'Û' => 'U',
        'Ñ' => 'N',
        c if c.is_ascii_graphic() || c == ' ' => c,
        _ => ' ',
    }
}

/// Text field: upper case ASCII, left-aligned, space-padded or truncated to `ancho`.
pub fn alfa(texto: &str, ancho: usize) -> String {
    let mut campo: String = texto.trim().to_uppercase().chars().map(ascii).take(ancho).collect();
    while campo.len() < ancho {
        campo.push(' ');
    }
    campo
}

/// A blank field of `ancho` spaces.
pub fn blancos(ancho: usize) -> String {
    " ".repeat(ancho)
}

/// Number field: the non-negative integer right-aligned and zero-padded to `ancho`.
///
/// # Errors
/// When it does not fit.
pub fn entero(valor: u64, ancho: usize) -> Result<String, String> {
    let campo = format!("{valor:0ancho$}");
    if campo.len() > ancho { Err(format!("{valor} no cabe en {ancho} dígitos")) } else { Ok(campo) }
}

/// Amount field with `enteros` integer and `decimales` decimal digits and no point
/// (419.73 in 5 + 2 is `0041973`). Rounded half up to `decimales`.
///
/// # Errors
/// When negative or when it does not fit.
pub fn importe(valor: Decimal, enteros: usize, decimales: u32) -> Result<String, String> {
    if valor < Decimal::ZERO {
        return Err(format!("importe negativo {valor}"));
    }
    let escalado = (valor * Decimal::from(10u64.pow(decimales)))
        .round_dp_with_strategy(0, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let n = u64::try_from(escalado).map_err(|_| format!("importe {valor} fuera de rango"))?;
    let ancho = enteros + decimales as usize;
    entero(n, ancho).map_err(|_| format!("{valor} no cabe en {enteros} enteros y {decimales} decimales"))
}

/// Date field DDMMAAAA.
pub fn fecha(f: Date) -> String {
    format!("{:02}{:02}{:04}", f.day(), u8::from(f.month()), f.year())
}

#[cfg(test)]
mod tests {
    use rust_decimal_macros::dec;
    use time::macros::date;

    use super::*;

    #[test]
    fn campos() {
        assert_eq!(alfa("Peña Núñez", 12), "PENA NUNEZ  ");
        assert_eq!(alfa("  abc  ", 2), "AB");
        assert_eq!(alfa("año€x", 5), "ANO X");
        assert_eq!(entero(8, 2).unwrap(), "08");
        assert!(entero(100, 2).is_err());
        assert_eq!(importe(dec!(419.73), 5, 2).unwrap(), "0041973");
        assert_eq!(importe(dec!(2932.75), 4, 2).unwrap(), "293275");
        assert_eq!(importe(dec!(20.5), 4, 4).unwrap(), "00205000");
        assert!(importe(dec!(10000), 4, 2).is_err());
        assert!(importe(dec!(-1), 4, 2).is_err());
        assert_eq!(fecha(date!(2026 - 03 - 09)), "09032026");
        assert_eq!(registro_patronal(" y5412345108 ").unwrap(), "Y5412345108");
        assert!(registro_patronal("Y541234510").is_err());
        assert!(registro_patronal("Y54123451-8").is_err());
    }
}
