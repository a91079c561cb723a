//! Exports as operators really have them, from `tests/import_corpus/real/` (its README
//! names the command, REST path or metadata-store path behind each file): what an operator checks
//! after an import (usage %, bundle counts, namespaces, warnings), and that no look-alike export is
//! silently misread.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use lbplan_core::import::{ImportError, ImportInput, Imported, Origin, WarningKind, import};
use lbplan_core::units::percent_usage;

fn real() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import_corpus/real")
}

/// Files under `dir`, sorted, named relative to `dir` (as the CLI names a directory's files).
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
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
    walk(dir, dir, &mut out);
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

fn import_dir(dir: &str) -> Imported {
    let files = tree(&real().join(dir));
    import(&inputs(&files, Origin::Tree)).unwrap_or_else(|e| panic!("{dir}: {e}"))
}

fn import_given(files: &[(&str, &[u8])]) -> Result<Imported, ImportError> {
    let inputs: Vec<ImportInput<'_>> = files
        .iter()
        .map(|(n, b)| ImportInput::given(*n, *b))
        .collect();
    import(&inputs)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(real().join(name)).unwrap()
}

fn warning<'a>(imp: &'a Imported, kind: WarningKind, file: &str) -> &'a str {
    imp.warnings
        .iter()
        .find(|w| w.kind == kind && w.file == file)
        .map(|w| w.message.as_str())
        .unwrap_or_else(|| panic!("no {kind:?} warning for {file}: {:#?}", imp.warnings))
}

/// The issue's directory: a load report, `namespaces bundles` output saved under a made-up name,
/// `topics partitioned-lookup` output, `brokers list` output and a 2.x quoted topic list.
#[test]
fn operator_directory_imports_without_misreading_anything() {
    let imp = import_dir("operator-dir");
    let s = &imp.snapshot;
    // Namespaces only from contents and metadata-store paths: no `raw/namespaces-bundles-…`, no
    // `…/topic-manual-2-partition-0    pulsar:`.
    let namespaces: Vec<&str> = s.namespaces.keys().map(String::as_str).collect();
    assert_eq!(namespaces, ["my-tenant/my-namespace"]);
    // Brokers only from load reports.
    let brokers: Vec<&str> = s.brokers.keys().map(String::as_str).collect();
    assert_eq!(brokers, ["broker-1:8080"]);
    let b = &s.brokers["broker-1:8080"].local_broker_data;
    assert_eq!(b.bundles.len(), 2);
    // cpu 50 of 200 (%·cores), directMemory 256 of 1024 MB: 25 %.
    assert_eq!(percent_usage(b.cpu.usage, b.cpu.limit), 25.0);
    assert_eq!(
        percent_usage(b.direct_memory.usage, b.direct_memory.limit),
        25.0
    );
    // The 2.x topic list, quotes removed.
    let topics = s.namespaces["my-tenant/my-namespace"]
        .topics
        .clone()
        .unwrap();
    assert_eq!(
        topics,
        [
            "persistent://my-tenant/my-namespace/orders",
            "persistent://my-tenant/my-namespace/topic-manual-2-partition-0"
        ]
    );

    let lookup = warning(&imp, WarningKind::NotModelled, "raw/partitioned-lookup.txt");
    assert!(
        lookup.contains("pulsar-admin topics partitioned-lookup"),
        "{lookup}"
    );
    assert!(
        lookup.contains("ownership comes from the load reports"),
        "{lookup}"
    );
    let bundles = warning(
        &imp,
        WarningKind::NotModelled,
        "raw/namespaces-bundles-my-tenant-my-namespace.txt",
    );
    assert!(
        bundles.contains("<tenant>/<namespace>/bundles.json"),
        "{bundles}"
    );
    let listed = warning(&imp, WarningKind::MissingReport, "raw/brokers-list.txt");
    assert!(listed.contains("broker `broker-2:8080`"), "{listed}");
    assert!(
        listed.contains("pulsar-admin broker-stats load-report"),
        "{listed}"
    );
    assert!(
        listed.contains("/loadbalance/brokers/broker-2:8080"),
        "{listed}"
    );
    // broker-1 has its report: no warning for it.
    assert!(
        !imp.warnings
            .iter()
            .any(|w| w.message.contains("broker `broker-1:8080`"))
    );
    // A brokers list is not broker.conf.
    assert!(
        !imp.warnings
            .iter()
            .any(|w| w.kind == WarningKind::ConfKeyIgnored)
    );
}

