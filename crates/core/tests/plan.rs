//! Plans on small hand-built snapshots: the decision, the destination, the load after the move,
//! determinism, the exports and their refusal of hostile names. Expected numbers are derived in the
//! comments from the reference (§7, §8) and `docs/plan-model.md`.

use indexmap::IndexMap;
use lbplan_core::config::Profile;
use lbplan_core::model::{
    BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats, NamespaceSnapshot,
    ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageMessageData,
};
use lbplan_core::naming::{NamespaceBundles, default_boundaries};
use lbplan_core::plan::export::{ExportOptions, ScriptFormat, export_script};
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{PlanRequest, make_plan};

const MB: f64 = 1_000_000.0;

fn window(thr_each_way: f64, rate_each_way: f64, max: i32) -> TimeAverageMessageData {
    TimeAverageMessageData {
        max_samples: max,
        num_samples: max,
        msg_throughput_in: thr_each_way,
        msg_throughput_out: thr_each_way,
        msg_rate_in: rate_each_way,
        msg_rate_out: rate_each_way,
    }
}

/// A broker with `cpu` percent of 100 and the given bundles (name, throughput each way, rate each way).
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

fn bundle_data(thr: f64, rate: f64) -> BundleData {
    BundleData {
        short_term_data: window(thr, rate, 10),
        long_term_data: window(thr, rate, 1000),
        topics: 4,
    }
}

/// The situation of the oracle's `handmade-threshold_1_basic`: b1 at 90 % cpu carrying 200 MB/s in
/// two bundles (120 and 80 MB/s), b2 at 10 % with a tiny bundle. Namespace `t/ns` has 16 bundles.
fn threshold_snapshot(version: &str) -> Snapshot {
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
    s.bundle_data.insert(b0, bundle_data(60.0 * MB, 500.0));
    s.bundle_data.insert(b1, bundle_data(40.0 * MB, 500.0));
    s.bundle_data.insert(b2, bundle_data(1000.0, 10.0));
    s.namespaces.insert(
        ns.into(),
        NamespaceSnapshot {
            bundles: layout.to_bundles_data(),
            ..NamespaceSnapshot::default()
        },
    );
    s
}

fn request(profile: Profile) -> PlanRequest {
    PlanRequest {
        profile: Some(profile),
        ..PlanRequest::leader_cycle()
    }
}

#[test]
fn threshold_shedder_moves_the_largest_bundle_to_the_least_loaded_broker() {
    let snap = threshold_snapshot("4.0.7");
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    // avg = (0.9 + 0.1) / 2 = 0.5; b1 ≥ 0.5 + 0.1 → shed (0.9 − 0.5 − 0.1 + 0.05) × 200 MB/s = 70 MB/s;
    // the largest bundle (120 MB/s) alone covers it (§7.1).
    assert_eq!(plan.unloads.len(), 1, "{plan:#?}");
    let u = &plan.unloads[0];
    assert_eq!(u.bundle, "t/ns/0x00000000_0x10000000");
    assert_eq!(u.from, "b1:8080");
    // LeastLongTermMessageRate: b2's long-term rate (20 msg/s) is below b1's (2000) → b2 (§8.1).
    assert_eq!(u.to.as_deref(), Some("b2:8080"));
    assert!(u.pass_destination);
    assert_eq!(u.bytes_per_sec, 120.0 * MB);
    // The bundle carries 120/200 of b1's throughput, so 0.6 × 90 cpu units move: b1 36 %, b2 64 %.
    let after = |b: &str| {
        plan.brokers_after
            .iter()
            .find(|v| v.broker == b)
            .unwrap()
            .weighted_max_usage_fraction
    };
    assert!((after("b1:8080") - 0.36).abs() < 1e-6);
    assert!((after("b2:8080") - 0.64).abs() < 1e-6);
    assert!((plan.balance_before.std_usage_fraction - 0.4).abs() < 1e-6);
    assert!((plan.balance_after.std_usage_fraction - 0.14).abs() < 1e-6);
    assert_eq!(
        plan.brokers_after
            .iter()
            .find(|v| v.broker == "b2:8080")
            .unwrap()
            .bundle_count,
        2
    );
}

