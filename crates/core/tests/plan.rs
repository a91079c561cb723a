//! Plans on small hand-built snapshots: the decision, the destination, the load after the move,
//! determinism, the exports and their refusal of hostile names. Expected numbers are derived in the
//! comments from the reference (§7, §8) and `docs/plan-model.md`.

use indexmap::IndexMap;
use lbplan_core::act::export::{ExportOptions, ScriptFormat, export_script};
use lbplan_core::config::Profile;
use lbplan_core::model::{
    BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats, NamespaceSnapshot,
    ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageMessageData,
};
use lbplan_core::naming::{NamespaceBundles, default_boundaries};
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{PlanRequest, SkipScope, make_plan};

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
    // The one load model: b1's idle baseline is 5 % of its one core, so 85 of its 90 cpu units are
    // busy; the bundle carries 120/200 of b1's throughput, so 0.6 × 85 = 51 units move: b1 39 %,
    // b2 61 %.
    let after = |b: &str| {
        plan.brokers_after
            .iter()
            .find(|v| v.broker == b)
            .unwrap()
            .weighted_max_usage_fraction
    };
    assert!((after("b1:8080") - 0.39).abs() < 1e-6);
    assert!((after("b2:8080") - 0.61).abs() < 1e-6);
    assert!((plan.balance_before.std_usage_fraction - 0.4).abs() < 1e-6);
    assert!((plan.balance_after.std_usage_fraction - 0.11).abs() < 1e-6);
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
    assert!(a.starts_with("{\"format_version\":6,\"snapshot_fingerprint\":\"fnv1a64:"));
}

#[test]
fn profile_is_detected_from_broker_versions() {
    let plan = make_plan(&threshold_snapshot("5.0.0"), &PlanRequest::leader_cycle()).unwrap();
    assert_eq!(plan.profile, "5.0.0");
    let basis = plan.release_basis.as_ref().unwrap();
    assert_eq!(basis.source, lbplan_core::release::BasisSource::Majority);
    assert_eq!(plan.shedding_strategy, lbplan_core::config::AVG_SHEDDER);
    assert_eq!(plan.placement_strategy, lbplan_core::config::AVG_SHEDDER);
}

#[test]
fn avg_shedder_waits_for_its_hit_count_and_the_outlook_says_when() {
    // 5.0 profile: AvgShedder for both roles. Scores 90 vs 10 differ by 80 ≥ the high threshold (40):
    // the high hit count reaches loadBalancerAvgShedderHitCountHighThreshold (2) at the 2nd cycle (§7.4).
    // First at master's maxUnloadPercentage 0.2 (5.0.0 defaults to 0.5, below).
    let mut req = request(Profile::Pulsar50);
    req.settings
        .push(("maxUnloadPercentage".into(), "0.2".into()));
    let plan = make_plan(&threshold_snapshot("5.0.0"), &req).unwrap();
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
    // With maxUnloadPercentage 0.5 (5.0.0's default, #26609 and the 5.0 upgrade guide) the need is
    // ≈ 100 MB/s: the 120 MB/s bundle is skipped, the 80 MB/s bundle is taken.
    let req = request(Profile::Pulsar50);
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
        u.reason_text.starts_with("TransferShedder: Overloaded"),
        "{}",
        u.reason_text
    );
    // The machine-readable reason: std 0.4 against the target 0.25, load avg 0.5.
    assert_eq!(u.reason.kind, ReasonKind::TransferShedderOverloaded);
    close(&u.reason, "load_std_fraction", 0.4);
    close(&u.reason, "load_avg_fraction", 0.5);
    close(&u.reason, "target_std_fraction", 0.25);
    // The plan's own cycle skipped with HitCount (1 ≤ 3), as a cycle-level skip of its own kind.
    let first = make_plan(&extensible_snapshot(), &request(Profile::Pulsar4x)).unwrap();
    let skip = first
        .skipped
        .iter()
        .find(|s| s.reason.kind == ReasonKind::TransferShedderSkipped)
        .expect("the skipped cycle");
    assert_eq!(skip.reason.numbers["skip"], "HitCount");
    close(&skip.reason, "hit_count_threshold", 3.0);

    let mut req = request(Profile::Pulsar4x);
    req.settings.push((
        "loadBalancerSheddingConditionHitCountThreshold".into(),
        "0".into(),
    ));
    let plan = make_plan(&extensible_snapshot(), &req).unwrap();
    assert_eq!(plan.unloads.len(), 1);
    assert_eq!(plan.unloads[0].to.as_deref(), Some("b2:8080"));
}

