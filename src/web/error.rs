//! [`ApiError`]: how every handler fails, as a status and a `{"error": message}` body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::guard::PathRefused;

/// A handler's error: its status, and its message as the `{"error": message}` body.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    /// An error answered with `status`.
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// `err` with its causes (`what: why: ...`), answered with `status`.
    pub(crate) fn caused(status: StatusCode, err: impl Into<anyhow::Error>) -> ApiError {
        ApiError::new(status, format!("{:#}", err.into()))
    }

    /// A server-side failure (500), said by its `Display`.
    pub(crate) fn internal(err: impl std::fmt::Display) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        /// The body of every error answer.
        #[derive(serde::Serialize)]
        struct ErrorBody {
            error: String,
        }
        (self.status, Json(ErrorBody { error: self.message })).into_response()
    }
}

/// A harness failure: 500, with the whole chain of causes.
impl From<anyhow::Error> for ApiError {
    fn from(err: anyhow::Error) -> ApiError {
        ApiError::caused(StatusCode::INTERNAL_SERVER_ERROR, err)
    }
}

/// A blocking task that panicked or was cancelled: 500.
impl From<tokio::task::JoinError> for ApiError {
    fn from(err: tokio::task::JoinError) -> ApiError {
        ApiError::internal(err)
    }
}

/// A name refused by [`resolve`](super::guard::resolve): 400 for a name that is not
/// plain, 404 for one outside the runs folder.
impl From<PathRefused> for ApiError {
    fn from(err: PathRefused) -> ApiError {
        let status = match err {
            PathRefused::BadName(_) => StatusCode::BAD_REQUEST,
            PathRefused::Outside(_) => StatusCode::NOT_FOUND,
        };
        ApiError::new(status, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    async fn answer(err: ApiError) -> (StatusCode, serde_json::Value) {
        let response = err.into_response();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn every_error_is_its_status_and_an_error_body() {
        let (status, body) = answer(PathRefused::Outside("x".to_string()).into()).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body, json!({ "error": "\"x\" is not under the runs folder" }));
        let (status, _) = answer(PathRefused::BadName("..".to_string()).into()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let chained = anyhow::anyhow!("disk full").context("cannot write run.json");
        let (status, body) = answer(chained.into()).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["error"], "cannot write run.json: disk full");
    }
}
