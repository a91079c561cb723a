//! The metrics endpoint: a std `TcpListener` on its own thread answering HTTP/1.1 `GET /metrics`
//! with core's exposition of the shared [`WatchStatus`], rendered at the scrape's instant (the
//! snapshot's age is now's). Each connection has its own thread (at most [`MAX_CONNECTIONS`] at
//! once), a request head of at most [`MAX_HEAD_BYTES`] and read and write deadlines, so a slow or
//! hostile client stalls neither the collection nor other scrapers for long. Without `--serve`
//! nothing but `/metrics` (and `/` pointing to it) is served; with it, the dashboard's files and
//! what the page follows the watch with (`/watch/status.json`, `/watch/latest.json`,
//! `/watch/history.json`, `/watch/history-view.json`). Every answer closes the connection.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lbplan_core::watch::metrics::{CONTENT_TYPE, WatchStatus, render};
use lbplan_core::watch::page::PageStatus;

/// A request head larger than this is refused (a scrape's is a few hundred bytes).
pub const MAX_HEAD_BYTES: usize = 8 * 1024;
/// Connections served at once; more are closed at once.
pub const MAX_CONNECTIONS: usize = 16;
/// A client has this long to send its request and take the answer.
const IO_DEADLINE: Duration = Duration::from_secs(5);

/// What the endpoint serves, shared with the watch's loop.
#[derive(Default)]
pub struct Served {
    /// What `/metrics` renders.
    pub status: Mutex<WatchStatus>,
    /// With `--serve`: the built dashboard's directory (canonical), the latest good snapshot's
    /// JSON (`/watch/latest.json`), the live history's report (`/watch/history.json`) and its
    /// History view (report and timeline, `/watch/history-view.json`), each with the capture time
    /// of its latest snapshot (`/watch/status.json` tells the page which changed).
    pub dist: Option<PathBuf>,
    /// The watch's `--every`, for the page's polls.
    pub interval_ms: u64,
    pub latest: Mutex<Option<Published>>,
    pub history: Mutex<Option<Published>>,
    pub history_view: Mutex<Option<Published>>,
}

/// A document served as it was written, and the capture time of the latest snapshot in it.
#[derive(Clone)]
pub struct Published {
    pub bytes: Arc<Vec<u8>>,
    pub at_ms: Option<i64>,
}

/// The state a scrape reads, shared with the watch's loop.
pub type Shared = Arc<Served>;

/// The value behind `m`, even if a thread panicked holding it (the values are replaced whole).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

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

/// An answer: status line, content type, extra header lines, body.
type Reply = (&'static str, &'static str, String, Vec<u8>);

fn text(status: &'static str, body: &str) -> Reply {
    (
        status,
        "text/plain; charset=utf-8",
        String::new(),
        body.as_bytes().to_vec(),
    )
}

/// The answer to GET `path` (with its query).
fn route(full_path: &str, served: &Served) -> Reply {
    let (path, query) = full_path.split_once('?').unwrap_or((full_path, ""));
    let json = |doc: &Mutex<Option<Published>>| match lock(doc).clone() {
        Some(p) => (
            "200 OK",
            "application/json",
            String::new(),
            p.bytes.to_vec(),
        ),
        None => text("503 Service Unavailable", "no good snapshot yet\n"),
    };
    match (path, &served.dist) {
        ("/metrics", _) => {
            let mut status = lock(&served.status).clone();
            status.now_ms = now_ms();
            (
                "200 OK",
                CONTENT_TYPE,
                String::new(),
                render(&status).into_bytes(),
            )
        }
        ("/watch/status.json", Some(_)) => {
            let at = |doc: &Mutex<Option<Published>>| lock(doc).as_ref().and_then(|p| p.at_ms);
            let status = PageStatus::of(
                &lock(&served.status),
                served.interval_ms,
                at(&served.latest),
                at(&served.history_view),
            );
            match serde_json::to_vec(&status) {
                Ok(b) => ("200 OK", "application/json", String::new(), b),
                Err(e) => text("500 Internal Server Error", &format!("{e}\n")),
            }
        }
        ("/watch/latest.json", Some(_)) => json(&served.latest),
        ("/watch/history.json", Some(_)) => json(&served.history),
        ("/watch/history-view.json", Some(_)) => json(&served.history_view),
        // The dashboard opens on the watched cluster's latest snapshot (its `?snapshot=`).
        ("/", Some(_)) if query.is_empty() => (
            "302 Found",
            "text/plain; charset=utf-8",
            format!("Location: {DASHBOARD_ENTRY}\r\n"),
            Vec::new(),
        ),
        (_, Some(root)) => match super::static_files::read(root, path) {
            Some((t, b)) => ("200 OK", t, String::new(), b),
            None => text("404 Not Found", "not found\n"),
        },
        ("/", None) => text("200 OK", "lbplan watch: metrics at /metrics\n"),
        _ => text("404 Not Found", "not found\n"),
    }
}

/// The policy every answer carries when the dashboard is served (the strictest it runs under,
/// `tests/e2e/csp.test.mjs`): no inline script or style, and requests to this origin only, so
/// the page following the watch cannot call anywhere else.
pub const DASHBOARD_CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Where `/` sends a browser when the dashboard is served: the latest snapshot, and `watch` so
/// the page follows the watch (polls `/watch/status.json` on its own origin).
pub const DASHBOARD_ENTRY: &str = "/?snapshot=/watch/latest.json&watch";

fn answer(mut stream: TcpStream, served: &Served) {
    let _ = stream.set_read_timeout(Some(IO_DEADLINE));
    let _ = stream.set_write_timeout(Some(IO_DEADLINE));
    let (status, content_type, extra, body) = match read_head(&mut stream) {
        None => text("400 Bad Request", "bad request\n"),
        Some((m, _)) if m != "GET" && m != "HEAD" => text("405 Method Not Allowed", "only GET\n"),
        Some((m, path)) => {
            let (s, t, x, b) = route(&path, served);
            (s, t, x, if m == "HEAD" { Vec::new() } else { b })
        }
    };
    let csp = if served.dist.is_some() {
        format!("Content-Security-Policy: {DASHBOARD_CSP}\r\n")
    } else {
        String::new()
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{extra}{csp}\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(&body))
        .and_then(|()| stream.flush());
}

/// Now, ms since the epoch (0 when the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
