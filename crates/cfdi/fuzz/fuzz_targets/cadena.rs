//! The native cadena original (from the XML and from the parsed model) never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|datos: &[u8]| {
    let Ok(texto) = std::str::from_utf8(datos) else { return };
    let _ = timbra_cfdi::cadena::desde_xml(texto);
    let _ = timbra_cfdi::cadena::tfd_desde_xml(texto);
    if let Ok(modelo) = timbra_cfdi::parser::parsear(texto) {
        let _ = timbra_cfdi::cadena::desde_comprobante(&modelo);
    }
});
