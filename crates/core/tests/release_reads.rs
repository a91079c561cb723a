//! The apply/export check compares only the rows of the release table a plan reads. First releases
//! from docs/versions.md (release notes): #26246 and #26253 in 4.0.14, #24954 in 4.0.8, PIP-358
//! (#22888) in 4.0.0, #25518 in 4.0.10, PIP-457 in 4.2.0, the 5.0 defaults in 5.0.0.

use lbplan_core::act::safety::{Hazard, Limits, PlanContext, assess, releases_deciding_as};
use lbplan_core::config::{AVG_SHEDDER, Profile};
use lbplan_core::model::{BundleData, Snapshot};
use lbplan_core::plan::model::Plan;
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::release::Change;

fn plan(snapshot: &Snapshot, profile: &str, operations: Vec<Operation>) -> Plan {
    make_plan(
        snapshot,
        &PlanRequest {
            profile: Profile::parse(profile),
            operations,
            ..PlanRequest::leader_cycle()
        },
    )
    .unwrap()
}

fn reads(plan: &Plan) -> Vec<Change> {
    plan.release_basis.as_ref().unwrap().reads.clone().unwrap()
}

/// Whether applying `plan` on a cluster reporting `cluster` raises the other-profile hazard.
fn other_profile_hazard(plan: &Plan, cluster: &str) -> bool {
    let a = assess(
        &PlanContext::of(plan),
        &Limits {
            now_ms: plan.snapshot_captured_at_ms.unwrap_or(0),
            max_age_ms: i64::MAX,
            cluster_profile: Some(cluster.to_string()),
        },
    );
    a.hazards
        .iter()
        .any(|h| matches!(h, Hazard::OtherProfile { .. }))
}

fn avg_shedder_both_ways(mut s: Snapshot) -> Snapshot {
    for key in [
        "loadBalancerLoadSheddingStrategy",
        "loadBalancerLoadPlacementStrategy",
    ] {
        s.broker_conf
            .insert(key.to_string(), AVG_SHEDDER.to_string());
    }
    s
}

/// The demo runs ThresholdShedder + LeastLongTermMessageRate: 4.0.13 and 4.0.14 differ only in
/// #26246 (AvgShedder's memory) and #26253 (a former leader), which it never reads.
#[test]
fn threshold_shedder_plan_decides_alike_on_4_0_13_and_4_0_14() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let p = plan(&demo, "4.0.14", Vec::new());
    let r = reads(&p);
    assert!(!r.contains(&Change::AvgShedderDestinationsByName));
    assert!(!r.contains(&Change::FormerLeaderStopsShedding));
    assert!(!r.contains(&Change::AvgShedderExactComparator));
    // Every modular placement runs the overload check PIP-358 weighted.
    assert!(r.contains(&Change::WeightedOverloadChecks));
    assert!(!other_profile_hazard(&p, "4.0.13"));
    // #24954 reached 4.0.8: AvgShedder only, so 4.0.7 decides this plan alike too.
    assert!(!other_profile_hazard(&p, "4.0.7"));
    // 3.3.9 lacks PIP-358 (4.0.0): the overload checks compare the unweighted max.
    assert!(other_profile_hazard(&p, "3.3.9"));
    // 5.0.0's defaults: the demo leaves the strategies and maxUnloadPercentage unset.
    assert!(r.contains(&Change::Defaults50));
    assert!(other_profile_hazard(&p, "5.0.0"));
    // The scripts' list is the same rule.
    let (same, other) = releases_deciding_as(&p.profile, Some(&r));
    for v in ["4.0.0", "4.0.7", "4.0.13", "4.0.14"] {
        assert!(same.contains(&v.to_string()), "{v} in {same:?}");
    }
    for v in ["3.3.9", "3.0.17", "5.0.0"] {
        assert!(other.contains(&v.to_string()), "{v} in {other:?}");
    }
    // Without what the plan reads (a plan before them), every row counts, as before.
    let (_, coarse) = releases_deciding_as(&p.profile, None);
    assert!(coarse.contains(&"4.0.13".to_string()));
}

#[test]
fn avg_shedder_plan_decides_differently_on_4_0_13_and_4_0_14() {
    let s = avg_shedder_both_ways(lbplan_core::synthetic::demo().unwrap());
    let p = plan(&s, "4.0.14", Vec::new());
    let r = reads(&p);
    assert!(r.contains(&Change::AvgShedderDestinationsByName));
    assert!(r.contains(&Change::AvgShedderExactComparator));
    assert!(other_profile_hazard(&p, "4.0.13"));
    // #24954 (4.0.8): AvgShedder's comparator.
    let p8 = plan(&s, "4.0.8", Vec::new());
    assert!(other_profile_hazard(&p8, "4.0.7"));
    assert!(!other_profile_hazard(&p8, "4.0.9"));
    // Both strategies set: the 5.0 defaults still change maxUnloadPercentage and even distribution.
    assert!(reads(&p8).contains(&Change::Defaults50));
}

#[test]
fn destination_unloads_sharing_a_range_read_25518() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let op = |b: &str, to: &str| Operation::UnloadBundle {
        bundle: b.to_string(),
        destination_broker: Some(to.to_string()),
    };
    // Two heartbeat namespaces, one bundle each: both 0x00000000_0xffffffff.
    let shared = plan(
        &demo,
        "4.0.10",
        vec![
            op(
                "pulsar/broker-00.demo.svc:8080/0x00000000_0xffffffff",
                "broker-02.demo.svc:8080",
            ),
            op(
                "pulsar/broker-01.demo.svc:8080/0x00000000_0xffffffff",
                "broker-03.demo.svc:8080",
            ),
        ],
    );
    assert!(reads(&shared).contains(&Change::AffinityByFullBundleName));
    assert!(other_profile_hazard(&shared, "4.0.9"));
    let one = plan(
        &demo,
        "4.0.10",
        vec![op(
            "pulsar/broker-00.demo.svc:8080/0x00000000_0xffffffff",
            "broker-02.demo.svc:8080",
        )],
    );
    assert!(!reads(&one).contains(&Change::AffinityByFullBundleName));
    assert!(!other_profile_hazard(&one, "4.0.9"));
}

/// A V2 SLA name `sla-monitor/<host:port>` is shed before PIP-457 (4.2.0) and filtered after it.
#[test]
fn a_v2_sla_monitor_name_reads_pip_457() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let p = plan(&demo, "4.2.0", Vec::new());
    assert!(!reads(&p).contains(&Change::Pip457NamePatterns));
    assert!(!other_profile_hazard(&p, "4.1.3"));
    let mut s = demo;
    s.bundle_data.insert(
        "sla-monitor/broker-00.demo.svc:8080/0x00000000_0xffffffff".to_string(),
        BundleData::default(),
    );
    let p = plan(&s, "4.2.0", Vec::new());
    assert!(reads(&p).contains(&Change::Pip457NamePatterns));
    assert!(other_profile_hazard(&p, "4.1.3"));
}
