//! A reason line stays short on 1,000 brokers (it was 72,731 characters when it
//! listed every candidate's score): the winner, the runner-up, the count and the deciding filter in
//! the text, the full candidate list only in the JSON `detail`.

use lbplan_core::config::Profile;
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::synthetic::{HotBroker, SyntheticSpec, Traffic, generate};

/// The bound on every text line of a plan, whatever the cluster's size: the shedding rule with its
/// numbers (~120), the winner, the runner-up (two broker names), the strategy's one-line count and
/// the deciding filter with its setting. Measured longest on this cluster: 426 (LRUWW, random pick).
const MAX_REASON_CHARS: usize = 450;

fn cluster() -> lbplan_core::model::Snapshot {
    let mut spec = SyntheticSpec::large();
    spec.namespaces.truncate(3);
    // Enough traffic that the hot broker's share is over loadBalancerBundleUnloadMinThroughputThreshold.
    for ns in &mut spec.namespaces {
        ns.msg_rate_in = 2_000_000.0;
    }
    if let Traffic::PerNamespace(t) = &mut spec.traffic {
        t.hot_broker = Some(HotBroker {
            index: 0,
            extra_bundle_fraction: 0.05,
        });
    }
    generate(&spec, 7).unwrap()
}

#[test]
fn reasons_stay_short_on_a_thousand_brokers() {
    let snap = cluster();
    assert_eq!(snap.brokers.len(), 1_000);
    for settings in [
        vec![],
        vec![(
            "loadBalancerDistributeBundlesEvenlyEnabled".to_string(),
            "false".to_string(),
        )],
        vec![(
            "loadBalancerLoadPlacementStrategy".to_string(),
            "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight".to_string(),
        )],
    ] {
        let req = PlanRequest {
            profile: Some(Profile::Pulsar4x),
            settings: settings.clone(),
            ..PlanRequest::leader_cycle()
        };
        let plan = make_plan(&snap, &req).unwrap();
        assert!(
            !plan.unloads.is_empty(),
            "{settings:?}: the hot broker sheds: {:?}",
            plan.skipped
        );
        let texts = plan
            .unloads
            .iter()
            .map(|u| u.reason_text.as_str())
            .chain(plan.splits.iter().map(|s| s.reason_text.as_str()))
            .chain(plan.skipped.iter().map(|s| s.why.as_str()));
        for t in texts {
            assert!(
                t.chars().count() <= MAX_REASON_CHARS,
                "{settings:?}: {} chars: {t}",
                t.chars().count()
            );
        }
        // The text names the candidate count and the runner-up; the JSON keeps every candidate.
        let u = &plan.unloads[0];
        assert!(u.reason.number("candidates").is_some(), "{:?}", u.reason);
        let detail = serde_json::to_string(&u.detail).unwrap();
        assert!(
            detail.len() > 10 * MAX_REASON_CHARS,
            "the detail lists the candidates"
        );
    }
}
