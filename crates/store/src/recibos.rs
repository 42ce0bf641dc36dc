//! The `recibos` table (sales tickets, issue 31) and the company settings of the
//! self-invoicing page and the automatic global invoice (columns of `empresas`).

use crate::ids::{CfdiId, EmpresaId, ReciboId};
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, DbConn, Exec, Money, MultiInsert, Paging, Tx, Value};

/// A ticket as stored.
#[derive(sqlx::FromRow, Clone)]
pub struct ReciboRow {
    /// Id.
    pub id: String,
    /// Company.
    pub empresa_id: EmpresaId,
    /// Folio (the company's counter, or the caller's).
    pub folio: String,
    /// The sale's instant.
    pub fecha: OffsetDateTime,
    /// c_Moneda.
    pub moneda: String,
    /// Exchange rate to MXN.
    pub tipo_cambio: Option<Money>,
    /// c_FormaPago.
    pub forma_pago: String,
    /// The lines as computed (net prices), JSON.
    pub conceptos: String,
    /// Transferred taxes grouped by tax, factor and rate with their bases, JSON.
    pub impuestos: String,
    /// Σ Importe.
    pub subtotal: Money,
    /// Σ Descuento.
    pub descuento: Option<Money>,
    /// Total.
    pub total: Money,
    /// ABIERTO, FACTURADO, GLOBAL or CANCELADO.
    pub status: String,
    /// The code the customer types on the self-invoicing page.
    pub clave_autofactura: String,
    /// The page refuses the code after this instant.
    pub vence: OffsetDateTime,
    /// The invoice (FACTURADO, GLOBAL).
    pub cfdi_id: Option<CfdiId>,
    /// Branch.
    pub sucursal: Option<String>,
    /// Customer's e-mail.
    pub email: Option<String>,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
}

const COLUMNS: &str = "SELECT id, empresa_id, folio, fecha, moneda, tipo_cambio, forma_pago, conceptos, impuestos, subtotal, \
     descuento, total, status, clave_autofactura, vence, cfdi_id, sucursal, email, created_at, updated_at FROM recibos ";

/// The next folio of the company's tickets (taken in `tx`, so two tickets never share one).
pub async fn siguiente_folio(tx: &mut Tx, empresa_id: &EmpresaId) -> crate::DbResult<i64> {
    reservar_folios(tx, empresa_id, 1).await
}

/// Whether the company already has a ticket with `folio`.
pub async fn folio_usado(tx: &mut Tx, empresa_id: &EmpresaId, folio: &str) -> crate::DbResult<bool> {
    Ok(sql!(
        scalar_optional * tx,
        i64,
        "SELECT CAST(1 AS BIGINT) FROM recibos WHERE empresa_id = $1 AND folio = $2",
        empresa_id,
        folio
    )?
    .is_some())
}

/// Whether any ticket (of any company) has the code `clave`.
pub async fn clave_usada(tx: &mut Tx, clave: &str) -> crate::DbResult<bool> {
    Ok(sql!(scalar_optional * tx, i64, "SELECT CAST(1 AS BIGINT) FROM recibos WHERE clave_autofactura = $1", clave)?
        .is_some())
}

/// The insert of a ticket, for [`MultiInsert`] (rows from [`valores`]).
pub const INSERT: &str = "INSERT INTO recibos (id, empresa_id, folio, fecha, moneda, tipo_cambio, forma_pago, conceptos, \
     impuestos, subtotal, descuento, total, status, clave_autofactura, vence, cfdi_id, sucursal, email, search_text, \
     created_at, updated_at)";
/// How many columns [`INSERT`] names.
pub const INSERT_COLUMNS: usize = 21;

