//! SAT certificates (`.cer`): CSD and FIEL.

use std::fmt;

use aws_lc_rs::signature::{self, UnparsedPublicKey};
use base64::Engine as _;
use time::OffsetDateTime;
use x509_parser::prelude::{FromDer, X509Certificate};
use x509_parser::x509::{AttributeTypeAndValue, X509Name};

use crate::Error;
use crate::der::{self, tag};
use crate::pem;

/// What SAT issued a certificate for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CertificateKind {
    /// Certificado de Sello Digital: seals CFDI and signs cancellations. Its subject
    /// has an `OU` (the branch) and its key usage is only Digital Signature and
    /// Non Repudiation.
    Csd,
    /// e.firma (FIEL): identifies the taxpayer before SAT web services (descarga
    /// masiva). Its subject has no `OU`, has an `emailAddress`, its key usage adds
    /// Data Encipherment and Key Agreement, and its extended key usage is
    /// E-mail Protection and TLS Web Client Authentication.
    Fiel,
    /// Neither pattern matches.
    Other,
}

impl fmt::Display for CertificateKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            CertificateKind::Csd => "CSD",
            CertificateKind::Fiel => "FIEL",
            CertificateKind::Other => "non-SAT",
        })
    }
}

/// A parsed SAT certificate (`.cer`), with the fields CFDI and SAT services need.
///
/// Cheap to clone; holds no secret.
#[derive(Clone)]
pub struct Certificate {
    der: Vec<u8>,
    no_certificado: String,
    serial_decimal: String,
    rfc: String,
    representative_rfc: Option<String>,
    curp: Option<String>,
    representative_curp: Option<String>,
    legal_name: String,
    issuer_name: String,
    not_before: OffsetDateTime,
    not_after: OffsetDateTime,
    kind: CertificateKind,
    /// PKCS#1 `RSAPublicKey` DER.
    rsa_public_key: Vec<u8>,
    modulus: Vec<u8>,
    exponent: Vec<u8>,
}

impl fmt::Debug for Certificate {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Certificate")
            .field("no_certificado", &self.no_certificado)
            .field("rfc", &self.rfc)
            .field("kind", &self.kind)
            .field("legal_name", &self.legal_name)
            .field("not_before", &self.not_before)
            .field("not_after", &self.not_after)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Certificate {
    fn eq(&self, other: &Self) -> bool {
        self.der == other.der
    }
}

impl Eq for Certificate {}

// OIDs of the subject attributes SAT uses.
const OID_COMMON_NAME: &str = "2.5.4.3";
const OID_SERIAL_NUMBER: &str = "2.5.4.5";
const OID_ORGANIZATION: &str = "2.5.4.10";
const OID_ORGANIZATIONAL_UNIT: &str = "2.5.4.11";
const OID_NAME: &str = "2.5.4.41";
const OID_UNIQUE_IDENTIFIER: &str = "2.5.4.45";
const OID_EMAIL: &str = "1.2.840.113549.1.9.1";
const OID_RSA_ENCRYPTION: &str = "1.2.840.113549.1.1.1";

impl Certificate {
    /// Parses a DER X.509 certificate (the content of a SAT `.cer` file).
    ///
    /// # Errors
    /// [`Error::NotACertificate`] if the bytes are not X.509;
    /// [`Error::NotSatCertificate`] if the serial is not a 20-digit SAT certificate
    /// number, the subject has no RFC, or the key is not RSA.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let (rest, x509) = X509Certificate::from_der(der).map_err(|error| Error::NotACertificate(error.to_string()))?;
        if !rest.is_empty() {
            return Err(Error::NotACertificate("trailing bytes after the certificate".into()));
        }
        let der = &der[..der.len() - rest.len()];

        // Anexo 20: NoCertificado is the 20-digit number SAT stores as the ASCII
        // bytes of the X.509 serial (hex 3330303031... = "30001...").
        let serial = x509.raw_serial();
        if serial.len() != 20 || !serial.iter().all(u8::is_ascii_digit) {
            return Err(Error::NotSatCertificate("the serial number is not a 20-digit SAT certificate number".into()));
        }
        let no_certificado = String::from_utf8_lossy(serial).into_owned();

