//! Peak memory of holding SAT's catalogs: `cargo run --release -p timbra-services --example
//! catalogos_memoria [edicion]` prints the process's peak and current RSS after building them
//! one catalog at a time (the service's way) or, with `edicion`, from the whole parsed edition.

use timbra_services::catalogos::{CatalogosSat, Origen};

fn main() -> anyhow::Result<()> {
    let inicio = std::time::Instant::now();
    let catalogos = if std::env::args().nth(1).as_deref() == Some("edicion") {
        CatalogosSat::de(&timbra_catalogos::Edicion::incluida()?, Origen::Incluida)?
    } else {
        CatalogosSat::de_paquete(timbra_catalogos::paquete::INCLUIDO, Origen::Incluida)?
    };
    let tiempo = inicio.elapsed();
    let estado = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let linea = |clave: &str| estado.lines().find(|l| l.starts_with(clave)).unwrap_or_default().to_owned();
    println!(
        "{} claves, {} codigos postales in {tiempo:?}; {}; {}",
        catalogos.buscador.len(),
        catalogos.codigos_postales.len(),
        linea("VmHWM"),
        linea("VmRSS")
    );
    Ok(())
}