// ---- Machine-readable reasons: every kind on a scenario where it appears. ----

use lbplan_core::reason::{DecisionReason, ReasonKind};

fn close(r: &DecisionReason, key: &str, want: f64) {
    let got = r
        .number(key)
        .unwrap_or_else(|| panic!("{key} missing in {r:?}"));
    assert!(
        (got - want).abs() <= want.abs() * 1e-6 + 1e-9,
        "{key}: {got} != {want} in {r:?}"
    );
}

fn with_settings(profile: Profile, settings: &[(&str, &str)]) -> PlanRequest {
    let mut req = request(profile);
    for (k, v) in settings {
        req.settings.push((k.to_string(), v.to_string()));
    }
    req
}

fn broker_skip(plan: &lbplan_core::plan::Plan, broker: &str) -> DecisionReason {
    plan.skipped
        .iter()
        .find(|s| {
            s.scope
                == SkipScope::Broker {
                    broker: broker.to_string(),
                }
        })
        .unwrap_or_else(|| panic!("no why-not for {broker}: {:#?}", plan.skipped))
        .reason
        .clone()
}

#[test]
fn unload_reason_names_the_rule_its_numbers_and_the_runner_up() {
    // threshold_snapshot plus b3 at 20 % cpu with one bundle of 50 msg/s each way.
    let mut snap = threshold_snapshot("4.0.7");
    let b3_bundle = "t/ns/0x30000000_0x40000000";
    snap.brokers.insert(
        "b3:8080".into(),
        broker(20.0, "4.0.7", &[(b3_bundle, 1000.0, 50.0)]),
    );
    snap.bundle_data
        .insert(b3_bundle.into(), bundle_data(1000.0, 50.0));
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    assert_eq!(plan.format_version, 6);
    let u = &plan.unloads[0];
    let r = &u.reason;
    assert_eq!(r.kind, ReasonKind::ThresholdShedder);
    // avg = (0.9 + 0.1 + 0.2) / 3 = 0.4; need = (0.9 − 0.4 − 0.1 + 0.05) × 200 MB/s = 90 MB/s (§7.1).
    close(r, "broker_usage_fraction", 0.9);
    close(r, "avg_usage_fraction", 0.4);
    close(r, "threshold_fraction", 0.1);
    close(r, "need_bytes_per_sec", 90.0 * MB);
    close(r, "bundle_bytes_per_sec", 120.0 * MB);
    // LeastLongTermMessageRate: long-term msgRateIn + msgRateOut — b2 20, b3 100, b1 over the
    // overload threshold (+inf, left out) (§8.1): b2 wins, b3 is the runner-up.
    assert_eq!(r.numbers["destination"], "b2:8080");
    close(r, "score", 20.0);
    assert_eq!(r.numbers["runner_up"], "b3:8080");
    close(r, "runner_up_score", 100.0);
    assert!(
        u.reason_text.ends_with("; runner-up b3:8080 at 100 msg/s"),
        "{}",
        u.reason_text
    );
    // The JSON shape: `reason` is the object, the text is `reason_text`.
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["unloads"][0]["reason"]["kind"], "threshold_shedder");
    assert!(json["unloads"][0]["reason_text"].is_string());
}

/// apache/pulsar#20822: b1 at 70 % cpu but a low message rate, b2 at 10 % with 100,000 msg/s.
/// avg 0.4, b1 ≥ 0.5 is shed; LeastLongTermMessageRate scores b1 2,000 < b2 200,000 (both under
/// the overload threshold) and chooses b1, the owner. The even-distribution filter is off so that
/// b1 stays a candidate.
fn owner_chosen_plan() -> lbplan_core::plan::Plan {
    let mut snap = threshold_snapshot("4.0.7");
    let b2_bundle = "t/ns/0x20000000_0x30000000";
    snap.brokers
        .get_mut("b1:8080")
        .unwrap()
        .local_broker_data
        .cpu = ResourceUsage::new(70.0, 100.0);
    snap.brokers.insert(
        "b2:8080".into(),
        broker(10.0, "4.0.7", &[(b2_bundle, 1000.0, 50_000.0)]),
    );
    snap.bundle_data
        .insert(b2_bundle.into(), bundle_data(1000.0, 50_000.0));
    let req = with_settings(
        Profile::Pulsar4x,
        &[("loadBalancerDistributeBundlesEvenlyEnabled", "false")],
    );
    make_plan(&snap, &req).unwrap()
}

