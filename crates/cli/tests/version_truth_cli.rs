//! `--profile` takes a Pulsar release, `--leader` picks the deciding broker, and `lbplan upgrade`
//! previews a move to another release (docs/versions.md). The demo's brokers report 4.0.7 and its
//! leader is broker-00.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DEMO: &str = "static/demo-snapshot.json";

fn lbplan(args: &[&str]) -> Output {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_plan_says_which_release_decided_and_why() {
    let detected = json(&lbplan(&["plan", DEMO, "--format", "json"]));
    assert_eq!(detected["profile"], "4.0.7");
    assert_eq!(detected["release_basis"]["source"], "leader");
    assert_eq!(
        detected["release_basis"]["leader_broker"],
        "broker-00.demo.svc:8080"
    );
    let chosen = json(&lbplan(&[
        "plan",
        DEMO,
        "--profile",
        "4.0.8",
        "--format",
        "json",
    ]));
    assert_eq!(chosen["profile"], "4.0.8");
    assert_eq!(chosen["release_basis"]["source"], "override");
    // A line alias is the newest patch of its line.
    let alias = json(&lbplan(&[
        "plan",
        DEMO,
        "--profile",
        "4.2",
        "--format",
        "json",
    ]));
    assert_eq!(alias["profile"], "4.2.5");
}

#[test]
fn unknown_versions_warn_and_non_versions_are_refused_naming_the_value() {
    let o = lbplan(&["plan", DEMO, "--profile", "4.0.15", "--format", "json"]);
    assert_eq!(json(&o)["profile"], "4.0.14");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("4.0.15") && stderr.contains("4.0.14"),
        "{stderr}"
    );
    let o = lbplan(&["plan", DEMO, "--profile", "banana"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`banana` is not a Pulsar version"));
    let o = lbplan(&["plan", DEMO, "--leader", "nobody:1"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("nobody:1") && stderr.contains("broker-00.demo.svc:8080"),
        "{stderr}"
    );
}

#[test]
fn upgrade_to_5_0_lists_the_prs_and_the_lines_that_keep_today() {
    let o = lbplan(&["upgrade", DEMO, "--to", "5.0.0", "--cycles", "0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("Upgrade 4.0.7 → 5.0.0 (the leader broker-00.demo.svc:8080"),
        "{text}"
    );
    assert!(
        text.contains("gained apache/pulsar#26609 / #26610"),
        "{text}"
    );
    assert!(text.contains("gained apache/pulsar#24954"), "{text}");
    assert!(text.contains("  maxUnloadPercentage=0.2\n"), "{text}");
    assert!(
        text.contains("  defaultNumberOfNamespaceBundles=4\n"),
        "{text}"
    );
    assert!(
        text.contains("  defaultNumberOfSystemNamespaceBundles=4\n"),
        "{text}"
    );
    // The demo's ThresholdShedder gives way to the 5.0 defaults' AvgShedder: each changed decision
    // names #26609 / #26610, not AvgShedder's own rows.
    let changed: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  + ") || l.starts_with("  - ") || l.starts_with("  ~ "))
        .collect();
    assert!(!changed.is_empty(), "{text}");
    for l in changed {
        assert!(l.ends_with("[apache/pulsar#26609 / #26610]"), "{l}");
    }
    let v = json(&lbplan(&[
        "upgrade", DEMO, "--to", "5.0", "--cycles", "3", "--format", "json",
    ]));
    assert_eq!(v["format_version"], 2);
    assert_eq!(v["to"], "5.0.0");
    // #26609 / #26610: 32 bundles for a new namespace, 64 for a system namespace on 5.0.0.
    assert_eq!(v["new_namespaces"][1]["namespace_bundles"], 32);
    assert_eq!(v["new_namespaces"][1]["system_namespace_bundles"], 64);
    assert_eq!(v["new_namespaces"][0]["system_namespace_bundles"], 4);
    let sims = v["simulated"].as_array().unwrap();
    assert_eq!(sims.len(), 2);
    assert_eq!(sims[0]["release"], "4.0.7");
    assert_eq!(sims[1]["release"], "5.0.0");
    assert_eq!(
        sims[1]["shedding_strategy"],
        "org.apache.pulsar.broker.loadbalance.impl.AvgShedder"
    );
}
