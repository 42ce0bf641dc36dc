//! SAT test certificates and keys from `shared/sat/certs`.

use timbra_credentials::{Certificate, CertificateKind, Credential, Error, PrivateKey};
use time::macros::datetime;

use crate::support::{self, PINNED, SAT_PASSWORD, Scratch};

const CSD_2023: &str = "30001000000500003416";
const FIEL_2023: &str = "30001000000500003415";

fn read(name: &str) -> Option<Vec<u8>> {
    let dir = support::certs_dir()?;
    Some(std::fs::read(dir.join(name)).unwrap())
}

#[test]
fn every_certificate_in_the_manifest_parses_with_its_fields() {
    let Some(dir) = support::certs_dir() else {
        return;
    };
    let rows = support::cert_rows(&dir);
    assert_eq!(rows.len(), 15);
    for row in rows {
        let der = std::fs::read(dir.join(&row.cer)).unwrap();
        let certificate = Certificate::from_der(&der).unwrap_or_else(|e| panic!("{}: {e}", row.cer));
        assert_eq!(certificate.no_certificado(), row.serial, "{}", row.cer);
        assert_eq!(certificate.no_certificado().len(), 20);
        assert_eq!(certificate.rfc(), row.rfc, "{}", row.cer);
        assert_eq!(certificate.legal_name(), row.organization, "{}", row.cer);
        let expected_kind = if row.kind == "FIEL" { CertificateKind::Fiel } else { CertificateKind::Csd };
        assert_eq!(certificate.kind(), expected_kind, "{}", row.cer);
        assert_eq!(certificate.not_before(), row.not_before, "{}", row.cer);
        assert_eq!(certificate.not_after(), row.not_after, "{}", row.cer);
        match certificate.check_valid_at(PINNED) {
            Ok(()) => assert!(!row.expired_at_pinned, "{}", row.cer),
            Err(Error::Expired { not_after }) => {
                assert!(row.expired_at_pinned, "{}", row.cer);
                assert_eq!(not_after, row.not_after);
            }
            Err(other) => panic!("{}: {other}", row.cer),
        }
        assert_eq!(certificate.der(), der.as_slice());
        assert_eq!(Certificate::from_base64(&certificate.base64()).unwrap(), certificate);
        assert_eq!(Certificate::from_bytes(&der).unwrap(), certificate);
    }
}

#[test]
fn rfc_curp_and_representative_fields() {
    let Some(dir) = support::certs_dir() else {
        return;
    };
    let open =
        |serial: &str| Certificate::from_der(&std::fs::read(dir.join(format!("{serial}.cer"))).unwrap()).unwrap();

    let moral = open(CSD_2023);
    assert_eq!(moral.rfc(), "EKU9003173C9");
    assert_eq!(moral.representative_rfc(), Some("VADA800927DJ3"));
    assert_eq!(moral.curp(), None);
    assert_eq!(moral.representative_curp(), Some("VADA800927HSRSRL05"));
    assert_eq!(moral.legal_name(), "ESCUELA KEMPER URGATE SA DE CV");
    assert_eq!(moral.serial_number_decimal(), "292233162870206001759766198462772978647764840758");
    assert!(moral.issuer_name().starts_with("CN=AC UAT,O=SERVICIO DE ADMINISTRACION TRIBUTARIA,OU=SAT-IES Authority,"));

    let ampersand = open("30001000000400002463");
    assert_eq!(ampersand.rfc(), "H&E951128469");
    assert_eq!(ampersand.legal_name(), "HERRERIA & ELECTRICOS S DE CV");

    let enye = open("30001000000400002449");
    assert_eq!(enye.rfc(), "IAÑL750210963");
    assert_eq!(enye.legal_name(), "LUIS IAN ÑUZCO");
    assert_eq!(enye.curp(), Some("IANL750210HSRNZS09"));
    assert_eq!(enye.representative_rfc(), None);
    assert_eq!(enye.kind(), CertificateKind::Csd);
    assert_eq!(open("30001000000400002431").kind(), CertificateKind::Fiel);

    let fisica = open("30001000000400002311");
    assert_eq!(fisica.curp(), Some("XIQB891116MGRMZR05"));
    assert_eq!(fisica.kind(), CertificateKind::Fiel);
}

#[test]
fn every_key_decrypts_and_pairs_with_its_certificate() {
    let Some(dir) = support::certs_dir() else {
        return;
    };
    for row in support::cert_rows(&dir) {
        let Some(key_name) = &row.key else { continue };
        let cer = std::fs::read(dir.join(&row.cer)).unwrap();
        let key = std::fs::read(dir.join(key_name)).unwrap();
        let credential = Credential::open(&cer, &key, SAT_PASSWORD).unwrap_or_else(|e| panic!("{key_name}: {e}"));
        let signature = credential.sign_sha256(b"cadena").unwrap();
        credential.certificate().verify_sha256(b"cadena", &signature).unwrap();
        assert_eq!(credential.certificate().verify_sha256(b"cadenA", &signature), Err(Error::InvalidSignature));
        assert_eq!(PrivateKey::from_sat_der(&key, b"12345678b").unwrap_err(), Error::WrongPassword, "{key_name}");
        assert_eq!(PrivateKey::from_sat_der(&key, b"").unwrap_err(), Error::WrongPassword);
    }
}

