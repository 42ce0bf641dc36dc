//! Payments (Pagos 2.0): `saldos_ppd`, the balance and last installment of every PPD invoice
//! (a trigger writes the row with the invoice), and `pagos_doctos`, what each payment applied
//! to each invoice. Scoped by company.

use crate::ids::{CfdiId, EmpresaId, PagoId};
use rust_decimal::Decimal;
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, DbConn, Money, Tx};

/// A payment line that holds its amount.
pub const APLICADO: &str = "APLICADO";
/// A payment line whose amount went back to the invoice (the PAC refused the payment, or the
/// payment was cancelled).
pub const DEVUELTO: &str = "DEVUELTO";

/// An issued invoice as a payment needs to check and cite it.
#[derive(FromRow)]
pub struct Relacionado {
    /// Id.
    pub id: CfdiId,
    /// UUID as the API shows it.
    pub uuid: String,
    /// UUID in the XML.
    pub uuid_xml: String,
    /// Invoice status.
    pub status: String,
    /// Stamped in sandbox.
    pub sandbox: bool,
    /// I, E, T, P, N.
    pub tipo_comprobante: String,
    /// PUE or PPD.
    pub metodo_pago: Option<String>,
    /// The invoice's currency.
    pub moneda: String,
    /// Serie.
    pub serie: Option<String>,
    /// Folio.
    pub folio: Option<String>,
    /// Receiver RFC.
    pub receptor_rfc: String,
    /// The customer it was issued to.
    pub cliente_id: Option<String>,
    /// Where a cancellation stands.
    pub estado_cancelacion: Option<String>,
    /// Where its XML is.
    pub xml_url: Option<String>,
    /// Stored balance (PPD invoices only).
    pub saldo_insoluto: Option<Money>,
    /// Last installment applied (PPD invoices only).
    pub ultima_parcialidad: Option<i64>,
}

/// The company's issued invoice whose XML UUID is `uuid_xml` (upper case).
pub async fn relacionado(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    uuid_xml: &str,
) -> crate::DbResult<Option<Relacionado>> {
    sql!(
        fetch_optional * conn,
        Relacionado,
        "SELECT c.id, c.uuid, c.uuid_xml, c.status, c.sandbox, c.tipo_comprobante, c.metodo_pago, c.moneda, c.serie, c.folio, \
         c.receptor_rfc, c.cliente_id, c.estado_cancelacion, c.xml_url, s.saldo_insoluto, s.ultima_parcialidad \
         FROM cfdis c LEFT JOIN saldos_ppd s ON s.cfdi_id = c.id \
         WHERE c.empresa_id = $1 AND c.uuid_xml = $2 AND c.tipo = 'EMITIDA' AND c.origen = 'API'",
        empresa_id,
        uuid_xml
    )
}

/// Balance and last installment of a PPD invoice.
#[derive(FromRow, Clone, Copy, Debug)]
pub struct Saldo {
    /// Balance, in the invoice's currency.
    pub saldo_insoluto: Money,
    /// Last installment applied (0: none).
    pub ultima_parcialidad: i64,
}

/// The balance of invoice `cfdi_id` of the company, as of `tx`.
pub async fn saldo(conn: &mut impl AsExec, empresa_id: &EmpresaId, cfdi_id: &CfdiId) -> crate::DbResult<Option<Saldo>> {
    sql!(
        fetch_optional * conn,
        Saldo,
        "SELECT saldo_insoluto, ultima_parcialidad FROM saldos_ppd WHERE cfdi_id = $1 AND empresa_id = $2",
        cfdi_id,
        empresa_id
    )
}

/// Moves the balance of `cfdi_id` from `anterior` to `nuevo` only if it still is `anterior`
/// (compare and set: a concurrent payment that moved it first leaves 0 rows here).
pub async fn mover(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    anterior: Saldo,
    nuevo: Saldo,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE saldos_ppd SET saldo_insoluto = $1, ultima_parcialidad = $2, pendiente = $3, updated_at = $4 \
         WHERE cfdi_id = $5 AND empresa_id = $6 AND ultima_parcialidad = $7 AND saldo_insoluto = $8",
        nuevo.saldo_insoluto,
        nuevo.ultima_parcialidad,
        nuevo.saldo_insoluto.0 > Decimal::ZERO,
        now,
        cfdi_id,
        empresa_id,
        anterior.ultima_parcialidad,
        anterior.saldo_insoluto
    )
}

