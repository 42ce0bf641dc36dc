//! The JSON envelope in and out: `{ success, data }` answers, and request extractors whose
//! rejections are envelope errors (never axum's plain-text ones).

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

use timbra_store::Paging;

use timbra_services::error::{ApiError, Code};

/// A success answer: `{ success: true, [mode,] data }` with a status.
pub struct Ok<T> {
    status: StatusCode,
    mode: Option<&'static str>,
    data: T,
}

/// 200 with `data`.
pub fn ok<T: Serialize>(data: T) -> Ok<T> {
    Ok { status: StatusCode::OK, mode: None, data }
}

/// 201 with `data`.
pub fn created<T: Serialize>(data: T) -> Ok<T> {
    Ok { status: StatusCode::CREATED, mode: None, data }
}

/// 202 with `data` (work accepted, the answer comes later).
pub fn accepted<T: Serialize>(data: T) -> Ok<T> {
    Ok { status: StatusCode::ACCEPTED, mode: None, data }
}

impl<T> Ok<T> {
    /// Adds the top-level `mode` field (`sandbox` or `live`) where SPEC.md shows it.
    pub fn with_mode(mut self, mode: &'static str) -> Self {
        self.mode = Some(mode);
        self
    }
}

#[derive(Serialize)]
struct Body<'a, T> {
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a str>,
    data: &'a T,
}

impl<T: Serialize> IntoResponse for Ok<T> {
    fn into_response(self) -> Response {
        let body = Body { success: true, mode: self.mode, data: &self.data };
        (self.status, axum::Json(body)).into_response()
    }
}

/// A paged list: `data { items, total, page, pageSize, totalPages }`.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Items matching in all pages.
    pub total: i64,
    /// This page, from 1.
    pub page: i64,
    /// Items per page.
    pub page_size: i64,
    /// Number of pages.
    pub total_pages: i64,
}

impl<T> Page<T> {
    /// Wraps one page of a listing.
    pub fn new(items: Vec<T>, total: i64, paging: Paging) -> Self {
        let total_pages = if total == 0 { 0 } else { (total + paging.page_size - 1) / paging.page_size };
        Self { items, total, page: paging.page, page_size: paging.page_size, total_pages }
    }

    /// Wraps one page of stored rows, each answered as `T`.
    pub fn from_rows<R>(rows: Vec<R>, total: i64, paging: Paging) -> Self
    where
        T: From<R>,
    {
        Self::new(rows.into_iter().map(T::from).collect(), total, paging)
    }
}

/// Rows before `page` (from 1) of `page_size` rows; REQUEST_001 when the number does not fit
/// (a page so far that the offset would overflow and wrap to the first rows).
pub fn rows_before(page: i64, page_size: i64) -> Result<i64, ApiError> {
    page.checked_sub(1).and_then(|before| before.checked_mul(page_size)).ok_or_else(|| {
        ApiError::new(Code::Request001, format!("page {page} is beyond any listing; ask for a smaller page number"))
    })
}

/// The validated `page` and `pageSize` of a listing: page 1 and 20 items by default,
/// `pageSize` at most `max`.
pub fn parse_paging(page: Option<i64>, page_size: Option<i64>, max: i64) -> Result<Paging, ApiError> {
    let page = page.unwrap_or(1);
    let page_size = page_size.unwrap_or(20);
    if page < 1 {
        return Err(ApiError::new(Code::Request001, "page starts at 1"));
    }
    if !(1..=max).contains(&page_size) {
        return Err(ApiError::new(Code::Request001, format!("pageSize must be between 1 and {max}")));
    }
    rows_before(page, page_size)?;
    Paging::new(page, page_size).ok_or_else(|| ApiError::new(Code::Request001, "page is beyond any listing"))
}

/// JSON body extractor whose failures are REQUEST_001 / REQUEST_002 envelopes that say what to
/// fix (the serde message names the field and the position).
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = crate::error::HttpError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(request, state).await {
            Result::Ok(axum::Json(value)) => Result::Ok(Json(value)),
            Err(rejection) => Err(crate::error::HttpError(json_rejection(rejection))),
        }
    }
}

/// Maps axum's JSON rejections to the envelope.
pub fn json_rejection(rejection: JsonRejection) -> ApiError {
    match rejection {
        JsonRejection::MissingJsonContentType(_) => {
            ApiError::new(Code::Request001, "send the body as JSON with the header Content-Type: application/json")
        }
        JsonRejection::BytesRejection(error) if error.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(Code::Request002, "the request body is too large")
        }
        JsonRejection::JsonSyntaxError(error) => {
            ApiError::new(Code::Request001, format!("the body is not valid JSON: {}", error.body_text()))
        }
        JsonRejection::JsonDataError(error) => {
            ApiError::new(Code::Request001, format!("a field has the wrong type or is missing: {}", error.body_text()))
        }
        other => ApiError::new(Code::Request001, other.body_text()),
    }
}

/// Query-string extractor with envelope errors.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = crate::error::HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Result::Ok(axum::extract::Query(value)) => Result::Ok(Query(value)),
            Err(rejection) => Err(crate::error::HttpError(query_rejection(rejection))),
        }
    }
}

fn query_rejection(rejection: QueryRejection) -> ApiError {
    ApiError::new(Code::Request001, format!("invalid query string: {}", rejection.body_text()))
}

/// Path-parameter extractor with envelope errors.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = crate::error::HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Result::Ok(axum::extract::Path(value)) => Result::Ok(Path(value)),
            Err(rejection) => Err(crate::error::HttpError(path_rejection(rejection))),
        }
    }
}

fn path_rejection(rejection: PathRejection) -> ApiError {
    ApiError::new(Code::Request001, format!("invalid path parameter: {}", rejection.body_text()))
}
