//! The `intentos_timbrado` table: one row per live folio sent to the PAC (`ENVIADO`, then
//! `TIMBRADO`, `RECHAZADO` or `SIN_RESPUESTA`), so every folio that did not become an invoice
//! is explained. An attempt that became an invoice has the invoice's id. Scoped by company.

use sqlx::FromRow;
use time::OffsetDateTime;

use crate::db::DbConn;
use crate::envelope::Paging;
use crate::sql;

/// A stamping attempt with the invoice it became, if any.
#[derive(FromRow)]
pub struct IntentoRow {
    /// The attempt's id (the invoice's id when it was stamped).
    pub id: String,
    /// Serie.
    pub serie: String,
    /// Folio number.
    pub folio: i64,
    /// ENVIADO, TIMBRADO, RECHAZADO or SIN_RESPUESTA.
    pub status: String,
    /// The PAC's or SAT's code of a refusal.
    pub pac_code: Option<String>,
    /// What went wrong, as recorded.
    pub error: Option<String>,
    /// The invoice it became.
    pub cfdi_id: Option<String>,
    /// That invoice's UUID as the API shows it.
    pub uuid: Option<String>,
    /// When the folio was sent.
    pub created_at: OffsetDateTime,
    /// Last change.
    pub updated_at: OffsetDateTime,
}

/// Filters of [`pagina`].
#[derive(Default)]
pub struct Filtro {
    /// Only this serie.
    pub serie: Option<String>,
    /// Folios from this number.
    pub desde: Option<i64>,
    /// Folios up to this number.
    pub hasta: Option<i64>,
    /// Only this status.
    pub status: Option<String>,
}

const FROM_WHERE: &str = "FROM intentos_timbrado i LEFT JOIN cfdis c ON c.id = i.id AND c.empresa_id = i.empresa_id \
    WHERE i.empresa_id = $1 AND ($2 IS NULL OR i.serie = $2) AND ($3 IS NULL OR i.folio >= $3) \
    AND ($4 IS NULL OR i.folio <= $4) AND ($5 IS NULL OR i.status = $5)";

/// One page of the company's attempts in serie and folio order, and how many match.
pub async fn pagina(
    conn: &mut DbConn,
    empresa_id: &str,
    filtro: &Filtro,
    paging: &Paging,
) -> Result<(Vec<IntentoRow>, i64), sqlx::Error> {
    let total = sql!(
        scalar_one * conn,
        i64,
        sqlx::AssertSqlSafe(format!("SELECT COUNT(*) {FROM_WHERE}")),
        empresa_id,
        &filtro.serie,
        filtro.desde,
        filtro.hasta,
        &filtro.status
    )?;
    let items = sql!(
        fetch_all * conn,
        IntentoRow,
        crate::db::with_limit(
            &format!(
                "SELECT i.id, i.serie, i.folio, i.status, i.pac_code, i.error, c.id AS cfdi_id, c.uuid, i.created_at, \
             i.updated_at {FROM_WHERE} ORDER BY i.serie, i.folio LIMIT {{limit}} OFFSET $6"
            ),
            paging.page_size
        ),
        empresa_id,
        &filtro.serie,
        filtro.desde,
        filtro.hasta,
        &filtro.status,
        paging.offset()
    )?;
    Ok((items, total))
}

/// A folio number used by an invoice stamped here.
#[derive(FromRow)]
pub struct FolioCfdi {
    /// Folio number.
    pub folio: i64,
    /// The invoice's id.
    pub id: String,
    /// UUID as the API shows it.
    pub uuid: String,
    /// TIMBRADO, TIMBRADO_SANDBOX or CANCELADO.
    pub status: String,
}

/// What used each folio of `serie` from `desde` to `hasta` in one mode: the invoices stamped
/// here, and (live mode) the attempts.
pub async fn usos(
    conn: &mut DbConn,
    empresa_id: &str,
    sandbox: bool,
    serie: &str,
    desde: i64,
    hasta: i64,
) -> Result<(Vec<FolioCfdi>, Vec<IntentoRow>), sqlx::Error> {
    let cfdis = sql!(
        fetch_all * conn,
        FolioCfdi,
        "SELECT folio_num AS folio, id, uuid, status FROM cfdis WHERE empresa_id = $1 AND origen = 'API' AND sandbox = $2 \
         AND serie = $3 AND folio_num >= $4 AND folio_num <= $5 ORDER BY folio_num",
        empresa_id,
        sandbox,
        serie,
        desde,
        hasta
    )?;
    let intentos = if sandbox {
        Vec::new()
    } else {
        let filtro = Filtro { serie: Some(serie.to_owned()), desde: Some(desde), hasta: Some(hasta), status: None };
        sql!(
            fetch_all * conn,
            IntentoRow,
            sqlx::AssertSqlSafe(format!(
                "SELECT i.id, i.serie, i.folio, i.status, i.pac_code, i.error, c.id AS cfdi_id, c.uuid, i.created_at, \
                 i.updated_at {FROM_WHERE} ORDER BY i.folio"
            )),
            empresa_id,
            &filtro.serie,
            filtro.desde,
            filtro.hasta,
            &filtro.status
        )?
    };
    Ok((cfdis, intentos))
}

/// The last folio the serie used in this mode (0 when none).
pub async fn ultimo_folio(conn: &mut DbConn, empresa_id: &str, sandbox: bool, serie: &str) -> Result<i64, sqlx::Error> {
    let ultimo = sql!(
        scalar_optional * conn,
        i64,
        "SELECT ultimo FROM folios WHERE empresa_id = $1 AND sandbox = $2 AND serie = $3",
        empresa_id,
        sandbox,
        serie
    )?;
    Ok(ultimo.unwrap_or(0))
}
