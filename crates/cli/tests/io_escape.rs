//! Control characters from the inputs (broker ids, archive member names, file
//! names, configuration names) reach neither the terminal raw nor as forged lines. A broker id
//! `broker-03\e[31m\nwarning: forged.demo.svc:8080` used to colour the plan's broker table and put a
//! fake `warning:` line in it; it now shows as `broker-03\x1b[31m\nwarning: forged.demo.svc:8080`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EVIL_ID: &str = "broker-03\u{1b}[31m\nwarning: forged.demo.svc:8080";
const SHOWN_ID: &str = "broker-03\\x1b[31m\\nwarning: forged.demo.svc:8080";

fn demo_snapshot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json")
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-io-escape-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

/// Neither ESC nor any other control character but the line breaks; no line starts with the
/// forged text.
fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{what}: raw control character in:\n{text:?}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("warning: forged")),
        "{what}: forged line in:\n{text}"
    );
}

/// The demo snapshot with one broker renamed to an id holding an SGR sequence and a newline.
fn evil_snapshot(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(demo_snapshot()).unwrap();
    let json_id = serde_json::to_string(EVIL_ID).unwrap();
    let renamed = text.replace("\"broker-03.demo.svc:8080\"", &json_id);
    assert_ne!(renamed, text);
    let p = dir.join("evil.json");
    std::fs::write(&p, renamed).unwrap();
    p
}

#[test]
fn the_text_plan_escapes_a_broker_id() {
    let dir = temp_dir("plan");
    let snap = evil_snapshot(&dir);
    let out = lbplan(&["plan", snap.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("plan stdout", &out.stdout);
    assert_clean("plan stderr", &out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with(SHOWN_ID))
        .unwrap_or_else(|| panic!("no row for the broker in:\n{text}"));
    // The row is whole: as many columns as another broker's row.
    let other = text
        .lines()
        .find(|l| l.starts_with("broker-00.demo.svc "))
        .unwrap_or_else(|| panic!("no row for broker-00 in:\n{text}"));
    assert_eq!(
        row.split_whitespace().count(),
        other.split_whitespace().count() + 1, // the id's own space: `warning: forged…`
        "{row}"
    );
    // JSON output keeps the id as it is (serde escapes it).
    let out = lbplan(&["plan", snap.to_str().unwrap(), "--format", "json"]);
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        plan["brokers_after"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["broker"] == EVIL_ID)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_warning_naming_an_archive_member_is_one_escaped_line() {
    let dir = temp_dir("zip");
    let input = dir.join("dump.zip");
    let mut zip = zip::ZipWriter::new(File::create(&input).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    zip.start_file("snapshot.json", opts).unwrap();
    zip.write_all(&std::fs::read(demo_snapshot()).unwrap())
        .unwrap();
    zip.start_file("junk/\u{1b}[2Jx\nwarning: forged.json", opts)
        .unwrap();
    zip.write_all(b"{\"a\": 1}").unwrap();
    zip.finish().unwrap();
    let out = lbplan(&["import", input.to_str().unwrap(), "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(0));
    assert_clean("import stderr", &out.stderr);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().any(|l| l
            == format!(
                "warning: {}!/junk/\\x1b[2Jx\\nwarning: forged.json: not a recognised export; skipped",
                input.display()
            )),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_error_naming_a_file_is_escaped() {
    let out = lbplan(&["import", "/nonexistent/\u{1b}]0;owned\u{7}x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_clean("stderr", &out.stderr);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: /nonexistent/\\x1b]0;owned\\x07x.json: No such file or directory (os error 2)\n"
    );
}

#[test]
fn hash_and_simulate_tables_escape_names_from_the_command_line() {
    let out = lbplan(&[
        "hash",
        "--namespace",
        "a/b",
        "--bundles",
        "4",
        "a/b/t\u{1b}[31mX",
    ]);
    assert_clean("hash stdout", &out.stdout);
    assert_clean("hash stderr", &out.stderr);
    let out = lbplan(&[
        "simulate",
        "builtin:demo",
        "--cycles",
        "2",
        "--no-progress",
        "--compare",
        "name=x\u{1b}[31mY",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean("simulate stdout", &out.stdout);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.starts_with("x\\x1b[31mY ")),
        "{text}"
    );
}
