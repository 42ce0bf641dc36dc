//! The `cfdis` table: invoices as listed, shown, cancelled and downloaded. Every query is
//! scoped by company.

use crate::ids::{CfdiId, EmpresaId};
use sqlx::{AssertSqlSafe, FromRow};
use time::OffsetDateTime;

use crate::estados::EstadoCfdi;
use crate::sql;
use crate::{Backend, DbConn, Exec, Money, Tx};

/// The `cfdis` columns an invoice row is written with (the server's `pipeline::Fila::valores` gives them in order).
pub const CFDIS_INSERT: &str = "INSERT INTO cfdis (id, empresa_id, tipo, origen, tipo_comprobante, sandbox, uuid, uuid_xml, serie, \
     folio, folio_num, fecha, fecha_timbrado, subtotal, descuento, total, moneda, tipo_cambio, forma_pago, metodo_pago, status, \
     emisor_rfc, emisor_nombre, emisor_regimen, receptor_rfc, receptor_nombre, receptor_uso_cfdi, emisor_nombre_lower, \
     receptor_nombre_lower, cliente_id, xml_url, conceptos, created_at, complementos)";
/// How many columns [`CFDIS_INSERT`] names.
pub const CFDIS_COLUMNS: usize = 34;

/// An invoice as listed and shown (the `conceptos` JSON is read apart, for the detail only).
#[derive(FromRow)]
pub struct CfdiRow {
    pub id: String,
    pub uuid: String,
    pub tipo: String,
    pub origen: String,
    pub tipo_comprobante: String,
    pub serie: Option<String>,
    pub folio: Option<String>,
    pub fecha: OffsetDateTime,
    pub fecha_timbrado: Option<OffsetDateTime>,
    pub subtotal: Money,
    pub descuento: Option<Money>,
    pub total: Money,
    pub moneda: String,
    pub tipo_cambio: Option<Money>,
    pub forma_pago: Option<String>,
    pub metodo_pago: Option<String>,
    pub status: String,
    pub emisor_rfc: String,
    pub emisor_nombre: String,
    pub emisor_regimen: String,
    pub receptor_rfc: String,
    pub receptor_nombre: String,
    pub receptor_uso_cfdi: String,
    pub xml_url: Option<String>,
    pub estado_cancelacion: Option<String>,
    /// Received invoices: COMPLETE, METADATA_ONLY, PERMANENT_METADATA_ONLY (NULL when issued).
    pub xml_download_status: Option<String>,
    pub xml_retry_count: i64,
    pub xml_next_retry_at: Option<OffsetDateTime>,
    /// The complements it carries by their JSON names, comma-separated (`cartaPorte`,
    /// `comercioExterior`); empty for none.
    pub complementos: String,
    /// SAT's `Estado` as last read (`Vigente`, `Cancelado`, `No Encontrado`).
    pub estado_sat: Option<String>,
    /// When SAT's status was last read.
    pub estado_sat_consultado_en: Option<OffsetDateTime>,
}

/// The columns of [`CfdiRow`].
const COLUMNS: &str = "SELECT id, uuid, tipo, origen, tipo_comprobante, serie, folio, fecha, fecha_timbrado, subtotal, descuento, \
    total, moneda, tipo_cambio, forma_pago, metodo_pago, status, emisor_rfc, emisor_nombre, emisor_regimen, receptor_rfc, \
    receptor_nombre, receptor_uso_cfdi, xml_url, estado_cancelacion, xml_download_status, xml_retry_count, \
    xml_next_retry_at, complementos, estado_sat, estado_sat_consultado_en FROM cfdis ";

/// A bound argument of a query assembled from optional filters.
#[derive(Clone)]
enum Arg {
    Text(String),
    Time(OffsetDateTime),
    Int(i64),
}

/// Binds `args` in order to a query of either backend.
macro_rules! bind_args {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                Arg::Text(v) => query.bind(v),
                Arg::Time(v) => query.bind(v),
                Arg::Int(v) => query.bind(v),
            };
        }
        query
    }};
}

