//! Namespace isolation policies in placement and shedding, on hand-built snapshots. Every expected
//! value is derived in the comments from Pulsar's Java (names as in `docs/isolation-policies.md`):
//! - `LoadManagerShared.parseBrokerHost`: host = brokerId up to its last `:`;
//! - `NamespaceIsolationPolicyImpl.isPrimaryBroker` / `isSecondaryBroker`: `host.matches(regex)`, a
//!   whole-string match;
//! - `MinAvailablePolicy.shouldFailoverToSecondary(int n)`: `n < min_limit`;
//! - `LoadManagerShared.applyNamespacePolicies`: isolated namespace → primaries (+ secondaries when
//!   failing over); otherwise → brokers whose host is a primary of no policy (`isSharedBroker`);
//! - `ModularLoadManagerImpl.shouldNamespacePoliciesUnload`: unload only if that set holds a broker
//!   other than the owner.

use indexmap::IndexMap;
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::extensible::{CandidateBrokers, PolicyInputs, is_transferable_with_filters};
use lbplan_core::isolation::IsolationPolicies;
use lbplan_core::leader::view::load_data_from_snapshot;
use lbplan_core::model::{
    AutoFailoverPolicy, BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats,
    NamespaceIsolationPolicy, NamespaceSnapshot, ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot,
    TimeAverageMessageData,
};
use lbplan_core::modular::pipeline::{
    PlacementContext, SelectionPath, select_broker_for_bundle, should_namespace_policies_unload,
};
use lbplan_core::modular::placement::LeastLongTermMessageRate;
use lbplan_core::naming::{NamespaceBundles, default_boundaries};
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::rng::SeededPicker;

const MB: f64 = 1_000_000.0;

