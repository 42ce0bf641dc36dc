//! Passwords (argon2id), random tokens and their SHA-256 digests.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::error::FieldProblem;

/// Every API key starts with this, so secret scanners and people recognise it.
pub const API_KEY_PREFIX: &str = "tmb_sk_";
/// Characters of a key shown in listings (`keyPrefix`): the fixed prefix and 8 more.
pub const KEY_PREFIX_SHOWN: usize = API_KEY_PREFIX.len() + 8;

/// Hashes a password with argon2id and a random salt (PHC string).
pub fn hash_password(password: &str) -> Result<String, argon2::password_hash::Error> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt)?;
    Ok(Argon2::default().hash_password(password.as_bytes(), &salt)?.to_string())
}

/// Checks a password against a stored PHC hash. Any malformed hash is a mismatch.
pub fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A hash to verify against when the email is unknown, so a wrong email costs the same time as
/// a wrong password and the answer does not tell which one was wrong.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash_password("timbra-dummy-password").unwrap_or_default())
}

/// The registration rules of SPEC.md: at least 8 characters with an uppercase letter, a digit
/// and a special character.
pub fn password_problems(field: &str, password: &str) -> Option<FieldProblem> {
    let long_enough = password.chars().count() >= 8;
    let upper = password.chars().any(char::is_uppercase);
    let digit = password.chars().any(|c| c.is_ascii_digit());
    let special = password.chars().any(|c| !c.is_alphanumeric() && !c.is_whitespace());
    if long_enough && upper && digit && special {
        return None;
    }
    Some(FieldProblem::new(
        field,
        "password needs at least 8 characters, with at least one uppercase letter, one digit and one special character",
    ))
}

/// 32 random bytes, URL-safe base64 without padding (43 characters).
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A new API key: the fixed prefix and 32 random bytes.
pub fn new_api_key() -> String {
    format!("{API_KEY_PREFIX}{}", random_token())
}

/// Lowercase hex SHA-256, the form in which keys and session tokens are stored and looked up.
pub fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_rules() {
        assert!(password_problems("password", "Secreto1!").is_none());
        assert!(password_problems("password", "Contraseña9#").is_none());
        for weak in ["short1!", "alllower1!", "NoDigits!!", "NoSpecial12", ""] {
            assert!(password_problems("password", weak).is_some(), "{weak} accepted");
        }
    }

    #[test]
    fn hashes_verify_only_their_password() {
        let hash = hash_password("Secreto1!").unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("Secreto1!", &hash));
        assert!(!verify_password("Secreto1?", &hash));
        assert!(!verify_password("Secreto1!", "not a hash"));
    }

    #[test]
    fn keys_have_the_prefix_and_enough_entropy() {
        let key = new_api_key();
        assert!(key.starts_with(API_KEY_PREFIX));
        assert_eq!(key.len(), API_KEY_PREFIX.len() + 43);
        assert_ne!(key, new_api_key());
        assert_eq!(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
