//! The payroll tables of a company: `nomina_periodos` (pay periods) and `nomina_recibos` (one
//! receipt per employee and period, written by the period's calculation).

use crate::ids::{CfdiId, EmpresaId, PeriodoId, ReciboNominaId};
use time::OffsetDateTime;

use crate::Paging;
use crate::sql;
use crate::{AsExec, DbConn, Money, MultiInsert, Tx, Value, with_limit};

/// A stored pay period.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct PeriodoRow {
    /// Id.
    pub id: PeriodoId,
    /// First day, AAAA-MM-DD.
    pub fecha_inicio: String,
    /// Last day, AAAA-MM-DD.
    pub fecha_fin: String,
    /// Payment day, AAAA-MM-DD.
    pub fecha_pago: String,
    /// SEMANAL, CATORCENAL, QUINCENAL or MENSUAL.
    pub periodicidad: String,
    /// 7, 14, 15 or 30.
    pub dias_pagados: i64,
    /// ABIERTO, CALCULADO, TIMBRADO or TIMBRADO_PARCIAL.
    pub status: String,
    /// Receipts of the last calculation.
    pub recibos_calculados: i64,
    /// Σ receipts' net pay; `None` until calculated.
    pub total_nomina: Option<Money>,
    /// When it was last calculated.
    pub calculado_at: Option<OffsetDateTime>,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
    /// ORDINARIA or EXTRAORDINARIA.
    pub tipo: String,
    /// An EXTRAORDINARIA period's concepto: AGUINALDO, PTU or FINIQUITO.
    pub concepto: Option<String>,
    /// A FINIQUITO's employee.
    pub empleado_id: Option<String>,
    /// The fiscal year a PTU period distributes.
    pub ejercicio: Option<i64>,
    /// Stamping its receipts queues each one's e-mail to its employee (issue 32).
    pub enviar_correo: bool,
    /// A listing's total.
    #[sqlx(default)]
    pub total: Option<i64>,
}

const COLUMNAS_PERIODO: &str = "id, fecha_inicio, fecha_fin, fecha_pago, periodicidad, dias_pagados, status, \
     recibos_calculados, total_nomina, calculado_at, created_at, updated_at, tipo, concepto, empleado_id, ejercicio, enviar_correo";

/// A new period's validated fields.
pub struct NuevoPeriodo<'a> {
    /// AAAA-MM-DD.
    pub fecha_inicio: &'a str,
    /// AAAA-MM-DD.
    pub fecha_fin: &'a str,
    /// AAAA-MM-DD.
    pub fecha_pago: &'a str,
    /// Periodicity.
    pub periodicidad: &'a str,
    /// Days.
    pub dias_pagados: i64,
    /// ORDINARIA or EXTRAORDINARIA.
    pub tipo: &'a str,
    /// AGUINALDO, PTU or FINIQUITO (EXTRAORDINARIA).
    pub concepto: Option<&'a str>,
    /// A FINIQUITO's employee.
    pub empleado_id: Option<&'a str>,
    /// A PTU's fiscal year.
    pub ejercicio: Option<i64>,
}

/// Sets whether stamping period `id`'s receipts e-mails each one to its employee; `0` when the
/// company has no such period.
pub async fn set_enviar_correo(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &str,
    enviar: bool,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE nomina_periodos SET enviar_correo = $1, updated_at = $2 WHERE id = $3 AND empresa_id = $4",
        enviar,
        now,
        id,
        empresa_id
    )
}

/// Whether stamping period `id`'s receipts e-mails them.
pub async fn enviar_correo(conn: &mut impl AsExec, empresa_id: &EmpresaId, id: &PeriodoId) -> crate::DbResult<bool> {
    Ok(sql!(
        scalar_optional * conn,
        bool,
        "SELECT enviar_correo FROM nomina_periodos WHERE id = $1 AND empresa_id = $2",
        id,
        empresa_id
    )?
    .unwrap_or(false))
}

/// Inserts period `id`, ABIERTO.
pub async fn insert_periodo(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    periodo: &NuevoPeriodo<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO nomina_periodos (id, empresa_id, fecha_inicio, fecha_fin, fecha_pago, periodicidad, dias_pagados, status, \
         recibos_calculados, created_at, updated_at, tipo, concepto, empleado_id, ejercicio) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'ABIERTO', 0, $8, $8, $9, $10, $11, $12)",
        id,
        empresa_id,
        periodo.fecha_inicio,
        periodo.fecha_fin,
        periodo.fecha_pago,
        periodo.periodicidad,
        periodo.dias_pagados,
        now,
        periodo.tipo,
        periodo.concepto,
        periodo.empleado_id,
        periodo.ejercicio
    )
}

