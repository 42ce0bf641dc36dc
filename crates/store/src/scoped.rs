//! What the company-scoped tables behind simple CRUD resources (customers, products, webhook
//! endpoints) share: a page newest first with an optional `q` over their `search_text` column
//! and its total in the same statement, one row by id, and a delete by id (or a soft delete);
//! every query filters by the company.

use crate::ids::EmpresaId;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{AssertSqlSafe, FromRow};
use time::OffsetDateTime;

use crate::Paging;
use crate::sql;
use crate::{AsExec, DbConn, with_limit};

/// A table with `id`, `empresa_id` and `created_at` columns, and `search_text` (the lower-case
/// text `q=` searches in) when it is searched.
pub trait ScopedTable {
    /// The table.
    const TABLE: &'static str;
    /// Rows are deleted by setting `deleted_at` (and then never read again) instead of removed.
    const SOFT_DELETE: bool = false;
    /// The columns a row is read with, comma-separated.
    const COLUMNS: &'static str;
    /// What a row is read into; listings add a `total` column, which [`ScopedTable::total`]
    /// gives back.
    type Row: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin;
    /// The `total` a listing row carries.
    fn total(row: &Self::Row) -> Option<i64>;
}

/// The clause that hides soft-deleted rows, when the table has them.
fn no_borradas<T: ScopedTable>() -> &'static str {
    if T::SOFT_DELETE { " AND deleted_at IS NULL" } else { "" }
}

/// One page, newest first, of the company's rows whose `search_text` is `LIKE pattern` (see
/// `routes::clientes::like_pattern`; `%%` is everything), and how many rows match in all.
pub async fn page<T: ScopedTable>(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    pattern: &str,
    paging: &Paging,
) -> crate::DbResult<(Vec<T::Row>, i64)> {
    let (table, columns) = (T::TABLE, T::COLUMNS);
    // One statement reads the page and, in a subquery run once, the total; without `q` both come
    // straight from the (empresa_id, created_at, id) index, with no per-row LIKE.
    let everything = pattern == "%%";
    let live = no_borradas::<T>();
    let (filter, offset) = if everything {
        (format!("empresa_id = $1{live}"), "$2")
    } else {
        (format!("empresa_id = $1{live} AND search_text LIKE $2 ESCAPE '\\'"), "$3")
    };
    let select = format!(
        "SELECT {columns}, (SELECT COUNT(*) FROM {table} WHERE {filter}) AS total FROM {table} WHERE {filter} \
         ORDER BY created_at DESC, id DESC LIMIT {{limit}} OFFSET {offset}"
    );
    let select = with_limit(&select, paging.page_size);
    let rows = if everything {
        sql!(fetch_all * conn, T::Row, select, empresa_id, paging.offset())?
    } else {
        sql!(fetch_all * conn, T::Row, select, empresa_id, pattern, paging.offset())?
    };
    let total = match paging.total_leido(rows.first().map(T::total)) {
        Some(total) => total,
        None => {
            let count = AssertSqlSafe(format!("SELECT COUNT(*) FROM {table} WHERE {filter}"));
            if everything {
                sql!(scalar_one * conn, i64, count, empresa_id)?
            } else {
                sql!(scalar_one * conn, i64, count, empresa_id, pattern)?
            }
        }
    };
    Ok((rows, total))
}

/// The company's row `id`.
pub async fn get<T: ScopedTable>(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &str,
) -> crate::DbResult<Option<T::Row>> {
    let live = no_borradas::<T>();
    let select = format!("SELECT {} FROM {} WHERE id = $1 AND empresa_id = $2{live}", T::COLUMNS, T::TABLE);
    sql!(fetch_optional * conn, T::Row, AssertSqlSafe(select), id, empresa_id)
}

/// Deletes the company's row `id` (soft: sets `deleted_at`); `false` when there was none.
pub async fn delete<T: ScopedTable>(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &str,
    now: OffsetDateTime,
) -> crate::DbResult<bool> {
    let deleted = if T::SOFT_DELETE {
        let delete = format!(
            "UPDATE {} SET deleted_at = $3, updated_at = $3 WHERE id = $1 AND empresa_id = $2 AND deleted_at IS NULL",
            T::TABLE
        );
        sql!(execute * conn, AssertSqlSafe(delete), id, empresa_id, now)?
    } else {
        let delete = format!("DELETE FROM {} WHERE id = $1 AND empresa_id = $2", T::TABLE);
        sql!(execute * conn, AssertSqlSafe(delete), id, empresa_id)?
    };
    Ok(deleted > 0)
}
