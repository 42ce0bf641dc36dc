//! Request rate limits: a GCRA token bucket per API key or session, and per IP for requests
//! without credentials. Over the limit answers 429 RATE_001 with `Retry-After`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::RateLimitConfig;

/// The limiter: theoretical arrival times per bucket key.
pub struct RateLimiter {
    config: RateLimitConfig,
    buckets: Mutex<HashMap<[u8; 32], Instant>>,
}

/// Which bucket a request draws from.
pub enum Bucket<'a> {
    /// A credential (API key or session token): the generous limit.
    Credential(&'a str),
    /// An unauthenticated client address.
    Ip(std::net::IpAddr),
}

impl RateLimiter {
    /// A limiter with these thresholds.
    pub fn new(config: RateLimitConfig) -> Self {
        Self { config, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request from the bucket; `Err(wait)` when it is empty.
    pub fn check(&self, bucket: Bucket<'_>) -> Result<(), Duration> {
        if !self.config.enabled {
            return Ok(());
        }
        use sha2::Digest;
        let (key, per_second, burst) = match bucket {
            Bucket::Credential(secret) => {
                let mut digest = sha2::Sha256::new();
                digest.update(b"c");
                digest.update(secret.as_bytes());
                (digest.finalize().into(), self.config.key_per_second, self.config.key_burst)
            }
            Bucket::Ip(ip) => {
                let mut digest = sha2::Sha256::new();
                digest.update(b"i");
                digest.update(ip.to_string().as_bytes());
                (digest.finalize().into(), self.config.ip_per_second, self.config.ip_burst)
            }
        };
        let interval = Duration::from_secs(1) / per_second.max(1);
        let tolerance = interval * burst.max(1).saturating_sub(1);
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else { return Ok(()) };
        if buckets.len() > 200_000 {
            buckets.retain(|_, arrival| *arrival > now);
        }
        let arrival = buckets.get(&key).copied().map_or(now, |at| at.max(now));
        let ahead = arrival - now;
        if ahead > tolerance {
            return Err(ahead - tolerance);
        }
        buckets.insert(key, arrival + interval);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_bucket_refuses_with_a_wait() {
        let limiter = RateLimiter::new(RateLimitConfig {
            enabled: true,
            key_per_second: 10,
            key_burst: 5,
            ip_per_second: 1,
            ip_burst: 1,
        });
        for _ in 0..5 {
            assert!(limiter.check(Bucket::Credential("k")).is_ok());
        }
        let wait = limiter.check(Bucket::Credential("k")).unwrap_err();
        assert!(wait <= Duration::from_millis(100) && wait > Duration::ZERO);
        // Other keys have their own bucket.
        assert!(limiter.check(Bucket::Credential("other")).is_ok());
    }

    #[test]
    fn disabled_never_refuses() {
        let limiter = RateLimiter::new(RateLimitConfig { enabled: false, ..RateLimitConfig::default() });
        for _ in 0..10_000 {
            assert!(limiter.check(Bucket::Ip([127, 0, 0, 1].into())).is_ok());
        }
    }
}
