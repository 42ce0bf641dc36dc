//! The parser never panics: it returns a model or a located error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|datos: &[u8]| {
    if let Ok(comprobante) = timbra_cfdi::parser::parsear_bytes(datos) {
        // Whatever parses re-serialises (XML never yields a character it cannot carry) and
        // parses again.
        let xml = timbra_cfdi::escritura::escribir(&comprobante).expect("a parsed model writes");
        let _ = timbra_cfdi::parser::parsear(&xml);
    }
});
