//! The CLI's text on a cluster the size and naming of a real Kubernetes one: 1,000 brokers whose
//! ids are 71 characters (`broker-0759.pulsar-broker-headless.pulsar-production-eu-west-1.svc:8080`,
//! `lbplan generate --spec bench --brokers 1000 --broker-domain …`). Plan, simulation, history and
//! rebalance text stay within 120 columns and name brokers short (core's `naming::BrokerNames`:
//! the domain all brokers share and the usual port dropped); the JSON keeps the full ids.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DOMAIN: &str = "pulsar-broker-headless.pulsar-production-eu-west-1";

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("runs lbplan")
}

fn stdout(args: &[&str]) -> String {
    let out = lbplan(args);
    assert!(
        out.status.success(),
        "lbplan {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-long-ids-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every line within 120 characters and no broker's domain in it.
fn assert_readable(what: &str, text: &str) {
    let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 120).collect();
    assert!(
        long.is_empty(),
        "{what}: {} lines over 120 columns: {long:#?}",
        long.len()
    );
    assert!(
        !text.contains(DOMAIN),
        "{what} names a broker by its full id:\n{text}"
    );
}

fn generate(dir: &Path) -> String {
    let snapshot = dir.join("k8s-1000.json");
    let path = snapshot.to_str().unwrap().to_string();
    stdout(&[
        "generate",
        "--spec",
        "bench",
        "--brokers",
        "1000",
        "--broker-domain",
        DOMAIN,
        "-o",
        &path,
    ]);
    path
}

#[test]
fn a_thousand_brokers_with_kubernetes_ids_read_short_within_120_columns() {
    let dir = scratch();
    let snapshot = generate(&dir);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&snapshot).unwrap()).unwrap();
    let ids: Vec<&String> = json["brokers"].as_object().unwrap().keys().collect();
    assert_eq!(ids.len(), 1000);
    assert!(ids.iter().all(|id| id.len() >= 60), "{:?}", ids.first());

    // The plan: on this cluster LeastLongTermMessageRate sends almost every unload to one broker
    // (the apache/pulsar#16059 pattern). The one line counts the sources and names where the
    // moves go; the verdict's warnings and the strategies' sentences name brokers short.
    let plan = stdout(&["plan", &snapshot]);
    assert_readable("plan", &plan);
    let one_line = plan
        .lines()
        .find(|l| l.contains(" moves, "))
        .unwrap_or_default();
    assert!(
        one_line.contains(" brokers → broker-"),
        "the one-line summary: {one_line}"
    );
    assert!(plan.starts_with("WORSE: "), "{plan}");
    assert!(plan.contains("unloads converge on broker-"), "{plan}");
    assert!(
        plan.contains("LeastLongTermMessageRate chose broker-"),
        "{plan}"
    );
    // A what-if against its baseline (shedding off: every move removed) names them short too.
    let diff = stdout(&[
        "plan",
        &snapshot,
        "--set",
        "loadBalancerSheddingEnabled=false",
        "--diff-baseline",
    ]);
    assert_readable("plan --diff-baseline", &diff);
    assert!(
        diff.lines()
            .any(|l| l.starts_with("- ") && l.contains(" broker-") && l.contains(" → broker-")),
        "{diff}"
    );
    // The plan as JSON keeps the ids an admin call needs.
    let plan_json: serde_json::Value =
        serde_json::from_str(&stdout(&["plan", &snapshot, "--format", "json"])).unwrap();
    let to = plan_json["unloads"][0]["to"].as_str().unwrap();
    assert!(to.ends_with(&format!(".{DOMAIN}.svc:8080")), "{to}");

    // Two simulated cycles recorded as a series, then explained.
    let series = dir.join("series");
    let sim = stdout(&[
        "simulate",
        &snapshot,
        "--cycles",
        "2",
        "--no-progress",
        "--record-series",
        series.to_str().unwrap(),
    ]);
    assert_readable("simulate", &sim);
    let history = stdout(&["history", series.to_str().unwrap()]);
    assert_readable("history", &history);
    assert!(
        history.contains("per broker (bundles received / given away"),
        "{history}"
    );

    // A rebalance bounded to a few moves (its check replays the leader once).
    let rebalance = stdout(&[
        "rebalance",
        &snapshot,
        "--max-moves",
        "12",
        "--outlook-cycles",
        "1",
    ]);
    assert_readable("rebalance", &rebalance);
    assert!(rebalance.contains("Would Pulsar undo it? "), "{rebalance}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broker_domain_that_is_not_a_dns_name_is_refused() {
    let out = lbplan(&["generate", "--broker-domain", "Pulsar_Prod"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("broker domain `Pulsar_Prod` is not a DNS name"),
        "{err}"
    );
}
