//! Security, second round (issue 28): each test reproduces an attack found against main and
//! fails without its fix.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::harness::each_backend_with;

/// A small limit, so an attack costs the test little and "read past the limit" is unmistakable.
const LIMIT: usize = 64 * 1024;

/// What the server answered to a raw POST, and how many body bytes it let the client write.
struct RawAnswer {
    status: u16,
    content_type: String,
    body_bytes_written: u64,
}

/// POSTs `path` over a raw connection. With `declared` the request carries that Content-Length
/// and no body at all; without it the body is chunked and offers up to `offered` bytes of
/// `a=aaaa...` (a form for the dashboard, JSON's content type for the API), written as fast as the server takes them, until the answer arrives.
async fn raw_post(base: &str, path: &str, cookie: Option<&str>, declared: Option<u64>, offered: u64) -> RawAnswer {
    let content_type =
        if path.starts_with("/panel") { "application/x-www-form-urlencoded" } else { "application/json" };
    let address = base.trim_start_matches("http://");
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let mut head = format!("POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: {content_type}\r\n");
    if let Some(cookie) = cookie {
        head.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    match declared {
        Some(length) => head.push_str(&format!("Content-Length: {length}\r\n\r\n")),
        None => head.push_str("Transfer-Encoding: chunked\r\n\r\n"),
    }
    writer.write_all(head.as_bytes()).await.unwrap();
    let written = Arc::new(AtomicU64::new(0));
    let counter = written.clone();
    let feeder = tokio::spawn(async move {
        if declared.is_some() {
            return;
        }
        let mut chunk = b"a=".to_vec();
        chunk.resize(64 * 1024, b'a');
        let framed = [format!("{:x}\r\n", chunk.len()).into_bytes(), chunk, b"\r\n".to_vec()].concat();
        while counter.load(Ordering::Relaxed) < offered {
            if writer.write_all(&framed).await.is_err() {
                return;
            }
            counter.fetch_add(64 * 1024, Ordering::Relaxed);
        }
        let _ = writer.write_all(b"0\r\n\r\n").await;
    });
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(60), async {
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match reader.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no answer within 60 s to POST {path}");
    feeder.abort();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let content_type = text
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-type:").map(|v| v.trim().to_owned()))
        .unwrap_or_default();
    RawAnswer { status, content_type, body_bytes_written: written.load(Ordering::Relaxed) }
}

// ---- 1. Bodies are bounded before they are buffered ----------------------------------------

#[tokio::test]
async fn no_body_is_read_past_the_limit_on_any_route_or_page() {
    each_backend_with(
        |config| config.max_body_bytes = LIMIT,
        async |app| {
            // A declared length over the limit: 413 before a byte of the body is sent (before
            // the fix the server waited for the whole 200 MiB).
            for path in ["/panel/entrar", "/panel/registro", "/panel/clientes"] {
                let answer = raw_post(&app.base, path, None, Some(200 * 1024 * 1024), 0).await;
                assert_eq!(answer.status, 413, "{path}");
                assert!(answer.content_type.starts_with("text/html"), "{path}: the dashboard answers a page");
            }
            let answer = raw_post(&app.base, "/api/auth/register", None, Some(200 * 1024 * 1024), 0).await;
            assert_eq!(answer.status, 413);
            assert!(answer.content_type.starts_with("application/json"));

            // A chunked body with no cookie: the login form refuses it without reading it.
            let offered = 64 * 1024 * 1024;
            let answer = raw_post(&app.base, "/panel/entrar", None, None, offered).await;
            assert_eq!(answer.status, 403, "no pre-session cookie, no valid CSRF token");
            assert!(
                answer.body_bytes_written < 16 * 1024 * 1024,
                "the server took {} of {offered} bytes before refusing",
                answer.body_bytes_written
            );

            // With a cookie (a made-up one: the token comes in the body) the form is read up to
            // the limit and no further.
            let cookie = format!("timbra_previo={}", "b".repeat(40));
            for path in ["/panel/entrar", "/panel/registro"] {
                let answer = raw_post(&app.base, path, Some(&cookie), None, offered).await;
                assert_eq!(answer.status, 413, "{path}");
                assert!(answer.content_type.starts_with("text/html"), "{path}");
                assert!(
                    answer.body_bytes_written < 16 * 1024 * 1024,
                    "{path}: the server took {} of {offered} bytes",
                    answer.body_bytes_written
                );
            }

            // The API's own readers too, chunked: 413 REQUEST_002.
            let answer = raw_post(&app.base, "/api/auth/register", None, None, offered).await;
            assert_eq!(answer.status, 413);
            assert!(answer.body_bytes_written < 16 * 1024 * 1024, "took {}", answer.body_bytes_written);

            // A body under the limit still works.
            let ok = app.client.get(format!("{}/panel/entrar", app.base)).send().await.unwrap();
            assert_eq!(ok.status(), 200);
        },
    )
    .await;
}
