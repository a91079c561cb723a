//! The fake Pulsar admin API of the CLI tests (`collect`, `watch`): an HTTP/1.1 server on
//! 127.0.0.1, one thread per connection, `Connection: close`, answering each path through a
//! router the test gives (which may read state the test changes while it runs).
#![allow(dead_code)] // each test uses its own subset

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The slow endpoint answers after this; the client's timeout is 1 s.
pub const SLOW: Duration = Duration::from_secs(3);
/// No server thread outlives this.
pub const DEADLINE: Duration = Duration::from_secs(120);

#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
}

pub enum Answer {
    Json(u16, String),
    Text(u16, String),
    Slow(String),
    Empty(u16),
}

pub type Router = dyn Fn(&str, usize) -> Answer + Send + Sync;

/// A fake HTTP/1.1 server on 127.0.0.1: one thread per connection, `Connection: close`.
pub struct Server {
    pub seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

pub fn serve(listener: TcpListener, router: Arc<Router>) -> Server {
    listener.set_nonblocking(true).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let hits: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
    let (seen2, stop2) = (seen.clone(), stop.clone());
    thread::spawn(move || {
        let started = Instant::now();
        while !stop2.load(Ordering::Relaxed) && started.elapsed() < DEADLINE {
            match listener.accept() {
                Ok((stream, _)) => {
                    let (router, seen, hits) = (router.clone(), seen2.clone(), hits.clone());
                    thread::spawn(move || handle(stream, &*router, &seen, &hits));
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    Server { seen, stop }
}

fn handle(
    mut stream: TcpStream,
    router: &Router,
    seen: &Mutex<Vec<Seen>>,
    hits: &Mutex<BTreeMap<String, usize>>,
) {
    stream.set_nonblocking(false).ok();
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let Some((path, authorization)) = super::http_head::read_request_head(&mut stream) else {
        return;
    };
    seen.lock().unwrap().push(Seen {
        path: path.clone(),
        authorization,
    });
    let n = {
        let mut h = hits.lock().unwrap();
        let e = h.entry(path.clone()).or_insert(0);
        *e += 1;
        *e
    };
    let (status, ctype, body) = match router(&path, n) {
        Answer::Json(s, b) => (s, "application/json", b),
        Answer::Text(s, b) => (s, "text/plain", b),
        Answer::Empty(s) => (s, "text/plain", String::new()),
        Answer::Slow(b) => {
            thread::sleep(SLOW);
            (200, "application/json", b)
        }
    };
    let reason = match status {
        200 => "OK",
        204 => "No Content",
        401 => "Unauthorized",
        404 => "Not Found",
        503 => "Service Unavailable",
        _ => "Other",
    };
    let resp = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(resp.as_bytes()).ok();
    stream.flush().ok();
}
