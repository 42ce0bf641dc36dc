//! Identifiers: UUID v7 text, time-ordered so new rows index well and list in creation order.

/// A new identifier.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
