//! `lbplan config --snapshot S`: the snapshot's effective configuration as
//! `broker.conf` lines, with its differences from the profile's defaults first (as comments, so the
//! output is still a `broker.conf`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn the_demo_differs_from_4x_in_its_nic_speed_only() {
    // The demo's broker.conf sets loadBalancerOverrideBrokerNicSpeedGbps=2 (the plan's warning says
    // so); its brokers report 4.x versions. Pulsar leaves that key unset by default.
    let text = stdout(&lbplan(&[
        "config",
        "--snapshot",
        "static/demo-snapshot.json",
    ]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains(
            "(profile 4.0.7, the leader broker-00.demo.svc:8080 reports 4.0.7; the leader's release decides shedding and placement)"
        ),
        "{text}"
    );
    assert_eq!(lines[1], "# 1 key differs from the 4.0.7 defaults:");
    assert!(
        lines[2].starts_with("#   loadBalancerOverrideBrokerNicSpeedGbps=2")
            && lines[2].ends_with("(default: unset)"),
        "{text}"
    );
    // Then every key, as broker.conf lines: the same keys as the profile's own listing.
    let plain = stdout(&lbplan(&["config", "--profile", "4.x"]));
    let keys = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('=').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(keys(&text), keys(&plain));
    assert!(
        text.contains("\nloadBalancerOverrideBrokerNicSpeedGbps=2"),
        "{text}"
    );
    // Pulsar's 4.x default shedder.
    assert!(
        text.contains(
            "\nloadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder\n"
        ),
        "{text}"
    );
}

#[test]
fn a_chosen_profile_compares_against_its_defaults() {
    let text = stdout(&lbplan(&[
        "config",
        "--snapshot",
        "static/demo-snapshot.json",
        "--profile",
        "5.0",
    ]));
    assert!(
        text.contains("(profile 5.0.0, profile 5.0.0 chosen by the operator (the snapshot's brokers imply 4.0.7"),
        "{text}"
    );
    // 5.0's default shedder is AvgShedder; the snapshot does not set it, so it is effective.
    assert!(
        text.contains(
            "\nloadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.AvgShedder\n"
        ),
        "{text}"
    );
}
