//! SAT-shaped test certificates and keys, signed by a fixed test CA.
//!
//! For sandbox mode (the service makes a test CSD for each company's RFC) and
//! for tests. The certificates copy the layout of SAT's: the 20-digit
//! certificate number as the ASCII serial, `CN`/`name`/`O` = legal name,
//! `x500UniqueIdentifier` = `RFC / representative RFC`, `serialNumber` =
//! `CURP / representative CURP`, an `OU` for a CSD, `C` and `emailAddress` for a
//! FIEL, and SAT's key usages. Keys are DER PKCS#8 encrypted like SAT's
//! (PBES2, PBKDF2-HMAC-SHA1 2,048 iterations, DES-EDE3-CBC) or with AES-256-CBC.
//!
//! **Nothing here is secret or trustworthy**: the test CA's private key is in
//! this source file, so anyone can make certificates it signs. SAT and PACs
//! reject them; only the sandbox may accept them.
//!
//! ```
//! use timbra_credentials::testgen::{self, Options};
//! use time::macros::datetime;
//!
//! let options = Options::csd("H&E951128469", "HERRERIA & ELECTRICOS S DE CV",
//!     datetime!(2026-01-01 0:00 UTC), datetime!(2030-01-01 0:00 UTC));
//! let generated = testgen::generate(&options).unwrap();
//! let csd = generated.credential().unwrap();
//! assert_eq!(csd.certificate().rfc(), "H&E951128469");
//! ```

use std::fmt;
use std::sync::OnceLock;

use aws_lc_rs::encoding::{AsDer, PublicKeyX509Der};
use aws_lc_rs::rsa::{KeyPair, KeySize};
use pkcs8::PrivateKeyInfoRef;
use pkcs8::pkcs5::pbes2;
use time::OffsetDateTime;

use crate::der::{self, tag};
use crate::{Certificate, CertificateKind, Credential, Error, PrivateKey};

/// Common name of the test CA that signs every generated certificate.
pub const CA_COMMON_NAME: &str = "AC DE PRUEBAS TIMBRA (NO VALIDO ANTE EL SAT)";

/// PBKDF2 iterations used for generated keys (SAT's and OpenSSL's value).
pub const PBKDF2_ITERATIONS: u32 = 2048;