#[test]
fn placement_that_chooses_the_current_owner_is_a_skip_of_its_own_kind() {
    let plan = owner_chosen_plan();
    assert!(plan.unloads.is_empty(), "{:#?}", plan.unloads);
    let skip = plan
        .skipped
        .iter()
        .find(|s| s.bundle().is_some())
        .expect("the selected bundle is skipped");
    let r = &skip.reason;
    assert_eq!(r.kind, ReasonKind::PlacementChoseCurrentOwner);
    assert_eq!(r.numbers["shedding"], "threshold_shedder");
    close(r, "broker_usage_fraction", 0.7);
    close(r, "avg_usage_fraction", 0.4);
    assert_eq!(r.numbers["destination"], "b1:8080");
    close(r, "score", 2000.0);
    assert_eq!(r.numbers["runner_up"], "b2:8080");
    close(r, "runner_up_score", 100_000.0);
}

#[test]
fn brokers_that_shed_nothing_say_why_with_numbers() {
    // below_min_throughput: b1 carries 10 MB/s; need = (0.9 − 0.5 − 0.1 + 0.05) × 10 MB/s = 3.5 MB/s
    // < loadBalancerBundleUnloadMinThroughputThreshold 10 MiB/s (§7.1).
    let mut snap = threshold_snapshot("4.0.7");
    let names: Vec<String> = snap.brokers["b1:8080"].local_broker_data.bundles.clone();
    snap.brokers.insert(
        "b1:8080".into(),
        broker(
            90.0,
            "4.0.7",
            &[(&names[0], 3.0 * MB, 500.0), (&names[1], 2.0 * MB, 500.0)],
        ),
    );
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::BelowMinThroughput);
    close(&r, "broker_bytes_per_sec", 10.0 * MB);
    close(&r, "need_bytes_per_sec", 3.5 * MB);
    close(&r, "min_throughput_bytes_per_sec", 10.0 * 1024.0 * 1024.0);

    // sole_bundle: b1 owns one bundle.
    let mut snap = threshold_snapshot("4.0.7");
    snap.brokers.insert(
        "b1:8080".into(),
        broker(90.0, "4.0.7", &[(&names[0], 100.0 * MB, 500.0)]),
    );
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::SoleBundle);
    close(&r, "bundles", 1.0);

    // recently_unloaded: both of b1's bundles were unloaded within the grace period.
    let mut snap = threshold_snapshot("4.0.7");
    snap.captured_at_ms = Some(1_000_000);
    for n in &names {
        snap.recently_unloaded_bundles.insert(n.clone(), 999_000);
    }
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::RecentlyUnloaded);
    close(&r, "recently_unloaded", 2.0);
    close(&r, "bundles", 2.0);
}

