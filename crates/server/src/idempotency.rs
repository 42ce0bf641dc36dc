//! `Idempotency-Key` on stamping and cancellation: the same key with the same body replays the
//! first answer
//! (status and body); with another body it is refused (409 IDEMPOTENCY_001). Keys are per
//! company and kept with the invoice in the same transaction, so a replay exists exactly when
//! the invoice does. Only successful answers are kept: a request that failed may be retried
//! with the same key.
//!
//! A live stamp or cancellation waits for the PAC outside any transaction, so its key is first
//! *reserved* (status [`IN_PROGRESS`]; for a stamp, in the transaction that spends the folio): a
//! second request with the same key meanwhile gets 409 IDEMPOTENCY_002 instead of reaching the
//! PAC again. The
//! reservation becomes the answer on success and is removed on failure; one left by a process
//! that died is given up after [`ABANDONED_AFTER`].

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ApiResult, Code};
use timbra_store::AsExec;
use timbra_store::sql;

/// Longest key accepted.
pub const MAX_KEY: usize = 255;
/// The header set on a replayed answer.
pub const REPLAYED: &str = "idempotent-replayed";
/// The stored status of a reserved key (HTTP 102 Processing).
pub const IN_PROGRESS: i64 = 102;
/// After this long a reservation is taken as left by a process that stopped mid-request.
pub const ABANDONED_AFTER: time::Duration = time::Duration::minutes(10);

/// A key and the digest of the body it came with.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key as sent.
    pub key: String,
    /// SHA-256 hex of the body bytes.
    pub request_hash: String,
}

/// The `Idempotency-Key` header, if sent (REQUEST_001 when empty or too long).
pub fn from_headers(headers: &HeaderMap, body: &[u8]) -> ApiResult<Option<Key>> {
    let Some(value) = headers.get("idempotency-key") else { return Ok(None) };
    let key = value.to_str().map(str::trim).unwrap_or_default();
    if key.is_empty() || key.len() > MAX_KEY {
        return Err(ApiError::new(
            Code::Request001,
            format!("Idempotency-Key must be 1 to {MAX_KEY} visible ASCII characters"),
        ));
    }
    Ok(Some(Key { key: key.to_owned(), request_hash: hex::encode(Sha256::digest(body)) }))
}

#[derive(sqlx::FromRow)]
struct Stored {
    request_hash: String,
    status: i64,
    response: String,
    created_at: time::OffsetDateTime,
}

/// The stored answer for `key`, replayed, or `None` when the key is new (or its reservation
/// was abandoned, which is then removed).
pub async fn replay(
    conn: &mut impl AsExec,
    empresa_id: &str,
    key: &Key,
    now: time::OffsetDateTime,
) -> ApiResult<Option<Response>> {
    let stored = sql!(
        fetch_optional * conn,
        Stored,
        "SELECT request_hash, status, response, created_at FROM idempotency_keys WHERE empresa_id = $1 AND key = $2",
        empresa_id,
        &key.key
    )?;
    let Some(stored) = stored else { return Ok(None) };
    if stored.request_hash != key.request_hash {
        return Err(ApiError::new(
            Code::Idempotency001,
            "this Idempotency-Key was used with another body; use a new key for a new request",
        ));
    }
    if stored.status == IN_PROGRESS && !stored.response.is_empty() {
        // Held by a live stamping attempt (its id is kept as the response). The stamping
        // pipeline finds that attempt by the body and resends it, or answers IDEMPOTENCY_002
        // while it is being sent (`cfdi::live`).
        return Ok(None);
    }
    if stored.status == IN_PROGRESS {
        if now - stored.created_at < ABANDONED_AFTER {
            return Err(ApiError::new(
                Code::Idempotency002,
                "a request with this Idempotency-Key is still waiting for the PAC; retry in a few seconds",
            ));
        }
        sql!(
            execute * conn,
            "DELETE FROM idempotency_keys WHERE empresa_id = $1 AND key = $2 AND status = $3 AND created_at = $4",
            empresa_id,
            &key.key,
            IN_PROGRESS,
            stored.created_at
        )?;
        return Ok(None);
    }
    let status = u16::try_from(stored.status).ok().and_then(|s| StatusCode::from_u16(s).ok()).unwrap_or(StatusCode::OK);
    let mut response = (status, stored.response).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().insert(REPLAYED, HeaderValue::from_static("true"));
    Ok(Some(response))
}

/// Records the answer given for `key` (inside the operation's transaction). A unique
/// violation means a concurrent request with the same key won; the caller rolls back and
/// replays it.
pub async fn store(
    conn: &mut impl AsExec,
    empresa_id: &str,
    key: &Key,
    operation: &str,
    status: StatusCode,
    response: &str,
    now: time::OffsetDateTime,
) -> timbra_store::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO idempotency_keys (empresa_id, key, operation, request_hash, status, response, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        empresa_id,
        &key.key,
        operation,
        &key.request_hash,
        i64::from(status.as_u16()),
        response,
        now
    )
}

