//! The 3.x profile: detected from `brokerVersionString`, and planned
//! where reference §13 says 3.x differs. Expected decisions are computed by hand in the comments
//! from §7.2 (OverloadShedder) and §13.

use indexmap::IndexMap;
use lbplan_core::config::{self, Profile, avg_shedder_available, version_older_than_modelled};
use lbplan_core::model::{
    BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats, NamespaceSnapshot,
    ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageMessageData,
};
use lbplan_core::naming::{NamespaceBundles, default_boundaries};
use lbplan_core::plan::{PlanRequest, make_plan};

const MB: f64 = 1_000_000.0;

fn window(thr: f64, rate: f64, max: i32) -> TimeAverageMessageData {
    TimeAverageMessageData {
        max_samples: max,
        num_samples: max,
        msg_throughput_in: thr,
        msg_throughput_out: thr,
        msg_rate_in: rate,
        msg_rate_out: rate,
    }
}

fn broker(cpu: f64, version: &str, bundles: &[(&str, f64, f64)]) -> BrokerSnapshot {
    let mut local = LocalBrokerData {
        cpu: ResourceUsage::new(cpu, 100.0),
        memory: ResourceUsage::new(0.0, 100.0),
        direct_memory: ResourceUsage::new(0.0, 100.0),
        bandwidth_in: ResourceUsage::new(0.0, 100.0),
        bandwidth_out: ResourceUsage::new(0.0, 100.0),
        broker_version_string: Some(version.to_string()),
        ..LocalBrokerData::default()
    };
    let stats: IndexMap<String, NamespaceBundleStats> = bundles
        .iter()
        .map(|(n, thr, rate)| {
            let s = NamespaceBundleStats {
                msg_rate_in: *rate,
                msg_rate_out: *rate,
                msg_throughput_in: *thr,
                msg_throughput_out: *thr,
                topics: 4,
                ..NamespaceBundleStats::default()
            };
            (n.to_string(), s)
        })
        .collect();
    local.set_last_stats(stats);
    BrokerSnapshot {
        local_broker_data: local,
        ..BrokerSnapshot::default()
    }
}

/// b1 at 90 % cpu with two bundles (120 and 80 MB/s both ways), b2 at 10 % with a tiny bundle;
/// `t/ns` has 16 bundles.
fn snapshot(version: &str) -> Snapshot {
    let ns = "t/ns";
    let layout = NamespaceBundles::new(ns, default_boundaries(16).unwrap_or_default()).unwrap();
    let names = layout.bundle_names();
    let (b0, b1, b2) = (names[0].clone(), names[1].clone(), names[2].clone());
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    s.brokers.insert(
        "b1:8080".into(),
        broker(
            90.0,
            version,
            &[(&b0, 60.0 * MB, 500.0), (&b1, 40.0 * MB, 500.0)],
        ),
    );
    s.brokers.insert(
        "b2:8080".into(),
        broker(10.0, version, &[(&b2, 1000.0, 10.0)]),
    );
    for (b, thr, rate) in [
        (b0, 60.0 * MB, 500.0),
        (b1, 40.0 * MB, 500.0),
        (b2, 1000.0, 10.0),
    ] {
        s.bundle_data.insert(
            b,
            BundleData {
                short_term_data: window(thr, rate, 10),
                long_term_data: window(thr, rate, 1000),
                topics: 4,
            },
        );
    }
    s.namespaces.insert(
        ns.into(),
        NamespaceSnapshot {
            bundles: layout.to_bundles_data(),
            ..NamespaceSnapshot::default()
        },
    );
    s
}

fn request(settings: &[(&str, &str)]) -> PlanRequest {
    PlanRequest {
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..PlanRequest::leader_cycle()
    }
}

#[test]
fn three_x_versions_select_the_3x_profile_and_older_ones_are_warned() {
    // Each version plans as its release (3.1 is no modelled line: the nearest known, 3.0.17).
    for (v, release) in [
        ("3.0.2", "3.0.2"),
        ("3.1.0", "3.0.17"),
        ("3.3.1-SNAPSHOT", "3.3.1"),
    ] {
        let plan = make_plan(&snapshot(v), &request(&[])).unwrap();
        assert_eq!(plan.profile, release, "{v}");
        // 3.x keeps the 4.x defaults (§13: ThresholdShedder since 2.10, 4 bundles).
        assert_eq!(plan.shedding_strategy, config::THRESHOLD_SHEDDER);
        assert_eq!(
            plan.placement_strategy,
            config::LEAST_LONG_TERM_MESSAGE_RATE
        );
    }
    let plan = make_plan(&snapshot("2.10.1"), &request(&[])).unwrap();
    assert_eq!(plan.profile, "3.0.0");
    assert!(
        plan.warnings.iter().any(|w| w.contains(
            "Pulsar 2.10.1 is not a release the planner knows: using the nearest known, 3.0.0"
        )),
        "{:?}",
        plan.warnings
    );
    assert!(version_older_than_modelled("2.10.1"));
    assert!(!version_older_than_modelled("3.0.0"));
    assert_eq!(Profile::from_broker_version("4.0.7").name(), "4.0.7");
    assert_eq!(Profile::parse("3.x"), Some(Profile::Pulsar3x));
    // §13: the UniformLoadShedder +1000 slack and the V1 heartbeat filter are in 3.x as in 4.0.x.
    assert!(Profile::Pulsar3x.uniform_shedder_slack());
    assert!(Profile::Pulsar3x.filters_v1_heartbeat_names());
    assert!(!Profile::Pulsar3x.avg_shedder_destinations_by_name());
}

