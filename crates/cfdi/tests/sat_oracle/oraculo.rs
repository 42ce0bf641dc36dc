//! The oracle: openssl signs and verifies, xmllint validates, xsltproc computes cadenas.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use timbra_cfdi::cadena;
use timbra_cfdi::sello::Firmante;

/// Signs with the `openssl` CLI (the oracle, not a mock).
pub struct FirmanteOpenssl {
    pub llave_pem: PathBuf,
    pub certificado_der: Vec<u8>,
    pub no_certificado: String,
}

impl FirmanteOpenssl {
    /// From a PEM key and a DER certificate; NoCertificado from the serial (ASCII digits
    /// hex-encoded, SAT's convention).
    pub fn new(llave_pem: &Path, certificado: &Path) -> Self {
        let certificado_der = std::fs::read(certificado).unwrap();
        let salida = Command::new("openssl")
            .args(["x509", "-inform", "DER", "-noout", "-serial", "-in"])
            .arg(certificado)
            .output()
            .unwrap();
        let serial = String::from_utf8(salida.stdout).unwrap();
        let hex = serial.trim().trim_start_matches("serial=");
        let bytes: Vec<u8> =
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        Self { llave_pem: llave_pem.to_owned(), certificado_der, no_certificado: String::from_utf8(bytes).unwrap() }
    }

    /// From a SAT `.key` (DER PKCS#8 encrypted) decrypted with openssl into `dir`.
    pub fn desde_sat(cer: &Path, key: &Path, password: &str, dir: &Path) -> Self {
        let pem = dir.join("sat-key.pem");
        let estado = Command::new("openssl")
            .args(["pkcs8", "-inform", "DER", "-passin"])
            .arg(format!("pass:{password}"))
            .arg("-in")
            .arg(key)
            .arg("-out")
            .arg(&pem)
            .status()
            .unwrap();
        assert!(estado.success(), "openssl pkcs8");
        Self::new(&pem, cer)
    }
}

impl Firmante for FirmanteOpenssl {
    fn no_certificado(&self) -> String {
        self.no_certificado.clone()
    }
    fn certificado_base64(&self) -> String {
        STANDARD.encode(&self.certificado_der)
    }
    fn firmar_sha256(&self, mensaje: &[u8]) -> Result<Vec<u8>, String> {
        let mut hijo = Command::new("openssl")
            .args(["dgst", "-sha256", "-sign"])
            .arg(&self.llave_pem)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        hijo.stdin.take().unwrap().write_all(mensaje).map_err(|e| e.to_string())?;
        let salida = hijo.wait_with_output().map_err(|e| e.to_string())?;
        if !salida.status.success() {
            return Err("openssl dgst falló".into());
        }
        Ok(salida.stdout)
    }
}

/// One xmllint call over every file (loading SAT's catalog schema costs ~0.6 s per call).
pub fn xmllint(sat: &Path, archivos: &[PathBuf]) {
    let salida = Command::new("xmllint")
        .args(["--nonet", "--noout", "--schema"])
        .arg(sat.join("xsd/cfdv40-with-complements.xsd"))
        .args(archivos)
        .output()
        .expect("xmllint instalado (apt-get install libxml2-utils)");
    assert!(salida.status.success(), "xmllint rechazó documentos:\n{}", String::from_utf8_lossy(&salida.stderr));
}

/// Runs xsltproc over every file in one shell loop, writing `<file>.xslt-cadena` and, when a
/// TFD exists, `<file>.xslt-tfd`.
pub fn xsltproc(sat: &Path, archivos: &[PathBuf]) {
    let guion = r#"
        sat="$1"; shift
        for f in "$@"; do
            xsltproc --nonet "$sat/xslt/cadenaoriginal_4_0.xslt" "$f" 2>/dev/null > "$f.xslt-cadena" || exit 1
            if grep -q TimbreFiscalDigital "$f"; then
                xsltproc --nonet "$sat/tools/extract_element.xslt" "$f" 2>/dev/null \
                  | xsltproc --nonet "$sat/xslt/cadenaoriginal_TFD_1_1.xslt" - 2>/dev/null > "$f.xslt-tfd" || exit 1
            fi
        done"#;
    let estado = Command::new("sh").arg("-c").arg(guion).arg("sh").arg(sat).args(archivos).status().unwrap();
    assert!(estado.success(), "xsltproc falló");
}

