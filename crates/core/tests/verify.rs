//! `plan::verify`: the demo plan against a snapshot "after" in which the
//! cluster did part of it — the first move landed where predicted, the second is back on its
//! source — read the same way the plan read its own "before"; brokers whose load reports predate
//! the apply are "not yet reported", not wrong (Pulsar rewrites a report only after
//! `loadBalancerReportUpdateMaxIntervalMinutes` or a change over
//! `loadBalancerReportUpdateThresholdPercentage`); owners read live win over the reports' lists.

use std::collections::BTreeMap;

use lbplan_core::plan::verify::{
    BundleStatus, USAGE_TOLERANCE_FRACTION, VerifyError, VerifyOptions, live_after, verify,
    verify_with,
};
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
    // The brokers' reports did not change (their lastUpdate is the plan's snapshot time), so the
    // usage measured is the plan's "before": a broker the plan moves load to or from has not
    // reported since the apply and is not compared; the others are, and match.
    let touched = |name: &str| {
        plan.unloads
            .iter()
            .any(|u| u.from == name || u.to.as_deref() == Some(name))
            || plan.splits.iter().any(|s| s.broker == name)
    };
    assert!(report.brokers.iter().any(|b| touched(&b.broker)));
    for b in &report.brokers {
        assert_eq!(b.actual, b.before, "{}", b.broker);
        assert_eq!(b.not_yet_reported, touched(&b.broker), "{}", b.broker);
        assert!(
            b.reported_at_ms.unwrap() <= demo.captured_at_ms.unwrap(),
            "{}",
            b.broker
        );
        if !touched(&b.broker) {
            assert!(b.within_tolerance, "{}", b.broker);
        }
    }
    assert_eq!(
        report.not_yet_reported,
        report.brokers.iter().filter(|b| touched(&b.broker)).count()
    );
    assert!(!report.complete);
    let text = report.to_text();
    assert!(
        text.starts_with("lbplan verify: NOT AS PREDICTED: 1 of "),
        "{text}"
    );
    assert!(text.contains("ON ITS SOURCE AGAIN"), "{text}");
    assert!(text.contains("not yet reported since the apply"), "{text}");
    // Pulsar's defaults (reference §6.1): 15 minutes, 10 %.
    assert!(
        text.contains("loadBalancerReportUpdateMaxIntervalMinutes (15 min)"),
        "{text}"
    );
    assert!(
        text.contains("loadBalancerReportUpdateThresholdPercentage (10 %)"),
        "{text}"
    );
}

/// The snapshot after a complete apply: every unload's bundle (and its last stats) on the
/// destination, every split gone, and the touched brokers' reports rewritten at `reported_at`.
fn applied(
    demo: &lbplan_core::model::Snapshot,
    plan: &lbplan_core::plan::Plan,
    reported_at: i64,
) -> lbplan_core::model::Snapshot {
    let mut after = demo.clone();
    after.captured_at_ms = Some(reported_at + 1_000);
    for u in &plan.unloads {
        let to = u.to.as_deref().unwrap();
        let source = &mut after.brokers.get_mut(&u.from).unwrap().local_broker_data;
        source.bundles.retain(|b| *b != u.bundle);
        let stats = source.last_stats.shift_remove(&u.bundle);
        source.last_update = reported_at;
        let dest = &mut after.brokers.get_mut(to).unwrap().local_broker_data;
        dest.bundles.push(u.bundle.clone());
        if let Some(stats) = stats {
            dest.last_stats.insert(u.bundle.clone(), stats);
        }
        dest.last_update = reported_at;
    }
    after
}