async fn fetch_rows(conn: &mut DbConn, sql: String, args: Vec<Arg>) -> crate::DbResult<Vec<CfdiRow>> {
    match crate::AsExec::exec(conn) {
        Exec::Sqlite(c) => {
            Ok(bind_args!(sqlx::query_as::<sqlx::Sqlite, CfdiRow>(AssertSqlSafe(sql)), args).fetch_all(c).await?)
        }
        Exec::Pg(c) => {
            Ok(bind_args!(sqlx::query_as::<sqlx::Postgres, CfdiRow>(AssertSqlSafe(sql)), args).fetch_all(c).await?)
        }
    }
}

async fn count_rows(conn: &mut DbConn, sql: String, args: &[Arg]) -> crate::DbResult<i64> {
    let args = args.iter().cloned();
    match crate::AsExec::exec(conn) {
        Exec::Sqlite(c) => {
            Ok(bind_args!(sqlx::query_scalar::<sqlx::Sqlite, i64>(AssertSqlSafe(sql)), args).fetch_one(c).await?)
        }
        Exec::Pg(c) => {
            Ok(bind_args!(sqlx::query_scalar::<sqlx::Postgres, i64>(AssertSqlSafe(sql)), args).fetch_one(c).await?)
        }
    }
}

/// Search text with LIKE's `%`, `_` and `\` escaped, so a search for them matches them literally
/// (and a search of only `%` matches nothing, instead of everything).
fn escape_like(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// The words of a search, lower case, split at anything that is not a letter or a digit (as
/// FTS5's unicode61 tokenizer splits names); at most eight.
fn palabras(search: &str) -> Vec<String> {
    search
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(8)
        .map(str::to_owned)
        .collect()
}

/// Which invoices a listing shows (every field already validated by the route).
#[derive(Debug, Default)]
pub struct Filtro {
    /// `EMITIDA` or `RECIBIDA`.
    pub tipo: Option<String>,
    /// I, E, T, P or N.
    pub tipo_comprobante: Option<String>,
    /// An invoice status; [`EstadoCfdi::Timbrado`] also matches TIMBRADO_SANDBOX.
    pub status: Option<EstadoCfdi>,
    /// From this instant, inclusive.
    pub desde: Option<OffsetDateTime>,
    /// Before this instant.
    pub hasta: Option<OffsetDateTime>,
    /// UUID or RFC prefix, folio, or words of the names.
    pub search: Option<String>,
    /// PPD invoices with a balance owed (`true`, not cancelled) or settled (`false`).
    pub saldo_pendiente: Option<bool>,
    /// Leaves payroll receipts (type N) out: the caller may read invoices but not payroll.
    pub sin_nomina: bool,
    /// Only invoices carrying this complement (its JSON name: `cartaPorte`, `comercioExterior`).
    pub complemento: Option<String>,
}

/// A page of the company's invoices, most recent first, with the total that matches.
pub async fn listar(
    conn: &mut DbConn,
    backend: Backend,
    empresa_id: &EmpresaId,
    filtro: &Filtro,
    limit: i64,
    offset: i64,
) -> crate::DbResult<(Vec<CfdiRow>, i64)> {
    let (filter, mut args, counted) = condiciones(backend, empresa_id, filtro);
    let count = if counted {
        format!("SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM cfdi_conteos {filter}")
    } else {
        format!("SELECT COUNT(*) FROM cfdis {filter}")
    };
    let total = count_rows(conn, count, &args).await?;
    args.push(Arg::Int(offset));
    // The limit is written into the SQL: see `db::with_limit`.
    let sql = format!("{COLUMNS}{filter} ORDER BY fecha DESC, id DESC LIMIT {limit} OFFSET ${}", args.len());
    let rows = fetch_rows(conn, sql, args).await?;
    Ok((rows, total))
}

/// A page of the company's CFDI matching `filtro` oldest first (`fecha`, then `id`), after the
/// row whose key is `despues`: keyset paging, so the last page of a month costs what the first
/// does (the ZIP export reads a period this way, `limit` rows at a time).
pub async fn pagina_en_orden(
    conn: &mut DbConn,
    backend: Backend,
    empresa_id: &EmpresaId,
    filtro: &Filtro,
    despues: Option<(OffsetDateTime, &str)>,
    limit: i64,
) -> crate::DbResult<Vec<CfdiRow>> {
    let (mut filter, mut args, _) = condiciones(backend, empresa_id, filtro);
    if let Some((fecha, id)) = despues {
        args.push(Arg::Time(fecha));
        let n = args.len();
        args.push(Arg::Text(id.to_owned()));
        filter.push_str(&format!(" AND (fecha > ${n} OR (fecha = ${n} AND id > ${}))", n + 1));
    }
    // The limit is written into the SQL: see `db::with_limit`.
    let sql = format!("{COLUMNS}{filter} ORDER BY fecha, id LIMIT {limit}");
    fetch_rows(conn, sql, args).await
}

/// The `WHERE` of the company's CFDI matching `filtro`, its arguments (`$1` the company), and
/// whether the counters the triggers keep can give its total (only tipo and status filter).
fn condiciones(backend: Backend, empresa_id: &EmpresaId, filtro: &Filtro) -> (String, Vec<Arg>, bool) {
    // Retentions (RET) have their own listing (`retenciones::listar`).
    let mut filter = String::from("WHERE empresa_id = $1 AND tipo_comprobante <> 'RET'");
    let mut args = vec![Arg::Text(empresa_id.as_str().to_owned())];
    let mut push = |filter: &mut String, clause: &str, arg: Arg| {
        args.push(arg);
        filter.push_str(&clause.replace("$?", &format!("${}", args.len())));
    };
    if let Some(tipo) = &filtro.tipo {
        push(&mut filter, " AND tipo = $?", Arg::Text(tipo.clone()));
    }
    if let Some(tipo) = &filtro.tipo_comprobante {
        push(&mut filter, " AND tipo_comprobante = $?", Arg::Text(tipo.clone()));
    }
    if filtro.sin_nomina {
        filter.push_str(" AND tipo_comprobante <> 'N'");
    }
    if let Some(complemento) = &filtro.complemento {
        // The names are distinct words (`cartaPorte`, `comercioExterior`), so a substring
        // of the comma-separated list matches exactly one.
        push(&mut filter, " AND complementos LIKE $?", Arg::Text(format!("%{complemento}%")));
    }
    match filtro.status {
        Some(EstadoCfdi::Timbrado) => filter.push_str(" AND status IN ('TIMBRADO', 'TIMBRADO_SANDBOX')"),
        Some(status) => push(&mut filter, " AND status = $?", Arg::Text(status.as_str().to_owned())),
        None => {}
    }
    // Tipo and status alone: the total is a sum over the counters the triggers keep.
    let counted = filtro.desde.is_none()
        && filtro.hasta.is_none()
        && filtro.search.is_none()
        && filtro.saldo_pendiente.is_none()
        && filtro.complemento.is_none();
    match filtro.saldo_pendiente {
        Some(true) => filter.push_str(
            " AND status <> 'CANCELADO' AND id IN (SELECT cfdi_id FROM saldos_ppd WHERE empresa_id = $1 AND pendiente = TRUE)",
        ),
        Some(false) => {
            filter.push_str(" AND id IN (SELECT cfdi_id FROM saldos_ppd WHERE empresa_id = $1 AND pendiente = FALSE)")
        }
        None => {}
    }
    if let Some(desde) = filtro.desde {
        push(&mut filter, " AND fecha >= $?", Arg::Time(desde));
    }
    if let Some(hasta) = filtro.hasta {
        push(&mut filter, " AND fecha < $?", Arg::Time(hasta));
    }
    if let Some(search) = filtro.search.clone() {
        let upper = search.to_uppercase();
        let bare = upper.strip_prefix("SANDBOX-").unwrap_or(&upper).to_owned();
        let words = palabras(&search);
        // Each alternative has its own index: a prefix range (SQLite) or a prefix LIKE on a
        // text_pattern_ops index (PostgreSQL) for UUID and RFC, equality for the folio, FTS5
        // or trigrams for the words of the names.
        match backend {
            Backend::Sqlite => {
                push(&mut filter, " AND ((uuid_xml >= $?", Arg::Text(bare.clone()));
                push(&mut filter, " AND uuid_xml < $?)", Arg::Text(format!("{bare}\u{10FFFF}")));
                push(&mut filter, " OR folio = $?", Arg::Text(search.clone()));
                for column in ["emisor_rfc", "receptor_rfc"] {
                    push(&mut filter, &format!(" OR ({column} >= $?"), Arg::Text(upper.clone()));
                    push(&mut filter, &format!(" AND {column} < $?)"), Arg::Text(format!("{upper}\u{10FFFF}")));
                }
                if !words.is_empty() {
                    let query = words.iter().map(|w| format!("\"{w}\"*")).collect::<Vec<_>>().join(" AND ");
                    push(
                        &mut filter,
                        " OR id IN (SELECT cfdi_id FROM cfdis_nombres WHERE cfdis_nombres MATCH $?)",
                        Arg::Text(query),
                    );
                }
                filter.push(')');
            }
            Backend::Postgres => {
                // Prefix patterns with the search's own %, _ and \ escaped (backslash is
                // PostgreSQL's LIKE escape), so they match only themselves.
                push(&mut filter, " AND (uuid_xml LIKE $?", Arg::Text(format!("{}%", escape_like(&bare))));
                push(&mut filter, " OR folio = $?", Arg::Text(search.clone()));
                push(
                    &mut filter,
                    " OR emisor_rfc LIKE $? OR receptor_rfc LIKE $?",
                    Arg::Text(format!("{}%", escape_like(&upper))),
                );
                for (i, word) in words.iter().enumerate() {
                    let clause = if i == 0 { " OR (" } else { " AND " };
                    filter.push_str(clause);
                    // Words are letters and digits only, so they are safe inside the pattern.
                    push(
                        &mut filter,
                        "(emisor_nombre_lower ~ $? OR receptor_nombre_lower ~ $?)",
                        Arg::Text(format!("(^|[^[:alnum:]]){word}")),
                    );
                }
                if !words.is_empty() {
                    filter.push(')');
                }
                filter.push(')');
            }
        }
    }
    (filter, args, counted)
}

/// One invoice of the company, with its `conceptos` JSON.
pub async fn leer(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    id: &CfdiId,
) -> crate::DbResult<Option<(CfdiRow, String)>> {
    let sql = format!("{COLUMNS}WHERE id = $1 AND empresa_id = $2");
    let Some(row) =
        fetch_rows(conn, sql, vec![Arg::Text(id.as_str().to_owned()), Arg::Text(empresa_id.as_str().to_owned())])
            .await?
            .pop()
    else {
        return Ok(None);
    };
    let conceptos = sql!(scalar_one * conn, String, "SELECT conceptos FROM cfdis WHERE id = $1", id)?;
    Ok(Some((row, conceptos)))
}

/// What cancelling an invoice needs to know of it.
#[derive(FromRow)]
pub struct PorCancelar {
    /// EMITIDA, or RECIBIDA (downloaded from SAT: only its issuer cancels it).
    pub tipo: String,
    /// UUID as the API shows it.
    pub uuid: String,
    /// UUID as the XML carries it.
    pub uuid_xml: String,
    /// Invoice status.
    pub status: String,
    /// Mode it was stamped in.
    pub sandbox: bool,
    /// Where its XML is.
    pub xml_url: Option<String>,
    /// Where a cancellation stands.
    pub estado_cancelacion: Option<String>,
    /// Issuer RFC (SAT's status query).
    pub emisor_rfc: String,
    /// Receiver RFC (SAT's status query).
    pub receptor_rfc: String,
    /// `Total` (SAT's status query).
    pub total: Money,
    /// Serie (logs).
    pub serie: Option<String>,
    /// Folio number (logs).
    pub folio_num: Option<i64>,
    /// c_TipoDeComprobante (I, E, T, P, N): which document type's cancellation effects apply.
    pub tipo_comprobante: String,
    /// `Fecha` of the CFDI.
    pub fecha: OffsetDateTime,
    /// `FechaTimbrado` (the issue SAT's rules count from).
    pub fecha_timbrado: Option<OffsetDateTime>,
    /// Currency.
    pub moneda: String,
    /// Exchange rate to MXN.
    pub tipo_cambio: Option<Money>,
    /// Issuer's name.
    pub emisor_nombre: String,
}

/// The columns of [`PorCancelar`].
const POR_CANCELAR: &str = "SELECT tipo, uuid, uuid_xml, status, sandbox, xml_url, estado_cancelacion, emisor_rfc, \
    receptor_rfc, total, serie, folio_num, tipo_comprobante, fecha, fecha_timbrado, moneda, tipo_cambio, emisor_nombre \
    FROM cfdis ";

/// The invoice `id` of the company, as cancellation needs it.
pub async fn por_cancelar(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    id: &CfdiId,
) -> crate::DbResult<Option<PorCancelar>> {
    sql!(
        fetch_optional * conn,
        PorCancelar,
        AssertSqlSafe(format!("{POR_CANCELAR}WHERE id = $1 AND empresa_id = $2")),
        id,
        empresa_id
    )
}

/// Sandbox: the invoice `id` as cancellation needs it, whatever its company (the receiver's
/// answer completes the issuer's cancellation).
pub async fn por_cancelar_de_cualquiera(
    conn: &mut impl crate::AsExec,
    id: &str,
) -> crate::DbResult<Option<(String, PorCancelar)>> {
    let empresa = sql!(scalar_optional * conn, String, "SELECT empresa_id FROM cfdis WHERE id = $1", id)?;
    let Some(empresa) = empresa else { return Ok(None) };
    let fila = sql!(
        fetch_optional * conn,
        PorCancelar,
        AssertSqlSafe(format!("{POR_CANCELAR}WHERE id = $1 AND empresa_id = $2")),
        id,
        &empresa
    )?;
    Ok(fila.map(|fila| (empresa, fila)))
}

/// Sandbox: the invoice with XML UUID `uuid_xml` issued by a sandbox company (the CFDI a
/// sandbox receiver asks about), with its company.
pub async fn emitida_sandbox(conn: &mut DbConn, uuid_xml: &str) -> crate::DbResult<Option<(String, String)>> {
    sql!(
        fetch_optional * conn,
        (String, String),
        "SELECT c.empresa_id, c.id FROM cfdis c JOIN empresas e ON e.id = c.empresa_id \
         WHERE c.uuid_xml = $1 AND c.tipo = 'EMITIDA' AND c.sandbox = TRUE AND e.sandbox = TRUE LIMIT 1",
        uuid_xml
    )
}

/// SAT's status fields as read.
pub struct EstadoSatGuardado<'a> {
    /// `Estado`.
    pub estado: &'a str,
    /// `EsCancelable`.
    pub es_cancelable: &'a str,
    /// `EstatusCancelacion`.
    pub estatus_cancelacion: &'a str,
    /// `ValidacionEFOS`.
    pub validacion_efos: Option<&'a str>,
    /// `CodigoEstatus`.
    pub codigo_estatus: &'a str,
    /// When it was read.
    pub consultado_en: OffsetDateTime,
    /// `Estado` or `EstatusCancelacion` differ from the previous reading.
    pub cambiado: bool,
    /// The previous reading this one replaces (`estado_sat`, `estatus_cancelacion_sat`; empty
    /// for none): another reading stored meanwhile wins, and this one writes nothing.
    pub previo: (&'a str, &'a str),
}

