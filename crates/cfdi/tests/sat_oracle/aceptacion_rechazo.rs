//! The receiver's signed answer (`SolicitudAceptacionRechazo`) checked by xmlsec1, the
//! XMLDSig implementation PACs' own stacks are built on (libxml2/xmlsec), and with the shape of
//! phpcfdi/finkok's recorded document.

use std::path::PathBuf;
use std::process::Command;

use timbra_cfdi::aceptacion_rechazo::{
    FolioRespuesta, Respuesta, SolicitudAceptacionRechazo, firmar_aceptacion_rechazo,
};
use timbra_credentials::testgen::{self, Options};
use time::macros::datetime;

fn xmlsec1(args: &[&str]) -> Option<(bool, String)> {
    let salida = Command::new("xmlsec1").args(args).output().ok()?;
    let mut texto = String::from_utf8_lossy(&salida.stdout).into_owned();
    texto.push_str(&String::from_utf8_lossy(&salida.stderr));
    Some((salida.status.success(), texto))
}

#[test]
fn xmlsec1_verifica_la_respuesta_del_receptor() {
    let Some(_) = xmlsec1(&["--version"]) else {
        timbra_testkit::skip(timbra_testkit::Reason::Tool, "xmlsec1");
        return;
    };
    let opciones = Options::csd(
        "H&E951128469",
        "HERRERIA Y ELECTRICOS",
        datetime!(2025-01-01 0:00 UTC),
        datetime!(2029-01-01 0:00 UTC),
    );
    let csd = testgen::generate(&opciones).unwrap().credential().unwrap();
    let solicitud = SolicitudAceptacionRechazo {
        rfc_receptor: "H&E951128469".into(),
        rfc_pac_envia_solicitud: "CVD110412TF6".into(),
        fecha: "2026-11-21T10:00:00".into(),
        folios: vec![
            FolioRespuesta { uuid: "4CE93193-9E57-4BB0-9E03-09BAB53D392E".into(), respuesta: Respuesta::Aceptacion },
            FolioRespuesta { uuid: "62B00C5E-4187-4336-B569-44E0030DC729".into(), respuesta: Respuesta::Rechazo },
        ],
    };
    let firmada = firmar_aceptacion_rechazo(&solicitud, &csd).unwrap();
    // phpcfdi/finkok's recorded document: same root, attributes, Folios children and
    // signature algorithms.
    for parte in [
        "<SolicitudAceptacionRechazo xmlns=\"http://cancelacfd.sat.gob.mx\"",
        "<Folios><UUID>4CE93193-9E57-4BB0-9E03-09BAB53D392E</UUID><Respuesta>Aceptacion</Respuesta></Folios>",
        "<CanonicalizationMethod Algorithm=\"http://www.w3.org/TR/2001/REC-xml-c14n-20010315\"/>",
        "<Transform Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/>",
        "<SignatureMethod Algorithm=\"http://www.w3.org/2000/09/xmldsig#rsa-sha1\"/>",
        "<RSAKeyValue>",
    ] {
        assert!(firmada.contains(parte), "falta {parte} en {firmada}");
    }

    let dir = std::env::temp_dir().join(format!("timbra-cfdi-aceptacion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let escribir = |nombre: &str, contenido: &str| -> String {
        let ruta: PathBuf = dir.join(nombre);
        std::fs::write(&ruta, contenido).unwrap();
        ruta.to_string_lossy().into_owned()
    };
    let base64 = csd.certificate().base64();
    let lineas: Vec<&str> = base64.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
    let pem = escribir(
        "csd.pem",
        &format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lineas.join("\n")),
    );
    let verificar =
        |ruta: &str| xmlsec1(&["--verify", "--pubkey-cert-pem", &pem, "--enabled-key-data", "rsa", ruta]).unwrap();
    let (ok, salida) = verificar(&escribir("firmada.xml", &firmada));
    assert!(ok, "xmlsec1 rechazó la respuesta firmada: {salida}\n{firmada}");
    let alterada = firmada.replace("<Respuesta>Rechazo</Respuesta>", "<Respuesta>Aceptacion</Respuesta>");
    let (ok, _) = verificar(&escribir("alterada.xml", &alterada));
    assert!(!ok, "xmlsec1 aceptó una respuesta alterada");
    let _ = std::fs::remove_dir_all(&dir);
}
