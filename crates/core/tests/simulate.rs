//! Multi-cycle simulations on small clusters whose outcome follows from the algorithms (derivations
//! in the comments), plus determinism, cancellation and the built-in scenarios.
//!
//! Test clusters use CPU as the only resource (NIC limits 0 → 0 %), CPU limit 100 and no idle
//! baseline, and give every broker the same cost (1 % of CPU per MiB/s of throughput), so a broker's
//! weighted max usage is exactly (its MiB/s) %. Bundles carry inbound traffic only and have no
//! stored `BundleData`: the first sample replaces Pulsar's defaults (the window starts empty), so
//! the leader's short-term throughput of a bundle is its traffic from cycle 0 on.

use indexmap::IndexMap;
use lbplan_core::model::{
    BrokerSnapshot, LocalBrokerData, NamespaceBundleStats, ResourceUsage, SNAPSHOT_FORMAT_VERSION,
    Snapshot,
};
use lbplan_core::simulate::scenario::{Event, EventKind};
use lbplan_core::simulate::{
    OwnershipChange, RunConfig, RunOptions, Scenario, SimulationRun, builtin_scenario,
    builtin_scenario_names, builtin_snapshot, compare, simulate, snapshot_after,
};

const MIB: f64 = 1024.0 * 1024.0;