/// Takes the write lock of the balance row of a PPD invoice until `tx` ends (no row: not PPD,
/// nothing to hold).
pub async fn bloquear_saldo(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE saldos_ppd SET updated_at = $3 WHERE cfdi_id = $1 AND empresa_id = $2",
        cfdi_id,
        empresa_id,
        now
    )
}

/// Why the invoice can no longer be paid, read in `tx` (after its balance row was locked):
/// cancelled, or its cancellation in progress; `None` when it can.
pub async fn impagable(tx: &mut Tx, empresa_id: &EmpresaId, cfdi_id: &CfdiId) -> crate::DbResult<Option<&'static str>> {
    let (status, estado_cancelacion) = sql!(
        fetch_one * tx,
        (String, Option<String>),
        "SELECT status, estado_cancelacion FROM cfdis WHERE id = $1 AND empresa_id = $2",
        cfdi_id,
        empresa_id
    )?;
    if !crate::estados::EstadoCfdi::parse(&status).is_some_and(crate::estados::EstadoCfdi::vigente) {
        return Ok(Some("was cancelled"));
    }
    let en_curso = estado_cancelacion
        .as_deref()
        .and_then(crate::estados::EstadoCancelacion::parse)
        .is_some_and(crate::estados::EstadoCancelacion::en_curso);
    Ok(en_curso.then_some("is being cancelled"))
}

/// What one payment applies to one invoice.
pub struct Aplicacion<'a> {
    /// The payment's id.
    pub pago_id: &'a PagoId,
    /// The invoice's id.
    pub cfdi_id: &'a CfdiId,
    /// NumParcialidad.
    pub num_parcialidad: i64,
    /// ImpSaldoAnt.
    pub imp_saldo_ant: Decimal,
    /// ImpPagado.
    pub imp_pagado: Decimal,
    /// ImpSaldoInsoluto.
    pub imp_saldo_insoluto: Decimal,
    /// FechaPago.
    pub fecha_pago: &'a str,
}

/// Records `a`, APLICADO.
pub async fn aplicar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    a: &Aplicacion<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO pagos_doctos (pago_id, cfdi_id, empresa_id, num_parcialidad, imp_saldo_ant, imp_pagado, \
         imp_saldo_insoluto, fecha_pago, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        a.pago_id,
        a.cfdi_id,
        empresa_id,
        a.num_parcialidad,
        Money(a.imp_saldo_ant),
        Money(a.imp_pagado),
        Money(a.imp_saldo_insoluto),
        a.fecha_pago,
        APLICADO,
        now
    )
}

#[derive(FromRow)]
struct Aplicada {
    cfdi_id: CfdiId,
    num_parcialidad: i64,
    imp_pagado: Money,
}

/// Gives back to each invoice what payment `pago_id` applied to it, and marks its lines
/// DEVUELTO; the installment counter goes back only where the payment was the last one, so its
/// replacement can take the same number. Nothing for an id that applied nothing (any other
/// CFDI). Returns how many invoices got their amount back.
pub async fn devolver(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    pago_id: &PagoId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    let aplicadas = sql!(
        fetch_all * tx,
        Aplicada,
        "SELECT cfdi_id, num_parcialidad, imp_pagado FROM pagos_doctos \
         WHERE pago_id = $1 AND empresa_id = $2 AND status = 'APLICADO' ORDER BY cfdi_id",
        pago_id,
        empresa_id
    )?;
    for aplicada in &aplicadas {
        // Compare and set: a concurrent payment (PostgreSQL; SQLite has one writer at a time)
        // that moved the balance first makes this read it again.
        let mut intentos = 0;
        loop {
            let Some(actual) = saldo(tx, empresa_id, &aplicada.cfdi_id).await? else { break };
            let ultima = if actual.ultima_parcialidad == aplicada.num_parcialidad {
                aplicada.num_parcialidad - 1
            } else {
                actual.ultima_parcialidad
            };
            let saldo_insoluto = Money(actual.saldo_insoluto.0 + aplicada.imp_pagado.0);
            let nuevo = Saldo { saldo_insoluto, ultima_parcialidad: ultima };
            if mover(tx, empresa_id, &aplicada.cfdi_id, actual, nuevo, now).await? == 1 {
                break;
            }
            intentos += 1;
            if intentos == 20 {
                return Err(sqlx::Error::Protocol(format!("the balance of {} keeps changing", aplicada.cfdi_id)).into());
            }
        }
    }
    sql!(
        execute * tx,
        "UPDATE pagos_doctos SET status = 'DEVUELTO', updated_at = $3 WHERE pago_id = $1 AND empresa_id = $2 AND status = 'APLICADO'",
        pago_id,
        empresa_id,
        now
    )?;
    Ok(aplicadas.len() as u64)
}

