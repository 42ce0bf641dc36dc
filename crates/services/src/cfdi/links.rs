//! Signed download links for stored files: `/api/descargas/{token}` where the token carries the
//! storage path, the expiry (Unix seconds) and HMAC-SHA256 over both. Valid 3,600 s (SPEC.md
//! "Limits"); anyone holding a valid link may download, so no session is needed.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Validity of a signed link, in seconds.
pub const LINK_SECONDS: i64 = 3600;

/// The link key derived from the installation's master key.
pub fn secret(master: &super::crypto::MasterKey) -> [u8; 32] {
    master.derive("timbra download links v1")
}

/// Why a link is refused.
#[derive(Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Not a token this service made, or altered.
    Invalid,
    /// Past its expiry.
    Expired,
}

fn mac(secret: &[u8; 32], path: &str, expires: i64) -> Hmac<Sha256> {
    let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(secret) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    mac.update(path.as_bytes());
    mac.update(b"\n");
    mac.update(expires.to_string().as_bytes());
    mac
}

/// The token for `path`, valid until `expires` (Unix seconds).
pub fn sign(secret: &[u8; 32], path: &str, expires: i64) -> String {
    let signature = mac(secret, path, expires).finalize().into_bytes();
    format!("{}.{expires}.{}", URL_SAFE_NO_PAD.encode(path), URL_SAFE_NO_PAD.encode(signature))
}

/// The relative URL of a link to `path` made at `now` (Unix seconds).
pub fn url(secret: &[u8; 32], path: &str, now: i64) -> String {
    format!("/api/descargas/{}", sign(secret, path, now + LINK_SECONDS))
}

/// Where the PDF of the XML stored at `xml_path` lives (rendered on its first download).
pub fn ruta_pdf(xml_path: &str) -> String {
    format!("{}.pdf", xml_path.strip_suffix(".xml").unwrap_or(xml_path))
}

/// The signed links of a stamped document whose XML is stored at `xml_path`, as the invoice
/// listing gives them (`includeDownloadUrls=true`).
#[derive(serde::Serialize, utoipa::ToSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Enlaces {
    /// Signed link to the XML, valid [`LINK_SECONDS`].
    pub xml_download_url: String,
    /// Signed link to the PDF (rendered on its first download), valid [`LINK_SECONDS`].
    pub pdf_download_url: String,
    /// Seconds the links stay valid (3600).
    pub download_expires_in: i64,
}

impl Enlaces {
    /// The links to `xml_path` and its PDF made at `now` (Unix seconds).
    pub fn de(secret: &[u8; 32], xml_path: &str, now: i64) -> Self {
        Self {
            xml_download_url: url(secret, xml_path, now),
            pdf_download_url: url(secret, &ruta_pdf(xml_path), now),
            download_expires_in: LINK_SECONDS,
        }
    }
}

/// Checks a token at `now` and gives back the storage path (constant-time comparison).
pub fn verify(secret: &[u8; 32], token: &str, now: i64) -> Result<String, LinkError> {
    let mut parts = token.split('.');
    let (Some(path), Some(expires), Some(signature), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(LinkError::Invalid);
    };
    let path = URL_SAFE_NO_PAD.decode(path).ok().and_then(|p| String::from_utf8(p).ok()).ok_or(LinkError::Invalid)?;
    let expires: i64 = expires.parse().map_err(|_| LinkError::Invalid)?;
    let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| LinkError::Invalid)?;
    mac(secret, &path, expires).verify_slice(&signature).map_err(|_| LinkError::Invalid)?;
    if expires < now {
        return Err(LinkError::Expired);
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_verify_until_they_expire_and_not_when_altered() {
        let secret = [3u8; 32];
        let token = sign(&secret, "cfdi/e/1.xml", 1_000);
        assert_eq!(verify(&secret, &token, 999), Ok("cfdi/e/1.xml".into()));
        assert_eq!(verify(&secret, &token, 1_001), Err(LinkError::Expired));
        assert_eq!(verify(&[4u8; 32], &token, 999), Err(LinkError::Invalid));
        let longer = token.replacen(".1000.", ".9999.", 1);
        assert_eq!(verify(&secret, &longer, 999), Err(LinkError::Invalid));
        let other = format!("{}{}", URL_SAFE_NO_PAD.encode("cfdi/e/2.xml"), &token[token.find('.').unwrap()..]);
        assert_eq!(verify(&secret, &other, 999), Err(LinkError::Invalid));
        assert_eq!(verify(&secret, "garbage", 0), Err(LinkError::Invalid));
        assert!(url(&secret, "a.xml", 0).starts_with("/api/descargas/"));
    }
}
