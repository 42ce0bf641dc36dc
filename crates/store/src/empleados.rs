//! The `empleados` table: a company's employees (payroll receivers). Rows are never deleted:
//! DELETE deactivates (`activo = false`, `fecha_baja`).

use crate::ids::{EmpleadoId, EmpresaId};
use rust_decimal::Decimal;
use time::OffsetDateTime;

use super::scoped::ScopedTable;
use crate::sql;
use crate::{AsExec, Money, Tx};

/// A stored employee (also read by field order from a packed SQLite row, see [`activos`]).
#[derive(sqlx::FromRow, serde::Deserialize, Clone, Debug)]
pub struct EmpleadoRow {
    /// Id.
    pub id: String,
    /// The employer's number, unique in the company (Nómina 1.2 NumEmpleado).
    pub num_empleado: String,
    /// Name as in the Constancia de Situación Fiscal.
    pub nombre: String,
    /// RFC, 13 characters.
    pub rfc: String,
    /// CURP.
    pub curp: String,
    /// NSS (NumSeguridadSocial).
    pub nss: Option<String>,
    /// DomicilioFiscalReceptor.
    pub codigo_postal: String,
    /// FechaInicioRelLaboral, AAAA-MM-DD.
    pub fecha_inicio_rel_laboral: String,
    /// Daily wage.
    pub salario_diario: Money,
    /// Salario diario integrado.
    pub salario_diario_integrado: Money,
    /// SEMANAL, CATORCENAL, QUINCENAL or MENSUAL.
    pub periodicidad: String,
    /// c_TipoContrato.
    pub tipo_contrato: String,
    /// c_TipoJornada.
    pub tipo_jornada: Option<String>,
    /// c_TipoRegimen.
    pub tipo_regimen: String,
    /// c_RiesgoPuesto 1–5.
    pub riesgo_puesto: String,
    /// Department.
    pub departamento: Option<String>,
    /// Position.
    pub puesto: Option<String>,
    /// c_Banco.
    pub banco: Option<String>,
    /// Account, card or CLABE.
    pub cuenta_bancaria: Option<String>,
    /// c_Estado where the work is done.
    pub clave_ent_fed: String,
    /// Active (not terminated).
    #[serde(deserialize_with = "crate::int_bool")]
    pub activo: bool,
    /// Termination date (AAAA-MM-DD) while inactive.
    pub fecha_baja: Option<String>,
    /// Trabajador de confianza (PTU: LFT Art. 127 fr. II).
    #[serde(deserialize_with = "crate::int_bool")]
    pub confianza: bool,
    /// Director, administrador or gerente general (PTU: LFT Art. 127 fr. I).
    #[serde(deserialize_with = "crate::int_bool")]
    pub director: bool,
    /// Where the receipts are e-mailed (issue 32).
    #[serde(default)]
    pub email: Option<String>,
    /// Created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// Last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// A listing's total.
    #[sqlx(default)]
    #[serde(default)]
    pub total: Option<i64>,
}

/// Every column of a row, in [`EmpleadoRow`]'s order.
const COLUMNAS: &str = "id, num_empleado, nombre, rfc, curp, nss, codigo_postal, fecha_inicio_rel_laboral, \
     salario_diario, salario_diario_integrado, periodicidad, tipo_contrato, tipo_jornada, tipo_regimen, riesgo_puesto, \
     departamento, puesto, banco, cuenta_bancaria, clave_ent_fed, activo, fecha_baja, confianza, director, email, created_at, updated_at";

/// The employees table, for [`super::scoped`].
pub struct Empleados;

impl ScopedTable for Empleados {
    const TABLE: &'static str = "empleados";
    const COLUMNS: &'static str = COLUMNAS;
    type Row = EmpleadoRow;
    fn total(row: &EmpleadoRow) -> Option<i64> {
        row.total
    }
}

