//! SAT's catalogs: `catalogo_ediciones` (each catalog's loaded edition), `claves_prod_serv`,
//! `claves_unidad` and `codigos_postales` (the large ones, typed, searched by the forms) and
//! `catalogo_filas` (every other catalog's rows). Loading an edition compares each row's
//! fingerprint with the stored one and writes only what changed, in one transaction; the forms'
//! searches and validation's in-memory [`Indice`] read from here. Not scoped by company: the
//! catalogs are SAT's, the same for everyone.

use std::collections::{HashMap, HashSet};

use timbra_catalogos::buscador::Producto;
use timbra_catalogos::catalogo::leer_fecha;
use timbra_catalogos::registros::{ClaveProdServ, ClaveUnidad, CodigoPostal};
use timbra_catalogos::{
    Buscador, CLAVE_PROD_SERV, CLAVE_UNIDAD, CODIGO_POSTAL, CambiosCatalogo, Catalogo, Diferencias, Edicion, Fila,
    Huellas, Indice,
};
use timbra_cfdi::catalogos::{DatosClaveProdServ, DatosCodigoPostal, EstimuloFrontera, HusoHorario, Incluir, Vigencia};
use time::{Date, OffsetDateTime};

use crate::search::{folded, words};
use crate::{AsExec, Db, DbConn, DbError, Exec, MultiInsert, Paging, Tx, Value, sql, with_limit};

/// Loading an edition failed: its files do not read as the catalogs they claim to be, or the
/// database failed. Nothing was written either way.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A catalog's rows did not read (a column missing, an unknown time zone).
    #[error(transparent)]
    Catalogos(#[from] timbra_catalogos::Error),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// A loaded catalog: `timbra catalogos estado` and `/healthz`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EstadoCatalogo {
    /// Its id (`cfdi40/c_Moneda`).
    pub catalogo: String,
    /// The edition loaded.
    pub edicion: Date,
    /// Its rows.
    pub filas: i64,
    /// When it was loaded.
    pub loaded_at: OffsetDateTime,
}

#[derive(sqlx::FromRow)]
struct EdicionRow {
    catalogo: String,
    edicion: String,
    filas: i64,
    loaded_at: OffsetDateTime,
}

/// Each loaded catalog's edition and row count, by id.
pub async fn estado(conn: &mut impl AsExec) -> crate::DbResult<Vec<EstadoCatalogo>> {
    let rows = sql!(
        fetch_all * conn,
        EdicionRow,
        "SELECT catalogo, edicion, filas, loaded_at FROM catalogo_ediciones ORDER BY catalogo"
    )?;
    Ok(rows
        .into_iter()
        .map(|row| EstadoCatalogo {
            edicion: leer_fecha(&row.edicion).unwrap_or(Date::MIN),
            catalogo: row.catalogo,
            filas: row.filas,
            loaded_at: row.loaded_at,
        })
        .collect())
}

/// The loaded edition, as `/healthz` tells it: the oldest of the catalogs' (every catalog is at
/// least that recent); `None` before the first load.
pub async fn edicion(conn: &mut impl AsExec) -> crate::DbResult<Option<Date>> {
    let minima = sql!(scalar_one * conn, Option<String>, "SELECT MIN(edicion) FROM catalogo_ediciones")?;
    Ok(minima.and_then(|minima| leer_fecha(&minima)))
}

/// Whether an edition of date `fecha` has anything to load: no catalog is loaded, or one is of
/// an older edition. Cheap, so a start asks it before reading the shipped edition.
pub async fn edicion_pendiente(conn: &mut impl AsExec, fecha: Date) -> crate::DbResult<bool> {
    Ok(edicion(conn).await?.is_none_or(|cargada| cargada < fecha))
}

/// Loads `edicion` where the database has no edition of a catalog or an older one, in one
/// transaction; a second call finds nothing to do. On a fresh database that is every catalog:
/// the shipped edition on first start. Gives what changed.
pub async fn asegurar_edicion(db: &Db, edicion: &Edicion, now: OffsetDateTime) -> Result<Diferencias, LoadError> {
    cargar(db, edicion, None, now, true).await
}

/// Loads the edition shipped in `timbra-catalogos` when the database has none or an older one
/// (see [`asegurar_edicion`]); reads the shipped files only then.
pub async fn asegurar_incluida(db: &Db, now: OffsetDateTime) -> Result<Diferencias, LoadError> {
    let fecha = Edicion::fecha_incluida()?;
    if !edicion_pendiente(&mut db.conn().await?, fecha).await? {
        return Ok(Diferencias::default());
    }
    asegurar_edicion(db, &Edicion::incluida()?, now).await
}

