//! The Grafana dashboard and the Prometheus alert rules shipped for `lbplan watch`
//! (`deploy/`): the rules pass `promtool check rules` and their unit tests (`promtool test
//! rules`: each alert fires on the series the watch exposes), and every metric the dashboard
//! and the rules name exists: `lbplan_*` in core's list of what the watch exposes, `pulsar_lb_*`
//! in the research notes' list of Pulsar's own (docs/research/pulsar-metrics-and-logs.md).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use lbplan_core::watch::metrics::FAMILIES;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let p = repo().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn promtool() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("promtool"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "`promtool` is not installed: run scripts/setup.sh (it installs Debian's prometheus \
             package, with promtool), which this test needs"
        )
    })
}

fn promtool_ok(args: &[&str]) {
    let out = Command::new(promtool())
        .args(args)
        .current_dir(repo().join("deploy/prometheus"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "promtool {args:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_alert_rules_check_and_fire_as_their_tests_say() {
    promtool_ok(&["check", "rules", "lbplan-rules.yml"]);
    promtool_ok(&["test", "rules", "lbplan-rules.test.yml"]);
    let rules = read("deploy/prometheus/lbplan-rules.yml");
    assert!(rules.contains("alert: LbplanNextCycleMakesClusterWorse"));
    assert!(rules.contains("alert: LbplanBundlePingPong"));
}

/// Every `prefix…` metric name in `text` (names are `[A-Za-z0-9_]`).
fn names(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before_ok = i == 0
            || !rest[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        if before_ok {
            out.insert(tail[..end].to_string());
        }
        rest = &tail[end.max(1)..];
    }
    out
}

/// The PromQL of the dashboard: every panel target's `expr` and every variable's query.
fn dashboard_queries() -> String {
    let d: serde_json::Value =
        serde_json::from_str(&read("deploy/grafana/lbplan-watch.json")).unwrap();
    assert_eq!(d["uid"], "lbplan-watch");
    assert!(d["schemaVersion"].as_u64().unwrap() >= 36);
    let mut out = String::new();
    for p in d["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().into_iter().flatten() {
            out.push_str(t["expr"].as_str().unwrap());
            out.push('\n');
            // Provisionable anywhere: the data source is the dashboard's variable.
            assert_eq!(t["datasource"]["uid"], "${datasource}");
        }
    }
    for v in d["templating"]["list"].as_array().unwrap() {
        if let Some(q) = v["definition"].as_str() {
            out.push_str(q);
            out.push('\n');
        }
    }
    out
}

#[test]
fn the_dashboard_and_rules_name_only_metrics_that_exist() {
    let exposed: BTreeSet<String> = FAMILIES.iter().map(|f| f.name.to_string()).collect();
    let pulsar: BTreeSet<String> = names(
        &read("docs/research/pulsar-metrics-and-logs.md"),
        "pulsar_lb_",
    );
    assert!(pulsar.contains("pulsar_lb_cpu_usage"));
    let queries = dashboard_queries() + &read("deploy/prometheus/lbplan-rules.yml");
    let ours = names(&queries, "lbplan_");
    let theirs = names(&queries, "pulsar_lb_");
    let unknown: Vec<_> = ours.difference(&exposed).collect();
    assert!(
        unknown.is_empty(),
        "not exposed by lbplan watch: {unknown:?}"
    );
    let unknown: Vec<_> = theirs.difference(&pulsar).collect();
    assert!(
        unknown.is_empty(),
        "not a Pulsar metric in the notes: {unknown:?}"
    );
    // The dashboard shows both sides: the predictions and Pulsar's own counts.
    assert!(ours.contains("lbplan_next_cycle_unloads"));
    assert!(ours.contains("lbplan_next_cycle_verdict"));
    assert!(ours.contains("lbplan_history_ping_pong_last_hour"));
    assert!(theirs.contains("pulsar_lb_unload_bundle_total"));
    // The checker finds what it looks for (a name that is not exposed is caught).
    assert!(!exposed.contains("lbplan_next_cycle_unload"));
    assert_eq!(
        names("x lbplan_next_cycle_unload{a} y_lbplan_z", "lbplan_"),
        BTreeSet::from(["lbplan_next_cycle_unload".to_string()])
    );
}