/// The test CA's RSA key: generated once for this crate with
/// `openssl genpkey -algorithm RSA`, deliberately public.
const CA_KEY_PEM: &str = "
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC2jN+RXZZLmrWZ
6cClV1kPBDT6CaBdCYU0Mc6Cfkztxdl4qy7w6mKWho9qA2pJU0FJ/L+UFvzaTSh2
mzgWMUpt6upTi6eJPQ7CehVPOgmfHI0R4QknmpMJGD1jMGjJCx2F0i+zc6pVQskU
WBViDPBwfDk7n4FBKfuyoMBFFUl+VgTjYL3agHP6QfrhbxniBJNbQZDM7uSjxreu
jEDKKLze+T4L7bmFKdYi9n3MRer+9LcmIPBzPN079qjB38aiZw76dXTG792YjhFy
mV3RVvT9eHsVHWLWivnQu3wxlwY4fv5gIRiNGqhz05T/gRqQ6Qabd32pcmT9cI6y
RqlbXw8rAgMBAAECggEAGjK4GGc98ou5aY/1ExrTWnxYE1TeVtEkSgv71G5xITk2
We2h8aExlONVdvlr1NTF7JWr84Ijt5CV21pbVOlYrShRiLvkx0/5QPUUVH0Xybs8
jkb6xrGVoxsqHtoLr7k7UME2vKI/h7eV8/161B+B7M1nHqS9gASZGAGfQPV/yUmA
FWJQYw7ssvPa7wkr6619Xiy2jKvmxz810rVcCkmazGHj3tXNNJqN8VB16BYHZfX5
0IxDuaZjqdoNECfRpdG3y87/THD3DiVLk5mhltSQKfZBjM6OHvu5uJ0/z/jVwuTc
2Ovxy7hDKcBzxoG/GGLTnMy7jfuUknJz7IfZS1PHAQKBgQD/7P0ZLGjaKqaCpnQD
OX0I60vYhszywFU/pQsuggMkFSSrHQzDWLpvBHSOtwjDWcqIi4IiFGOlQ/yc9UZX
bi3t5bZo1wCWNdXBaSYSQjNbuflHaMOQUDVJDjEo/EjTFitcYsl5w+Nr4rR4Ksg7
eJ3MND9Jru9hv7E4f1BLTBsD2wKBgQC2mm8ZdwU+c1bdHVPsELhcUe0r7vdj1J5V
EpAhUOvBRZoQsxj1T0gQ7jX19qWdoQbEhyXW2M2Ih3Z7luZ359jN0rqI1NqkiKKQ
P5nEnWpk+LT2eZzPLis11Nv4HqRYRIOwkQboGpkJRL0MPN+fmXBtS0QGP/9HFlyF
6enxPnOq8QKBgQD5q3pS16dGxvsAVGCzUJ8xV1L73q4MWCQSXfGlooJr7hCCumlc
HbBrY75OCDQNWAik4uzGUHvRm5zShtnjq4I1JreoWa+h2s04zVqtz1WJM8oDpym6
HPWO2sCMympFO8h7bYg+OSMhed4zqREEK6xNrd7cBERWaQr8If/0JT/ppwKBgHNK
8OjQKER1CJxVnx5GtFC9/ZSmrhafMVUfglc2w5PlQVBX9GM2qpbeAL4K/CiZei9t
8WtEugkBFsMT1PJSNaZG7jXkxyPpjVKshYcJqRqVmZSh1mtNiETV4Ak6N6PvpoI+
H3E/Ee8zMnXenYckl0K6qfmUQLb+nG6E8Yu7VcbRAoGAXIJb3sxC5Lge1I/Pj1SS
hfdvYzRMzY4TDvs9vNGDXxltt5iVhrahcEo45fnaBKPCdPLMvHDKuTzN/JR3tqIi
5OKf3OdTUdZLvJTV8ru/KUbY1/AO8ALYF3UhrbtTjtpkxSB9OlpKHrveYD9eM7xe
xNmS3hwv/aTzuvSRb3r30+4=
-----END PRIVATE KEY-----
";

/// How the generated `.key` is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyEncryption {
    /// As SAT does: PBES2, PBKDF2-HMAC-SHA1 (2,048 iterations, 8-byte salt), DES-EDE3-CBC.
    SatTripleDes,
    /// PBES2, PBKDF2-HMAC-SHA256 (2,048 iterations, 16-byte salt), AES-256-CBC.
    Aes256Cbc,
}

/// What to put in a generated certificate.
#[derive(Clone)]
pub struct Options {
    /// [`CertificateKind::Csd`] or [`CertificateKind::Fiel`].
    pub kind: CertificateKind,
    /// Holder RFC (12 characters for a persona moral, 13 for a física; `&` and `Ñ` allowed).
    pub rfc: String,
    /// Holder name (`CN`, `name` and `O`).
    pub legal_name: String,
    /// Legal representative's RFC (second part of `x500UniqueIdentifier`).
    pub representative_rfc: Option<String>,
    /// Holder CURP (persona física).
    pub curp: Option<String>,
    /// Legal representative's CURP.
    pub representative_curp: Option<String>,
    /// Branch name, the `OU` of a CSD (ignored for a FIEL).
    pub branch: String,
    /// `emailAddress` of a FIEL (ignored for a CSD).
    pub email: String,
    /// The 20-digit certificate number; `None` derives one with [`derive_no_certificado`].
    pub no_certificado: Option<String>,
    /// Start of validity (whole seconds are kept).
    pub not_before: OffsetDateTime,
    /// End of validity (whole seconds are kept).
    pub not_after: OffsetDateTime,
    /// Password for the encrypted `.key`.
    pub password: Vec<u8>,
    /// Cipher for the `.key`.
    pub key_encryption: KeyEncryption,
}

