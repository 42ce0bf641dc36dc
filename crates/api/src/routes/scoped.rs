//! What the routes of the company-scoped resources share (customers, products, employees,
//! webhook endpoints): each one authorizes with the resource's permission, calls
//! `timbra_services::scoped` and answers the row as the resource's DTO. A resource's file keeps
//! its DTOs and one `#[utoipa::path]` function per route (their paths and answers differ); the
//! bodies of those functions exist here once.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::IntoParams;

use crate::envelope::{Page, parse_paging};
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use timbra_services::auth::roles::Permission;
use timbra_services::scoped::{self, Resource, Row};

/// A company-scoped resource as the API answers it: its DTO and the permission of each
/// operation.
pub(crate) trait Routed: Resource {
    /// The answer of one row.
    type Out: From<Row<Self>> + Serialize;
    /// Reading one row or a page.
    const VIEW: Permission;
    /// Creating a row.
    const CREATE: Permission;
    /// Updating a row.
    const EDIT: Permission;
    /// Deleting a row.
    const DELETE: Permission;
}

/// Listing parameters of a resource searched by `q`.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct ListParams {
    /// Page from 1 (default 1).
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub page_size: Option<i64>,
    /// Search in RFC and legal name (case-insensitive, substring).
    pub q: Option<String>,
}

/// Most rows a page of a resource holds.
const MAX_PAGE_SIZE: i64 = 100;

/// Creates a row from `fields`.
pub(crate) async fn create<R: Routed>(scope: &EmpresaScope, fields: R::Fields) -> HttpResult<R::Out> {
    scope.authorize(R::CREATE).await?;
    Ok(R::Out::from(scoped::create::<R>(&scope.app, &scope.empresa_id, fields).await?))
}

/// One page of rows, newest first; those matching `q` when it is given.
pub(crate) async fn page<R: Routed>(
    scope: &EmpresaScope,
    page: Option<i64>,
    page_size: Option<i64>,
    q: Option<&str>,
) -> HttpResult<Page<R::Out>> {
    scope.authorize(R::VIEW).await?;
    let paging = parse_paging(page, page_size, MAX_PAGE_SIZE)?;
    let (rows, total) = scoped::page::<R>(&scope.app, &scope.empresa_id, q, &paging).await?;
    Ok(Page::from_rows(rows, total, paging))
}

/// One page of rows by the listing parameters.
pub(crate) async fn list<R: Routed>(scope: &EmpresaScope, params: &ListParams) -> HttpResult<Page<R::Out>> {
    page::<R>(scope, params.page, params.page_size, params.q.as_deref()).await
}

/// Row `id`; NOT_FOUND also for another company's.
pub(crate) async fn get<R: Routed>(scope: &EmpresaScope, id: &str) -> HttpResult<R::Out> {
    scope.authorize(R::VIEW).await?;
    Ok(R::Out::from(scoped::get::<R>(&scope.app, &scope.empresa_id, id).await?))
}

/// Updates row `id`; fields left out keep their value.
pub(crate) async fn update<R: Routed>(scope: &EmpresaScope, id: &str, fields: R::Fields) -> HttpResult<R::Out> {
    scope.authorize(R::EDIT).await?;
    Ok(R::Out::from(scoped::update::<R>(&scope.app, &scope.empresa_id, id, fields).await?))
}

/// Deletes row `id` and answers [`deleted`].
pub(crate) async fn delete<R: Routed>(scope: &EmpresaScope, id: &str) -> HttpResult<Value> {
    scope.authorize(R::DELETE).await?;
    scoped::delete::<R>(&scope.app, &scope.empresa_id, id).await?;
    Ok(deleted(id))
}

/// The answer of a delete: `{ deleted: true, id }`.
pub(crate) fn deleted(id: &str) -> Value {
    json!({ "deleted": true, "id": id })
}