/// Loads every catalog of `edicion` (`timbra catalogos importar <DIR>`), whatever the editions
/// loaded, in one transaction; gives what changed. Importing the same files again changes
/// nothing. Catalogs the edition does not have are kept.
/// `paquete` is the edition's data file (`timbra_catalogos::paquete::escribir`), kept in the same
/// transaction for the instances to read at start ([`paquete_importado`]).
pub async fn importar(
    db: &Db,
    edicion: &Edicion,
    paquete: &[u8],
    now: OffsetDateTime,
) -> Result<Diferencias, LoadError> {
    cargar(db, edicion, Some(paquete), now, false).await
}

/// The data file of the newest edition imported, with its date; `None` when none was.
pub async fn paquete_importado(conn: &mut impl AsExec) -> crate::DbResult<Option<(Date, Vec<u8>)>> {
    #[derive(sqlx::FromRow)]
    struct PaqueteRow {
        edicion: String,
        datos: Vec<u8>,
    }
    let row = sql!(
        fetch_optional * conn,
        PaqueteRow,
        "SELECT edicion, datos FROM catalogo_paquetes ORDER BY edicion DESC LIMIT 1"
    )?;
    Ok(row.and_then(|row| Some((leer_fecha(&row.edicion)?, row.datos))))
}

async fn cargar(
    db: &Db,
    edicion: &Edicion,
    paquete: Option<&[u8]>,
    now: OffsetDateTime,
    solo_mas_recientes: bool,
) -> Result<Diferencias, LoadError> {
    let mut tx = db.begin().await?;
    if let Exec::Pg(conn) = tx.exec() {
        // Instances starting together load once: the second waits here, then finds it done.
        sqlx::query("LOCK TABLE catalogo_ediciones IN SHARE ROW EXCLUSIVE MODE")
            .execute(conn)
            .await
            .map_err(DbError::from)?;
    }
    let cargadas: HashMap<String, Date> =
        estado(&mut tx).await?.into_iter().map(|estado| (estado.catalogo, estado.edicion)).collect();
    let mut diferencias = Diferencias::default();
    for catalogo in &edicion.catalogos {
        let cargada = cargadas.get(&catalogo.id).copied();
        if solo_mas_recientes && cargada.is_some_and(|cargada| cargada >= edicion.fecha) {
            continue;
        }
        let cambios = aplicar(&mut tx, catalogo, now).await?;
        if !cambios.is_empty() || cargada != Some(edicion.fecha) {
            registrar_edicion(&mut tx, &catalogo.id, edicion.fecha, catalogo.filas.len(), now).await?;
        }
        if !cambios.is_empty() {
            diferencias.catalogos.push(cambios);
        }
    }
    if let (false, Exec::Pg(conn)) = (diferencias.is_empty(), tx.exec()) {
        // The search index's new entries wait in its pending list, which every search scans
        // until a vacuum: they go into the index now, in bulk (twice as fast as without the
        // list). Fresh statistics, or the planner reads 52,000 rows where the index finds 20.
        if diferencias.catalogo(CLAVE_PROD_SERV).is_some() {
            sqlx::query("SELECT gin_clean_pending_list('claves_prod_serv_search')")
                .execute(&mut *conn)
                .await
                .map_err(DbError::from)?;
        }
        sqlx::query("ANALYZE catalogo_filas, claves_prod_serv, claves_unidad, codigos_postales")
            .execute(conn)
            .await
            .map_err(DbError::from)?;
    }
    if let Some(paquete) = paquete {
        sql!(
            execute tx,
            "INSERT INTO catalogo_paquetes (edicion, datos, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (edicion) DO UPDATE SET datos = excluded.datos",
            edicion.fecha.to_string(),
            paquete.to_vec(),
            now
        )?;
    }
    tx.commit().await?;
    Ok(diferencias)
}