impl fmt::Debug for Options {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Options")
            .field("kind", &self.kind)
            .field("rfc", &self.rfc)
            .field("no_certificado", &self.no_certificado)
            .field("not_before", &self.not_before)
            .field("not_after", &self.not_after)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// A CSD for `rfc` with branch `Sucursal 1`, password `12345678a`, SAT's cipher.
    pub fn csd(rfc: &str, legal_name: &str, not_before: OffsetDateTime, not_after: OffsetDateTime) -> Self {
        Options {
            kind: CertificateKind::Csd,
            rfc: rfc.to_owned(),
            legal_name: legal_name.to_owned(),
            representative_rfc: None,
            curp: None,
            representative_curp: None,
            branch: "Sucursal 1".to_owned(),
            email: "pruebas@sandbox.invalid".to_owned(),
            no_certificado: None,
            not_before,
            not_after,
            password: b"12345678a".to_vec(),
            key_encryption: KeyEncryption::SatTripleDes,
        }
    }

    /// A FIEL for `rfc`, otherwise as [`Options::csd`].
    pub fn fiel(rfc: &str, legal_name: &str, not_before: OffsetDateTime, not_after: OffsetDateTime) -> Self {
        Options { kind: CertificateKind::Fiel, ..Self::csd(rfc, legal_name, not_before, not_after) }
    }
}

/// A generated certificate and its encrypted key.
#[derive(Clone)]
pub struct Generated {
    /// DER X.509 certificate (a `.cer`).
    pub cer_der: Vec<u8>,
    /// DER PKCS#8 `EncryptedPrivateKeyInfo` (a `.key`).
    pub key_der_encrypted: Vec<u8>,
    /// The password that decrypts `key_der_encrypted`.
    pub password: Vec<u8>,
}

impl fmt::Debug for Generated {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_struct("Generated").field("cer_der_len", &self.cer_der.len()).finish_non_exhaustive()
    }
}

impl Generated {
    /// Opens the generated pair as a [`Credential`].
    ///
    /// # Errors
    /// None expected; those of [`Credential::open`].
    pub fn credential(&self) -> Result<Credential, Error> {
        Credential::open(&self.cer_der, &self.key_der_encrypted, &self.password)
    }
}

/// Makes a certificate and an encrypted key as `options` says, with a fresh
/// RSA-2048 key (tens of milliseconds).
///
/// # Errors
/// [`Error::Generation`] for invalid options (kind `Other`, empty RFC, a
/// certificate number that is not 20 digits, `not_after` before `not_before`)
/// or a cryptographic failure.
pub fn generate(options: &Options) -> Result<Generated, Error> {
    let key_pair =
        KeyPair::generate(KeySize::Rsa2048).map_err(|_| Error::Generation("RSA key generation failed".into()))?;
    generate_with_key(options, &PrivateKey::from_key_pair(key_pair))
}

/// As [`generate`], reusing an existing key (for example to renew a sandbox
/// certificate, or to keep tests fast).
///
/// # Errors
/// As [`generate`].
pub fn generate_with_key(options: &Options, key: &PrivateKey) -> Result<Generated, Error> {
    let cer_der = certificate_der(options, key)?;
    let key_der_encrypted = encrypt_key(&key.to_pkcs8_der(), &options.password, options.key_encryption)?;
    Ok(Generated { cer_der, key_der_encrypted, password: options.password.clone() })
}

