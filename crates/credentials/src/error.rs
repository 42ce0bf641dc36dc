//! The one error type of this crate.

use time::OffsetDateTime;

use crate::CertificateKind;

/// Everything that can go wrong while reading, checking or using a CSD or FIEL.
///
/// Messages never contain key material or passwords.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The bytes are not an X.509 certificate (neither DER nor PEM `CERTIFICATE`).
    #[error("not an X.509 certificate: {0}")]
    NotACertificate(String),

    /// An X.509 certificate, but not one shaped like SAT's: the serial is not the
    /// 20-digit certificate number, the subject has no RFC in `x500UniqueIdentifier`,
    /// or the key is not RSA.
    #[error("not a SAT certificate: {0}")]
    NotSatCertificate(String),

    /// The bytes are not a private key in any accepted form (DER or PEM PKCS#8,
    /// encrypted or not, or PEM PKCS#1).
    #[error("not a private key: {0}")]
    NotAKey(String),

    /// The key is encrypted and the password is missing or does not decrypt it.
    #[error("wrong password for the private key")]
    WrongPassword,

    /// A well-formed key that this crate does not handle: not RSA, an unknown
    /// PBES2 cipher or KDF, or KDF parameters beyond the safety limits.
    #[error("unsupported private key: {0}")]
    UnsupportedKey(String),

    /// The private key does not belong to the certificate.
    #[error("the private key does not match the certificate")]
    PairMismatch,

    /// The certificate was no longer valid at the time checked.
    #[error("certificate expired on {not_after}")]
    Expired {
        /// End of the certificate's validity.
        not_after: OffsetDateTime,
    },

    /// The certificate was not yet valid at the time checked.
    #[error("certificate not valid before {not_before}")]
    NotYetValid {
        /// Start of the certificate's validity.
        not_before: OffsetDateTime,
    },

    /// A CSD was required (to seal CFDI or sign a cancellation) but another kind
    /// of certificate was given, typically a FIEL.
    #[error("a CSD is required, got a {found} certificate")]
    ExpectedCsd {
        /// The kind that was given.
        found: CertificateKind,
    },

    /// A FIEL (e.firma) was required (SAT web services) but another kind of
    /// certificate was given, typically a CSD.
    #[error("a FIEL (e.firma) is required, got a {found} certificate")]
    ExpectedFiel {
        /// The kind that was given.
        found: CertificateKind,
    },

    /// A signature did not verify.
    #[error("invalid signature")]
    InvalidSignature,

    /// The cryptographic library failed to sign (should not happen with a valid key).
    #[error("signing failed")]
    SigningFailed,

    /// Test certificate generation failed (bad options or a library failure).
    #[error("certificate generation failed: {0}")]
    Generation(String),

    /// An XML document to sign or verify is malformed or outside what the
    /// XMLDSig module supports.
    #[error("XML signature error: {0}")]
    Xml(String),

    /// An XMLDSig reference digest does not match the referenced content.
    #[error("XML signature digest mismatch")]
    DigestMismatch,
}
