//! Renders a stamped CFDI XML to PDF and reports renders per second.
//!
//! `cargo run --release -p timbra-pdf --example render -- factura.xml factura.pdf [veces]`

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argumentos: Vec<String> = std::env::args().collect();
    let [_, entrada, salida, resto @ ..] = argumentos.as_slice() else {
        return Err("usage: render <cfdi.xml> <out.pdf> [times]".into());
    };
    let veces: u32 = resto.first().map_or(Ok(100), |v| v.parse())?;
    let xml = std::fs::read_to_string(entrada)?;
    let pdf = timbra_pdf::render_xml(&xml)?;
    std::fs::write(salida, &pdf)?;
    let inicio = Instant::now();
    for _ in 0..veces {
        timbra_pdf::render_xml(&xml)?;
    }
    let segundos = inicio.elapsed().as_secs_f64();
    println!("{} bytes; {veces} renders in {segundos:.3} s = {:.0} renders/s", pdf.len(), f64::from(veces) / segundos);
    Ok(())
}
