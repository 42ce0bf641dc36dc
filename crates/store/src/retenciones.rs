//! The `retenciones` table: what only a CFDI de Retenciones has beside its `cfdis` row (type
//! `RET`), for its listing's filters and its detail. Scoped by company.

use crate::ids::{CfdiId, EmpresaId, UserId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Money, Tx};

/// A retention's own fields, as written with its stamp.
pub struct NuevaRetencion<'a> {
    /// Its CFDI row.
    pub cfdi_id: &'a CfdiId,
    /// Its company.
    pub empresa_id: &'a EmpresaId,
    /// `FolioInt`.
    pub folio_int: Option<&'a str>,
    /// c_CveRetenc.
    pub cve_retenc: &'a str,
    /// Nacional or Extranjero.
    pub nacionalidad: &'a str,
    /// `RfcR` of a national receiver.
    pub receptor_rfc: Option<&'a str>,
    /// `NomDenRazSocR`.
    pub receptor_nombre: &'a str,
    /// `Periodo`.
    pub mes_ini: i64,
    /// `Periodo`.
    pub mes_fin: i64,
    /// `Periodo`.
    pub ejercicio: i64,
    /// `MontoTotOperacion`.
    pub monto_tot_operacion: Money,
    /// `MontoTotRet`.
    pub monto_tot_ret: Money,
    /// The document's data under the API's names (JSON).
    pub detalle: &'a str,
}

/// Writes a stamped retention's fields in the stamp's transaction.
pub async fn insertar(tx: &mut Tx, r: &NuevaRetencion<'_>, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO retenciones (cfdi_id, empresa_id, folio_int, cve_retenc, nacionalidad, receptor_rfc, receptor_nombre, \
         mes_ini, mes_fin, ejercicio, monto_tot_operacion, monto_tot_ret, detalle, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        r.cfdi_id,
        r.empresa_id,
        r.folio_int,
        r.cve_retenc,
        r.nacionalidad,
        r.receptor_rfc,
        r.receptor_nombre,
        r.mes_ini,
        r.mes_fin,
        r.ejercicio,
        r.monto_tot_operacion,
        r.monto_tot_ret,
        r.detalle,
        now
    )
}

/// A retention as listed and shown.
#[derive(FromRow)]
pub struct RetencionRow {
    /// Its id (its CFDI row's).
    pub id: String,
    /// UUID as the API shows it.
    pub uuid: String,
    /// TIMBRADO, TIMBRADO_SANDBOX, CANCELADO.
    pub status: String,
    /// EMITIDA, or RECIBIDA (downloaded from SAT's retention service).
    pub tipo: String,
    /// `FechaExp`.
    pub fecha: OffsetDateTime,
    /// TFD `FechaTimbrado`.
    pub fecha_timbrado: Option<OffsetDateTime>,
    /// `FolioInt`.
    pub folio_int: Option<String>,
    /// c_CveRetenc.
    pub cve_retenc: String,
    /// Nacional or Extranjero.
    pub nacionalidad: String,
    /// `RfcR`.
    pub receptor_rfc: Option<String>,
    /// `NomDenRazSocR`.
    pub receptor_nombre: String,
    /// `Periodo`.
    pub mes_ini: i64,
    /// `Periodo`.
    pub mes_fin: i64,
    /// `Periodo`.
    pub ejercicio: i64,
    /// `MontoTotOperacion`.
    pub monto_tot_operacion: Money,
    /// `MontoTotRet`.
    pub monto_tot_ret: Money,
    /// The document's data (JSON).
    pub detalle: String,
    /// Storage path of the XML.
    pub xml_url: Option<String>,
    /// Stamped in sandbox.
    pub sandbox: bool,
    /// `Emisor/@RfcE` (the company itself for an issued one).
    pub emisor_rfc: String,
    /// `Emisor/@NomDenRazSocE`.
    pub emisor_nombre: String,
}

const COLUMNS: &str = "SELECT c.id, c.uuid, c.status, c.tipo, c.fecha, c.fecha_timbrado, r.folio_int, r.cve_retenc, \
     r.nacionalidad, r.receptor_rfc, r.receptor_nombre, r.mes_ini, r.mes_fin, r.ejercicio, r.monto_tot_operacion, \
     r.monto_tot_ret, r.detalle, c.xml_url, c.sandbox, c.emisor_rfc, c.emisor_nombre \
     FROM retenciones r JOIN cfdis c ON c.id = r.cfdi_id ";

/// Which retentions a listing shows.
#[derive(Debug, Default)]
pub struct Filtro {
    /// `Periodo/@Ejercicio`.
    pub ejercicio: Option<i64>,
    /// A month within `MesIni..=MesFin`.
    pub mes: Option<i64>,
    /// The receiver's RFC (or the start of it) or words of its name.
    pub receptor: Option<String>,
    /// A status; TIMBRADO also matches TIMBRADO_SANDBOX.
    pub status: Option<String>,
    /// EMITIDA or RECIBIDA (`cfdis.tipo`); `None` lists both.
    pub tipo: Option<String>,
    /// The issuer's RFC (or the start of it) or words of its name (received ones).
    pub emisor: Option<String>,
}