/// The values of `r` in the order of [`INSERT`].
pub fn valores(r: &ReciboRow) -> Vec<Value> {
    let search = crate::search::search_text(&[
        r.folio.as_str(),
        r.clave_autofactura.as_str(),
        r.sucursal.as_deref().unwrap_or(""),
        r.email.as_deref().unwrap_or(""),
    ]);
    vec![
        Value::Text(r.id.clone()),
        (&r.empresa_id).into(),
        Value::Text(r.folio.clone()),
        Value::Time(r.fecha),
        Value::Text(r.moneda.clone()),
        Value::OptMoney(r.tipo_cambio),
        Value::Text(r.forma_pago.clone()),
        Value::Text(r.conceptos.clone()),
        Value::Text(r.impuestos.clone()),
        Value::Money(r.subtotal),
        Value::OptMoney(r.descuento),
        Value::Money(r.total),
        Value::Text(r.status.clone()),
        Value::Text(r.clave_autofactura.clone()),
        Value::Time(r.vence),
        r.cfdi_id.clone().into(),
        Value::OptText(r.sucursal.clone()),
        Value::OptText(r.email.clone()),
        Value::Text(search),
        Value::Time(r.created_at),
        Value::Time(r.updated_at),
    ]
}

/// Inserts `r` (status ABIERTO).
pub async fn insert(tx: &mut Tx, r: &ReciboRow) -> crate::DbResult<u64> {
    let mut insert = MultiInsert::new(INSERT, INSERT_COLUMNS, "");
    insert.row(valores(r));
    insert.execute(tx).await
}

/// Takes `k` folios of the company's ticket counter at once; gives the last (the folios are
/// `ultimo - k + 1 ..= ultimo`).
pub async fn reservar_folios(tx: &mut Tx, empresa_id: &EmpresaId, k: i64) -> crate::DbResult<i64> {
    sql!(
        scalar_one * tx,
        i64,
        "UPDATE empresas SET folio_recibo = folio_recibo + $1 WHERE id = $2 RETURNING folio_recibo",
        k,
        empresa_id
    )
}

/// A listing's filters.
#[derive(Default)]
pub struct Filtro {
    /// ABIERTO, FACTURADO, GLOBAL or CANCELADO.
    pub status: Option<String>,
    /// `fecha >= desde`.
    pub desde: Option<OffsetDateTime>,
    /// `fecha < hasta`.
    pub hasta: Option<OffsetDateTime>,
    /// `LIKE` pattern over folio, code, branch and e-mail (lower case), `None`: everything.
    pub patron: Option<String>,
}

/// One page of the company's tickets, newest first, and how many match.
pub async fn page(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    filtro: &Filtro,
    paging: &Paging,
) -> crate::DbResult<(Vec<ReciboRow>, i64)> {
    let filter = "WHERE empresa_id = $1 AND ($2 IS NULL OR status = $2) AND ($3 IS NULL OR fecha >= $3) \
         AND ($4 IS NULL OR fecha < $4) AND ($5 IS NULL OR search_text LIKE $5 ESCAPE '\\')";
    let total = sql!(
        scalar_one * conn,
        i64,
        sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM recibos {filter}")),
        empresa_id,
        &filtro.status,
        filtro.desde,
        filtro.hasta,
        &filtro.patron
    )?;
    let rows = sql!(
        fetch_all * conn,
        ReciboRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}{filter} ORDER BY fecha DESC, id DESC LIMIT $6 OFFSET $7")),
        empresa_id,
        &filtro.status,
        filtro.desde,
        filtro.hasta,
        &filtro.patron,
        paging.page_size,
        paging.offset()
    )?;
    Ok((rows, total))
}

/// The company's ticket `id`.
pub async fn get(conn: &mut impl AsExec, empresa_id: &EmpresaId, id: &ReciboId) -> crate::DbResult<Option<ReciboRow>> {
    sql!(
        fetch_optional * conn,
        ReciboRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE id = $1 AND empresa_id = $2")),
        id,
        empresa_id
    )
}

