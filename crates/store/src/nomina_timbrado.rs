//! What stamping and cancelling payroll receipts read and write of `nomina_recibos` and
//! `nomina_periodos`, besides what `db::nomina` (periods and receipts as calculated) has;
//! scoped by company.

use crate::ids::{CfdiId, EmpresaId, IntentoId, PeriodoId, ReciboNominaId};
use rust_decimal::Decimal;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Money, MultiInsert, Tx};

/// A receipt to stamp, with its period's dates and whether its employee is active.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct ReciboFila {
    /// Id.
    pub id: ReciboNominaId,
    /// The period.
    pub periodo_id: PeriodoId,
    /// The employee.
    pub empleado_id: String,
    /// The employee's name when calculated.
    pub empleado_nombre: String,
    /// NumDiasPagados.
    pub dias_pagados: Money,
    /// TotalPercepciones.
    pub total_percepciones: Money,
    /// TotalDeducciones.
    pub total_deducciones: Money,
    /// SubsidioCausado.
    pub subsidio_causado: Money,
    /// The CFDI lines (JSON).
    pub lineas: String,
    /// The employee as calculated (JSON).
    pub empleado: String,
    /// The period's first day.
    pub fecha_inicio: String,
    /// The period's last day.
    pub fecha_fin: String,
    /// The period's payment day.
    pub fecha_pago: String,
    /// The employee is active now.
    pub empleado_activo: bool,
    /// The live attempt of its last stamp, if any.
    pub intento_id: Option<String>,
    /// The period's tipo: ORDINARIA or EXTRAORDINARIA (TipoNomina E).
    pub periodo_tipo: String,
    /// An EXTRAORDINARIA period's concepto (AGUINALDO, PTU, FINIQUITO).
    pub periodo_concepto: Option<String>,
}

/// Period `periodo_id`'s receipts that stamping takes (CALCULADO and PENDIENTE), by name.
pub async fn por_timbrar(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
) -> crate::DbResult<Vec<ReciboFila>> {
    sql!(
        fetch_all * conn,
        ReciboFila,
        "SELECT r.id, r.periodo_id, r.empleado_id, r.empleado_nombre, r.dias_pagados, r.total_percepciones, \
         r.total_deducciones, r.subsidio_causado, r.lineas, r.empleado, p.fecha_inicio, p.fecha_fin, p.fecha_pago, \
         COALESCE(e.activo, FALSE) AS empleado_activo, r.intento_id, p.tipo AS periodo_tipo, \
         p.concepto AS periodo_concepto \
         FROM nomina_recibos r JOIN nomina_periodos p ON p.id = r.periodo_id AND p.empresa_id = r.empresa_id \
         LEFT JOIN empleados e ON e.id = r.empleado_id AND e.empresa_id = r.empresa_id \
         WHERE r.empresa_id = $1 AND r.periodo_id = $2 AND r.status IN ('CALCULADO', 'PENDIENTE') AND r.cfdi_id IS NULL \
         ORDER BY r.empleado_nombre, r.id",
        empresa_id,
        periodo_id
    )
}

/// Records why receipt `id` was not stamped: PENDIENTE with its reason.
pub async fn marcar_pendiente(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    detalle: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_recibos SET status = 'PENDIENTE', detalle_errores = $1, updated_at = $2 \
         WHERE id = $3 AND empresa_id = $4 AND cfdi_id IS NULL",
        detalle,
        now,
        id,
        empresa_id
    )
}

/// Links receipt `id` to the live attempt about to be sent.
pub async fn vincular_intento(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &ReciboNominaId,
    intento_id: &IntentoId,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_recibos SET intento_id = $1 WHERE id = $2 AND empresa_id = $3",
        intento_id,
        id,
        empresa_id
    )
}

/// A stamped receipt for [`marcar_timbrados`].
pub struct ReciboTimbrado<'a> {
    /// The company.
    pub empresa_id: &'a EmpresaId,
    /// The receipt.
    pub id: &'a str,
    /// Stamped in sandbox (TIMBRADO_SANDBOX) or live (TIMBRADO).
    pub sandbox: bool,
    /// Its CFDI.
    pub cfdi_id: &'a CfdiId,
    /// Its UUID as the API shows it.
    pub uuid: &'a str,
    /// Stamped at.
    pub now: OffsetDateTime,
}

