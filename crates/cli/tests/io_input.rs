//! The CLI's part of reading inputs: only regular files are read from a path, and `-` is standard
//! input. `lbplan import /dev/zero` used to read until memory ran out and `lbplan import FIFO` waited
//! forever for a writer; both are now refused at once (exit 2, naming the file and what it is), and a
//! stream is read through `-` under the same per-file cap.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn demo_snapshot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json")
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-io-input-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Waits for the child, draining its output meanwhile; a watchdog (not a timing assertion) kills
/// one that hangs, so that the old behaviour fails the test instead of blocking the suite.
fn finish(mut child: Child, what: &str) -> Output {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                p.read_to_end(&mut bytes).ok();
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            panic!("{what}: still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn run(args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, &format!("{args:?}"))
}

fn refused(args: &[&str], says: &str) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(says), "{args:?}: {stderr}");
}

#[test]
fn a_device_named_as_an_input_is_refused_unread() {
    let msg = "/dev/zero: is a character device, not a regular file (to read a stream, pipe it to \
               standard input and name it `-`)";
    refused(&["import", "/dev/zero"], msg);
    refused(&["plan", "/dev/zero"], msg);
    refused(
        &[
            "hash",
            "--namespace",
            "a/b",
            "--boundaries",
            "/dev/zero",
            "a/b/t",
        ],
        msg,
    );
    refused(
        &["size", "--namespace", "a/b", "--topics", "/dev/zero"],
        msg,
    );
}

#[test]
fn a_fifo_without_a_writer_is_refused_instead_of_waited_on() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let f = fifo.to_str().unwrap();
    let msg = format!("{f}: is a FIFO, not a regular file");
    refused(&["import", f], &msg);
    refused(&["plan", f], &msg);
    refused(&["replay", f], &msg);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dash_reads_standard_input() {
    let snap = demo_snapshot();
    let from_file = run(&["import", "-q", snap.to_str().unwrap()]);
    assert_eq!(from_file.status.code(), Some(0));
    for args in [
        &["import", "-q", "-"][..],
        &["plan", "-", "--format", "json"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&std::fs::read(&snap).unwrap()).unwrap();
        drop(stdin);
        let out = finish(child, &format!("{args:?}"));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if args[0] == "import" {
            assert_eq!(
                out.stdout, from_file.stdout,
                "same snapshot as from the file"
            );
        } else {
            assert_eq!(
                doc["format_version"], 6,
                "the plan document's format (version 6: the release used and why)"
            );
        }
    }
    refused(&["import", "-", "-"], "`-` (standard input) is named twice");
}
