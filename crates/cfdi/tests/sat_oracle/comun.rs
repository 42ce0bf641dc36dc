//! Shared helpers: locating `shared/sat`.

use std::path::PathBuf;

/// `shared/sat`: `$TIMBRA_SAT_DIR`, else `$CARGO_MANIFEST_DIR/../../../shared/sat` (a clone
/// with `shared/` beside it), else the nearest ancestor holding `shared/sat` (worktrees).
/// `None`, with a loud message, when absent and `TIMBRA_REQUIRE_SAT` is not `1`.
pub fn sat() -> Option<PathBuf> {
    let manifiesto = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidatos = std::env::var_os("TIMBRA_SAT_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::iter::once(manifiesto.join("../../../shared/sat")))
        .chain(manifiesto.ancestors().map(|dir| dir.join("shared/sat")));
    for dir in candidatos {
        if dir.join("xslt/cadenaoriginal_4_0.xslt").is_file() {
            return Some(dir);
        }
    }
    if std::env::var("TIMBRA_REQUIRE_SAT").as_deref() == Ok("1") {
        panic!("TIMBRA_REQUIRE_SAT=1 pero no se encontró shared/sat junto a {}", manifiesto.display());
    }
    eprintln!("\n!!!!! OMITIDO: no se encontró shared/sat (oráculo SAT); prueba saltada !!!!!\n");
    None
}