/// The company's period of `periodicidad` that shares a day with `fecha_inicio`..`fecha_fin`,
/// if any.
pub async fn traslapado(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    periodicidad: &str,
    fecha_inicio: &str,
    fecha_fin: &str,
) -> crate::DbResult<Option<PeriodoRow>> {
    let select = format!(
        "SELECT {COLUMNAS_PERIODO} FROM nomina_periodos WHERE empresa_id = $1 AND periodicidad = $2 \
         AND fecha_inicio <= $3 AND fecha_fin >= $4 ORDER BY fecha_inicio LIMIT 1"
    );
    sql!(
        fetch_optional * conn,
        PeriodoRow,
        sqlx::AssertSqlSafe(select),
        empresa_id,
        periodicidad,
        fecha_fin,
        fecha_inicio
    )
}

/// The company's period `id`.
pub async fn periodo(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &PeriodoId,
) -> crate::DbResult<Option<PeriodoRow>> {
    let select = format!("SELECT {COLUMNAS_PERIODO} FROM nomina_periodos WHERE id = $1 AND empresa_id = $2");
    sql!(fetch_optional * conn, PeriodoRow, sqlx::AssertSqlSafe(select), id, empresa_id)
}

/// The company's period `id`, locked for the rest of the transaction on PostgreSQL (SQLite's
/// write transaction is exclusive already): two calculations of one period run one after the
/// other.
pub async fn periodo_para_cambiar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &PeriodoId,
) -> crate::DbResult<Option<PeriodoRow>> {
    // Touching the row takes its lock on PostgreSQL before it is read.
    sql!(execute * tx, "UPDATE nomina_periodos SET status = status WHERE id = $1 AND empresa_id = $2", id, empresa_id)?;
    periodo(tx, empresa_id, id).await
}

/// One page of the company's periods, newest first (`status` empty for any), and how many match.
pub async fn periodos(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    status: &str,
    paging: &Paging,
) -> crate::DbResult<(Vec<PeriodoRow>, i64)> {
    const FILTER: &str = "empresa_id = $1 AND ($2 = '' OR status = $2)";
    let select = with_limit(
        &format!(
            "SELECT {COLUMNAS_PERIODO}, (SELECT COUNT(*) FROM nomina_periodos WHERE {FILTER}) AS total \
             FROM nomina_periodos WHERE {FILTER} ORDER BY created_at DESC, id DESC LIMIT {{limit}} OFFSET $3"
        ),
        paging.page_size,
    );
    let rows = sql!(fetch_all * conn, PeriodoRow, select, empresa_id, status, paging.offset())?;
    let total = match paging.total_leido(rows.first().map(|r| r.total)) {
        Some(total) => total,
        None => sql!(
            scalar_one * conn,
            i64,
            sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM nomina_periodos WHERE {FILTER}")),
            empresa_id,
            status
        )?,
    };
    Ok((rows, total))
}

/// Records a calculation of period `id`: CALCULADO with its count and total.
pub async fn marcar_calculado(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    recibos: i64,
    total_nomina: Money,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_periodos SET status = 'CALCULADO', recibos_calculados = $1, total_nomina = $2, calculado_at = $3, \
         updated_at = $3 WHERE id = $4 AND empresa_id = $5",
        recibos,
        total_nomina,
        now,
        id,
        empresa_id
    )
}

/// Sets period `id`'s status (stamping: TIMBRADO, TIMBRADO_PARCIAL).
pub async fn set_status_periodo(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &PeriodoId,
    status: &str,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_periodos SET status = $1, updated_at = $2 WHERE id = $3 AND empresa_id = $4",
        status,
        now,
        id,
        empresa_id
    )
}