/// `namespaces bundles` output named `<tenant>/<namespace>/bundles.json` gives the layout.
#[test]
fn bundles_output_in_a_metadata_like_layout_gives_the_namespace() {
    let imp = import_dir("layout-named");
    let ns = &imp.snapshot.namespaces["my-tenant/my-namespace"];
    assert_eq!(ns.bundles.num_bundles, 4);
    assert_eq!(
        ns.bundles.boundaries,
        [
            "0x00000000",
            "0x40000000",
            "0x80000000",
            "0xc0000000",
            "0xffffffff"
        ]
    );
}

/// A `pulsar-admin topics partitioned-lookup` output given alone is not a topic list.
#[test]
fn partitioned_lookup_alone_is_no_data() {
    let bytes = read("operator-dir/raw/partitioned-lookup.txt");
    let e = import_given(&[("lookup.txt", &bytes)])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("nothing to import"), "{e}");
    // The message names the file and what it looks like, not "none is recognised".
    assert!(
        e.contains("lookup.txt: `pulsar-admin topics partitioned-lookup` output"),
        "{e}"
    );
    assert!(!e.contains("recognised export"), "{e}");
}

/// A lone `BundlesData` (`pulsar-admin namespaces bundles` output) without the namespace path
/// that says whose it is: the message names the file and how to name it.
#[test]
fn bundles_data_alone_names_the_file() {
    let layout = read("layout-named/my-tenant/my-namespace/bundles.json");
    let e = import_given(&[("bundles.json", &layout)])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("nothing to import: no data the planner reads in the 1 input(s): bundles.json: `pulsar-admin namespaces bundles` output (BundlesData), but nothing tells which namespace it is for"),
        "{e}"
    );
}

/// A namespace Pulsar's `NamedEntity` rule forbids (`$(…)`) is refused at import, naming the file
/// and the JSON path.
#[test]
fn a_namespace_pulsar_forbids_is_refused() {
    let report = String::from_utf8(read("layout-named/broker-1:8080.json")).unwrap();
    let hostile = report.replace("my-tenant/my-namespace", "$(touch pwned)/ns");
    let e = import_given(&[("broker-1:8080.json", hostile.as_bytes())])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("broker-1:8080.json: $."), "{e}");
    assert!(
        e.contains(
            "tenant `$(touch pwned)` is not a valid Pulsar name: only letters, digits and `-=:._` are allowed (NamedEntity.checkName)"
        ),
        "{e}"
    );
}

/// Names Pulsar would refuse never enter a snapshot: a topic line with a space, a layout path
/// whose tenant starts with `-`.
#[test]
fn names_are_checked_with_the_core_rule() {
    let e = import_given(&[(
        "topics.txt",
        b"persistent://public/default/a b\n".as_slice(),
    )])
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "topics.txt: line 1: topic `persistent://public/default/a b` is not a valid Pulsar name"
        ),
        "{e}"
    );
    let report = read("layout-named/broker-1:8080.json");
    let layout = read("layout-named/my-tenant/my-namespace/bundles.json");
    let e = import_given(&[
        ("broker-1:8080.json", &report),
        ("-x/my-namespace/bundles.json", &layout),
    ])
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("-x/my-namespace/bundles.json: the path names namespace `-x/my-namespace`, but tenant `-x` is not a valid Pulsar name"),
        "{e}"
    );
}

/// Item 9: an import that finds no broker is an error saying what was found and which export
/// supplies brokers.
#[test]
fn an_import_without_brokers_is_an_error() {
    let list = read("operator-dir/raw/brokers-list.txt");
    let e = import_given(&[("brokers.txt", &list)]).unwrap_err();
    assert!(matches!(e, ImportError::Empty(_)));
    let e = e.to_string();
    assert!(
        e.contains("found 2 broker(s) listed without a load report"),
        "{e}"
    );
    assert!(e.contains("pulsar-admin broker-stats load-report"), "{e}");
    assert!(e.contains("/loadbalance/brokers/*"), "{e}");
}