/// A 20-digit certificate number derived from RFC, kind and start of validity:
/// `9` followed by 19 digits of their SHA-256. SAT's numbers start with `0`
/// (production) or `3` (test), so derived ones never collide with SAT's.
pub fn derive_no_certificado(rfc: &str, kind: CertificateKind, not_before: OffsetDateTime) -> String {
    let input = format!("{rfc}|{kind}|{}", not_before.unix_timestamp());
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, input.as_bytes());
    let mut value = u128::from_be_bytes(
        digest.as_ref()[..16].try_into().unwrap_or([0; 16]), // a SHA-256 digest always has 16 leading bytes
    );
    let mut digits = String::from("9");
    let mut tail = [b'0'; 19];
    for slot in tail.iter_mut().rev() {
        // value % 10 < 10
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
    digits.push_str(&String::from_utf8_lossy(&tail));
    digits
}

/// The test CA's DER certificate (self-signed, valid 2020-01-01 to 2049-12-31).
/// Deterministic: the same bytes on every machine and run.
pub fn ca_certificate_der() -> Vec<u8> {
    test_ca().certificate.clone()
}

struct TestCa {
    key: PrivateKey,
    name: Vec<u8>,
    certificate: Vec<u8>,
}

fn test_ca() -> &'static TestCa {
    static CA: OnceLock<TestCa> = OnceLock::new();
    CA.get_or_init(|| {
        // The embedded PEM is a valid RSA key (checked by the unit tests), so
        // these fallbacks are never taken; they keep this function panic-free.
        let key = PrivateKey::from_pem(CA_KEY_PEM, None).unwrap_or_else(|_| PrivateKey::from_key_pair(fallback_key()));
        let name = name(&[
            (&[2, 5, 4, 3], CA_COMMON_NAME, StringKind::Directory),
            (&[2, 5, 4, 10], "TIMBRA SANDBOX", StringKind::Directory),
            (&[2, 5, 4, 11], "NO VALIDO ANTE EL SAT", StringKind::Directory),
            (&[2, 5, 4, 6], "MX", StringKind::Printable),
        ]);
        let validity = der::sequence(&[
            &time_der(time::macros::datetime!(2020-01-01 00:00:00 UTC)),
            &time_der(time::macros::datetime!(2049-12-31 23:59:59 UTC)),
        ]);
        let extensions = [
            // basicConstraints critical CA:TRUE
            extension(&[2, 5, 29, 19], true, &der::sequence(&[&der::tlv(tag::BOOLEAN, &[0xff])])),
            // keyUsage critical keyCertSign, cRLSign
            extension(&[2, 5, 29, 15], true, &der::tlv(tag::BIT_STRING, &[0x01, 0x06])),
        ];
        let tbs = tbs_certificate(b"01", &name, &validity, &name, &spki(&key), &extensions);
        let certificate = sign_certificate(&tbs, &key).unwrap_or_default();
        TestCa { key, name, certificate }
    })
}

fn fallback_key() -> KeyPair {
    loop {
        if let Ok(key_pair) = KeyPair::generate(KeySize::Rsa2048) {
            return key_pair;
        }
    }
}

