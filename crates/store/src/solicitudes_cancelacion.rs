//! The `solicitudes_cancelacion` table: cancellation requests of CFDI a company received,
//! waiting for (or given) its answer. Every query is scoped by company, except the sandbox
//! bookkeeping that follows the issuer's invoice across the installation's sandbox companies.

use crate::ids::{CfdiId, EmpresaId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{DbConn, Money, Tx};

/// A request as the receiver sees it, with what the stored received CFDI says of it.
#[derive(FromRow, Clone, Debug)]
pub struct SolicitudRow {
    /// Id.
    pub id: String,
    /// UUID of the CFDI (upper case).
    pub uuid: String,
    /// PAC or SANDBOX.
    pub origen: String,
    /// The issuer's RFC: the received CFDI's, else what the request said.
    pub rfc_emisor: Option<String>,
    /// The issuer's name: the received CFDI's, else what the request said.
    pub nombre_emisor: Option<String>,
    /// Total: the received CFDI's, else what the request said.
    pub total: Option<Money>,
    /// The received CFDI stored in this company, when there is one.
    pub cfdi_id: Option<CfdiId>,
    /// Sandbox: the issuer's invoice.
    pub cfdi_emitido_id: Option<String>,
    /// When the request was made (or first seen, when the PAC gives no date).
    pub fecha_solicitud: OffsetDateTime,
    /// Three business days later.
    pub plazo_vence: OffsetDateTime,
    /// `aceptar` or `rechazar` once answered.
    pub respuesta: Option<String>,
    /// SAT's `EstatusCancelacion` after it ended.
    pub estatus: Option<String>,
    /// The acuse of the answer.
    pub acuse: Option<String>,
    /// When it was answered.
    pub respondida_en: Option<OffsetDateTime>,
    /// When it ended without this company's answer.
    pub cerrada_en: Option<OffsetDateTime>,
}

/// The columns of [`SolicitudRow`] over `s` (the request) left-joined with `c` (the received
/// CFDI of the same company and UUID).
const COLUMNAS: &str = "SELECT s.id, s.uuid, s.origen, COALESCE(c.emisor_rfc, s.rfc_emisor) AS rfc_emisor, \
    COALESCE(c.emisor_nombre, s.nombre_emisor) AS nombre_emisor, COALESCE(c.total, s.total) AS total, \
    c.id AS cfdi_id, s.cfdi_emitido_id, s.fecha_solicitud, s.plazo_vence, s.respuesta, s.estatus, s.acuse, \
    s.respondida_en, s.cerrada_en FROM solicitudes_cancelacion s \
    LEFT JOIN cfdis c ON c.empresa_id = s.empresa_id AND c.uuid_xml = s.uuid AND c.tipo = 'RECIBIDA' ";

/// A request to record.
pub struct Nueva<'a> {
    /// Id.
    pub id: &'a str,
    /// The receiver.
    pub empresa_id: &'a EmpresaId,
    /// UUID, upper case.
    pub uuid: &'a str,
    /// PAC or SANDBOX.
    pub origen: &'a str,
    /// The issuer's RFC when known.
    pub rfc_emisor: Option<&'a str>,
    /// The issuer's name when known.
    pub nombre_emisor: Option<&'a str>,
    /// Total when known.
    pub total: Option<Money>,
    /// Sandbox: the issuer's invoice.
    pub cfdi_emitido_id: Option<&'a str>,
    /// When it was made.
    pub fecha_solicitud: OffsetDateTime,
    /// Its deadline.
    pub plazo_vence: OffsetDateTime,
}

/// Records `nueva` unless the company has an open request for the UUID; 1 when written.
pub async fn insertar(tx: &mut Tx, nueva: &Nueva<'_>, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO solicitudes_cancelacion (id, empresa_id, uuid, origen, rfc_emisor, nombre_emisor, total, \
         cfdi_emitido_id, fecha_solicitud, plazo_vence, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) ON CONFLICT DO NOTHING",
        nueva.id,
        nueva.empresa_id,
        nueva.uuid,
        nueva.origen,
        nueva.rfc_emisor,
        nueva.nombre_emisor,
        nueva.total,
        nueva.cfdi_emitido_id,
        nueva.fecha_solicitud,
        nueva.plazo_vence,
        now
    )
}

/// A page of the company's open requests, the nearest deadline first, and how many there are.
pub async fn abiertas(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    limit: i64,
    offset: i64,
) -> crate::DbResult<(Vec<SolicitudRow>, i64)> {
    let total = sql!(
        scalar_one * conn,
        i64,
        "SELECT COUNT(*) FROM solicitudes_cancelacion WHERE empresa_id = $1 AND respuesta IS NULL AND cerrada_en IS NULL",
        empresa_id
    )?;
    let filas = sql!(
        fetch_all * conn,
        SolicitudRow,
        sqlx::AssertSqlSafe(format!(
            "{COLUMNAS}WHERE s.empresa_id = $1 AND s.respuesta IS NULL AND s.cerrada_en IS NULL \
             ORDER BY s.plazo_vence, s.uuid LIMIT $2 OFFSET $3"
        )),
        empresa_id,
        limit,
        offset
    )?;
    Ok((filas, total))
}