/// Item 5: `limit: 0` with usage > 0 is what Pulsar gets when a limit was not read; Pulsar counts
/// it as 0 %, and so does the plan.
#[test]
fn zero_limit_with_usage_is_accepted_as_pulsar_counts_it() {
    let bytes = read("zero-cpu-limit.json");
    let imp = import_given(&[("broker-1:8080.json", &bytes)]).unwrap();
    let b = &imp.snapshot.brokers["broker-1:8080"].local_broker_data;
    assert_eq!(percent_usage(b.cpu.usage, b.cpu.limit), 0.0);
    let w = imp
        .warnings
        .iter()
        .find(|w| w.at.as_deref() == Some("$.cpu.limit"))
        .unwrap();
    assert_eq!(w.kind, WarningKind::UnsampledResource);
    assert!(w.message.contains("Pulsar computes 0 %"), "{}", w.message);
}

/// Item 13: `usage: -1, limit: -1` is exactly 0 % in Pulsar's percentUsage, not "below 0 %".
#[test]
fn unsampled_resource_says_what_pulsar_computes() {
    let text = br#"{"loadReportType":"LocalBrokerData","cpu":{"usage":10.0,"limit":100.0},"directMemory":{"usage":-1.0,"limit":-1.0}}"#;
    let imp = import_given(&[("broker-1:8080.json", text.as_slice())]).unwrap();
    let w = imp
        .warnings
        .iter()
        .find(|w| w.at.as_deref() == Some("$.directMemory.usage"))
        .unwrap();
    assert!(
        w.message.contains("Pulsar computes exactly 0 %"),
        "{}",
        w.message
    );
    assert!(!w.message.contains("below"), "{}", w.message);
}

/// Item 6: SimpleLoadManagerImpl's LoadReport is named, not "unrecognised content".
#[test]
fn legacy_simple_load_manager_report_is_named() {
    let bytes = read("simple-load-manager-report.json");
    let e = import_given(&[("load-report.json", &bytes)])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("load-report.json: the legacy SimpleLoadManagerImpl LoadReport"),
        "{e}"
    );
    assert!(!e.contains("unrecognised"), "{e}");
}

/// Item 7: `pulsar-admin ns-isolation-policy get CLUSTER POLICY` (one policy, named after its file)
/// and `pulsar-admin brokers get-all-dynamic-config` (broker.conf keys → text) are accepted.
#[test]
fn single_isolation_policy_and_dynamic_config_are_accepted() {
    let imp = import_dir("cluster-config");
    let s = &imp.snapshot;
    let p = &s.namespace_isolation_policies["broker-1-first"];
    assert_eq!(p.namespaces, ["my-tenant/my-namespace"]);
    assert_eq!(p.primary, ["broker-1.*"]);
    assert_eq!(p.secondary, ["broker-2.*"]);
    let afp = p.auto_failover_policy.as_ref().unwrap();
    assert_eq!(afp.policy_type, "min_available");
    assert_eq!(afp.parameters["usage_threshold"], "80");
    assert_eq!(
        s.broker_conf["loadBalancerBrokerThresholdShedderPercentage"],
        "5"
    );
    assert_eq!(s.broker_conf["loadBalancerSheddingEnabled"], "true");
    assert!(
        !s.broker_conf
            .contains_key("dispatchThrottlingRatePerTopicInMsg")
    );
    let dropped = warning(&imp, WarningKind::ConfKeyIgnored, "dynamic-config.json");
    assert!(dropped.starts_with("1 keys"), "{dropped}");
}

/// A dynamic-config value of the wrong Java type names its key.
#[test]
fn dynamic_config_values_are_checked_with_their_key() {
    let text = br#"{"loadBalancerBrokerThresholdShedderPercentage":"ten"}"#;
    let e = import_given(&[("dynamic.json", text.as_slice())])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("dynamic.json: $.loadBalancerBrokerThresholdShedderPercentage: "),
        "{e}"
    );
}

