//! Webhook endpoints: which URLs may be called, secrets and the signature.

pub mod delivery;

use std::net::IpAddr;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

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

/// Whether an address is on the public internet: not loopback, private, link-local, shared,
/// documentation, multicast or unspecified (IPv4-mapped IPv6 judged as IPv4).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                || v4.is_multicast()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0 && v4.octets()[2] == 0)
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
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
    fn private_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "2606:4700::1111"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }
}
