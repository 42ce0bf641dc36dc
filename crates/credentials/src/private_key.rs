//! SAT private keys (`.key`) and RSA signing.

use std::fmt;

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der};
use aws_lc_rs::rsa::KeyPair;
use aws_lc_rs::signature::{self, KeyPair as _};
use crypto_bigint::modular::{BoxedMontyForm, BoxedMontyParams};
use crypto_bigint::{BoxedUint, Odd};
use pkcs8::der::Decode as _;
use pkcs8::pkcs5::{self, pbes2};
use pkcs8::{EncryptedPrivateKeyInfoRef, PrivateKeyInfoRef};

use crate::Error;
use crate::der::{self, tag};
use crate::pem;

/// PBKDF2 iteration ceiling: SAT uses 2,048 and OpenSSL's default is 2,048;
/// anything far above is refused so a hostile upload cannot burn CPU for minutes.
const MAX_PBKDF2_ITERATIONS: u32 = 2_000_000;

const OID_RSA_ENCRYPTION: &str = "1.2.840.113549.1.1.1";

/// DER prefix of a PKCS#1 v1.5 `DigestInfo` for SHA-1 (RFC 8017 §9.2 note 1).
const SHA1_DIGEST_INFO_PREFIX: [u8; 15] =
    [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14];

/// A decrypted RSA private key, parsed once and ready to sign.
///
/// Its `Debug` output shows only the key size and the start of the public
/// modulus, never private material.
pub struct PrivateKey {
    key_pair: KeyPair,
    modulus: Vec<u8>,
    exponent: Vec<u8>,
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix: String = self.modulus.iter().take(6).map(|b| format!("{b:02x}")).collect();
        formatter
            .debug_struct("PrivateKey")
            .field("bits", &(self.modulus.len() * 8))
            .field("modulus_prefix", &prefix)
            .finish_non_exhaustive()
    }
}

impl PrivateKey {
    /// Reads a SAT `.key`: DER PKCS#8 `EncryptedPrivateKeyInfo` (PBES2 with
    /// PBKDF2 and DES-EDE3-CBC or AES-CBC). An unencrypted DER PKCS#8 or PKCS#1
    /// key is accepted too, and then `password` is ignored.
    ///
    /// # Errors
    /// [`Error::WrongPassword`], [`Error::NotAKey`], [`Error::UnsupportedKey`].
    pub fn from_sat_der(der_bytes: &[u8], password: &[u8]) -> Result<Self, Error> {
        if let Ok(encrypted) = EncryptedPrivateKeyInfoRef::from_der(der_bytes) {
            return Self::from_encrypted(&encrypted, password);
        }
        Self::from_plain_der(der_bytes)
    }

    /// Reads a PEM key: `ENCRYPTED PRIVATE KEY` (needs `password`), `PRIVATE KEY`
    /// (PKCS#8) or `RSA PRIVATE KEY` (PKCS#1, unencrypted).
    ///
    /// # Errors
    /// [`Error::WrongPassword`] (also when the key is encrypted and `password`
    /// is `None`), [`Error::NotAKey`], [`Error::UnsupportedKey`].
    pub fn from_pem(pem_text: &str, password: Option<&[u8]>) -> Result<Self, Error> {
        let (label, der_bytes) = pem::decode(pem_text).map_err(Error::NotAKey)?;
        match label.as_str() {
            "ENCRYPTED PRIVATE KEY" => {
                let encrypted = EncryptedPrivateKeyInfoRef::from_der(&der_bytes)
                    .map_err(|error| Error::NotAKey(error.to_string()))?;
                Self::from_encrypted(&encrypted, password.ok_or(Error::WrongPassword)?)
            }
            "PRIVATE KEY" | "RSA PRIVATE KEY" => Self::from_plain_der(&der_bytes),
            other => Err(Error::NotAKey(format!("PEM label {other:?} is not a private key"))),
        }
    }

    /// Reads a key given as DER or PEM (sniffed); see [`PrivateKey::from_sat_der`]
    /// and [`PrivateKey::from_pem`].
    ///
    /// # Errors
    /// As those functions.
    pub fn from_bytes(bytes: &[u8], password: &[u8]) -> Result<Self, Error> {
        if bytes.first() == Some(&tag::SEQUENCE) {
            return Self::from_sat_der(bytes, password);
        }
        match std::str::from_utf8(bytes) {
            Ok(text) if text.contains("-----BEGIN") => Self::from_pem(text, Some(password)),
            _ => Err(Error::NotAKey("neither DER nor PEM".into())),
        }
    }