/// An employee's validated fields.
pub struct Datos<'a> {
    /// NumEmpleado.
    pub num_empleado: &'a str,
    /// Name.
    pub nombre: &'a str,
    /// RFC.
    pub rfc: &'a str,
    /// CURP.
    pub curp: &'a str,
    /// NSS.
    pub nss: Option<&'a str>,
    /// Postal code.
    pub codigo_postal: &'a str,
    /// AAAA-MM-DD.
    pub fecha_inicio_rel_laboral: &'a str,
    /// Daily wage.
    pub salario_diario: Decimal,
    /// Integrated daily wage.
    pub salario_diario_integrado: Decimal,
    /// Periodicity.
    pub periodicidad: &'a str,
    /// c_TipoContrato.
    pub tipo_contrato: &'a str,
    /// c_TipoJornada.
    pub tipo_jornada: Option<&'a str>,
    /// c_TipoRegimen.
    pub tipo_regimen: &'a str,
    /// c_RiesgoPuesto.
    pub riesgo_puesto: &'a str,
    /// Department.
    pub departamento: Option<&'a str>,
    /// Position.
    pub puesto: Option<&'a str>,
    /// c_Banco.
    pub banco: Option<&'a str>,
    /// Account.
    pub cuenta_bancaria: Option<&'a str>,
    /// c_Estado.
    pub clave_ent_fed: &'a str,
    /// Active.
    pub activo: bool,
    /// Termination date while inactive.
    pub fecha_baja: Option<&'a str>,
    /// Trabajador de confianza.
    pub confianza: bool,
    /// Director, administrador or gerente general.
    pub director: bool,
    /// E-mail address (checked).
    pub email: Option<&'a str>,
}

fn search_text(datos: &Datos<'_>) -> String {
    crate::search::search_text(&[datos.num_empleado, datos.nombre, datos.rfc, datos.curp])
}

/// Inserts employee `id` (a unique violation means the RFC or the number is taken).
pub async fn insert(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO empleados (id, empresa_id, num_empleado, nombre, rfc, curp, nss, codigo_postal, fecha_inicio_rel_laboral, \
         salario_diario, salario_diario_integrado, periodicidad, tipo_contrato, tipo_jornada, tipo_regimen, riesgo_puesto, \
         departamento, puesto, banco, cuenta_bancaria, clave_ent_fed, activo, fecha_baja, search_text, created_at, updated_at, \
         confianza, director, email) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $25, \
         $26, $27, $28)",
        id,
        empresa_id,
        datos.num_empleado,
        datos.nombre,
        datos.rfc,
        datos.curp,
        datos.nss,
        datos.codigo_postal,
        datos.fecha_inicio_rel_laboral,
        Money(datos.salario_diario),
        Money(datos.salario_diario_integrado),
        datos.periodicidad,
        datos.tipo_contrato,
        datos.tipo_jornada,
        datos.tipo_regimen,
        datos.riesgo_puesto,
        datos.departamento,
        datos.puesto,
        datos.banco,
        datos.cuenta_bancaria,
        datos.clave_ent_fed,
        datos.activo,
        datos.fecha_baja,
        search_text(datos),
        now,
        datos.confianza,
        datos.director,
        datos.email
    )
}

/// Replaces employee `id`'s fields (a unique violation means the RFC or the number is taken).
pub async fn update(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE empleados SET num_empleado = $1, nombre = $2, rfc = $3, curp = $4, nss = $5, codigo_postal = $6, \
         fecha_inicio_rel_laboral = $7, salario_diario = $8, salario_diario_integrado = $9, periodicidad = $10, \
         tipo_contrato = $11, tipo_jornada = $12, tipo_regimen = $13, riesgo_puesto = $14, departamento = $15, puesto = $16, \
         banco = $17, cuenta_bancaria = $18, clave_ent_fed = $19, activo = $20, fecha_baja = $21, search_text = $22, \
         updated_at = $23, confianza = $26, director = $27, email = $28 WHERE id = $24 AND empresa_id = $25",
        datos.num_empleado,
        datos.nombre,
        datos.rfc,
        datos.curp,
        datos.nss,
        datos.codigo_postal,
        datos.fecha_inicio_rel_laboral,
        Money(datos.salario_diario),
        Money(datos.salario_diario_integrado),
        datos.periodicidad,
        datos.tipo_contrato,
        datos.tipo_jornada,
        datos.tipo_regimen,
        datos.riesgo_puesto,
        datos.departamento,
        datos.puesto,
        datos.banco,
        datos.cuenta_bancaria,
        datos.clave_ent_fed,
        datos.activo,
        datos.fecha_baja,
        search_text(datos),
        now,
        id,
        empresa_id,
        datos.confianza,
        datos.director,
        datos.email
    )
}

