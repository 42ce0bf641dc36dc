//! The `sincronizaciones` table: one row per `sync-recibidos` job (same id) with what SAT was
//! asked and how far the job got, so a restarted job resumes where it stopped. Scoped by
//! company where a caller reads it.

use crate::ids::EmpresaId;
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Tx};

/// The job is working (or waiting for SAT between polls).
pub const RUNNING: &str = "RUNNING";
/// Every package was stored.
pub const DONE: &str = "DONE";
/// SAT refused or failed, or the quota ran out (`error_code`).
pub const FAILED: &str = "FAILED";

/// One synchronization.
#[derive(Clone, Debug, FromRow)]
pub struct Sincronizacion {
    /// The job's id.
    pub id: String,
    /// The company.
    pub empresa_id: EmpresaId,
    /// Year asked.
    pub anio: i64,
    /// Month asked.
    pub mes: i64,
    /// RUNNING, DONE or FAILED.
    pub estado: String,
    /// SAT's request, once accepted.
    pub id_solicitud: Option<String>,
    /// SAT's package ids (JSON array), once the request finished.
    pub paquetes: Option<String>,
    /// Packages stored.
    pub paquetes_hechos: i64,
    /// CFDI SAT counted, once finished.
    pub cfdi_total: Option<i64>,
    /// CFDI read so far (stored, already held, or unreadable).
    pub cfdi_hechos: i64,
    /// CFDI stored new.
    pub cfdi_nuevos: i64,
    /// CFDI that could not be read.
    pub cfdi_ilegibles: i64,
    /// Why it failed.
    pub error_code: Option<String>,
    /// What to do about it.
    pub error_message: Option<String>,
    /// Started.
    pub created_at: OffsetDateTime,
    /// Ended.
    pub finished_at: Option<OffsetDateTime>,
    /// The SAT service asked: [`CFDI`] or [`RETENCIONES`].
    pub servicio: String,
}

/// A synchronization of received invoices (SAT's CFDI service).
pub const CFDI: &str = "CFDI";
/// A synchronization of received retentions (SAT's retention service).
pub const RETENCIONES: &str = "RETENCIONES";

const COLUMNS: &str = "SELECT id, empresa_id, anio, mes, estado, id_solicitud, paquetes, paquetes_hechos, cfdi_total, \
     cfdi_hechos, cfdi_nuevos, cfdi_ilegibles, error_code, error_message, created_at, finished_at, servicio FROM sincronizaciones ";

/// Writes a new RUNNING synchronization of `servicio` ([`CFDI`] or [`RETENCIONES`]), in the
/// transaction that enqueues its job.
pub async fn crear(
    tx: &mut Tx,
    id: &str,
    empresa_id: &EmpresaId,
    anio: i64,
    mes: i64,
    servicio: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO sincronizaciones (id, empresa_id, anio, mes, estado, servicio, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
        id,
        empresa_id,
        anio,
        mes,
        RUNNING,
        servicio,
        now
    )
}

