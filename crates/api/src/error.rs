//! The code table's errors as HTTP answers. `timbra_services::error::ApiError` is the typed
//! error every operation returns (code, message, details); [`HttpError`] is that error on its
//! way out: its code's status, the envelope as JSON, and `Retry-After` when it says when.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use timbra_services::error::ApiError;
use timbra_services::idempotency::{Answer, REPLAYED};

/// An [`ApiError`] answered to the client. Every error converts into it (`?` in a handler).
#[derive(Debug)]
pub struct HttpError(pub ApiError);

/// Result type of handlers.
pub type HttpResult<T> = Result<T, HttpError>;

impl<E: Into<ApiError>> From<E> for HttpError {
    fn from(error: E) -> Self {
        Self(error.into())
    }
}

impl std::ops::Deref for HttpError {
    type Target = ApiError;
    fn deref(&self) -> &ApiError {
        &self.0
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let error = self.0;
        let mut response = (error.code.status(), axum::Json(error.body())).into_response();
        if let Some(seconds) = error.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// A stored or fresh [`Answer`] of the services (a stamp, a cancellation, a replay) as sent:
/// JSON, and `idempotent-replayed: true` when it is a replay.
pub fn answer(answer: Answer) -> Response {
    let mut response = (answer.status, answer.body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if answer.replayed {
        response.headers_mut().insert(REPLAYED, HeaderValue::from_static("true"));
    }
    response
}