async fn registrar_edicion(
    tx: &mut Tx,
    catalogo: &str,
    edicion: Date,
    filas: usize,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO catalogo_ediciones (catalogo, edicion, filas, loaded_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $4, $4) \
         ON CONFLICT (catalogo) DO UPDATE SET edicion = excluded.edicion, filas = excluded.filas, \
         loaded_at = excluded.loaded_at, updated_at = excluded.updated_at",
        catalogo,
        edicion.to_string(),
        i64::try_from(filas).unwrap_or(i64::MAX),
        now
    )
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct HuellaRow {
    clave: String,
    huella: String,
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct HuellaCodigoPostalRow {
    codigo_postal: String,
    huella: String,
}

/// A day as the tables hold it (`YYYY-MM-DD`, NULL open-ended).
fn dia(dia: Option<Date>) -> Value {
    Value::OptText(dia.map(|dia| dia.to_string()))
}

fn vigencia(desde: Option<&str>, hasta: Option<&str>) -> Vigencia {
    Vigencia { desde: desde.and_then(leer_fecha), hasta: hasta.and_then(leer_fecha) }
}

/// Brings one catalog's stored rows to `catalogo`'s: deletes the codes removed or changed and
/// inserts the codes added or changed (c_ClaveProdServ and the small catalogs are written whole
/// when they changed, to keep their order). Gives the changes.
async fn aplicar(tx: &mut Tx, catalogo: &Catalogo, now: OffsetDateTime) -> Result<CambiosCatalogo, LoadError> {
    let id = catalogo.id.as_str();
    let guardadas = match id {
        CLAVE_PROD_SERV => sql!(fetch_packed * tx, HuellaRow, "clave, huella", "FROM claves_prod_serv", "")?,
        CLAVE_UNIDAD => sql!(fetch_packed * tx, HuellaRow, "clave, huella", "FROM claves_unidad", "")?,
        CODIGO_POSTAL => {
            sql!(fetch_packed * tx, HuellaCodigoPostalRow, "codigo_postal, huella", "FROM codigos_postales", "")?
                .into_iter()
                .map(|row| HuellaRow { clave: row.codigo_postal, huella: row.huella })
                .collect()
        }
        _ => sql!(fetch_packed * tx, HuellaRow, "clave, huella", "FROM catalogo_filas WHERE catalogo = $1", "", id)?,
    };
    let anterior: Huellas =
        [(id.to_owned(), guardadas.into_iter().map(|row| (row.clave, row.huella)).collect())].into();
    let nueva: Huellas =
        [(id.to_owned(), catalogo.filas.iter().map(|fila| (fila.clave.clone(), fila.huella())).collect())].into();
    let Some(cambios) = timbra_catalogos::diferencias(&anterior, &nueva).catalogos.pop() else {
        return Ok(CambiosCatalogo { catalogo: id.to_owned(), ..Default::default() });
    };
    let salen: Vec<&String> = cambios.eliminadas.iter().chain(&cambios.cambiadas).collect();
    let entran: HashSet<&str> = cambios.agregadas.iter().chain(&cambios.cambiadas).map(String::as_str).collect();
    let filas_que_entran =
        || catalogo.filas.iter().enumerate().filter(|(_, fila)| entran.contains(fila.clave.as_str()));
    match id {
        CLAVE_PROD_SERV => {
            // Written whole, shortest description first: SQLite's search pages through its
            // full-text matches in rowid order (`buscar_palabras_sqlite`).
            sql!(execute * tx, "DELETE FROM claves_prod_serv")?;
            let mut insert = MultiInsert::new(
                "INSERT INTO claves_prod_serv (clave, descripcion, incluir_iva, incluir_ieps, complemento, vigencia_desde, \
                 vigencia_hasta, estimulo_franja_fronteriza, palabras_similares, search_text, search_similares, huella, \
                 created_at)",
                13,
                "",
            );
            let mut claves: Vec<(ClaveProdServ, String)> =
                ClaveProdServ::leer(catalogo)?.into_iter().zip(catalogo.filas.iter().map(Fila::huella)).collect();
            claves.sort_by_cached_key(|(clave, _)| (clave.descripcion.chars().count(), clave.clave.clone()));
            for (clave, huella) in claves {
                insert.row(vec![
                    clave.clave.into(),
                    clave.descripcion.clone().into(),
                    clave.incluir_iva.texto().into(),
                    clave.incluir_ieps.texto().into(),
                    clave.complemento.into(),
                    dia(clave.vigencia.desde),
                    dia(clave.vigencia.hasta),
                    clave.estimulo_franja_fronteriza.into(),
                    clave.palabras_similares.clone().into(),
                    folded(&clave.descripcion).into(),
                    folded(&clave.palabras_similares).into(),
                    huella.into(),
                    now.into(),
                ]);
            }
            insert.execute(tx).await?;
            if let Exec::Sqlite(conn) = tx.exec() {
                // The external-content index follows its table only when told.
                sqlx::query("INSERT INTO claves_prod_serv_fts (claves_prod_serv_fts) VALUES ('rebuild')")
                    .execute(conn)
                    .await
                    .map_err(DbError::from)?;
            }
        }
        CLAVE_UNIDAD => {
            borrar(tx, "DELETE FROM claves_unidad WHERE clave IN (", &salen).await?;
            let mut insert = MultiInsert::new(
                "INSERT INTO claves_unidad (clave, nombre, descripcion, notas, simbolo, vigencia_desde, vigencia_hasta, \
                 search_text, huella, created_at)",
                10,
                "",
            );
            let unidades = ClaveUnidad::leer(catalogo)?;
            for (i, fila) in filas_que_entran() {
                let unidad = &unidades[i];
                insert.row(vec![
                    unidad.clave.clone().into(),
                    unidad.nombre.clone().into(),
                    unidad.descripcion.clone().into(),
                    unidad.notas.clone().into(),
                    unidad.simbolo.clone().into(),
                    dia(unidad.vigencia.desde),
                    dia(unidad.vigencia.hasta),
                    folded(&format!("{} {} {}", unidad.clave, unidad.nombre, unidad.simbolo)).into(),
                    fila.huella().into(),
                    now.into(),
                ]);
            }
            insert.execute(tx).await?;
        }
        CODIGO_POSTAL => {
            borrar(tx, "DELETE FROM codigos_postales WHERE codigo_postal IN (", &salen).await?;
            let mut insert = MultiInsert::new(
                "INSERT INTO codigos_postales (codigo_postal, estado, municipio, localidad, estimulo_frontera, huso_horario, \
                 vigencia_desde, vigencia_hasta, huella, created_at)",
                10,
                "",
            );
            let codigos = CodigoPostal::leer(catalogo)?;
            for (i, fila) in filas_que_entran() {
                let codigo = &codigos[i];
                insert.row(vec![
                    codigo.codigo_postal.clone().into(),
                    codigo.estado.clone().into(),
                    codigo.municipio.clone().into(),
                    codigo.localidad.clone().into(),
                    i64::from(codigo.estimulo_frontera.codigo()).into(),
                    codigo.huso_horario.descripcion().into(),
                    dia(codigo.vigencia.desde),
                    dia(codigo.vigencia.hasta),
                    fila.huella().into(),
                    now.into(),
                ]);
            }
            insert.execute(tx).await?;
        }
        _ => {
            sql!(execute * tx, "DELETE FROM catalogo_filas WHERE catalogo = $1", id)?;
            let mut insert = MultiInsert::new(
                "INSERT INTO catalogo_filas (catalogo, clave, orden, descripcion, vigencia_desde, vigencia_hasta, columnas, \
                 huella, created_at)",
                9,
                "",
            );
            for (orden, fila) in catalogo.filas.iter().enumerate() {
                insert.row(vec![
                    id.into(),
                    fila.clave.clone().into(),
                    i64::try_from(orden).unwrap_or(i64::MAX).into(),
                    fila.descripcion.clone().into(),
                    dia(fila.vigencia.desde),
                    dia(fila.vigencia.hasta),
                    columnas_json(catalogo, fila).into(),
                    fila.huella().into(),
                    now.into(),
                ]);
            }
            insert.execute(tx).await?;
        }
    }
    Ok(cambios)
}

/// Deletes the rows whose key is in `claves`: `head` is `DELETE FROM t WHERE key IN (`.
async fn borrar(tx: &mut Tx, head: &'static str, claves: &[&String]) -> crate::DbResult<u64> {
    let mut delete = MultiInsert::new(head, 1, ")");
    for clave in claves {
        delete.row(vec![(*clave).clone().into()]);
    }
    delete.execute(tx).await
}

/// A row's columns as a JSON array of `[name, value]` pairs, in SAT's column order.
fn columnas_json(catalogo: &Catalogo, fila: &Fila) -> String {
    let pares: Vec<(&String, &String)> = catalogo.columnas.iter().zip(&fila.valores).collect();
    serde_json::to_string(&pares).unwrap_or_default()
}

/// The rows of catalog `id` (`cfdi40/c_RegimenFiscal`) in SAT's order, with every column, for
/// the small catalogs (the large ones have their own tables and queries); `None` when the
/// catalog is not loaded. The typed readers of `timbra_catalogos::registros` read it.
pub async fn catalogo(conn: &mut DbConn, id: &str) -> crate::DbResult<Option<Catalogo>> {
    #[derive(sqlx::FromRow)]
    struct FilaRow {
        clave: String,
        descripcion: String,
        vigencia_desde: Option<String>,
        vigencia_hasta: Option<String>,
        columnas: String,
    }
    let cargado =
        sql!(scalar_optional * conn, String, "SELECT catalogo FROM catalogo_ediciones WHERE catalogo = $1", id)?;
    if cargado.is_none() {
        return Ok(None);
    }
    let rows = sql!(
        fetch_all * conn,
        FilaRow,
        "SELECT clave, descripcion, vigencia_desde, vigencia_hasta, columnas FROM catalogo_filas \
         WHERE catalogo = $1 ORDER BY orden",
        id
    )?;
    let mut columnas = Vec::new();
    let mut filas = Vec::with_capacity(rows.len());
    for row in rows {
        let pares: Vec<(String, String)> =
            serde_json::from_str(&row.columnas).map_err(|e| DbError::Other(sqlx::Error::Decode(Box::new(e))))?;
        if columnas.is_empty() {
            columnas = pares.iter().map(|(columna, _)| columna.clone()).collect();
        }
        filas.push(Fila {
            vigencia: vigencia(row.vigencia_desde.as_deref(), row.vigencia_hasta.as_deref()),
            clave: row.clave,
            descripcion: row.descripcion,
            valores: pares.into_iter().map(|(_, valor)| valor).collect(),
        });
    }
    Ok(Some(Catalogo { id: id.to_owned(), columnas, filas }))
}

/// A c_ClaveProdServ row a search found.
#[derive(sqlx::FromRow)]
pub struct ClaveProdServRow {
    /// The code.
    pub clave: String,
    /// SAT's description.
    pub descripcion: String,
    /// Incluir IVA trasladado, SAT's word ([`ClaveProdServRow::incluir_iva`]).
    pub incluir_iva: String,
    /// Incluir IEPS trasladado, SAT's word.
    pub incluir_ieps: String,
    /// First day in force.
    pub vigencia_desde: Option<String>,
    /// Last day in force.
    pub vigencia_hasta: Option<String>,
    /// Estímulo franja fronteriza.
    pub estimulo_franja_fronteriza: bool,
    /// SAT's similar words.
    pub palabras_similares: String,
    /// The search's total.
    #[sqlx(default)]
    pub total: Option<i64>,
}

impl ClaveProdServRow {
    /// Incluir IVA trasladado.
    pub fn incluir_iva(&self) -> Incluir {
        Incluir::desde_texto(&self.incluir_iva).unwrap_or(Incluir::No)
    }

    /// Incluir IEPS trasladado.
    pub fn incluir_ieps(&self) -> Incluir {
        Incluir::desde_texto(&self.incluir_ieps).unwrap_or(Incluir::No)
    }

    /// When it may be used (`vigencia().vigente(today)`).
    pub fn vigencia(&self) -> Vigencia {
        vigencia(self.vigencia_desde.as_deref(), self.vigencia_hasta.as_deref())
    }
}

/// How many words of a query a search reads.
const MAX_WORDS: usize = 8;

/// The code range of a query of digits (`501` is `501` up to `501:`, and `:` sorts after every
/// digit).
fn rango_de_codigo(q: &str) -> Option<(String, String)> {
    (!q.is_empty() && q.bytes().all(|b| b.is_ascii_digit())).then(|| (q.to_owned(), format!("{q}:")))
}

const COLUMNAS_PROD_SERV: &str = "clave, descripcion, incluir_iva, incluir_ieps, vigencia_desde, vigencia_hasta, \
     estimulo_franja_fronteriza, palabras_similares";

/// c_ClaveProdServ for the forms' type-ahead. A query of digits finds the codes it prefixes, by
/// code (the exact code first). Other text finds the rows with every word (at most eight) as a
/// word prefix in the description or SAT's similar words, case- and accent-insensitive ("caf
/// mol" finds "Café molido"), ranked: descriptions starting with the query, descriptions with
/// every word, then rows matched by the similar words only; shorter descriptions first within
/// each. An empty query lists the catalog by code. Gives one page and how many rows match.
pub async fn buscar_claves_prod_serv(
    conn: &mut DbConn,
    q: &str,
    paging: &Paging,
) -> crate::DbResult<(Vec<ClaveProdServRow>, i64)> {
    let palabras = words(q, MAX_WORDS);
    let (desde, hasta) = match (palabras.is_empty(), rango_de_codigo(q.trim())) {
        (_, Some(rango)) => rango,
        // Everything: from the smallest code up to past the largest.
        (true, None) => (String::new(), "~".to_owned()),
        (false, None) if matches!(conn.exec(), Exec::Pg(_)) => {
            return buscar_palabras_pg(conn, &palabras, paging).await;
        }
        (false, None) => return buscar_palabras_sqlite(conn, &palabras, paging).await,
    };
    let filtro = "clave >= $1 AND clave < $2";
    let select = with_limit(
        &format!(
            "SELECT {COLUMNAS_PROD_SERV}, (SELECT COUNT(*) FROM claves_prod_serv WHERE {filtro}) AS total \
             FROM claves_prod_serv WHERE {filtro} ORDER BY clave LIMIT {{limit}} OFFSET $3"
        ),
        paging.page_size,
    );
    let rows = sql!(fetch_all * conn, ClaveProdServRow, select, &desde, &hasta, paging.offset())?;
    let total = match paging.total_leido(rows.first().map(|row| row.total)) {
        Some(total) => total,
        None => {
            let count = sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM claves_prod_serv WHERE {filtro}"));
            sql!(scalar_one * conn, i64, count, &desde, &hasta)?
        }
    };
    Ok((rows, total))
}

/// The word search on PostgreSQL: the GIN index finds the rows, one statement ranks them.
async fn buscar_palabras_pg(
    conn: &mut DbConn,
    palabras: &[String],
    paging: &Paging,
) -> crate::DbResult<(Vec<ClaveProdServRow>, i64)> {
    // Words are letters and digits only, so they are safe in a tsquery.
    let todas = palabras.iter().map(|p| format!("{p}:*")).collect::<Vec<_>>().join(" & ");
    let en_descripcion = palabras.iter().map(|p| format!("{p}:*A")).collect::<Vec<_>>().join(" & ");
    let inicio = format!("{}%", palabras.join(" "));
    let filtro = "search_tsv @@ to_tsquery('simple', $1)";
    // The window's count reads the matches once, with the page.
    let select = with_limit(
        &format!(
            "SELECT {COLUMNAS_PROD_SERV}, COUNT(*) OVER () AS total FROM claves_prod_serv WHERE {filtro} \
             ORDER BY CASE WHEN search_text LIKE $2 THEN 0 WHEN search_tsv @@ to_tsquery('simple', $3) THEN 1 ELSE 2 END, \
             length(descripcion), clave LIMIT {{limit}} OFFSET $4"
        ),
        paging.page_size,
    );
    let rows = sql!(fetch_all * conn, ClaveProdServRow, select, &todas, &inicio, &en_descripcion, paging.offset())?;
    let total = match paging.total_leido(rows.first().map(|row| row.total)) {
        Some(total) => total,
        None => {
            let count = sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM claves_prod_serv WHERE {filtro}"));
            sql!(scalar_one * conn, i64, count, &todas)?
        }
    };
    Ok((rows, total))
}

/// The word search on SQLite, where a statement that ranks every match reads each matching row
/// (20 ms for "se", 11,000 rows): each rank is an FTS5 query of its own instead, and FTS5 walks
/// its matches in rowid order, which is the ranking's order within a rank (the table is written
/// shortest description first), so a page reads only its rows. The counts come from the index
/// alone; each rank is contained in the next query (starting with ⊂ in the description ⊂ anywhere).
async fn buscar_palabras_sqlite(
    conn: &mut DbConn,
    palabras: &[String],
    paging: &Paging,
) -> crate::DbResult<(Vec<ClaveProdServRow>, i64)> {
    // Words are letters and digits only, so they are safe inside FTS5 quotes.
    let todas = palabras.iter().map(|p| format!("\"{p}\"*")).collect::<Vec<_>>().join(" ");
    let en_descripcion = format!("search_text : ({todas})");
    let al_inicio = format!("search_text : ^ \"{}\" *", palabras.join(" "));
    let (n_inicio, n_descripcion, n_todas) = sql!(
        fetch_one * conn,
        (i64, i64, i64),
        "SELECT (SELECT COUNT(*) FROM claves_prod_serv_fts WHERE claves_prod_serv_fts MATCH $1), \
         (SELECT COUNT(*) FROM claves_prod_serv_fts WHERE claves_prod_serv_fts MATCH $2), \
         (SELECT COUNT(*) FROM claves_prod_serv_fts WHERE claves_prod_serv_fts MATCH $3)",
        &al_inicio,
        &en_descripcion,
        &todas
    )?;
    let rangos = [
        (al_inicio.clone(), n_inicio),
        (format!("{en_descripcion} NOT {al_inicio}"), n_descripcion - n_inicio),
        (format!("{todas} NOT {en_descripcion}"), n_todas - n_descripcion),
    ];
    let mut rows = Vec::new();
    let mut saltar = paging.offset();
    for (consulta, filas) in rangos {
        let faltan = paging.page_size - i64::try_from(rows.len()).unwrap_or(i64::MAX);
        if faltan <= 0 {
            break;
        }
        if saltar >= filas {
            saltar -= filas;
            continue;
        }
        let select = with_limit(
            &format!(
                "SELECT {COLUMNAS_PROD_SERV} FROM claves_prod_serv_fts JOIN claves_prod_serv ON id = claves_prod_serv_fts.rowid \
                 WHERE claves_prod_serv_fts MATCH $1 ORDER BY claves_prod_serv_fts.rowid LIMIT {{limit}} OFFSET $2"
            ),
            faltan.min(filas - saltar),
        );
        rows.extend(sql!(fetch_all * conn, ClaveProdServRow, select, &consulta, saltar)?);
        saltar = 0;
    }
    Ok((rows, n_todas))
}

/// A c_ClaveUnidad row a search found.
#[derive(sqlx::FromRow)]
pub struct ClaveUnidadRow {
    /// The code (`H87`).
    pub clave: String,
    /// Its name.
    pub nombre: String,
    /// SAT's longer description.
    pub descripcion: String,
    /// Its symbol.
    pub simbolo: String,
    /// First day in force.
    pub vigencia_desde: Option<String>,
    /// Last day in force.
    pub vigencia_hasta: Option<String>,
    /// The search's total.
    #[sqlx(default)]
    pub total: Option<i64>,
}

impl ClaveUnidadRow {
    /// When it may be used.
    pub fn vigencia(&self) -> Vigencia {
        vigencia(self.vigencia_desde.as_deref(), self.vigencia_hasta.as_deref())
    }
}

/// c_ClaveUnidad by code, name or symbol: every word of the query (at most eight) somewhere in
/// them, case- and accent-insensitive. Ranked: the exact code, codes it prefixes, then shorter
/// names first. Gives one page and how many rows match.
pub async fn buscar_claves_unidad(
    conn: &mut DbConn,
    q: &str,
    paging: &Paging,
) -> crate::DbResult<(Vec<ClaveUnidadRow>, i64)> {
    let q = q.trim().to_lowercase();
    let prefijo = crate::search::like_pattern(Some(&q)).trim_start_matches('%').to_owned();
    // Unused word slots match everything, so the statement's text is always the same.
    let mut patrones: Vec<String> = words(&q, MAX_WORDS).iter().map(|w| format!("%{w}%")).collect();
    patrones.resize(MAX_WORDS, "%".to_owned());
    let filtro = "search_text LIKE $4 AND search_text LIKE $5 AND search_text LIKE $6 AND search_text LIKE $7 \
                  AND search_text LIKE $8 AND search_text LIKE $9 AND search_text LIKE $10 AND search_text LIKE $11";
    let select = with_limit(
        &format!(
            "SELECT clave, nombre, descripcion, simbolo, vigencia_desde, vigencia_hasta, \
             (SELECT COUNT(*) FROM claves_unidad WHERE {filtro}) AS total FROM claves_unidad WHERE {filtro} \
             ORDER BY CASE WHEN lower(clave) = $1 THEN 0 WHEN lower(clave) LIKE $2 ESCAPE '\\' THEN 1 ELSE 2 END, \
             length(nombre), clave LIMIT {{limit}} OFFSET $3"
        ),
        paging.page_size,
    );
    let [p1, p2, p3, p4, p5, p6, p7, p8] = &patrones[..] else {
        unreachable!("resized to MAX_WORDS");
    };
    let rows =
        sql!(fetch_all * conn, ClaveUnidadRow, select, &q, &prefijo, paging.offset(), p1, p2, p3, p4, p5, p6, p7, p8)?;
    let total = match paging.total_leido(rows.first().map(|row| row.total)) {
        Some(total) => total,
        None => {
            // The same numbering: $1–$3 are bound but unused.
            let count = sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM claves_unidad WHERE {filtro} AND $1 = $1 AND $2 = $2 AND $3 = $3"
            ));
            sql!(scalar_one * conn, i64, count, &q, &prefijo, paging.offset(), p1, p2, p3, p4, p5, p6, p7, p8)?
        }
    };
    Ok((rows, total))
}

