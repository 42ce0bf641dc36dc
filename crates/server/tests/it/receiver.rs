//! A real HTTP receiver of webhooks on loopback: records every request and answers as planned.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

/// One request received.
#[derive(Clone, Debug)]
pub struct Hit {
    /// `X-Service-Signature`.
    pub signature: String,
    /// `Content-Type`.
    pub content_type: String,
    /// The raw body.
    pub body: Vec<u8>,
}

impl Hit {
    /// The body parsed.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

#[derive(Default)]
struct Inner {
    /// Requests that arrived (before any delay).
    arrived: Vec<Hit>,
    /// Requests answered 2xx.
    accepted: Vec<Hit>,
    /// Statuses to answer next, in order; 200 when empty.
    plan: VecDeque<u16>,
    delay: Duration,
}

/// A running receiver.
#[derive(Clone)]
pub struct Receiver {
    /// `http://127.0.0.1:PORT/hook`.
    pub url: String,
    inner: Arc<Mutex<Inner>>,
    _stop: Arc<tokio::sync::oneshot::Sender<()>>,
}

impl Receiver {
    /// Starts on a free port.
    pub async fn start() -> Self {
        Self::start_on(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap()).await
    }

    /// Starts on this listener.
    pub async fn start_on(listener: tokio::net::TcpListener) -> Self {
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = axum::Router::new().route("/hook", axum::routing::post(receive)).with_state(inner.clone());
        let (stop, wait) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = wait.await;
                })
                .await;
        });
        Self { url, inner, _stop: Arc::new(stop) }
    }

    /// Answers these statuses to the next requests, then 200.
    pub fn plan(&self, statuses: &[u16]) {
        self.inner.lock().unwrap().plan.extend(statuses);
    }

    /// Waits this long before answering.
    pub fn delay(&self, delay: Duration) {
        self.inner.lock().unwrap().delay = delay;
    }

    /// Requests that arrived.
    pub fn arrived(&self) -> Vec<Hit> {
        self.inner.lock().unwrap().arrived.clone()
    }

    /// Requests answered 2xx.
    pub fn accepted(&self) -> Vec<Hit> {
        self.inner.lock().unwrap().accepted.clone()
    }
}

async fn receive(State(inner): State<Arc<Mutex<Inner>>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let hit =
        Hit { signature: header("x-service-signature"), content_type: header("content-type"), body: body.to_vec() };
    let (status, delay) = {
        let mut inner = inner.lock().unwrap();
        inner.arrived.push(hit.clone());
        (inner.plan.pop_front().unwrap_or(200), inner.delay)
    };
    tokio::time::sleep(delay).await;
    if (200..300).contains(&status) {
        inner.lock().unwrap().accepted.push(hit);
    }
    StatusCode::from_u16(status).unwrap()
}

/// Polls `check` every 20 ms until it is true or `seconds` pass.
pub async fn wait_for(seconds: u64, what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
    while tokio::time::Instant::now() < deadline {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}
