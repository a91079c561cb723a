//! A simulation's size is bounded (1 to 100,000 cycles, the dashboard's
//! range; at most 100,000 events) and refused beyond with the allowed range; events cost
//! O(n log n), so 100,000 `add_broker` events run (they took minutes: 10,000 took 9.8 s and the
//! cost grew quadratically); a spike target that selects nothing is warned about, by JSON path.

use lbplan_core::model::{
    BrokerSnapshot, LocalBrokerData, NamespaceBundleStats, ResourceUsage, SNAPSHOT_FORMAT_VERSION,
    Snapshot,
};
use lbplan_core::simulate::{
    MAX_CYCLES, MAX_EVENTS, RunConfig, RunOptions, Scenario, ScenarioError, SimulateError, simulate,
};

fn two_brokers() -> Snapshot {
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    for (name, ranges) in [
        ("a:8080", &["0x00000000_0x80000000"][..]),
        ("b:8080", &["0x80000000_0xffffffff"][..]),
    ] {
        let mut local = LocalBrokerData {
            cpu: ResourceUsage::new(10.0, 100.0),
            ..LocalBrokerData::default()
        };
        local.set_last_stats(
            ranges
                .iter()
                .map(|r| {
                    (
                        format!("t/ns/{r}"),
                        NamespaceBundleStats {
                            msg_throughput_in: 1_000_000.0,
                            msg_rate_in: 100.0,
                            topics: 1,
                            ..NamespaceBundleStats::default()
                        },
                    )
                })
                .collect(),
        );
        s.brokers.insert(
            name.to_string(),
            BrokerSnapshot {
                local_broker_data: local,
                ..BrokerSnapshot::default()
            },
        );
    }
    s
}

fn opts(cycles: u32) -> RunOptions {
    RunOptions {
        cycles,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    }
}

fn malformed(text: &str) -> (String, String) {
    match Scenario::from_json_text(text) {
        Err(ScenarioError::Malformed { path, message }) => (path, message),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_core_limit_is_the_dashboards_range() {
    // The dashboard's simulate panel offers 1 to 100,000 cycles.
    assert_eq!(MAX_CYCLES, 100_000);
    assert_eq!(MAX_EVENTS, 100_000);
}

#[test]
fn a_scenario_asking_for_u32_max_cycles_is_refused_with_the_range() {
    // The issue's file: accepted before, then aborted after 53 s at 4 GB.
    let (path, message) =
        malformed(r#"{"format_version": 1, "name": "forever", "cycles": 4294967295}"#);
    assert_eq!(path, "$.cycles");
    assert!(message.contains("1 to 100000"), "{message}");
    let (path, _) = malformed(r#"{"format_version": 1, "cycles": 0}"#);
    assert_eq!(path, "$.cycles");
    let ok = Scenario::from_json_text(r#"{"format_version": 1, "cycles": 100000}"#).unwrap();
    assert_eq!(ok.cycles, Some(100_000));
}

#[test]
fn a_run_of_u32_max_cycles_is_refused_before_it_starts() {
    let mut progressed = 0;
    let err = simulate(
        &two_brokers(),
        &Scenario::steady(),
        &RunConfig::default(),
        opts(u32::MAX),
        &mut |_, _| {
            progressed += 1;
            true
        },
    )
    .unwrap_err();
    assert_eq!(err, SimulateError::Cycles { cycles: u32::MAX });
    assert!(err.to_string().contains("1 to 100000"), "{err}");
    assert_eq!(progressed, 0);
}

#[test]
fn more_events_than_the_limit_are_refused_at_their_path() {
    let event = r#"{"cycle": 1, "kind": "set_config", "key": "loadBalancerSheddingEnabled", "value": "true"}"#;
    let events = vec![event; MAX_EVENTS + 1].join(",");
    let (path, message) = malformed(&format!(r#"{{"format_version": 1, "events": [{events}]}}"#));
    assert_eq!(path, "$.events");
    assert!(message.contains("100000"), "{message}");
}

#[test]
fn a_hundred_thousand_add_broker_events_run() {
    // Before: each event scanned every broker (lookup by id), re-sorted the leader's broker list
    // and told the strategies the whole list, and every cycle scanned every event: 10,000 events
    // took 9.8 s, 100,000 timed out. Now a cycle's events cost one pass over the list.
    let n = 100_000;
    let events: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"cycle": 1, "kind": "add_broker", "broker": "n{i:06}:8080"}}"#))
        .collect();
    let text = format!(
        r#"{{"format_version": 1, "load": {{"idle_cpu_fraction": 0}}, "events": [{}]}}"#,
        events.join(",")
    );
    let scenario = Scenario::from_json_text(&text).unwrap();
    assert_eq!(scenario.events.len(), n);
    let run = simulate(
        &two_brokers(),
        &scenario,
        &RunConfig::default(),
        opts(3),
        &mut |_, _| true,
    )
    .unwrap();
    let brokers: Vec<usize> = run.cycles.iter().map(|c| c.brokers).collect();
    assert_eq!(brokers, [2, 2 + n, 2 + n]);
    assert_eq!(run.cycles[1].events.len(), n);
}

#[test]
fn spike_targets_that_select_nothing_are_warned_about_by_path() {
    let text = r#"{"format_version": 1, "load": {"spikes": [
        {"bundles": ["t/ns/0x00000000_0x80000000", "t/ns/0x00000000_0x40000000"]},
        {"namespace": "t/missing"},
        {"top_bundles": 0},
        {"namespace": "t/ns"}
    ]}}"#;
    let scenario = Scenario::from_json_text(text).unwrap();
    let run = simulate(
        &two_brokers(),
        &scenario,
        &RunConfig::default(),
        opts(1),
        &mut |_, _| true,
    )
    .unwrap();
    let spike_warnings: Vec<&String> = run
        .warnings
        .iter()
        .filter(|w| w.starts_with("$.load.spikes"))
        .collect();
    assert_eq!(spike_warnings.len(), 3, "{:?}", run.warnings);
    assert!(spike_warnings[0].starts_with("$.load.spikes[0].bundles[1]: "));
    assert!(spike_warnings[0].contains("t/ns/0x00000000_0x40000000"));
    assert!(spike_warnings[1].starts_with("$.load.spikes[1].namespace: "));
    assert!(spike_warnings[1].contains("t/missing"));
    assert!(spike_warnings[2].starts_with("$.load.spikes[2].top_bundles: "));
}