/// SAT's status of invoice `id` as last read (`estado`, `estatus_cancelacion`).
pub async fn estado_sat(conn: &mut DbConn, id: &str) -> crate::DbResult<Option<(Option<String>, Option<String>)>> {
    sql!(
        fetch_optional * conn,
        (Option<String>, Option<String>),
        "SELECT estado_sat, estatus_cancelacion_sat FROM cfdis WHERE id = $1",
        id
    )
}

/// Stores SAT's status on invoice `id` of the company, unless another reading replaced
/// `estado.previo` meanwhile (0 rows); a received invoice SAT says is cancelled becomes CANCELADO. `revisar_en`: when the watch asks again (received only).
pub async fn guardar_estado_sat(
    conn: &mut impl crate::AsExec,
    empresa_id: &EmpresaId,
    id: &str,
    estado: &EstadoSatGuardado<'_>,
    revisar_en: Option<OffsetDateTime>,
) -> crate::DbResult<u64> {
    let cancelado = estado.estado.eq_ignore_ascii_case("cancelado");
    sql!(
        execute * conn,
        "UPDATE cfdis SET estado_sat = $1, es_cancelable_sat = $2, estatus_cancelacion_sat = $3, validacion_efos = $4, \
         codigo_estatus_sat = $5, estado_sat_consultado_en = $6, \
         estado_sat_cambiado_en = CASE WHEN $7 THEN $6 ELSE estado_sat_cambiado_en END, \
         estado_sat_revisar_en = CASE WHEN tipo = 'RECIBIDA' THEN $8 ELSE estado_sat_revisar_en END, \
         status = CASE WHEN tipo = 'RECIBIDA' AND $9 THEN 'CANCELADO' ELSE status END \
         WHERE id = $10 AND empresa_id = $11 AND COALESCE(estado_sat, '') = $12 \
         AND COALESCE(estatus_cancelacion_sat, '') = $13",
        estado.estado,
        estado.es_cancelable,
        estado.estatus_cancelacion,
        estado.validacion_efos,
        estado.codigo_estatus,
        estado.consultado_en,
        estado.cambiado,
        revisar_en,
        cancelado,
        id,
        empresa_id,
        estado.previo.0,
        estado.previo.1
    )
}

