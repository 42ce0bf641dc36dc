//! The oracle: xmllint validates, xsltproc computes cadenas, openssl verifies seals. Each
//! runs once over every file (loading SAT's catalog schema costs about a second per call).

use std::path::{Path, PathBuf};
use std::process::Command;

/// One xmllint call over every file, against `retenciones20-with-complements.xsd`.
pub fn xmllint(sat: &Path, archivos: &[PathBuf]) {
    let salida = Command::new("xmllint")
        .args(["--nonet", "--noout", "--schema"])
        .arg(sat.join("xsd/retenciones20-with-complements.xsd"))
        .args(archivos)
        .output()
        .unwrap();
    assert!(salida.status.success(), "xmllint rechazó los documentos:\n{}", String::from_utf8_lossy(&salida.stderr));
}

/// One shell call running `xsltproc retenciones.xslt` on every file; returns the cadenas.
pub fn xsltproc(sat: &Path, archivos: &[PathBuf]) -> Vec<String> {
    let script =
        r#"x="$1"; shift; for f in "$@"; do xsltproc --nonet "$x" "$f" 2>/dev/null > "$f.cadena" || exit 1; done"#;
    let estado = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(sat.join("xslt/retenciones20/retenciones.xslt"))
        .args(archivos)
        .status()
        .unwrap();
    assert!(estado.success(), "xsltproc falló");
    archivos.iter().map(|f| std::fs::read_to_string(cadena(f)).unwrap()).collect()
}

/// Where [`xsltproc`] left the cadena of `archivo`.
pub fn cadena(archivo: &Path) -> PathBuf {
    PathBuf::from(format!("{}.cadena", archivo.display()))
}

/// One shell call verifying, for each `(certificate DER, signature, message)`, the RSA-SHA256
/// signature with `openssl dgst -sha256 -verify`. Returns openssl's output.
pub fn openssl_verificar(casos: &[(PathBuf, PathBuf, PathBuf)]) -> String {
    let script = r#"while [ $# -gt 0 ]; do
  openssl x509 -inform DER -in "$1" -noout -pubkey > "$1.pem" || exit 1
  openssl dgst -sha256 -verify "$1.pem" -signature "$2" "$3" || exit 1
  shift 3
done"#;
    let mut comando = Command::new("sh");
    comando.args(["-c", script, "sh"]);
    for (cer, firma, mensaje) in casos {
        comando.arg(cer).arg(firma).arg(mensaje);
    }
    let salida = comando.output().unwrap();
    let texto = String::from_utf8_lossy(&salida.stdout).into_owned();
    assert!(salida.status.success(), "openssl no verificó:\n{texto}{}", String::from_utf8_lossy(&salida.stderr));
    texto
}