/// The UUIDs of the company's open requests from `origen`.
pub async fn uuids_abiertos(conn: &mut DbConn, empresa_id: &EmpresaId, origen: &str) -> crate::DbResult<Vec<String>> {
    sql!(
        fetch_all * conn,
        (String,),
        "SELECT uuid FROM solicitudes_cancelacion WHERE empresa_id = $1 AND origen = $2 \
         AND respuesta IS NULL AND cerrada_en IS NULL",
        empresa_id,
        origen
    )
    .map(|filas| filas.into_iter().map(|(uuid,)| uuid).collect())
}

/// The company's latest request for `uuid` (open, answered or closed).
pub async fn ultima(
    conn: &mut impl crate::AsExec,
    empresa_id: &EmpresaId,
    uuid: &str,
) -> crate::DbResult<Option<SolicitudRow>> {
    sql!(
        fetch_optional * conn,
        SolicitudRow,
        sqlx::AssertSqlSafe(format!(
            "{COLUMNAS}WHERE s.empresa_id = $1 AND s.uuid = $2 ORDER BY s.created_at DESC, s.id DESC LIMIT 1"
        )),
        empresa_id,
        uuid
    )
}

/// The company's latest requests, answered or closed, most recent first (the Buzón).
pub async fn recientes(conn: &mut DbConn, empresa_id: &EmpresaId, limit: i64) -> crate::DbResult<Vec<SolicitudRow>> {
    sql!(
        fetch_all * conn,
        SolicitudRow,
        sqlx::AssertSqlSafe(format!(
            "{COLUMNAS}WHERE s.empresa_id = $1 AND (s.respuesta IS NOT NULL OR s.cerrada_en IS NOT NULL) \
             ORDER BY s.updated_at DESC, s.id DESC LIMIT $2"
        )),
        empresa_id,
        limit
    )
}

/// What answering a request records.
pub struct Respuesta<'a> {
    /// `aceptar` or `rechazar`.
    pub respuesta: &'a str,
    /// SAT's `EstatusCancelacion` after the answer.
    pub estatus: &'a str,
    /// The acuse.
    pub acuse: &'a str,
}

/// Records the company's answer to its open request `id`; 0 rows when it was answered or
/// closed meanwhile.
pub async fn responder(tx: &mut Tx, id: &str, respuesta: &Respuesta<'_>, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE solicitudes_cancelacion SET respuesta = $1, estatus = $2, acuse = $3, respondida_en = $4, \
         updated_at = $4 WHERE id = $5 AND respuesta IS NULL AND cerrada_en IS NULL",
        respuesta.respuesta,
        respuesta.estatus,
        respuesta.acuse,
        now,
        id
    )
}

/// Closes the company's open request for `uuid` without its answer (the deadline passed, the
/// PAC no longer lists it); 0 rows when none was open.
pub async fn cerrar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    uuid: &str,
    estatus: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE solicitudes_cancelacion SET estatus = $1, cerrada_en = $2, updated_at = $2 \
         WHERE empresa_id = $3 AND uuid = $4 AND respuesta IS NULL AND cerrada_en IS NULL",
        estatus,
        now,
        empresa_id,
        uuid
    )
}

/// Sandbox: closes every open request of the issuer's invoice `cfdi_emitido_id` (in any
/// company) with `estatus`; the companies whose request was closed.
pub async fn cerrar_de_emitido(
    tx: &mut Tx,
    cfdi_emitido_id: &CfdiId,
    estatus: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE solicitudes_cancelacion SET estatus = $1, cerrada_en = $2, updated_at = $2 \
         WHERE cfdi_emitido_id = $3 AND respuesta IS NULL AND cerrada_en IS NULL",
        estatus,
        now,
        cfdi_emitido_id
    )
}

/// Sandbox: the companies with an open request for the issuer's invoice `cfdi_emitido_id`.
pub async fn empresas_con_abierta(tx: &mut Tx, cfdi_emitido_id: &CfdiId) -> crate::DbResult<Vec<(String, String)>> {
    sql!(
        fetch_all * tx,
        (String, String),
        "SELECT empresa_id, uuid FROM solicitudes_cancelacion WHERE cfdi_emitido_id = $1 \
         AND respuesta IS NULL AND cerrada_en IS NULL",
        cfdi_emitido_id
    )
}