/// A received invoice the watch asks SAT about.
#[derive(FromRow)]
pub struct PorVigilar {
    /// Id.
    pub id: String,
    /// Its company.
    pub empresa_id: EmpresaId,
    /// UUID as the API shows it.
    pub uuid: String,
    /// UUID as the XML carries it.
    pub uuid_xml: String,
    /// c_TipoDeComprobante.
    pub tipo_comprobante: String,
    /// Issuer RFC.
    pub emisor_rfc: String,
    /// Receiver RFC.
    pub receptor_rfc: String,
    /// Total.
    pub total: Money,
    /// Issue date.
    pub fecha: OffsetDateTime,
    /// The record's status (TIMBRADO, CANCELADO).
    pub status: String,
    /// SAT's `Estado` as last read.
    pub estado_sat: Option<String>,
    /// SAT's `EstatusCancelacion` as last read.
    pub estatus_cancelacion_sat: Option<String>,
}

/// Received invoices of live companies due for the watch (never asked, or due by `now`), not
/// yet seen cancelled, the most overdue first.
pub async fn por_vigilar(conn: &mut DbConn, now: OffsetDateTime, limit: i64) -> crate::DbResult<Vec<PorVigilar>> {
    sql!(
        fetch_all * conn,
        PorVigilar,
        "SELECT c.id, c.empresa_id, c.uuid, c.uuid_xml, c.tipo_comprobante, c.emisor_rfc, c.receptor_rfc, c.total, \
         c.fecha, c.status, c.estado_sat, c.estatus_cancelacion_sat FROM cfdis c JOIN empresas e ON e.id = c.empresa_id \
         WHERE c.tipo = 'RECIBIDA' AND e.sandbox = FALSE AND e.deleted_at IS NULL \
         AND (c.estado_sat_revisar_en IS NULL OR c.estado_sat_revisar_en <= $1) \
         AND (c.estado_sat IS NULL OR c.estado_sat <> 'Cancelado') \
         ORDER BY c.estado_sat_revisar_en IS NOT NULL, c.estado_sat_revisar_en, c.id LIMIT $2",
        now,
        limit
    )
}

