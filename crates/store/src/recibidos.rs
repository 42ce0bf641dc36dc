//! Received invoices in the `cfdis` table (`tipo = 'RECIBIDA'`, `origen = 'SAT_DESCARGA'`): one
//! row per UUID per company (a unique index), with their download state and retry schedule.
//! Scoped by company.

use crate::ids::{CfdiId, EmpresaId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, MultiInsert, Tx, Value};

/// `xmlDownloadStatus`: the XML is stored.
pub const COMPLETE: &str = "COMPLETE";
/// Only SAT's metadata is stored; background retries are scheduled.
pub const METADATA_ONLY: &str = "METADATA_ONLY";
/// The retries ran out without the XML.
pub const PERMANENT_METADATA_ONLY: &str = "PERMANENT_METADATA_ONLY";

/// The columns of a received row: `cfdi::pipeline::CFDIS_INSERT`'s, then the download state
/// and the seal checks ([`extra`] gives those in order).
const INSERT: &str = "INSERT INTO cfdis (id, empresa_id, tipo, origen, tipo_comprobante, sandbox, uuid, uuid_xml, serie, \
     folio, folio_num, fecha, fecha_timbrado, subtotal, descuento, total, moneda, tipo_cambio, forma_pago, metodo_pago, status, \
     emisor_rfc, emisor_nombre, emisor_regimen, receptor_rfc, receptor_nombre, receptor_uso_cfdi, emisor_nombre_lower, \
     receptor_nombre_lower, cliente_id, xml_url, conceptos, created_at, complementos, xml_download_status, xml_retry_count, \
     xml_next_retry_at, verificacion_sello, verificacion_timbre)";
const COLUMNS: usize = crate::cfdis::CFDIS_COLUMNS + 5;

/// The last five values of a received row.
pub fn extra(
    estado: &str,
    reintentos: i64,
    proximo: Option<OffsetDateTime>,
    verificacion_sello: Option<&str>,
    verificacion_timbre: Option<&str>,
) -> Vec<Value> {
    vec![
        estado.into(),
        reintentos.into(),
        proximo.into(),
        verificacion_sello.map(str::to_owned).into(),
        verificacion_timbre.map(str::to_owned).into(),
    ]
}

/// Writes a received row unless the company already holds its UUID; whether it was written.
pub async fn insertar(tx: &mut Tx, valores: Vec<Value>) -> crate::DbResult<bool> {
    let mut insert = MultiInsert::new(INSERT, COLUMNS, "ON CONFLICT DO NOTHING");
    insert.row(valores);
    Ok(insert.execute(tx).await? > 0)
}

/// A received invoice already stored.
#[derive(Clone, Debug, FromRow)]
pub struct Guardada {
    /// Id.
    pub id: CfdiId,
    /// COMPLETE, METADATA_ONLY or PERMANENT_METADATA_ONLY.
    pub xml_download_status: Option<String>,
    /// Background retries made.
    pub xml_retry_count: i64,
}

/// The company's received invoice with this UUID (upper case), if stored.
pub async fn por_uuid(conn: &mut impl AsExec, empresa_id: &EmpresaId, uuid: &str) -> crate::DbResult<Option<Guardada>> {
    sql!(
        fetch_optional * conn,
        Guardada,
        "SELECT id, xml_download_status, xml_retry_count FROM cfdis \
         WHERE empresa_id = $1 AND tipo = 'RECIBIDA' AND uuid_xml = $2",
        empresa_id,
        uuid
    )
}

/// Removes a metadata-only row that its XML replaces (the new row keeps its id).
pub async fn quitar_metadatos(tx: &mut Tx, empresa_id: &EmpresaId, id: &CfdiId) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "DELETE FROM cfdis WHERE id = $1 AND empresa_id = $2 AND tipo = 'RECIBIDA' AND xml_url IS NULL",
        id,
        empresa_id
    )
}

/// Records a failed background retry: the count, and the next one (or none, permanent).
pub async fn reintento_fallido(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &CfdiId,
    reintentos: i64,
    proximo: Option<OffsetDateTime>,
) -> crate::DbResult<u64> {
    let estado = if proximo.is_some() { METADATA_ONLY } else { PERMANENT_METADATA_ONLY };
    sql!(
        execute * tx,
        "UPDATE cfdis SET xml_retry_count = $1, xml_next_retry_at = $2, xml_download_status = $3 \
         WHERE id = $4 AND empresa_id = $5 AND xml_url IS NULL",
        reintentos,
        proximo,
        estado,
        id,
        empresa_id
    )
}

/// Counts a background retry as made before it runs (a completed row keeps the count).
pub async fn contar_reintento(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &CfdiId,
    reintentos: i64,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE cfdis SET xml_retry_count = $1 WHERE id = $2 AND empresa_id = $3 AND xml_url IS NULL",
        reintentos,
        id,
        empresa_id
    )
}

/// A metadata-only row a background retry works on.
#[derive(Clone, Debug, FromRow)]
pub struct PorReintentar {
    /// Its company.
    pub empresa_id: EmpresaId,
    /// UUID.
    pub uuid_xml: String,
    /// COMPLETE once the XML arrived some other way.
    pub xml_download_status: Option<String>,
    /// Retries made.
    pub xml_retry_count: i64,
}

/// The received row `id` (the retry job's payload names it; the row carries its company).
pub async fn por_reintentar(conn: &mut impl AsExec, id: &CfdiId) -> crate::DbResult<Option<PorReintentar>> {
    sql!(
        fetch_optional * conn,
        PorReintentar,
        "SELECT empresa_id, uuid_xml, xml_download_status, xml_retry_count FROM cfdis WHERE id = $1 AND tipo = 'RECIBIDA'",
        id
    )
}

/// How many received invoices the company holds.
pub async fn total(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<i64> {
    sql!(scalar_one * conn, i64, "SELECT COUNT(*) FROM cfdis WHERE empresa_id = $1 AND tipo = 'RECIBIDA'", empresa_id)
}