#[test]
fn reports_newer_than_the_apply_are_compared_and_older_ones_wait() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plan = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    assert!(plan.splits.is_empty(), "the demo plan only moves bundles");
    let applied_at = demo.captured_at_ms.unwrap() + 600_000;
    let options = VerifyOptions {
        applied_at_ms: Some(applied_at),
        live_owners: None,
    };
    // Reports rewritten after the apply: every bundle where predicted and every broker compared.
    let after = applied(&demo, &plan, applied_at + 5_000);
    let report = verify_with(&plan, &after, &options).unwrap();
    assert!(
        report
            .bundles
            .iter()
            .all(|b| b.status == BundleStatus::AsPredicted)
    );
    assert_eq!(report.not_yet_reported, 0);
    assert!(report.complete);
    assert_eq!(report.applied_at_ms, Some(applied_at));
    assert!(
        report
            .brokers
            .iter()
            .all(|b| !b.not_yet_reported && b.actual.is_some())
    );
    // The reports' usage figures are the ones before (only the bundle lists and stats moved), so
    // each broker is compared: those the plan predicted to change by more than the model's stated
    // error are out of tolerance, the rest within it.
    for b in &report.brokers {
        let moved = (b.predicted.unwrap() - b.before.unwrap()).abs();
        assert_eq!(b.actual, b.before, "{}", b.broker);
        assert_eq!(
            b.within_tolerance,
            moved <= USAGE_TOLERANCE_FRACTION + 1e-9,
            "{}",
            b.broker
        );
    }
    let failing = report
        .brokers
        .iter()
        .filter(|b| !b.within_tolerance)
        .count();
    assert!(
        failing > 0,
        "the demo plan moves a broker by more than 5 points"
    );
    assert!(!report.as_predicted);
    assert!(
        report.summary.starts_with("NOT AS PREDICTED: "),
        "{}",
        report.summary
    );
    // The same snapshot, but the reports were written before the apply ended: ownership is
    // still right, the usage comparisons wait for the next reports.
    let early = applied(&demo, &plan, applied_at - 1_000);
    let report = verify_with(&plan, &early, &options).unwrap();
    assert!(
        report
            .bundles
            .iter()
            .all(|b| b.status == BundleStatus::AsPredicted)
    );
    assert!(report.not_yet_reported > 0);
    assert!(report.as_predicted);
    assert!(!report.complete);
    assert!(
        report.summary.starts_with("AS PREDICTED SO FAR: "),
        "{}",
        report.summary
    );
    assert!(report.to_text().contains("  WAIT "), "{}", report.to_text());
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["format_version"], 2);
    assert_eq!(json["not_yet_reported"], report.not_yet_reported);
}

#[test]
fn owners_read_live_place_the_bundles_before_the_reports_list_them() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plan = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    // No report changed yet; ownedNamespaces already shows each bundle on its destination but the
    // last one, which the leader put back on its source.
    let mut live: BTreeMap<String, String> = BTreeMap::new();
    let last = plan.unloads.len() - 1;
    for (i, u) in plan.unloads.iter().enumerate() {
        let owner = if i == last {
            u.from.clone()
        } else {
            u.to.clone().unwrap()
        };
        live.insert(u.bundle.clone(), owner);
    }
    let mut after = demo.clone();
    after.captured_at_ms = demo.captured_at_ms.map(|t| t + 60_000);
    let report = verify_with(
        &plan,
        &after,
        &VerifyOptions {
            applied_at_ms: after.captured_at_ms,
            live_owners: Some(live),
        },
    )
    .unwrap();
    assert!(report.owners_read_live);
    let statuses: Vec<&BundleStatus> = report.bundles.iter().map(|b| &b.status).collect();
    assert_eq!(statuses.len(), plan.unloads.len());
    assert!(
        statuses[..last]
            .iter()
            .all(|s| **s == BundleStatus::AsPredicted)
    );
    assert_eq!(*statuses[last], BundleStatus::OnSource);
    assert_eq!(report.moved_back, 1);
    assert!(!report.as_predicted);
    assert!(
        report
            .to_text()
            .contains("owners read live after the apply")
    );
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

#[test]
fn the_dashboards_live_after_takes_the_owners_read_live_and_the_fresh_reports() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plan = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    let mut live: BTreeMap<String, String> = BTreeMap::new();
    for (id, b) in &demo.brokers {
        for bundle in &b.local_broker_data.bundles {
            live.insert(bundle.clone(), id.clone());
        }
    }
    for u in &plan.unloads {
        live.insert(u.bundle.clone(), u.to.clone().unwrap());
    }
    // The broker behind the admin URL answered its own fresh report (its webServiceUrl names it).
    let first = &plan.unloads[0];
    let to = first.to.clone().unwrap();
    let mut fresh = demo.brokers[&to].local_broker_data.clone();
    fresh.web_service_url = Some(format!("http://{to}"));
    let applied_at = demo.captured_at_ms.unwrap() + 60_000;
    fresh.last_update = applied_at + 2_000;
    let after = live_after(&demo, &live, &[fresh], applied_at + 5_000);
    assert_eq!(after.captured_at_ms, Some(applied_at + 5_000));
    assert!(
        after.brokers[&to]
            .local_broker_data
            .bundles
            .contains(&first.bundle)
    );
    assert!(
        !after.brokers[&first.from]
            .local_broker_data
            .bundles
            .contains(&first.bundle)
    );
    let report = verify_with(
        &plan,
        &after,
        &VerifyOptions {
            applied_at_ms: Some(applied_at),
            live_owners: Some(live),
        },
    )
    .unwrap();
    assert!(
        report
            .bundles
            .iter()
            .all(|b| b.status == BundleStatus::AsPredicted)
    );
    let dest = report.brokers.iter().find(|b| b.broker == to).unwrap();
    assert!(!dest.not_yet_reported, "the fresh report is compared");
    let source = report
        .brokers
        .iter()
        .find(|b| b.broker == first.from)
        .unwrap();
    assert!(source.not_yet_reported, "its report predates the apply");
}
