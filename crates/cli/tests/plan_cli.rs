//! `lbplan plan` on the demo snapshot: golden output in every format (regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p lbplan --test plan_cli` and review the diff), byte-identical JSON for
//! the same inputs, and exit 2 with a message for bad arguments.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lbplan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

fn check_golden(name: &str, args: &[&str]) {
    let out = lbplan(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out.stdout).unwrap();
        return;
    }
    let want = std::fs::read(&golden).unwrap_or_default();
    assert!(
        out.stdout == want,
        "{name} differs from the golden file; if the change is intended, run UPDATE_GOLDEN=1 and review:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

const DEMO: &str = "static/demo-snapshot.json";

#[test]
fn demo_plan_text() {
    check_golden("demo-plan.txt", &["plan", DEMO]);
}

#[test]
fn demo_plan_json() {
    check_golden("demo-plan.json", &["plan", DEMO, "--format", "json"]);
}

#[test]
fn demo_plan_pulsar_admin_script() {
    check_golden(
        "demo-plan.pulsar-admin.sh",
        &["plan", DEMO, "--format", "pulsar-admin", "--pause-shedding"],
    );
}

#[test]
fn demo_plan_curl_script() {
    check_golden("demo-plan.curl.sh", &["plan", DEMO, "--format", "curl"]);
}

#[test]
fn same_inputs_give_byte_identical_json() {
    let args = [
        "plan",
        DEMO,
        "--format",
        "json",
        "--seed",
        "7",
        "--op",
        "remove-broker=broker-04.demo.svc:8080",
    ];
    let (a, b) = (lbplan(&args), lbplan(&args));
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let plan: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(plan["format_version"], 1);
    assert!(
        plan["snapshot_fingerprint"]
            .as_str()
            .unwrap()
            .starts_with("fnv1a64:")
    );
    // The removed broker's 25 bundles are all placed elsewhere.
    let moved = plan["unloads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["origin"] == "remove-broker")
        .count();
    assert_eq!(moved, 25);
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        vec!["plan", DEMO, "--profile", "9.9"],
        vec!["plan", DEMO, "--set", "noequals"],
        vec!["plan", DEMO, "--op", "explode=now"],
        vec![
            "plan",
            DEMO,
            "--op",
            "unload-bundle=nope/ns/0x00000000_0x10000000",
        ],
        vec!["plan", "no-such-file.json"],
    ] {
        let out = lbplan(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn exported_scripts_are_valid_bash() {
    for format in ["pulsar-admin", "curl"] {
        let out = lbplan(&["plan", DEMO, "--format", format, "--pause-shedding"]);
        assert!(out.status.success());
        let path = std::env::temp_dir().join(format!("lbplan-{format}-{}.sh", std::process::id()));
        std::fs::write(&path, &out.stdout).unwrap();
        let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(
            check.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}
