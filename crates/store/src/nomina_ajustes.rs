//! The annual ISR adjustment's rows (`nomina_ajustes_anuales`) and the stamped receipts of a
//! year it reads.

use crate::ids::{EmpresaId, PeriodoId};
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Money, Tx};

/// A stamped receipt of the year, as the adjustment reads it.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct ReciboTimbrado {
    /// Id.
    pub id: String,
    /// The employee.
    pub empleado_id: String,
    /// Its period's payment date.
    pub fecha_pago: String,
    /// TotalGravado.
    pub total_gravado: Money,
    /// TotalExento.
    pub total_exento: Money,
    /// ISR withheld.
    pub isr_retenido: Money,
    /// SubsidioCausado.
    pub subsidio_causado: Money,
    /// The CFDI lines (JSON).
    pub lineas: String,
    /// The calculation (JSON).
    pub calculo: String,
}

/// The company's stamped receipts (TIMBRADO, TIMBRADO_SANDBOX) of periods paid from `desde` to
/// `hasta`, other than period `excluir`.
pub async fn recibos_timbrados(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    desde: &str,
    hasta: &str,
    excluir: &str,
) -> crate::DbResult<Vec<ReciboTimbrado>> {
    sql!(
        fetch_all * conn,
        ReciboTimbrado,
        "SELECT r.id, r.empleado_id, p.fecha_pago, r.total_gravado, r.total_exento, r.isr_retenido, r.subsidio_causado, \
         r.lineas, r.calculo FROM nomina_recibos r JOIN nomina_periodos p ON p.id = r.periodo_id AND p.empresa_id = r.empresa_id \
         WHERE r.empresa_id = $1 AND r.status IN ('TIMBRADO', 'TIMBRADO_SANDBOX') AND p.fecha_pago >= $2 AND p.fecha_pago <= $3 \
         AND r.periodo_id <> $4 ORDER BY r.empleado_id, p.fecha_pago, r.id",
        empresa_id,
        desde,
        hasta,
        excluir
    )
}

/// A stored adjustment of one employee.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct AjusteRow {
    /// The target period.
    pub periodo_id: PeriodoId,
    /// The employee.
    pub empleado_id: String,
    /// Name.
    pub empleado_nombre: String,
    /// AJUSTADO or NO_AJUSTA.
    pub resultado: String,
    /// NO_AJUSTA reasons, comma-separated.
    pub motivos: Option<String>,
    /// Receipts counted.
    pub recibos: i64,
    /// Σ taxable income.
    pub ingreso_gravado: Money,
    /// Annual ISR.
    pub isr_anual: Money,
    /// Subsidy credited.
    pub subsidio_acreditado: Money,
    /// ISR withheld in the year.
    pub isr_retenido: Money,
    /// Balance due.
    pub saldo_a_cargo: Money,
    /// Balance in favour.
    pub saldo_a_favor: Money,
    /// Withheld or paid back in the target period.
    pub aplicado: Money,
    /// Left for later periods.
    pub pendiente: Money,
}

/// A row to write.
#[derive(Clone, Debug)]
pub struct NuevoAjuste {
    /// Id.
    pub id: String,
    /// The target period.
    pub periodo_id: PeriodoId,
    /// The employee.
    pub empleado_id: String,
    /// Name.
    pub empleado_nombre: String,
    /// AJUSTADO or NO_AJUSTA.
    pub resultado: String,
    /// NO_AJUSTA reasons.
    pub motivos: Option<String>,
    /// Receipts counted.
    pub recibos: i64,
    /// Σ taxable income.
    pub ingreso_gravado: Money,
    /// Annual ISR.
    pub isr_anual: Money,
    /// Subsidy credited.
    pub subsidio_acreditado: Money,
    /// ISR withheld.
    pub isr_retenido: Money,
    /// Balance due.
    pub saldo_a_cargo: Money,
    /// Balance in favour.
    pub saldo_a_favor: Money,
    /// Applied in the target period.
    pub aplicado: Money,
    /// Left for later.
    pub pendiente: Money,
}

/// Writes one employee's adjustment of `ejercicio`.
pub async fn insertar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    ejercicio: i64,
    a: &NuevoAjuste,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO nomina_ajustes_anuales (id, empresa_id, ejercicio, periodo_id, empleado_id, empleado_nombre, resultado, \
         motivos, recibos, ingreso_gravado, isr_anual, subsidio_acreditado, isr_retenido, saldo_a_cargo, saldo_a_favor, \
         aplicado, pendiente, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        &a.id,
        empresa_id,
        ejercicio,
        &a.periodo_id,
        &a.empleado_id,
        &a.empleado_nombre,
        &a.resultado,
        &a.motivos,
        a.recibos,
        a.ingreso_gravado,
        a.isr_anual,
        a.subsidio_acreditado,
        a.isr_retenido,
        a.saldo_a_cargo,
        a.saldo_a_favor,
        a.aplicado,
        a.pendiente,
        now
    )
}

/// Deletes the company's adjustment of `ejercicio`.
pub async fn borrar(tx: &mut Tx, empresa_id: &EmpresaId, ejercicio: i64) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "DELETE FROM nomina_ajustes_anuales WHERE empresa_id = $1 AND ejercicio = $2",
        empresa_id,
        ejercicio
    )
}

/// The target periods of the company's adjustment of `ejercicio`.
pub async fn periodos(conn: &mut impl AsExec, empresa_id: &EmpresaId, ejercicio: i64) -> crate::DbResult<Vec<String>> {
    sql!(
        fetch_all * conn,
        (String,),
        "SELECT DISTINCT periodo_id FROM nomina_ajustes_anuales WHERE empresa_id = $1 AND ejercicio = $2",
        empresa_id,
        ejercicio
    )
    .map(|rows| rows.into_iter().map(|(p,)| p).collect())
}

/// The company's adjustment of `ejercicio`, by employee name.
pub async fn del_ejercicio(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    ejercicio: i64,
) -> crate::DbResult<Vec<AjusteRow>> {
    sql!(
        fetch_all * conn,
        AjusteRow,
        "SELECT periodo_id, empleado_id, empleado_nombre, resultado, motivos, recibos, ingreso_gravado, isr_anual, \
         subsidio_acreditado, isr_retenido, saldo_a_cargo, saldo_a_favor, aplicado, pendiente \
         FROM nomina_ajustes_anuales WHERE empresa_id = $1 AND ejercicio = $2 ORDER BY empleado_nombre, empleado_id",
        empresa_id,
        ejercicio
    )
}
