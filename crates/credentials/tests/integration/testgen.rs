//! Generated test certificates read back by this crate and by OpenSSL.

use timbra_credentials::testgen::{self, KeyEncryption, Options};
use timbra_credentials::{Certificate, CertificateKind, Credential, PrivateKey};
use time::macros::datetime;

use crate::support::{self, Scratch};

fn pem_of(der: &[u8]) -> String {
    use base64::Engine as _;
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = body.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
    format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n"))
}

#[test]
fn generated_certificates_agree_with_openssl() {
    let Some(()) = support::tool("openssl") else {
        return;
    };
    let scratch = Scratch::new("testgen");
    let ca_path = scratch.write("ca.pem", pem_of(&testgen::ca_certificate_der()).as_bytes());

    let mut csd = Options::csd(
        "H&E951128469",
        "HERRERIA & ELECTRICOS S DE CV",
        datetime!(2026-01-01 06:00:00 UTC),
        datetime!(2030-01-01 06:00:00 UTC),
    );
    csd.representative_rfc = Some("XOJI740919U48".into());
    csd.representative_curp = Some("XOJI740919MQTDMN02".into());
    csd.no_certificado = Some("30001000000500009999".into());
    csd.branch = "Matriz Ñuñoa".into();

    let mut fiel = Options::fiel(
        "IAÑL750210963",
        "LUIS IAN ÑUZCO",
        datetime!(2025-06-01 12:30:45 UTC),
        datetime!(2051-06-01 12:30:45 UTC), // GeneralizedTime after 2049
    );
    fiel.curp = Some("IANL750210HSRNZS09".into());
    fiel.password = b"otra clave".to_vec();
    fiel.key_encryption = KeyEncryption::Aes256Cbc;

    let cases = [
        (
            csd,
            "subject=CN=HERRERIA & ELECTRICOS S DE CV, name=HERRERIA & ELECTRICOS S DE CV, O=HERRERIA & ELECTRICOS S DE CV, x500UniqueIdentifier=H&E951128469 / XOJI740919U48, serialNumber= / XOJI740919MQTDMN02, OU=Matriz Ñuñoa",
            "serial=3330303031303030303030353030303039393939",
            "notBefore=Jan  1 06:00:00 2026 GMT",
            "notAfter=Jan  1 06:00:00 2030 GMT",
        ),
        (
            fiel,
            "subject=CN=LUIS IAN ÑUZCO, name=LUIS IAN ÑUZCO, O=LUIS IAN ÑUZCO, C=MX, emailAddress=pruebas@sandbox.invalid, x500UniqueIdentifier=IAÑL750210963, serialNumber=IANL750210HSRNZS09",
            "",
            "notBefore=Jun  1 12:30:45 2025 GMT",
            "notAfter=Jun  1 12:30:45 2051 GMT",
        ),
    ];
    for (options, subject, serial, not_before, not_after) in cases {
        let generated = testgen::generate(&options).unwrap();
        let credential = generated.credential().unwrap();
        let certificate = credential.certificate();
        assert_eq!(certificate.kind(), options.kind);
        assert_eq!(certificate.rfc(), options.rfc);
        assert_eq!(certificate.legal_name(), options.legal_name);
        assert_eq!(certificate.curp(), options.curp.as_deref());
        assert_eq!(certificate.representative_rfc(), options.representative_rfc.as_deref());
        assert_eq!(certificate.representative_curp(), options.representative_curp.as_deref());
        assert_eq!(certificate.not_before(), options.not_before);
        assert_eq!(certificate.not_after(), options.not_after);
        let expected_number = options
            .no_certificado
            .clone()
            .unwrap_or_else(|| testgen::derive_no_certificado(&options.rfc, options.kind, options.not_before));
        assert_eq!(certificate.no_certificado(), expected_number);
        assert_eq!(
            PrivateKey::from_sat_der(&generated.key_der_encrypted, b"12345678b").unwrap_err(),
            timbra_credentials::Error::WrongPassword
        );

        let cer_path = scratch.write("leaf.cer", &generated.cer_der);
        let text = String::from_utf8(support::run(
            "openssl",
            &[
                "x509",
                "-inform",
                "DER",
                "-in",
                &cer_path,
                "-noout",
                "-nameopt",
                "utf8,sep_comma_plus_space",
                "-subject",
                "-serial",
                "-dates",
                "-ext",
                "keyUsage,extendedKeyUsage",
            ],
        ))
        .unwrap();
        assert!(text.contains(subject), "{text}");
        assert!(text.contains(&format!("serial={}", hex_upper(expected_number.as_bytes()))), "{text}");
        if !serial.is_empty() {
            assert!(text.contains(serial), "{text}");
        }
        assert!(text.contains(not_before), "{text}");
        assert!(text.contains(not_after), "{text}");
        match options.kind {
            CertificateKind::Csd => {
                assert!(text.contains("Digital Signature, Non Repudiation\n"), "{text}");
                assert!(!text.contains("Extended Key Usage"), "{text}");
            }
            _ => {
                assert!(
                    text.contains("Digital Signature, Non Repudiation, Data Encipherment, Key Agreement"),
                    "{text}"
                );
                assert!(text.contains("E-mail Protection, TLS Web Client Authentication"), "{text}");
            }
        }

        // The test CA signed it.
        let leaf_pem = scratch.write("leaf.pem", pem_of(&generated.cer_der).as_bytes());
        let at = (options.not_before.unix_timestamp() + 3600).to_string();
        let verified = support::run("openssl", &["verify", "-attime", &at, "-CAfile", &ca_path, &leaf_pem]);
        assert!(String::from_utf8_lossy(&verified).contains("OK"));

        // OpenSSL decrypts the key, and verifies a signature made with it.
        let key_path = scratch.write("leaf.key", &generated.key_der_encrypted);
        let password = format!("pass:{}", String::from_utf8(options.password.clone()).unwrap());
        let key_pem = scratch.file("leaf.key.pem");
        support::run("openssl", &["pkcs8", "-inform", "DER", "-in", &key_path, "-passin", &password, "-out", &key_pem]);
        let message = b"||4.0|A|1000.00|H&E951128469|\xc3\x91||";
        let message_path = scratch.write("message", message);
        let signature_path = scratch.write("signature", &credential.sign_sha256(message).unwrap());
        let public_pem = scratch.file("public.pem");
        support::run(
            "openssl",
            &["x509", "-inform", "DER", "-in", &cer_path, "-noout", "-pubkey", "-out", &public_pem],
        );
        let verified = support::run(
            "openssl",
            &["dgst", "-sha256", "-verify", &public_pem, "-signature", &signature_path, &message_path],
        );
        assert_eq!(String::from_utf8_lossy(&verified).trim(), "Verified OK");
        let theirs = support::run("openssl", &["dgst", "-sha256", "-sign", &key_pem, &message_path]);
        assert_eq!(theirs, credential.sign_sha256(message).unwrap());

        // Kind checks apply to generated credentials too.
        let opened = match options.kind {
            CertificateKind::Csd => Credential::open_csd(
                &generated.cer_der,
                &generated.key_der_encrypted,
                &options.password,
                datetime!(2027-01-01 0:00 UTC),
            ),
            _ => Credential::open_fiel(
                &generated.cer_der,
                &generated.key_der_encrypted,
                &options.password,
                datetime!(2027-01-01 0:00 UTC),
            ),
        };
        opened.unwrap();
    }
}