    /// Wraps an aws-lc-rs key pair (used by the test generator).
    pub(crate) fn from_key_pair(key_pair: KeyPair) -> Self {
        let public_key = key_pair.public_key();
        let modulus = public_key.modulus().big_endian_without_leading_zero().to_vec();
        let exponent = public_key.exponent().big_endian_without_leading_zero().to_vec();
        PrivateKey { key_pair, modulus, exponent }
    }

    fn from_encrypted(encrypted: &EncryptedPrivateKeyInfoRef<'_>, password: &[u8]) -> Result<Self, Error> {
        match &encrypted.encryption_algorithm {
            pkcs5::EncryptionScheme::Pbes2(parameters) => match &parameters.kdf {
                pbes2::Kdf::Pbkdf2(pbkdf2) if pbkdf2.iteration_count > MAX_PBKDF2_ITERATIONS => {
                    return Err(Error::UnsupportedKey(format!(
                        "PBKDF2 iteration count {} above {MAX_PBKDF2_ITERATIONS}",
                        pbkdf2.iteration_count
                    )));
                }
                pbes2::Kdf::Pbkdf2(_) => {}
                _ => {
                    return Err(Error::UnsupportedKey("key derivation other than PBKDF2 (e.g. scrypt)".into()));
                }
            },
            _ => {
                return Err(Error::UnsupportedKey("encryption other than PBES2".into()));
            }
        }
        let decrypted = encrypted.decrypt(password).map_err(|error| match error {
            // CBC padding did not check out: the derived key is wrong.
            pkcs8::Error::EncryptedPrivateKey(pkcs5::Error::DecryptFailed) => Error::WrongPassword,
            // Padding happened to look valid but the plaintext is not DER.
            pkcs8::Error::Asn1(_) => Error::WrongPassword,
            other => Error::UnsupportedKey(other.to_string()),
        })?;
        // About 1 in 256 wrong passwords leave valid-looking padding; the
        // plaintext then is not a PKCS#8 structure.
        let info = PrivateKeyInfoRef::try_from(decrypted.as_bytes()).map_err(|_| Error::WrongPassword)?;
        Self::from_private_key_info(&info, decrypted.as_bytes())
    }

    fn from_plain_der(der_bytes: &[u8]) -> Result<Self, Error> {
        if let Ok(info) = PrivateKeyInfoRef::try_from(der_bytes) {
            return Self::from_private_key_info(&info, der_bytes);
        }
        KeyPair::from_der(der_bytes)
            .map(Self::from_key_pair)
            .map_err(|_| Error::NotAKey("not PKCS#8 nor a PKCS#1 RSA key".into()))
    }

    fn from_private_key_info(info: &PrivateKeyInfoRef<'_>, der_bytes: &[u8]) -> Result<Self, Error> {
        if info.algorithm.oid.to_string() != OID_RSA_ENCRYPTION {
            return Err(Error::UnsupportedKey(format!("key algorithm {} is not RSA", info.algorithm.oid)));
        }
        KeyPair::from_pkcs8(der_bytes)
            .map(Self::from_key_pair)
            .map_err(|error| Error::UnsupportedKey(format!("RSA key rejected: {error}")))
    }

    /// The RSA modulus, big-endian without leading zeros.
    pub fn rsa_modulus(&self) -> &[u8] {
        &self.modulus
    }

    /// The RSA public exponent, big-endian without leading zeros.
    pub fn rsa_exponent(&self) -> &[u8] {
        &self.exponent
    }

    /// Signature length in bytes (the modulus length).
    pub fn signature_len(&self) -> usize {
        self.key_pair.public_modulus_len()
    }

    /// RSA PKCS#1 v1.5 with SHA-256 over `message` (the CFDI `Sello` before base64).
    ///
    /// # Errors
    /// [`Error::SigningFailed`] if the cryptographic library fails.
    pub fn sign_sha256(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let mut signature_bytes = vec![0u8; self.key_pair.public_modulus_len()];
        // PKCS#1 v1.5 is deterministic; aws-lc-rs ignores the RNG argument.
        let rng = aws_lc_rs::rand::SystemRandom::new();
        self.key_pair
            .sign(&signature::RSA_PKCS1_SHA256, &rng, message, &mut signature_bytes)
            .map_err(|_| Error::SigningFailed)?;
        Ok(signature_bytes)
    }