/// openssl verifies `firma_b64` over `mensaje` with the public key of `certificado_der`.
pub fn openssl_verifica(dir: &Path, certificado_der: &[u8], mensaje: &[u8], firma_b64: &str) -> bool {
    let id = format!("{:x}", sha_corto(mensaje));
    let cer = dir.join(format!("{id}.cer"));
    let pem = dir.join(format!("{id}.pub.pem"));
    let msg = dir.join(format!("{id}.msg"));
    let sig = dir.join(format!("{id}.sig"));
    std::fs::write(&cer, certificado_der).unwrap();
    std::fs::write(&msg, mensaje).unwrap();
    std::fs::write(&sig, STANDARD.decode(firma_b64).unwrap()).unwrap();
    let pub_pem = Command::new("openssl")
        .args(["x509", "-inform", "DER", "-noout", "-pubkey", "-in"])
        .arg(&cer)
        .output()
        .unwrap();
    std::fs::write(&pem, pub_pem.stdout).unwrap();
    Command::new("openssl")
        .args(["dgst", "-sha256", "-verify"])
        .arg(&pem)
        .arg("-signature")
        .arg(&sig)
        .arg(&msg)
        .output()
        .unwrap()
        .status
        .success()
}

fn sha_corto(datos: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    datos.hash(&mut h);
    h.finish()
}

/// The three checks on a batch of written files: schema (one xmllint), cadena equality
/// with xsltproc (native from the XML and, given, from the model), seal verification with
/// openssl (and the TFD SelloSAT with `cert_pac` when a TFD is present).
pub fn verificar_lote(
    sat: &Path,
    dir: &Path,
    archivos: &[PathBuf],
    cadenas_modelo: &[String],
    cert_pac: Option<&[u8]>,
) {
    xmllint(sat, archivos);
    xsltproc(sat, archivos);
    for (indice, archivo) in archivos.iter().enumerate() {
        let xml = std::fs::read_to_string(archivo).unwrap();
        let oraculo = std::fs::read_to_string(archivo.with_extension("xml.xslt-cadena")).unwrap();
        let nativa = cadena::desde_xml(&xml).unwrap();
        assert_eq!(nativa, oraculo, "{}: cadena nativa ≠ xsltproc", archivo.display());
        if let Some(modelo) = cadenas_modelo.get(indice) {
            assert_eq!(modelo, &oraculo, "{}: cadena del modelo ≠ xsltproc", archivo.display());
        }
        let comprobante = timbra_cfdi::parser::parsear(&xml).unwrap();
        let certificado = STANDARD.decode(&comprobante.certificado).unwrap();
        assert!(
            openssl_verifica(dir, &certificado, oraculo.as_bytes(), &comprobante.sello),
            "{}: openssl no verifica el Sello",
            archivo.display()
        );
        if let Some(tfd) = comprobante.timbre() {
            let oraculo_tfd = std::fs::read_to_string(archivo.with_extension("xml.xslt-tfd")).unwrap();
            assert_eq!(cadena::tfd_desde_xml(&xml).unwrap(), oraculo_tfd, "{}: cadena TFD", archivo.display());
            assert_eq!(tfd.sello_cfd, comprobante.sello);
            if let Some(cert_pac) = cert_pac {
                assert!(
                    openssl_verifica(dir, cert_pac, oraculo_tfd.as_bytes(), &tfd.sello_sat),
                    "{}: openssl no verifica SelloSAT",
                    archivo.display()
                );
            }
        }
    }
}

/// A fresh temporary directory under the target dir (removed at the start of each run).
pub fn dir_temporal(nombre: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timbra-cfdi-{nombre}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
