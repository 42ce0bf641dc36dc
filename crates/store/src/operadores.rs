//! The installation's operators (`operadores`): accounts that may add stamps to any company's
//! balance. Given and taken only on the server's command line (`timbra operadores …`), never
//! through the API.

use crate::ids::UserId;
use time::OffsetDateTime;

use crate::DbConn;
use crate::sql;

/// Makes the account `user_id` an operator; `false` when it already was one.
pub async fn agregar(conn: &mut DbConn, user_id: &UserId, now: OffsetDateTime) -> crate::DbResult<bool> {
    let added = sql!(
        execute * conn,
        "INSERT INTO operadores (user_id, created_at, updated_at) VALUES ($1, $2, $2) ON CONFLICT (user_id) DO NOTHING",
        user_id,
        now
    )?;
    Ok(added > 0)
}

/// Takes the operator role from the account `user_id`; `false` when it had none.
pub async fn quitar(conn: &mut DbConn, user_id: &UserId) -> crate::DbResult<bool> {
    Ok(sql!(execute * conn, "DELETE FROM operadores WHERE user_id = $1", user_id)? > 0)
}

/// Whether the active account `user_id` is an operator.
pub async fn es_operador(conn: &mut DbConn, user_id: &UserId) -> crate::DbResult<bool> {
    let found = sql!(
        scalar_optional * conn,
        String,
        "SELECT o.user_id FROM operadores o JOIN users u ON u.id = o.user_id WHERE o.user_id = $1 AND u.deleted_at IS NULL",
        user_id
    )?;
    Ok(found.is_some())
}

/// The operators' emails, in order.
pub async fn listar(conn: &mut DbConn) -> crate::DbResult<Vec<String>> {
    sql!(
        fetch_all * conn,
        (String,),
        "SELECT u.email FROM operadores o JOIN users u ON u.id = o.user_id WHERE u.deleted_at IS NULL ORDER BY u.email_lower"
    )
    .map(|rows| rows.into_iter().map(|(email,)| email).collect())
}