/// Puts off the watch of invoice `id` until `at` (SAT could not say).
pub async fn posponer_vigilancia(conn: &mut DbConn, id: &str, at: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(execute * conn, "UPDATE cfdis SET estado_sat_revisar_en = $1 WHERE id = $2", at, id)
}

/// A received invoice whose SAT status changed.
#[derive(FromRow)]
pub struct Cambiada {
    /// Id.
    pub id: String,
    /// UUID as the API shows it.
    pub uuid: String,
    /// Issuer RFC.
    pub emisor_rfc: String,
    /// Issuer's name.
    pub emisor_nombre: String,
    /// Total.
    pub total: Money,
    /// SAT's `Estado`.
    pub estado_sat: Option<String>,
    /// SAT's `EstatusCancelacion`.
    pub estatus_cancelacion_sat: Option<String>,
    /// When the change was seen.
    pub estado_sat_cambiado_en: Option<OffsetDateTime>,
}

/// The company's received invoices whose SAT status changed, latest change first.
pub async fn recibidas_cambiadas(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    limit: i64,
) -> crate::DbResult<Vec<Cambiada>> {
    sql!(
        fetch_all * conn,
        Cambiada,
        "SELECT id, uuid, emisor_rfc, emisor_nombre, total, estado_sat, estatus_cancelacion_sat, estado_sat_cambiado_en \
         FROM cfdis WHERE empresa_id = $1 AND tipo = 'RECIBIDA' AND estado_sat_cambiado_en IS NOT NULL \
         ORDER BY estado_sat_cambiado_en DESC, id DESC LIMIT $2",
        empresa_id,
        limit
    )
}

