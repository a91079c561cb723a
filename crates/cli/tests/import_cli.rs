//! `lbplan import` end to end: a metadata-store directory imports (exit 0, warnings on stderr), the
//! written snapshot re-imports to the same bytes, and bad input exits 2 naming file, path and
//! expectation.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/import_corpus")
}

fn lbplan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

#[test]
fn imports_a_directory_and_round_trips() {
    let dir = corpus().join("metadata-store");
    let out_dir = std::env::temp_dir().join(format!("lbplan-import-cli-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let first = out_dir.join("snapshot.json");
    let o = lbplan(&[
        "import",
        dir.to_str().unwrap(),
        "-o",
        first.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning: "), "{stderr}");
    let snapshot: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&first).unwrap()).unwrap();
    assert_eq!(snapshot["format_version"], 1);
    assert_eq!(snapshot["cluster"], "pulsar-prod");
    assert_eq!(
        snapshot["brokers"]["10.0.0.2:8080"]["local_broker_data"]["cpu"]["usage"],
        400.0
    );

    let o = lbplan(&["import", first.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.stdout, std::fs::read(&first).unwrap());
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn bad_input_exits_2_with_file_path_and_expectation() {
    let bad = corpus().join("malformed/wrong-type.json");
    let o = lbplan(&["import", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(
            "wrong-type.json: $.cpu.limit: expected a number, found the string \"eight hundred\""
        ),
        "{stderr}"
    );
    let o = lbplan(&[
        "import",
        corpus().join("malformed/not-utf8.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = lbplan(&["import", "/nonexistent/lbplan-input.json"]);
    assert_eq!(o.status.code(), Some(2));
    let o = lbplan(&["import"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `pulsar-admin brokers list` output alone gives no broker: exit 2 (not 0 with an
/// empty snapshot), saying what was found and which export supplies brokers.
#[test]
fn an_import_without_brokers_exits_2() {
    let list = corpus().join("real/operator-dir/raw/brokers-list.txt");
    let o = lbplan(&["import", list.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("no broker in the input (found 2 broker(s) listed without a load report)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("pulsar-admin broker-stats load-report"),
        "{stderr}"
    );
}

/// Warnings are printed grouped: the actionable kinds (exports not used) before the informational
/// ones (a capture time taken from the reports).
#[test]
fn warnings_print_grouped_actionable_first() {
    let dir = corpus().join("real/operator-dir");
    let o = lbplan(&["import", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let not_used = stderr.find("warning: exports not used (2):").unwrap();
    let captured = stderr.find("captured_at_ms taken").unwrap();
    assert!(not_used < captured, "{stderr}");
}