#[test]
fn plans_are_deterministic() {
    let snap = threshold_snapshot("4.0.7");
    let a = serde_json::to_string(&make_plan(&snap, &request(Profile::Pulsar4x)).unwrap()).unwrap();
    let b = serde_json::to_string(&make_plan(&snap, &request(Profile::Pulsar4x)).unwrap()).unwrap();
    assert_eq!(a, b);
    assert!(a.starts_with("{\"format_version\":2,\"snapshot_fingerprint\":\"fnv1a64:"));
}

#[test]
fn profile_is_detected_from_broker_versions() {
    let plan = make_plan(&threshold_snapshot("5.0.0"), &PlanRequest::leader_cycle()).unwrap();
    assert_eq!(plan.profile, "5.0");
    assert_eq!(plan.shedding_strategy, lbplan_core::config::AVG_SHEDDER);
    assert_eq!(plan.placement_strategy, lbplan_core::config::AVG_SHEDDER);
}

#[test]
fn avg_shedder_waits_for_its_hit_count_and_the_outlook_says_when() {
    // 5.0 profile: AvgShedder for both roles. Scores 90 vs 10 differ by 80 ≥ the high threshold (40):
    // the high hit count reaches loadBalancerAvgShedderHitCountHighThreshold (2) at the 2nd cycle (§7.4).
    let plan = make_plan(&threshold_snapshot("5.0.0"), &request(Profile::Pulsar50)).unwrap();
    assert!(plan.unloads.is_empty(), "{:#?}", plan.unloads);
    // At the 2nd cycle the pair triggers: thrNeed = (200 MB/s − 4 KB/s) × maxUnloadPercentage (0.2) ≈ 40 MB/s,
    // rateNeed = (2000 − 20) × 0.2 = 396 ≤ minUnloadMessage → the throughput metric; AvgShedder takes a
    // bundle only when it is ≤ the remaining need, and both bundles (120 and 80 MB/s) exceed 40 MB/s, so it
    // selects nothing, resets the pair's counters and starts over: it never acts at this setting.
    let outlook = plan
        .outlook
        .as_ref()
        .expect("an outlook when the first cycle does nothing");
    assert_eq!(outlook.acts_at_cycle, None);
    assert!(
        outlook
            .summary
            .contains("AvgShedder would not unload anything"),
        "{}",
        outlook.summary
    );
    // With maxUnloadPercentage 0.5 (the value the 5.0 documentation recommends beside AvgShedder) the need is
    // ≈ 100 MB/s: the 120 MB/s bundle is skipped, the 80 MB/s bundle is taken.
    let mut req = request(Profile::Pulsar50);
    req.settings
        .push(("maxUnloadPercentage".into(), "0.5".into()));
    let plan = make_plan(&threshold_snapshot("5.0.0"), &req).unwrap();
    let outlook = plan.outlook.expect("outlook");
    assert_eq!(outlook.acts_at_cycle, Some(2));
    assert_eq!(outlook.unloads_then.len(), 1);
    assert_eq!(outlook.unloads_then[0].bundle, "t/ns/0x10000000_0x20000000");
    // AvgShedder planned the low broker of the pair as destination.
    assert_eq!(outlook.unloads_then[0].to.as_deref(), Some("b2:8080"));
    assert!(
        outlook
            .summary
            .contains("AvgShedder unloads 1 bundle(s) from b1:8080 at cycle 2"),
        "{}",
        outlook.summary
    );
}

#[test]
fn classic_shedder_on_5_0_falls_back_to_least_long_term_message_rate_with_a_warning() {
    let mut req = request(Profile::Pulsar50);
    req.settings.push((
        "loadBalancerLoadSheddingStrategy".into(),
        "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder".into(),
    ));
    let plan = make_plan(&threshold_snapshot("5.0.0"), &req).unwrap();
    assert_eq!(
        plan.placement_strategy,
        lbplan_core::config::LEAST_LONG_TERM_MESSAGE_RATE
    );
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains("LeastLongTermMessageRate")),
        "{:?}",
        plan.warnings
    );
}