/// The status of the invoice the company issued with XML UUID `uuid_xml`.
pub async fn status_emitida(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    uuid_xml: &str,
) -> crate::DbResult<Option<String>> {
    sql!(
        scalar_optional * conn,
        String,
        "SELECT status FROM cfdis WHERE empresa_id = $1 AND uuid_xml = $2 AND tipo = 'EMITIDA'",
        empresa_id,
        uuid_xml
    )
}

/// Where the cancellation acuse of invoice `id` is stored, if it has one.
pub async fn acuse_url(conn: &mut DbConn, empresa_id: &EmpresaId, id: &CfdiId) -> crate::DbResult<Option<String>> {
    let url = sql!(
        scalar_optional * conn,
        Option<String>,
        "SELECT acuse_url FROM cfdis WHERE id = $1 AND empresa_id = $2",
        id,
        empresa_id
    )?;
    Ok(url.flatten())
}

/// An invoice whose cancellation the follow-up job asks SAT about.
#[derive(FromRow)]
pub struct PorSeguir {
    /// Its company.
    pub empresa_id: EmpresaId,
    /// UUID as the API shows it.
    pub uuid: String,
    /// UUID as the XML carries it.
    pub uuid_xml: String,
    /// Issuer RFC.
    pub emisor_rfc: String,
    /// Receiver RFC.
    pub receptor_rfc: String,
    /// `Total`.
    pub total: Money,
    /// Serie.
    pub serie: Option<String>,
    /// Folio number.
    pub folio_num: Option<i64>,
    /// c_MotivoCancelacion of the request.
    pub motivo_cancelacion: Option<String>,
    /// Where the cancellation stands.
    pub estado_cancelacion: Option<String>,
    /// c_TipoDeComprobante (I, E, T, P, N).
    pub tipo_comprobante: String,
}