    /// RSA PKCS#1 v1.5 with SHA-1 over `message`, as SAT's web services require
    /// for XMLDSig (`rsa-sha1`).
    ///
    /// aws-lc-rs does not sign with SHA-1, so this does the private-key operation
    /// with crypto-bigint's constant-time modular exponentiation (no CRT, a few
    /// milliseconds) and checks the result with aws-lc-rs before returning it.
    ///
    /// # Errors
    /// [`Error::SigningFailed`].
    pub fn sign_sha1(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let modulus_len = self.key_pair.public_modulus_len();
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, message);
        // EMSA-PKCS1-v1_5 (RFC 8017 §9.2): 00 01 FF..FF 00 DigestInfo.
        let digest_info_len = SHA1_DIGEST_INFO_PREFIX.len() + digest.as_ref().len();
        if modulus_len < digest_info_len + 11 {
            return Err(Error::SigningFailed);
        }
        let mut encoded = vec![0xffu8; modulus_len];
        encoded[0] = 0x00;
        encoded[1] = 0x01;
        let separator = modulus_len - digest_info_len - 1;
        encoded[separator] = 0x00;
        encoded[separator + 1..separator + 1 + SHA1_DIGEST_INFO_PREFIX.len()].copy_from_slice(&SHA1_DIGEST_INFO_PREFIX);
        encoded[modulus_len - digest.as_ref().len()..].copy_from_slice(digest.as_ref());

        let pkcs8: Pkcs8V1Der<'static> = self.key_pair.as_der().map_err(|_| Error::SigningFailed)?;
        let private_exponent = private_exponent(pkcs8.as_ref()).ok_or(Error::SigningFailed)?;

        let bits = u32::try_from(modulus_len * 8).map_err(|_| Error::SigningFailed)?;
        let modulus = BoxedUint::from_be_slice(&self.modulus, bits).map_err(|_| Error::SigningFailed)?;
        let modulus = Option::<Odd<BoxedUint>>::from(Odd::new(modulus)).ok_or(Error::SigningFailed)?;
        let params = BoxedMontyParams::new(modulus);
        let exponent = BoxedUint::from_be_slice(&private_exponent, bits).map_err(|_| Error::SigningFailed)?;
        let base = BoxedUint::from_be_slice(&encoded, bits).map_err(|_| Error::SigningFailed)?;
        let result = BoxedMontyForm::new(base, &params).pow(&exponent).retrieve();
        let bytes = result.to_be_bytes();
        // to_be_bytes pads to whole limbs; keep the low modulus_len bytes.
        let signature_bytes = bytes[bytes.len().saturating_sub(modulus_len)..].to_vec();

        // Fault and bug guard: never hand out a signature that does not verify.
        let public_key = self.key_pair.public_key();
        signature::UnparsedPublicKey::new(
            &signature::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
            public_key.as_ref(),
        )
        .verify(message, &signature_bytes)
        .map_err(|_| Error::SigningFailed)?;
        Ok(signature_bytes)
    }

    /// The key as unencrypted DER PKCS#8, for the server to encrypt at rest.
    /// Treat the result as secret.
    pub fn to_pkcs8_der(&self) -> Vec<u8> {
        match self.key_pair.as_der() {
            Ok(der_bytes) => der_bytes.as_ref().to_vec(),
            // aws-lc-rs serializes any key it accepted; an empty result would fail
            // loudly at the next parse rather than leak anything.
            Err(_) => Vec::new(),
        }
    }

    /// The aws-lc-rs public key.
    pub(crate) fn public_key(&self) -> &aws_lc_rs::rsa::PublicKey {
        self.key_pair.public_key()
    }

    /// Whether this key's public half is the given RSA public key.
    pub(crate) fn matches_public_key(&self, modulus: &[u8], exponent: &[u8]) -> bool {
        self.modulus == modulus && self.exponent == exponent
    }
}

/// `privateExponent` from a PKCS#8 RSA key (RFC 8017 A.1.2).
fn private_exponent(pkcs8_der: &[u8]) -> Option<Vec<u8>> {
    let info = PrivateKeyInfoRef::try_from(pkcs8_der).ok()?;
    let (body, _) = der::expect(info.private_key.as_bytes(), tag::SEQUENCE)?;
    let (_version, rest) = der::expect(body, tag::INTEGER)?;
    let (_modulus, rest) = der::expect(rest, tag::INTEGER)?;
    let (_public_exponent, rest) = der::expect(rest, tag::INTEGER)?;
    let (private_exponent, _) = der::expect(rest, tag::INTEGER)?;
    Some(der::unsigned_magnitude(private_exponent).to_vec())
}
