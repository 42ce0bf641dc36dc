//! Request rate limits: a GCRA token bucket per client address before authentication, and per
//! verified API key or session after it. Over the limit answers 429 RATE_001 with `Retry-After`.
//!
//! On SQLite (one process) the buckets live in memory ([`MemoryStore`]): sharded (one lock per
//! shard, never one lock for every request), bounded (a full shard first forgets the buckets
//! that are full again, then the least-drained half), and a poisoned lock is recovered instead
//! of turning limiting off. On PostgreSQL, where several instances serve one installation,
//! they live in the database ([`PgStore`], table `rate_limits`): one statement per check, so
//! the limits hold across every instance together.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sha2::Digest;

use crate::config::RateLimitConfig;
use timbra_store::Db;

/// A refill rate and a burst.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Tokens added per second.
    pub per_second: u32,
    /// Most tokens a bucket holds.
    pub burst: u32,
}

impl Rule {
    fn interval(self) -> Duration {
        Duration::from_secs(1) / self.per_second.max(1)
    }

    fn tolerance(self) -> Duration {
        self.interval() * self.burst.max(1).saturating_sub(1)
    }
}

/// Where buckets are kept. `take` draws one token; `peek` only says whether one is left.
pub trait BucketStore: Send + Sync {
    /// Draws a token from the bucket `key`; `Err(wait)` when it is empty.
    fn take(&self, key: &[u8; 32], rule: Rule) -> Result<(), Duration>;
    /// Whether the bucket `key` still has a token, without drawing it; `Err(wait)` when empty.
    fn peek(&self, key: &[u8; 32], rule: Rule) -> Result<(), Duration>;
}

/// Which bucket a request draws from.
#[derive(Clone, Copy, Debug)]
pub enum Bucket<'a> {
    /// A verified API key (its id) or session (its stored id): the generous limit.
    Credential(&'a str),
    /// A client address, for requests without a verified credential. IPv6 addresses share the
    /// bucket of their /64, which one host usually holds whole.
    Ip(IpAddr),
}

/// The limiter: the configured rules over a bucket store.
pub struct RateLimiter {
    config: RateLimitConfig,
    store: Store,
}

enum Store {
    Local(Box<dyn BucketStore>),
    Shared(PgStore),
}

impl RateLimiter {
    /// A limiter with these thresholds over an in-memory store.
    pub fn new(config: RateLimitConfig) -> Self {
        Self::with_store(config, Box::new(MemoryStore::new(MemoryStore::DEFAULT_CAPACITY)))
    }

    /// A limiter over another store.
    pub fn with_store(config: RateLimitConfig, store: Box<dyn BucketStore>) -> Self {
        Self { config, store: Store::Local(store) }
    }

    /// The limiter for `db`: buckets in the database on PostgreSQL (shared by every instance),
    /// in memory on SQLite.
    pub fn for_db(config: RateLimitConfig, db: &Db) -> Self {
        match db {
            Db::Pg(pool) => Self { config, store: Store::Shared(PgStore { pool: pool.clone() }) },
            Db::Sqlite(..) => Self::new(config),
        }
    }

    /// Takes one request from the bucket; `Err(wait)` when it is empty.
    pub async fn check(&self, bucket: Bucket<'_>) -> Result<(), Duration> {
        if !self.config.enabled {
            return Ok(());
        }
        let (key, rule) = self.key_and_rule(bucket);
        match &self.store {
            Store::Local(store) => store.take(&key, rule),
            Store::Shared(store) => store.take(&key, rule).await,
        }
    }

    /// Whether the bucket has a token left, without taking it.
    pub async fn peek(&self, bucket: Bucket<'_>) -> Result<(), Duration> {
        if !self.config.enabled {
            return Ok(());
        }
        let (key, rule) = self.key_and_rule(bucket);
        match &self.store {
            Store::Local(store) => store.peek(&key, rule),
            Store::Shared(store) => store.peek(&key, rule).await,
        }
    }