/// A stored receipt. `lineas`, `empleado`, `calculo` and `entrada` are JSON texts (see
/// `crate::nomina::recibo`).
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct ReciboRow {
    /// Id.
    pub id: ReciboNominaId,
    /// The period.
    pub periodo_id: PeriodoId,
    /// The employee.
    pub empleado_id: String,
    /// The employee's name when calculated.
    pub empleado_nombre: String,
    /// CALCULADO, PENDIENTE, TIMBRADO, TIMBRADO_SANDBOX or CANCELADO.
    pub status: String,
    /// NumDiasPagados.
    pub dias_pagados: Money,
    /// TotalPercepciones.
    pub total_percepciones: Money,
    /// TotalGravado.
    pub total_gravado: Money,
    /// TotalExento.
    pub total_exento: Money,
    /// TotalDeducciones.
    pub total_deducciones: Money,
    /// TotalOtrosPagos.
    pub total_otros_pagos: Money,
    /// ISR withheld (deduction 002).
    pub isr_retenido: Money,
    /// SubsidioCausado.
    pub subsidio_causado: Money,
    /// IMSS worker share (deduction 001).
    pub imss_empleado: Money,
    /// Net pay: the CFDI Total.
    pub neto: Money,
    /// The CFDI lines.
    pub lineas: String,
    /// The employee as calculated.
    pub empleado: String,
    /// The calculation as `POST /api/nomina/calcular` answers it.
    pub calculo: String,
    /// The `POST /api/nomina/calcular` body that reproduces it.
    pub entrada: String,
    /// Why the last stamping attempt failed.
    pub detalle_errores: Option<String>,
    /// The stamped CFDI.
    pub cfdi_id: Option<CfdiId>,
    /// Its UUID as the API shows it.
    pub uuid: Option<String>,
    /// Storage path of the stamped CFDI's XML (its invoice row's `xml_url`).
    pub xml_url: Option<String>,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
}

const COLUMNAS_RECIBO: &str = "id, periodo_id, empleado_id, empleado_nombre, status, dias_pagados, total_percepciones, \
     total_gravado, total_exento, total_deducciones, total_otros_pagos, isr_retenido, subsidio_causado, imss_empleado, neto, \
     lineas, empleado, calculo, entrada, detalle_errores, cfdi_id, uuid, \
     (SELECT c.xml_url FROM cfdis c WHERE c.id = nomina_recibos.cfdi_id AND c.empresa_id = nomina_recibos.empresa_id) \
     AS xml_url, created_at, updated_at";

/// A receipt to write.
pub struct NuevoRecibo {
    /// Id.
    pub id: String,
    /// The employee.
    pub empleado_id: String,
    /// Name.
    pub empleado_nombre: String,
    /// NumDiasPagados.
    pub dias_pagados: Money,
    /// TotalPercepciones.
    pub total_percepciones: Money,
    /// TotalGravado.
    pub total_gravado: Money,
    /// TotalExento.
    pub total_exento: Money,
    /// TotalDeducciones.
    pub total_deducciones: Money,
    /// TotalOtrosPagos.
    pub total_otros_pagos: Money,
    /// ISR withheld.
    pub isr_retenido: Money,
    /// SubsidioCausado.
    pub subsidio_causado: Money,
    /// IMSS worker share.
    pub imss_empleado: Money,
    /// Net pay.
    pub neto: Money,
    /// JSON.
    pub lineas: String,
    /// JSON.
    pub empleado: String,
    /// JSON.
    pub calculo: String,
    /// JSON.
    pub entrada: String,
    /// Exempt under the yearly limits, when any: aguinaldo, PTU, prima vacacional.
    pub exento_aguinaldo: Option<Money>,
    /// PTU.
    pub exento_ptu: Option<Money>,
    /// Prima vacacional.
    pub exento_prima_vacacional: Option<Money>,
}

