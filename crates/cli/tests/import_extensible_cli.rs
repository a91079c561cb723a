//! A cluster known only through the extensible load manager's `BrokerLoadData`
//! (`pulsar-client consume` output of `loadbalancer-broker-load-data`, or the message bodies saved
//! one per broker with `broker.conf`), end to end through `lbplan import` and `lbplan plan`.
//!
//! Expected values are computed by hand from the corpus numbers (`crates/core/tests/import_corpus/
//! real/extensible*/`) with the reference's formulas:
//! * percentUsage = 100·usage/limit: broker-1 cpu 80/100 = 80 %, memory 2048/8192 = 25 %,
//!   directMemory 512/4096 = 12.5 %, bandwidthIn 30000/1000000 = 3 %, bandwidthOut 5 %;
//!   broker-2 cpu 20 %, broker-3 cpu 30 % (their other resources are lower).
//! * weighted max (default weights: cpu, bandwidth 1, memory 0, §1.2) = the cpu share: 0.8, 0.2, 0.3,
//!   equal to each `weightedMaxEMA` the brokers published (TransferShedder's load, §9.3).
//! * avg = (0.8 + 0.2 + 0.3)/3 = 0.4333 → "43.3%"; population std = sqrt(((0.3667)² + (0.2333)² +
//!   (0.1333)²)/3) = sqrt(0.068889) = 0.26247 → "26.2%", above the 25 % target, so the hit count
//!   grows but is not yet above 3: TransferShedder skips with `HitCount`.
//! * bundles = `bundleCount`: 12, 4, 6 (broker-1's second message replaces its first, 10).

use std::path::{Path, PathBuf};
use std::process::Command;

fn real() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/import_corpus/real")
}

fn lbplan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

fn import_to(input: &str, name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("lbplan-ext-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("snapshot.json");
    let o = lbplan(&[
        "import",
        real().join(input).to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    (out, stderr)
}

fn plan_json(snapshot: &Path) -> (serde_json::Value, String) {
    let o = lbplan(&["plan", snapshot.to_str().unwrap(), "--format", "json"]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    (serde_json::from_slice(&o.stdout).unwrap(), stderr)
}

fn check_plan(plan: &serde_json::Value, stderr: &str) {
    assert_eq!(plan["load_manager"], "extensible");
    assert_eq!(
        plan["shedding_strategy"],
        "org.apache.pulsar.broker.loadbalance.extensions.scheduler.TransferShedder"
    );
    // Percentages are Java floats (§1.1): 30 % comes out as 30.000002, so compare to 1e-5.
    let expected = [
        ("broker-1:8080", 80.0, 0.8, 12),
        ("broker-2:8080", 20.0, 0.2, 4),
        ("broker-3:8080", 30.0, 0.3, 6),
    ];
    let rows = plan["brokers_before"].as_array().unwrap();
    assert_eq!(rows.len(), expected.len());
    for (b, (id, cpu, weighted, bundles)) in rows.iter().zip(expected) {
        assert_eq!(b["broker"], id);
        assert!((b["cpu_pct"].as_f64().unwrap() - cpu).abs() < 1e-5, "{b}");
        let w = b["weighted_max_usage_fraction"].as_f64().unwrap();
        assert!((w - weighted).abs() < 1e-7, "{b}");
        assert_eq!(b["bundle_count"], bundles, "{b}");
    }
    assert_eq!(plan["brokers_before"][0]["memory_pct"], 25.0);
    assert_eq!(plan["brokers_before"][0]["direct_memory_pct"], 12.5);
    assert_eq!(plan["brokers_before"][0]["topic_count"], 40);
    // The table's mean is the decision's average.
    let mean = plan["balance_before"]["mean_usage_fraction"]
        .as_f64()
        .unwrap();
    assert!((mean - 1.3 / 3.0).abs() < 1e-7, "{mean}");
    let why = plan["skipped"][0]["why"].as_str().unwrap();
    assert!(why.contains("(HitCount)"), "{why}");
    assert!(why.contains("load std 26.2%"), "{why}");
    assert!(why.contains("(avg 43.3%)"), "{why}");
    // No warning about empty reports the importer would have made itself.
    assert!(!stderr.contains("no sample"), "{stderr}");
    assert!(!stderr.contains("empty LocalBrokerData"), "{stderr}");
}

#[test]
fn consume_output_of_broker_load_data_is_planned_by_the_extensible_manager() {
    let (snap, stderr) = import_to("extensible/broker-load-data-consume.txt", "consume");
    assert!(!stderr.contains("no sample"), "{stderr}");
    assert!(
        stderr.contains("3 brokers known only from their extensible BrokerLoadData"),
        "{stderr}"
    );
    let (plan, stderr) = plan_json(&snap);
    assert!(
        plan["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == "loadManagerClassName taken from the brokers' data: 3 of 3 broker(s) run ExtensibleLoadManagerImpl"),
        "{}",
        plan["warnings"]
    );
    check_plan(&plan, &stderr);
    let _ = std::fs::remove_dir_all(snap.parent().unwrap());
}

#[test]
fn message_bodies_with_broker_conf_are_planned_the_same() {
    let (snap, _) = import_to("extensible-body", "body");
    let (plan, stderr) = plan_json(&snap);
    // broker.conf names the manager: no detection warning, no disagreement.
    assert!(
        !plan["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("loadManagerClassName")),
        "{}",
        plan["warnings"]
    );
    check_plan(&plan, &stderr);
    let _ = std::fs::remove_dir_all(snap.parent().unwrap());
}

#[test]
fn text_table_and_decision_agree() {
    let (snap, _) = import_to("extensible/broker-load-data-consume.txt", "text");
    let o = lbplan(&["plan", snap.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0));
    assert!(text.contains("extensible load manager"), "{text}");
    assert!(text.contains("(avg 43.3%)"), "{text}");
    assert!(text.contains("mean  43.3%"), "{text}");
    let row = text.lines().find(|l| l.starts_with("broker-1 ")).unwrap();
    assert!(
        row.contains("80.0%") && row.trim_end().ends_with("12"),
        "{row}"
    );
    let _ = std::fs::remove_dir_all(snap.parent().unwrap());
}