/// The ticket with the self-invoicing code `clave`, of any company (the page compares the
/// company itself).
pub async fn por_clave(conn: &mut impl AsExec, clave: &str) -> crate::DbResult<Option<ReciboRow>> {
    sql!(fetch_optional * conn, ReciboRow, sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE clave_autofactura = $1")), clave)
}

/// The company's ABIERTO tickets with `desde <= fecha < hasta`, oldest first.
pub async fn abiertos(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    desde: OffsetDateTime,
    hasta: OffsetDateTime,
) -> crate::DbResult<Vec<ReciboRow>> {
    sql!(
        fetch_all * conn,
        ReciboRow,
        sqlx::AssertSqlSafe(format!(
            "{COLUMNS}WHERE empresa_id = $1 AND status = 'ABIERTO' AND fecha >= $2 AND fecha < $3 ORDER BY fecha, id"
        )),
        empresa_id,
        desde,
        hasta
    )
}

/// Cancels the company's ticket `id` when it is ABIERTO; rows changed.
pub async fn cancelar(tx: &mut Tx, empresa_id: &EmpresaId, id: &ReciboId, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE recibos SET status = 'CANCELADO', updated_at = $1 WHERE id = $2 AND empresa_id = $3 AND status = 'ABIERTO'",
        now,
        id,
        empresa_id
    )
}

/// Moves the company's tickets `ids` that are still ABIERTO to `status` with invoice `cfdi_id`;
/// how many moved (fewer than `ids.len()`: some changed meanwhile).
pub async fn marcar(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    ids: &[String],
    status: &str,
    cfdi_id: &CfdiId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    let mut cambiados = 0;
    // A bounded number of parameters per statement on both backends.
    for trozo in ids.chunks(500) {
        let lista: Vec<String> = (0..trozo.len()).map(|i| format!("${}", i + 5)).collect();
        let texto = format!(
            "UPDATE recibos SET status = $1, cfdi_id = $2, updated_at = $3 WHERE empresa_id = $4 AND status = 'ABIERTO' \
             AND id IN ({})",
            lista.join(", ")
        );
        let texto = sqlx::AssertSqlSafe(texto);
        cambiados += match tx.exec() {
            Exec::Sqlite(c) => {
                let mut q = sqlx::query(texto).bind(status).bind(cfdi_id).bind(now).bind(empresa_id);
                for id in trozo {
                    q = q.bind(id);
                }
                q.execute(c).await?.rows_affected()
            }
            Exec::Pg(c) => {
                let mut q = sqlx::query(texto).bind(status).bind(cfdi_id).bind(now).bind(empresa_id);
                for id in trozo {
                    q = q.bind(id);
                }
                q.execute(c).await?.rows_affected()
            }
        };
    }
    Ok(cambiados)
}

/// The tickets of invoice `cfdi_id` go back to ABIERTO (the invoice was cancelled, or the PAC
/// refused it); how many.
pub async fn devolver(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE recibos SET status = 'ABIERTO', cfdi_id = NULL, updated_at = $1 WHERE empresa_id = $2 AND cfdi_id = $3 \
         AND status IN ('FACTURADO', 'GLOBAL')",
        now,
        empresa_id,
        cfdi_id
    )
}

/// How many tickets invoice `cfdi_id` holds.
pub async fn de_cfdi(conn: &mut impl AsExec, empresa_id: &EmpresaId, cfdi_id: &CfdiId) -> crate::DbResult<i64> {
    sql!(
        scalar_one * conn,
        i64,
        "SELECT COUNT(*) FROM recibos WHERE empresa_id = $1 AND cfdi_id = $2",
        empresa_id,
        cfdi_id
    )
}

/// The company's self-invoicing and global invoice settings.
#[derive(sqlx::FromRow, Clone, Debug)]
pub struct Ajustes {
    /// The company.
    pub id: String,
    /// The company's legal name (shown on the page).
    pub razon_social: String,
    /// `/autofactura/{slug}`.
    pub autofactura_slug: Option<String>,
    /// Days a code stays valid; `None`: until the end of the ticket's month.
    pub autofactura_dias_vigencia: Option<i64>,
    /// The page accepts codes.
    pub autofactura_activa: bool,
    /// The scheduled job stamps the global invoice of each closed period.
    pub global_automatica: bool,
    /// c_Periodicidad of the automatic global invoice (01 to 05).
    pub global_periodicidad: String,
    /// Whether the company has a logo (branding, issue 32): the public page shows it.
    pub tiene_logo: bool,
    /// The PDFs' primary color `#RRGGBB` (branding): the public page's buttons take it.
    pub pdf_color_primario: Option<String>,
}

