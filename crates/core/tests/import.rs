//! Import of Pulsar exports: the real load report of reference §2.3, a corpus of malformed inputs
//! (one per rule, each with its exact error), a metadata-store tree as a directory, .zip and
//! .tar.gz, size caps and archive bombs, the snapshot round trip, the JSON Schema against the model,
//! and no panic on arbitrary bytes.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use lbplan_core::import::store_files::store_files;
use lbplan_core::import::{
    ImportError, ImportInput, ImportOptions, Imported, Origin, WarningKind, import, import_with,
};
use lbplan_core::model::{
    BrokerLoadData, BundleData, NamespaceBundleStats, ResourceUsage, Snapshot,
    TimeAverageBrokerData, TopBundle, TopBundlesLoadData,
};
use proptest::prelude::*;
use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import_corpus")
}

/// Files under `dir`, sorted, named relative to the corpus root.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        children.sort();
        for c in children {
            if c.is_dir() {
                walk(root, &c, out);
            } else {
                let name = c
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((name, std::fs::read(&c).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&corpus(), dir, &mut out);
    out
}

fn inputs(files: &[(String, Vec<u8>)], origin: Origin) -> Vec<ImportInput<'_>> {
    files
        .iter()
        .map(|(n, b)| ImportInput {
            name: Cow::Borrowed(n.as_str()),
            bytes: Cow::Borrowed(b.as_slice()),
            origin,
            display: None,
        })
        .collect()
}

fn import_tree(dir: &str) -> Imported {
    let files = tree(&corpus().join(dir));
    import(&inputs(&files, Origin::Tree)).unwrap_or_else(|e| panic!("{dir}: {e}"))
}

fn has_warning(imp: &Imported, kind: WarningKind, needle: &str) -> bool {
    imp.warnings
        .iter()
        .any(|w| w.kind == kind && w.to_string().contains(needle))
}

// ---------------------------------------------------------------------------------------------
// The real report (§2.3, LocalBrokerDataTest)

#[test]
fn real_load_report_from_pulsar_test_imports() {
    let bytes = std::fs::read(corpus().join("reports/LocalBrokerDataTest.json")).unwrap();
    let imp = import(&[ImportInput::given(
        "loadbalance/brokers/10.244.2.23:8080",
        &bytes[..],
    )])
    .unwrap();
    let s = &imp.snapshot;
    let b = &s.brokers["10.244.2.23:8080"].local_broker_data;
    // The assertions of LocalBrokerDataTest#testLocalBrokerDataDeserialization.
    assert_eq!(b.memory.limit, 1228.0);
    assert_eq!(b.memory.usage, 614.0);
    assert_eq!(
        b.memory.percent_usage(),
        (614.0f32 / 1228.0f32 * 100.0) as f64
    );
    assert_eq!(b.cpu, ResourceUsage::new(3.1577712104798255, 100.0));
    assert!(b.persistent_topics_enabled);
    assert!(!b.non_persistent_topics_enabled);
    assert_eq!(
        b.web_service_url.as_deref(),
        Some("http://10.244.2.23:8080")
    );
    assert_eq!(b.pulsar_service_url, None);
    assert_eq!(
        b.pulsar_service_url_tls.as_deref(),
        Some("pulsar+ssl://10.244.2.23:6651")
    );
    assert_eq!(b.last_update, 1650886425227);
    assert_eq!(b.num_topics, 1);
    assert_eq!(b.num_bundles, 1);
    assert_eq!(
        b.broker_version_string.as_deref(),
        Some("2.11.0-hw-0.0.4-SNAPSHOT")
    );
    let bundle = "pulsar/pulsar/10.244.2.23:8080/0x00000000_0xffffffff";
    assert_eq!(b.bundles, vec![bundle.to_string()]);
    assert_eq!(b.last_stats[bundle].topics, 1);
    // The heartbeat namespace's single bundle tiles the range: layout inferred.
    let ns = &s.namespaces["pulsar/pulsar/10.244.2.23:8080"];
    assert_eq!(ns.bundles.boundaries, vec!["0x00000000", "0xffffffff"]);
    assert_eq!(ns.bundles.num_bundles, 1);
    // No BundleData exported: Pulsar's defaults (§2.5), and the time average recomputed from them.
    assert_eq!(s.bundle_data[bundle], BundleData::pulsar_default());
    let t = s.brokers["10.244.2.23:8080"]
        .time_average_broker_data
        .unwrap();
    assert_eq!(t.short_term_msg_throughput_in, 50000.0);
    assert_eq!(t.long_term_msg_rate_out, 50.0);
    assert_eq!(s.captured_at_ms, Some(1650886425227));
    assert!(has_warning(&imp, WarningKind::DefaultBundleData, bundle));
    assert!(has_warning(
        &imp,
        WarningKind::InferredLayout,
        "pulsar/pulsar/10.244.2.23:8080"
    ));
    assert!(has_warning(
        &imp,
        WarningKind::RecomputedTimeAverage,
        "10.244.2.23:8080"
    ));
    assert!(has_warning(
        &imp,
        WarningKind::UnsampledResource,
        "$.bandwidthIn.limit"
    ));
    // `bundleStats`, `protocols`, `advertisedListeners`, `maxResourceUsage`: known, no warning.
    assert!(
        !imp.warnings
            .iter()
            .any(|w| w.kind == WarningKind::UnknownField),
        "{:?}",
        imp.warnings
    );
}

#[test]
fn report_quoted_in_reference_imports_and_is_named_from_its_file() {
    let bytes = std::fs::read(corpus().join("reports/issue-15313.json")).unwrap();
    let imp = import(&[ImportInput::given("reports/issue-15313.json", &bytes[..])]).unwrap();
    let b = &imp.snapshot.brokers["issue-15313"].local_broker_data;
    assert_eq!(b.memory, ResourceUsage::new(609.6469955444336, 1228.0));
    assert!(has_warning(
        &imp,
        WarningKind::BrokerNamedFromFile,
        "10.244.2.23:8080"
    ));
}

// ---------------------------------------------------------------------------------------------
// Malformed corpus: one input (file or directory) per rule, each with its full error message.

const CASES: &[(&str, &str)] = &[
    (
        "truncated.json",
        "malformed/truncated.json: line 1, column 105: unexpected end of file: expected more JSON (the file looks truncated)",
    ),
    (
        "not-utf8.json",
        "malformed/not-utf8.json: not UTF-8 text (invalid byte at offset 14): expected a JSON or text export",
    ),
    (
        "wrong-type.json",
        "malformed/wrong-type.json: $.cpu.limit: expected a number, found the string \"eight hundred\"",
    ),
    (
        "negative-rate.json",
        "malformed/negative-rate.json: $.msgRateIn: expected a non-negative number, found -5",
    ),
    (
        "nan-token.json",
        "malformed/nan-token.json: line 1, column 49: expected a JSON value: NaN and infinite numbers are not allowed",
    ),
    (
        "nan-string.json",
        "malformed/nan-string.json: $.lastStats[\"public/default/0x00000000_0x40000000\"].msgRateOut: expected a finite number, found NaN (NaN and infinite values are not allowed)",
    ),
    (
        "infinite.json",
        "malformed/infinite.json: line 1, column 59: expected a finite number: this one is out of range (infinite values are not allowed)",
    ),
    (
        "bad-bundle-name.json",
        "malformed/bad-bundle-name.json: $.bundles[0]: expected a bundle name tenant/namespace/0xXXXXXXXX_0xXXXXXXXX (lower bound below upper), found \"public/default/bundle-1\"",
    ),
    (
        "boundaries-overlap",
        "malformed/boundaries-overlap/public/default/bundles.json: $.boundaries[2]: expected boundaries in increasing order: 0x40000000 is not above 0x80000000 (bundle ranges would overlap or be empty)",
    ),
    (
        "boundaries-hole",
        "malformed/boundaries-hole/public/default/bundles.json: $.boundaries[1]: expected the last boundary to be 0xffffffff, found 0x80000000 (the bundles would leave a hole at the end of the hash range)",
    ),
    (
        "num-bundles-mismatch",
        "malformed/num-bundles-mismatch/public/default/bundles.json: $.numBundles: expected numBundles = number of boundaries - 1 = 2, found 4",
    ),
    (
        "ranges-overlap",
        "malformed/ranges-overlap/loadbalance/brokers/b2:8080: $.lastStats[\"public/default/0x40000000_0xffffffff\"]: bundle public/default/0x40000000_0xffffffff overlaps bundle public/default/0x00000000_0x80000000 (conflicts with malformed/ranges-overlap/loadbalance/brokers/b1:8080: $.lastStats[\"public/default/0x00000000_0x80000000\"])",
    ),
    (
        "not-in-layout",
        "malformed/not-in-layout/loadbalance/brokers/b1:8080: $.lastStats[\"public/default/0x00000000_0x80000000\"]: bundle public/default/0x00000000_0x80000000 is not one of the 4 bundles of public/default (its ranges would overlap or leave holes) (conflicts with malformed/not-in-layout/admin/local-policies/public/default: $.bundles.boundaries)",
    ),
    (
        "owned-twice",
        "malformed/owned-twice/loadbalance/brokers/b2:8080: $.lastStats[\"public/default/0x00000000_0x40000000\"]: bundle public/default/0x00000000_0x40000000 is owned by two brokers, `b2:8080` and `b1:8080` (conflicts with malformed/owned-twice/loadbalance/brokers/b1:8080: $.lastStats[\"public/default/0x00000000_0x40000000\"])",
    ),
    (
        "duplicate-broker",
        "malformed/duplicate-broker/b.json: $: broker `10.0.0.9:8080` is given twice (conflicts with malformed/duplicate-broker/a.json: $)",
    ),
    (
        "max-samples-zero",
        "malformed/max-samples-zero/loadbalance/bundle-data/public/default/0x00000000_0xffffffff: $.shortTermData.maxSamples: expected maxSamples >= 1 (0 divides by zero in Pulsar)",
    ),
    (
        "legacy-load-report.json",
        "malformed/legacy-load-report.json: $.loadReportType: expected \"LocalBrokerData\", found \"LoadReport\" (the legacy SimpleLoadManager LoadReport is not supported)",
    ),
    (
        "bad-conf",
        "malformed/bad-conf/broker.conf: line 3: `loadBalancerBrokerOverloadedThresholdPercentage`: expected an integer, found `eighty`",
    ),
    (
        "conf-no-separator",
        "malformed/conf-no-separator/broker.conf: line 2: expected key=value, found \"loadBalancerEnabled\"",
    ),
    (
        "bad-topic.txt",
        "malformed/bad-topic.txt: line 2: topic `persistent://public/orders` is not a valid Pulsar name: expected persistent://tenant/namespace/topic",
    ),
    (
        "newer-snapshot.json",
        "malformed/newer-snapshot.json: $.format_version: expected format_version 1..=1, found 99 (written by a newer lbplan?)",
    ),
    (
        "empty.json",
        "malformed/empty.json: is empty: expected a LocalBrokerData load report",
    ),
    (
        "unrecognised.json",
        "malformed/unrecognised.json: unrecognised content: expected a LocalBrokerData load report",
    ),
];

#[test]
fn malformed_corpus_gives_clear_errors() {
    let dir = corpus().join("malformed");
    let mut on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut failures = Vec::new();
    for (case, expected) in CASES {
        on_disk.remove(*case);
        let path = dir.join(case);
        let files = if path.is_dir() {
            tree(&path)
        } else {
            vec![(format!("malformed/{case}"), std::fs::read(&path).unwrap())]
        };
        match import(&inputs(&files, Origin::Given)) {
            Ok(_) => failures.push(format!("{case}: imported, expected error: {expected}")),
            Err(e) => {
                let got = e.to_string();
                if !got.starts_with(expected) {
                    failures.push(format!("{case}:\n   got: {got}\n  want: {expected}"));
                }
            }
        }
    }
    println!(
        "import-corpus: {}/{} cases pass",
        CASES.len() - failures.len(),
        CASES.len()
    );
    assert!(
        on_disk.is_empty(),
        "corpus files without an expected error: {on_disk:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_fields_are_ignored_with_a_warning() {
    let bytes = std::fs::read(corpus().join("warnings/unknown-field.json")).unwrap();
    let imp = import(&[ImportInput::given(
        "warnings/unknown-field.json",
        &bytes[..],
    )])
    .unwrap();
    let shown: Vec<String> = imp.warnings.iter().map(ToString::to_string).collect();
    assert!(
        shown.contains(
            &"warnings/unknown-field.json: $: unknown field `fooBar` ignored".to_string()
        ),
        "{shown:?}"
    );
    assert!(
        shown.contains(
            &"warnings/unknown-field.json: $.cpu: unknown field `extra` ignored".to_string()
        ),
        "{shown:?}"
    );
    assert!(imp.snapshot.brokers.contains_key("10.0.0.7:8080"));
}

// ---------------------------------------------------------------------------------------------
// `lbplan collect` output: its report becomes warnings

#[test]
fn collect_report_gaps_become_warnings() {
    let imp = import_tree("collected");
    let gaps: Vec<String> = imp
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::CollectGap)
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        gaps,
        vec![
            "collected/collect-report.json: $.missing[0]: collect could not get load report of \
             `10.0.0.2:8080` (not found: HTTP 404); the broker is absent from the snapshot; to fill \
             it: run pulsar-admin broker-stats load-report on that broker"
                .to_string(),
            "collected/collect-report.json: $.missing[1]: collect could not get bundle data (not \
             exposed by rest api: only in the metadata store); bundles get Pulsar's defaults; to \
             fill it: dump /loadbalance/bundle-data"
                .to_string(),
        ]
    );
    assert_eq!(imp.snapshot.cluster.as_deref(), Some("standalone"));
    assert_eq!(
        imp.snapshot.brokers.keys().collect::<Vec<_>>(),
        vec!["10.0.0.1:8080"]
    );
    // The report is not a snapshot, and alone it is nothing to import.
    let report = std::fs::read(corpus().join("collected/collect-report.json")).unwrap();
    let e = import(&[ImportInput::given("collect-report.json", &report[..])]).unwrap_err();
    assert!(e.to_string().starts_with("nothing to import"), "{e}");
    let bad =
        br#"{"kind": "lbplan-collect-report", "format_version": 1, "missing": [{"what": 1}]}"#;
    let e = import(&[ImportInput::given("collect-report.json", &bad[..])]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "collect-report.json: $.missing[0].what: invalid type: integer `1`, expected a string"
    );
}

