//! The network side of webhooks that needs no application context: which addresses are
//! public, and the HTTP client every delivery uses (built once, held in the context).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use crate::config::WebhookConfig;

/// The client every delivery uses: the configured timeout, no redirects and, unless private
/// targets are allowed, a resolver that drops non-public addresses (so a name that changes to a
/// private address after registration is still refused).
pub fn client(config: &WebhookConfig) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .timeout(config.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("timbra-webhooks/", env!("CARGO_PKG_VERSION")))
        .pool_max_idle_per_host(256);
    if !config.allow_private {
        builder = builder.dns_resolver(Arc::new(PublicOnly));
    }
    builder.build().unwrap_or_else(|error| {
        tracing::error!(error.message = %error, "webhook client configuration failed; using defaults");
        reqwest::Client::new()
    })
}

struct PublicOnly;

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public: Vec<SocketAddr> = found.into_iter().filter(|address| is_public(address.ip())).collect();
            if public.is_empty() {
                return Err(format!("{host} resolves to no public address").into());
            }
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Whether an address is on the public internet. Refused: loopback, private, link-local,
/// shared (100.64/10), benchmarking (198.18/15), documentation, multicast, reserved and
/// unspecified IPv4; and IPv6 loopback, unspecified, multicast, unique-local, link-local,
/// site-local (fec0::/10), discard (100::/64), documentation (2001:db8::/32), Teredo
/// (2001::/32, whose embedded address cannot be judged) and local NAT64 (64:ff9b:1::/48).
/// IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
/// `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
/// are judged by that IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if v6.is_loopback() || v6.is_unspecified() || v6.is_multicast() {
                return false;
            }
            if let Some(v4) = embedded_ipv4(v6) {
                return is_public_v4(v4);
            }
            let segments = v6.segments();
            let first = segments[0];
            !((first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || (first & 0xffc0) == 0xfec0
                || (segments[..4] == [0x0100, 0, 0, 0])
                || (first == 0x2001 && segments[1] == 0x0db8)
                || (first == 0x2001 && segments[1] == 0)
                || (first == 0x0064 && segments[1] == 0xff9b && segments[2] == 1))
        }
    }
}

fn is_public_v4(v4: std::net::Ipv4Addr) -> bool {
    let [a, b, c, _] = v4.octets();
    !(v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_documentation()
        || v4.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 198 && (b == 18 || b == 19))
        || (a == 192 && b == 0 && c == 0)
        || a >= 240)
}

/// The IPv4 address an IPv6 address carries, in the forms that route to it.
fn embedded_ipv4(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    let s = v6.segments();
    let low = |high: u16, low: u16| std::net::Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match s {
        // IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d.
        [0, 0, 0, 0, 0, 0xffff, high, low_half] | [0, 0, 0, 0, 0xffff, 0, high, low_half] => Some(low(high, low_half)),
        // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks).
        [0, 0, 0, 0, 0, 0, high, low_half] => Some(low(high, low_half)),
        // NAT64 well-known prefix 64:ff9b::/96.
        [0x0064, 0xff9b, 0, 0, 0, 0, high, low_half] => Some(low(high, low_half)),
        // 6to4 2002:a.b.c.d::/48.
        [0x2002, high, low_half, ..] => Some(low(high, low_half)),
        _ => None,
    }
}