/// Item 12: a merged warning names every other file it stands for (the JSON keeps them all; the
/// one-line text names the first three).
#[test]
fn every_skipped_file_is_named() {
    let report = read("cluster-config/broker-1:8080.json");
    let junk = b"{\"hello\":\"world\"}".as_slice();
    let files: Vec<(String, Vec<u8>)> = [
        ("broker-1:8080.json", report.as_slice()),
        ("notes/a.json", junk),
        ("notes/b.json", junk),
        ("notes/c.json", junk),
        ("notes/d.json", junk),
        ("notes/e.json", junk),
    ]
    .iter()
    .map(|(n, b)| (n.to_string(), b.to_vec()))
    .collect();
    let imp = import(&inputs(&files, Origin::Tree)).unwrap();
    let w = imp
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::IgnoredFile)
        .unwrap();
    assert_eq!(w.file, "notes/a.json");
    assert_eq!(w.more, 4);
    assert_eq!(
        w.also,
        [
            "notes/b.json",
            "notes/c.json",
            "notes/d.json",
            "notes/e.json"
        ]
    );
    assert!(
        w.to_string()
            .ends_with("(and 4 more like it: notes/b.json, notes/c.json, notes/d.json, …)"),
        "{w}"
    );
    let json = serde_json::to_value(w).unwrap();
    assert_eq!(json["also"].as_array().unwrap().len(), 4);
}

/// Warnings grouped per kind with counts and first examples, actionable kinds first,
/// and the top-N cause named for reports whose totals exceed their bundles.
#[test]
fn warnings_are_grouped_actionable_first() {
    let imp = import_dir("operator-dir");
    let groups = lbplan_core::import::group_warnings(&imp.warnings);
    let first_info = groups
        .iter()
        .position(|g| !g.actionable)
        .unwrap_or(groups.len());
    assert!(groups[..first_info].iter().all(|g| g.actionable));
    assert!(groups[first_info..].iter().all(|g| !g.actionable));
    let not_used = groups
        .iter()
        .find(|g| g.kind == WarningKind::NotModelled)
        .unwrap();
    // partitioned-lookup and the unnamed bundles output.
    assert_eq!(not_used.count, 2);
    assert!(not_used.actionable);
    let missing = groups
        .iter()
        .position(|g| g.kind == WarningKind::MissingReport)
        .unwrap();
    assert!(missing < first_info);

    // A report listing 1 of its 2 bundles, as when only the top-N bundles are reported.
    let text = br#"{"loadReportType":"LocalBrokerData","cpu":{"usage":10.0,"limit":100.0},"numBundles":2,"bundles":["public/default/0x00000000_0x80000000"],"lastStats":{"public/default/0x00000000_0x80000000":{"msgRateIn":1.0}}}"#;
    let imp = import_given(&[("broker-1:8080.json", text.as_slice())]).unwrap();
    let groups = lbplan_core::import::group_warnings(&imp.warnings);
    let g = groups
        .iter()
        .find(|g| g.kind == WarningKind::InconsistentReport)
        .unwrap_or_else(|| panic!("{:#?}", imp.warnings));
    assert!(
        g.cause
            .unwrap()
            .contains("loadBalancerMaxNumberOfBundlesInBundleLoadReport"),
    );
}

