//! The `descargas_uuid` table: downloads by UUID that run as jobs (same id), with the answer
//! once there is one. Scoped by company.

use crate::ids::{DescargaId, EmpresaId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Tx};

/// A download by UUID.
#[derive(Clone, Debug, FromRow)]
pub struct Descarga {
    /// Its company.
    pub empresa_id: EmpresaId,
    /// The UUID asked for.
    pub uuid: String,
    /// RUNNING or DONE.
    pub estado: String,
    /// The answer's HTTP status, once DONE.
    pub http_status: Option<i64>,
    /// The answer's JSON body, once DONE.
    pub respuesta: Option<String>,
}

/// Writes a RUNNING download (in the transaction that enqueues its job).
pub async fn crear(
    tx: &mut Tx,
    id: &DescargaId,
    empresa_id: &EmpresaId,
    uuid: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO descargas_uuid (id, empresa_id, uuid, estado, created_at, updated_at) VALUES ($1, $2, $3, 'RUNNING', $4, $4)",
        id,
        empresa_id,
        uuid,
        now
    )
}

/// Download `id` (any company: the job reads it).
pub async fn leer(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Option<Descarga>> {
    sql!(
        fetch_optional * conn,
        Descarga,
        "SELECT empresa_id, uuid, estado, http_status, respuesta FROM descargas_uuid WHERE id = $1",
        id
    )
}

/// Download `id` of the company (another company's is "not found").
pub async fn de_empresa(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &DescargaId,
) -> crate::DbResult<Option<Descarga>> {
    sql!(
        fetch_optional * conn,
        Descarga,
        "SELECT empresa_id, uuid, estado, http_status, respuesta FROM descargas_uuid WHERE id = $1 AND empresa_id = $2",
        id,
        empresa_id
    )
}

/// Records the answer.
pub async fn terminar(
    conn: &mut impl AsExec,
    id: &str,
    http_status: i64,
    respuesta: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE descargas_uuid SET estado = 'DONE', http_status = $1, respuesta = $2, updated_at = $3 WHERE id = $4",
        http_status,
        respuesta,
        now,
        id
    )
}