#[test]
fn generated_certificate_with_derived_number_and_reused_key() {
    let first = testgen::generate(&Options::csd(
        "EKU9003173C9",
        "ESCUELA KEMPER URGATE SA DE CV",
        datetime!(2026-01-01 0:00 UTC),
        datetime!(2026-12-31 0:00 UTC),
    ))
    .unwrap();
    let key = PrivateKey::from_sat_der(&first.key_der_encrypted, &first.password).unwrap();
    let renewed = testgen::generate_with_key(
        &Options::csd(
            "EKU9003173C9",
            "ESCUELA KEMPER URGATE SA DE CV",
            datetime!(2027-01-01 0:00 UTC),
            datetime!(2031-01-01 0:00 UTC),
        ),
        &key,
    )
    .unwrap();
    let old = Certificate::from_der(&first.cer_der).unwrap();
    let new = Certificate::from_der(&renewed.cer_der).unwrap();
    assert_ne!(old.no_certificado(), new.no_certificado());
    assert!(new.no_certificado().starts_with('9'));
    assert_eq!(old.rsa_modulus(), new.rsa_modulus());
    Credential::new(new, key).unwrap();
    assert_eq!(
        old.check_valid_at(datetime!(2027-06-01 0:00 UTC)),
        Err(timbra_credentials::Error::Expired { not_after: datetime!(2026-12-31 0:00 UTC) })
    );
}

fn hex_upper(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}