#[test]
fn manual_operations() {
    let snap = threshold_snapshot("4.0.7");
    let ops = vec![
        Operation::parse("unload-bundle=t/ns/0x10000000_0x20000000->b2:8080").unwrap(),
        Operation::parse("split-bundle=t/ns/0x20000000_0x30000000:range_equally_divide").unwrap(),
        Operation::parse("add-broker=b3:8080~b1:8080").unwrap(),
    ];
    let req = PlanRequest {
        operations: ops,
        leader_cycle: false,
        ..request(Profile::Pulsar4x)
    };
    let plan = make_plan(&snap, &req).unwrap();
    assert_eq!(plan.unloads.len(), 1);
    assert_eq!(plan.unloads[0].to.as_deref(), Some("b2:8080"));
    assert_eq!(plan.splits.len(), 1);
    // range_equally_divide cuts at lo + (hi − lo)/2 = 0x20000000 + 0x08000000 (§5.2).
    assert_eq!(plan.splits[0].boundaries, vec![0x2800_0000]);
    assert_eq!(
        plan.splits[0].new_bundles,
        vec!["t/ns/0x20000000_0x28000000", "t/ns/0x28000000_0x30000000"]
    );
    assert!(plan.splits[0].permanent);
    let b3 = plan
        .brokers_after
        .iter()
        .find(|b| b.broker == "b3:8080")
        .unwrap();
    assert_eq!((b3.bundle_count, b3.weighted_max_usage_fraction), (0, 0.0));

    let remove = PlanRequest {
        operations: vec![Operation::parse("remove-broker=b1:8080").unwrap()],
        leader_cycle: false,
        ..request(Profile::Pulsar4x)
    };
    let plan = make_plan(&snap, &remove).unwrap();
    assert_eq!(plan.unloads.len(), 2);
    assert!(
        plan.unloads
            .iter()
            .all(|u| u.from == "b1:8080" && u.to.as_deref() == Some("b2:8080"))
    );
    assert_eq!(plan.brokers_after.len(), 1);
    assert_eq!(plan.brokers_after[0].bundle_count, 3);

    let bad = PlanRequest {
        operations: vec![Operation::parse("unload-bundle=t/ns/0x30000000_0x40000000").unwrap()],
        ..request(Profile::Pulsar4x)
    };
    assert!(
        make_plan(&snap, &bad)
            .unwrap_err()
            .to_string()
            .contains("no broker in the snapshot owns this bundle")
    );
}

#[test]
fn exports_name_the_real_commands_and_the_rollback() {
    let plan = make_plan(&threshold_snapshot("4.0.7"), &request(Profile::Pulsar4x)).unwrap();
    let admin = export_script(
        &plan,
        ScriptFormat::PulsarAdmin,
        ExportOptions {
            pause_automatic_shedding: true,
            ..ExportOptions::default()
        },
    )
    .unwrap();
    assert!(admin.contains(
        "\"$PULSAR_ADMIN\" namespaces unload --bundle '0x00000000_0x10000000' --destinationBroker 'b2:8080' -- 't/ns'"
    ));
    assert!(admin.contains(
        "\"$PULSAR_ADMIN\" namespaces unload --bundle '0x00000000_0x10000000' --destinationBroker 'b1:8080' -- 't/ns'"
    ));
    assert!(admin.contains(
        "\"$PULSAR_ADMIN\" brokers update-dynamic-config --config loadBalancerSheddingEnabled --value \"$1\""
    ));
    assert!(admin.contains("  pause_shedding\n"));
    let curl = export_script(&plan, ScriptFormat::Curl, ExportOptions::default()).unwrap();
    assert!(curl.contains("call PUT '/admin/v2/namespaces/t/ns/0x00000000_0x10000000/unload?destinationBroker=b2%3A8080'"));
    assert!(!curl.contains("  pause_shedding\n"));
}