// ---------------------------------------------------------------------------------------------
// Caps

fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        w.start_file(name.as_str(), opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn tar_gz_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut b = tar::Builder::new(gz);
    for (name, bytes) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        b.append_data(&mut h, name, &bytes[..]).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

#[test]
fn size_caps_and_archive_bombs_fail_cleanly() {
    let report = std::fs::read(corpus().join("reports/LocalBrokerDataTest.json")).unwrap();
    let small = ImportOptions {
        max_file_bytes: 100,
        ..ImportOptions::default()
    };
    let e = import_with(
        &[ImportInput::given(
            "reports/LocalBrokerDataTest.json",
            &report[..],
        )],
        &small,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "reports/LocalBrokerDataTest.json: is {} bytes, over the cap of 100 bytes per file",
            report.len()
        )
    );

    // 64 MiB of zeros deflates to ~64 KiB: past a 1 MiB per-file cap it must stop reading.
    let bomb = zip_of(&[(
        "loadbalance/brokers/b:8080".to_string(),
        vec![b' '; 64 << 20],
    )]);
    assert!(bomb.len() < 1 << 20);
    let capped = ImportOptions {
        max_file_bytes: 1 << 20,
        max_total_bytes: 4 << 20,
        max_entries: 1000,
        ..ImportOptions::default()
    };
    let e = import_with(&[ImportInput::given("bomb.zip", bomb)], &capped).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bomb.zip: archive member loadbalance/brokers/b:8080 is larger than the cap of 1048576 bytes per file"
    );

    // A gzip stream that inflates past the total cap: eight members, each under the per-file cap.
    let members: Vec<(String, Vec<u8>)> = (0..8)
        .map(|i| (format!("m{i}.txt"), vec![b' '; 1 << 20]))
        .collect();
    let gz_bomb = tar_gz_of(&members);
    let e = import_with(&[ImportInput::given("bomb.tar.gz", gz_bomb)], &capped).unwrap_err();
    assert!(matches!(e, ImportError::Limit(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("bomb.tar.gz: archive member m3.txt decompresses to more than"),
        "{e}"
    );

    // Too many entries.
    let many: Vec<(String, Vec<u8>)> = (0..20)
        .map(|i| (format!("f{i}.txt"), b"x=1\n".to_vec()))
        .collect();
    let few = ImportOptions {
        max_entries: 10,
        ..ImportOptions::default()
    };
    let e = import_with(&[ImportInput::given("many.zip", zip_of(&many))], &few).unwrap_err();
    assert!(matches!(e, ImportError::Limit(_)), "{e}");
    assert!(
        e.to_string().contains("cap on the number of entries"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// Metadata-store tree: directory, .zip, .tar.gz

#[test]
fn metadata_store_directory_imports() {
    let imp = import_tree("metadata-store");
    let s = &imp.snapshot;
    assert_eq!(s.cluster.as_deref(), Some("pulsar-prod"));
    assert_eq!(s.leader_broker.as_deref(), Some("10.0.0.1:8080"));
    assert_eq!(s.captured_at_ms, Some(1750000005000));
    assert_eq!(
        s.brokers.keys().collect::<Vec<_>>(),
        ["10.0.0.1:8080", "10.0.0.2:8080"]
    );
    let b1 = &s.brokers["10.0.0.1:8080"];
    assert_eq!(b1.local_broker_data.cpu, ResourceUsage::new(200.0, 800.0));
    assert_eq!(b1.local_broker_data.last_stats.len(), 3);
    // Given time average kept verbatim.
    assert_eq!(
        b1.time_average_broker_data
            .unwrap()
            .short_term_msg_throughput_in,
        51600.0
    );
    // Recomputed for broker 2: default bundle (50000 B/s, 50 msg/s each way) + tenant1/ns1's upper half.
    let t2 = s.brokers["10.0.0.2:8080"].time_average_broker_data.unwrap();
    assert_eq!(
        t2,
        TimeAverageBrokerData {
            short_term_msg_throughput_in: 50300.0,
            short_term_msg_throughput_out: 50600.0,
            short_term_msg_rate_in: 53.0,
            short_term_msg_rate_out: 56.0,
            long_term_msg_throughput_in: 50250.0,
            long_term_msg_throughput_out: 50500.0,
            long_term_msg_rate_in: 52.5,
            long_term_msg_rate_out: 55.0,
        }
    );
    // Layouts: local policies for public/default, (weak) policies for tenant1/ns1.
    let pd = &s.namespaces["public/default"];
    assert_eq!(pd.bundles.num_bundles, 4);
    assert_eq!(pd.bundles.boundaries[1], "0x40000000");
    assert_eq!(pd.anti_affinity_group.as_deref(), Some("group-a"));
    assert_eq!(
        pd.topics.as_deref().unwrap(),
        [
            "persistent://public/default/orders",
            "persistent://public/default/orders-partition-0",
            "non-persistent://public/default/events"
        ]
    );
    assert_eq!(
        s.namespaces["tenant1/ns1"].bundles.boundaries,
        ["0x00000000", "0x80000000", "0xffffffff"]
    );
    // BundleData: 4 stored (one for an unowned bundle) + 2 defaults for owned bundles without any.
    assert_eq!(s.bundle_data.len(), 6);
    assert_eq!(
        s.bundle_data["public/default/0x00000000_0x40000000"].topics,
        3
    );
    assert_eq!(
        s.bundle_data["public/default/0x80000000_0xc0000000"],
        BundleData::pulsar_default()
    );
    assert_eq!(
        s.bundle_data["tenant1/ns1/0x00000000_0x80000000"],
        BundleData::pulsar_default()
    );
    assert_eq!(
        s.bundle_data["public/default/0xc0000000_0xffffffff"]
            .short_term_data
            .num_samples,
        3
    );
    assert_eq!(
        s.bundle_data.keys().next().map(String::as_str),
        Some("public/default/0x00000000_0x40000000")
    );
    assert_eq!(s.failure_domains["rack-1"], ["10.0.0.1:8080"]);
    let iso = &s.namespace_isolation_policies["policy-1"];
    assert_eq!(iso.primary, ["10.0.0.2.*"]);
    assert_eq!(
        iso.auto_failover_policy.as_ref().unwrap().parameters["usage_threshold"],
        "80"
    );
    assert_eq!(
        s.broker_conf
            .get("loadBalancerBrokerOverloadedThresholdPercentage")
            .map(String::as_str),
        Some("80")
    );
    assert!(!s.broker_conf.contains_key("brokerServicePort"));
    assert!(has_warning(
        &imp,
        WarningKind::DefaultBundleData,
        "2 owned bundles"
    ));
    assert!(has_warning(
        &imp,
        WarningKind::RecomputedTimeAverage,
        "10.0.0.2:8080"
    ));
    assert!(has_warning(&imp, WarningKind::ConfKeyIgnored, "1 keys"));
    assert!(has_warning(
        &imp,
        WarningKind::IgnoredFile,
        "managed-ledgers"
    ));
    assert!(has_warning(
        &imp,
        WarningKind::IgnoredFile,
        "partitioned-topics"
    ));
}

#[test]
fn zip_and_tar_gz_of_the_tree_give_the_same_snapshot() {
    let dir = corpus().join("metadata-store");
    let files: Vec<(String, Vec<u8>)> = tree(&dir)
        .into_iter()
        .map(|(n, b)| (n.trim_start_matches("metadata-store/").to_string(), b))
        .collect();
    let expected = import_tree("metadata-store").snapshot;
    for (name, bytes) in [
        ("dump.zip", zip_of(&files)),
        ("dump.tar.gz", tar_gz_of(&files)),
    ] {
        let imp =
            import(&[ImportInput::given(name, bytes)]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(imp.snapshot, expected, "{name}");
        assert!(
            imp.warnings
                .iter()
                .any(|w| w.file.starts_with(&format!("{name}!/"))),
            "{name}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Round trip

fn reimport(s: &Snapshot) -> (Snapshot, String) {
    let text = serde_json::to_string_pretty(s).unwrap();
    let again = import(&[ImportInput::given("snapshot.json", text.as_bytes())])
        .unwrap_or_else(|e| panic!("re-import: {e}"))
        .snapshot;
    (again, text)
}

#[test]
fn snapshot_reimports_identically() {
    let first = import_tree("metadata-store").snapshot;
    let (second, text) = reimport(&first);
    assert_eq!(second, first);
    assert_eq!(serde_json::to_string_pretty(&second).unwrap(), text);
    let full = full_snapshot();
    assert_eq!(reimport(&full).0, full);
}

// ---------------------------------------------------------------------------------------------
// JSON Schema vs the model

/// The fixture snapshot with every optional field filled, so that every schema property is seen.
fn full_snapshot() -> Snapshot {
    let mut s = import_tree("metadata-store").snapshot;
    let b = s.brokers.get_index_mut(0).unwrap().1;
    b.local_broker_data.broker_id = Some("10.0.0.1:8080".into());
    b.local_broker_data.web_service_url_tls = Some("https://10.0.0.1:8443".into());
    b.local_broker_data.pulsar_service_url_tls = Some("pulsar+ssl://10.0.0.1:6651".into());
    b.broker_load_data = Some(BrokerLoadData::default());
    b.top_bundles_load_data = Some(TopBundlesLoadData {
        top_bundles_load_data: vec![TopBundle {
            bundle_name: "public/default/0x00000000_0x40000000".into(),
            stats: NamespaceBundleStats::default(),
        }],
    });
    s.recently_unloaded_bundles
        .insert("public/default/0x40000000_0x80000000".into(), 1750000000000);
    s
}

struct SchemaCheck<'a> {
    root: &'a Value,
    seen: BTreeSet<(String, String)>,
    errors: Vec<String>,
}

impl<'a> SchemaCheck<'a> {
    fn resolve(&self, schema: &'a Value) -> (&'a Value, Option<String>) {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/$defs/");
                let def = self
                    .root
                    .pointer(&format!("/$defs/{name}"))
                    .unwrap_or_else(|| panic!("schema: unresolved {r}"));
                (def, Some(name.to_string()))
            }
            None => (schema, None),
        }
    }

    fn check(&mut self, schema: &'a Value, v: &Value, path: &str, def: &str) {
        let (schema, name) = self.resolve(schema);
        let def = name.unwrap_or_else(|| def.to_string());
        if let Some(t) = schema.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            let ok = types.iter().any(|t| match *t {
                "object" => v.is_object(),
                "array" => v.is_array(),
                "string" => v.is_string(),
                "integer" => v.is_i64() || v.is_u64(),
                "number" => v.is_number(),
                "boolean" => v.is_boolean(),
                "null" => v.is_null(),
                _ => false,
            });
            if !ok {
                self.errors
                    .push(format!("{path}: {v} is not of type {types:?}"));
                return;
            }
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && let Some(s) = v.as_str()
            && !simple_pattern_match(pattern, s)
        {
            self.errors
                .push(format!("{path}: \"{s}\" does not match {pattern}"));
        }
        if let Some(obj) = v.as_object() {
            let props = schema.get("properties").and_then(Value::as_object);
            for req in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let req = req.as_str().unwrap();
                if !obj.contains_key(req) {
                    self.errors
                        .push(format!("{path}: required `{req}` missing"));
                }
            }
            for (k, val) in obj {
                let sub = format!("{path}.{k}");
                match props.and_then(|p| p.get(k)) {
                    Some(ps) => {
                        self.seen.insert((def.clone(), k.clone()));
                        self.check(ps, val, &sub, &format!("{def}.{k}"));
                    }
                    None => match schema.get("additionalProperties") {
                        Some(Value::Bool(false)) | None if props.is_some() => self
                            .errors
                            .push(format!("{path}: `{k}` is not declared in the schema")),
                        Some(ap @ Value::Object(_)) => {
                            self.check(ap, val, &sub, &format!("{def}.*"))
                        }
                        _ => {}
                    },
                }
            }
        }
        if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
            for (i, x) in arr.iter().enumerate() {
                self.check(items, x, &format!("{path}[{i}]"), &format!("{def}[]"));
            }
        }
    }
}

/// The two patterns the schema uses, checked without a regex engine.
fn simple_pattern_match(pattern: &str, s: &str) -> bool {
    let hex8 = |t: &str| {
        t.len() == 10
            && t.starts_with("0x")
            && t[2..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    };
    match pattern {
        "^0x[0-9a-f]{8}$" => hex8(s),
        "^[^/]+(/[^/]+){1,2}/0x[0-9a-f]{8}_0x[0-9a-f]{8}$" => {
            let Some((ns, range)) = s.rsplit_once('/') else {
                return false;
            };
            let parts: Vec<&str> = ns.split('/').collect();
            (2..=3).contains(&parts.len())
                && parts.iter().all(|p| !p.is_empty())
                && range
                    .split_once('_')
                    .is_some_and(|(a, b)| hex8(a) && hex8(b))
        }
        other => panic!("schema uses a pattern this test does not know: {other}"),
    }
}

#[test]
fn json_schema_matches_the_model() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/snapshot.schema.json"),
    )
    .expect("docs/snapshot.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let mut check = SchemaCheck {
        root: &schema,
        seen: BTreeSet::new(),
        errors: Vec::new(),
    };
    let full = serde_json::to_value(full_snapshot()).unwrap();
    check.check(&schema, &full, "$", "Snapshot");
    let minimal = serde_json::to_value(Snapshot::default()).unwrap();
    check.check(&schema, &minimal, "$", "Snapshot");
    assert!(check.errors.is_empty(), "{}", check.errors.join("\n"));
    // Every top-level field of a serialized Snapshot is declared, and every declared one exists.
    let declared: BTreeSet<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let serialized: BTreeSet<&str> = full
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(declared, serialized);
    // Every property the schema declares in its definitions was seen in the full snapshot.
    let mut unseen = Vec::new();
    for (def, body) in schema["$defs"].as_object().unwrap() {
        for prop in body
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            if !check.seen.contains(&(def.clone(), prop.clone())) {
                unseen.push(format!("{def}.{prop}"));
            }
        }
    }
    assert!(
        unseen.is_empty(),
        "declared in the schema but not produced by the model: {unseen:?}"
    );
    // Required lists match what a default snapshot always writes.
    let required: BTreeSet<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let always: BTreeSet<&str> = minimal
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(required, always);
}

// ---------------------------------------------------------------------------------------------
// Synthetic generator and robustness

#[test]
fn synthetic_cluster_is_deterministic_and_imports() {
    // The simulator's model with bare reports: no heartbeat namespaces, no time averages.
    let spec = lbplan_core::synthetic::SyntheticSpec {
        brokers: 7,
        namespaces: lbplan_core::synthetic::NamespaceSpec::numbered(5, 2, 8),
        ..lbplan_core::synthetic::SyntheticSpec::bench()
    };
    let snapshot = lbplan_core::synthetic::generate(&spec, 1).unwrap();
    let a = store_files(&snapshot);
    assert_eq!(
        a,
        store_files(&lbplan_core::synthetic::generate(&spec, 1).unwrap())
    );
    let imp = import(&inputs(&a, Origin::Tree)).unwrap();
    assert_eq!(imp.snapshot.brokers.len(), 7);
    assert_eq!(imp.snapshot.bundle_data.len(), 40);
    assert_eq!(imp.snapshot.namespaces.len(), 5);
    let owned: usize = imp
        .snapshot
        .brokers
        .values()
        .map(|b| b.local_broker_data.last_stats.len())
        .sum();
    assert_eq!(owned, 40);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary bytes under any recognised name never panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512), which in 0usize..8) {
        let names = [
            "loadbalance/brokers/b:8080", "loadbalance/bundle-data/t/ns/0x00000000_0xffffffff",
            "admin/local-policies/t/ns", "broker.conf", "snapshot.json", "x.zip", "t/ns.json", "topics.txt",
        ];
        let _ = import(&[ImportInput::given(names[which], bytes)]);
    }

    /// Fixture files with one byte changed never panic, in a tree or given.
    #[test]
    fn mutated_fixture_never_panics(file in 0usize..17, pos in any::<usize>(), byte in any::<u8>()) {
        let mut files = tree(&corpus().join("metadata-store"));
        let n = files.len();
        let f = &mut files[file % n].1;
        if !f.is_empty() {
            let i = pos % f.len();
            f[i] = byte;
        }
        let _ = import(&inputs(&files, Origin::Tree));
    }
}