/// Writes `recibos` of period `periodo_id`, CALCULADO, a hundred rows per statement: on SQLite
/// each statement is a round trip to the connection's worker thread, on PostgreSQL to the
/// server. (Multi-row statements bind anonymous parameters on SQLite, see [`MultiInsert`].)
pub async fn insert_recibos(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    recibos: Vec<NuevoRecibo>,
    now: OffsetDateTime,
) -> crate::DbResult<()> {
    const HEAD: &str = "INSERT INTO nomina_recibos (id, empresa_id, periodo_id, empleado_id, empleado_nombre, status, \
         dias_pagados, total_percepciones, total_gravado, total_exento, total_deducciones, total_otros_pagos, isr_retenido, \
         subsidio_causado, imss_empleado, neto, lineas, empleado, calculo, entrada, exento_aguinaldo, exento_ptu, \
         exento_prima_vacacional, created_at, updated_at)";
    let por_statement = 100;
    let mut recibos = recibos.into_iter().peekable();
    while recibos.peek().is_some() {
        let mut insert = MultiInsert::new(HEAD, 25, "");
        for r in recibos.by_ref().take(por_statement) {
            insert.row(vec![
                Value::from(r.id),
                empresa_id.into(),
                periodo_id.into(),
                r.empleado_id.into(),
                r.empleado_nombre.into(),
                "CALCULADO".into(),
                r.dias_pagados.into(),
                r.total_percepciones.into(),
                r.total_gravado.into(),
                r.total_exento.into(),
                r.total_deducciones.into(),
                r.total_otros_pagos.into(),
                r.isr_retenido.into(),
                r.subsidio_causado.into(),
                r.imss_empleado.into(),
                r.neto.into(),
                r.lineas.into(),
                r.empleado.into(),
                r.calculo.into(),
                r.entrada.into(),
                r.exento_aguinaldo.into(),
                r.exento_ptu.into(),
                r.exento_prima_vacacional.into(),
                now.into(),
                now.into(),
            ]);
        }
        insert.execute(tx).await?;
    }
    Ok(())
}

/// What an employee's receipts exempted under the yearly limits in one year.
#[derive(sqlx::FromRow, Debug)]
pub struct ExentosRow {
    /// The employee.
    pub empleado_id: String,
    /// Aguinaldo.
    pub exento_aguinaldo: Option<Money>,
    /// PTU.
    pub exento_ptu: Option<Money>,
    /// Prima vacacional.
    pub exento_prima_vacacional: Option<Money>,
}

/// The company's receipts, not cancelled, of periods other than `periodo_id` paid from `desde`
/// to `hasta` (a calendar year) that exempted something under a yearly limit.
pub async fn exentos_anuales(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    desde: &str,
    hasta: &str,
) -> crate::DbResult<Vec<ExentosRow>> {
    sql!(
        fetch_all * conn,
        ExentosRow,
        "SELECT r.empleado_id, r.exento_aguinaldo, r.exento_ptu, r.exento_prima_vacacional FROM nomina_recibos r \
         JOIN nomina_periodos p ON p.id = r.periodo_id \
         WHERE r.empresa_id = $1 AND r.periodo_id <> $2 AND r.status <> 'CANCELADO' AND p.fecha_pago >= $3 AND p.fecha_pago <= $4 \
         AND (r.exento_aguinaldo IS NOT NULL OR r.exento_ptu IS NOT NULL OR r.exento_prima_vacacional IS NOT NULL)",
        empresa_id,
        periodo_id,
        desde,
        hasta
    )
}

/// The company's period of `concepto` for fiscal year `ejercicio` that still has a receipt
/// not cancelled (or none yet), if any.
pub async fn del_ejercicio(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    concepto: &str,
    ejercicio: i64,
) -> crate::DbResult<Option<String>> {
    sql!(
        scalar_optional * conn,
        String,
        "SELECT p.id FROM nomina_periodos p WHERE p.empresa_id = $1 AND p.concepto = $2 AND p.ejercicio = $3 \
         AND (p.recibos_calculados = 0 OR EXISTS (SELECT 1 FROM nomina_recibos r WHERE r.periodo_id = p.id \
         AND r.empresa_id = p.empresa_id AND r.status <> 'CANCELADO')) ORDER BY p.created_at LIMIT 1",
        empresa_id,
        concepto,
        ejercicio
    )
}

/// What an earlier receipt of a concepto paid an employee.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct PagoPrevio {
    /// The employee.
    pub empleado_id: String,
    /// The earlier period.
    pub periodo_id: PeriodoId,
    /// Its TotalPercepciones.
    pub total_percepciones: Money,
}

