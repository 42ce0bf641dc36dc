//! XMLDSig documents: PROTOCOLS.md §1.11/§2.4 test vectors, xmlsec1, OpenSSL.

use timbra_credentials::xmldsig::{self, C14n, CancelacionFolio, DescargaRequest};
use timbra_credentials::{CertificateKind, Credential, Error};
use time::macros::datetime;

use crate::support::{self, SAT_PASSWORD, Scratch};

fn open(serial: &str) -> Option<Credential> {
    let dir = support::certs_dir()?;
    let cer = std::fs::read(dir.join(format!("{serial}.cer"))).unwrap();
    let key = std::fs::read(dir.join(format!("{serial}.key"))).unwrap();
    Some(Credential::open(&cer, &key, SAT_PASSWORD).unwrap())
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap_or_else(|| panic!("{start} not in {text}")) + start.len();
    &text[from..from + text[from..].find(end).unwrap()]
}

fn digest_of(xml: &str) -> &str {
    between(xml, "<DigestValue>", "</DigestValue>")
}

const FIEL: &str = "30001000000500003415";
const CSD: &str = "30001000000500003416";

#[test]
fn autenticacion_matches_the_recorded_digest_and_verifies() {
    let Some(fiel) = open(FIEL) else { return };
    let xml = xmldsig::sign_autenticacion(
        &fiel,
        datetime!(2019-08-01 03:38:19 UTC),
        datetime!(2019-08-01 03:43:19 UTC),
        "uuid-cf6c80fb-00ae-44c0-af56-54ec65decbaa-1",
    )
    .unwrap();
    assert_eq!(digest_of(&xml), "nQnU35aTer+opzz7HKZiemZZRj8=");
    assert!(xml.contains("<u:Created>2019-08-01T03:38:19.000Z</u:Created>"));
    let verified = xmldsig::verify(&xml).unwrap();
    assert_eq!(verified.certificate.no_certificado(), FIEL);
    assert_eq!(verified.signed_element, "Timestamp");
    assert_eq!(verified.reference_uri, "#_0");

    let tampered = xml.replace("03:43:19.000Z", "03:59:19.000Z");
    assert_eq!(xmldsig::verify(&tampered).unwrap_err(), Error::DigestMismatch);

    let Some(csd) = open(CSD) else { return };
    assert_eq!(
        xmldsig::sign_autenticacion(&csd, datetime!(2019-08-01 03:38:19 UTC), datetime!(2019-08-01 03:43:19 UTC), "x")
            .unwrap_err(),
        Error::ExpectedFiel { found: CertificateKind::Csd }
    );
}

#[test]
fn descarga_requests_match_the_recorded_digests_and_verify() {
    let Some(fiel) = open(FIEL) else { return };
    let rfc = "EKU9003173C9";
    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str);
    let cases: [Case<'_>; 5] = [
        (
            "SolicitaDescargaEmitidos",
            "solicitud",
            vec![
                ("RfcSolicitante", rfc),
                ("RfcEmisor", rfc),
                ("FechaInicial", "2019-01-01T00:00:00"),
                ("FechaFinal", "2019-01-01T00:04:00"),
                ("TipoSolicitud", "Metadata"),
                ("EstadoComprobante", "Todos"),
                ("TipoComprobante", ""),
            ],
            "BELGF9WsFcnEbvXILi03IoOZkjg=",
        ),
        (
            "SolicitaDescargaRecibidos",
            "solicitud",
            vec![
                ("Complemento", "nomina12"),
                ("EstadoComprobante", "Vigente"),
                ("FechaFinal", "2019-01-01T00:04:00"),
                ("FechaInicial", "2019-01-01T00:00:00"),
                ("RfcACuentaTerceros", "XXX01010199A"),
                ("RfcEmisor", "AAA010101AAA"),
                ("RfcReceptor", rfc),
                ("RfcSolicitante", rfc),
                ("TipoComprobante", "N"),
                ("TipoSolicitud", "CFDI"),
            ],
            "kb02ycztMva0O2fcJU4VMV2gOkg=",
        ),
        (
            "SolicitaDescargaFolio",
            "solicitud",
            vec![("Folio", "96623061-61fe-49de-b298-c7156476aa8b"), ("RfcSolicitante", rfc)],
            "H2TUJWzcQWOWYmOUgFlHcBeZX08=",
        ),
        (
            "VerificaSolicitudDescarga",
            "solicitud",
            vec![("IdSolicitud", "3f30a4e1-af73-4085-8991-e4d97eef16bd"), ("RfcSolicitante", rfc)],
            "DVHsbfyUP1fm7CPdctOp8N6132E=",
        ),
        (
            "PeticionDescargaMasivaTercerosEntrada",
            "peticionDescarga",
            vec![("IdPaquete", "4e80345d-917f-40bb-a98f-4a73939343c5_01"), ("RfcSolicitante", rfc)],
            "f0UuGyvdRtYmUtV7HA3c6lVwhdQ=",
        ),
    ];
    for (operation, child, attributes, expected) in cases {
        let request = DescargaRequest { operation, child, attributes: &attributes, rfc_receptores: &[] };
        let xml = xmldsig::sign_descarga(&fiel, &request).unwrap();
        assert_eq!(digest_of(&xml), expected, "{operation}");
        let verified = xmldsig::verify(&xml).unwrap();
        assert_eq!(verified.signed_element, operation);
        assert_eq!(verified.certificate.rfc(), rfc);
        let tampered = xml.replace("RfcSolicitante=\"EKU9003173C9\"", "RfcSolicitante=\"AAA010101AAA\"");
        assert_eq!(xmldsig::verify(&tampered).unwrap_err(), Error::DigestMismatch);
    }

    // Counterparts of an Emitidos request are covered by the digest.
    let attributes = [("RfcSolicitante", rfc), ("RfcEmisor", rfc)];
    let request = DescargaRequest {
        operation: "SolicitaDescargaEmitidos",
        child: "solicitud",
        attributes: &attributes,
        rfc_receptores: &["AAA010101AAA", "H&E951128469"],
    };
    let xml = xmldsig::sign_descarga(&fiel, &request).unwrap();
    assert!(xml.contains("<des:RfcReceptor>H&amp;E951128469</des:RfcReceptor>"));
    xmldsig::verify(&xml).unwrap();
    let tampered = xml.replace("AAA010101AAA", "XAXX010101000");
    assert_eq!(xmldsig::verify(&tampered).unwrap_err(), Error::DigestMismatch);
}

