//! The `sat_cuota` table: XML downloaded from SAT per RFC and Mexico City day. A reservation
//! checks the limit and raises the count in one UPDATE on the (rfc, day) row, so processes
//! sharing a PostgreSQL database never pass the limit together (the row lock orders them).

use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Tx};

/// Reserves up to `cantidad` downloads under `limite`; gives (granted, used after).
pub async fn reservar(
    tx: &mut Tx,
    rfc: &str,
    dia: &str,
    cantidad: i64,
    limite: i64,
    now: OffsetDateTime,
) -> crate::DbResult<(i64, i64)> {
    sql!(
        execute * tx,
        "INSERT INTO sat_cuota (rfc, dia, usadas, concedidas, created_at, updated_at) VALUES ($1, $2, 0, 0, $3, $3) \
         ON CONFLICT (rfc, dia) DO NOTHING",
        rfc,
        dia,
        now
    )?;
    // Both assignments read the row as it was: `concedidas` is what this call adds.
    sql!(
        fetch_one * tx,
        (i64, i64),
        "UPDATE sat_cuota SET \
           concedidas = CASE WHEN usadas >= $3 THEN 0 WHEN usadas + $4 > $3 THEN $3 - usadas ELSE $4 END, \
           usadas = usadas + CASE WHEN usadas >= $3 THEN 0 WHEN usadas + $4 > $3 THEN $3 - usadas ELSE $4 END, \
           updated_at = $5 \
         WHERE rfc = $1 AND dia = $2 RETURNING concedidas, usadas",
        rfc,
        dia,
        limite,
        cantidad,
        now
    )
}

/// Gives back downloads reserved but not used (a duplicate met while storing).
pub async fn devolver(tx: &mut Tx, rfc: &str, dia: &str, cantidad: i64, now: OffsetDateTime) -> crate::DbResult<u64> {
    if cantidad <= 0 {
        return Ok(0);
    }
    sql!(
        execute * tx,
        "UPDATE sat_cuota SET usadas = CASE WHEN usadas > $3 THEN usadas - $3 ELSE 0 END, updated_at = $4 \
         WHERE rfc = $1 AND dia = $2",
        rfc,
        dia,
        cantidad,
        now
    )
}

/// Downloads counted for `rfc` on `dia`.
pub async fn usadas(conn: &mut impl AsExec, rfc: &str, dia: &str) -> crate::DbResult<i64> {
    Ok(sql!(scalar_optional * conn, i64, "SELECT usadas FROM sat_cuota WHERE rfc = $1 AND dia = $2", rfc, dia)?
        .unwrap_or(0))
}
