//! The operations company-scoped resources share (customers, products, employees, webhook
//! endpoints) over [`timbra_store::scoped`]: one by id, a page with `q`, create and update each
//! in one transaction (a taken unique key is the resource's 409), and delete. A resource
//! brings its fields, its rules and its two writes ([`Resource`]); the rest exists once.

use std::future::Future;
use timbra_store::ids::EmpresaId;

use timbra_store::scoped::{self as table, ScopedTable};
use timbra_store::search::like_pattern;
use timbra_store::{AsExec, DbResult, Paging, Tx, ids};
use time::OffsetDateTime;

use crate::context::AppContext;
use crate::error::{ApiError, Code};

/// Longest search text, in characters, of the listings.
pub const MAX_SEARCH: usize = 200;

/// REQUEST_001 when a search text is longer than [`MAX_SEARCH`].
pub fn check_search(field: &str, q: Option<&str>) -> Result<(), ApiError> {
    if q.is_some_and(|q| q.chars().count() > MAX_SEARCH) {
        return Err(ApiError::new(Code::Request001, format!("{field} has at most {MAX_SEARCH} characters")));
    }
    Ok(())
}

/// The stored row of resource `R`.
pub type Row<R> = <<R as Resource>::Table as ScopedTable>::Row;

/// A company-scoped resource: its table, its fields as sent, their rules and its writes.
pub trait Resource {
    /// The table behind it.
    type Table: ScopedTable;
    /// The fields a create or an update sends; an update leaves out what keeps its value.
    type Fields: Send;
    /// The fields checked, ready to store.
    type Valid: Send + Sync;
    /// What NOT_FOUND names ("customer").
    const NOUN: &'static str;
    /// Stamps read it (`cfdi::contexto`), so an update or a delete tells this and the other
    /// instances to read it again (`auth::cache::changed`).
    const READ_BY_STAMPS: bool = false;

    /// The resource's rules over `fields`; on update, `current` is the stored row the fields
    /// left out are taken from.
    fn check(
        app: &AppContext,
        fields: Self::Fields,
        current: Option<Row<Self>>,
    ) -> impl Future<Output = Result<Self::Valid, ApiError>> + Send;

    /// Rules that read the company's other rows, inside the write's transaction (`id` is the
    /// row's own).
    fn check_stored(
        _tx: &mut Tx,
        _empresa_id: &EmpresaId,
        _id: &str,
        _valid: &Self::Valid,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        async { Ok(()) }
    }

    /// Inserts row `id`.
    fn insert(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Self::Valid,
        now: OffsetDateTime,
    ) -> impl Future<Output = DbResult<u64>> + Send;

    /// Replaces row `id`'s fields.
    fn update(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Self::Valid,
        now: OffsetDateTime,
    ) -> impl Future<Output = DbResult<u64>> + Send;

    /// What a unique violation on write means to the client (its 409); `None` when the table
    /// has no unique key of its own, and the violation is a storage error.
    fn duplicate(_valid: &Self::Valid) -> Option<ApiError> {
        None
    }
}

/// The company's row `id`, or NOT_FOUND (also for another company's id).
pub async fn get<R: Resource>(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<Row<R>, ApiError> {
    get_in::<R>(&mut app.db.conn().await?, empresa_id, id).await
}

pub(crate) async fn get_in<R: Resource>(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    id: &str,
) -> Result<Row<R>, ApiError> {
    table::get::<R::Table>(conn, empresa_id, id).await?.ok_or_else(|| ApiError::not_found(R::NOUN))
}

/// One page of the company's rows, newest first, those whose search text holds `q` when it is
/// given; and how many match in all.
pub async fn page<R: Resource>(
    app: &AppContext,
    empresa_id: &EmpresaId,
    q: Option<&str>,
    paging: &Paging,
) -> Result<(Vec<Row<R>>, i64), ApiError> {
    check_search("q", q)?;
    let mut conn = app.db.conn().await?;
    Ok(table::page::<R::Table>(&mut conn, empresa_id, &like_pattern(q), paging).await?)
}

/// Creates a row with a new id and answers it as stored.
pub async fn create<R: Resource>(
    app: &AppContext,
    empresa_id: &EmpresaId,
    fields: R::Fields,
) -> Result<Row<R>, ApiError> {
    create_as::<R>(app, empresa_id, &ids::new_id(), fields).await
}

/// Creates row `id` (for a resource that derives something from its id before it is stored).
pub async fn create_as<R: Resource>(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fields: R::Fields,
) -> Result<Row<R>, ApiError> {
    let valid = R::check(app, fields, None).await?;
    let mut tx = app.db.begin().await?;
    R::check_stored(&mut tx, empresa_id, id, &valid).await?;
    let inserted = R::insert(&mut tx, empresa_id, id, &valid, app.clock.now()).await;
    written::<R>(inserted, &valid)?;
    let row = get_in::<R>(&mut tx, empresa_id, id).await?;
    tx.commit().await?;
    Ok(row)
}

/// Updates row `id`: the fields sent over the stored ones, checked again as a whole.
pub async fn update<R: Resource>(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fields: R::Fields,
) -> Result<Row<R>, ApiError> {
    let current = get::<R>(app, empresa_id, id).await?;
    let valid = R::check(app, fields, Some(current)).await?;
    let mut tx = app.db.begin().await?;
    R::check_stored(&mut tx, empresa_id, id, &valid).await?;
    let updated = R::update(&mut tx, empresa_id, id, &valid, app.clock.now()).await;
    written::<R>(updated, &valid)?;
    let row = get_in::<R>(&mut tx, empresa_id, id).await?;
    tx.commit().await?;
    if R::READ_BY_STAMPS {
        crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    }
    Ok(row)
}

/// Deletes row `id` (soft, when the table keeps deleted rows); NOT_FOUND when there is none.
pub async fn delete<R: Resource>(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> Result<(), ApiError> {
    let mut tx = app.db.begin().await?;
    if !table::delete::<R::Table>(&mut tx, empresa_id, id, app.clock.now()).await? {
        return Err(ApiError::not_found(R::NOUN));
    }
    tx.commit().await?;
    if R::READ_BY_STAMPS {
        crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    }
    Ok(())
}

/// A write's outcome, with a unique violation as the resource's own 409.
fn written<R: Resource>(outcome: DbResult<u64>, valid: &R::Valid) -> Result<u64, ApiError> {
    match outcome {
        Err(error) if error.is_duplicate() => Err(R::duplicate(valid).unwrap_or_else(|| error.into())),
        other => Ok(other?),
    }
}