/// Actionable groups show every warning; informational ones their first examples and a count.
#[test]
fn informational_groups_are_cut_actionable_ones_are_not() {
    let mut text =
        String::from(r#"{"loadReportType":"LocalBrokerData","cpu":{"usage":10.0,"limit":100.0}"#);
    for i in 0..5 {
        text.push_str(&format!(r#","oddField{i}":1"#));
    }
    text.push('}');
    let junk = b"{\"hello\":\"world\"}".as_slice();
    let files: Vec<(String, Vec<u8>)> = vec![
        ("broker-1:8080.json".to_string(), text.into_bytes()),
        ("x/a.json".to_string(), junk.to_vec()),
        ("y/not-json.txt".to_string(), b"\x00\xff".to_vec()),
        ("z/empty.json".to_string(), Vec::new()),
        ("w/c.json".to_string(), junk.to_vec()),
    ];
    let imp = import(&inputs(&files, Origin::Tree)).unwrap();
    let groups = lbplan_core::import::group_warnings(&imp.warnings);
    let skipped = &groups[0];
    assert_eq!(skipped.kind, WarningKind::IgnoredFile);
    // "not a recognised export" (2 files, merged), "not UTF-8 text", "empty file".
    assert_eq!(skipped.count, 4);
    assert_eq!(skipped.examples.len(), 3);
    assert_eq!(skipped.hidden, 0);
    let unknown = groups
        .iter()
        .find(|g| g.kind == WarningKind::UnknownField)
        .unwrap();
    assert_eq!(unknown.count, 5);
    assert_eq!(unknown.examples.len(), lbplan_core::import::GROUP_EXAMPLES);
    assert_eq!(unknown.hidden, 2);
}

fn report_at(last_update: i64) -> Vec<u8> {
    format!(
        r#"{{"loadReportType":"LocalBrokerData","cpu":{{"usage":10.0,"limit":100.0}},"lastUpdate":{last_update}}}"#
    )
    .into_bytes()
}

/// Item 15: reports more than three reporting intervals apart (Pulsar's default
/// `loadBalancerReportUpdateMaxIntervalMinutes` is 15) are named, the oldest first.
#[test]
fn reports_captured_far_apart_are_warned_naming_the_oldest() {
    let t0 = 1_700_000_000_000_i64;
    let old = report_at(t0);
    let new = report_at(t0 + 46 * 60_000);
    let imp = import_given(&[("broker-2:8080.json", &new), ("broker-1:8080.json", &old)]).unwrap();
    let w = imp
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::ReportsApart)
        .unwrap();
    assert_eq!(w.file, "broker-1:8080.json");
    assert_eq!(w.at.as_deref(), Some("$.lastUpdate"));
    assert!(w.message.contains("46 min apart"), "{}", w.message);
    assert!(
        w.message.contains("the oldest is broker `broker-1:8080`"),
        "{}",
        w.message
    );

    // 44 minutes: within three intervals of 15.
    let near = report_at(t0 + 44 * 60_000);
    let imp = import_given(&[("broker-2:8080.json", &near), ("broker-1:8080.json", &old)]).unwrap();
    assert!(
        !imp.warnings
            .iter()
            .any(|w| w.kind == WarningKind::ReportsApart)
    );

    // A cluster reporting every 60 minutes at most: 46 minutes apart is normal.
    let conf = b"loadBalancerReportUpdateMaxIntervalMinutes=60\n".as_slice();
    let imp = import_given(&[
        ("broker-2:8080.json", &new),
        ("broker-1:8080.json", &old),
        ("broker.conf", conf),
    ])
    .unwrap();
    assert!(
        !imp.warnings
            .iter()
            .any(|w| w.kind == WarningKind::ReportsApart)
    );
}

/// Item 14: a tar holding one name twice (as `tar -r` appends) is read, with a warning naming both
/// members; extracting it would keep only the later silently.
#[test]
fn an_archive_member_given_twice_is_named() {
    let report = read("cluster-config/broker-1:8080.json");
    let mut tar = tar::Builder::new(Vec::new());
    for (name, bytes) in [
        ("dump/broker-1:8080.json", report.as_slice()),
        (
            "dump/broker.conf",
            b"loadBalancerSheddingEnabled=true\n".as_slice(),
        ),
        (
            "dump/broker.conf",
            b"loadBalancerSheddingEnabled=false\n".as_slice(),
        ),
    ] {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, name, bytes).unwrap();
    }
    let bytes = tar.into_inner().unwrap();
    let imp = import_given(&[("dump.tar", &bytes)]).unwrap();
    let w = imp
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::Duplicate)
        .unwrap_or_else(|| panic!("{:#?}", imp.warnings));
    assert_eq!(w.file, "dump.tar!/dump/broker.conf");
    assert!(w.message.contains("members #2 and #3"), "{}", w.message);
}

/// Item 14: a key given twice in one JSON object is named with its path (the later value is used,
/// as every JSON parser does, but no longer silently).
#[test]
fn a_json_key_given_twice_is_named() {
    let text =
        br#"{"loadReportType":"LocalBrokerData","cpu":{"usage":10.0,"limit":100.0,"usage":90.0}}"#;
    let imp = import_given(&[("broker-1:8080.json", text.as_slice())]).unwrap();
    let w = imp
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::Duplicate)
        .unwrap_or_else(|| panic!("{:#?}", imp.warnings));
    assert_eq!(w.at.as_deref(), Some("$.cpu.usage"));
    let b = &imp.snapshot.brokers["broker-1:8080"].local_broker_data;
    assert_eq!(b.cpu.usage, 90.0);
    // The same key in two different objects is no duplicate.
    let text = br#"{"loadReportType":"LocalBrokerData","cpu":{"usage":10.0,"limit":100.0},"memory":{"usage":1.0,"limit":100.0}}"#;
    let imp = import_given(&[("broker-1:8080.json", text.as_slice())]).unwrap();
    assert!(
        !imp.warnings
            .iter()
            .any(|w| w.kind == WarningKind::Duplicate)
    );
}
