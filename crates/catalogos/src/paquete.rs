//! The shipped data file: SAT's CSV files of one edition in one gzip stream, with the edition's
//! date first so it can be read without inflating the rest. Layout, once inflated:
//!
//! ```text
//! timbra-catalogos 1
//! edicion 2026-08-06
//! archivo cfdi40/c_Aduana 2317
//! <2317 bytes of CSV>archivo cfdi40/c_ClaveProdServ 7043121
//! …
//! ```
//!
//! Written by `cargo run -p timbra-catalogos --example empaquetar` (the crate's README), with
//! the files in id order and a zero gzip timestamp, so the same CSVs give the same bytes.

use std::io::{BufRead, BufReader, Read, Write};

use flate2::Compression;
use flate2::read::GzDecoder;
use time::Date;

use crate::error::{Error, Resultado};

const CABECERA: &str = "timbra-catalogos 1";

/// The data file compiled into the crate (the shipped edition).
pub static INCLUIDO: &[u8] = include_bytes!("../data/catalogos-sat.gz");

/// Writes a data file of `archivos` (id, CSV text) of the edition of `fecha`.
pub fn escribir(fecha: Date, archivos: &[(String, String)]) -> Resultado<Vec<u8>> {
    let mut ordenados: Vec<&(String, String)> = archivos.iter().collect();
    ordenados.sort_by(|a, b| a.0.cmp(&b.0));
    let error = |e: std::io::Error| Error::Paquete(e.to_string());
    let mut gz = flate2::GzBuilder::new().mtime(0).write(Vec::new(), Compression::best());
    writeln!(gz, "{CABECERA}\nedicion {fecha}").map_err(error)?;
    for (id, texto) in ordenados {
        if id.contains(char::is_whitespace) {
            return Err(Error::Paquete(format!("the catalog id `{id}` has a space")));
        }
        write!(gz, "archivo {id} {}\n{texto}", texto.len()).map_err(error)?;
    }
    gz.finish().map_err(error)
}

/// The edition date of a data file, from its first lines.
pub fn fecha(datos: &[u8]) -> Resultado<Date> {
    let mut lector = BufReader::new(GzDecoder::new(datos));
    leer_cabecera(&mut lector)
}

/// The edition date and the files (id, CSV text) of a data file.
pub fn leer(datos: &[u8]) -> Resultado<(Date, Vec<(String, String)>)> {
    let mut archivos = Vec::new();
    let fecha = recorrer(datos, |id, texto| {
        archivos.push((id.to_owned(), texto));
        Ok(())
    })?;
    Ok((fecha, archivos))
}

/// Hands each file of a data file (id, CSV text) to `cada`, one at a time, and gives the
/// edition's date: a caller that keeps only what it builds from each file never holds the whole
/// inflated edition (tens of MB) at once.
pub fn recorrer(datos: &[u8], mut cada: impl FnMut(&str, String) -> Resultado<()>) -> Resultado<Date> {
    let mut lector = BufReader::new(GzDecoder::new(datos));
    let fecha = leer_cabecera(&mut lector)?;
    loop {
        let linea = leer_linea(&mut lector)?;
        if linea.is_empty() {
            return Ok(fecha);
        }
        let mut partes = linea.split(' ');
        let (Some("archivo"), Some(id), Some(largo), None) =
            (partes.next(), partes.next(), partes.next(), partes.next())
        else {
            return Err(Error::Paquete(format!("unexpected line `{linea}`")));
        };
        let largo: u64 = largo.parse().map_err(|_| Error::Paquete(format!("bad length in `{linea}`")))?;
        let mut bytes = Vec::new();
        (&mut lector).take(largo).read_to_end(&mut bytes).map_err(|e| Error::Paquete(e.to_string()))?;
        if bytes.len() as u64 != largo {
            return Err(Error::Paquete(format!("{id} is cut short")));
        }
        let texto = String::from_utf8(bytes).map_err(|_| Error::Paquete(format!("{id} is not UTF-8")))?;
        cada(id, texto)?;
    }
}

fn leer_cabecera(lector: &mut impl BufRead) -> Resultado<Date> {
    let cabecera = leer_linea(lector)?;
    if cabecera != CABECERA {
        return Err(Error::Paquete(format!("it starts with `{cabecera}`, not `{CABECERA}`")));
    }
    let linea = leer_linea(lector)?;
    linea
        .strip_prefix("edicion ")
        .and_then(|fecha| Date::parse(fecha, time::macros::format_description!("[year]-[month]-[day]")).ok())
        .ok_or_else(|| Error::Paquete(format!("`{linea}` is not the edition's date")))
}

/// The next line without its `\n`; empty at the end.
fn leer_linea(lector: &mut impl BufRead) -> Resultado<String> {
    let mut linea = String::new();
    lector.read_line(&mut linea).map_err(|e| Error::Paquete(e.to_string()))?;
    if linea.ends_with('\n') {
        linea.pop();
    }
    Ok(linea)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn writes_and_reads_back_the_same_files_deterministically() {
        let archivos = vec![
            ("pagos20/c_TipoCadenaPago".to_owned(), "id,texto\n01,SPEI\n".to_owned()),
            ("cfdi40/c_Meses".to_owned(), "id,texto\n01,Enero\n".to_owned()),
        ];
        let datos = escribir(date!(2026 - 08 - 06), &archivos).unwrap();
        assert_eq!(datos, escribir(date!(2026 - 08 - 06), &archivos).unwrap());
        assert_eq!(fecha(&datos).unwrap(), date!(2026 - 08 - 06));
        let (leida, leidos) = leer(&datos).unwrap();
        assert_eq!(leida, date!(2026 - 08 - 06));
        assert_eq!(leidos, [archivos[1].clone(), archivos[0].clone()]);
        assert!(leer(&datos[..datos.len() / 2]).is_err());
        assert!(matches!(fecha(b"not gzip"), Err(Error::Paquete(_))));
    }
}
