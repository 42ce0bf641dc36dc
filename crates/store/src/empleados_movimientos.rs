//! The `empleados_movimientos` table: each employee's IMSS affiliation movements (ALTA,
//! MODIFICACION of salary, BAJA) with their effective date and the salaries then in force, the
//! history the IDSE batch file is built from (issue 35).

use crate::ids::EmpresaId;
use rust_decimal::Decimal;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Money, Tx};

/// A movement to record.
pub struct Movimiento<'a> {
    /// The employee.
    pub empleado_id: &'a str,
    /// ALTA, MODIFICACION or BAJA.
    pub tipo: &'a str,
    /// Effective date, AAAA-MM-DD.
    pub fecha: &'a str,
    /// Daily wage in force.
    pub salario_diario: Decimal,
    /// SDI in force.
    pub salario_diario_integrado: Decimal,
    /// A BAJA's motivo, when the baja gave one.
    pub motivo: Option<&'a str>,
}

/// Records movement `id` of the company.
pub async fn insert(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    m: &Movimiento<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO empleados_movimientos (id, empresa_id, empleado_id, tipo, fecha, salario_diario, salario_diario_integrado, \
         motivo, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        id,
        empresa_id,
        m.empleado_id,
        m.tipo,
        m.fecha,
        Money(m.salario_diario),
        Money(m.salario_diario_integrado),
        m.motivo,
        now
    )
}

/// A recorded movement with the employee's identity, as the IDSE file reads it.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct MovimientoRow {
    /// Id.
    pub id: String,
    /// The employee.
    pub empleado_id: String,
    /// ALTA, MODIFICACION or BAJA.
    pub tipo: String,
    /// Effective date, AAAA-MM-DD.
    pub fecha: String,
    /// Daily wage in force.
    pub salario_diario: Money,
    /// SDI in force.
    pub salario_diario_integrado: Money,
    /// A BAJA's motivo.
    pub motivo: Option<String>,
    /// The employee's number.
    pub num_empleado: String,
    /// Name.
    pub nombre: String,
    /// CURP.
    pub curp: String,
    /// NSS.
    pub nss: Option<String>,
    /// c_TipoContrato.
    pub tipo_contrato: String,
}

/// The company's movements effective from `desde` to `hasta` (AAAA-MM-DD, both included), by
/// date, then as recorded.
pub async fn entre(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    desde: &str,
    hasta: &str,
) -> crate::DbResult<Vec<MovimientoRow>> {
    sql!(
        fetch_all * conn,
        MovimientoRow,
        "SELECT m.id, m.empleado_id, m.tipo, m.fecha, m.salario_diario, m.salario_diario_integrado, m.motivo, \
         e.num_empleado, e.nombre, e.curp, e.nss, e.tipo_contrato \
         FROM empleados_movimientos m JOIN empleados e ON e.id = m.empleado_id AND e.empresa_id = m.empresa_id \
         WHERE m.empresa_id = $1 AND m.fecha >= $2 AND m.fecha <= $3 ORDER BY m.fecha, m.created_at, m.id",
        empresa_id,
        desde,
        hasta
    )
}
