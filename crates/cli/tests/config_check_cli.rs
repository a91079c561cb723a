//! `lbplan config --snapshot S --check`: the snapshot's broker.conf against the leader's release
//! (the demo's brokers report 4.0.7). Releases from docs/versions.md: #24883
//! (`loadBalancerOverrideBrokerNics`) first in 4.2.0; #26031 (fail fast) in 4.0.12, 4.2.3,
//! 5.0.0-M1; PIP-358 (#22888, weighted overload checks) in 4.0.0.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The demo snapshot with `conf` set in its broker.conf, as JSON bytes (given on standard input).
fn demo_with(conf: &[(&str, &str)]) -> Vec<u8> {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("static/demo-snapshot.json")).unwrap();
    let mut snap: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (k, v) in conf {
        snap["broker_conf"][*k] = serde_json::Value::String((*v).to_string());
    }
    serde_json::to_vec(&snap).unwrap()
}

fn check(snapshot: &[u8], extra: &[&str]) -> Output {
    use std::io::Write as _;
    let mut args = vec!["config", "--snapshot", "-", "--check"];
    args.extend_from_slice(extra);
    let mut child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(snapshot).unwrap();
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_key_the_release_does_not_know_is_named_with_the_release_that_adds_it() {
    let s = demo_with(&[("loadBalancerOverrideBrokerNics", "eth0")]);
    let o = check(&s, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = out(&o);
    assert!(
        text.starts_with("Settings checked against Behaviour of Pulsar 4.0.7: the leader broker-00.demo.svc:8080 reports 4.0.7"),
        "{text}"
    );
    assert!(
        text.contains("warning: loadBalancerOverrideBrokerNics=eth0: Pulsar 4.0.7 has no such key"),
        "{text}"
    );
    assert!(
        text.contains("[apache/pulsar#24883 (first in 4.2.0, 5.0.0-M1)]"),
        "{text}"
    );
    // 4.2.0 has the key: nothing to say.
    let o = check(&s, &["--profile", "4.2.0"]);
    assert!(o.status.success());
    assert!(out(&o).contains("No finding"), "{}", out(&o));
}

#[test]
fn a_strategy_pair_that_falls_back_or_fails_is_an_error_on_both_sides_of_26031() {
    let s = demo_with(&[
        ("loadBalancerLoadSheddingStrategy", "ThresholdShedder"),
        ("loadBalancerLoadPlacementStrategy", "AvgShedder"),
    ]);
    let o = check(&s, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = out(&o);
    assert!(
        text.contains("falls back to SimpleLoadManagerImpl"),
        "{text}"
    );
    assert!(
        text.contains("[apache/pulsar#26031 (first in 4.0.12, 4.2.3, 5.0.0-M1)]"),
        "{text}"
    );
    let o = check(&s, &["--profile", "4.0.12"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).contains("Pulsar refuses to start"), "{}", out(&o));
}

#[test]
fn weights_the_release_ignores_are_named_before_pip_358() {
    let s = demo_with(&[
        ("loadBalancerLoadSheddingStrategy", "OverloadShedder"),
        ("loadBalancerCPUResourceWeight", "2.0"),
    ]);
    let o = check(&s, &["--profile", "3.3.9"]);
    assert!(o.status.success());
    let text = out(&o);
    assert!(
        text.contains("loadBalancerCPUResourceWeight=2.0: on Pulsar 3.3.9"),
        "{text}"
    );
    assert!(
        text.contains("apache/pulsar#22888 (first in 4.0.0"),
        "{text}"
    );
    // From 4.0.0 the weights reach the overload checks.
    let o = check(&s, &["--profile", "4.0.0"]);
    assert!(
        !out(&o).contains("loadBalancerCPUResourceWeight"),
        "{}",
        out(&o)
    );
}
