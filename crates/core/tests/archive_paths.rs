//! One reader of zips for the importer and the history: a hostile zip (names that climb out with
//! `..` or are absolute, a member inflating past the cap) is read the same way by both — the same
//! members refused with the same warning, the same member refused for its size.

mod zip_support;

use zip_support::zip_of;

use lbplan_core::history::store::{ReadError, SeriesSource, ZipSource};
use lbplan_core::history::{ExplainOptions, explain_uploaded};
use lbplan_core::import::{ImportError, ImportInput, ImportOptions, WarningKind, import_with};

fn demo() -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json"),
    )
    .unwrap()
}

/// What both readers say about `../evil.json` and `/etc/evil.json`: written here from the rule
/// (two refused, the first named as the zip lists it), not from either reader's output.
const REFUSED: &str = "2 entries refused: a name that is absolute or has a `..` component is not \
                       read (first: \"../evil.json\")";

#[test]
fn a_zip_slip_is_refused_alike_by_the_import_and_the_history() {
    let demo = demo();
    let evil = br#"{"format_version": 1}"#;
    let bytes = zip_of(&[
        ("../evil.json", evil),
        ("snap.json", &demo),
        ("/etc/evil.json", evil),
    ]);
    let imported = import_with(
        &[ImportInput::given("h.zip", bytes.as_slice())],
        &ImportOptions::default(),
    )
    .unwrap();
    let warned: Vec<&str> = imported
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::IgnoredFile && w.file == "h.zip")
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(warned, [REFUSED]);
    assert_eq!(imported.snapshot.cluster.as_deref(), Some("demo"));

    let source = ZipSource::open("h.zip", &bytes, 100).unwrap();
    assert_eq!(source.paths(), ["snap.json"]);
    assert_eq!(source.warnings(), [format!("h.zip: {REFUSED}")]);
    let report = explain_uploaded(
        vec![("h.zip".to_string(), bytes)],
        &ExplainOptions::default(),
        &mut |_, _, _| {},
    )
    .unwrap();
    assert_eq!(report.warnings.first(), Some(&format!("h.zip: {REFUSED}")));
}

/// A member of 16 KiB of spaces (a few dozen bytes deflated) against a cap of 4 KiB: refused by
/// both, from the same reader, without inflating past the cap.
#[test]
fn a_member_over_the_cap_is_refused_alike_by_the_import_and_the_history() {
    let spaces = vec![b' '; 16 << 10];
    let bytes = zip_of(&[("big.json", &spaces)]);
    let err = import_with(
        &[ImportInput::given("h.zip", bytes.as_slice())],
        &ImportOptions {
            max_file_bytes: 4096,
            ..ImportOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, ImportError::File { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "h.zip: archive member big.json is larger than the cap of 4096 bytes per file"
    );
    let mut source = ZipSource::open("h.zip", &bytes, 100).unwrap();
    assert_eq!(source.read("big.json", 4096), Err(ReadError::TooLarge));
    assert_eq!(
        source.read("big.json", 16 << 10).map(|b| b.len()),
        Ok(16 << 10)
    );
}