#[test]
fn uniform_and_avg_shedders_explain_the_broker_they_leave() {
    // UniformLoadShedder: msg rates 2,000 (b1) vs 20 (b2): difference (2000 − 20) × 100 / 20 = 9,900 %;
    // throughput 200 MB/s vs 2,000 B/s (1,000 each way): ratio 100,000 (§7.3).
    let uniform = |rate: &str, ratio: &str| {
        with_settings(
            Profile::Pulsar4x,
            &[
                (
                    "loadBalancerLoadSheddingStrategy",
                    "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder",
                ),
                ("loadBalancerMsgRateDifferenceShedderThreshold", rate),
                (
                    "loadBalancerMsgThroughputMultiplierDifferenceShedderThreshold",
                    ratio,
                ),
            ],
        )
    };
    // Both thresholds above both figures.
    let plan = make_plan(&threshold_snapshot("4.0.7"), &uniform("10000", "200000")).unwrap();
    assert!(plan.unloads.is_empty());
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::DifferenceBelowThreshold);
    close(&r, "msg_rate_difference_pct", 9900.0);
    close(&r, "msg_rate_difference_threshold_pct", 10_000.0);
    close(&r, "msg_throughput_ratio", 100_000.0);
    close(&r, "msg_throughput_ratio_threshold", 200_000.0);
    // Only the throughput ratio over its threshold: need = (200 MB/s − 2,000 B/s) × 0.2 = 39,999,600
    // (int); the bundles (120 and 80 MB/s) both exceed need + 1,000 (the 4.x slack).
    let plan = make_plan(&threshold_snapshot("4.0.7"), &uniform("10000", "60000")).unwrap();
    assert!(plan.unloads.is_empty());
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::NoBundleFits);
    close(&r, "need", 39_999_600.0);
    close(&r, "smallest_bundle_value", 80.0 * MB);

    // Uniform over the threshold but (2000 − 20) × maxUnloadPercentage 0.2 = 396 < minUnloadMessage 1000.
    let req = with_settings(
        Profile::Pulsar4x,
        &[
            (
                "loadBalancerLoadSheddingStrategy",
                "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder",
            ),
            ("minUnloadMessage", "1000"),
        ],
    );
    let plan = make_plan(&threshold_snapshot("4.0.7"), &req).unwrap();
    assert!(plan.unloads.is_empty());
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::BelowMinUnload);
    assert_eq!(r.numbers["metric"], "msg_rate");
    close(&r, "need", 396.0);
    close(&r, "min_unload", 1000.0);

    // AvgShedder (5.0): scores 90 vs 10, gap 80 ≥ loadBalancerAvgShedderHighThreshold 40; after the
    // first cycle both hit counts are 1 < 2 (high) and < 8 (low) (§7.4).
    let plan = make_plan(&threshold_snapshot("5.0.0"), &request(Profile::Pulsar50)).unwrap();
    let r = broker_skip(&plan, "b1:8080");
    assert_eq!(r.kind, ReasonKind::HitCountBelowThreshold);
    assert_eq!(r.numbers["low_broker"], "b2:8080");
    close(&r, "high_score_pct", 90.0);
    close(&r, "low_score_pct", 10.0);
    close(&r, "hit_count_high", 1.0);
    close(&r, "hit_count_high_threshold", 2.0);
    close(&r, "hit_count_low", 1.0);
    close(&r, "hit_count_low_threshold", 8.0);
}

#[test]
fn cycle_level_skips_splits_and_manual_operations_have_kinds() {
    let snap = threshold_snapshot("4.0.7");
    let req = with_settings(
        Profile::Pulsar4x,
        &[("loadBalancerSheddingEnabled", "false")],
    );
    let plan = make_plan(&snap, &req).unwrap();
    let r = &plan.skipped[0].reason;
    assert_eq!(r.kind, ReasonKind::SheddingDisabled);
    assert_eq!(r.numbers["loadBalancerSheddingEnabled"], false);

    let mut one = threshold_snapshot("4.0.7");
    one.brokers.shift_remove("b2:8080");
    let plan = make_plan(&one, &request(Profile::Pulsar4x)).unwrap();
    let r = &plan.skipped[0].reason;
    assert_eq!(r.kind, ReasonKind::SingleBroker);
    close(r, "available_brokers", 1.0);

    // Every bundle has 4 topics: with loadBalancerNamespaceBundleMaxTopics 3 the one not unloaded
    // splits (`topics > limit`, §5.3).
    let req = with_settings(
        Profile::Pulsar4x,
        &[("loadBalancerNamespaceBundleMaxTopics", "3")],
    );
    let plan = make_plan(&snap, &req).unwrap();
    let split = plan.splits.first().expect("an automatic split");
    assert_eq!(split.reason.kind, ReasonKind::SplitThresholdsExceeded);
    close(&split.reason, "topics", 4.0);
    close(&split.reason, "topics_limit", 3.0);

    let ops = vec![
        Operation::parse("unload-bundle=t/ns/0x10000000_0x20000000->b2:8080").unwrap(),
        Operation::parse("split-bundle=t/ns/0x20000000_0x30000000:range_equally_divide").unwrap(),
    ];
    let req = PlanRequest {
        operations: ops,
        leader_cycle: false,
        ..request(Profile::Pulsar4x)
    };
    let plan = make_plan(&snap, &req).unwrap();
    assert_eq!(
        plan.unloads[0].reason.kind,
        ReasonKind::ManualUnloadToDestination
    );
    assert_eq!(plan.unloads[0].reason.numbers["destination"], "b2:8080");
    assert_eq!(plan.splits[0].reason.kind, ReasonKind::ManualSplit);
    assert_eq!(
        plan.splits[0].reason.numbers["algorithm"],
        "range_equally_divide"
    );

    let remove = PlanRequest {
        operations: vec![Operation::parse("remove-broker=b1:8080").unwrap()],
        leader_cycle: false,
        ..request(Profile::Pulsar4x)
    };
    let plan = make_plan(&snap, &remove).unwrap();
    assert!(
        plan.unloads
            .iter()
            .all(|u| u.reason.kind == ReasonKind::RemoveBroker
                && u.reason.numbers["destination"] == "b2:8080")
    );
}

