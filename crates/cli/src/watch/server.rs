//! The metrics endpoint: a std `TcpListener` on its own thread answering HTTP/1.1 `GET /metrics`
//! with core's exposition of the shared [`WatchStatus`], rendered at the scrape's instant (the
//! snapshot's age is now's). Each connection has its own thread (at most [`MAX_CONNECTIONS`] at
//! once), a request head of at most [`MAX_HEAD_BYTES`] and read and write deadlines, so a slow or
//! hostile client stalls neither the collection nor other scrapers for long. Nothing but
//! `/metrics` (and `/` pointing to it) is served; every answer closes the connection.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lbplan_core::watch::metrics::{CONTENT_TYPE, WatchStatus, render};

/// A request head larger than this is refused (a scrape's is a few hundred bytes).
pub const MAX_HEAD_BYTES: usize = 8 * 1024;
/// Connections served at once; more are closed at once.
pub const MAX_CONNECTIONS: usize = 16;
/// A client has this long to send its request and take the answer.
const IO_DEADLINE: Duration = Duration::from_secs(5);

/// The state a scrape reads, shared with the watch's loop.
pub type Shared = Arc<Mutex<WatchStatus>>;

/// Binds `addr` and serves on a background thread; returns the bound address (port 0 picks one).
pub fn start(addr: SocketAddr, shared: Shared) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr)?;
    let bound = listener.local_addr()?;
    let busy = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("lbplan-metrics".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                if busy.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    busy.fetch_sub(1, Ordering::SeqCst);
                    drop(stream);
                    continue;
                }
                let (shared, done) = (shared.clone(), busy.clone());
                let spawned = std::thread::Builder::new()
                    .name("lbplan-scrape".into())
                    .spawn(move || {
                        answer(stream, &shared);
                        done.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    busy.fetch_sub(1, Ordering::SeqCst);
                }
            }
        })?;
    Ok(bound)
}

/// The request line's method and path, or `None` for a head over the cap, cut short or not HTTP.
fn read_head(stream: &mut TcpStream) -> Option<(String, String)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() > MAX_HEAD_BYTES {
            return None;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(chunk.get(..n)?),
        }
    }
    let head = std::str::from_utf8(&buf).ok()?;
    let mut words = head.lines().next()?.split(' ');
    let (method, path) = (words.next()?, words.next()?);
    Some((method.to_string(), path.to_string()))
}

fn answer(mut stream: TcpStream, shared: &Mutex<WatchStatus>) {
    let _ = stream.set_read_timeout(Some(IO_DEADLINE));
    let _ = stream.set_write_timeout(Some(IO_DEADLINE));
    let (status, content_type, body) = match read_head(&mut stream) {
        None => ("400 Bad Request", "text/plain", "bad request\n".to_string()),
        Some((m, _)) if m != "GET" && m != "HEAD" => (
            "405 Method Not Allowed",
            "text/plain",
            "only GET\n".to_string(),
        ),
        Some((m, path)) => {
            let path = path.split('?').next().unwrap_or("");
            let body = match path {
                "/metrics" => {
                    let status = match shared.lock() {
                        Ok(g) => g.clone(),
                        Err(poisoned) => poisoned.into_inner().clone(),
                    };
                    let mut status = status;
                    status.now_ms = now_ms();
                    Some(("200 OK", CONTENT_TYPE, render(&status)))
                }
                "/" => Some((
                    "200 OK",
                    "text/plain",
                    "lbplan watch: metrics at /metrics\n".to_string(),
                )),
                _ => None,
            };
            let (s, t, b) =
                body.unwrap_or(("404 Not Found", "text/plain", "not found\n".to_string()));
            (s, t, if m == "HEAD" { String::new() } else { b })
        }
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .and_then(|()| stream.flush());
}

/// Now, ms since the epoch (0 when the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
