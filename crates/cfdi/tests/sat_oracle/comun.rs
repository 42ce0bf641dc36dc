//! Shared helpers: locating SAT's files.

use std::path::PathBuf;

/// SAT's files (`$TIMBRA_SAT_DIR`, else `../shared/sat`); `None` after a reported skip when
/// absent (a failure under `TIMBRA_REQUIRE_SAT=1`).
pub fn sat() -> Option<PathBuf> {
    timbra_testkit::sat("xslt/cadenaoriginal_4_0.xslt")
}