    fn key_and_rule(&self, bucket: Bucket<'_>) -> ([u8; 32], Rule) {
        let mut digest = sha2::Sha256::new();
        match bucket {
            Bucket::Credential(id) => {
                digest.update(b"c");
                digest.update(id.as_bytes());
                let rule = Rule { per_second: self.config.key_per_second, burst: self.config.key_burst };
                (digest.finalize().into(), rule)
            }
            Bucket::Ip(ip) => {
                digest.update(b"i");
                match ip {
                    IpAddr::V4(v4) => digest.update(v4.octets()),
                    IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                        Some(v4) => digest.update(v4.octets()),
                        None => digest.update(&v6.octets()[..8]),
                    },
                }
                let rule = Rule { per_second: self.config.ip_per_second, burst: self.config.ip_burst };
                (digest.finalize().into(), rule)
            }
        }
    }
}

/// Number of shards of [`MemoryStore`].
const SHARDS: usize = 32;

/// Buckets in memory: theoretical arrival times (GCRA) in sharded maps of bounded size.
pub struct MemoryStore {
    shards: Vec<Mutex<HashMap<[u8; 32], Instant>>>,
    per_shard: usize,
}

impl MemoryStore {
    /// Buckets kept at most by default (about 10 MB).
    pub const DEFAULT_CAPACITY: usize = 200_000;

    /// A store that keeps at most about `capacity` buckets.
    pub fn new(capacity: usize) -> Self {
        let per_shard = (capacity / SHARDS).max(8);
        Self { shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(), per_shard }
    }

