//! Invoices: the stamp form with its live preview, the list, the detail page, downloads and
//! cancellation.

use axum::Router;

use crate::state::AppState;

/// Routes of the invoices' pages.
pub fn rutas() -> Router<AppState> {
    Router::new()
}
