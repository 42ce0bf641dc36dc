//! The `rate_limits` table (PostgreSQL only): GCRA buckets shared by every instance, the
//! theoretical arrival time kept as epoch seconds with the database's clock as the one clock
//! (the rules are the server's `rate_limit`).

use crate::DbResult;

/// Draws a token: `granted` and how far ahead of now the bucket's arrival time is.
const TAKE: &str = "INSERT INTO rate_limits AS r (bucket, tat, granted) \
     VALUES ($1, extract(epoch FROM clock_timestamp())::float8 + $2, true) \
     ON CONFLICT (bucket) DO UPDATE SET \
     granted = GREATEST(r.tat, EXCLUDED.tat - $2) - (EXCLUDED.tat - $2) <= $3, \
     tat = CASE WHEN GREATEST(r.tat, EXCLUDED.tat - $2) - (EXCLUDED.tat - $2) <= $3 \
     THEN GREATEST(r.tat, EXCLUDED.tat - $2) + $2 ELSE r.tat END \
     RETURNING granted, tat - extract(epoch FROM clock_timestamp())::float8";
const PEEK: &str = "SELECT tat - extract(epoch FROM clock_timestamp())::float8 FROM rate_limits WHERE bucket = $1";

/// Draws from bucket `key` (`interval` and `tolerance` in seconds): whether it was granted, and
/// how many seconds ahead of now the bucket's arrival time is.
pub async fn take(pool: &sqlx::PgPool, key: &[u8], interval: f64, tolerance: f64) -> DbResult<(bool, f64)> {
    Ok(sqlx::query_as::<_, (bool, f64)>(TAKE).bind(key).bind(interval).bind(tolerance).fetch_one(pool).await?)
}

/// How many seconds ahead of now bucket `key`'s arrival time is, if it exists.
pub async fn peek(pool: &sqlx::PgPool, key: &[u8]) -> DbResult<Option<f64>> {
    Ok(sqlx::query_scalar::<_, f64>(PEEK).bind(key).fetch_optional(pool).await?)
}