    fn shard(&self, key: &[u8; 32]) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Instant>> {
        let index = usize::from(key[0]) % SHARDS;
        // A panic while a shard was held leaves a consistent map (one insert at a time): keep
        // limiting with it rather than letting every request through.
        self.shards[index].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes room in a full shard: first the buckets that are full again (an absent bucket is
    /// a full one), then, under a flood of distinct keys, the half that is least drained, so
    /// the clients being limited keep their debt.
    fn evict(map: &mut HashMap<[u8; 32], Instant>, now: Instant, limit: usize) {
        map.retain(|_, arrival| *arrival > now);
        if map.len() < limit {
            return;
        }
        let mut arrivals: Vec<Instant> = map.values().copied().collect();
        let middle = arrivals.len() / 2;
        let (_, median, _) = arrivals.select_nth_unstable(middle);
        let median = *median;
        map.retain(|_, arrival| *arrival > median);
    }
}

impl BucketStore for MemoryStore {
    fn take(&self, key: &[u8; 32], rule: Rule) -> Result<(), Duration> {
        let now = Instant::now();
        let mut map = self.shard(key);
        let arrival = map.get(key).copied().map_or(now, |at| at.max(now));
        let ahead = arrival - now;
        if ahead > rule.tolerance() {
            return Err(ahead - rule.tolerance());
        }
        if !map.contains_key(key) && map.len() >= self.per_shard {
            Self::evict(&mut map, now, self.per_shard);
        }
        map.insert(*key, arrival + rule.interval());
        Ok(())
    }

    fn peek(&self, key: &[u8; 32], rule: Rule) -> Result<(), Duration> {
        let now = Instant::now();
        let map = self.shard(key);
        let arrival = map.get(key).copied().map_or(now, |at| at.max(now));
        let ahead = arrival - now;
        if ahead > rule.tolerance() { Err(ahead - rule.tolerance()) } else { Ok(()) }
    }
}

/// Buckets in PostgreSQL, shared by every instance: the same GCRA as [`MemoryStore`], with the
/// theoretical arrival time kept as epoch seconds and the database's clock as the one clock.
/// When the database cannot be asked, requests pass (and are logged): the request's own
/// queries will fail or succeed on their own, and an outage must not read as 429s.
pub struct PgStore {
    pool: sqlx::PgPool,
}

impl PgStore {
    async fn take(&self, key: &[u8; 32], rule: Rule) -> Result<(), Duration> {
        let interval = rule.interval().as_secs_f64();
        let tolerance = rule.tolerance().as_secs_f64();
        let answer = timbra_store::rate_limits::take(&self.pool, &key[..], interval, tolerance).await;
        match answer {
            Ok((true, _)) => Ok(()),
            Ok((false, ahead)) => Err(wait(ahead - tolerance)),
            Err(error) => {
                tracing::warn!(error.message = %error, "rate limit store unreachable; the request passes");
                Ok(())
            }
        }
    }

    async fn peek(&self, key: &[u8; 32], rule: Rule) -> Result<(), Duration> {
        let tolerance = rule.tolerance().as_secs_f64();
        match timbra_store::rate_limits::peek(&self.pool, &key[..]).await {
            Ok(Some(ahead)) if ahead > tolerance => Err(wait(ahead - tolerance)),
            Ok(_) => Ok(()),
            Err(error) => {
                tracing::warn!(error.message = %error, "rate limit store unreachable; the request passes");
                Ok(())
            }
        }
    }
}

fn wait(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds.max(0.001)).unwrap_or(Duration::from_secs(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(key_burst: u32, ip_burst: u32) -> RateLimiter {
        RateLimiter::new(RateLimitConfig { enabled: true, key_per_second: 10, key_burst, ip_per_second: 1, ip_burst })
    }

    #[tokio::test]
    async fn a_burst_passes_then_the_bucket_refuses_with_a_wait() {
        let limiter = limiter(5, 1);
        for _ in 0..5 {
            assert!(limiter.check(Bucket::Credential("k")).await.is_ok());
        }
        let wait = limiter.check(Bucket::Credential("k")).await.unwrap_err();
        assert!(wait <= Duration::from_millis(100) && wait > Duration::ZERO);
        // Other keys have their own bucket.
        assert!(limiter.check(Bucket::Credential("other")).await.is_ok());
    }

    #[tokio::test]
    async fn peeking_takes_nothing() {
        let limiter = limiter(5, 2);
        let ip: IpAddr = [10, 0, 0, 1].into();
        for _ in 0..10 {
            assert!(limiter.peek(Bucket::Ip(ip)).await.is_ok());
        }
        assert!(limiter.check(Bucket::Ip(ip)).await.is_ok());
        assert!(limiter.check(Bucket::Ip(ip)).await.is_ok());
        assert!(limiter.peek(Bucket::Ip(ip)).await.is_err());
    }

    #[tokio::test]
    async fn an_ipv6_host_cannot_rotate_addresses_within_its_64() {
        let limiter = limiter(5, 1);
        assert!(limiter.check(Bucket::Ip("2001:db8:1:2::1".parse().unwrap())).await.is_ok());
        assert!(limiter.check(Bucket::Ip("2001:db8:1:2::ffff".parse().unwrap())).await.is_err());
        assert!(limiter.check(Bucket::Ip("2001:db8:1:3::1".parse().unwrap())).await.is_ok());
    }

    #[tokio::test]
    async fn disabled_never_refuses() {
        let limiter = RateLimiter::new(RateLimitConfig { enabled: false, ..RateLimitConfig::default() });
        for _ in 0..10_000 {
            assert!(limiter.check(Bucket::Ip([127, 0, 0, 1].into())).await.is_ok());
        }
    }

    #[test]
    fn memory_stays_bounded_and_a_drained_bucket_survives_a_flood() {
        let store = MemoryStore::new(SHARDS * 16);
        let rule = Rule { per_second: 1, burst: 2 };
        let victim = [7u8; 32];
        assert!(store.take(&victim, rule).is_ok());
        assert!(store.take(&victim, rule).is_ok());
        assert!(store.take(&victim, rule).is_err());
        for n in 0u32..20_000 {
            let mut key = [0u8; 32];
            key[..4].copy_from_slice(&n.to_be_bytes());
            key[0] = 7;
            let _ = store.take(&key, rule);
        }
        let total: usize = store.shards.iter().map(|shard| shard.lock().unwrap().len()).sum();
        assert!(total <= SHARDS * 16, "{total} buckets kept");
        assert!(store.take(&victim, rule).is_err(), "the drained bucket was forgotten");
    }

    #[test]
    fn a_poisoned_shard_keeps_limiting() {
        let store = std::sync::Arc::new(MemoryStore::new(1024));
        let rule = Rule { per_second: 1, burst: 1 };
        let key = [1u8; 32];
        assert!(store.take(&key, rule).is_ok());
        let poisoner = store.clone();
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.shard(&key);
            panic!("poison the shard");
        })
        .join();
        // Two takes back to back (microseconds apart, whatever the load that delayed the
        // poisoning): with the shard still limiting, the second finds the bucket empty.
        let _ = store.take(&key, rule);
        assert!(store.take(&key, rule).is_err());
    }
}
