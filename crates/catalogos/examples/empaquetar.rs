//! Writes the shipped data file from a folder of SAT's CSV files (the layout of
//! `shared/sat/catalogs`: `cfdi40/`, `nomina12/`, `pagos20/`, `cancelacion/`):
//!
//! ```sh
//! cargo run -p timbra-catalogos --example empaquetar -- ../shared/sat/catalogs 2026-08-06
//! ```
//!
//! The third argument, if given, is where to write it instead of `data/catalogos-sat.gz`.
//! Every file is read as the service will read it (typed rows included) before anything is
//! written, so a data file that was written also loads.

use std::path::PathBuf;

use timbra_catalogos::{Edicion, Indice, catalogo, edicion, paquete};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut argumentos = std::env::args().skip(1);
    let (Some(dir), Some(fecha)) = (argumentos.next(), argumentos.next()) else {
        return Err("usage: empaquetar <DIR of SAT's CSV files> <edition date YYYY-MM-DD> [OUT]".into());
    };
    let fecha = catalogo::leer_fecha(&fecha).ok_or_else(|| format!("`{fecha}` is not a date"))?;
    let salida = argumentos
        .next()
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/catalogos-sat.gz"), PathBuf::from);
    let archivos = edicion::archivos_csv(dir.as_ref())?;
    let leida = Edicion::desde_archivos(fecha, &archivos)?;
    let indice = Indice::desde_edicion(&leida)?;
    let datos = paquete::escribir(fecha, &archivos)?;
    std::fs::write(&salida, &datos)?;
    for (id, filas) in indice.filas() {
        println!("{id:40} {filas:>6} rows");
    }
    let csv: usize = archivos.iter().map(|(_, texto)| texto.len()).sum();
    println!(
        "edition {fecha}: {} catalogs, {csv} bytes of CSV, {} bytes in {}",
        archivos.len(),
        datos.len(),
        salida.display()
    );
    Ok(())
}