#[test]
fn cancelacion_matches_the_recorded_digest_and_verifies() {
    let Some(csd) = open(CSD) else { return };
    let folios = [CancelacionFolio {
        uuid: "62B00C5E-4187-4336-B569-44E0030DC729".into(),
        motivo: "02".into(),
        folio_sustitucion: None,
    }];
    let xml = xmldsig::sign_cancelacion(&csd, "EKU9003173C9", "2022-01-06T17:49:12", &folios).unwrap();
    assert_eq!(digest_of(&xml), "28wlg0suJ57t4P4P+LshbcH5PYE=");
    let verified = xmldsig::verify(&xml).unwrap();
    assert_eq!(verified.certificate.kind(), CertificateKind::Csd);
    assert_eq!(verified.signed_element, "Cancelacion");
    let tampered = xml.replace("Motivo=\"02\"", "Motivo=\"03\"");
    assert_eq!(xmldsig::verify(&tampered).unwrap_err(), Error::DigestMismatch);
    // A forged SignatureValue with the right digest.
    let value = between(&xml, "<SignatureValue>", "</SignatureValue>");
    let forged = xml.replace(value, &format!("A{}", &value[1..]));
    assert_eq!(xmldsig::verify(&forged).unwrap_err(), Error::InvalidSignature);

    let Some(fiel) = open(FIEL) else { return };
    assert_eq!(
        xmldsig::sign_cancelacion(&fiel, "EKU9003173C9", "2022-01-06T17:49:12", &folios).unwrap_err(),
        Error::ExpectedCsd { found: CertificateKind::Fiel }
    );
}

#[test]
fn signed_info_verifies_with_openssl() {
    let Some(fiel) = open(FIEL) else { return };
    let Some(()) = support::tool("openssl") else {
        return;
    };
    let Some(dir) = support::certs_dir() else {
        return;
    };
    let scratch = Scratch::new("xmldsig-openssl");
    let attributes = [("IdSolicitud", "3f30a4e1-af73-4085-8991-e4d97eef16bd"), ("RfcSolicitante", "EKU9003173C9")];
    let request = DescargaRequest {
        operation: "VerificaSolicitudDescarga",
        child: "solicitud",
        attributes: &attributes,
        rfc_receptores: &[],
    };
    let xml = xmldsig::sign_descarga(&fiel, &request).unwrap();
    // The canonical SignedInfo: exc-c14n, own xmlns, start+end tags (PROTOCOLS §1.2).
    let signed_info = format!(
        "<SignedInfo xmlns=\"http://www.w3.org/2000/09/xmldsig#\">{}</SignedInfo>",
        between(&xml, "<SignedInfo>", "</SignedInfo>")
    )
    .replace("\"/>", "\"></CanonicalizationMethod>")
    .replace(
        "<SignatureMethod Algorithm=\"http://www.w3.org/2000/09/xmldsig#rsa-sha1\"></CanonicalizationMethod>",
        "<SignatureMethod Algorithm=\"http://www.w3.org/2000/09/xmldsig#rsa-sha1\"></SignatureMethod>",
    )
    .replace(
        "<Transform Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"></CanonicalizationMethod>",
        "<Transform Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"></Transform>",
    )
    .replace(
        "<DigestMethod Algorithm=\"http://www.w3.org/2000/09/xmldsig#sha1\"></CanonicalizationMethod>",
        "<DigestMethod Algorithm=\"http://www.w3.org/2000/09/xmldsig#sha1\"></DigestMethod>",
    );
    let signed_info_path = scratch.write("signed_info.xml", signed_info.as_bytes());
    let signature = base64_decode(between(&xml, "<SignatureValue>", "</SignatureValue>"));
    let signature_path = scratch.write("signature.bin", &signature);
    let public_pem = scratch.file("public.pem");
    let cer = dir.join(format!("{FIEL}.cer")).to_string_lossy().into_owned();
    support::run("openssl", &["x509", "-inform", "DER", "-in", &cer, "-noout", "-pubkey", "-out", &public_pem]);
    let verified = support::run(
        "openssl",
        &["dgst", "-sha1", "-verify", &public_pem, "-signature", &signature_path, &signed_info_path],
    );
    assert_eq!(String::from_utf8_lossy(&verified).trim(), "Verified OK", "{signed_info}");
}