/// A c_CodigoPostal row.
#[derive(sqlx::FromRow)]
pub struct CodigoPostalRow {
    /// The postal code.
    pub codigo_postal: String,
    /// c_Estado.
    pub estado: String,
    /// c_Municipio.
    pub municipio: String,
    /// c_Localidad.
    pub localidad: String,
    /// SAT's code: 0 none, 1 northern border, 2 southern border ([`CodigoPostalRow::estimulo`]).
    pub estimulo_frontera: i64,
    /// SAT's description of its time zone ([`CodigoPostalRow::huso`]).
    pub huso_horario: String,
    /// First day in force.
    pub vigencia_desde: Option<String>,
    /// Last day in force.
    pub vigencia_hasta: Option<String>,
}

impl CodigoPostalRow {
    /// The border-region stimulus.
    pub fn estimulo(&self) -> EstimuloFrontera {
        u8::try_from(self.estimulo_frontera)
            .ok()
            .and_then(EstimuloFrontera::desde_codigo)
            .unwrap_or(EstimuloFrontera::Ninguno)
    }

    /// Its time zone (every stored one is known: loading refuses others).
    pub fn huso(&self) -> Option<HusoHorario> {
        HusoHorario::desde_descripcion(&self.huso_horario)
    }

    /// When it may be used.
    pub fn vigencia(&self) -> Vigencia {
        vigencia(self.vigencia_desde.as_deref(), self.vigencia_hasta.as_deref())
    }
}

