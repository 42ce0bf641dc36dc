//! stub
use crate::state::AppState;
use axum::Router;
/// Routes.
pub fn rutas() -> Router<AppState> {
    Router::new()
}