/// The DER certificate for `options` and `key`, signed by the test CA.
fn certificate_der(options: &Options, key: &PrivateKey) -> Result<Vec<u8>, Error> {
    if options.rfc.trim().is_empty() || options.rfc.contains('/') {
        return Err(Error::Generation("the RFC is empty or contains '/'".into()));
    }
    if options.not_after <= options.not_before {
        return Err(Error::Generation("not_after must be after not_before".into()));
    }
    let no_certificado = match &options.no_certificado {
        Some(number) => number.clone(),
        None => derive_no_certificado(&options.rfc, options.kind, options.not_before),
    };
    if no_certificado.len() != 20 || !no_certificado.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::Generation("the certificate number must be 20 digits".into()));
    }
    let pair = |first: Option<&str>, second: Option<&str>| match (first, second) {
        (Some(first), Some(second)) => Some(format!("{first} / {second}")),
        (Some(first), None) => Some(first.to_owned()),
        (None, Some(second)) => Some(format!(" / {second}")),
        (None, None) => None,
    };
    let unique_identifier = pair(Some(&options.rfc), options.representative_rfc.as_deref()).unwrap_or_default();
    let curps = pair(options.curp.as_deref(), options.representative_curp.as_deref());

    let mut attributes: Vec<(&[u64], &str, StringKind)> = vec![
        (&[2, 5, 4, 3], &options.legal_name, StringKind::Directory),
        (&[2, 5, 4, 41], &options.legal_name, StringKind::Directory),
        (&[2, 5, 4, 10], &options.legal_name, StringKind::Directory),
    ];
    let (key_usage, extended_key_usage) = match options.kind {
        CertificateKind::Csd => (
            // digitalSignature, nonRepudiation: as SAT's CSD
            vec![0x06, 0xc0],
            None,
        ),
        CertificateKind::Fiel => {
            attributes.push((&[2, 5, 4, 6], "MX", StringKind::Printable));
            attributes.push((&[1, 2, 840, 113_549, 1, 9, 1], &options.email, StringKind::Ia5));
            (
                // digitalSignature, nonRepudiation, dataEncipherment, keyAgreement: as SAT's FIEL
                vec![0x03, 0xd8],
                // emailProtection, clientAuth
                Some(der::sequence(&[
                    &der::oid(&[1, 3, 6, 1, 5, 5, 7, 3, 4]),
                    &der::oid(&[1, 3, 6, 1, 5, 5, 7, 3, 2]),
                ])),
            )
        }
        CertificateKind::Other => {
            return Err(Error::Generation("kind must be Csd or Fiel".into()));
        }
    };
    attributes.push((&[2, 5, 4, 45], &unique_identifier, StringKind::Directory));
    if let Some(curps) = &curps {
        attributes.push((&[2, 5, 4, 5], curps, StringKind::Directory));
    }
    if options.kind == CertificateKind::Csd {
        attributes.push((&[2, 5, 4, 11], &options.branch, StringKind::Directory));
    }
    let subject = name(&attributes);

    let ca = test_ca();
    let validity = der::sequence(&[&time_der(options.not_before), &time_der(options.not_after)]);
    let mut extensions = vec![
        // basicConstraints critical CA:FALSE
        extension(&[2, 5, 29, 19], true, &der::sequence(&[])),
        extension(&[2, 5, 29, 15], false, &der::tlv(tag::BIT_STRING, &key_usage)),
    ];
    if let Some(extended_key_usage) = extended_key_usage {
        extensions.push(extension(&[2, 5, 29, 37], false, &extended_key_usage));
    }
    let tbs = tbs_certificate(no_certificado.as_bytes(), &ca.name, &validity, &subject, &spki(key), &extensions);
    let certificate = sign_certificate(&tbs, &ca.key)?;
    // What we write must read back; a failure here is a bug in this module.
    Certificate::from_der(&certificate).map_err(|error| Error::Generation(error.to_string()))?;
    Ok(certificate)
}

#[derive(Clone, Copy)]
enum StringKind {
    /// PrintableString when the text allows it, else UTF8String.
    Directory,
    Printable,
    Ia5,
}

fn string_der(text: &str, kind: StringKind) -> Vec<u8> {
    let printable = |c: char| c.is_ascii_alphanumeric() || " '()+,-./:=?".contains(c);
    let tag_byte = match kind {
        StringKind::Ia5 => tag::IA5_STRING,
        StringKind::Printable => tag::PRINTABLE_STRING,
        StringKind::Directory if text.chars().all(printable) => tag::PRINTABLE_STRING,
        StringKind::Directory => tag::UTF8_STRING,
    };
    der::tlv(tag_byte, text.as_bytes())
}

/// A Name: one single-attribute RDN per entry, in order.
fn name(attributes: &[(&[u64], &str, StringKind)]) -> Vec<u8> {
    let rdns: Vec<Vec<u8>> = attributes
        .iter()
        .map(|(oid, value, kind)| {
            let pair = der::sequence(&[&der::oid(oid), &string_der(value, *kind)]);
            der::constructed(tag::SET, &[&pair])
        })
        .collect();
    let parts: Vec<&[u8]> = rdns.iter().map(Vec::as_slice).collect();
    der::sequence(&parts)
}

/// UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5).
fn time_der(at: OffsetDateTime) -> Vec<u8> {
    let at = at.to_offset(time::UtcOffset::UTC);
    let rest =
        format!("{:02}{:02}{:02}{:02}{:02}Z", u8::from(at.month()), at.day(), at.hour(), at.minute(), at.second());
    if (1950..2050).contains(&at.year()) {
        der::tlv(tag::UTC_TIME, format!("{:02}{rest}", at.year() % 100).as_bytes())
    } else {
        der::tlv(tag::GENERALIZED_TIME, format!("{:04}{rest}", at.year()).as_bytes())
    }
}

fn extension(oid: &[u64], critical: bool, value: &[u8]) -> Vec<u8> {
    let value = der::tlv(tag::OCTET_STRING, value);
    if critical {
        der::sequence(&[&der::oid(oid), &der::tlv(tag::BOOLEAN, &[0xff]), &value])
    } else {
        der::sequence(&[&der::oid(oid), &value])
    }
}

fn sha256_with_rsa() -> Vec<u8> {
    der::sequence(&[&der::oid(&[1, 2, 840, 113_549, 1, 1, 11]), &der::tlv(tag::NULL, &[])])
}

fn spki(key: &PrivateKey) -> Vec<u8> {
    // aws-lc-rs encodes any RSA public key it holds; empty output would make
    // the generated certificate fail its read-back check.
    let public_key = key.public_key();
    let encoded: Result<PublicKeyX509Der<'static>, _> = public_key.as_der();
    encoded.map(|der_bytes| der_bytes.as_ref().to_vec()).unwrap_or_default()
}

fn tbs_certificate(
    serial: &[u8],
    issuer: &[u8],
    validity: &[u8],
    subject: &[u8],
    spki: &[u8],
    extensions: &[Vec<u8>],
) -> Vec<u8> {
    let version = der::constructed(0xa0, &[&der::tlv(tag::INTEGER, &[2])]);
    let extension_parts: Vec<&[u8]> = extensions.iter().map(Vec::as_slice).collect();
    let extensions = der::constructed(0xa3, &[&der::sequence(&extension_parts)]);
    der::sequence(&[
        &version,
        &der::unsigned_integer(serial),
        &sha256_with_rsa(),
        issuer,
        validity,
        subject,
        spki,
        &extensions,
    ])
}

fn sign_certificate(tbs: &[u8], issuer_key: &PrivateKey) -> Result<Vec<u8>, Error> {
    let signature_bytes = issuer_key.sign_sha256(tbs)?;
    let mut bit_string = Vec::with_capacity(signature_bytes.len() + 1);
    bit_string.push(0); // no unused bits
    bit_string.extend_from_slice(&signature_bytes);
    Ok(der::sequence(&[tbs, &sha256_with_rsa(), &der::tlv(tag::BIT_STRING, &bit_string)]))
}

