//! Bounded memory on hostile input: the cap on JSON values per file refuses a
//! small file that would parse into a huge tree, in every reader (generic walk, typed fast path,
//! archive members), and one budget of decompressed bytes covers every archive of an import.

mod zip_support;

use std::io::Write;
use zip_support::zip_of;

use lbplan_core::import::{
    DEFAULT_MAX_JSON_VALUES, ImportError, ImportInput, ImportOptions, import, import_with,
};

fn capped(max_json_values: u64) -> ImportOptions {
    ImportOptions {
        max_json_values,
        ..ImportOptions::default()
    }
}

/// `[0,0,…]` with `n` zeros.
fn zeros(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 * n + 1);
    out.push(b'[');
    for i in 0..n {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'0');
    }
    out.push(b']');
    out
}

fn gzip_of(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn over_cap(cap: u64) -> String {
    format!(
        "more than {cap} JSON values in one file (the cap on JSON values per file); refused before \
         parsing"
    )
}

#[test]
fn the_default_cap_is_eight_million_values() {
    assert_eq!(ImportOptions::default().max_json_values, 8_000_000);
    assert_eq!(DEFAULT_MAX_JSON_VALUES, 8_000_000);
}

#[test]
fn a_top_level_array_over_the_cap_is_refused_at_its_first_value_past_it() {
    let e = import_with(
        &[ImportInput::given("zeros.json", zeros(1001))],
        &capped(1000),
    )
    .unwrap_err();
    // The array itself is value 1, so `$[999]` is value 1001.
    assert_eq!(
        e.to_string(),
        format!("zeros.json: $[999]: {}", over_cap(1000))
    );
    // One value under the cap, the same file is only unrecognised content.
    let e = import_with(
        &[ImportInput::given("zeros.json", zeros(999))],
        &capped(1000),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("zeros.json: unrecognised content"),
        "{e}"
    );
}

#[test]
fn every_reader_is_behind_the_cap() {
    let array = String::from_utf8(zeros(2000)).unwrap();
    let cases = [
        // The fast path's snapshot reader keeps `failure_domains` as a `Value`.
        (
            "snapshot.json",
            format!(r#"{{"format_version":1,"failure_domains":{array}}}"#),
            "$.failure_domains[997]",
        ),
        // The fast path's load-report reader keeps `bundles` as a list.
        (
            "loadbalance/brokers/b:8080",
            format!(r#"{{"cpu":{{"usage":1,"limit":2}},"bundles":{array}}}"#),
            "$.bundles[995]",
        ),
        // The generic walk (isolation policies have no fast path).
        (
            "admin/clusters/c/namespaceIsolationPolicies",
            format!(r#"{{"p":{{"namespaces":{array}}}}}"#),
            "$.p.namespaces[997]",
        ),
    ];
    for (name, text, at) in cases {
        let e =
            import_with(&[ImportInput::given(name, text.as_bytes())], &capped(1000)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{name}: {at}: {}", over_cap(1000)),
            "{name}"
        );
    }
}

#[test]
fn an_archive_member_over_the_cap_is_refused_naming_the_member() {
    let member = zeros(5000);
    let bomb = zip_of(&[("dump/huge.json", &member)]);
    let e = import_with(&[ImportInput::given("bomb.zip", bomb)], &capped(1000)).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("bomb.zip!/dump/huge.json: $[999]: {}", over_cap(1000))
    );
    let e = import_with(
        &[ImportInput::given("huge.json.gz", gzip_of(&member))],
        &capped(1000),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("huge.json.gz!/huge.json: $[999]: {}", over_cap(1000))
    );
}

#[test]
fn the_corpus_snapshot_and_reports_import_under_the_default_cap() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import_corpus/reports");
    for f in ["LocalBrokerDataTest.json", "issue-15313.json"] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        import(&[ImportInput::given(f, bytes)]).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    let demo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    let bytes = std::fs::read(demo).unwrap();
    let imported = import(&[ImportInput::given("demo-snapshot.json", bytes)]).unwrap();
    assert_eq!(imported.snapshot.brokers.len(), 12);
}

/// Regression: a single gzip-compressed file's inflated bytes were checked against the per-file cap
/// only, so any number of `.gz` inputs could each inflate to it.
#[test]
fn gzip_files_share_the_import_budget() {
    let topics: String = (0..40_000)
        .map(|i| format!("persistent://public/default/t-{i:06}\n"))
        .collect();
    let gz = gzip_of(topics.as_bytes());
    let opts = ImportOptions {
        max_total_bytes: (topics.len() as u64) * 3 / 2,
        ..ImportOptions::default()
    };
    // An import needs a broker: one load report, well under the budget.
    let report = br#"{"loadReportType":"LocalBrokerData","cpu":{"usage":1.0,"limit":100.0}}"#;
    let one = import_with(
        &[
            ImportInput::given("b1:8080.json", report.as_slice()),
            ImportInput::given("a.txt.gz", gz.as_slice()),
        ],
        &opts,
    )
    .unwrap();
    assert_eq!(one.snapshot.namespaces.len(), 1);
    let e = import_with(
        &[
            ImportInput::given("a.txt.gz", gz.as_slice()),
            ImportInput::given("b.txt.gz", gz.as_slice()),
        ],
        &opts,
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::Limit(_)), "{e}");
    assert!(
        e.to_string().starts_with(
            "b.txt.gz: archive member (the decompressed file) decompresses to more than"
        ),
        "{e}"
    );
}

/// All members of all archives of one import draw on one budget.
#[test]
fn zip_members_across_archives_share_the_import_budget() {
    let member = vec![b' '; 600_000];
    let a = zip_of(&[("a/1.txt", &member)]);
    let b = zip_of(&[("b/1.txt", &member)]);
    let opts = ImportOptions {
        max_total_bytes: 1_000_000,
        ..ImportOptions::default()
    };
    let e = import_with(
        &[
            ImportInput::given("a.zip", a),
            ImportInput::given("b.zip", b),
        ],
        &opts,
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::Limit(_)), "{e}");
    // Refused from b.zip's directory (600,000 bytes declared, less than 400,000 left: the
    // archives' own bytes count too), before inflating.
    assert!(
        e.to_string().starts_with(
            "b.zip: its members decompress to 600000 bytes (as its directory states), more than \
             the "
        ),
        "{e}"
    );
}