#[test]
fn xmlsec1_verifies_cancelacion_and_autenticacion() {
    let (Some(csd), Some(fiel)) = (open(CSD), open(FIEL)) else {
        return;
    };
    let Some(()) = support::tool("xmlsec1") else {
        return;
    };
    let scratch = Scratch::new("xmlsec1");
    let pem_of = |credential: &Credential, name: &str| {
        let body = credential.certificate().base64();
        let lines: Vec<&str> = body.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
        scratch.write(
            name,
            format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n")).as_bytes(),
        )
    };
    let csd_pem = pem_of(&csd, "csd.pem");
    let fiel_pem = pem_of(&fiel, "fiel.pem");

    let folios = [CancelacionFolio {
        uuid: "62B00C5E-4187-4336-B569-44E0030DC729".into(),
        motivo: "01".into(),
        folio_sustitucion: Some("D9C6B0A8-5A2F-4C3E-9E5B-1F2A3B4C5D6E".into()),
    }];
    let cancelacion = xmldsig::sign_cancelacion(&csd, "H&E951128469", "2026-11-21T10:00:00", &folios).unwrap();
    let path = scratch.write("cancelacion.xml", cancelacion.as_bytes());
    let (ok, output) = support::run_status(
        "xmlsec1",
        &["--verify", "--pubkey-cert-pem", &csd_pem, "--enabled-key-data", "rsa", &path],
    );
    assert!(ok, "xmlsec1 rejected the cancellation: {output}\n{cancelacion}");
    eprintln!("xmlsec1 on the cancellation: {output}");
    let tampered = scratch.write("tampered.xml", cancelacion.replace("Motivo=\"01\"", "Motivo=\"02\"").as_bytes());
    let (ok, _) = support::run_status(
        "xmlsec1",
        &["--verify", "--pubkey-cert-pem", &csd_pem, "--enabled-key-data", "rsa", &tampered],
    );
    assert!(!ok, "xmlsec1 accepted a tampered cancellation");

    let autenticacion = xmldsig::sign_autenticacion(
        &fiel,
        datetime!(2026-11-21 16:00:00.123 UTC),
        datetime!(2026-11-21 16:05:00.123 UTC),
        "BinarySecurityToken",
    )
    .unwrap();
    let path = scratch.write("autenticacion.xml", autenticacion.as_bytes());
    let id_node = format!("{}:Timestamp", xmldsig::NS_WSU);
    let (ok, output) = support::run_status(
        "xmlsec1",
        &["--verify", "--id-attr:Id", &id_node, "--pubkey-cert-pem", &fiel_pem, "--enabled-key-data", "rsa", &path],
    );
    assert!(ok, "xmlsec1 rejected the authentication: {output}\n{autenticacion}");
    let tampered =
        scratch.write("tampered-auth.xml", autenticacion.replace("16:05:00.123Z", "17:05:00.123Z").as_bytes());
    let (ok, _) = support::run_status(
        "xmlsec1",
        &["--verify", "--id-attr:Id", &id_node, "--pubkey-cert-pem", &fiel_pem, "--enabled-key-data", "rsa", &tampered],
    );
    assert!(!ok, "xmlsec1 accepted a tampered authentication");
}

#[test]
fn canonicalization_of_a_whole_document() {
    let xml = "<a xmlns:z=\"urn:z\" b=\"1\" a=\"2\"><c/></a>";
    assert_eq!(
        xmldsig::canonicalize_document(xml, C14n::Inclusive).unwrap(),
        "<a xmlns:z=\"urn:z\" a=\"2\" b=\"1\"><c></c></a>"
    );
    assert_eq!(xmldsig::canonicalize_document(xml, C14n::Exclusive).unwrap(), "<a a=\"2\" b=\"1\"><c></c></a>");
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}