/// DER PKCS#8 `EncryptedPrivateKeyInfo` of `pkcs8_der`.
fn encrypt_key(pkcs8_der: &[u8], password: &[u8], encryption: KeyEncryption) -> Result<Vec<u8>, Error> {
    let failure = |what: &str| Error::Generation(format!("key encryption failed: {what}"));
    let mut salt = [0u8; 16];
    let mut iv = [0u8; 16];
    aws_lc_rs::rand::fill(&mut salt).map_err(|_| failure("random"))?;
    aws_lc_rs::rand::fill(&mut iv).map_err(|_| failure("random"))?;
    let parameters = match encryption {
        KeyEncryption::SatTripleDes => {
            let mut des_iv = [0u8; 8];
            des_iv.copy_from_slice(&iv[..8]);
            pbes2::Parameters {
                kdf: pbes2::Pbkdf2Params {
                    salt: pbes2::Salt::new(&salt[..8]).map_err(|e| failure(&e.to_string()))?,
                    iteration_count: PBKDF2_ITERATIONS,
                    key_length: None,
                    prf: pbes2::Pbkdf2Prf::HmacWithSha1,
                }
                .into(),
                encryption: pbes2::EncryptionScheme::DesEde3Cbc { iv: des_iv },
            }
        }
        KeyEncryption::Aes256Cbc => pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(PBKDF2_ITERATIONS, &salt, iv)
            .map_err(|e| failure(&e.to_string()))?,
    };
    let info = PrivateKeyInfoRef::try_from(pkcs8_der).map_err(|e| failure(&e.to_string()))?;
    let document = info.encrypt_with_params(parameters, password).map_err(|e| failure(&e.to_string()))?;
    Ok(document.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn the_ca_is_deterministic_and_valid() {
        assert!(PrivateKey::from_pem(CA_KEY_PEM, None).is_ok());
        let first = ca_certificate_der();
        assert_eq!(first, ca_certificate_der());
        let parsed = x509_parser::parse_x509_certificate(&first).unwrap().1;
        assert!(parsed.is_ca());
        assert_eq!(parsed.subject().iter_common_name().next().unwrap().as_str().unwrap(), CA_COMMON_NAME);
    }

    #[test]
    fn derived_numbers_are_20_digits_starting_with_9() {
        let number = derive_no_certificado("EKU9003173C9", CertificateKind::Csd, datetime!(2026-01-01 0:00 UTC));
        assert_eq!(number.len(), 20);
        assert!(number.starts_with('9'));
        assert!(number.bytes().all(|b| b.is_ascii_digit()));
        assert_ne!(
            number,
            derive_no_certificado("EKU9003173C9", CertificateKind::Fiel, datetime!(2026-01-01 0:00 UTC))
        );
    }

    #[test]
    fn bad_options_are_refused() {
        let mut options = Options::csd("", "X", datetime!(2026-01-01 0:00 UTC), datetime!(2027-01-01 0:00 UTC));
        let key = PrivateKey::from_pem(CA_KEY_PEM, None).unwrap();
        assert!(matches!(generate_with_key(&options, &key), Err(Error::Generation(_))));
        options.rfc = "AAA010101AAA".into();
        options.no_certificado = Some("123".into());
        assert!(matches!(generate_with_key(&options, &key), Err(Error::Generation(_))));
        options.no_certificado = None;
        options.kind = CertificateKind::Other;
        assert!(matches!(generate_with_key(&options, &key), Err(Error::Generation(_))));
        options.kind = CertificateKind::Csd;
        options.not_after = options.not_before;
        assert!(matches!(generate_with_key(&options, &key), Err(Error::Generation(_))));
    }

    #[test]
    fn generated_csd_and_fiel_read_back() {
        let key = PrivateKey::from_pem(CA_KEY_PEM, None).unwrap();
        for (kind, encryption) in
            [(CertificateKind::Csd, KeyEncryption::SatTripleDes), (CertificateKind::Fiel, KeyEncryption::Aes256Cbc)]
        {
            let mut options = Options::csd(
                "IAÑL750210963",
                "LUIS IAN ÑUZCO",
                datetime!(2026-01-01 0:00 UTC),
                datetime!(2060-01-01 0:00 UTC),
            );
            options.kind = kind;
            options.key_encryption = encryption;
            options.curp = Some("IANL750210HSRNZS09".into());
            let generated = generate_with_key(&options, &key).unwrap();
            let credential = generated.credential().unwrap();
            let certificate = credential.certificate();
            assert_eq!(certificate.kind(), kind);
            assert_eq!(certificate.rfc(), "IAÑL750210963");
            assert_eq!(certificate.curp(), Some("IANL750210HSRNZS09"));
            assert_eq!(certificate.not_after(), datetime!(2060-01-01 0:00 UTC));
            assert_eq!(
                PrivateKey::from_sat_der(&generated.key_der_encrypted, b"nope").unwrap_err(),
                Error::WrongPassword
            );
        }
    }
}
