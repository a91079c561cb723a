//! `lbplan size` says what it reports: a header line before the table.

use std::path::Path;
use std::process::Command;

#[test]
fn size_text_says_what_the_table_reports() {
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args([
            "size",
            "--namespace",
            "acme/orders",
            "--topic-count",
            "100",
            "--brokers",
            "3",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "acme/orders: 100 topics over 3 brokers");
    assert!(
        lines[1].starts_with("How the topics would spread for each bundle count"),
        "{text}"
    );
    assert!(lines[2].starts_with("bundles  empty"), "{text}");
}
