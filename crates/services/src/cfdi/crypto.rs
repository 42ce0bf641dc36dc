//! Secrets at rest: the installation's master key and AES-256-GCM sealing of CSD keys and
//! passwords (DESIGN.md "Secrets at rest"), and the HMAC key of signed download links, which
//! is derived from the master key so one secret protects both.

use std::io::Write;
use std::path::Path;

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// File in the data dir that holds the generated master key (base64, mode 0600).
pub const MASTER_KEY_FILE: &str = "master.key";

/// The 32-byte master key.
#[derive(Clone)]
pub struct MasterKey([u8; 32]);

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterKey(..)")
    }
}

impl MasterKey {
    /// Parses `TIMBRA_MASTER_KEY`: base64 of exactly 32 bytes.
    pub fn from_base64(text: &str) -> Result<Self, String> {
        let bytes = STANDARD.decode(text.trim()).map_err(|_| "TIMBRA_MASTER_KEY is not base64".to_owned())?;
        let key: [u8; 32] =
            bytes.try_into().map_err(|_| "TIMBRA_MASTER_KEY must be the base64 of exactly 32 bytes".to_owned())?;
        Ok(Self(key))
    }

    /// The configured key, or the one generated once into `data_dir/master.key` (created with
    /// mode 0600 on first use; later starts read it back).
    pub fn load(configured: Option<&str>, data_dir: &Path) -> Result<Self, String> {
        if let Some(text) = configured.filter(|t| !t.trim().is_empty()) {
            return Self::from_base64(text);
        }
        let path = data_dir.join(MASTER_KEY_FILE);
        if let Ok(text) = std::fs::read_to_string(&path) {
            return Self::from_base64(&text);
        }
        crate::private_fs::create_dir(data_dir).map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&path) {
            Ok(mut file) => {
                file.write_all(STANDARD.encode(key).as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                Ok(Self(key))
            }
            // Another process created it first: use theirs.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                let text =
                    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Self::from_base64(&text)
            }
            Err(error) => Err(format!("cannot create {}: {error}", path.display())),
        }
    }

    /// AES-256-GCM: `nonce (12 bytes) || ciphertext || tag`, with `context` as associated data
    /// so a sealed value cannot be moved to another row or column.
    pub fn seal(&self, plaintext: &[u8], context: &str) -> Result<Vec<u8>, String> {
        let key = self.aead()?;
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let mut buffer = plaintext.to_vec();
        key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(context.as_bytes()), &mut buffer)
            .map_err(|_| "encryption failed".to_owned())?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&buffer);
        Ok(out)
    }

    /// Reverses [`MasterKey::seal`]; fails on another key, another context or tampering.
    pub fn open(&self, sealed: &[u8], context: &str) -> Result<Vec<u8>, String> {
        if sealed.len() < NONCE_LEN {
            return Err("sealed value too short".into());
        }
        let (nonce, rest) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| "bad nonce".to_owned())?;
        let mut buffer = rest.to_vec();
        let plain = self
            .aead()?
            .open_in_place(nonce, Aad::from(context.as_bytes()), &mut buffer)
            .map_err(|_| "cannot decrypt: wrong master key or tampered value".to_owned())?;
        Ok(plain.to_vec())
    }

    /// A sub-key for another purpose (HMAC-SHA256 of the purpose under the master key).
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(&self.0) {
            Ok(mac) => mac,
            Err(_) => unreachable!("HMAC takes keys of any length"),
        };
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    fn aead(&self) -> Result<LessSafeKey, String> {
        let unbound = UnboundKey::new(&AES_256_GCM, &self.0).map_err(|_| "bad master key".to_owned())?;
        Ok(LessSafeKey::new(unbound))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_context() {
        let key = MasterKey([7; 32]);
        let sealed = key.seal(b"12345678a", "cert-1/password").unwrap();
        assert_eq!(key.open(&sealed, "cert-1/password").unwrap(), b"12345678a");
        assert!(key.open(&sealed, "cert-2/password").is_err());
        assert!(MasterKey([8; 32]).open(&sealed, "cert-1/password").is_err());
        let mut tampered = sealed.clone();
        tampered[20] ^= 1;
        assert!(key.open(&tampered, "cert-1/password").is_err());
    }

    #[test]
    fn generated_key_is_kept_with_mode_0600() {
        let dir = std::env::temp_dir().join(format!("timbra-mk-{}", uuid::Uuid::new_v4()));
        let first = MasterKey::load(None, &dir).unwrap();
        let second = MasterKey::load(None, &dir).unwrap();
        assert_eq!(first.0, second.0);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(MASTER_KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(MasterKey::from_base64("c2hvcnQ=").is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
