//! A short memory of what authenticating a request reads: whose an API key is, and the role
//! and mode a user has in a company. With it an authenticated read answers from one database
//! round trip (its own data) instead of three. Other reads made on every request of a hot path
//! keep their answers the same way, in a [`Memo`] (stamping: the issuing company, the customer
//! and the id of the company's CSD, `cfdi::contexto`), and their writes call [`changed`] too.
//!
//! Freshness: every change to keys, users, memberships, companies, customers or CSDs calls
//! [`changed`] after its commit, which makes every entry stale at once, so this process never acts on an old
//! answer. On PostgreSQL several instances share the database: [`changed`] also sends
//! `NOTIFY timbra_auth`, and every instance listens ([`follow_other_instances`]) and forgets
//! its entries when one arrives, within milliseconds. While an instance is not listening (at
//! start, or after its listening connection dropped) it trusts no entry at all.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use timbra_store::ids::{EmpresaId, UserId};

use time::OffsetDateTime;

use timbra_store::{Backend, Db};

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
    pub user_id: UserId,
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
pub use timbra_store::memberships::Access;

/// Remembered answers by key.
type Map<K, T> = Mutex<HashMap<K, Entry<T>>>;

struct Entry<T> {
    value: T,
    generation: u64,
    at: Instant,
}

/// See the module documentation.
pub struct AuthCache {
    generation: AtomicU64,
    /// Whether this process hears every change other instances make (always on a database
    /// only it uses; on PostgreSQL while its `LISTEN` connection is up).
    following: AtomicBool,
    keys: Memo<String, KeyInfo>,
    /// By (user id, company id).
    access: Memo<(String, String), Option<Access>>,
}

/// Answers remembered under the [`AuthCache`]'s generation: trusted while no [`changed`] came
/// after they were read, for at most [`TTL`], and only while the cache is.
pub struct Memo<K, T>(Map<K, T>);

impl<K, T> Default for Memo<K, T> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<K: Eq + Hash, T: Clone> Memo<K, T> {
    /// The answer remembered for `key`, if fresh.
    pub fn get<Q>(&self, cache: &AuthCache, key: &Q) -> Option<T>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        if !cache.trusted() {
            return None;
        }
        lookup(&self.0, key, cache.generation())
    }

    /// Remembers an answer read at `generation` ([`AuthCache::generation`], taken before the read).
    pub fn put(&self, key: K, generation: u64, value: T) {
        store(&self.0, key, generation, value);
    }

    /// Forgets the answer for `key`: the next [`Memo::get`] reads the database.
    pub fn forget<Q>(&self, key: &Q)
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        if let Ok(mut map) = self.0.lock() {
            map.remove(key);
        }
    }
}

impl Default for AuthCache {
    fn default() -> Self {
        Self {
            generation: AtomicU64::new(0),
            following: AtomicBool::new(true),
            keys: Memo::default(),
            access: Memo::default(),
        }
    }
}

impl AuthCache {
    /// The current generation; read it before querying, store the answer under it.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Marks whether this process hears other instances' changes; entries are trusted only
    /// while it does, and every change of state forgets them.
    pub fn set_following(&self, following: bool) {
        self.following.store(following, Ordering::Release);
        self.invalidate();
    }

    /// Whether entries may be trusted now.
    fn trusted(&self) -> bool {
        self.following.load(Ordering::Acquire)
    }

    /// Forgets everything: call after committing a change to keys, users, memberships or
    /// companies.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The key with this digest, if known and fresh.
    pub fn key(&self, digest: &str) -> Option<KeyInfo> {
        self.keys.get(self, digest)
    }

    /// Remembers a key read at `generation`.
    pub fn remember_key(&self, digest: &str, generation: u64, key: KeyInfo) {
        self.keys.put(digest.to_owned(), generation, key);
    }

    /// The user's access to the company, if known and fresh (`Some(None)`: known non-member).
    pub fn access(&self, user_id: &UserId, empresa_id: &EmpresaId) -> Option<Option<Access>> {
        self.access.get(self, &(user_id.as_str().to_owned(), empresa_id.as_str().to_owned()))
    }

    /// Remembers an access answer read at `generation`.
    pub fn remember_access(&self, user_id: &UserId, empresa_id: &EmpresaId, generation: u64, access: Option<Access>) {
        self.access.put((user_id.as_str().to_owned(), empresa_id.as_str().to_owned()), generation, access);
    }
}

/// The channel instances tell each other about changes on.
const CHANNEL: &str = "timbra_auth";

/// After committing a change to keys, users, memberships, companies, customers or CSDs: forgets this process's
/// entries and tells the other instances on the same PostgreSQL database to forget theirs. A
/// lost notice (the database down right then) is logged; the others' entries still expire
/// within [`TTL`].
pub async fn changed(db: &Db, cache: &AuthCache) {
    cache.invalidate();
    if db.backend() != Backend::Postgres {
        return;
    }
    let notified = async {
        let mut conn = db.conn().await?;
        timbra_store::notify(&mut conn, CHANNEL).await
    }
    .await;
    if let Err(error) = notified {
        tracing::warn!(error.message = %error, "could not tell other instances about an access change; they see it within 5 s");
    }
}

/// On PostgreSQL: listens for other instances' changes for as long as the process runs,
/// forgetting the cache on each. Until the listening connection is up, and whenever it drops,
/// the cache is not trusted (every request reads the database), and the connection is retried.
pub fn follow_other_instances(db: &Db, cache: &Arc<AuthCache>) -> Option<tokio::task::JoinHandle<()>> {
    let Db::Pg(pool) = db else { return None };
    let pool = pool.clone();
    let cache = cache.clone();
    cache.set_following(false);
    Some(tokio::spawn(async move {
        loop {
            match listen(&pool, &cache).await {
                // The pool closed: the process is shutting down.
                Err(sqlx::Error::PoolClosed) => return,
                Err(error) => {
                    cache.set_following(false);
                    tracing::warn!(error.message = %error, "lost the LISTEN connection for access changes; reconnecting");
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            }
        }
    }))
}

async fn listen(pool: &sqlx::PgPool, cache: &AuthCache) -> Result<std::convert::Infallible, sqlx::Error> {
    let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
    listener.listen(CHANNEL).await?;
    cache.set_following(true);
    loop {
        match listener.try_recv().await? {
            Some(_) => cache.invalidate(),
            // The connection was lost and re-established: notices may have been missed.
            None => {
                cache.set_following(false);
                return Err(sqlx::Error::Protocol("LISTEN connection was reset".into()));
            }
        }
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
        cache.remember_access(&UserId::from("u1"), &EmpresaId::from("e1"), read_at, None);
        assert_eq!(cache.key("d").map(|k| k.user_id), Some("u1".into()));
        assert!(matches!(cache.access(&UserId::from("u1"), &EmpresaId::from("e1")), Some(None)));
        cache.invalidate();
        assert!(cache.key("d").is_none());
        assert!(cache.access(&UserId::from("u1"), &EmpresaId::from("e1")).is_none());
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
