//! The `memberships` table: who belongs to a company and with which role. Deleted users do not
//! count (a company keeps at least one active PROPIETARIO).

use crate::ids::{EmpresaId, UserId};
use time::OffsetDateTime;

use crate::sql;
use crate::{DbConn, Tx};

/// The company's members who still have an account, oldest first.
pub async fn de_empresa(conn: &mut DbConn, empresa_id: &EmpresaId) -> crate::DbResult<Vec<MemberRow>> {
    sql!(
        fetch_all * conn,
        MemberRow,
        "SELECT m.user_id, u.name, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id \
         WHERE m.empresa_id = $1 AND u.deleted_at IS NULL ORDER BY m.created_at, m.user_id",
        empresa_id
    )
}

/// The id of the active user with this (lower-case) email.
pub async fn usuario_por_email(tx: &mut Tx, email_lower: &str) -> crate::DbResult<Option<String>> {
    sql!(
        scalar_optional * tx,
        String,
        "SELECT id FROM users WHERE email_lower = $1 AND deleted_at IS NULL",
        email_lower
    )
}

/// The stored role of `user_id` in the company, if a member.
pub async fn rol(tx: &mut Tx, empresa_id: &EmpresaId, user_id: &UserId) -> crate::DbResult<Option<String>> {
    sql!(
        scalar_optional * tx,
        String,
        "SELECT role FROM memberships WHERE empresa_id = $1 AND user_id = $2",
        empresa_id,
        user_id
    )
}

/// How many PROPIETARIO members with an account the company has.
pub async fn propietarios_activos(tx: &mut Tx, empresa_id: &EmpresaId) -> crate::DbResult<i64> {
    sql!(
        scalar_one * tx,
        i64,
        "SELECT COUNT(*) FROM memberships m JOIN users u ON u.id = m.user_id \
         WHERE m.empresa_id = $1 AND m.role = 'PROPIETARIO' AND u.deleted_at IS NULL",
        empresa_id
    )
}

/// Adds `user_id` with `role`.
pub async fn agregar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    user_id: &UserId,
    role: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO memberships (empresa_id, user_id, role, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
        empresa_id,
        user_id,
        role,
        now
    )
}

/// Changes `user_id`'s role.
pub async fn cambiar_rol(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    user_id: &UserId,
    role: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE memberships SET role = $1, updated_at = $2 WHERE empresa_id = $3 AND user_id = $4",
        role,
        now,
        empresa_id,
        user_id
    )
}

/// Removes `user_id` from the company.
pub async fn quitar(tx: &mut Tx, empresa_id: &EmpresaId, user_id: &UserId) -> crate::DbResult<u64> {
    sql!(execute * tx, "DELETE FROM memberships WHERE empresa_id = $1 AND user_id = $2", empresa_id, user_id)
}

/// A stored row of `MemberOut` (the API answers it as `MemberOut`).
#[derive(sqlx::FromRow)]
pub struct MemberRow {
    /// `user_id`.
    pub user_id: UserId,
    /// `name`.
    pub name: String,
    /// `email`.
    pub email: String,
    /// `role`.
    pub role: String,
    /// `created_at`.
    pub created_at: OffsetDateTime,
}

/// A user's standing in a company (the auth cache keeps it).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Access {
    /// The company's sandbox flag.
    pub sandbox: bool,
    /// The stored role name.
    pub role: String,
}

/// `user_id`'s standing in the company: `None` when not a member or the company is deleted.
pub async fn access(conn: &mut DbConn, empresa_id: &EmpresaId, user_id: &UserId) -> crate::DbResult<Option<Access>> {
    sql!(
        fetch_optional * conn,
        Access,
        "SELECT e.sandbox, m.role FROM empresas e JOIN memberships m ON m.empresa_id = e.id AND m.user_id = $2 \
         WHERE e.id = $1 AND e.deleted_at IS NULL",
        empresa_id,
        user_id
    )
}
