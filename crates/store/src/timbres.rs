//! The stamp balance of a company (`timbres_saldo`) and its movements (`timbres_movimientos`):
//! top-ups add, live stamps take one, refusals give it back.

use crate::ids::{EmpresaId, UserId};
use time::OffsetDateTime;

use crate::{DbConn, Tx};
use crate::{ids, sql};

/// The company's balance (0 before its first top-up).
pub async fn saldo(conn: &mut DbConn, empresa_id: &EmpresaId) -> crate::DbResult<i64> {
    Ok(sql!(scalar_optional * conn, i64, "SELECT saldo FROM timbres_saldo WHERE empresa_id = $1", empresa_id)?
        .unwrap_or(0))
}

/// Adds `cantidad` stamps with its movement, made by the operator `user_id` (`None`: on the
/// server's command line); the new balance.
pub async fn recargar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cantidad: i64,
    concepto: &str,
    user_id: Option<&UserId>,
    now: OffsetDateTime,
) -> crate::DbResult<i64> {
    sql!(
        execute * tx,
        "INSERT INTO timbres_saldo (empresa_id, saldo, updated_at) VALUES ($1, $2, $3) \
         ON CONFLICT (empresa_id) DO UPDATE SET saldo = timbres_saldo.saldo + excluded.saldo, updated_at = excluded.updated_at",
        empresa_id,
        cantidad,
        now
    )?;
    registrar_movimiento(tx, empresa_id, cantidad, concepto, user_id, now).await?;
    sql!(scalar_one * tx, i64, "SELECT saldo FROM timbres_saldo WHERE empresa_id = $1", empresa_id)
}

/// Takes one stamp for a live stamp about to be sent; the balance left, or `None` when there
/// was none (QUOTA_001). The row stays locked until `tx` ends.
pub async fn tomar(tx: &mut Tx, empresa_id: &EmpresaId, now: OffsetDateTime) -> crate::DbResult<Option<i64>> {
    sql!(
        scalar_optional * tx,
        i64,
        "UPDATE timbres_saldo SET saldo = saldo - 1, updated_at = $2 WHERE empresa_id = $1 AND saldo > 0 RETURNING saldo",
        empresa_id,
        now
    )
}

/// Gives back the stamp a refused attempt took.
pub async fn devolver(tx: &mut Tx, empresa_id: &EmpresaId, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE timbres_saldo SET saldo = saldo + 1, updated_at = $2 WHERE empresa_id = $1",
        empresa_id,
        now
    )
}

/// Records a movement of the balance (`cantidad` negative for a stamp spent).
pub async fn movimiento(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cantidad: i64,
    concepto: &str,
    user_id: &UserId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    registrar_movimiento(tx, empresa_id, cantidad, concepto, Some(user_id), now).await
}

async fn registrar_movimiento(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cantidad: i64,
    concepto: &str,
    user_id: Option<&UserId>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO timbres_movimientos (id, empresa_id, cantidad, concepto, user_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        ids::new_id(),
        empresa_id,
        cantidad,
        concepto,
        user_id,
        now
    )
}

/// Whether the company `empresa_id` exists (and was not deleted).
pub async fn empresa_activa(tx: &mut Tx, empresa_id: &EmpresaId) -> crate::DbResult<bool> {
    let found =
        sql!(scalar_optional * tx, String, "SELECT id FROM empresas WHERE id = $1 AND deleted_at IS NULL", empresa_id)?;
    Ok(found.is_some())
}