fn policy(ns: &str, primary: &str, secondary: &str, min_limit: &str) -> NamespaceIsolationPolicy {
    NamespaceIsolationPolicy {
        namespaces: vec![ns.to_string()],
        primary: vec![primary.to_string()],
        secondary: if secondary.is_empty() {
            Vec::new()
        } else {
            vec![secondary.to_string()]
        },
        auto_failover_policy: Some(AutoFailoverPolicy {
            policy_type: "min_available".to_string(),
            parameters: [("min_limit", min_limit), ("usage_threshold", "80")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }),
    }
}

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

fn broker(cpu: f64, bundles: &[(&str, f64, f64)]) -> BrokerSnapshot {
    let mut local = LocalBrokerData {
        cpu: ResourceUsage::new(cpu, 100.0),
        memory: ResourceUsage::new(0.0, 100.0),
        direct_memory: ResourceUsage::new(0.0, 100.0),
        bandwidth_in: ResourceUsage::new(0.0, 100.0),
        bandwidth_out: ResourceUsage::new(0.0, 100.0),
        broker_version_string: Some("4.0.7".to_string()),
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

fn bundles_of(ns: &str) -> (NamespaceSnapshot, Vec<String>) {
    let layout = NamespaceBundles::new(ns, default_boundaries(4).unwrap_or_default()).unwrap();
    let names = layout.bundle_names();
    (
        NamespaceSnapshot {
            bundles: layout.to_bundles_data(),
            ..NamespaceSnapshot::default()
        },
        names,
    )
}

/// Four idle brokers `broker-0..3:8080`, namespaces `t/iso` and `t/other` (4 bundles each, none
/// owned), policy `iso`: `t/iso` → primary `broker-[0-1].*`, secondary `broker-2.*`, min_limit 2.
fn four_brokers() -> Snapshot {
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    for i in 0..4 {
        s.brokers
            .insert(format!("broker-{i}:8080"), broker(10.0, &[]));
    }
    for ns in ["t/iso", "t/other"] {
        s.namespaces.insert(ns.into(), bundles_of(ns).0);
    }
    s.namespace_isolation_policies.insert(
        "iso".into(),
        policy("t/iso", "broker-[0-1].*", "broker-2.*", "2"),
    );
    s
}

/// Places one bundle (assignment path) and returns (the `after_namespace_policies` set sorted, the
/// chosen broker).
fn place(snapshot: &Snapshot, live: Option<&[&str]>, bundle: &str) -> (Vec<String>, String) {
    let mut data = load_data_from_snapshot(snapshot);
    let mut ctx = PlacementContext::new();
    assert!(
        ctx.set_isolation_policies(&snapshot.namespace_isolation_policies)
            .is_empty()
    );
    ctx.available_brokers = live.map(|l| l.iter().map(|b| b.to_string()).collect());
    ctx.rebuild_bundle_range_cache(&data);
    let cfg = LoadBalancerConfig::pulsar_4x();
    let mut strategy = LeastLongTermMessageRate;
    let mut picker = SeededPicker::new(7);
    let out = select_broker_for_bundle(
        bundle,
        &BundleData::pulsar_default(),
        SelectionPath::Assignment,
        &mut data,
        &mut ctx,
        &cfg,
        &mut strategy,
        &mut picker,
    );
    let stage = out
        .stages
        .iter()
        .find(|s| s.stage == "after_namespace_policies")
        .expect("the first stage is recorded");
    let mut set = stage.remaining.clone();
    set.sort();
    (set, out.broker.expect("a broker is chosen"))
}

#[test]
fn isolated_namespace_places_only_on_its_primaries() {
    // Hosts broker-0, broker-1 match `broker-[0-1].*` whole; broker-2 matches the secondary; 2
    // primaries, and 2 < min_limit=2 is false: no failover, so the set is the two primaries.
    let snap = four_brokers();
    let bundle = &bundles_of("t/iso").1[0];
    let (set, chosen) = place(&snap, None, bundle);
    assert_eq!(set, ["broker-0:8080", "broker-1:8080"]);
    assert!(set.contains(&chosen));
}

#[test]
fn isolated_namespace_fails_over_to_secondaries_below_min_limit() {
    // broker-1 is not live: 1 primary < min_limit=2 → the secondary broker-2 joins; broker-3 (neither
    // primary nor secondary of `iso`) never does.
    let snap = four_brokers();
    let bundle = &bundles_of("t/iso").1[1];
    let live = ["broker-0:8080", "broker-2:8080", "broker-3:8080"];
    let (set, chosen) = place(&snap, Some(&live), bundle);
    assert_eq!(set, ["broker-0:8080", "broker-2:8080"]);
    assert!(set.contains(&chosen));
}

#[test]
fn non_isolated_namespace_never_lands_on_a_primary_of_another_policy() {
    // `t/other` matches no policy: only shared brokers, i.e. hosts that are a primary of no policy.
    // broker-2 is `iso`'s secondary, which does not make it non-shared (isSharedBroker only looks at
    // primaries): the set is {broker-2, broker-3}.
    let snap = four_brokers();
    for bundle in &bundles_of("t/other").1 {
        let (set, chosen) = place(&snap, None, bundle);
        assert_eq!(set, ["broker-2:8080", "broker-3:8080"]);
        assert!(chosen == "broker-2:8080" || chosen == "broker-3:8080");
    }
}

#[test]
fn whole_string_match_keeps_broker_10_out_of_broker_1() {
    // `broker-1` as a primary pattern matches host "broker-1" only; "broker-10" would match a
    // find(), not String.matches.
    let mut snap = four_brokers();
    snap.brokers
        .insert("broker-10:8080".into(), broker(10.0, &[]));
    snap.namespace_isolation_policies
        .insert("iso".into(), policy("t/iso", "broker-1", "", "1"));
    let bundle = &bundles_of("t/iso").1[2];
    let (set, chosen) = place(&snap, None, bundle);
    assert_eq!(set, ["broker-1:8080"]);
    assert_eq!(chosen, "broker-1:8080");
}

/// The oracle's `handmade-threshold_1_basic` situation: b1 at 90 % cpu with two `t/ns` bundles (60 and
/// 40 MB/s each way), b2 at 10 %.
fn threshold_snapshot() -> Snapshot {
    let layout = NamespaceBundles::new("t/ns", default_boundaries(16).unwrap_or_default()).unwrap();
    let names = layout.bundle_names();
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    s.brokers.insert(
        "b1:8080".into(),
        broker(
            90.0,
            &[(&names[0], 60.0 * MB, 500.0), (&names[1], 40.0 * MB, 500.0)],
        ),
    );
    s.brokers
        .insert("b2:8080".into(), broker(10.0, &[(&names[2], 1000.0, 10.0)]));
    for (n, thr, rate) in [
        (&names[0], 60.0 * MB, 500.0),
        (&names[1], 40.0 * MB, 500.0),
        (&names[2], 1000.0, 10.0),
    ] {
        s.bundle_data.insert(
            n.clone(),
            BundleData {
                short_term_data: window(thr, rate, 10),
                long_term_data: window(thr, rate, 1000),
                topics: 4,
            },
        );
    }
    s.namespaces.insert(
        "t/ns".into(),
        NamespaceSnapshot {
            bundles: layout.to_bundles_data(),
            ..NamespaceSnapshot::default()
        },
    );
    s
}

#[test]
fn shedding_skips_an_isolated_bundle_whose_only_allowed_broker_is_its_owner() {
    // Without a policy ThresholdShedder picks t/ns/0x00000000_0x10000000 on b1 and it moves to b2
    // (tests/plan.rs). With `t/ns` isolated to primary `b1` (min_limit 1: 1 primary, no failover) the
    // policy-only set is {b1} = the owner, so shouldNamespacePoliciesUnload is false.
    let mut snap = threshold_snapshot();
    snap.namespace_isolation_policies
        .insert("pin".into(), policy("t/ns", "b1", "", "1"));
    let req = PlanRequest {
        profile: Some(Profile::Pulsar4x),
        ..PlanRequest::leader_cycle()
    };
    let plan = make_plan(&snap, &req).unwrap();
    assert!(plan.unloads.is_empty(), "{plan:#?}");
    let skip = plan
        .skipped
        .iter()
        .find(|s| s.bundle() == Some("t/ns/0x00000000_0x10000000"))
        .expect("the shed bundle is reported as skipped");
    assert_eq!(skip.broker(), Some("b1:8080"));
    assert!(
        skip.why
            .contains("namespace isolation policies allow no other broker"),
        "{}",
        skip.why
    );
    // Machine-readable: the isolation kind, with the shedder's rule beside it.
    assert_eq!(skip.reason.kind, lbplan_core::reason::ReasonKind::Isolation);
    assert_eq!(skip.reason.numbers["shedding"], "threshold_shedder");

    // Primary `b[12]` allows b2 too: the unload goes through, to b2.
    snap.namespace_isolation_policies
        .insert("pin".into(), policy("t/ns", "b[12]", "", "1"));
    let plan = make_plan(&snap, &req).unwrap();
    assert_eq!(plan.unloads.len(), 1, "{plan:#?}");
    assert_eq!(plan.unloads[0].to.as_deref(), Some("b2:8080"));
}

#[test]
fn namespace_policies_unload_check_matches_pulsars_unit_test() {
    // ModularLoadManagerImplTest#testLoadSheddingWithNamespaceIsolationPolicies: policy primary =
    // secondary = a host that is not live, min_limit 1 → 0 primaries < 1 → failover, but no live
    // secondary either: empty set → false. With the live host as primary → true.
    let snap = threshold_snapshot();
    let data = load_data_from_snapshot(&snap);
    let bundle = "t/ns/0x00000000_0x10000000";
    let mut ctx = PlacementContext::new();
    assert!(should_namespace_policies_unload(
        bundle, "b1:8080", &data, &ctx
    ));
    let mut pols = IndexMap::new();
    pols.insert("p".to_string(), policy("t/ns.*", "b11", "b11", "1"));
    ctx.set_isolation_policies(&pols);
    assert!(!should_namespace_policies_unload(
        bundle, "b1:8080", &data, &ctx
    ));
    pols.insert("p".to_string(), policy("t/ns.*", "b.*", "b.*", "1"));
    ctx.set_isolation_policies(&pols);
    assert!(should_namespace_policies_unload(
        bundle, "b1:8080", &data, &ctx
    ));
}

#[test]
fn invalid_regex_is_a_plan_warning_not_a_panic() {
    let mut snap = threshold_snapshot();
    snap.namespace_isolation_policies
        .insert("bad".into(), policy("t/(ns", "b1", "", "1"));
    let plan = make_plan(&snap, &PlanRequest::leader_cycle()).unwrap();
    assert!(
        plan.warnings
            .iter()
            .any(|w| w.contains("isolation policy `bad`") && w.contains("namespaces[0]")),
        "{:?}",
        plan.warnings
    );
    // `t/ns`.matches("t/(ns") throws → areIsolationPoliciesPresent is false: not isolated. Its
    // primary "b1" is still valid, so isSharedBroker("b1") is false and the shared set is {b2}: the
    // unload from b1 goes through, to b2.
    assert_eq!(plan.unloads.len(), 1);
}

#[test]
fn extensible_transfer_check_follows_the_isolation_policy() {
    // TransferShedder.canTransferWithIsolationPoliciesToBroker: isolated bundles move only with
    // loadBalancerSheddingBundlesWithPoliciesEnabled, and only to an allowed broker.
    let mut pols = IndexMap::new();
    pols.insert("p".to_string(), policy("t/ns", "b[12]", "", "1"));
    let (iso, errors) = IsolationPolicies::compile(&pols);
    assert!(errors.is_empty());
    let none = IndexMap::new();
    let owners = IndexMap::new();
    let kinds = IndexMap::new();
    let np = Default::default();
    let inputs = PolicyInputs {
        isolation: &iso,
        anti_affinity_groups: &none,
        failure_domains: &IndexMap::new(),
        owners: &owners,
        topic_kinds: &kinds,
        non_persistent_bundles: &np,
    };
    let mut cfg = LoadBalancerConfig::pulsar_4x();
    let class = cfg.load_manager_class_name.clone();
    let available: CandidateBrokers = ["b1:8080", "b2:8080", "b3:8080"]
        .iter()
        .map(|b| (b.to_string(), class.clone()))
        .collect();
    let store = IndexMap::new();
    let bundle = "t/ns/0x00000000_0x40000000";
    let check = |cfg: &LoadBalancerConfig, dst: &str| {
        is_transferable_with_filters(
            &available,
            &store,
            cfg,
            "b1:8080",
            Some(dst),
            Some((bundle, &inputs)),
        )
    };
    cfg.load_balancer_shedding_bundles_with_policies_enabled = false;
    assert!(!check(&cfg, "b2:8080"));
    cfg.load_balancer_shedding_bundles_with_policies_enabled = true;
    cfg.load_balancer_transfer_enabled = true;
    assert!(check(&cfg, "b2:8080"));
    assert!(!check(&cfg, "b3:8080"));
    // The isolation filter in placement: b3 is not allowed.
    let mut c = available.clone();
    inputs.isolation_filter(&mut c, bundle);
    assert_eq!(c.keys().collect::<Vec<_>>(), ["b1:8080", "b2:8080"]);
}