/// A stamped payment applied to an invoice, as the invoice's detail shows it.
#[derive(FromRow)]
pub struct PagoAplicado {
    /// The payment CFDI's id.
    pub pago_id: String,
    /// Its UUID as the API shows it.
    pub uuid: String,
    /// Its `Fecha`.
    pub fecha: OffsetDateTime,
    /// FechaPago.
    pub fecha_pago: String,
    /// NumParcialidad.
    pub num_parcialidad: i64,
    /// ImpSaldoAnt.
    pub imp_saldo_ant: Money,
    /// ImpPagado.
    pub imp_pagado: Money,
    /// ImpSaldoInsoluto.
    pub imp_saldo_insoluto: Money,
}

/// The stamped, not cancelled payments applied to invoice `cfdi_id`, by installment.
pub async fn pagos_de(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Vec<PagoAplicado>> {
    sql!(
        fetch_all * conn,
        PagoAplicado,
        "SELECT p.pago_id, c.uuid, c.fecha, p.fecha_pago, p.num_parcialidad, p.imp_saldo_ant, p.imp_pagado, \
         p.imp_saldo_insoluto FROM pagos_doctos p JOIN cfdis c ON c.id = p.pago_id AND c.empresa_id = p.empresa_id \
         WHERE p.cfdi_id = $1 AND p.empresa_id = $2 AND p.status = 'APLICADO' ORDER BY p.num_parcialidad",
        cfdi_id,
        empresa_id
    )
}

/// A payment that holds an amount of an invoice: its UUID when stamped, else (live, waiting for
/// the PAC) its attempt's id.
pub async fn pagos_vigentes(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Vec<String>> {
    sql!(
        fetch_all * conn,
        (String,),
        "SELECT COALESCE(c.uuid, p.pago_id) FROM pagos_doctos p \
         LEFT JOIN cfdis c ON c.id = p.pago_id AND c.empresa_id = p.empresa_id \
         WHERE p.cfdi_id = $1 AND p.empresa_id = $2 AND p.status = 'APLICADO' ORDER BY p.num_parcialidad",
        cfdi_id,
        empresa_id
    )
    .map(|rows| rows.into_iter().map(|(uuid,)| uuid).collect())
}

/// A line of a payment, as the payment's detail shows it.
#[derive(FromRow)]
pub struct DoctoDePago {
    /// The invoice's id.
    pub cfdi_id: CfdiId,
    /// The invoice's UUID as the API shows it.
    pub uuid: String,
    /// NumParcialidad.
    pub num_parcialidad: i64,
    /// ImpSaldoAnt.
    pub imp_saldo_ant: Money,
    /// ImpPagado.
    pub imp_pagado: Money,
    /// ImpSaldoInsoluto.
    pub imp_saldo_insoluto: Money,
    /// APLICADO or DEVUELTO.
    pub status: String,
}

/// The invoices payment `pago_id` applied to.
pub async fn doctos_de(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    pago_id: &PagoId,
) -> crate::DbResult<Vec<DoctoDePago>> {
    sql!(
        fetch_all * conn,
        DoctoDePago,
        "SELECT p.cfdi_id, c.uuid, p.num_parcialidad, p.imp_saldo_ant, p.imp_pagado, p.imp_saldo_insoluto, p.status \
         FROM pagos_doctos p JOIN cfdis c ON c.id = p.cfdi_id \
         WHERE p.pago_id = $1 AND p.empresa_id = $2 ORDER BY c.uuid",
        pago_id,
        empresa_id
    )
}