/// The invoice `id` as the follow-up job needs it (the job's payload names it; the row
/// carries its company).
pub async fn por_seguir(conn: &mut impl crate::AsExec, id: &str) -> crate::DbResult<Option<PorSeguir>> {
    sql!(
        fetch_optional * conn,
        PorSeguir,
        "SELECT empresa_id, uuid, uuid_xml, emisor_rfc, receptor_rfc, total, serie, folio_num, motivo_cancelacion, \
         estado_cancelacion, tipo_comprobante FROM cfdis WHERE id = $1",
        id
    )
}

/// Moves a cancellation from `anterior` to `nuevo` (and the invoice to CANCELADO when
/// `cancelado`); 0 rows when someone else moved it first.
pub async fn avanzar_cancelacion(
    tx: &mut crate::Tx,
    id: &str,
    anterior: &str,
    nuevo: &str,
    cancelado: bool,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    let status = cancelado.then_some(EstadoCfdi::Cancelado.as_str());
    sql!(
        execute * tx,
        "UPDATE cfdis SET status = COALESCE($1, status), estado_cancelacion = $2, \
         fecha_cancelacion = COALESCE($3, fecha_cancelacion) WHERE id = $4 AND estado_cancelacion = $5",
        status,
        nuevo,
        cancelado.then_some(now),
        id,
        anterior
    )
}