        let subject = x509.subject();
        // x500UniqueIdentifier is "RFC / RFC-of-legal-representative" (or the
        // RFC alone for a persona física).
        let unique_identifier = first_attribute(subject, OID_UNIQUE_IDENTIFIER)
            .ok_or_else(|| Error::NotSatCertificate("the subject has no x500UniqueIdentifier (RFC)".into()))?;
        let (rfc, representative_rfc) = split_pair(&unique_identifier);
        let rfc = rfc.ok_or_else(|| Error::NotSatCertificate("the x500UniqueIdentifier holds no RFC".into()))?;
        // serialNumber is "CURP / CURP-of-legal-representative"; the first part is
        // empty for a persona moral.
        let (curp, representative_curp) =
            first_attribute(subject, OID_SERIAL_NUMBER).map(|value| split_pair(&value)).unwrap_or((None, None));

        let legal_name = [OID_COMMON_NAME, OID_NAME, OID_ORGANIZATION]
            .iter()
            .find_map(|oid| first_attribute(subject, oid))
            .unwrap_or_default();

        let public_key_info = x509.public_key();
        if public_key_info.algorithm.algorithm.to_id_string() != OID_RSA_ENCRYPTION {
            return Err(Error::NotSatCertificate("the public key is not RSA".into()));
        }
        let rsa_public_key = public_key_info.subject_public_key.data.to_vec();
        let (modulus, exponent) = parse_rsa_public_key(&rsa_public_key)
            .ok_or_else(|| Error::NotSatCertificate("the RSA public key is malformed".into()))?;

        let kind = classify(&x509);

        Ok(Certificate {
            der: der.to_vec(),
            no_certificado,
            serial_decimal: decimal_from_big_endian(serial),
            rfc,
            representative_rfc,
            curp,
            representative_curp,
            legal_name,
            issuer_name: distinguished_name(x509.issuer()),
            not_before: x509.validity().not_before.to_datetime(),
            not_after: x509.validity().not_after.to_datetime(),
            kind,
            rsa_public_key,
            modulus,
            exponent,
        })
    }

    /// Parses a PEM certificate (`-----BEGIN CERTIFICATE-----`).
    ///
    /// # Errors
    /// As [`Certificate::from_der`], and [`Error::NotACertificate`] for bad PEM.
    pub fn from_pem(pem_text: &str) -> Result<Self, Error> {
        let (label, der) = pem::decode(pem_text).map_err(Error::NotACertificate)?;
        if label != "CERTIFICATE" && label != "X509 CERTIFICATE" {
            return Err(Error::NotACertificate(format!("PEM label {label:?} is not CERTIFICATE")));
        }
        Self::from_der(&der)
    }

    /// Parses the base64 DER a CFDI carries in its `Certificado` attribute
    /// (whitespace ignored).
    ///
    /// # Errors
    /// As [`Certificate::from_der`], and [`Error::NotACertificate`] for bad base64.
    pub fn from_base64(text: &str) -> Result<Self, Error> {
        let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(compact)
            .map_err(|error| Error::NotACertificate(format!("bad base64: {error}")))?;
        Self::from_der(&der)
    }

