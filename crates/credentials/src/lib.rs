//! SAT CSD and FIEL (e.firma) credentials for CFDI 4.0.
//!
//! * [`Certificate`] reads a SAT `.cer` (DER or PEM): `NoCertificado`, RFC, CURP,
//!   legal name, validity and whether it is a CSD or a FIEL.
//! * [`PrivateKey`] decrypts a SAT `.key` (PKCS#8 PBES2) and signs RSA-SHA256
//!   (CFDI `Sello`) and RSA-SHA1 (SAT web services).
//! * [`Credential`] is a certificate with its checked matching key.
//! * [`testgen`] makes SAT-shaped test certificates and keys (sandbox, tests).
//! * [`xmldsig`] signs and verifies the XMLDSig documents of SAT's web services.
//!
//! Pure: no I/O, no logging. Errors are [`Error`].
//!
//! ```no_run
//! use timbra_credentials::Credential;
//! # fn main() -> Result<(), timbra_credentials::Error> {
//! let cer = std::fs::read("30001000000500003416.cer").unwrap_or_default();
//! let key = std::fs::read("30001000000500003416.key").unwrap_or_default();
//! let now = time::OffsetDateTime::now_utc();
//! let csd = Credential::open_csd(&cer, &key, b"12345678a", now)?;
//! let sello = csd.sign_sha256(b"||4.0|...||")?;
//! # let _ = sello;
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod certificate;
mod credential;
mod der;
mod error;
mod pem;
mod private_key;
pub mod testgen;
pub mod xmldsig;

pub use certificate::{Certificate, CertificateKind};
pub use credential::Credential;
pub use error::Error;
pub use private_key::PrivateKey;

#[cfg(test)]
mod fuzz_tests {
    use proptest::prelude::*;

    use super::{Certificate, PrivateKey};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Random bytes are an error, never a panic.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            prop_assert!(Certificate::from_bytes(&bytes).is_err());
            prop_assert!(Certificate::from_der(&bytes).is_err());
            prop_assert!(PrivateKey::from_bytes(&bytes, b"12345678a").is_err());
            prop_assert!(PrivateKey::from_sat_der(&bytes, b"12345678a").is_err());
        }

        /// Random bytes behind a DER SEQUENCE header or inside PEM armour too.
        #[test]
        fn random_structures_never_panic(body in proptest::collection::vec(any::<u8>(), 0..1500), long in any::<bool>()) {
            let mut der = vec![0x30];
            if long {
                der.extend_from_slice(&[0x82, (body.len() >> 8) as u8, body.len() as u8]);
            } else {
                der.push(0x81);
                der.push(body.len().min(255) as u8);
            }
            der.extend_from_slice(&body);
            prop_assert!(Certificate::from_bytes(&der).is_err());
            let _ = PrivateKey::from_bytes(&der, b"pw");
            let pem = crate::pem::encode("ENCRYPTED PRIVATE KEY", &der);
            let _ = PrivateKey::from_pem(&pem, Some(b"pw"));
            let pem = crate::pem::encode("CERTIFICATE", &der);
            prop_assert!(Certificate::from_pem(&pem).is_err());
        }

        /// Arbitrary text is an error, never a panic.
        #[test]
        fn random_text_never_panics(text in ".{0,300}") {
            prop_assert!(Certificate::from_pem(&text).is_err());
            let _ = PrivateKey::from_pem(&text, None);
            let _ = Certificate::from_base64(&text);
            prop_assert!(crate::xmldsig::verify(&text).is_err());
        }

        /// XML-looking noise is an error, never a panic.
        #[test]
        fn random_xml_never_panics(parts in proptest::collection::vec(
            prop_oneof![
                Just("<Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\">"), Just("</Signature>"),
                Just("<SignedInfo>"), Just("</SignedInfo>"), Just("<Reference URI=\"\">"), Just("</Reference>"),
                Just("<a x=\"1\">"), Just("</a>"), Just("<b/>"), Just("&amp;"), Just("&#x41;"), Just("text"),
                Just("<![CDATA[x]]>"), Just("<!-- c -->"), Just("<p:q xmlns:p=\"urn:p\">"), Just("</p:q>"),
            ],
            0..40,
        )) {
            let xml: String = parts.concat();
            let _ = crate::xmldsig::verify(&xml);
            let _ = crate::xmldsig::canonicalize_document(&xml, crate::xmldsig::C14n::Exclusive);
        }
    }
}