// ---- Plan diff against the baseline after a what-if. ----

#[test]
fn a_what_if_is_compared_with_its_baseline() {
    use lbplan_core::plan::diff::{DiffError, describe, diff_plans};
    let snap = threshold_snapshot("4.0.7");
    let baseline = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    // Threshold 10 → 50: avg 0.5 + 0.5 = 1.0 > b1's 0.9, nothing is shed (§7.1).
    let what_if = make_plan(
        &snap,
        &with_settings(
            Profile::Pulsar4x,
            &[("loadBalancerBrokerThresholdShedderPercentage", "50")],
        ),
    )
    .unwrap();
    let d = diff_plans(&baseline, &what_if).unwrap();
    assert!(d.moves_added.is_empty() && d.moves_changed.is_empty());
    assert_eq!(d.moves_removed.len(), 1);
    assert_eq!(d.moves_removed[0].bundle, "t/ns/0x00000000_0x10000000");
    assert_eq!(d.moves_removed[0].to.as_deref(), Some("b2:8080"));
    assert!(!d.identical_decisions);
    // Baseline std 0.4 → 0.11 (b1 39 %, b2 61 %); the what-if leaves 0.4; max 0.9 → 0.61 vs 0.9 → 0.9.
    assert!((d.baseline.before.std_usage_fraction - 0.4).abs() < 1e-6);
    assert!((d.baseline.after.std_usage_fraction - 0.11).abs() < 1e-6);
    assert!((d.what_if.after.std_usage_fraction - 0.4).abs() < 1e-6);
    assert!((d.baseline.after.max_usage_fraction - 0.61).abs() < 1e-6);
    assert!((d.what_if.after.max_usage_fraction - 0.9).abs() < 1e-6);
    let text = describe(&d);
    assert_eq!(
        text[0],
        "Against the baseline: 0 move(s) added, 1 removed, 0 sent elsewhere; 1 split(s) added, 0 removed."
    );
    // Not unloaded any more, the 120 MB/s bundle is over loadBalancerNamespaceBundleMaxBandwidthMbytes
    // (100 MiB/s = 104.9 MB/s), so BundleSplitterTask splits it (§5.3): a split the baseline did not make.
    assert_eq!(
        d.splits_added,
        vec!["t/ns/0x00000000_0x10000000".to_string()]
    );
    assert_eq!(
        text[1],
        "Baseline: max 90.0% → 61.0%, max/mean 1.80 → 1.22, std 40.0% → 11.0%"
    );
    assert_eq!(text[3], "- t/ns/0x00000000_0x10000000 b1:8080 → b2:8080");

    // The reverse: the move is added; a plan against itself is identical.
    let back = diff_plans(&what_if, &baseline).unwrap();
    assert_eq!(back.moves_added.len(), 1);
    assert!(
        diff_plans(&baseline, &baseline)
            .unwrap()
            .identical_decisions
    );

    // A manual unload of the same bundle elsewhere is a changed destination.
    let mut three = threshold_snapshot("4.0.7");
    three
        .brokers
        .insert("b3:8080".into(), broker(95.0, "4.0.7", &[]));
    let base3 = make_plan(&three, &request(Profile::Pulsar4x)).unwrap();
    let manual = PlanRequest {
        operations: vec![
            Operation::parse("unload-bundle=t/ns/0x00000000_0x10000000->b3:8080").unwrap(),
        ],
        leader_cycle: false,
        ..request(Profile::Pulsar4x)
    };
    let what3 = make_plan(&three, &manual).unwrap();
    let d3 = diff_plans(&base3, &what3).unwrap();
    assert_eq!(d3.moves_changed.len(), 1, "{d3:#?}");
    assert_eq!(d3.moves_changed[0].what_if.to.as_deref(), Some("b3:8080"));

    // Plans of different snapshots are not compared.
    assert!(matches!(
        diff_plans(&baseline, &base3),
        Err(DiffError::DifferentSnapshots { .. })
    ));
}

