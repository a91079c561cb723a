//! A mistyped `--set` key stops the command (exit 2) and names the key meant: a plan or a
//! simulation must not run on a setting the operator believes is applied.

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
const MEANT: &str = "did you mean `loadBalancerBrokerThresholdShedderPercentage`?";

fn assert_refused(out: &std::process::Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(MEANT), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing is planned");
}

#[test]
fn plan_set_with_a_typo_exits_2_naming_the_key() {
    assert_refused(&lbplan(&[
        "plan",
        DEMO,
        "--set",
        "loadBalancerBrokerThresholdShederPercentage=5",
    ]));
}

#[test]
fn plan_whatif_set_with_a_typo_exits_2() {
    assert_refused(&lbplan(&[
        "plan",
        DEMO,
        "--op",
        "set=loadBalancerBrokerThresholdShederPercentage=5",
    ]));
}

#[test]
fn plan_set_unrelated_key_exits_2_without_a_guess() {
    let out = lbplan(&["plan", DEMO, "--set", "brokerServicePort=6650"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`brokerServicePort` is not a load-balancing key"),
        "{stderr}"
    );
    assert!(!stderr.contains("did you mean"), "{stderr}");
}

#[test]
fn plan_set_known_key_still_applies() {
    let out = lbplan(&[
        "plan",
        DEMO,
        "--set",
        "loadBalancerBrokerThresholdShedderPercentage=5",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn simulate_set_and_compare_with_a_typo_exit_2() {
    assert_refused(&lbplan(&[
        "simulate",
        DEMO,
        "--cycles",
        "1",
        "--no-progress",
        "--set",
        "loadBalancerBrokerThresholdShederPercentage=5",
    ]));
    assert_refused(&lbplan(&[
        "simulate",
        DEMO,
        "--cycles",
        "1",
        "--no-progress",
        "--compare",
        "name=a;loadBalancerBrokerThresholdShederPercentage=5",
    ]));
}