#[test]
fn mismatched_pairs_kinds_and_dates_are_refused() {
    let (Some(csd_cer), Some(csd_key), Some(fiel_cer), Some(fiel_key), Some(old_csd_cer), Some(old_csd_key)) = (
        read(&format!("{CSD_2023}.cer")),
        read(&format!("{CSD_2023}.key")),
        read(&format!("{FIEL_2023}.cer")),
        read(&format!("{FIEL_2023}.key")),
        read("30001000000400002434.cer"),
        read("30001000000400002434.key"),
    ) else {
        return;
    };
    // CSD key with the FIEL certificate of the same RFC.
    assert_eq!(Credential::open(&fiel_cer, &csd_key, SAT_PASSWORD).unwrap_err(), Error::PairMismatch);
    let certificate = Certificate::from_der(&fiel_cer).unwrap();
    let key = PrivateKey::from_sat_der(&csd_key, SAT_PASSWORD).unwrap();
    assert_eq!(Credential::new(certificate, key).unwrap_err(), Error::PairMismatch);

    Credential::open_csd(&csd_cer, &csd_key, SAT_PASSWORD, PINNED).unwrap();
    Credential::open_fiel(&fiel_cer, &fiel_key, SAT_PASSWORD, PINNED).unwrap();
    assert_eq!(
        Credential::open_csd(&fiel_cer, &fiel_key, SAT_PASSWORD, PINNED).unwrap_err(),
        Error::ExpectedCsd { found: CertificateKind::Fiel }
    );
    assert_eq!(
        Credential::open_fiel(&csd_cer, &csd_key, SAT_PASSWORD, PINNED).unwrap_err(),
        Error::ExpectedFiel { found: CertificateKind::Csd }
    );
    assert_eq!(
        Credential::open_csd(&old_csd_cer, &old_csd_key, SAT_PASSWORD, PINNED).unwrap_err(),
        Error::Expired { not_after: datetime!(2023-06-17 19:44:14 UTC) }
    );
    assert_eq!(
        Credential::open_csd(&csd_cer, &csd_key, SAT_PASSWORD, datetime!(2023-05-18 11:43:50 UTC)).unwrap_err(),
        Error::NotYetValid { not_before: datetime!(2023-05-18 11:43:51 UTC) }
    );
    assert_eq!(Credential::open_csd(&csd_cer, &csd_key, b"wrong", PINNED).unwrap_err(), Error::WrongPassword);
    // Swapped arguments: the key where the certificate goes and the reverse.
    assert!(matches!(Credential::open(&csd_key, &csd_cer, SAT_PASSWORD).unwrap_err(), Error::NotACertificate(_)));
    assert!(matches!(PrivateKey::from_sat_der(&csd_cer, SAT_PASSWORD).unwrap_err(), Error::NotAKey(_)));
}

#[test]
fn signatures_equal_openssl_and_verify_with_openssl() {
    let Some(dir) = support::certs_dir() else {
        return;
    };
    let Some(()) = support::tool("openssl") else {
        return;
    };
    let scratch = Scratch::new("sign");
    let cer_path = dir.join(format!("{CSD_2023}.cer")).to_string_lossy().into_owned();
    let key_path = dir.join(format!("{CSD_2023}.key")).to_string_lossy().into_owned();
    let credential =
        Credential::open(&std::fs::read(&cer_path).unwrap(), &std::fs::read(&key_path).unwrap(), SAT_PASSWORD).unwrap();

    let key_pem = scratch.file("key.pem");
    support::run(
        "openssl",
        &["pkcs8", "-inform", "DER", "-in", &key_path, "-passin", "pass:12345678a", "-out", &key_pem],
    );
    let public_pem = scratch.file("public.pem");
    support::run("openssl", &["x509", "-inform", "DER", "-in", &cer_path, "-noout", "-pubkey", "-out", &public_pem]);

    let message = "||4.0|2023-06-13T14:15:16|30001000000500003416|Ñandú & <co>||".repeat(20);
    let message_path = scratch.write("message.txt", message.as_bytes());
    for (digest, ours) in [
        ("-sha256", credential.sign_sha256(message.as_bytes()).unwrap()),
        ("-sha1", credential.sign_sha1(message.as_bytes()).unwrap()),
    ] {
        let theirs = support::run("openssl", &["dgst", digest, "-sign", &key_pem, &message_path]);
        assert_eq!(ours, theirs, "{digest} signature differs from OpenSSL's");
        let signature_path = scratch.write("signature.bin", &ours);
        let verified = support::run(
            "openssl",
            &["dgst", digest, "-verify", &public_pem, "-signature", &signature_path, &message_path],
        );
        assert_eq!(String::from_utf8_lossy(&verified).trim(), "Verified OK");
    }
    credential
        .certificate()
        .verify_sha1(message.as_bytes(), &credential.sign_sha1(message.as_bytes()).unwrap())
        .unwrap();
}

