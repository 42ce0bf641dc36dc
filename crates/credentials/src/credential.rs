//! A certificate with its matching private key.

use time::OffsetDateTime;

use crate::{Certificate, CertificateKind, Error, PrivateKey};

/// A certificate together with the private key that belongs to it.
///
/// Built only through a pair check, so every signature it makes verifies with
/// its certificate.
#[derive(Debug)]
pub struct Credential {
    certificate: Certificate,
    key: PrivateKey,
}

impl Credential {
    /// Pairs `certificate` with `key`.
    ///
    /// # Errors
    /// [`Error::PairMismatch`] if the key's public half is not the certificate's.
    pub fn new(certificate: Certificate, key: PrivateKey) -> Result<Self, Error> {
        if !key.matches_public_key(certificate.rsa_modulus(), certificate.rsa_exponent()) {
            return Err(Error::PairMismatch);
        }
        Ok(Credential { certificate, key })
    }

    /// Reads a `.cer` (DER/PEM) and a `.key` (SAT DER or PEM) with its password
    /// and pairs them. No kind or validity check; see [`Credential::open_csd`]
    /// and [`Credential::open_fiel`].
    ///
    /// # Errors
    /// Certificate errors, then key errors ([`Error::WrongPassword`], ...), then
    /// [`Error::PairMismatch`].
    pub fn open(cer: &[u8], key: &[u8], password: &[u8]) -> Result<Self, Error> {
        let certificate = Certificate::from_bytes(cer)?;
        let key = PrivateKey::from_bytes(key, password)?;
        Self::new(certificate, key)
    }

    /// Opens a CSD for sealing CFDI or signing cancellations: checks, in this
    /// order, the certificate, that it is a CSD, that it is valid at `at`, the
    /// key and password, and the pair.
    ///
    /// # Errors
    /// [`Error::ExpectedCsd`], [`Error::Expired`], [`Error::NotYetValid`], and
    /// those of [`Credential::open`].
    pub fn open_csd(cer: &[u8], key: &[u8], password: &[u8], at: OffsetDateTime) -> Result<Self, Error> {
        Self::open_checked(cer, key, password, at, CertificateKind::Csd)
    }

    /// Opens a FIEL (e.firma) for SAT web services; the checks of
    /// [`Credential::open_csd`] with FIEL in place of CSD.
    ///
    /// # Errors
    /// [`Error::ExpectedFiel`], [`Error::Expired`], [`Error::NotYetValid`], and
    /// those of [`Credential::open`].
    pub fn open_fiel(cer: &[u8], key: &[u8], password: &[u8], at: OffsetDateTime) -> Result<Self, Error> {
        Self::open_checked(cer, key, password, at, CertificateKind::Fiel)
    }

    fn open_checked(
        cer: &[u8],
        key: &[u8],
        password: &[u8],
        at: OffsetDateTime,
        wanted: CertificateKind,
    ) -> Result<Self, Error> {
        let certificate = Certificate::from_bytes(cer)?;
        let found = certificate.kind();
        match wanted {
            CertificateKind::Csd if found != CertificateKind::Csd => {
                return Err(Error::ExpectedCsd { found });
            }
            CertificateKind::Fiel if found != CertificateKind::Fiel => {
                return Err(Error::ExpectedFiel { found });
            }
            _ => {}
        }
        certificate.check_valid_at(at)?;
        let key = PrivateKey::from_bytes(key, password)?;
        Self::new(certificate, key)
    }

    /// The certificate.
    pub fn certificate(&self) -> &Certificate {
        &self.certificate
    }

    /// The private key.
    pub fn private_key(&self) -> &PrivateKey {
        &self.key
    }

    /// RSA-SHA256 (PKCS#1 v1.5) over `message`: the CFDI `Sello` before base64.
    ///
    /// # Errors
    /// [`Error::SigningFailed`].
    pub fn sign_sha256(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.key.sign_sha256(message)
    }

    /// RSA-SHA1 (PKCS#1 v1.5) over `message`, for SAT's XMLDSig.
    ///
    /// # Errors
    /// [`Error::SigningFailed`].
    pub fn sign_sha1(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.key.sign_sha1(message)
    }

    /// Splits the credential into its parts.
    pub fn into_parts(self) -> (Certificate, PrivateKey) {
        (self.certificate, self.key)
    }
}
