//! Schemas shared by the OpenAPI document: the envelopes.

use serde::Serialize;
use utoipa::ToSchema;

/// Success envelope.
#[derive(Serialize, ToSchema)]
pub struct Envelope<T> {
    /// Always true.
    pub success: bool,
    /// `sandbox` or `live`, on the operations SPEC.md shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The answer.
    pub data: T,
}

/// Error envelope.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// Always false.
    pub success: bool,
    /// What went wrong.
    pub error: ErrorDetail,
}

/// The error itself.
#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Stable code, e.g. `CLIENTE_001`; the table is at `/llms-full.txt` and in `x-error-codes`.
    pub code: String,
    /// What to fix, for a person.
    pub message: String,
    /// For a program: e.g. `fields: [{field, message}]` on validation errors.
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
}
