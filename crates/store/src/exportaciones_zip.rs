//! The `exportaciones_zip` table: a period's CFDI in one ZIP (`POST /api/cfdi/zip`), written
//! with its job (same id) and updated as the job builds the file. Scoped by company.

use crate::ids::{EmpresaId, ExportacionId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Tx};

/// An export and its outcome.
#[derive(Clone, Debug, FromRow)]
pub struct ExportacionRow {
    /// Its id (its job's: `jobId`).
    pub id: String,
    /// Its company.
    pub empresa_id: EmpresaId,
    /// The request as checked (JSON).
    pub filtro: String,
    /// PENDIENTE, EN_PROCESO, TERMINADO or FALLIDO.
    pub status: String,
    /// CFDI listed in `resumen.csv`.
    pub cfdis: i64,
    /// Files in the ZIP, `resumen.csv` included.
    pub archivos: i64,
    /// Size of the ZIP.
    pub bytes: i64,
    /// Where the ZIP is in the file storage (TERMINADO).
    pub path: Option<String>,
    /// Why it failed (FALLIDO), or the last attempt's error while it is retried.
    pub error: Option<String>,
    /// Asked for.
    pub created_at: OffsetDateTime,
    /// Last change.
    pub updated_at: OffsetDateTime,
}

const COLUMNS: &str = "SELECT id, empresa_id, filtro, status, cfdis, archivos, bytes, path, error, created_at, updated_at FROM exportaciones_zip ";

/// Writes a PENDIENTE export (in the transaction that enqueues its job).
pub async fn crear(
    tx: &mut Tx,
    id: &ExportacionId,
    empresa_id: &EmpresaId,
    filtro: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO exportaciones_zip (id, empresa_id, filtro, status, created_at, updated_at) \
         VALUES ($1, $2, $3, 'PENDIENTE', $4, $4)",
        id,
        empresa_id,
        filtro,
        now
    )
}

/// Export `id` of the company (another company's is "not found").
pub async fn leer(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &ExportacionId,
) -> crate::DbResult<Option<ExportacionRow>> {
    sql!(
        fetch_optional * conn,
        ExportacionRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE id = $1 AND empresa_id = $2")),
        id,
        empresa_id
    )
}

/// Export `id` (any company: its job reads it).
pub async fn por_id(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Option<ExportacionRow>> {
    sql!(fetch_optional * conn, ExportacionRow, sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE id = $1")), id)
}

/// The company's most recent exports, newest first.
pub async fn recientes(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    limit: i64,
) -> crate::DbResult<Vec<ExportacionRow>> {
    sql!(
        fetch_all * conn,
        ExportacionRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE empresa_id = $1 ORDER BY created_at DESC, id DESC LIMIT {limit}")),
        empresa_id
    )
}

/// Sets the status (and the last error) of an export still in course.
pub async fn marcar(
    conn: &mut impl AsExec,
    id: &str,
    status: &str,
    error: Option<&str>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE exportaciones_zip SET status = $1, error = $2, updated_at = $3 WHERE id = $4 AND status <> 'TERMINADO'",
        status,
        error,
        now,
        id
    )
}

/// What a finished export wrote.
pub struct Terminada<'a> {
    /// CFDI in `resumen.csv`.
    pub cfdis: i64,
    /// Files in the ZIP.
    pub archivos: i64,
    /// Its size.
    pub bytes: i64,
    /// Its storage path.
    pub path: &'a str,
}

/// Records a finished export: TERMINADO with its counts and where the ZIP is.
pub async fn terminar(
    conn: &mut impl AsExec,
    id: &str,
    hecho: &Terminada<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE exportaciones_zip SET status = 'TERMINADO', cfdis = $1, archivos = $2, bytes = $3, path = $4, \
         error = NULL, updated_at = $5 WHERE id = $6",
        hecho.cfdis,
        hecho.archivos,
        hecho.bytes,
        hecho.path,
        now,
        id
    )
}