/// Reserves `key` while a live cancellation waits for the PAC. `false` when another request
/// holds or used the key: the caller rolls back and [`replay`]s.
pub async fn reserve(
    tx: &mut timbra_store::Tx,
    empresa_id: &str,
    key: &Key,
    operation: &str,
    now: time::OffsetDateTime,
) -> ApiResult<bool> {
    reserve_for(tx, empresa_id, key, operation, "", now).await
}

/// Reserves `key` for the live stamping attempt `referencia` (its id), inside the
/// transaction that spends the folio, until the attempt is resolved.
pub async fn reserve_for(
    tx: &mut timbra_store::Tx,
    empresa_id: &str,
    key: &Key,
    operation: &str,
    referencia: &str,
    now: time::OffsetDateTime,
) -> ApiResult<bool> {
    let processing = StatusCode::from_u16(IN_PROGRESS as u16).unwrap_or(StatusCode::ACCEPTED);
    match store(tx, empresa_id, key, operation, processing, referencia, now).await {
        Err(error) if error.is_duplicate() => Ok(false),
        other => other.map(|_| true).map_err(ApiError::from),
    }
}

/// The answer of the request that holds or used `key`, for a request that lost the race for
/// it (its own transaction already dropped): a replay, or IDEMPOTENCY_001/_002.
pub async fn winner(
    db: &timbra_store::Db,
    empresa_id: &str,
    key: &Key,
    now: time::OffsetDateTime,
) -> ApiResult<Response> {
    let mut conn = db.conn().await?;
    replay(&mut conn, empresa_id, key, now).await?.ok_or_else(|| {
        ApiError::new(
            Code::Idempotency002,
            "a request with this Idempotency-Key is still waiting for the PAC; retry in a few seconds",
        )
    })
}

/// Claims `key` for a sandbox stamp of a batch (`cfdi::group_commit`), inside the batch's
/// transaction, as a reservation its answer then replaces. `false` when another request holds
/// or used the key. `ON CONFLICT DO NOTHING` rather than a unique violation: on PostgreSQL a
/// failed statement would abort the whole batch.
pub async fn claim(
    tx: &mut timbra_store::Tx,
    empresa_id: &str,
    key: &Key,
    operation: &str,
    now: time::OffsetDateTime,
) -> timbra_store::DbResult<bool> {
    let claimed = sql!(
        scalar_optional * tx,
        String,
        "INSERT INTO idempotency_keys (empresa_id, key, operation, request_hash, status, response, created_at) \
         VALUES ($1, $2, $3, $4, $5, '', $6) ON CONFLICT (empresa_id, key) DO NOTHING RETURNING key",
        empresa_id,
        &key.key,
        operation,
        &key.request_hash,
        IN_PROGRESS,
        now
    )?;
    Ok(claimed.is_some())
}

/// Removes a reservation after a failed attempt, so the key may be retried.
pub async fn release(tx: &mut timbra_store::Tx, empresa_id: &str, key: &Key) -> timbra_store::DbResult<u64> {
    sql!(
        execute * tx,
        "DELETE FROM idempotency_keys WHERE empresa_id = $1 AND key = $2 AND status = $3",
        empresa_id,
        &key.key,
        IN_PROGRESS
    )
}

/// Stores the finished `answer` under `key` (when a key was sent; `reservada` when
/// [`reserve`] already holds it) in `tx`, the operation's own transaction, which the caller
/// then commits. `false` when a concurrent request with the same key stored first: the caller
/// drops `tx` and answers [`winner`].
#[allow(clippy::too_many_arguments)]
pub async fn store_answer(
    tx: &mut timbra_store::Tx,
    empresa_id: &str,
    key: Option<&Key>,
    operation: &str,
    status: StatusCode,
    answer: &str,
    now: time::OffsetDateTime,
    reservada: bool,
) -> ApiResult<bool> {
    let Some(key) = key else { return Ok(true) };
    if reservada {
        sql!(
            execute * tx,
            "UPDATE idempotency_keys SET status = $1, response = $2 WHERE empresa_id = $3 AND key = $4",
            i64::from(status.as_u16()),
            answer,
            empresa_id,
            &key.key
        )?;
        return Ok(true);
    }
    match store(tx, empresa_id, key, operation, status, answer, now).await {
        Err(error) if error.is_duplicate() => Ok(false),
        other => other.map(|_| true).map_err(ApiError::from),
    }
}

/// The JSON answer `answer` with `status`, as first given and as replayed.
pub fn answer(status: StatusCode, answer: String) -> Response {
    let mut response = (status, answer).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
