//! `plan::verify` (issue 36 item 3): the demo plan against a snapshot "after" in which the
//! cluster did part of it — the first move landed where predicted, the second is back on its
//! source — read the same way the plan read its own "before".

use lbplan_core::plan::verify::{BundleStatus, USAGE_TOLERANCE_FRACTION, VerifyError, verify};
use lbplan_core::plan::{PlanRequest, make_plan};

fn move_bundle(s: &mut lbplan_core::model::Snapshot, bundle: &str, from: &str, to: &str) {
    s.brokers
        .get_mut(from)
        .unwrap()
        .local_broker_data
        .bundles
        .retain(|b| b != bundle);
    s.brokers
        .get_mut(to)
        .unwrap()
        .local_broker_data
        .bundles
        .push(bundle.to_string());
}

#[test]
fn a_partly_applied_plan_names_each_bundle_and_broker() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plan = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    assert!(
        plan.unloads.len() >= 2,
        "the demo plan moves several bundles"
    );
    assert_eq!(plan.cluster, demo.cluster);
    assert_eq!(plan.snapshot_captured_at_ms, demo.captured_at_ms);
    let mut after = demo.clone();
    after.captured_at_ms = demo.captured_at_ms.map(|t| t + 600_000);
    let first = &plan.unloads[0];
    move_bundle(
        &mut after,
        &first.bundle,
        &first.from,
        first.to.as_deref().unwrap(),
    );

    let report = verify(&plan, &after).unwrap();
    assert!(!report.as_predicted);
    let b0 = report
        .bundles
        .iter()
        .find(|b| b.bundle == first.bundle)
        .unwrap();
    assert_eq!(b0.status, BundleStatus::AsPredicted);
    assert_eq!(b0.found, first.to);
    // Every other unload is still (or again) on its source broker.
    let on_source = report
        .bundles
        .iter()
        .filter(|b| b.status == BundleStatus::OnSource)
        .count();
    assert_eq!(on_source, plan.unloads.len() - 1);
    assert_eq!(report.moved_back, on_source);
    // The brokers' reports did not change, so the usage measured is the plan's "before", read the
    // same way; a broker the plan predicted to change by more than the tolerance is flagged.
    for b in &report.brokers {
        assert_eq!(b.actual, b.before, "{}", b.broker);
        let moved = (b.predicted.unwrap() - b.before.unwrap()).abs();
        assert_eq!(
            b.within_tolerance,
            moved <= USAGE_TOLERANCE_FRACTION + 1e-9,
            "{}",
            b.broker
        );
    }
    let text = report.to_text();
    assert!(
        text.starts_with("lbplan verify: NOT AS PREDICTED: 1 of "),
        "{text}"
    );
    assert!(text.contains("ON ITS SOURCE AGAIN"), "{text}");
}

#[test]
fn a_snapshot_of_another_cluster_or_older_than_the_plan_is_refused() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plan = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    let mut other = demo.clone();
    other.cluster = Some("elsewhere".to_string());
    assert!(matches!(
        verify(&plan, &other),
        Err(VerifyError::OtherCluster { .. })
    ));
    let mut older = demo.clone();
    older.captured_at_ms = demo.captured_at_ms.map(|t| t - 1);
    assert!(matches!(
        verify(&plan, &older),
        Err(VerifyError::Older { .. })
    ));
}
