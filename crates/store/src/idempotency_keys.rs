//! The `idempotency_keys` table: the answer each `Idempotency-Key` got, per company, or its
//! reservation while a live request waits for the PAC (the rules are the server's
//! `idempotency` module).

use crate::ids::{CfdiId, EmpresaId};
use time::OffsetDateTime;

use crate::{AsExec, DbResult, Tx, sql};

/// A key's stored answer (or reservation).
#[derive(sqlx::FromRow)]
pub struct StoredAnswer {
    /// SHA-256 hex of the body the key first came with.
    pub request_hash: String,
    /// The HTTP status answered (102 while reserved).
    pub status: i64,
    /// The JSON answered (a reservation's reference while reserved).
    pub response: String,
    /// When it was stored.
    pub created_at: OffsetDateTime,
    /// The operation that used the key (`cfdi.timbrar`, `cfdi.cancelar`, ...).
    pub operation: String,
    /// The invoice it acted on, for an operation on an existing one (a cancellation).
    pub cfdi_id: Option<CfdiId>,
}

/// What the company stored under `key`.
pub async fn get(conn: &mut impl AsExec, empresa_id: &EmpresaId, key: &str) -> DbResult<Option<StoredAnswer>> {
    sql!(
        fetch_optional * conn,
        StoredAnswer,
        "SELECT request_hash, status, response, created_at, operation, cfdi_id FROM idempotency_keys \
         WHERE empresa_id = $1 AND key = $2",
        empresa_id,
        key
    )
}

/// Removes `key` when it still holds the answer with `status` stored at `created_at` (an
/// abandoned reservation; a newer one is left alone).
pub async fn delete_if_unchanged(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    key: &str,
    status: i64,
    created_at: OffsetDateTime,
) -> DbResult<u64> {
    sql!(
        execute * conn,
        "DELETE FROM idempotency_keys WHERE empresa_id = $1 AND key = $2 AND status = $3 AND created_at = $4",
        empresa_id,
        key,
        status,
        created_at
    )
}

/// A key's row to insert.
pub struct NewAnswer<'a> {
    /// The company.
    pub empresa_id: &'a EmpresaId,
    /// The key as sent.
    pub key: &'a str,
    /// The operation that used it.
    pub operation: &'a str,
    /// The invoice it acts on, for an operation on an existing one.
    pub cfdi_id: Option<&'a str>,
    /// SHA-256 hex of the body.
    pub request_hash: &'a str,
    /// The HTTP status (102 for a reservation).
    pub status: i64,
    /// The answer's JSON, or a reservation's reference.
    pub response: &'a str,
    /// Now.
    pub now: OffsetDateTime,
}

/// Inserts the row; a unique violation ([`crate::DbError::is_duplicate`]) means a concurrent
/// request with the same key stored first.
pub async fn insert(conn: &mut impl AsExec, row: &NewAnswer<'_>) -> DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO idempotency_keys (empresa_id, key, operation, request_hash, status, response, created_at, cfdi_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        row.empresa_id,
        row.key,
        row.operation,
        row.request_hash,
        row.status,
        row.response,
        row.now,
        row.cfdi_id
    )
}

/// Inserts the row unless the key exists: `false` then. `ON CONFLICT DO NOTHING` rather than a
/// unique violation, because on PostgreSQL a failed statement aborts the whole transaction
/// (a group-commit batch).
pub async fn insert_if_new(tx: &mut Tx, row: &NewAnswer<'_>) -> DbResult<bool> {
    let claimed = sql!(
        scalar_optional * tx,
        String,
        "INSERT INTO idempotency_keys (empresa_id, key, operation, request_hash, status, response, created_at, cfdi_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (empresa_id, key) DO NOTHING RETURNING key",
        row.empresa_id,
        row.key,
        row.operation,
        row.request_hash,
        row.status,
        row.response,
        row.now,
        row.cfdi_id
    )?;
    Ok(claimed.is_some())
}

/// Removes `key` while it still has `status` (a reservation given up).
pub async fn delete_with_status(tx: &mut Tx, empresa_id: &EmpresaId, key: &str, status: i64) -> DbResult<u64> {
    sql!(
        execute * tx,
        "DELETE FROM idempotency_keys WHERE empresa_id = $1 AND key = $2 AND status = $3",
        empresa_id,
        key,
        status
    )
}

/// Replaces a reservation with the answer given.
pub async fn set_answer(tx: &mut Tx, empresa_id: &EmpresaId, key: &str, status: i64, response: &str) -> DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE idempotency_keys SET status = $1, response = $2 WHERE empresa_id = $3 AND key = $4",
        status,
        response,
        empresa_id,
        key
    )
}