/// Receipts `recibos` stamped: TIMBRADO (TIMBRADO_SANDBOX) with their CFDI and UUID, in one
/// statement however many (a sandbox chunk is 64), each scoped by its company.
pub async fn marcar_timbrados(tx: &mut Tx, recibos: &[ReciboTimbrado<'_>]) -> crate::DbResult<u64> {
    // `UPDATE … FROM (VALUES …)`: SQLite (3.33+) and PostgreSQL both name the list's columns
    // column1, column2, …
    let mut update = MultiInsert::new(
        "UPDATE nomina_recibos SET status = v.column2, cfdi_id = v.column3, uuid = v.column4, detalle_errores = NULL, \
         updated_at = v.column5 FROM (",
        6,
        ") AS v WHERE nomina_recibos.id = v.column1 AND nomina_recibos.empresa_id = v.column6",
    );
    for recibo in recibos {
        update.row(vec![
            recibo.id.into(),
            if recibo.sandbox { "TIMBRADO_SANDBOX" } else { "TIMBRADO" }.into(),
            recibo.cfdi_id.into(),
            recibo.uuid.into(),
            recibo.now.into(),
            recibo.empresa_id.into(),
        ]);
    }
    update.execute(tx).await
}

/// Receipt `id` cancelled.
pub async fn marcar_cancelado(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &ReciboNominaId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_recibos SET status = 'CANCELADO', updated_at = $1 WHERE id = $2 AND empresa_id = $3",
        now,
        id,
        empresa_id
    )
}

/// The receipt whose CFDI is `cfdi_id`, if any, cancelled (SAT decided after the request).
pub async fn cancelado_por_cfdi(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_recibos SET status = 'CANCELADO', updated_at = $1 WHERE empresa_id = $2 AND cfdi_id = $3",
        now,
        empresa_id,
        cfdi_id
    )
}

/// The receipt (id, period) whose live attempt or CFDI is `cfdi_id`.
pub async fn por_cfdi(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Option<(ReciboNominaId, PeriodoId)>> {
    sql!(
        fetch_optional * tx,
        (ReciboNominaId, PeriodoId),
        "SELECT id, periodo_id FROM nomina_recibos WHERE empresa_id = $1 AND (intento_id = $2 OR cfdi_id = $2)",
        empresa_id,
        cfdi_id
    )
}

/// Sets period `periodo_id`'s status from its receipts after stamping: TIMBRADO_PARCIAL while
/// any is CALCULADO or PENDIENTE, else TIMBRADO (cancelled receipts leave it TIMBRADO). A
/// period without any stamped receipt keeps its status. Gives the status it has now.
pub async fn actualizar_status_periodo(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    now: OffsetDateTime,
) -> crate::DbResult<String> {
    let (sin_timbrar, timbrados): (i64, i64) = sql!(
        fetch_one * tx,
        (i64, i64),
        "SELECT COALESCE(SUM(CASE WHEN cfdi_id IS NULL THEN 1 ELSE 0 END), 0), \
         COALESCE(SUM(CASE WHEN cfdi_id IS NULL THEN 0 ELSE 1 END), 0) \
         FROM nomina_recibos WHERE empresa_id = $1 AND periodo_id = $2",
        empresa_id,
        periodo_id
    )?;
    if timbrados > 0 {
        let status = if sin_timbrar > 0 { "TIMBRADO_PARCIAL" } else { "TIMBRADO" };
        super::nomina::set_status_periodo(tx, empresa_id, periodo_id, status, now).await?;
    }
    sql!(
        scalar_one * tx,
        String,
        "SELECT status FROM nomina_periodos WHERE id = $1 AND empresa_id = $2",
        periodo_id,
        empresa_id
    )
}

impl ReciboFila {
    /// Its amounts as decimals.
    pub fn totales(&self) -> (Decimal, Decimal, Decimal, Decimal) {
        (self.dias_pagados.0, self.total_percepciones.0, self.total_deducciones.0, self.subsidio_causado.0)
    }
}
