//! The `intentos_timbrado` table: one row per live folio sent to the PAC (`ENVIADO`, then
//! `TIMBRADO`, `RECHAZADO` or `SIN_RESPUESTA`), so every folio that did not become an invoice
//! is explained, and an attempt whose outcome is unknown can be resolved (`cfdi::live`). An
//! attempt that became an invoice has the invoice's id. Scoped by company.

use crate::ids::{CfdiId, EmpresaId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::Paging;
use crate::sql;
use crate::{AsExec, DbConn, Tx};

/// Sent to the PAC, no answer recorded yet (or the process died while waiting).
pub const ENVIADO: &str = "ENVIADO";
/// The PAC gave no usable answer: the outcome is unknown until reconciled.
pub const SIN_RESPUESTA: &str = "SIN_RESPUESTA";
/// The PAC refused: nothing was stamped.
pub const RECHAZADO: &str = "RECHAZADO";
/// Stamped; the invoice with this id exists.
pub const TIMBRADO: &str = "TIMBRADO";

/// One attempt, with what reconciling it needs.
#[derive(Clone, Debug, FromRow)]
pub struct Intento {
    /// Id (the invoice's, once stamped).
    pub id: String,
    /// The company.
    pub empresa_id: EmpresaId,
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
pub async fn insertar(tx: &mut Tx, intento: &Intento, now: OffsetDateTime) -> crate::DbResult<u64> {
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
pub async fn leer(conn: &mut DbConn, id: &str) -> crate::DbResult<Option<Intento>> {
    sql!(fetch_optional * conn, Intento, sqlx::AssertSqlSafe(format!("{COLUMNAS}WHERE id = $1")), id)
}

/// The unresolved attempt of a request with this body, if one exists.
pub async fn pendiente_por_hash(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    request_hash: &str,
) -> crate::DbResult<Option<Intento>> {
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
) -> crate::DbResult<bool> {
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
pub async fn sin_respuesta(tx: &mut Tx, id: &str, error: &str, now: OffsetDateTime) -> crate::DbResult<u64> {
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
) -> crate::DbResult<bool> {
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
pub async fn timbrado(tx: &mut Tx, id: &str, now: OffsetDateTime) -> crate::DbResult<bool> {
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
pub async fn estado(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Option<(String, OffsetDateTime)>> {
    #[derive(sqlx::FromRow)]
    struct Estado {
        status: String,
        updated_at: OffsetDateTime,
    }
    let estado =
        sql!(fetch_optional * conn, Estado, "SELECT status, updated_at FROM intentos_timbrado WHERE id = $1", id)?;
    Ok(estado.map(|e| (e.status, e.updated_at)))
}

/// A stamping attempt with the invoice it became, if any.
#[derive(FromRow)]
pub struct IntentoRow {
    /// The attempt's id (the invoice's id when it was stamped).
    pub id: String,
    /// Serie.
    pub serie: String,
    /// Folio number.
    pub folio: i64,
    /// ENVIADO, TIMBRADO, RECHAZADO or SIN_RESPUESTA.
    pub status: String,
    /// The PAC's or SAT's code of a refusal.
    pub pac_code: Option<String>,
    /// What went wrong, as recorded.
    pub error: Option<String>,
    /// The invoice it became.
    pub cfdi_id: Option<CfdiId>,
    /// That invoice's UUID as the API shows it.
    pub uuid: Option<String>,
    /// When the folio was sent.
    pub created_at: OffsetDateTime,
    /// Last change.
    pub updated_at: OffsetDateTime,
}

/// Filters of [`pagina`].
#[derive(Default)]
pub struct Filtro {
    /// Only this serie.
    pub serie: Option<String>,
    /// Folios from this number.
    pub desde: Option<i64>,
    /// Folios up to this number.
    pub hasta: Option<i64>,
    /// Only this status.
    pub status: Option<String>,
}

const FROM_WHERE: &str = "FROM intentos_timbrado i LEFT JOIN cfdis c ON c.id = i.id AND c.empresa_id = i.empresa_id \
    WHERE i.empresa_id = $1 AND ($2 IS NULL OR i.serie = $2) AND ($3 IS NULL OR i.folio >= $3) \
    AND ($4 IS NULL OR i.folio <= $4) AND ($5 IS NULL OR i.status = $5)";

/// One page of the company's attempts in serie and folio order, and how many match.
pub async fn pagina(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    filtro: &Filtro,
    paging: &Paging,
) -> crate::DbResult<(Vec<IntentoRow>, i64)> {
    let total = sql!(
        scalar_one * conn,
        i64,
        sqlx::AssertSqlSafe(format!("SELECT COUNT(*) {FROM_WHERE}")),
        empresa_id,
        &filtro.serie,
        filtro.desde,
        filtro.hasta,
        &filtro.status
    )?;
    let items = sql!(
        fetch_all * conn,
        IntentoRow,
        crate::with_limit(
            &format!(
                "SELECT i.id, i.serie, i.folio, i.status, i.pac_code, i.error, c.id AS cfdi_id, c.uuid, i.created_at, \
             i.updated_at {FROM_WHERE} ORDER BY i.serie, i.folio LIMIT {{limit}} OFFSET $6"
            ),
            paging.page_size
        ),
        empresa_id,
        &filtro.serie,
        filtro.desde,
        filtro.hasta,
        &filtro.status,
        paging.offset()
    )?;
    Ok((items, total))
}

/// A folio number used by an invoice stamped here.
#[derive(FromRow)]
pub struct FolioCfdi {
    /// Folio number.
    pub folio: i64,
    /// The invoice's id.
    pub id: String,
    /// UUID as the API shows it.
    pub uuid: String,
    /// TIMBRADO, TIMBRADO_SANDBOX or CANCELADO.
    pub status: String,
}

/// What used each folio of `serie` from `desde` to `hasta` in one mode: the invoices stamped
/// here, and (live mode) the attempts.
pub async fn usos(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    sandbox: bool,
    serie: &str,
    desde: i64,
    hasta: i64,
) -> crate::DbResult<(Vec<FolioCfdi>, Vec<IntentoRow>)> {
    let cfdis = sql!(
        fetch_all * conn,
        FolioCfdi,
        "SELECT folio_num AS folio, id, uuid, status FROM cfdis WHERE empresa_id = $1 AND origen = 'API' AND sandbox = $2 \
         AND serie = $3 AND folio_num >= $4 AND folio_num <= $5 ORDER BY folio_num",
        empresa_id,
        sandbox,
        serie,
        desde,
        hasta
    )?;
    let intentos = if sandbox {
        Vec::new()
    } else {
        let filtro = Filtro { serie: Some(serie.to_owned()), desde: Some(desde), hasta: Some(hasta), status: None };
        sql!(
            fetch_all * conn,
            IntentoRow,
            sqlx::AssertSqlSafe(format!(
                "SELECT i.id, i.serie, i.folio, i.status, i.pac_code, i.error, c.id AS cfdi_id, c.uuid, i.created_at, \
                 i.updated_at {FROM_WHERE} ORDER BY i.folio"
            )),
            empresa_id,
            &filtro.serie,
            filtro.desde,
            filtro.hasta,
            &filtro.status
        )?
    };
    Ok((cfdis, intentos))
}