#[test]
fn pem_forms_and_other_ciphers_are_read() {
    let Some(dir) = support::certs_dir() else {
        return;
    };
    let Some(()) = support::tool("openssl") else {
        return;
    };
    let scratch = Scratch::new("pem");
    let cer_path = dir.join(format!("{FIEL_2023}.cer")).to_string_lossy().into_owned();
    let key_path = dir.join(format!("{FIEL_2023}.key")).to_string_lossy().into_owned();
    let expected = Certificate::from_der(&std::fs::read(&cer_path).unwrap()).unwrap();

    let cer_pem = scratch.file("cer.pem");
    support::run("openssl", &["x509", "-inform", "DER", "-in", &cer_path, "-out", &cer_pem]);
    let text = std::fs::read_to_string(&cer_pem).unwrap();
    assert_eq!(Certificate::from_pem(&text).unwrap(), expected);
    assert_eq!(Certificate::from_bytes(text.as_bytes()).unwrap(), expected);

    let plain_pkcs8 = scratch.file("plain.pem");
    support::run(
        "openssl",
        &["pkcs8", "-inform", "DER", "-in", &key_path, "-passin", "pass:12345678a", "-out", &plain_pkcs8],
    );
    let pkcs1 = scratch.file("pkcs1.pem");
    support::run("openssl", &["rsa", "-in", &plain_pkcs8, "-traditional", "-out", &pkcs1]);
    let aes = scratch.file("aes.pem");
    support::run(
        "openssl",
        &[
            "pkcs8",
            "-topk8",
            "-v2",
            "aes-256-cbc",
            "-v2prf",
            "hmacWithSHA256",
            "-in",
            &plain_pkcs8,
            "-passout",
            "pass:otra clave",
            "-out",
            &aes,
        ],
    );
    let aes_der = scratch.file("aes.der");
    support::run(
        "openssl",
        &[
            "pkcs8",
            "-topk8",
            "-v2",
            "aes-128-cbc",
            "-in",
            &plain_pkcs8,
            "-passout",
            "pass:otra clave",
            "-outform",
            "DER",
            "-out",
            &aes_der,
        ],
    );

    let reference = PrivateKey::from_sat_der(&std::fs::read(&key_path).unwrap(), SAT_PASSWORD).unwrap();
    let reference_signature = reference.sign_sha256(b"x").unwrap();
    let read_text = |path: &str| std::fs::read_to_string(path).unwrap();
    let keys = [
        PrivateKey::from_pem(&read_text(&plain_pkcs8), None).unwrap(),
        PrivateKey::from_pem(&read_text(&pkcs1), None).unwrap(),
        PrivateKey::from_pem(&read_text(&aes), Some(b"otra clave")).unwrap(),
        PrivateKey::from_bytes(read_text(&aes).as_bytes(), b"otra clave").unwrap(),
        PrivateKey::from_sat_der(&std::fs::read(&aes_der).unwrap(), b"otra clave").unwrap(),
        PrivateKey::from_sat_der(&reference.to_pkcs8_der(), b"ignored").unwrap(),
    ];
    for key in keys {
        assert_eq!(key.sign_sha256(b"x").unwrap(), reference_signature);
    }
    assert_eq!(PrivateKey::from_pem(&read_text(&aes), None).unwrap_err(), Error::WrongPassword);
    assert_eq!(PrivateKey::from_pem(&read_text(&aes), Some(b"12345678a")).unwrap_err(), Error::WrongPassword);
    assert!(matches!(PrivateKey::from_pem(&text, None).unwrap_err(), Error::NotAKey(_)));
    // Debug never shows private material.
    let debug = format!("{reference:?}");
    assert!(debug.starts_with("PrivateKey { bits: 2048"), "{debug}");
}

#[test]
fn cfdi_sello_of_a_sample_verifies() {
    let Some(sat) = support::sat_dir() else {
        return;
    };
    let name = "P_EKU9003173C9_pagos20";
    let xml = std::fs::read_to_string(sat.join("samples").join(format!("{name}.xml"))).unwrap();
    let cadena = std::fs::read(sat.join("samples").join("expected").join(format!("{name}.cadena.txt"))).unwrap();
    let attribute = |attribute_name: &str| {
        let start = xml.find(&format!(" {attribute_name}=\"")).unwrap() + attribute_name.len() + 3;
        xml[start..start + xml[start..].find('"').unwrap()].to_owned()
    };
    let certificate = Certificate::from_base64(&attribute("Certificado")).unwrap();
    assert_eq!(certificate.no_certificado(), attribute("NoCertificado"));
    let sello = base64_decode(&attribute("Sello"));
    certificate.verify_sha256(&cadena, &sello).unwrap();

    // Re-sealing with the matching key gives the very same Sello (PKCS#1 v1.5 is deterministic).
    let Some(key) = read(&format!("{CSD_2023}.key")) else {
        return;
    };
    let credential = Credential::new(certificate, PrivateKey::from_sat_der(&key, SAT_PASSWORD).unwrap()).unwrap();
    assert_eq!(credential.sign_sha256(&cadena).unwrap(), sello);
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}