// ---- Plan format 4: a skip says its scope, not an empty `bundle` / `from`. ----

#[test]
fn a_cycle_level_skip_is_scoped_to_the_cycle_with_no_names() {
    // loadBalancerSheddingEnabled=false: LoadManager's doLoadShedding returns before the strategy runs.
    let req = with_settings(
        Profile::Pulsar4x,
        &[("loadBalancerSheddingEnabled", "false")],
    );
    let plan = make_plan(&threshold_snapshot("4.0.7"), &req).unwrap();
    assert_eq!(plan.skipped.len(), 1, "{:#?}", plan.skipped);
    assert_eq!(plan.skipped[0].scope, SkipScope::Cycle);
    assert_eq!(
        serde_json::to_string(&plan.skipped[0]).unwrap(),
        r#"{"scope":"cycle","why":"no shedding: loadBalancerEnabled or loadBalancerSheddingEnabled is false","reason":{"kind":"shedding_disabled","loadBalancerEnabled":true,"loadBalancerSheddingEnabled":false}}"#
    );
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["format_version"], 6);
    assert!(
        json["skipped"][0].get("bundle").is_none() && json["skipped"][0].get("broker").is_none()
    );
    // Read back (the dashboard reads the worker's plans) it is the same skip.
    let back: lbplan_core::plan::Plan = serde_json::from_value(json).unwrap();
    assert_eq!(back.skipped, plan.skipped);

    // One broker: the leader's check of available brokers before shedding (§6.3).
    let mut one = threshold_snapshot("4.0.7");
    one.brokers.shift_remove("b2:8080");
    let plan = make_plan(&one, &request(Profile::Pulsar4x)).unwrap();
    assert_eq!(plan.skipped[0].scope, SkipScope::Cycle);
    assert_eq!(plan.skipped[0].broker(), None);
    assert!(
        serde_json::to_string(&plan.skipped[0])
            .unwrap()
            .starts_with(r#"{"scope":"cycle","why":"no shedding: only 1 broker available","#)
    );
}

#[test]
fn a_bundle_level_skip_names_the_bundle_and_its_owner() {
    // apache/pulsar#20822 (`owner_chosen_plan`): placement picks b1, the owner, so the unload is skipped.
    let plan = owner_chosen_plan();
    let skip = plan
        .skipped
        .iter()
        .find(|s| s.scope.name() == "bundle")
        .expect("the selected bundle is skipped");
    assert_eq!(skip.broker(), Some("b1:8080"));
    let json = serde_json::to_value(skip).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["scope", "bundle", "broker", "why", "reason"]);
    assert_eq!(json["scope"], "bundle");
    assert_eq!(json["bundle"], skip.bundle().unwrap());
}

// ---- `detail` typed: each way of deciding keeps the JSON shape format 3 documented. ----

/// The detail's JSON text, checked to read back as the same value.
fn detail_text<T>(detail: &Option<T>) -> String
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let d = detail.as_ref().expect("a made plan has every detail");
    let text = serde_json::to_string(d).unwrap();
    assert_eq!(&serde_json::from_str::<T>(&text).unwrap(), d, "{text}");
    text
}

