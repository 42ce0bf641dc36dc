//! The `intentos_timbrado` table: every live folio sent to the PAC, so every gap in the live
//! folios is explained and an attempt whose outcome is unknown can be resolved (`cfdi::live`).
//! An attempt that became an invoice has the invoice's id.

use time::OffsetDateTime;

use crate::db::{AsExec, DbConn, Tx};
use crate::sql;

/// Sent to the PAC, no answer recorded yet (or the process died while waiting).
pub const ENVIADO: &str = "ENVIADO";
/// The PAC gave no usable answer: the outcome is unknown until reconciled.
pub const SIN_RESPUESTA: &str = "SIN_RESPUESTA";
/// The PAC refused: nothing was stamped.
pub const RECHAZADO: &str = "RECHAZADO";
/// Stamped; the invoice with this id exists.
pub const TIMBRADO: &str = "TIMBRADO";

/// One attempt, with what reconciling it needs.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Intento {
    /// Id (the invoice's, once stamped).
    pub id: String,
    /// The company.
    pub empresa_id: String,
    /// Serie.
    pub serie: String,
    /// Folio spent.
    pub folio: i64,
    /// [`ENVIADO`], [`SIN_RESPUESTA`], [`RECHAZADO`] or [`TIMBRADO`].
    pub status: String,
    /// The sealed XML sent (resent as it is; never sealed again).
    pub xml_sellado: Option<String>,
    /// SHA-256 hex of the request body.
    pub request_hash: Option<String>,
    /// The Idempotency-Key the request held.
    pub idempotency_key: Option<String>,
    /// Who asked.
    pub user_id: Option<String>,
    /// The customer of the invoice.
    pub cliente_id: Option<String>,
    /// Where the invoice's XML will be named.
    pub xml_path: Option<String>,
    /// The Idempotency-Key operation.
    pub operacion: Option<String>,
    /// Last change (an `ENVIADO` attempt older than the PAC's timeout is abandoned).
    pub updated_at: OffsetDateTime,
}

const COLUMNAS: &str = "SELECT id, empresa_id, serie, folio, status, xml_sellado, request_hash, idempotency_key, user_id, \
     cliente_id, xml_path, operacion, updated_at FROM intentos_timbrado ";

/// Records a new attempt, `ENVIADO`.
pub async fn insertar(tx: &mut Tx, intento: &Intento, now: OffsetDateTime) -> Result<u64, sqlx::Error> {
    sql!(
        execute * tx,
        "INSERT INTO intentos_timbrado (id, empresa_id, serie, folio, status, xml_sellado, request_hash, idempotency_key, \
         user_id, cliente_id, xml_path, operacion, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)",
        &intento.id,
        &intento.empresa_id,
        &intento.serie,
        intento.folio,
        &intento.status,
        &intento.xml_sellado,
        &intento.request_hash,
        &intento.idempotency_key,
        &intento.user_id,
        &intento.cliente_id,
        &intento.xml_path,
        &intento.operacion,
        now
    )
}

/// Attempt `id`.
pub async fn leer(conn: &mut DbConn, id: &str) -> Result<Option<Intento>, sqlx::Error> {
    sql!(fetch_optional * conn, Intento, sqlx::AssertSqlSafe(format!("{COLUMNAS}WHERE id = $1")), id)
}

/// The unresolved attempt of a request with this body, if one exists.
pub async fn pendiente_por_hash(
    conn: &mut DbConn,
    empresa_id: &str,
    request_hash: &str,
) -> Result<Option<Intento>, sqlx::Error> {
    let select = format!(
        "{COLUMNAS}WHERE empresa_id = $1 AND request_hash = $2 AND status IN ('{ENVIADO}', '{SIN_RESPUESTA}') \
         ORDER BY created_at LIMIT 1"
    );
    sql!(fetch_optional * conn, Intento, sqlx::AssertSqlSafe(select), empresa_id, request_hash)
}

/// Takes an unresolved attempt for a resend: `false` when another request or the job is
/// sending it (an `ENVIADO` attempt newer than `abandonado_antes`).
pub async fn tomar_para_reenvio(
    tx: &mut Tx,
    id: &str,
    now: OffsetDateTime,
    abandonado_antes: OffsetDateTime,
) -> Result<bool, sqlx::Error> {
    let tomados = sql!(
        execute * tx,
        "UPDATE intentos_timbrado SET status = 'ENVIADO', updated_at = $2 \
         WHERE id = $1 AND (status = 'SIN_RESPUESTA' OR (status = 'ENVIADO' AND updated_at <= $3))",
        id,
        now,
        abandonado_antes
    )?;
    Ok(tomados == 1)
}

/// The outcome is unknown.
pub async fn sin_respuesta(tx: &mut Tx, id: &str, error: &str, now: OffsetDateTime) -> Result<u64, sqlx::Error> {
    sql!(
        execute * tx,
        "UPDATE intentos_timbrado SET status = 'SIN_RESPUESTA', error = $2, updated_at = $3 \
         WHERE id = $1 AND status IN ('ENVIADO', 'SIN_RESPUESTA')",
        id,
        error,
        now
    )
}

/// The PAC refused; `false` when the attempt was already resolved.
pub async fn rechazado(
    tx: &mut Tx,
    id: &str,
    pac_code: Option<&str>,
    error: &str,
    now: OffsetDateTime,
) -> Result<bool, sqlx::Error> {
    let cambiados = sql!(
        execute * tx,
        "UPDATE intentos_timbrado SET status = 'RECHAZADO', pac_code = $2, error = $3, updated_at = $4 \
         WHERE id = $1 AND status IN ('ENVIADO', 'SIN_RESPUESTA')",
        id,
        pac_code,
        error,
        now
    )?;
    Ok(cambiados == 1)
}

/// Stamped; `false` when the attempt was already resolved (by an identical request or the job).
pub async fn timbrado(tx: &mut Tx, id: &str, now: OffsetDateTime) -> Result<bool, sqlx::Error> {
    let cambiados = sql!(
        execute * tx,
        "UPDATE intentos_timbrado SET status = 'TIMBRADO', error = NULL, updated_at = $2 \
         WHERE id = $1 AND status IN ('ENVIADO', 'SIN_RESPUESTA')",
        id,
        now
    )?;
    Ok(cambiados == 1)
}

/// The status and last change of attempt `id`, for the idempotency check.
pub async fn estado(conn: &mut impl AsExec, id: &str) -> Result<Option<(String, OffsetDateTime)>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Estado {
        status: String,
        updated_at: OffsetDateTime,
    }
    let estado =
        sql!(fetch_optional * conn, Estado, "SELECT status, updated_at FROM intentos_timbrado WHERE id = $1", id)?;
    Ok(estado.map(|e| (e.status, e.updated_at)))
}
