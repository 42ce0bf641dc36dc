//! Customers and products: list with search and paging, create, edit, delete.

use axum::Router;

use crate::state::AppState;

/// Routes of the customers' and products' pages.
pub fn rutas() -> Router<AppState> {
    Router::new()
}