#[test]
fn hostile_names_are_refused_by_the_exports() {
    let mut snap = threshold_snapshot("4.0.7");
    let evil = "b2:8080$(touch /tmp/pwned)";
    let b2 = snap.brokers.shift_remove("b2:8080").unwrap();
    snap.brokers.insert(evil.to_string(), b2);
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    assert_eq!(plan.unloads[0].to.as_deref(), Some(evil));
    for format in [ScriptFormat::PulsarAdmin, ScriptFormat::Curl] {
        let err = export_script(&plan, format, ExportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a valid Pulsar name"), "{err}");
    }
}

/// Two extensible brokers: b1 at weightedMaxEMA 0.9 with bundles of 20 and 80 MB/s (ascending top list),
/// b2 at 0.1 with one small bundle.
fn extensible_snapshot() -> Snapshot {
    use lbplan_core::model::{BrokerLoadData, TopBundle, TopBundlesLoadData};
    let now = 1_700_000_000_000;
    let mut s = threshold_snapshot("4.0.7");
    s.captured_at_ms = Some(now);
    s.broker_conf.insert(
        "loadManagerClassName".into(),
        "org.apache.pulsar.broker.loadbalance.extensions.ExtensibleLoadManagerImpl".into(),
    );
    let top = |items: &[(&str, f64)]| TopBundlesLoadData {
        top_bundles_load_data: items
            .iter()
            .map(|(n, thr)| TopBundle {
                bundle_name: n.to_string(),
                stats: NamespaceBundleStats {
                    msg_throughput_in: *thr,
                    ..NamespaceBundleStats::default()
                },
            })
            .collect(),
    };
    let load = |ema: f64, thr: f64| BrokerLoadData {
        weighted_max_ema: ema,
        msg_throughput_in: thr,
        msg_throughput_ema: thr,
        updated_at: now - 1000,
        ..BrokerLoadData::default()
    };
    let b1 = s.brokers.get_mut("b1:8080").unwrap();
    b1.broker_load_data = Some(load(0.9, 100.0 * MB));
    b1.top_bundles_load_data = Some(top(&[
        ("t/ns/0x10000000_0x20000000", 20.0 * MB),
        ("t/ns/0x00000000_0x10000000", 80.0 * MB),
    ]));
    let b2 = s.brokers.get_mut("b2:8080").unwrap();
    b2.broker_load_data = Some(load(0.1, 1000.0));
    b2.top_bundles_load_data = Some(top(&[("t/ns/0x20000000_0x30000000", 1000.0)]));
    s
}

#[test]
fn extensible_snapshots_are_planned_with_transfer_shedder() {
    let plan = make_plan(&extensible_snapshot(), &request(Profile::Pulsar4x)).unwrap();
    assert_eq!(plan.load_manager, "extensible");
    assert_eq!(
        plan.shedding_strategy,
        lbplan_core::config::TRANSFER_SHEDDER
    );
    // std of {0.9, 0.1} = 0.4 > loadBalancerBrokerLoadTargetStd 0.25, so every cycle is a hit; the
    // shedder acts once the count exceeds loadBalancerSheddingConditionHitCountThreshold (3): cycle 4 (§9.3).
    assert!(plan.unloads.is_empty());
    let outlook = plan.outlook.expect("outlook");
    assert_eq!(outlook.acts_at_cycle, Some(4));
    // offload = (0.9 − 0.1)/2 = 0.4 → target 100 MB/s × 0.4 / 0.9 ≈ 44.4 MB/s; the walk is smallest first:
    // the 20 MB/s bundle fits, then one bundle is left and the walk stops.
    assert_eq!(outlook.unloads_then.len(), 1);
    let u = &outlook.unloads_then[0];
    assert_eq!(
        (u.bundle.as_str(), u.from.as_str(), u.to.as_deref()),
        ("t/ns/0x10000000_0x20000000", "b1:8080", Some("b2:8080"))
    );
    assert!(
        u.reason.starts_with("TransferShedder: Overloaded"),
        "{}",
        u.reason
    );

    let mut req = request(Profile::Pulsar4x);
    req.settings.push((
        "loadBalancerSheddingConditionHitCountThreshold".into(),
        "0".into(),
    ));
    let plan = make_plan(&extensible_snapshot(), &req).unwrap();
    assert_eq!(plan.unloads.len(), 1);
    assert_eq!(plan.unloads[0].to.as_deref(), Some("b2:8080"));
}
