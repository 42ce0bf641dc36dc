//! Webhook endpoints: which URLs may be called, secrets and the signature.

pub mod delivery;
pub mod endpoints;
pub mod red;

pub use red::is_public;

use std::net::IpAddr;
use std::time::Duration;
use timbra_store::ids::WebhookId;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::cfdi::crypto::MasterKey;
use crate::context::AppContext;

/// The signature header: `sha256=` and the lowercase hex HMAC-SHA-256 of the raw body, keyed
/// with the webhook secret (its UTF-8 bytes, `whsec_` prefix included).
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mac) => mac,
        // HMAC takes keys of any length; this branch cannot run.
        Err(_) => return String::new(),
    };
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// A new webhook secret: `whsec_` and 32 random bytes.
pub fn new_secret() -> String {
    format!("whsec_{}", crate::auth::secrets::random_token())
}

/// How a sealed secret starts in the `webhooks.secret` column; rows written before secrets were
/// encrypted hold the clear `whsec_...` and are still read (and sealed by [`seal_stored_secrets`]).
const SEALED_PREFIX: &str = "enc:v1:";

/// The webhook secret as stored: AES-256-GCM under the master key (like CSD keys), bound to
/// the webhook's id, base64 after [`SEALED_PREFIX`].
pub fn seal_secret(master: &MasterKey, webhook_id: &WebhookId, secret: &str) -> Result<String, String> {
    let sealed = master.seal(secret.as_bytes(), &format!("webhooks/{webhook_id}/secret"))?;
    Ok(format!("{SEALED_PREFIX}{}", STANDARD.encode(sealed)))
}

/// The clear secret of a stored value: sealed ones are opened, older clear ones pass through.
pub fn open_secret(master: &MasterKey, webhook_id: &WebhookId, stored: &str) -> Result<String, String> {
    let Some(encoded) = stored.strip_prefix(SEALED_PREFIX) else { return Ok(stored.to_owned()) };
    let sealed = STANDARD.decode(encoded).map_err(|_| "stored webhook secret is not base64".to_owned())?;
    let clear = master.open(&sealed, &format!("webhooks/{webhook_id}/secret"))?;
    String::from_utf8(clear).map_err(|_| "stored webhook secret is not UTF-8".to_owned())
}

/// Seals the secrets that rows written before encryption still hold in clear. Run at start;
/// each row is updated only if it still holds the same clear value.
pub async fn seal_stored_secrets(app: &AppContext) -> anyhow::Result<u64> {
    let master = app.cfdi.master().map_err(|error| anyhow::anyhow!("master key: {}", error.message))?;
    let mut conn = app.db.conn().await?;
    let clear = timbra_store::webhooks::secrets_in_clear(&mut conn).await?;
    let mut sealed = 0;
    for (id, secret) in clear {
        let stored = seal_secret(master, &WebhookId::from(&id), &secret).map_err(anyhow::Error::msg)?;
        sealed += timbra_store::webhooks::seal_secret(&mut conn, &id, &secret, &stored).await?;
    }
    Ok(sealed)
}

/// Checks a webhook URL: http or https with a host, at most 2,000 characters and, unless
/// `allow_private`, resolving only to public addresses. The message says what to fix.
pub async fn check_url(raw: &str, allow_private: bool) -> Result<reqwest::Url, String> {
    let raw = raw.trim();
    if raw.is_empty() || raw.len() > 2000 {
        return Err("url is required, at most 2000 characters".into());
    }
    let url = reqwest::Url::parse(raw).map_err(|error| format!("url is not a valid URL: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("url must start with https:// (or http://)".into());
    }
    let Some(host) = url.host_str().filter(|host| !host.is_empty()) else {
        return Err("url must name a host".into());
    };
    if allow_private {
        return Ok(url);
    }
    let host = host.trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = url.port_or_known_default().unwrap_or(443);
    let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => {
            let lookup =
                tokio::time::timeout(Duration::from_secs(5), tokio::net::lookup_host((host.as_str(), port))).await;
            match lookup {
                Ok(Ok(found)) => found.map(|address| address.ip()).collect(),
                _ => return Err(format!("url host {host} does not resolve")),
            }
        }
    };
    if addresses.is_empty() {
        return Err(format!("url host {host} does not resolve"));
    }
    if let Some(private) = addresses.iter().find(|ip| !is_public(**ip)) {
        return Err(format!(
            "url resolves to {private}, a loopback, private or link-local address; webhooks only call public addresses"
        ));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hex_hmac_sha256_of_the_body() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn secrets_are_sealed_to_their_webhook_and_clear_ones_still_read() {
        let master = MasterKey::from_base64(&STANDARD.encode([9u8; 32])).unwrap();
        let stored = seal_secret(&master, &WebhookId::from("w1"), "whsec_abc").unwrap();
        assert!(stored.starts_with(SEALED_PREFIX) && !stored.contains("whsec_abc"));
        assert_eq!(open_secret(&master, &WebhookId::from("w1"), &stored).unwrap(), "whsec_abc");
        assert!(open_secret(&master, &WebhookId::from("w2"), &stored).is_err());
        assert_eq!(open_secret(&master, &WebhookId::from("w1"), "whsec_legacy").unwrap(), "whsec_legacy");
    }

    #[test]
    fn private_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "198.18.0.1",
            "198.19.255.254",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "fec0::1",
            "feff::1",
            "100::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "::10.0.0.1",
            "::ffff:0:7f00:1",
            "::ffff:0:a9fe:a9fe",
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b:1::1",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "2002:a9fe:a9fe::1",
            "2001:db8::1",
            "2001:0:4136:e378::1",
            "ff02::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "198.20.0.1", "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"]
        {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }
}