/// Deactivates employee `id` on `fecha_baja` (AAAA-MM-DD); `false` when the company has no
/// such employee. Deactivating an inactive employee keeps its first fecha_baja.
pub async fn desactivar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    fecha_baja: &str,
    now: OffsetDateTime,
) -> crate::DbResult<bool> {
    let changed = sql!(
        execute * tx,
        "UPDATE empleados SET activo = $1, fecha_baja = COALESCE(fecha_baja, $2), updated_at = $3 \
         WHERE id = $4 AND empresa_id = $5",
        false,
        fecha_baja,
        now,
        id,
        empresa_id
    )?;
    Ok(changed > 0)
}

/// Which of `rfc` and `num_empleado` another employee of the company (not `except_id`) already
/// has: `(rfc_taken, num_taken)`.
pub async fn ocupados(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    rfc: &str,
    num_empleado: &str,
    except_id: &str,
) -> crate::DbResult<(bool, bool)> {
    let rows = sql!(
        fetch_all * conn,
        (String, String),
        "SELECT rfc, num_empleado FROM empleados WHERE empresa_id = $1 AND id <> $2 AND (rfc = $3 OR num_empleado = $4)",
        empresa_id,
        except_id,
        rfc,
        num_empleado
    )?;
    Ok((rows.iter().any(|(r, _)| r == rfc), rows.iter().any(|(_, n)| n == num_empleado)))
}

/// The company's active employees paid with `periodicidad`, by number: what a period's calculation
/// takes (packed on SQLite: `fetch_packed`).
pub async fn activos(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    periodicidad: &str,
) -> crate::DbResult<Vec<EmpleadoRow>> {
    sql!(
        fetch_packed * conn,
        EmpleadoRow,
        COLUMNAS,
        "FROM empleados WHERE empresa_id = $1 AND periodicidad = $2 AND activo = $3",
        "ORDER BY num_empleado, id",
        empresa_id,
        periodicidad,
        true
    )
}

/// Every active employee of the company, whatever their periodicidad (an extraordinary period).
pub async fn todos_activos(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<Vec<EmpleadoRow>> {
    sql!(
        fetch_packed * conn,
        EmpleadoRow,
        COLUMNAS,
        "FROM empleados WHERE empresa_id = $1 AND activo = $2",
        "ORDER BY num_empleado, id",
        empresa_id,
        true
    )
}

/// Employee `id` of the company.
pub async fn empleado(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &EmpleadoId,
) -> crate::DbResult<Option<EmpleadoRow>> {
    sql!(
        fetch_optional * conn,
        EmpleadoRow,
        sqlx::AssertSqlSafe(format!("SELECT {COLUMNAS} FROM empleados WHERE id = $1 AND empresa_id = $2")),
        id,
        empresa_id
    )
}

/// The company's employees, active or not, employed at some day from `desde` to `hasta`
/// (hired by `hasta`, not gone before `desde`).
pub async fn empleados_entre(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    desde: &str,
    hasta: &str,
) -> crate::DbResult<Vec<EmpleadoRow>> {
    sql!(
        fetch_packed * conn,
        EmpleadoRow,
        COLUMNAS,
        "FROM empleados WHERE empresa_id = $1 AND fecha_inicio_rel_laboral <= $2 AND (fecha_baja IS NULL OR fecha_baja >= $3)",
        "ORDER BY num_empleado, id",
        empresa_id,
        hasta,
        desde
    )
}