fn keys(text: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn each_way_of_deciding_keeps_its_detail_shape() {
    use lbplan_core::plan::{PlacedOperation, SplitDetail, UnloadDetail};
    let snap = threshold_snapshot("4.0.7");
    let ops = |ops: &[&str]| PlanRequest {
        operations: ops.iter().map(|o| Operation::parse(o).unwrap()).collect(),
        leader_cycle: false,
        ..request(Profile::Pulsar4x)
    };

    // The leader's shedding: the rule with its numbers, then the placement pipeline.
    let plan = make_plan(&snap, &request(Profile::Pulsar4x)).unwrap();
    let text = detail_text(&plan.unloads[0].detail);
    assert_eq!(keys(&text), ["shedding", "placement"]);
    assert!(
        text.starts_with(r#"{"shedding":{"strategy":"ThresholdShedder","broker_usage_fraction":"#),
        "{text}"
    );

    // Manual operations: to a destination (the operation's text), placed (the words and the
    // placement), and a manual split (the operation's text).
    let plan = make_plan(
        &snap,
        &ops(&[
            "unload-bundle=t/ns/0x10000000_0x20000000->b2:8080",
            "unload-bundle=t/ns/0x00000000_0x10000000",
            "split-bundle=t/ns/0x20000000_0x30000000:range_equally_divide",
        ]),
    )
    .unwrap();
    assert_eq!(
        detail_text(&plan.unloads[0].detail),
        r#"{"operation":"unload-bundle=t/ns/0x10000000_0x20000000->b2:8080"}"#
    );
    let text = detail_text(&plan.unloads[1].detail);
    assert_eq!(keys(&text), ["operation", "placement"]);
    assert!(
        text.starts_with(
            r#"{"operation":"manual unload","placement":{"bundle":"t/ns/0x00000000_0x10000000""#
        ),
        "{text}"
    );
    assert_eq!(
        detail_text(&plan.splits[0].detail),
        r#"{"operation":"split-bundle=t/ns/0x20000000_0x30000000:range_equally_divide"}"#
    );
    for (op, want) in [
        ("unload-namespace=t/ns", PlacedOperation::NamespaceUnload),
        ("remove-broker=b2:8080", PlacedOperation::RemoveBroker),
    ] {
        let plan = make_plan(&snap, &ops(&[op])).unwrap();
        let u = plan.unloads.first().expect("an unload");
        assert!(
            matches!(&u.detail, Some(UnloadDetail::Placed { operation, .. }) if *operation == want),
            "{op}: {:?}",
            u.detail
        );
        assert!(detail_text(&u.detail).starts_with(&format!(
            r#"{{"operation":"{}","placement":{{"#,
            want.words()
        )));
    }

    // BundleSplitterTask: every limit exceeded, as text (4 topics > 3, §5.3).
    let req = with_settings(
        Profile::Pulsar4x,
        &[("loadBalancerNamespaceBundleMaxTopics", "3")],
    );
    let plan = make_plan(&snap, &req).unwrap();
    assert!(matches!(
        plan.splits[0].detail,
        Some(SplitDetail::Automatic { .. })
    ));
    assert_eq!(
        detail_text(&plan.splits[0].detail),
        r#"{"triggers":["topics 4 > loadBalancerNamespaceBundleMaxTopics 3"]}"#
    );

    // TransferShedder: Pulsar's UnloadDecision as the conformance oracle prints it.
    let mut req = request(Profile::Pulsar4x);
    req.settings.push((
        "loadBalancerSheddingConditionHitCountThreshold".into(),
        "0".into(),
    ));
    let plan = make_plan(&extensible_snapshot(), &req).unwrap();
    assert_eq!(
        detail_text(&plan.unloads[0].detail),
        format!(
            r#"{{"sourceBroker":"b1:8080","serviceUnit":"{}","destBroker":"b2:8080","label":"Success","reason":"Overloaded"}}"#,
            plan.unloads[0].bundle
        )
    );
}

/// Every committed plan golden (the CLI's demo plan, the native-vs-wasm plans): each unload's
/// `detail` reads as the typed detail of its kind and writes back the same bytes, and the whole plan
/// read back (as the dashboard reads its worker's plans) writes the same document.
#[test]
fn the_golden_plans_read_back_typed_and_write_the_same_bytes() {
    use lbplan_core::plan::{Plan, UnloadDetail};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for golden in [
        "crates/cli/tests/golden/demo-plan.json",
        "tests/native-wasm/demo-plan.json",
        "tests/native-wasm/synthetic-plan.json",
    ] {
        let text = std::fs::read_to_string(root.join(golden)).unwrap();
        let tree: serde_json::Value = serde_json::from_str(&text).unwrap();
        let unloads = tree["unloads"].as_array().unwrap().iter().chain(
            tree["outlook"]["unloads_then"]
                .as_array()
                .into_iter()
                .flatten(),
        );
        let mut seen = 0;
        for u in unloads {
            let typed: UnloadDetail = serde_json::from_value(u["detail"].clone()).unwrap();
            assert!(typed.shed_reason().is_some(), "{golden}: a shedding detail");
            assert_eq!(
                serde_json::to_string(&typed).unwrap(),
                u["detail"].to_string(),
                "{golden}"
            );
            seen += 1;
        }
        assert!(seen > 0, "{golden} has unloads");
        let plan: Plan = serde_json::from_str(&text).unwrap();
        assert_eq!(
            serde_json::to_string_pretty(&plan).unwrap(),
            text.trim_end(),
            "{golden}"
        );
    }
}