    /// Parses a certificate given as DER, PEM or bare base64 (sniffed).
    ///
    /// # Errors
    /// As [`Certificate::from_der`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.first() == Some(&tag::SEQUENCE) {
            return Self::from_der(bytes);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| Error::NotACertificate("neither DER nor PEM".into()))?;
        if text.contains("-----BEGIN") { Self::from_pem(text) } else { Self::from_base64(text) }
    }

    /// The DER encoding, as in the `.cer` file.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The DER encoding in base64 without line breaks: the CFDI `Certificado`
    /// attribute and the WS-Security `BinarySecurityToken`.
    pub fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.der)
    }

    /// The 20-digit certificate number (`NoCertificado`).
    pub fn no_certificado(&self) -> &str {
        &self.no_certificado
    }

    /// The X.509 serial number in decimal (XMLDSig `X509SerialNumber`).
    pub fn serial_number_decimal(&self) -> &str {
        &self.serial_decimal
    }

    /// The holder's RFC (first part of `x500UniqueIdentifier`).
    pub fn rfc(&self) -> &str {
        &self.rfc
    }

    /// The legal representative's RFC, when the holder is a persona moral.
    pub fn representative_rfc(&self) -> Option<&str> {
        self.representative_rfc.as_deref()
    }

    /// The holder's CURP (persona física only).
    pub fn curp(&self) -> Option<&str> {
        self.curp.as_deref()
    }

    /// The legal representative's CURP, when the holder is a persona moral.
    pub fn representative_curp(&self) -> Option<&str> {
        self.representative_curp.as_deref()
    }

    /// The holder's name as SAT registered it (subject `CN`).
    pub fn legal_name(&self) -> &str {
        &self.legal_name
    }

    /// The issuer's distinguished name, in certificate order, `,`-separated
    /// (XMLDSig `X509IssuerName`), e.g. `CN=AC UAT,O=SERVICIO DE ADMINISTRACION TRIBUTARIA,...`.
    pub fn issuer_name(&self) -> &str {
        &self.issuer_name
    }

    /// Start of validity.
    pub fn not_before(&self) -> OffsetDateTime {
        self.not_before
    }

    /// End of validity.
    pub fn not_after(&self) -> OffsetDateTime {
        self.not_after
    }

    /// CSD, FIEL or other.
    pub fn kind(&self) -> CertificateKind {
        self.kind
    }

    /// The RSA modulus, big-endian without leading zeros.
    pub fn rsa_modulus(&self) -> &[u8] {
        &self.modulus
    }

    /// The RSA public exponent, big-endian without leading zeros.
    pub fn rsa_exponent(&self) -> &[u8] {
        &self.exponent
    }

    /// Checks that `at` lies inside the validity window (both ends inclusive).
    ///
    /// # Errors
    /// [`Error::Expired`] or [`Error::NotYetValid`].
    pub fn check_valid_at(&self, at: OffsetDateTime) -> Result<(), Error> {
        if at < self.not_before {
            Err(Error::NotYetValid { not_before: self.not_before })
        } else if at > self.not_after {
            Err(Error::Expired { not_after: self.not_after })
        } else {
            Ok(())
        }
    }

    /// Verifies an RSA PKCS#1 v1.5 SHA-256 signature (CFDI `Sello`) over `message`.
    ///
    /// # Errors
    /// [`Error::InvalidSignature`].
    pub fn verify_sha256(&self, message: &[u8], signature_bytes: &[u8]) -> Result<(), Error> {
        // 1024-bit keys are accepted so that old CFDI (pre-2019 CSD) still verify.
        UnparsedPublicKey::new(&signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY, &self.rsa_public_key)
            .verify(message, signature_bytes)
            .map_err(|_| Error::InvalidSignature)
    }

    /// Verifies an RSA PKCS#1 v1.5 SHA-1 signature (SAT web services' XMLDSig).
    ///
    /// # Errors
    /// [`Error::InvalidSignature`].
    pub fn verify_sha1(&self, message: &[u8], signature_bytes: &[u8]) -> Result<(), Error> {
        UnparsedPublicKey::new(&signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY, &self.rsa_public_key)
            .verify(message, signature_bytes)
            .map_err(|_| Error::InvalidSignature)
    }
}

/// CSD or FIEL from subject and key usages (see [`CertificateKind`]).
fn classify(x509: &X509Certificate<'_>) -> CertificateKind {
    let subject = x509.subject();
    let has_branch = first_attribute(subject, OID_ORGANIZATIONAL_UNIT).is_some();
    let has_email = first_attribute(subject, OID_EMAIL).is_some();
    let key_usage = x509.key_usage().ok().flatten().map(|usage| *usage.value);
    let Some(key_usage) = key_usage else {
        return CertificateKind::Other;
    };
    let (client_or_email, other_purposes) = match x509.extended_key_usage().ok().flatten() {
        Some(extended) => (
            extended.value.client_auth || extended.value.email_protection,
            extended.value.server_auth || extended.value.code_signing || extended.value.any,
        ),
        None => (false, false),
    };
    let signs = key_usage.digital_signature() || key_usage.non_repudiation();
    let encrypts = key_usage.data_encipherment() || key_usage.key_agreement();
    if !signs || key_usage.key_cert_sign() || other_purposes {
        CertificateKind::Other
    } else if has_branch && !encrypts && !client_or_email {
        CertificateKind::Csd
    } else if !has_branch && (encrypts || client_or_email || has_email) {
        CertificateKind::Fiel
    } else {
        CertificateKind::Other
    }
}

/// The first attribute with `oid`, decoded as text.
fn first_attribute(name: &X509Name<'_>, oid: &str) -> Option<String> {
    name.iter_attributes().find(|attribute| attribute.attr_type().to_id_string() == oid).map(attribute_text)
}

