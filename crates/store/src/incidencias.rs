//! The `incidencias` table: what happened to an employee in a period (overtime, absences,
//! disabilities, vacations, Sundays worked, other perceptions and deductions). Only APROBADA
//! incidences whose `fecha` falls in a period feed its calculation.

use crate::ids::{EmpresaId, IncidenciaId};
use time::OffsetDateTime;

use crate::Paging;
use crate::sql;
use crate::{AsExec, DbConn, Money, Tx, with_limit};

/// An incidence's own fields: what it says happened, and what a period's calculation reads
/// (in the order of [`CAMPOS`]).
#[derive(sqlx::FromRow, serde::Deserialize, Clone, Debug)]
pub struct Campos {
    /// Id.
    pub id: String,
    /// The employee.
    pub empleado_id: String,
    /// HORAS_EXTRA, INCAPACIDAD, FALTA, VACACIONES, PRIMA_DOMINICAL, PERCEPCION or DEDUCCION.
    pub tipo: String,
    /// AAAA-MM-DD.
    pub fecha: String,
    /// Overtime hours.
    pub horas: Option<i64>,
    /// Days (disability, absence, vacation).
    pub dias: Option<i64>,
    /// c_TipoIncapacidad.
    pub tipo_incapacidad: Option<String>,
    /// Sundays worked.
    pub domingos: Option<i64>,
    /// c_TipoPercepcion or c_TipoDeduccion.
    pub clave_sat: Option<String>,
    /// Description.
    pub concepto: Option<String>,
    /// Amount.
    pub importe: Option<Money>,
    /// Taxable part sent by the caller.
    pub gravado: Option<Money>,
    /// Exempt part sent by the caller.
    pub exento: Option<Money>,
}

/// A stored incidence.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct IncidenciaRow {
    /// What happened.
    #[sqlx(flatten)]
    pub campos: Campos,
    /// PENDIENTE, APROBADA or RECHAZADA.
    pub status: String,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
    /// A listing's total.
    #[sqlx(default)]
    pub total: Option<i64>,
}

const CAMPOS: &str = "id, empleado_id, tipo, fecha, horas, dias, tipo_incapacidad, domingos, clave_sat, concepto, importe, gravado, exento";

/// What a stored incidence adds to its [`CAMPOS`].
const ESTADO: &str = "status, created_at, updated_at";

/// A new incidence's validated fields.
pub struct Datos<'a> {
    /// The employee (of the company, checked by the caller).
    pub empleado_id: &'a str,
    /// Kind.
    pub tipo: &'a str,
    /// AAAA-MM-DD.
    pub fecha: &'a str,
    /// Overtime hours.
    pub horas: Option<i64>,
    /// Days.
    pub dias: Option<i64>,
    /// c_TipoIncapacidad.
    pub tipo_incapacidad: Option<&'a str>,
    /// Sundays.
    pub domingos: Option<i64>,
    /// SAT type code.
    pub clave_sat: Option<&'a str>,
    /// Description.
    pub concepto: Option<&'a str>,
    /// Amount.
    pub importe: Option<Money>,
    /// Taxable part.
    pub gravado: Option<Money>,
    /// Exempt part.
    pub exento: Option<Money>,
}

/// Inserts incidence `id`, PENDIENTE.
pub async fn insert(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO incidencias (id, empresa_id, empleado_id, tipo, fecha, status, horas, dias, tipo_incapacidad, domingos, \
         clave_sat, concepto, importe, gravado, exento, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, 'PENDIENTE', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)",
        id,
        empresa_id,
        datos.empleado_id,
        datos.tipo,
        datos.fecha,
        datos.horas,
        datos.dias,
        datos.tipo_incapacidad,
        datos.domingos,
        datos.clave_sat,
        datos.concepto,
        datos.importe,
        datos.gravado,
        datos.exento,
        now
    )
}

/// The company's incidence `id`.
pub async fn get(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &IncidenciaId,
) -> crate::DbResult<Option<IncidenciaRow>> {
    let select = format!("SELECT {CAMPOS}, {ESTADO} FROM incidencias WHERE id = $1 AND empresa_id = $2");
    sql!(fetch_optional * conn, IncidenciaRow, sqlx::AssertSqlSafe(select), id, empresa_id)
}

/// Moves incidence `id` from PENDIENTE to `status`; `false` when it was not PENDIENTE (any
/// more): the decision is taken once.
pub async fn decidir(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    status: &str,
    now: OffsetDateTime,
) -> crate::DbResult<bool> {
    let changed = sql!(
        execute * tx,
        "UPDATE incidencias SET status = $1, updated_at = $2 WHERE id = $3 AND empresa_id = $4 AND status = 'PENDIENTE'",
        status,
        now,
        id,
        empresa_id
    )?;
    Ok(changed > 0)
}

/// Listing filters; an empty string means any.
pub struct Filtro<'a> {
    /// Only this employee's.
    pub empleado_id: &'a str,
    /// Only with this status.
    pub status: &'a str,
    /// Only of this kind.
    pub tipo: &'a str,
    /// From this date (AAAA-MM-DD), inclusive.
    pub desde: &'a str,
    /// Up to this date, inclusive.
    pub hasta: &'a str,
}

/// One page of the company's incidences, newest first, and how many match.
pub async fn page(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    filtro: &Filtro<'_>,
    paging: &Paging,
) -> crate::DbResult<(Vec<IncidenciaRow>, i64)> {
    const FILTER: &str = "empresa_id = $1 AND ($2 = '' OR empleado_id = $2) AND ($3 = '' OR status = $3) \
         AND ($4 = '' OR tipo = $4) AND ($5 = '' OR fecha >= $5) AND ($6 = '' OR fecha <= $6)";
    let select = with_limit(
        &format!(
            "SELECT {CAMPOS}, {ESTADO}, (SELECT COUNT(*) FROM incidencias WHERE {FILTER}) AS total FROM incidencias WHERE {FILTER} \
             ORDER BY created_at DESC, id DESC LIMIT {{limit}} OFFSET $7"
        ),
        paging.page_size,
    );
    let rows = sql!(
        fetch_all * conn,
        IncidenciaRow,
        select,
        empresa_id,
        filtro.empleado_id,
        filtro.status,
        filtro.tipo,
        filtro.desde,
        filtro.hasta,
        paging.offset()
    )?;
    let total = match paging.total_leido(rows.first().map(|r| r.total)) {
        Some(total) => total,
        None => sql!(
            scalar_one * conn,
            i64,
            sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM incidencias WHERE {FILTER}")),
            empresa_id,
            filtro.empleado_id,
            filtro.status,
            filtro.tipo,
            filtro.desde,
            filtro.hasta
        )?,
    };
    Ok((rows, total))
}

/// The company's APROBADA incidences dated from `desde` to `hasta` (inclusive), by employee and
/// date: what a period's calculation takes (packed on SQLite: `fetch_packed`; a period of 1,000
/// employees reads 3,000 of them).
pub async fn aprobadas(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    desde: &str,
    hasta: &str,
) -> crate::DbResult<Vec<Campos>> {
    sql!(
        fetch_packed * conn,
        Campos,
        CAMPOS,
        "FROM incidencias WHERE empresa_id = $1 AND status = 'APROBADA' AND fecha >= $2 AND fecha <= $3",
        "ORDER BY empleado_id, fecha, id",
        empresa_id,
        desde,
        hasta
    )
}
