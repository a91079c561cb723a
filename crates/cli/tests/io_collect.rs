//! `lbplan collect`'s output written whole or not at all, against a fake admin API on 127.0.0.1
//! that fails every request with an error text holding terminal sequences:
//! * `--format zip` no longer overwrites an existing file unless `--force`;
//! * `-o DIR` is never followed when it is a symlink, whether it was there before the run or
//!   appeared while the requests ran (the server plants it on the first request);
//! * the server's error text is escaped in the progress lines.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// What Pulsar answers on errors, `{"reason": …}`, here with a screen clear and a colour.
const HOSTILE_REASON: &str = "\u{1b}[2J\u{1b}[31mbroker on fire";

/// A fake admin API answering 500 to everything; `on_first` runs when the first request arrives.
struct Server {
    url: String,
    requests: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(on_first: impl Fn() + Send + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (n, halt) = (requests.clone(), stop.clone());
    thread::spawn(move || {
        let started = Instant::now();
        while !halt.load(Ordering::Relaxed) && started.elapsed() < Duration::from_secs(90) {
            let Ok((mut stream, _)) = listener.accept() else {
                thread::sleep(Duration::from_millis(5));
                continue;
            };
            stream.set_nonblocking(false).ok();
            stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
            let mut head = Vec::new();
            let mut chunk = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => head.extend_from_slice(&chunk[..k]),
                }
            }
            if n.fetch_add(1, Ordering::SeqCst) == 0 {
                on_first();
            }
            let body = serde_json::json!({ "reason": HOSTILE_REASON }).to_string();
            let resp = format!(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(resp.as_bytes()).ok();
        }
    });
    Server {
        url,
        requests,
        stop,
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-io-collect-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `lbplan collect` against `server` with one attempt per request; a watchdog (not a timing
/// assertion) kills a run that hangs.
fn collect(server: &Server, extra: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["collect", "--admin-url", &server.url, "--attempts", "1"])
        .args(["--timeout", "5"])
        .args(extra)
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            panic!("lbplan collect still running after 60 s");
        }
        thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_zip_output_is_not_overwritten_without_force() {
    let server = serve(|| {});
    let dir = temp_dir("zip");
    let out = dir.join("snapshot.zip");
    std::fs::write(&out, "an earlier collection").unwrap();
    let o = out.to_str().unwrap();
    let ran = collect(&server, &["--format", "zip", "-o", o]);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{o}: already exists (give --force to replace it)")),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"an earlier collection");
    assert_eq!(
        server.requests.load(Ordering::SeqCst),
        0,
        "refused before any request"
    );

    // With --force the archive replaces it (the run still fails: no request succeeded).
    let ran = collect(&server, &["--format", "zip", "-o", o, "--force"]);
    assert_eq!(
        ran.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    assert!(zip.by_name("collect-report.json").is_ok());
    assert_eq!(entries(&dir), ["snapshot.zip"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_output_directory_that_is_a_symlink_is_never_followed() {
    // Planted before the run: refused before any request.
    let server = serve(|| {});
    let dir = temp_dir("link-before");
    let victim = dir.join("victim");
    std::fs::create_dir(&victim).unwrap();
    let out = dir.join("out");
    std::os::unix::fs::symlink(&victim, &out).unwrap();
    let ran = collect(&server, &["-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    assert!(entries(&victim).is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_symlink_planted_during_the_run_is_not_followed() {
    let dir = temp_dir("link-during");
    let victim = dir.join("victim");
    std::fs::create_dir(&victim).unwrap();
    let out = dir.join("out");
    let (v, o) = (victim.clone(), out.clone());
    // The output does not exist when collect checks it; the link appears with the first request.
    let server = serve(move || std::os::unix::fs::symlink(&v, &o).unwrap());
    let ran = collect(&server, &["-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: is a symbolic link (it appeared during the run; nothing was written)",
            out.display()
        )),
        "{stderr}"
    );
    assert!(entries(&victim).is_empty(), "{:?}", entries(&victim));
    // Nothing but the planted link and its target is left behind.
    assert_eq!(entries(&dir), ["out", "victim"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_servers_error_text_is_escaped_in_progress_lines() {
    let server = serve(|| {});
    let dir = temp_dir("escape");
    let out = dir.join("out");
    let ran = collect(&server, &["-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "raw ESC in:\n{stderr:?}");
    assert!(
        stderr.contains("HTTP 500: \\x1b[2J\\x1b[31mbroker on fire"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
