//! A short memory of what authenticating a request reads: whose an API key is, and the role
//! and mode a user has in a company. With it an authenticated read answers from one database
//! round trip (its own data) instead of three.
//!
//! Freshness: every change to keys, users, memberships or companies calls
//! [`AuthCache::invalidate`] after its commit, which makes every entry stale at once, so this
//! process never acts on an old answer. Another process sharing the database (PostgreSQL in
//! production) sees such a change within [`TTL`].

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use time::OffsetDateTime;

/// How long an entry is trusted without a change in this process.
pub const TTL: Duration = Duration::from_secs(5);
/// Past this many entries a map drops its expired ones (and everything, if all are fresh).
const MAX_ENTRIES: usize = 50_000;

/// An API key as authentication needs it. Expiry and revocation are judged on every request
/// against the clock, never cached as a verdict.
#[derive(Clone, Debug)]
pub struct KeyInfo {
    /// The key's id.
    pub id: String,
    /// Its owner.
    pub user_id: String,
    /// Companies it is narrowed to.
    pub empresa_ids: Option<Vec<String>>,
    /// Scopes it is narrowed to.
    pub scopes: Option<Vec<String>>,
    /// When it expires.
    pub expires_at: Option<OffsetDateTime>,
    /// When it was revoked.
    pub revoked_at: Option<OffsetDateTime>,
    /// When its use was last written.
    pub last_used_at: Option<OffsetDateTime>,
    /// When its owner deleted the account.
    pub user_deleted_at: Option<OffsetDateTime>,
}

/// A user's standing in a company: `None` when they are not a member (or it is deleted).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Access {
    /// The company's sandbox flag.
    pub sandbox: bool,
    /// The stored role name.
    pub role: String,
}

/// Remembered answers by key.
type Map<K, T> = Mutex<HashMap<K, Entry<T>>>;

struct Entry<T> {
    value: T,
    generation: u64,
    at: Instant,
}

/// See the module documentation.
#[derive(Default)]
pub struct AuthCache {
    generation: AtomicU64,
    keys: Map<String, KeyInfo>,
    /// By (user id, company id).
    access: Map<(String, String), Option<Access>>,
}

impl AuthCache {
    /// The current generation; read it before querying, store the answer under it.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Forgets everything: call after committing a change to keys, users, memberships or
    /// companies.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The key with this digest, if known and fresh.
    pub fn key(&self, digest: &str) -> Option<KeyInfo> {
        lookup(&self.keys, digest, self.generation())
    }

    /// Remembers a key read at `generation`.
    pub fn remember_key(&self, digest: &str, generation: u64, key: KeyInfo) {
        store(&self.keys, digest.to_owned(), generation, key);
    }

    /// The user's access to the company, if known and fresh (`Some(None)`: known non-member).
    pub fn access(&self, user_id: &str, empresa_id: &str) -> Option<Option<Access>> {
        lookup(&self.access, &(user_id.to_owned(), empresa_id.to_owned()), self.generation())
    }

    /// Remembers an access answer read at `generation`.
    pub fn remember_access(&self, user_id: &str, empresa_id: &str, generation: u64, access: Option<Access>) {
        store(&self.access, (user_id.to_owned(), empresa_id.to_owned()), generation, access);
    }
}

fn lookup<K, Q, T>(map: &Map<K, T>, key: &Q, generation: u64) -> Option<T>
where
    K: Eq + Hash + std::borrow::Borrow<Q>,
    Q: Eq + Hash + ?Sized,
    T: Clone,
{
    let map = map.lock().ok()?;
    let entry = map.get(key)?;
    (entry.generation == generation && entry.at.elapsed() < TTL).then(|| entry.value.clone())
}

fn store<K: Eq + Hash, T>(map: &Map<K, T>, key: K, generation: u64, value: T) {
    let Ok(mut map) = map.lock() else { return };
    if map.len() >= MAX_ENTRIES {
        map.retain(|_, entry| entry.at.elapsed() < TTL);
        if map.len() >= MAX_ENTRIES {
            map.clear();
        }
    }
    map.insert(key, Entry { value, generation, at: Instant::now() });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(user: &str) -> KeyInfo {
        KeyInfo {
            id: "k".into(),
            user_id: user.into(),
            empresa_ids: None,
            scopes: None,
            expires_at: None,
            revoked_at: None,
            last_used_at: None,
            user_deleted_at: None,
        }
    }

    #[test]
    fn an_invalidation_makes_earlier_answers_stale() {
        let cache = AuthCache::default();
        let read_at = cache.generation();
        cache.remember_key("d", read_at, key("u1"));
        cache.remember_access("u1", "e1", read_at, None);
        assert_eq!(cache.key("d").map(|k| k.user_id), Some("u1".into()));
        assert!(matches!(cache.access("u1", "e1"), Some(None)));
        cache.invalidate();
        assert!(cache.key("d").is_none());
        assert!(cache.access("u1", "e1").is_none());
    }

    #[test]
    fn an_answer_read_before_a_change_is_not_trusted_after_it() {
        // A request reads the generation, then the database; a change commits and invalidates
        // in between: what the request stores is already stale.
        let cache = AuthCache::default();
        let read_at = cache.generation();
        cache.invalidate();
        cache.remember_key("d", read_at, key("u1"));
        assert!(cache.key("d").is_none());
    }
}