/// Postal code `codigo` of c_CodigoPostal.
pub async fn codigo_postal(conn: &mut DbConn, codigo: &str) -> crate::DbResult<Option<CodigoPostalRow>> {
    sql!(
        fetch_optional * conn,
        CodigoPostalRow,
        "SELECT codigo_postal, estado, municipio, localidad, estimulo_frontera, huso_horario, vigencia_desde, \
         vigencia_hasta FROM codigos_postales WHERE codigo_postal = $1",
        codigo
    )
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct ProdServIndiceRow {
    clave: String,
    incluir_iva: String,
    incluir_ieps: String,
    #[serde(deserialize_with = "crate::int_bool")]
    estimulo_franja_fronteriza: bool,
    vigencia_desde: Option<String>,
    vigencia_hasta: Option<String>,
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct CodigoPostalIndiceRow {
    codigo_postal: String,
    estimulo_frontera: i64,
    huso_horario: String,
    vigencia_desde: Option<String>,
    vigencia_hasta: Option<String>,
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct VigenciaRow {
    clave: String,
    vigencia_desde: Option<String>,
    vigencia_hasta: Option<String>,
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct ClaveIndiceRow {
    catalogo: String,
    clave: String,
    vigencia_desde: Option<String>,
    vigencia_hasta: Option<String>,
}

/// Every loaded catalog in memory, for validation (a catalog not loaded stays out of it, and
/// validation lists its checks as skipped).
pub async fn indice(conn: &mut DbConn) -> crate::DbResult<Indice> {
    let cargados: HashSet<String> = estado(conn).await?.into_iter().map(|estado| estado.catalogo).collect();
    let mut indice = Indice::default();
    if cargados.contains(CLAVE_PROD_SERV) {
        let rows = sql!(
            fetch_packed * conn,
            ProdServIndiceRow,
            "clave, incluir_iva, incluir_ieps, estimulo_franja_fronteriza, vigencia_desde, vigencia_hasta",
            "FROM claves_prod_serv",
            ""
        )?;
        indice.con_claves_prod_serv(rows.into_iter().map(|row| {
            let datos = DatosClaveProdServ {
                incluir_iva: Incluir::desde_texto(&row.incluir_iva).unwrap_or(Incluir::No),
                incluir_ieps: Incluir::desde_texto(&row.incluir_ieps).unwrap_or(Incluir::No),
                estimulo_franja_fronteriza: row.estimulo_franja_fronteriza,
                vigencia: vigencia(row.vigencia_desde.as_deref(), row.vigencia_hasta.as_deref()),
            };
            (datos, row.clave)
        }));
    }
    if cargados.contains(CLAVE_UNIDAD) {
        let rows =
            sql!(fetch_packed * conn, VigenciaRow, "clave, vigencia_desde, vigencia_hasta", "FROM claves_unidad", "")?;
        indice.con_claves_unidad(rows.into_iter().map(|row| {
            let vigencia = vigencia(row.vigencia_desde.as_deref(), row.vigencia_hasta.as_deref());
            (row.clave, vigencia)
        }));
    }
    if cargados.contains(CODIGO_POSTAL) {
        let rows = sql!(
            fetch_packed * conn,
            CodigoPostalIndiceRow,
            "codigo_postal, estimulo_frontera, huso_horario, vigencia_desde, vigencia_hasta",
            "FROM codigos_postales",
            ""
        )?;
        indice.con_codigos_postales(rows.into_iter().filter_map(|row| {
            let datos = DatosCodigoPostal {
                estimulo_frontera: EstimuloFrontera::desde_codigo(u8::try_from(row.estimulo_frontera).ok()?)?,
                huso_horario: HusoHorario::desde_descripcion(&row.huso_horario)?,
                vigencia: vigencia(row.vigencia_desde.as_deref(), row.vigencia_hasta.as_deref()),
            };
            Some((datos, row.codigo_postal))
        }));
    }
    let rows = sql!(
        fetch_packed * conn,
        ClaveIndiceRow,
        "catalogo, clave, vigencia_desde, vigencia_hasta",
        "FROM catalogo_filas",
        "ORDER BY catalogo"
    )?;
    let mut por_catalogo: HashMap<String, Vec<(String, Vigencia)>> = HashMap::new();
    for row in rows {
        let vigencia = vigencia(row.vigencia_desde.as_deref(), row.vigencia_hasta.as_deref());
        por_catalogo.entry(row.catalogo).or_default().push((row.clave, vigencia));
    }
    for id in &cargados {
        if ![CLAVE_PROD_SERV, CLAVE_UNIDAD, CODIGO_POSTAL].contains(&id.as_str()) {
            indice.con_catalogo(id, por_catalogo.remove(id).unwrap_or_default());
        }
    }
    Ok(indice)
}

#[derive(sqlx::FromRow, serde::Deserialize)]
struct ProductoRow {
    clave: String,
    descripcion: String,
    palabras_similares: String,
    incluir_iva: String,
    incluir_ieps: String,
    #[serde(deserialize_with = "crate::int_bool")]
    estimulo_franja_fronteriza: bool,
    vigencia_desde: Option<String>,
    vigencia_hasta: Option<String>,
}

/// c_ClaveProdServ's type-ahead in memory, from the rows: the answers of
/// [`buscar_claves_prod_serv`] without a query per key press. `None` when not loaded.
pub async fn buscador(conn: &mut DbConn) -> crate::DbResult<Option<Buscador>> {
    if !estado(conn).await?.iter().any(|estado| estado.catalogo == CLAVE_PROD_SERV) {
        return Ok(None);
    }
    let rows = sql!(
        fetch_packed * conn,
        ProductoRow,
        "clave, descripcion, palabras_similares, incluir_iva, incluir_ieps, estimulo_franja_fronteriza, \
         vigencia_desde, vigencia_hasta",
        "FROM claves_prod_serv",
        ""
    )?;
    Ok(Some(Buscador::nuevo(rows.into_iter().map(|row| {
        let datos = DatosClaveProdServ {
            incluir_iva: Incluir::desde_texto(&row.incluir_iva).unwrap_or(Incluir::No),
            incluir_ieps: Incluir::desde_texto(&row.incluir_ieps).unwrap_or(Incluir::No),
            estimulo_franja_fronteriza: row.estimulo_franja_fronteriza,
            vigencia: vigencia(row.vigencia_desde.as_deref(), row.vigencia_hasta.as_deref()),
        };
        (Producto { clave: row.clave, descripcion: row.descripcion, datos }, row.palabras_similares)
    }))))
}
