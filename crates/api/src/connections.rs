//! The HTTP server loop: HTTP/1.1 connections accepted under [`ConnectionLimits`]. A client
//! that opens connections and sends part of its headers holds a file descriptor and a task
//! each; without limits 20,200 of them took every descriptor of the process and `/healthz`
//! stopped answering (issue 28, finding 8). So the headers of a request must arrive within the
//! header-read timeout, and connections are counted in all and per client address: one over a
//! limit is answered 503 `BUSY_002` and closed, without its request being read.
//!
//! HTTP/1.1 only: the proxy in front (`deploy/Caddyfile`) speaks HTTP/2 to browsers, and
//! HTTP/2 with prior knowledge has no header-read timeout to bound it.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use timbra_services::config::ConnectionLimits;
use timbra_services::error::{ApiError, Code};

/// Refusals being written at once; past this a connection over a limit is closed at once,
/// without an answer (it would otherwise hold a descriptor for its answer's time).
const REFUSALS_AT_ONCE: usize = 256;

/// How long a refused connection is given to take its 503 before it is closed.
const REFUSAL_TIME: Duration = Duration::from_millis(500);

/// Open connections, in all and per client address.
#[derive(Debug)]
pub struct Connections {
    limits: ConnectionLimits,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_ip: HashMap<IpAddr, usize>,
}

/// Which limit refused a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `TIMBRA_MAX_CONNECTIONS_PER_IP`.
    PerIp,
    /// `TIMBRA_MAX_CONNECTIONS`.
    Total,
}

/// One admitted connection; its count is given back when it is dropped.
#[derive(Debug)]
pub struct Slot {
    connections: Arc<Connections>,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Ok(mut open) = self.connections.open.lock() else { return };
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.per_ip.get_mut(&self.ip) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.per_ip.remove(&self.ip);
            }
        }
    }
}

impl Connections {
    /// No connection open yet.
    pub fn new(limits: ConnectionLimits) -> Arc<Self> {
        Arc::new(Self { limits, open: Mutex::default() })
    }

    /// Counts a new connection from `ip`, or says which limit it would cross.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Slot, Refused> {
        // An IPv4 client on a dual-stack socket is counted by its IPv4 address.
        let ip = ip.to_canonical();
        let mut open = self.open.lock().map_err(|_| Refused::Total)?;
        if open.per_ip.get(&ip).copied().unwrap_or(0) >= self.limits.max_per_ip {
            return Err(Refused::PerIp);
        }
        if open.total >= self.limits.max_total {
            return Err(Refused::Total);
        }
        open.total += 1;
        *open.per_ip.entry(ip).or_default() += 1;
        Ok(Slot { connections: self.clone(), ip })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().map_or(0, |open| open.total)
    }
}

/// Serves `router` on `listener` until `shutdown` resolves; then stops accepting, lets every
/// connection finish the request in hand and returns when all are closed.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let connections = Connections::new(limits.clone());
    let refusals = Arc::new(tokio::sync::Semaphore::new(REFUSALS_AT_ONCE));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
    // Every connection task holds a receiver: `closed()` resolves when the last one is gone.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors (EMFILE) or a connection reset before it was taken:
                    // wait a moment instead of spinning on the same error.
                    tracing::warn!(error.message = %error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let slot = match connections.admit(peer.ip()) {
            Ok(slot) => slot,
            Err(refused) => {
                refuse(stream, refused, &refusals);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = tower::service_fn(move |mut request: axum::http::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            router.clone().oneshot(request)
        });
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)).with_upgrades();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _slot = slot;
            tokio::pin!(connection);
            let result = tokio::select! {
                result = connection.as_mut() => result,
                _ = async { stopped.wait_for(|stop| *stop).await.map(|_| ()) } => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = result {
                tracing::debug!(error.message = %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    let _ = stop.send(true);
    drop(stopped);
    stop.closed().await;
    Ok(())
}

/// Answers 503 `BUSY_002` on a connection over a limit and closes it, without reading its
/// request; at most [`REFUSALS_AT_ONCE`] at a time (past that it is closed unanswered).
fn refuse(stream: TcpStream, refused: Refused, refusals: &Arc<tokio::sync::Semaphore>) {
    let Ok(permit) = refusals.clone().try_acquire_owned() else { return };
    tokio::spawn(async move {
        let _permit = permit;
        let (variable, what) = match refused {
            Refused::PerIp => ("TIMBRA_MAX_CONNECTIONS_PER_IP", "from your address"),
            Refused::Total => ("TIMBRA_MAX_CONNECTIONS", "in all"),
        };
        let error = ApiError::new(
            Code::Busy002,
            format!("too many open connections {what} ({variable}); close some and retry in a second"),
        );
        let body = error.body().to_string();
        let status = error.code.status();
        let answer = format!(
            "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             retry-after: 1\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n{body}",
            status.as_u16(),
            status.canonical_reason().unwrap_or_default(),
            body.len()
        );
        let mut stream = stream;
        let _ = tokio::time::timeout(REFUSAL_TIME, async {
            stream.write_all(answer.as_bytes()).await?;
            stream.shutdown().await?;
            // What the client already sent is read and dropped, so closing does not reset the
            // connection before the client has read the answer.
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            std::io::Result::Ok(())
        })
        .await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_counted_in_all_and_per_address() {
        let limits = ConnectionLimits { header_read_timeout: Duration::from_secs(1), max_total: 3, max_per_ip: 2 };
        let connections = Connections::new(limits);
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let first = connections.admit(a).unwrap();
        let _second = connections.admit(a).unwrap();
        assert_eq!(connections.admit(a).unwrap_err(), Refused::PerIp);
        // The same client over IPv6 (v4-mapped) is the same address.
        assert_eq!(connections.admit("::ffff:10.0.0.1".parse().unwrap()).unwrap_err(), Refused::PerIp);
        let _third = connections.admit(b).unwrap();
        assert_eq!(connections.admit(b).unwrap_err(), Refused::Total);
        drop(first);
        assert_eq!(connections.open(), 2);
        let _again = connections.admit(a).unwrap();
        assert_eq!(connections.admit([10, 0, 0, 3].into()).unwrap_err(), Refused::Total);
    }
}
