//! Misbehaviour a test can ask of the next calls of an operation, as real PACs show under load:
//! an answer that arrives after the client gave up, a 503 from a balancer, a SOAP Fault sent
//! after the stamp was committed, a connection dropped mid-answer. The simulator's defaults
//! have none of these; a test queues them with [`Sim::fallar`](super::Sim::fallar).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// What goes wrong with one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Falla {
    /// Does the work, then answers after this long: a client with a shorter timeout never
    /// sees the answer, although the PAC stamped.
    Lenta(Duration),
    /// Answers HTTP 503 (a balancer in front of the PAC) without doing anything.
    NoDisponible,
    /// Does the work (a stamp is committed), then answers a SOAP Fault with HTTP 500.
    FaultTrasTimbrar,
    /// Does the work, then drops the connection without an answer.
    Corte,
}

impl Falla {
    /// Whether the operation runs at all.
    pub(crate) fn trabaja(&self) -> bool {
        !matches!(self, Falla::NoDisponible)
    }

    /// The answer the client gets instead of `respuesta` (after waiting, for [`Falla::Lenta`]).
    pub(crate) async fn aplicar(&self, respuesta: Response) -> Response {
        match self {
            Falla::Lenta(espera) => {
                tokio::time::sleep(*espera).await;
                respuesta
            }
            Falla::NoDisponible => {
                (StatusCode::SERVICE_UNAVAILABLE, "<html><body>503 Service Temporarily Unavailable</body></html>")
                    .into_response()
            }
            Falla::FaultTrasTimbrar => super::soap::falla("Server", "Error interno del servidor"),
            Falla::Corte => (StatusCode::OK, Body::new(Cortado)).into_response(),
        }
    }
}

/// A body that fails on its first read: hyper then closes the connection mid-answer.
struct Cortado;

impl http_body::Body for Cortado {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Poll::Ready(Some(Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "connection dropped"))))
    }
}
