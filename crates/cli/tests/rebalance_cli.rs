//! `lbplan rebalance` on the demo snapshot: the plan JSON it prints is an ordinary plan (format 2)
//! whose unloads all name their destination, the pulsar-admin script passes `--destinationBroker`,
//! the proposal JSON carries the curve and the check, and bad arguments exit 2 with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lbplan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

const DEMO: &str = "static/demo-snapshot.json";

#[test]
fn json_is_a_plan_with_destinations() {
    let out = lbplan(&[
        "rebalance",
        DEMO,
        "--goal",
        "max/mean<=1.15",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["format_version"], 6);
    let unloads = plan["unloads"].as_array().unwrap();
    assert!(!unloads.is_empty());
    for u in unloads {
        assert_eq!(u["origin"], "rebalance");
        assert_eq!(u["reason"]["kind"], "rebalance");
        assert!(u["reason_text"].as_str().unwrap().starts_with("rebalance"));
        assert_eq!(u["pass_destination"], true);
        assert!(u["to"].is_string());
    }
    assert!(plan["balance_after"]["max_over_mean"].as_f64().unwrap() <= 1.15);
}

#[test]
fn scripts_and_proposal_json() {
    let out = lbplan(&[
        "rebalance",
        DEMO,
        "--format",
        "pulsar-admin",
        "--max-moves",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = String::from_utf8(out.stdout).unwrap();
    // Two unloads to their destinations, and the rollback's two unloads back to the sources.
    assert_eq!(script.matches("--destinationBroker").count(), 4, "{script}");
    assert!(script.contains("--destinationBroker 'broker-04.demo.svc:8080'"));
    let out = lbplan(&[
        "rebalance",
        DEMO,
        "--format",
        "proposal-json",
        "--max-moves",
        "2",
    ]);
    assert!(out.status.success());
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["format_version"], 2);
    assert_eq!(p["drain_status"], serde_json::json!([]));
    assert_eq!(p["chosen_moves"], 2);
    assert_eq!(p["curve"].as_array().unwrap().len(), 3);
    assert!(p["notes"][0].as_str().unwrap().contains("--max-moves 2"));
}

#[test]
fn bad_arguments_exit_2() {
    let out = lbplan(&["rebalance", DEMO, "--goal", "p99<=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("p99<=3"));
    let out = lbplan(&["rebalance", DEMO, "--drain", "nope:1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope:1"));
}

/// The short names the texts print (`broker-04`) are accepted where a broker is asked
/// for; a name that is no broker gets a "did you mean".
#[test]
fn short_broker_names_are_read_back() {
    let out = lbplan(&[
        "rebalance",
        DEMO,
        "--drain",
        "broker-04",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unloads = plan["unloads"].as_array().unwrap();
    assert!(!unloads.is_empty());
    // The plan keeps full ids.
    assert!(
        unloads
            .iter()
            .any(|u| u["from"] == "broker-04.demo.svc:8080")
    );
    let out = lbplan(&["rebalance", DEMO, "--drain", "broker-4"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--drain `broker-4`: no such broker in the snapshot; did you mean `broker-04.demo.svc:8080`?"),
        "{err}"
    );
    let out = lbplan(&[
        "plan",
        DEMO,
        "--manual-only",
        "--op",
        "unload-bundle=globex/clickstream/0xf0000000_0xf8000000->broker-03",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["unloads"][0]["to"], "broker-03.demo.svc:8080");
}

/// One unit and one notation for percentages: MiB/s (not MB/s) and `%` for the std.
#[test]
fn text_units_are_mib_and_percent() {
    let out = lbplan(&["rebalance", DEMO]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("MB/s"), "{text}");
    assert!(!text.contains("points"), "{text}");
    assert!(
        text.contains("Trade-off (moves → max/mean, std %, MiB/s moved):"),
        "{text}"
    );
}

/// A drain's outcome leads the text: a capped drain of the demo's broker-04 (it owns more than
/// one movable bundle) says first that it is not drained and what is still there; uncapped, that
/// it is drained and may be stopped.
#[test]
fn drain_status_comes_first() {
    let out = lbplan(&[
        "rebalance",
        DEMO,
        "--drain",
        "broker-04",
        "--max-moves",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("NOT DRAINED: broker-04 still owns ")
            && first.ends_with(" bundle(s) after these moves: do not stop it yet"),
        "{text}"
    );
    assert!(
        text.lines()
            .nth(1)
            .unwrap_or_default()
            .starts_with("  still there: "),
        "{text}"
    );
    let out = lbplan(&["rebalance", DEMO, "--drain", "broker-04"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("DRAINED: broker-04 is empty after these moves"),
        "{text}"
    );
}
