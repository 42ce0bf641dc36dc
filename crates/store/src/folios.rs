//! The `folios` table: the last folio taken per company, mode and serie. Each serie runs 1..N
//! on its own; the row lock a taking statement holds until commit keeps concurrent stamps of
//! the serie in line.

use crate::ids::EmpresaId;
use time::OffsetDateTime;

use crate::{DbConn, DbResult, Tx, sql};

/// The last folio the serie used in this mode (0 when none).
pub async fn ultimo(conn: &mut DbConn, empresa_id: &EmpresaId, sandbox: bool, serie: &str) -> DbResult<i64> {
    let ultimo = sql!(
        scalar_optional * conn,
        i64,
        "SELECT ultimo FROM folios WHERE empresa_id = $1 AND sandbox = $2 AND serie = $3",
        empresa_id,
        sandbox,
        serie
    )?;
    Ok(ultimo.unwrap_or(0))
}

/// Takes `cantidad` folios of (`empresa_id`, mode, `serie`) in one statement and gives the
/// last of them (the batch has `ultimo - cantidad + 1 ..= ultimo`).
pub async fn tomar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    sandbox: bool,
    serie: &str,
    cantidad: i64,
    now: OffsetDateTime,
) -> DbResult<i64> {
    sql!(
        scalar_one * tx,
        i64,
        "INSERT INTO folios (empresa_id, sandbox, serie, ultimo, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) \
         ON CONFLICT (empresa_id, sandbox, serie) DO UPDATE SET ultimo = folios.ultimo + $4, updated_at = $5 RETURNING ultimo",
        empresa_id,
        sandbox,
        serie,
        cantidad,
        now
    )
}