/// A cancellation's state recorded on its invoice.
pub struct Cancelacion<'a> {
    /// The invoice's new `status` when SAT says it is cancelled; `None` keeps it.
    pub status: Option<&'a str>,
    /// `estado_cancelacion`.
    pub estado: &'a str,
    /// SAT's motivo (01–04).
    pub motivo: &'a str,
    /// The replacing invoice's UUID (motivo 01).
    pub folio_sustitucion: Option<&'a str>,
    /// Storage path of SAT's acuse.
    pub acuse_url: Option<&'a str>,
    /// When it was cancelled, once it is.
    pub fecha_cancelacion: Option<OffsetDateTime>,
}

/// Records `cancelacion` on invoice `cfdi_id` of the company.
pub async fn registrar_cancelacion(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    cancelacion: &Cancelacion<'_>,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE cfdis SET status = COALESCE($1, status), estado_cancelacion = $2, motivo_cancelacion = $3, \
         folio_sustitucion = $4, acuse_url = $5, fecha_cancelacion = $6 WHERE id = $7 AND empresa_id = $8",
        cancelacion.status,
        cancelacion.estado,
        cancelacion.motivo,
        cancelacion.folio_sustitucion,
        cancelacion.acuse_url,
        cancelacion.fecha_cancelacion,
        cfdi_id,
        empresa_id
    )
}

/// The company's credit notes (type E) to `receptor_rfc` that are not cancelled, with their
/// XML: those that relate an invoice make it "No cancelable" (regla 2.7.1.35).
pub async fn egresos_vigentes(
    conn: &mut impl crate::AsExec,
    empresa_id: &EmpresaId,
    receptor_rfc: &str,
) -> crate::DbResult<Vec<(String, String)>> {
    sql!(
        fetch_all * conn,
        (String, String),
        "SELECT uuid, xml_url FROM cfdis WHERE empresa_id = $1 AND tipo = 'EMITIDA' AND tipo_comprobante = 'E' \
         AND status <> 'CANCELADO' AND receptor_rfc = $2 AND xml_url IS NOT NULL ORDER BY fecha, id",
        empresa_id,
        receptor_rfc
    )
}