/// Synchronization `id`.
pub async fn leer(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Option<Sincronizacion>> {
    sql!(fetch_optional * conn, Sincronizacion, sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE id = $1")), id)
}

/// The company's latest synchronization.
pub async fn ultima(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<Option<Sincronizacion>> {
    sql!(
        fetch_optional * conn,
        Sincronizacion,
        sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE empresa_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1")),
        empresa_id
    )
}

/// The company's running synchronization, if any.
pub async fn en_curso(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<Option<Sincronizacion>> {
    sql!(
        fetch_optional * conn,
        Sincronizacion,
        sqlx::AssertSqlSafe(format!(
            "{COLUMNS}WHERE empresa_id = $1 AND estado = 'RUNNING' ORDER BY created_at DESC LIMIT 1"
        )),
        empresa_id
    )
}

/// When the company's last successful synchronization ended.
pub async fn ultima_terminada(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
) -> crate::DbResult<Option<OffsetDateTime>> {
    Ok(sql!(
        scalar_optional * conn,
        Option<OffsetDateTime>,
        "SELECT finished_at FROM sincronizaciones WHERE empresa_id = $1 AND estado = 'DONE' ORDER BY finished_at DESC LIMIT 1",
        empresa_id
    )?
    .flatten())
}

/// SAT accepted the request: its id is kept before anything else happens.
pub async fn solicitud(
    conn: &mut impl AsExec,
    id: &str,
    id_solicitud: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE sincronizaciones SET id_solicitud = $1, updated_at = $2 WHERE id = $3",
        id_solicitud,
        now,
        id
    )
}

/// SAT finished the request: its packages and count.
pub async fn paquetes(
    conn: &mut impl AsExec,
    id: &str,
    paquetes: &str,
    cfdi_total: i64,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE sincronizaciones SET paquetes = $1, cfdi_total = $2, updated_at = $3 WHERE id = $4",
        paquetes,
        cfdi_total,
        now,
        id
    )
}

/// A CFDI of a synchronization's package that was not stored, and why.
#[derive(Clone, Debug, FromRow)]
pub struct Ilegible {
    /// The entry's name in SAT's ZIP.
    pub nombre: String,
    /// Why it was not stored.
    pub motivo: String,
}

/// How many refused CFDI a synchronization lists (the count, `cfdi_ilegibles`, is exact).
pub const ILEGIBLES_LISTADOS: usize = 100;

/// Records the CFDI of one package that were not stored, in the transaction that counts the
/// package (at most [`ILEGIBLES_LISTADOS`] per package; names cut to 200 characters).
pub async fn agregar_ilegibles(
    tx: &mut Tx,
    id: &str,
    ilegibles: &[Ilegible],
    now: OffsetDateTime,
) -> crate::DbResult<()> {
    for ilegible in ilegibles.iter().take(ILEGIBLES_LISTADOS) {
        let nombre: String = ilegible.nombre.chars().take(200).collect();
        let motivo: String = ilegible.motivo.chars().take(500).collect();
        sql!(
            execute * tx,
            "INSERT INTO sincronizaciones_ilegibles (id, sincronizacion_id, nombre, motivo, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
            crate::ids::new_id(),
            id,
            nombre,
            motivo,
            now
        )?;
    }
    Ok(())
}

/// The first [`ILEGIBLES_LISTADOS`] CFDI synchronization `id` did not store.
pub async fn ilegibles(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Vec<Ilegible>> {
    sql!(
        fetch_all * conn,
        Ilegible,
        crate::with_limit(
            "SELECT nombre, motivo FROM sincronizaciones_ilegibles WHERE sincronizacion_id = $1 ORDER BY created_at, id \
             LIMIT {limit}",
            ILEGIBLES_LISTADOS as i64
        ),
        id
    )
}

/// One more package stored (in the transaction that stored its CFDI).
pub async fn paquete_hecho(
    tx: &mut Tx,
    id: &str,
    leidos: i64,
    nuevos: i64,
    ilegibles: i64,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE sincronizaciones SET paquetes_hechos = paquetes_hechos + 1, cfdi_hechos = cfdi_hechos + $1, \
         cfdi_nuevos = cfdi_nuevos + $2, cfdi_ilegibles = cfdi_ilegibles + $3, updated_at = $4 WHERE id = $5",
        leidos,
        nuevos,
        ilegibles,
        now,
        id
    )
}

/// Ends a running synchronization as DONE or FAILED.
pub async fn terminar(
    conn: &mut impl AsExec,
    id: &str,
    estado: &str,
    error: Option<(&str, &str)>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE sincronizaciones SET estado = $1, error_code = $2, error_message = $3, finished_at = $4, updated_at = $4 \
         WHERE id = $5 AND estado = 'RUNNING'",
        estado,
        error.map(|(code, _)| code),
        error.map(|(_, message)| message),
        now,
        id
    )
}
