//! Every request the client signs, checked by outside tools: the WS-Security signature by
//! `xmlsec1 --verify`; the operation signatures by xmllint's exclusive c14n and OpenSSL.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;

use timbra_sat::mensajes;
use timbra_sat::{Periodo, SolicitudEmitidos, SolicitudRecibidos, TipoSolicitud};
use time::macros::datetime;

use crate::comun;

/// Whether xmlsec1 runs; a reported skip (a failure under `TIMBRA_REQUIRE_SAT=1`) when not.
fn xmlsec1() -> bool {
    let presente = Command::new("xmlsec1").arg("--version").output().is_ok_and(|o| o.status.success());
    if !presente {
        timbra_testkit::skip(timbra_testkit::Reason::Tool, "xmlsec1");
    }
    presente
}

fn carpeta() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timbra-sat-xmlsec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `xmlsec1 --verify` on several files at once; `extra` are options such as `--id-attr`.
fn verificar(archivos: &[PathBuf], cer: &Path, extra: &[&str]) {
    let salida = Command::new("xmlsec1")
        .arg("--verify")
        .args(["--pubkey-cert-der", cer.to_str().unwrap()])
        .args(extra)
        .args(archivos)
        .output()
        .unwrap();
    let texto = format!("{}{}", String::from_utf8_lossy(&salida.stdout), String::from_utf8_lossy(&salida.stderr));
    assert!(salida.status.success(), "xmlsec1 refused: {texto}");
    assert_eq!(texto.matches("OK").count(), archivos.len(), "{texto}");
}

#[test]
fn signed_requests_verify_with_xmlsec1() {
    let Some(sat) = comun::sat_dir() else { return };
    if !xmlsec1() {
        return;
    }
    let fiel = comun::fiel(&sat);
    let cer = sat.join("certs/30001000000500003415.cer");
    let dir = carpeta();
    let escribir = |nombre: &str, xml: String| {
        let ruta = dir.join(nombre);
        std::fs::write(&ruta, xml).unwrap();
        ruta
    };

    let autenticacion =
        escribir("autenticacion.xml", mensajes::sobre_autenticacion(&fiel, comun::AHORA, "uuid-a-1").unwrap());
    verificar(&[autenticacion], &cer, &["--id-attr:Id", ID_TIMESTAMP]);

    // A tampered timestamp is refused.
    let alterado = escribir(
        "autenticacion-alterada.xml",
        mensajes::sobre_autenticacion(&fiel, comun::AHORA, "uuid-a-1").unwrap().replace(":00.000Z<", ":01.000Z<"),
    );
    let salida = Command::new("xmlsec1")
        .args(["--verify", "--pubkey-cert-der", cer.to_str().unwrap(), "--id-attr:Id", ID_TIMESTAMP])
        .arg(&alterado)
        .output()
        .unwrap();
    assert!(!salida.status.success(), "xmlsec1 accepted a tampered timestamp");

    let periodo = Periodo::new(datetime!(2026-10-01 00:00:00), datetime!(2026-10-31 23:59:59), TipoSolicitud::Cfdi);
    let recibidos = SolicitudRecibidos { periodo: periodo.clone(), rfc_emisor: Some("AAA010101AAA".into()) };
    let emitidos = SolicitudEmitidos { periodo, rfc_receptores: vec!["AAA010101AAA".into(), "XIA190128J61".into()] };
    let sobres = [
        mensajes::sobre_solicitud_recibidos(&fiel, &recibidos).unwrap(),
        mensajes::sobre_solicitud_emitidos(&fiel, &emitidos).unwrap(),
        mensajes::sobre_solicitud_folio(&fiel, "96623061-61fe-49de-b298-c7156476aa8b").unwrap(),
        mensajes::sobre_verificacion(&fiel, "3f30a4e1-af73-4085-8991-e4d97eef16bd").unwrap(),
        mensajes::sobre_descarga(&fiel, "3F30A4E1-AF73-4085-8991-E4D97EEF16BD_01").unwrap(),
    ];
    // The operation signatures have no enveloped transform (phpcfdi's form, which SAT
    // verifies on the operation detached without its Signature): xmlsec1 cannot leave the
    // Signature out of URI="", so libxml2's exclusive c14n (xmllint) and OpenSSL check them.
    let pem = dir.join("fiel.pem");
    let estado = Command::new("openssl")
        .args(["x509", "-inform", "DER", "-in", cer.to_str().unwrap(), "-pubkey", "-noout", "-out"])
        .arg(&pem)
        .status()
        .unwrap();
    assert!(estado.success());
    for (indice, sobre) in sobres.iter().enumerate() {
        let entre = |abre: &str, cierra: &str| {
            let inicio = sobre.find(abre).unwrap();
            let fin = sobre.find(cierra).unwrap() + cierra.len();
            sobre[inicio..fin].to_owned()
        };
        let firma = entre("<Signature ", "</Signature>");
        let cuerpo = entre("<des:", "</s:Body>").replace("</s:Body>", "").replace(&firma, "");
        let (abre, resto) = cuerpo.split_once('>').unwrap();
        let operacion = escribir(
            &format!("operacion-{indice}.xml"),
            format!("{abre} xmlns:des=\"http://DescargaMasivaTerceros.sat.gob.mx\">{resto}"),
        );
        let canonico = Command::new("xmllint").arg("--exc-c14n").arg(&operacion).output().unwrap().stdout;
        let digest = base64::engine::general_purpose::STANDARD.encode(openssl_sha1(&dir, &canonico));
        assert_eq!(digest, between(sobre, "<DigestValue>", "</DigestValue>"), "digest of {indice}");

        let signed_info = entre("<SignedInfo>", "</SignedInfo>").replacen(
            "<SignedInfo>",
            "<SignedInfo xmlns=\"http://www.w3.org/2000/09/xmldsig#\">",
            1,
        );
        let signed_info = escribir(&format!("signedinfo-{indice}.xml"), signed_info);
        let canonico = Command::new("xmllint").arg("--exc-c14n").arg(&signed_info).output().unwrap().stdout;
        let canonico_ruta = dir.join(format!("signedinfo-{indice}.c14n"));
        std::fs::write(&canonico_ruta, canonico).unwrap();
        let valor = base64::engine::general_purpose::STANDARD
            .decode(between(sobre, "<SignatureValue>", "</SignatureValue>"))
            .unwrap();
        let firma_ruta = dir.join(format!("firma-{indice}.bin"));
        std::fs::write(&firma_ruta, valor).unwrap();
        let salida = Command::new("openssl")
            .args(["dgst", "-sha1", "-verify"])
            .arg(&pem)
            .arg("-signature")
            .arg(&firma_ruta)
            .arg(&canonico_ruta)
            .output()
            .unwrap();
        assert!(
            salida.status.success(),
            "openssl refused signature {indice}: {}",
            String::from_utf8_lossy(&salida.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const ID_TIMESTAMP: &str =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd:Timestamp";

fn between<'a>(texto: &'a str, abre: &str, cierra: &str) -> &'a str {
    let inicio = texto.find(abre).unwrap() + abre.len();
    &texto[inicio..inicio + texto[inicio..].find(cierra).unwrap()]
}

fn openssl_sha1(dir: &Path, datos: &[u8]) -> Vec<u8> {
    let ruta = dir.join("digest.in");
    std::fs::write(&ruta, datos).unwrap();
    Command::new("openssl").args(["dgst", "-sha1", "-binary"]).arg(&ruta).output().unwrap().stdout
}