/// §13: before PIP-358 OverloadShedder compares the *unweighted* max usage. With
/// `loadBalancerCPUResourceWeight=0.5`, b1's weighted max is 90 × 0.5 / 100 = 0.45 < 0.85: nothing
/// to shed on 4.x. Its unweighted max is 0.90 ≥ 0.85: on 3.x OverloadShedder sheds
/// (0.90 − 0.85 + 0.05) × 200 MB/s = 20 MB/s, taking bundles largest first: the 120 MB/s bundle
/// `t/ns/0x00000000_0x10000000` alone covers it (§7.2).
#[test]
fn overload_shedder_compares_the_unweighted_max_on_3x() {
    let settings = [
        ("loadBalancerLoadSheddingStrategy", "OverloadShedder"),
        ("loadBalancerCPUResourceWeight", "0.5"),
    ];
    let plan4 = make_plan(&snapshot("4.0.7"), &request(&settings)).unwrap();
    assert_eq!(plan4.profile, "4.0.7");
    assert!(plan4.unloads.is_empty(), "{:#?}", plan4.unloads);

    let plan3 = make_plan(&snapshot("3.0.2"), &request(&settings)).unwrap();
    assert_eq!(plan3.profile, "3.0.2");
    assert_eq!(plan3.unloads.len(), 1, "{:#?}", plan3.unloads);
    let u = &plan3.unloads[0];
    assert_eq!(u.bundle, "t/ns/0x00000000_0x10000000");
    assert_eq!(u.from, "b1:8080");
    // LeastLongTermMessageRate: b2 (10 % unweighted, not overloaded) has the lower long-term rate.
    assert_eq!(u.to.as_deref(), Some("b2:8080"));
}

/// §13: AvgShedder exists only since 3.0.6 / 3.2.4 / 3.3.1. On an older 3.x broker the modular
/// manager cannot create it: it sheds with OverloadShedder (`createLoadSheddingStrategy`) and
/// places with LeastLongTermMessageRate (`ModularLoadManagerStrategy.create`).
#[test]
fn avg_shedder_exists_only_from_3_0_6_3_2_4_3_3_1() {
    for (v, has) in [
        ("3.0.5", false),
        ("3.0.6", true),
        ("3.1.3", false),
        ("3.2.3", false),
        ("3.2.4", true),
        ("3.3.0", false),
        ("3.3.1", true),
        ("3.4.0", true),
        ("4.0.7", true),
        ("2.11.0", false),
    ] {
        assert_eq!(avg_shedder_available(v), has, "{v}");
    }
    let avg = [
        ("loadBalancerLoadSheddingStrategy", "AvgShedder"),
        ("loadBalancerLoadPlacementStrategy", "AvgShedder"),
    ];
    let plan = make_plan(&snapshot("3.1.0"), &request(&avg)).unwrap();
    assert_eq!(plan.shedding_strategy, config::OVERLOAD_SHEDDER);
    assert_eq!(
        plan.placement_strategy,
        config::LEAST_LONG_TERM_MESSAGE_RATE
    );
    assert!(
        plan.warnings.iter().any(|w| w.contains(
            "AvgShedder, which Pulsar 3.1.0 does not have (added in 3.0.6 / 3.2.4 / 3.3.1)"
        )),
        "{:?}",
        plan.warnings
    );
    let plan = make_plan(&snapshot("3.0.6"), &request(&avg)).unwrap();
    assert_eq!(plan.shedding_strategy, config::AVG_SHEDDER);
    assert_eq!(plan.placement_strategy, config::AVG_SHEDDER);
}

/// Item 11 (apache/pulsar#26031): ThresholdShedder with AvgShedder placement. Up to 4.x the broker
/// logs a warning and falls back to SimpleLoadManagerImpl; the oracle's master fails fast; 5.0
/// places with LeastLongTermMessageRate and warns (§13.1).
#[test]
fn avg_shedder_placement_with_threshold_shedder_per_profile() {
    let mixed = [
        ("loadBalancerLoadSheddingStrategy", "ThresholdShedder"),
        ("loadBalancerLoadPlacementStrategy", "AvgShedder"),
    ];
    // Before apache/pulsar#26031 (4.0.12, 4.2.3, 5.0.0-M1).
    for version in ["3.3.1", "4.0.7", "4.0.11"] {
        let e = make_plan(&snapshot(version), &request(&mixed))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "on Pulsar {version} (before apache/pulsar#26031: 4.0.12, 4.2.3, 5.0.0-M1) the broker logs a warning and falls back to SimpleLoadManagerImpl, so this cluster is not running the modular load manager at all"
            )),
            "{e}"
        );
        assert!(!e.contains("refuses to start"), "{e}");
    }
    let mut req = request(&mixed);
    req.profile = Some(Profile::Master90cba329);
    let e = make_plan(&snapshot("4.0.7"), &req).unwrap_err().to_string();
    assert!(e.contains("Pulsar refuses to start"), "{e}");
    // From 4.0.12 the 4.0 line fails fast too.
    let e = make_plan(&snapshot("4.0.12"), &request(&mixed))
        .unwrap_err()
        .to_string();
    assert!(e.contains("Pulsar refuses to start"), "{e}");
    let plan = make_plan(&snapshot("5.0.0"), &request(&mixed)).unwrap();
    assert_eq!(
        plan.placement_strategy,
        config::LEAST_LONG_TERM_MESSAGE_RATE
    );
}