/// A bundle: (range suffix, MiB/s in, msg/s in).
type B = (&'static str, f64, f64);

fn broker(bundles: &[B]) -> BrokerSnapshot {
    let stats: IndexMap<String, NamespaceBundleStats> = bundles
        .iter()
        .map(|(range, mib, rate)| {
            (
                format!("t/ns/{range}"),
                NamespaceBundleStats {
                    msg_throughput_in: mib * MIB,
                    msg_rate_in: *rate,
                    topics: 1,
                    ..NamespaceBundleStats::default()
                },
            )
        })
        .collect();
    let total_mib: f64 = bundles.iter().map(|b| b.1).sum();
    let mut local = LocalBrokerData {
        cpu: ResourceUsage::new(total_mib, 100.0),
        ..LocalBrokerData::default()
    };
    local.set_last_stats(stats);
    BrokerSnapshot {
        local_broker_data: local,
        ..BrokerSnapshot::default()
    }
}

fn snapshot(brokers: Vec<(&str, Vec<B>)>) -> Snapshot {
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    for (name, bundles) in brokers {
        s.brokers.insert(name.to_string(), broker(&bundles));
    }
    s
}

/// Ranges of 16 equal bundles of `t/ns` (only names matter here).
const R: [&str; 16] = [
    "0x00000000_0x10000000",
    "0x10000000_0x20000000",
    "0x20000000_0x30000000",
    "0x30000000_0x40000000",
    "0x40000000_0x50000000",
    "0x50000000_0x60000000",
    "0x60000000_0x70000000",
    "0x70000000_0x80000000",
    "0x80000000_0x90000000",
    "0x90000000_0xa0000000",
    "0xa0000000_0xb0000000",
    "0xb0000000_0xc0000000",
    "0xc0000000_0xd0000000",
    "0xd0000000_0xe0000000",
    "0xe0000000_0xf0000000",
    "0xf0000000_0xffffffff",
];

/// Broker A with 9 bundles of 10 MiB/s and 100 msg/s (90 %), broker B with one of 10 MiB/s and
/// 1000 msg/s (10 %).
fn ninety_ten() -> Snapshot {
    let a: Vec<B> = R.iter().take(9).map(|r| (*r, 10.0, 100.0)).collect();
    let b: Vec<B> = vec![(R[9], 10.0, 1000.0)];
    snapshot(vec![("a:8080", a), ("b:8080", b)])
}

fn quiet() -> Scenario {
    let mut s = Scenario::steady();
    s.load.idle_cpu_fraction = 0.0;
    s
}

fn run(snap: &Snapshot, scenario: &Scenario, config: &str, cycles: u32) -> SimulationRun {
    simulate(
        snap,
        scenario,
        &RunConfig::parse(config).unwrap(),
        RunOptions {
            cycles,
            seed: 0,
            record_broker_usage: true,
            record_ownership: true,
        },
        &mut |_, _| true,
    )
    .unwrap()
}

fn unload_cycles(r: &SimulationRun) -> Vec<(u32, usize)> {
    r.cycles
        .iter()
        .filter(|c| c.bundles_unloaded > 0)
        .map(|c| (c.cycle, c.bundles_unloaded))
        .collect()
}

#[test]
fn threshold_shedder_balances_90_10_in_one_cycle() {
    // Cycle 0: no history, so avgUsage = {A 0.9, B 0.1}, mean 0.5; A >= 0.5 + 0.1 is shed:
    // need = 90 MiB/s × (0.9 − 0.5 − 0.1 + 0.05) = 31.5 MiB/s → bundles of 10 are taken while
    // less than 31.5 is marked: 4 bundles (40 MiB/s). LeastLongTermMessageRate scores A +inf (90 % >
    // 85 %), so all 4 go to B. Cycle 1: A = B = 50 %, std 0.
    // The EWMA (h = 0.9) still shows A at 0.5 + 0.4·0.9^k, above 0.6 until k = 14, so ThresholdShedder
    // keeps selecting 2 bundles of A; but LeastLongTermMessageRate then prefers A (5 × 100 msg/s
    // against B's 1000 + 4 × 100) — the current owner — so every later decision is skipped.
    let r = run(&ninety_ten(), &quiet(), "name=t", 30);
    assert_eq!(unload_cycles(&r), vec![(0, 4)]);
    assert_eq!(r.cycles[0].std_usage_fraction, 0.4);
    assert_eq!(r.cycles[1].std_usage_fraction, 0.0);
    assert_eq!(r.cycles[1].broker_usage_fraction["a:8080"], 0.5);
    // Balanced (std < 0.1) from cycle 1, three cycles in a row.
    assert_eq!(r.summary.balanced_at_cycle, Some(1));
    assert_eq!(r.summary.balanced_after_minutes, Some(1));
    assert_eq!(r.summary.total_unloads, 4);
    assert!(r.summary.balanced_at_end);
    // Bytes, not a sum of rates: 40 MiB/s moved for one cycle of
    // loadBalancerSheddingIntervalMinutes = 1 minute (60 s).
    assert_eq!(r.cycles[0].bytes_moved_per_sec, 40.0 * MIB);
    assert_eq!(r.summary.total_bytes_moved, 40.0 * MIB * 60.0);
    // 90 % at most: nothing over capacity, nothing to flag.
    assert_eq!(r.summary.cycles_over_capacity, 0);
    assert_eq!(r.summary.over_capacity_text(), None);
}

#[test]
fn load_beyond_capacity_is_flagged_in_every_cycle() {
    // A carries 9 × 40 MiB/s = 360 % of its CPU, B 10 %: 370 % of demand on 200 % of capacity,
    // so whatever the shedder does, some broker is over 100 % in every cycle.
    let a: Vec<B> = R.iter().take(9).map(|r| (*r, 40.0, 100.0)).collect();
    let b: Vec<B> = vec![(R[9], 10.0, 1000.0)];
    let snap = snapshot(vec![("a:8080", a), ("b:8080", b)]);
    let r = run(&snap, &quiet(), "name=t", 10);
    assert_eq!(r.cycles[0].max_usage_fraction, 3.6);
    assert_eq!(r.cycles[0].brokers_over_capacity, 1);
    assert_eq!(r.summary.cycles_over_capacity, 10);
    assert_eq!(r.summary.first_cycle_over_capacity, Some(0));
    // The peak is at least A's 360 % and at most the whole demand (370 %) on one broker.
    let peak = r.summary.peak_max_usage_fraction;
    assert!((3.6..=3.7).contains(&peak), "{peak}");
    let flag = r.summary.over_capacity_text().unwrap();
    assert!(
        flag.starts_with("overloaded beyond capacity in 10 of 10 cycles (from cycle 0, peak max"),
        "{flag}"
    );
}

#[test]
fn recorded_ownership_replays_the_moves() {
    // The 90/10 case above: cycle 0 moves 4 of A's bundles to B, nothing moves later.
    let snap = ninety_ten();
    let r = run(&snap, &quiet(), "name=t", 5);
    let moved: Vec<&OwnershipChange> = r.cycles[0].ownership.iter().collect();
    assert_eq!(moved.len(), 4);
    for c in &moved {
        let OwnershipChange::Owner { bundle, broker } = c else {
            panic!("unexpected change {c:?}");
        };
        assert_eq!(broker.as_deref(), Some("b:8080"));
        assert!(R[..9].iter().any(|r| *bundle == format!("t/ns/{r}")));
    }
    assert!(r.cycles[1..].iter().all(|c| c.ownership.is_empty()));
    let owned = |s: &Snapshot, b: &str| s.brokers[b].local_broker_data.bundles.len();
    let at0 = snapshot_after(&snap, &r.cycles, 0);
    assert_eq!((owned(&at0, "a:8080"), owned(&at0, "b:8080")), (9, 1));
    let at1 = snapshot_after(&snap, &r.cycles, 1);
    assert_eq!((owned(&at1, "a:8080"), owned(&at1, "b:8080")), (5, 5));
    assert_eq!(snapshot_after(&snap, &r.cycles, 5), at1);
}

#[test]
fn avg_shedder_waits_for_its_high_hit_count() {
    // Scores 90 and 10: gap 80 >= high threshold 40, so hitHigh becomes 1 at cycle 0 and 2 at
    // cycle 1, when AvgShedder acts. Rates: A 900 msg/s < B 1000, so rateNeed < 0; thrNeed =
    // (90 − 10) MiB/s × 0.2 = 16 → one bundle of 10 fits. Both counters are then cleared: the
    // next action needs two more cycles (cycle 3, scores 80/20, need 12 → one bundle). At 70/30
    // the gap is still 40 but need = 8 < 10: no bundle fits, forever. Std stays 0.2: never balanced.
    let r = run(
        &ninety_ten(),
        &quiet(),
        "loadBalancerLoadSheddingStrategy=AvgShedder;loadBalancerLoadPlacementStrategy=AvgShedder",
        20,
    );
    assert_eq!(unload_cycles(&r), vec![(1, 1), (3, 1)]);
    // Percentages are f32 in Pulsar: 30 % is 30.000002 %, hence the tolerance.
    let last = r.cycles.last().unwrap();
    assert!((last.broker_usage_fraction["a:8080"] - 0.7).abs() < 1e-6);
    assert!((last.broker_usage_fraction["b:8080"] - 0.3).abs() < 1e-6);
    assert_eq!(r.summary.balanced_at_cycle, None);
}

#[test]
fn overload_shedder_never_acts_below_85_percent() {
    // 7 bundles of 12 MiB/s = 84 % (f32 percent of 84/100 is below 85) against 10 %.
    let a: Vec<B> = R.iter().take(7).map(|r| (*r, 12.0, 100.0)).collect();
    let snap = snapshot(vec![("a:8080", a), ("b:8080", vec![(R[9], 10.0, 100.0)])]);
    let r = run(
        &snap,
        &quiet(),
        "loadBalancerLoadSheddingStrategy=OverloadShedder",
        50,
    );
    assert_eq!(r.summary.total_unloads, 0);
    // At 90 %: need = 90 × (0.9 − 0.85 + 0.05) = 9 MiB/s; the first bundle is always taken (10), then
    // A is at 80 % and never again above 85 %.
    let r = run(
        &ninety_ten(),
        &quiet(),
        "loadBalancerLoadSheddingStrategy=OverloadShedder",
        50,
    );
    assert_eq!(unload_cycles(&r), vec![(0, 1)]);
}

#[test]
fn a_crash_moves_exactly_the_crashed_brokers_bundles() {
    let snap = snapshot(vec![
        (
            "a:8080",
            R[0..3].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
        (
            "b:8080",
            R[3..8].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
        (
            "c:8080",
            R[8..10].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
    ]);
    let mut scenario = quiet();
    // Shedding off, so only the crash moves bundles.
    scenario.settings = vec![("loadBalancerSheddingEnabled".into(), "false".into())];
    scenario.events.push(Event {
        cycle: 2,
        kind: EventKind::RemoveBroker {
            broker: "b:8080".into(),
        },
    });
    let r = run(&snap, &scenario, "", 5);
    let reassigned: Vec<usize> = r.cycles.iter().map(|c| c.bundles_reassigned).collect();
    assert_eq!(reassigned, vec![0, 0, 5, 0, 0]);
    // Recorded: b's 5 bundles lose their owner, then each gets a or c.
    let changes = &r.cycles[2].ownership;
    assert_eq!(changes.len(), 10);
    assert!(
        changes[..5]
            .iter()
            .all(|c| matches!(c, OwnershipChange::Owner { broker: None, .. }))
    );
    let after = snapshot_after(&snap, &r.cycles, 3);
    let count = |b: &str| after.brokers[b].local_broker_data.bundles.len();
    assert_eq!(
        (count("a:8080") + count("c:8080"), count("b:8080")),
        (10, 0)
    );
    assert_eq!(r.summary.total_unloads, 0);
    assert_eq!(r.cycles[2].brokers, 2);
    // All 100 MiB/s now on a and c: their usages add up to 100 %.
    let u = &r.cycles[2].broker_usage_fraction;
    assert!((u["a:8080"] + u["c:8080"] - 1.0).abs() < 1e-9);
    // `#1` names the same broker (snapshot order).
    scenario.events[0].kind = EventKind::RemoveBroker {
        broker: "#1".into(),
    };
    let r2 = run(&snap, &scenario, "", 5);
    assert_eq!(
        r2.cycles[2].broker_usage_fraction,
        r.cycles[2].broker_usage_fraction
    );
}

#[test]
fn rolling_restart_takes_each_broker_away_for_one_cycle() {
    let snap = snapshot(vec![
        (
            "a:8080",
            R[0..3].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
        (
            "b:8080",
            R[3..5].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
        (
            "c:8080",
            R[5..6].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
    ]);
    let mut scenario = quiet();
    scenario.settings = vec![("loadBalancerSheddingEnabled".into(), "false".into())];
    scenario.events.push(Event {
        cycle: 1,
        kind: EventKind::RollingRestart {
            brokers: Vec::new(),
            interval_cycles: 2,
        },
    });
    let r = run(&snap, &scenario, "", 8);
    // a away at 1 (back at 2), b away at 3 (back at 4), c away at 5 (back at 6).
    let brokers: Vec<usize> = r.cycles.iter().map(|c| c.brokers).collect();
    assert_eq!(brokers, vec![3, 2, 3, 2, 3, 2, 3, 3]);
    // A broker that comes back is empty: 0 % when back.
    assert_eq!(r.cycles[2].broker_usage_fraction["a:8080"], 0.0);
    assert_eq!(r.cycles[1].bundles_reassigned, 3);
    // Traffic is conserved through every restart: 60 MiB/s in all = 60 % summed over brokers.
    for c in &r.cycles {
        let total: f64 = c.broker_usage_fraction.values().sum();
        assert!((total - 0.6).abs() < 1e-6, "cycle {}: {total}", c.cycle);
    }
}

#[test]
fn thrashing_is_counted_on_a_back_and_forth() {
    // A: one 80 MiB/s bundle and one of 10 (90 %); B: one of 10. OverloadShedder takes the big one
    // (the first bundle is always taken), B then carries 90 % and sheds it back, and so on: with a
    // grace period of 0 the bundle may move every cycle. Each move from cycle 1 on returns it to the
    // broker it left one cycle earlier, inside the 5-cycle window.
    let snap = snapshot(vec![
        ("a:8080", vec![(R[0], 80.0, 100.0), (R[1], 10.0, 100.0)]),
        ("b:8080", vec![(R[2], 10.0, 100.0)]),
    ]);
    let mut scenario = quiet();
    scenario.settings = vec![("loadBalancerSheddingGracePeriodMinutes".into(), "0".into())];
    scenario.metrics.thrashing_window_cycles = Some(5);
    let r = run(
        &snap,
        &scenario,
        "loadBalancerLoadSheddingStrategy=OverloadShedder",
        6,
    );
    assert_eq!(
        unload_cycles(&r),
        (0..6).map(|c| (c, 1)).collect::<Vec<_>>()
    );
    let thrash: Vec<usize> = r.cycles.iter().map(|c| c.thrashing).collect();
    assert_eq!(thrash, vec![0, 1, 1, 1, 1, 1]);
    assert_eq!(r.summary.total_thrashing, 5);
    // Every source from cycle 1 on received the bundle the cycle before.
    assert_eq!(r.summary.total_unloads_from_recent_destinations, 5);
}

fn busy_scenario() -> Scenario {
    let mut s = builtin_scenario("broker-crash").unwrap().unwrap();
    s.load.noise_fraction = 0.05;
    s.load.heap = Some(lbplan_core::simulate::scenario::HeapModel {
        min_fraction: 0.2,
        max_fraction: 0.9,
        period_cycles: 4,
    });
    s
}

#[test]
fn same_inputs_same_bytes() {
    let snap = builtin_snapshot("demo").unwrap();
    let scenario = busy_scenario();
    let configs = vec![
        RunConfig::parse("name=t").unwrap(),
        RunConfig::parse(
            "name=lruww;loadBalancerLoadPlacementStrategy=LeastResourceUsageWithWeight",
        )
        .unwrap(),
    ];
    let opts = RunOptions {
        cycles: 90,
        seed: 42,
        record_broker_usage: true,
        record_ownership: false,
    };
    let one = compare(&snap, &scenario, &configs, opts, &mut |_, _| true).unwrap();
    let two = compare(&snap, &scenario, &configs, opts, &mut |_, _| true).unwrap();
    let (j1, j2) = (
        serde_json::to_string(&one).unwrap(),
        serde_json::to_string(&two).unwrap(),
    );
    assert_eq!(j1, j2);
    let other = compare(
        &snap,
        &scenario,
        &configs,
        RunOptions { seed: 43, ..opts },
        &mut |_, _| true,
    )
    .unwrap();
    assert_ne!(serde_json::to_string(&other).unwrap(), j1);
    // The crash happened and was absorbed.
    assert!(one.runs.iter().all(|r| r.summary.total_reassigned > 0));
}

#[test]
fn progress_reports_and_cancels() {
    let snap = ninety_ten();
    let mut seen = Vec::new();
    let c = compare(
        &snap,
        &quiet(),
        &[RunConfig::default(), RunConfig::default()],
        RunOptions {
            cycles: 10,
            seed: 0,
            record_broker_usage: false,
            record_ownership: false,
        },
        &mut |done, total| {
            seen.push((done, total));
            done < 13
        },
    )
    .unwrap();
    // 10 cycles of the first run, 3 of the second, then stop.
    assert_eq!(seen.len(), 13);
    assert_eq!(seen.last(), Some(&(13, 20)));
    assert_eq!(c.runs.len(), 2);
    assert!(!c.runs[0].cancelled);
    assert!(c.runs[1].cancelled);
    assert_eq!(c.runs[1].cycles.len(), 3);
}

#[test]
fn every_builtin_scenario_parses_and_runs() {
    let snap = builtin_snapshot("demo").unwrap();
    for name in builtin_scenario_names() {
        let s = builtin_scenario(name).unwrap().unwrap();
        assert_eq!(s.name, name);
        let c = compare(
            &snap,
            &s,
            &[],
            RunOptions {
                cycles: 45,
                seed: 1,
                record_broker_usage: false,
                record_ownership: false,
            },
            &mut |_, _| true,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.runs[0].cycles.len(), 45, "{name}");
    }
}

#[test]
fn unknown_broker_in_an_event_is_malformed() {
    let mut s = quiet();
    s.events.push(Event {
        cycle: 0,
        kind: EventKind::RemoveBroker {
            broker: "nope:1".into(),
        },
    });
    let err = simulate(
        &ninety_ten(),
        &s,
        &RunConfig::default(),
        RunOptions {
            cycles: 2,
            seed: 0,
            record_broker_usage: false,
            record_ownership: false,
        },
        &mut |_, _| true,
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("$.events[0].broker"), "{err}");
}

#[test]
fn a_crash_reassigns_isolated_bundles_only_to_the_remaining_primary() {
    // t/ns is isolated to primaries `a|b` (hosts match `a` and `b`, brokerId up to its last `:`),
    // min_limit 1: while one primary is live there is no failover. When a crashes, its 3 bundles
    // may go to b only, even though c (no bundles, 0 %) is what LeastLongTermMessageRate prefers.
    let mut snap = snapshot(vec![
        (
            "a:8080",
            R[0..3].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
        (
            "b:8080",
            R[3..6].iter().map(|r| (*r, 10.0, 100.0)).collect(),
        ),
        ("c:8080", Vec::new()),
    ]);
    snap.namespace_isolation_policies.insert(
        "orders-on-a-b".to_string(),
        lbplan_core::model::NamespaceIsolationPolicy {
            namespaces: vec!["t/ns".to_string()],
            primary: vec!["a|b".to_string()],
            secondary: Vec::new(),
            auto_failover_policy: Some(lbplan_core::model::AutoFailoverPolicy {
                policy_type: "min_available".to_string(),
                parameters: [("min_limit", "1"), ("usage_threshold", "80")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
        },
    );
    let mut scenario = quiet();
    scenario.settings = vec![("loadBalancerSheddingEnabled".into(), "false".into())];
    scenario.events.push(Event {
        cycle: 1,
        kind: EventKind::RemoveBroker {
            broker: "a:8080".into(),
        },
    });
    let r = run(&snap, &scenario, "", 3);
    assert_eq!(r.cycles[1].bundles_reassigned, 3);
    let to: Vec<Option<&str>> = r.cycles[1]
        .ownership
        .iter()
        .filter_map(|c| match c {
            OwnershipChange::Owner { broker, .. } => Some(broker.as_deref()),
            OwnershipChange::Split { .. } => None,
        })
        .collect();
    assert_eq!(
        to,
        vec![
            None,
            None,
            None,
            Some("b:8080"),
            Some("b:8080"),
            Some("b:8080")
        ]
    );
    // Without the policy the same crash sends them to c.
    snap.namespace_isolation_policies.clear();
    let r = run(&snap, &scenario, "", 3);
    assert!(r.cycles[1].ownership.iter().any(|c| matches!(
        c,
        OwnershipChange::Owner { broker: Some(b), .. } if b == "c:8080"
    )));
}
