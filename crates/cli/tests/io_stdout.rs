//! Writing to standard output or stderr never panics. `lbplan import x | head -c
//! 10` used to exit 101 with "failed printing to stdout: Broken pipe"; `lbplan plan x > /dev/full`
//! the same with "No space left on device". Now a closed pipe ends the command quietly (exit 0) and a
//! full disk is an error message with exit 1.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn demo_snapshot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json")
}

fn dev_full() -> File {
    File::options().write(true).open("/dev/full").unwrap()
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    let snap = demo_snapshot();
    // The snapshot (150 KB) is more than a pipe holds, so the writer is still writing when the
    // reader closes its end: the write fails with EPIPE whatever the timing.
    let mut child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["import", "-q", snap.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"{\n  \"forma");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn a_full_standard_output_is_an_error_with_exit_1() {
    let snap = demo_snapshot();
    let s = snap.to_str().unwrap();
    let commands: [&[&str]; 6] = [
        &["plan", s],
        &["import", "-q", s],
        &["hash", "--namespace", "a/b", "--bundles", "4", "a/b/t"],
        &["size", "--namespace", "a/b", "--topic-count", "10"],
        &["config"],
        &["generate", "--spec", "demo"],
    ];
    for args in commands {
        let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
            .args(args)
            .stdout(dev_full())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr, "error: standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

#[test]
fn help_on_a_full_disk_is_an_error_and_on_a_closed_pipe_is_not() {
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["plan", "--help"])
        .stdout(dev_full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: standard output: No space left on device (os error 28)\n"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["plan", "--help"])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // A usage error is still clap's: exit 2 on stderr.
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["plan", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-such-flag"));
}

#[test]
fn a_full_stderr_does_not_stop_the_command() {
    // The zip holds a member the importer skips with a warning; the warning cannot be written.
    let dir = std::env::temp_dir().join(format!("lbplan-io-stderr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("with-junk.zip");
    {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(File::create(&input).unwrap());
        let opts = zip::write::SimpleFileOptions::default();
        zip.start_file("snapshot.json", opts).unwrap();
        zip.write_all(&std::fs::read(demo_snapshot()).unwrap())
            .unwrap();
        zip.start_file("junk/notes.json", opts).unwrap();
        zip.write_all(b"{\"a\": 1}").unwrap();
        zip.finish().unwrap();
    }
    let target = dir.join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args([
            "import",
            input.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ])
        .stderr(dev_full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&target).unwrap()).unwrap();
    assert_eq!(written["cluster"], "demo");
    std::fs::remove_dir_all(&dir).ok();
}