/// Decodes a directory string. SAT writes names with `Ñ` or `&` as T61String
/// holding Latin-1 bytes, which x509-parser does not decode.
fn attribute_text(attribute: &AttributeTypeAndValue<'_>) -> String {
    let value = attribute.attr_value();
    let bytes = value.data;
    match value.header.tag().0 {
        tag_number if tag_number == u32::from(tag::BMP_STRING) => {
            let units: Vec<u16> = bytes.chunks_exact(2).map(|pair| u16::from_be_bytes([pair[0], pair[1]])).collect();
            String::from_utf16_lossy(&units)
        }
        tag_number if tag_number == u32::from(tag::UNIVERSAL_STRING) => bytes
            .chunks_exact(4)
            .filter_map(|quad| char::from_u32(u32::from_be_bytes([quad[0], quad[1], quad[2], quad[3]])))
            .collect(),
        _ => match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            // T61String in SAT certificates is Latin-1 in practice.
            Err(_) => bytes.iter().map(|&byte| char::from(byte)).collect(),
        },
    }
}

/// Splits `"A / B"` into its trimmed, non-empty parts.
fn split_pair(value: &str) -> (Option<String>, Option<String>) {
    let mut parts = value.splitn(2, '/').map(str::trim);
    let non_empty = |part: Option<&str>| part.filter(|text| !text.is_empty()).map(str::to_owned);
    let first = non_empty(parts.next());
    let second = non_empty(parts.next());
    (first, second)
}

/// Short names for the attributes SAT's issuers use.
fn short_name(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "2.5.4.3" => "CN",
        "2.5.4.5" => "serialNumber",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.9" => "street",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.17" => "postalCode",
        "2.5.4.41" => "name",
        "2.5.4.45" => "x500UniqueIdentifier",
        "1.2.840.113549.1.9.1" => "emailAddress",
        "1.2.840.113549.1.9.2" => "unstructuredName",
        _ => return None,
    })
}

/// RFC 4514-style text of a name, in certificate order, `,`-separated.
fn distinguished_name(name: &X509Name<'_>) -> String {
    let mut out = String::new();
    for attribute in name.iter_attributes() {
        if !out.is_empty() {
            out.push(',');
        }
        let oid = attribute.attr_type().to_id_string();
        out.push_str(short_name(&oid).unwrap_or(&oid));
        out.push('=');
        for character in attribute_text(attribute).chars() {
            if matches!(character, ',' | '+' | '"' | '\\' | '<' | '>' | ';') {
                out.push('\\');
            }
            out.push(character);
        }
    }
    out
}

/// Modulus and exponent of a PKCS#1 `RSAPublicKey`.
pub(crate) fn parse_rsa_public_key(der_bytes: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let (body, _) = der::expect(der_bytes, tag::SEQUENCE)?;
    let (modulus, rest) = der::expect(body, tag::INTEGER)?;
    let (exponent, _) = der::expect(rest, tag::INTEGER)?;
    Some((der::unsigned_magnitude(modulus).to_vec(), der::unsigned_magnitude(exponent).to_vec()))
}

/// Decimal digits of a big-endian unsigned integer.
fn decimal_from_big_endian(bytes: &[u8]) -> String {
    let mut number: Vec<u8> = der::unsigned_magnitude(bytes).to_vec();
    let mut digits = Vec::new();
    while !number.is_empty() {
        let mut remainder = 0u32;
        for byte in &mut number {
            let accumulator = (remainder << 8) | u32::from(*byte);
            // quotient of a value < 2560 by 10 fits in u8
            *byte = (accumulator / 10) as u8;
            remainder = accumulator % 10;
        }
        // remainder < 10
        digits.push(b'0' + remainder as u8);
        let leading = number.iter().take_while(|&&b| b == 0).count();
        number.drain(..leading);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits.reverse();
    String::from_utf8_lossy(&digits).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_conversion() {
        assert_eq!(decimal_from_big_endian(&[]), "0");
        assert_eq!(decimal_from_big_endian(&[0x01, 0x00]), "256");
        assert_eq!(decimal_from_big_endian(&[0xff; 8]), u64::MAX.to_string());
        assert_eq!(
            decimal_from_big_endian(b"30001000000500003416"),
            "292233162870206001759766198462772978647764840758"
        );
    }

    #[test]
    fn pairs_split() {
        assert_eq!(
            split_pair("EKU9003173C9 / VADA800927DJ3"),
            (Some("EKU9003173C9".into()), Some("VADA800927DJ3".into()))
        );
        assert_eq!(split_pair(" / VADA800927HSRSRL05"), (None, Some("VADA800927HSRSRL05".into())));
        assert_eq!(split_pair("XIQB891116QE4"), (Some("XIQB891116QE4".into()), None));
    }
}