/// A page of the company's retentions, most recent first, with the total that matches.
pub async fn listar(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    filtro: &Filtro,
    limit: i64,
    offset: i64,
) -> crate::DbResult<(Vec<RetencionRow>, i64)> {
    // Optional filters as `($n IS NULL OR …)`, so one SQL text serves every combination.
    let filter = "WHERE r.empresa_id = $1 AND ($2 IS NULL OR r.ejercicio = $2) \
         AND ($3 IS NULL OR (r.mes_ini <= $3 AND r.mes_fin >= $3)) \
         AND ($4 IS NULL OR r.receptor_rfc LIKE $4 || '%' OR LOWER(r.receptor_nombre) LIKE '%' || LOWER($4) || '%') \
         AND ($5 IS NULL OR c.status = $5 OR ($5 = 'TIMBRADO' AND c.status = 'TIMBRADO_SANDBOX')) \
         AND ($6 IS NULL OR c.tipo = $6) \
         AND ($7 IS NULL OR c.emisor_rfc LIKE $7 || '%' OR LOWER(c.emisor_nombre) LIKE '%' || LOWER($7) || '%')";
    let receptor = filtro.receptor.as_deref().map(str::trim).filter(|r| !r.is_empty());
    let emisor = filtro.emisor.as_deref().map(str::trim).filter(|e| !e.is_empty());
    let total = sql!(
        scalar_one * conn,
        i64,
        sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM retenciones r JOIN cfdis c ON c.id = r.cfdi_id {filter}")),
        empresa_id,
        filtro.ejercicio,
        filtro.mes,
        receptor,
        filtro.status.as_deref(),
        filtro.tipo.as_deref(),
        emisor
    )?;
    let rows = sql!(
        fetch_all * conn,
        RetencionRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}{filter} ORDER BY c.fecha DESC, c.id DESC LIMIT $8 OFFSET $9")),
        empresa_id,
        filtro.ejercicio,
        filtro.mes,
        receptor,
        filtro.status.as_deref(),
        filtro.tipo.as_deref(),
        emisor,
        limit,
        offset
    )?;
    Ok((rows, total))
}

/// Retention `id` of the company (another company's is "not found").
pub async fn leer(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &CfdiId,
) -> crate::DbResult<Option<RetencionRow>> {
    sql!(
        fetch_optional * conn,
        RetencionRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE r.cfdi_id = $1 AND r.empresa_id = $2")),
        id,
        empresa_id
    )
}

/// A batch of retentions (`POST /api/retenciones/lote`) and its progress.
#[derive(FromRow)]
pub struct Lote {
    /// Its id (its job's).
    pub id: String,
    /// Its company.
    pub empresa_id: EmpresaId,
    /// Who sent it.
    pub user_id: UserId,
    /// Bodies sent.
    pub total: i64,
    /// Index of the next body to stamp.
    pub siguiente: i64,
    /// Stamped so far.
    pub timbradas: i64,
    /// `[{indice, codigo, mensaje}]` (JSON).
    pub errores: String,
    /// PENDIENTE, EN_PROCESO, TERMINADO.
    pub status: String,
}

/// Writes a batch (in the transaction that enqueues its job).
pub async fn crear_lote(
    tx: &mut Tx,
    id: &str,
    empresa_id: &EmpresaId,
    user_id: &UserId,
    total: i64,
    cuerpos: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO retenciones_lotes (id, empresa_id, user_id, total, status, cuerpos, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, 'PENDIENTE', $5, $6, $6)",
        id,
        empresa_id,
        user_id,
        total,
        cuerpos,
        now
    )
}

const LOTE: &str =
    "SELECT id, empresa_id, user_id, total, siguiente, timbradas, errores, status FROM retenciones_lotes ";

/// Batch `id` of the company (another company's is "not found").
pub async fn lote(conn: &mut impl AsExec, empresa_id: &EmpresaId, id: &str) -> crate::DbResult<Option<Lote>> {
    sql!(
        fetch_optional * conn,
        Lote,
        sqlx::AssertSqlSafe(format!("{LOTE}WHERE id = $1 AND empresa_id = $2")),
        id,
        empresa_id
    )
}

/// Batch `id` (any company: its job reads it).
pub async fn lote_por_id(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Option<Lote>> {
    sql!(fetch_optional * conn, Lote, sqlx::AssertSqlSafe(format!("{LOTE}WHERE id = $1")), id)
}

/// The bodies of batch `id` (JSON array).
pub async fn cuerpos(conn: &mut impl AsExec, id: &str) -> crate::DbResult<String> {
    sql!(scalar_one * conn, String, "SELECT cuerpos FROM retenciones_lotes WHERE id = $1", id)
}

/// Records a chunk's progress in its transaction; `terminado` empties the bodies.
pub async fn avanzar_lote(
    tx: &mut Tx,
    id: &str,
    siguiente: i64,
    timbradas: i64,
    errores: &str,
    terminado: bool,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    let status = if terminado { "TERMINADO" } else { "EN_PROCESO" };
    sql!(
        execute * tx,
        "UPDATE retenciones_lotes SET siguiente = $1, timbradas = $2, errores = $3, status = $4, \
         cuerpos = CASE WHEN $4 = 'TERMINADO' THEN '[]' ELSE cuerpos END, updated_at = $5 WHERE id = $6",
        siguiente,
        timbradas,
        errores,
        status,
        now,
        id
    )
}