/// The company's receipts, not cancelled, of EXTRAORDINARIA periods of `concepto` other than
/// `periodo_id` paid from `desde` to `hasta`, oldest period first.
pub async fn pagos_previos(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    concepto: &str,
    periodo_id: &PeriodoId,
    desde: &str,
    hasta: &str,
) -> crate::DbResult<Vec<PagoPrevio>> {
    sql!(
        fetch_all * conn,
        PagoPrevio,
        "SELECT r.empleado_id, r.periodo_id, r.total_percepciones FROM nomina_recibos r \
         JOIN nomina_periodos p ON p.id = r.periodo_id AND p.empresa_id = r.empresa_id \
         WHERE r.empresa_id = $1 AND p.concepto = $2 AND r.periodo_id <> $3 AND r.status <> 'CANCELADO' \
         AND p.fecha_pago >= $4 AND p.fecha_pago <= $5 ORDER BY p.created_at, p.id",
        empresa_id,
        concepto,
        periodo_id,
        desde,
        hasta
    )
}

/// Deletes period `periodo_id`'s receipts that were never stamped (CALCULADO, PENDIENTE), before
/// a recalculation writes new ones; gives how many.
pub async fn borrar_no_timbrados(tx: &mut Tx, empresa_id: &EmpresaId, periodo_id: &PeriodoId) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "DELETE FROM nomina_recibos WHERE empresa_id = $1 AND periodo_id = $2 AND status IN ('CALCULADO', 'PENDIENTE') \
         AND cfdi_id IS NULL",
        empresa_id,
        periodo_id
    )
}

/// How many of period `periodo_id`'s receipts were stamped (stamped, or cancelled after).
pub async fn contar_timbrados(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
) -> crate::DbResult<i64> {
    sql!(
        scalar_one * conn,
        i64,
        "SELECT COUNT(*) FROM nomina_recibos WHERE empresa_id = $1 AND periodo_id = $2 \
         AND (cfdi_id IS NOT NULL OR status NOT IN ('CALCULADO', 'PENDIENTE'))",
        empresa_id,
        periodo_id
    )
}

/// Period `periodo_id`'s receipts, by employee name.
pub async fn recibos(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
) -> crate::DbResult<Vec<ReciboRow>> {
    let select = format!(
        "SELECT {COLUMNAS_RECIBO} FROM nomina_recibos WHERE empresa_id = $1 AND periodo_id = $2 ORDER BY empleado_nombre, id"
    );
    sql!(fetch_all * conn, ReciboRow, sqlx::AssertSqlSafe(select), empresa_id, periodo_id)
}

/// The company's receipt `id`.
pub async fn recibo(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &ReciboNominaId,
) -> crate::DbResult<Option<ReciboRow>> {
    let select = format!("SELECT {COLUMNAS_RECIBO} FROM nomina_recibos WHERE id = $1 AND empresa_id = $2");
    sql!(fetch_optional * conn, ReciboRow, sqlx::AssertSqlSafe(select), id, empresa_id)
}

/// A receipt's totals after its lines change.
#[derive(Clone, Copy, Debug)]
pub struct TotalesRecibo {
    /// TotalDeducciones.
    pub total_deducciones: Money,
    /// TotalOtrosPagos.
    pub total_otros_pagos: Money,
    /// ISR withheld.
    pub isr_retenido: Money,
    /// Net pay.
    pub neto: Money,
}

/// Replaces receipt `id`'s lines and totals (the annual adjustment), while it is not stamped.
pub async fn cambiar_lineas(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    lineas: &str,
    totales: &TotalesRecibo,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE nomina_recibos SET lineas = $1, total_deducciones = $2, total_otros_pagos = $3, isr_retenido = $4, \
         neto = $5, updated_at = $6 WHERE id = $7 AND empresa_id = $8 AND cfdi_id IS NULL",
        lineas,
        totales.total_deducciones,
        totales.total_otros_pagos,
        totales.isr_retenido,
        totales.neto,
        now,
        id,
        empresa_id
    )
}

/// Sets period `id`'s total to the sum of its receipts' net pay (not cancelled).
pub async fn recalcular_total(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &PeriodoId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    let netos = sql!(
        fetch_all * tx,
        (Money,),
        "SELECT neto FROM nomina_recibos WHERE empresa_id = $1 AND periodo_id = $2 AND status <> 'CANCELADO'",
        empresa_id,
        id
    )?;
    let mut total: rust_decimal::Decimal = netos.into_iter().map(|(m,)| m.0).sum();
    total.rescale(2);
    sql!(
        execute * tx,
        "UPDATE nomina_periodos SET total_nomina = $1, updated_at = $2 WHERE id = $3 AND empresa_id = $4",
        Money(total),
        now,
        id,
        empresa_id
    )
}