const AJUSTES: &str = "SELECT id, razon_social, autofactura_slug, autofactura_dias_vigencia, autofactura_activa, \
     global_automatica, global_periodicidad, (logo_png IS NOT NULL) AS tiene_logo, pdf_color_primario FROM empresas ";

/// The settings of company `empresa_id`.
pub async fn ajustes(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<Option<Ajustes>> {
    sql!(
        fetch_optional * conn,
        Ajustes,
        sqlx::AssertSqlSafe(format!("{AJUSTES}WHERE id = $1 AND deleted_at IS NULL")),
        empresa_id
    )
}

/// The company whose page is `/autofactura/{slug}`.
pub async fn por_slug(conn: &mut impl AsExec, slug: &str) -> crate::DbResult<Option<Ajustes>> {
    sql!(
        fetch_optional * conn,
        Ajustes,
        sqlx::AssertSqlSafe(format!("{AJUSTES}WHERE autofactura_slug = $1 AND deleted_at IS NULL")),
        slug
    )
}

/// Companies with the automatic global invoice on.
pub async fn con_global_automatica(conn: &mut impl AsExec) -> crate::DbResult<Vec<Ajustes>> {
    sql!(
        fetch_all * conn,
        Ajustes,
        sqlx::AssertSqlSafe(format!("{AJUSTES}WHERE global_automatica = TRUE AND deleted_at IS NULL ORDER BY id"))
    )
}

/// Writes the settings of `a.id`; `false` when the slug is another company's.
pub async fn guardar_ajustes(tx: &mut Tx, a: &Ajustes, now: OffsetDateTime) -> crate::DbResult<bool> {
    if let Some(slug) = &a.autofactura_slug {
        let otro = sql!(
            scalar_optional * tx,
            String,
            "SELECT id FROM empresas WHERE autofactura_slug = $1 AND id <> $2",
            slug,
            &a.id
        )?;
        if otro.is_some() {
            return Ok(false);
        }
    }
    sql!(
        execute * tx,
        "UPDATE empresas SET autofactura_slug = $1, autofactura_dias_vigencia = $2, autofactura_activa = $3, \
         global_automatica = $4, global_periodicidad = $5, updated_at = $6 WHERE id = $7",
        &a.autofactura_slug,
        a.autofactura_dias_vigencia,
        a.autofactura_activa,
        a.global_automatica,
        &a.global_periodicidad,
        now,
        &a.id
    )?;
    Ok(true)
}

/// Wrong codes counted for `ip_digest` in the window that began after `desde` (0 when the
/// last window is older), and when that window began.
pub async fn fallos(
    conn: &mut impl AsExec,
    ip_digest: &str,
    desde: OffsetDateTime,
) -> crate::DbResult<Option<(i64, OffsetDateTime)>> {
    sql!(
        fetch_optional * conn,
        (i64, OffsetDateTime),
        "SELECT fallos, desde FROM autofactura_fallos WHERE ip_digest = $1 AND desde > $2",
        ip_digest,
        desde
    )
}

/// Counts one wrong code for `ip_digest`: a window older than `ventana_vieja` starts over at
/// `now`.
pub async fn contar_fallo(
    conn: &mut impl AsExec,
    ip_digest: &str,
    now: OffsetDateTime,
    ventana_vieja: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO autofactura_fallos (ip_digest, fallos, desde) VALUES ($1, 1, $2) \
         ON CONFLICT (ip_digest) DO UPDATE SET \
           fallos = CASE WHEN autofactura_fallos.desde <= $3 THEN 1 ELSE autofactura_fallos.fallos + 1 END, \
           desde = CASE WHEN autofactura_fallos.desde <= $3 THEN $2 ELSE autofactura_fallos.desde END",
        ip_digest,
        now,
        ventana_vieja
    )
}

/// The owner of company `empresa_id` (the user a self-invoice's stamp is recorded for).
pub async fn propietario(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<String> {
    sql!(scalar_one * conn, String, "SELECT owner_user_id FROM empresas WHERE id = $1", empresa_id)
}
