//! ThresholdShedder with
//! `loadBalancerLoadPlacementStrategy=AvgShedder` (apache/pulsar#26031). On 3.x and 4.x the broker
//! logs a warning and falls back to `SimpleLoadManagerImpl`; the oracle's master refuses to start;
//! 5.0 places with LeastLongTermMessageRate and warns (reference §13.1).

use std::process::Command;

fn lbplan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

/// A one-broker load report from the real-exports corpus (`brokerVersionString` 3.0.2), with its
/// version replaced by `version`: the strategies are resolved before any cycle.
fn plan(profile: &str, version: &str) -> std::process::Output {
    let report = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/import_corpus/real/cluster-config/broker-1:8080.json");
    let text = std::fs::read_to_string(report)
        .unwrap()
        .replace("\"3.0.2\"", &format!("\"{version}\""));
    let dir = std::env::temp_dir().join(format!(
        "lbplan-profiles-{profile}-{version}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("broker-1:8080.json");
    std::fs::write(&file, text).unwrap();
    let o = lbplan(&[
        "plan",
        file.to_str().unwrap(),
        "--profile",
        profile,
        "--set",
        "loadBalancerLoadSheddingStrategy=ThresholdShedder",
        "--set",
        "loadBalancerLoadPlacementStrategy=AvgShedder",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    o
}

#[test]
fn avg_shedder_placement_with_threshold_shedder_tells_each_profiles_truth() {
    // Before apache/pulsar#26031 (4.0.12, 4.2.3, 5.0.0-M1) the broker falls back.
    for (profile, version) in [("3.3.1", "3.3.1"), ("4.0.7", "4.0.7"), ("4.0.11", "4.0.7")] {
        let o = plan(profile, version);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{profile}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "on Pulsar {profile} (before apache/pulsar#26031: 4.0.12, 4.2.3, 5.0.0-M1) the broker logs a warning and falls back to SimpleLoadManagerImpl, so this cluster is not running the modular load manager at all"
            )),
            "{profile}: {stderr}"
        );
        assert!(!stderr.contains("refuses to start"), "{stderr}");
    }
    for profile in ["master-90cba329", "4.0.12", "4.x"] {
        let o = plan(profile, "4.0.7");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("Pulsar refuses to start"), "{stderr}");
    }

    let o = plan("5.0", "5.0.0");
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("placement falls back to LeastLongTermMessageRate"),
        "{text}"
    );
}

/// On a 3.x release without AvgShedder (3.0.2, the corpus report's own version) the broker cannot
/// create it at all: placement is LeastLongTermMessageRate, so the pair is no mismatch.
#[test]
fn a_3x_release_without_avg_shedder_places_with_least_long_term_message_rate() {
    let o = plan("3.x", "3.0.2");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("Shedding: ThresholdShedder   Placement: LeastLongTermMessageRate"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "loadBalancerLoadPlacementStrategy is AvgShedder, which Pulsar 3.0.2 does not have"
        ),
        "{stdout}"
    );
}
