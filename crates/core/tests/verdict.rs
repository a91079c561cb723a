//! The plan's verdict: a plan that sends every unload to one small broker is
//! judged worse, names the converging destination and the overloaded broker, and finds that
//! LeastResourceUsageWithWeight placement avoids it; the demo plan is not worse; the exported script
//! refuses to apply a worse plan without `--i-know`.
//! See: https://github.com/apache/pulsar/pull/16059

#[path = "support/converging.rs"]
mod converging;

use lbplan_core::act::export::{ExportOptions, ScriptFormat, export_script};
use lbplan_core::config::{
    LEAST_LONG_TERM_MESSAGE_RATE, LEAST_RESOURCE_USAGE_WITH_WEIGHT, THRESHOLD_SHEDDER,
};
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::verdict::{Change, Outcome, Pattern, judge};
use lbplan_core::plan::{Plan, PlanRequest, make_plan};

fn request() -> PlanRequest {
    PlanRequest {
        settings: vec![
            (
                "loadBalancerLoadSheddingStrategy".into(),
                THRESHOLD_SHEDDER.into(),
            ),
            (
                "loadBalancerLoadPlacementStrategy".into(),
                LEAST_LONG_TERM_MESSAGE_RATE.into(),
            ),
        ],
        ..PlanRequest::leader_cycle()
    }
}

fn converging_plan() -> Plan {
    make_plan(&converging::snapshot(), &request()).unwrap()
}

#[test]
fn every_unload_on_the_tiny_broker_is_judged_worse() {
    let plan = converging_plan();
    // The situation as the snapshot's comment derives it: 8 unloads, all to tiny-1.
    assert_eq!(plan.unloads.len(), 8);
    assert!(
        plan.unloads
            .iter()
            .all(|u| u.to.as_deref() == Some(converging::TINY))
    );
    let tiny_after = plan
        .brokers_after
        .iter()
        .find(|b| b.broker == converging::TINY)
        .unwrap();
    assert!(
        (tiny_after.cpu_pct - 102.9).abs() < 0.01,
        "{}",
        tiny_after.cpu_pct
    );

    let v = &plan.verdict;
    assert_eq!(v.outcome, Outcome::Worse);
    assert!(v.headline.starts_with("WORSE"), "{}", v.headline);
    let max = v
        .metrics
        .iter()
        .find(|m| m.metric == "max_usage_fraction")
        .unwrap();
    assert!((max.before - 0.529).abs() < 1e-6, "{}", max.before);
    assert!((max.after - 1.029).abs() < 1e-4, "{}", max.after);
    assert_eq!(max.change, Change::Worse);
    assert!(
        v.metrics.iter().all(|m| m.change == Change::Worse),
        "{:?}",
        v.metrics
    );

    // Over loadBalancerBrokerOverloadedThresholdPercentage (85 by default) and above 100 %.
    assert_eq!(v.overloaded_threshold_fraction, 0.85);
    let names = |list: &[lbplan_core::plan::verdict::BrokerOverLimit]| {
        list.iter().map(|b| b.broker.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&v.overloaded), vec![converging::TINY]);
    assert_eq!(names(&v.above_capacity), vec![converging::TINY]);
    assert!(v.overloaded[0].new);
    assert!(v.reasons.iter().any(|r| r.contains(converging::TINY)
        && r.contains("loadBalancerBrokerOverloadedThresholdPercentage=85")));

    match v.patterns.first() {
        Some(Pattern::ConvergingDestination {
            destination,
            unloads,
            of_unloads,
            ..
        }) => {
            assert_eq!(destination, converging::TINY);
            assert_eq!((*unloads, *of_unloads), (8, 8));
        }
        other => panic!("expected the converging-destination pattern, got {other:?}"),
    }
}

#[test]
fn least_resource_usage_with_weight_is_suggested_and_really_avoids_it() {
    let plan = converging_plan();
    let suggestion = plan.verdict.suggestion().expect("a suggestion");
    assert_eq!(suggestion.key, "loadBalancerLoadPlacementStrategy");
    assert_eq!(suggestion.value, LEAST_RESOURCE_USAGE_WITH_WEIGHT);
    assert!(suggestion.avoids_worse);

    // The operator's one click: the same plan with that setting as an edit.
    let mut req = request();
    req.operations.push(Operation::SetConfig {
        key: suggestion.key.clone(),
        value: suggestion.value.clone(),
    });
    let replanned = make_plan(&converging::snapshot(), &req).unwrap();
    assert_eq!(
        replanned.placement_strategy,
        LEAST_RESOURCE_USAGE_WITH_WEIGHT
    );
    assert_ne!(replanned.verdict.outcome, Outcome::Worse);
    assert_eq!(replanned.verdict.outcome, suggestion.outcome);
    assert_eq!(
        replanned.balance_after.max_usage_fraction,
        suggestion.max_usage_after_fraction
    );
    // Still ThresholdShedder's 8 unloads, no longer on one broker, nobody overloaded.
    assert_eq!(replanned.unloads.len(), 8);
    assert!(replanned.verdict.overloaded.is_empty());
    assert!(replanned.verdict.alternatives.is_empty());
}

#[test]
fn the_demo_plan_is_not_worse() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plan = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    // The demo's cycle: max 79.2 % → 60.2 %, max/mean 2.27 → 1.73 (the golden plan).
    assert_eq!(plan.verdict.outcome, Outcome::Better);
    assert!(plan.verdict.reasons.is_empty());
    assert!(plan.verdict.alternatives.is_empty());
}

#[test]
fn a_worse_plan_exports_a_guarded_script() {
    let plan = converging_plan();
    let script = export_script(&plan, ScriptFormat::PulsarAdmin, ExportOptions::default()).unwrap();
    let guard = script.find("--i-know").unwrap();
    let first_call = script.find("\"$PULSAR_ADMIN\" namespaces unload").unwrap();
    assert!(guard < first_call);
    assert!(script.contains("# WORSE"));

    // A better plan names no `worse` hazard; its age is still checked when it runs.
    let demo = lbplan_core::synthetic::demo().unwrap();
    let fine = make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    let script = export_script(&fine, ScriptFormat::PulsarAdmin, ExportOptions::default()).unwrap();
    assert!(!script.contains("judged WORSE"));
    assert!(script.contains("lbplan_max_age=${LBPLAN_MAX_AGE:-900}"));
}

#[test]
fn a_manual_move_to_an_idle_broker_shed_again_in_the_same_plan_is_recognised() {
    // Two bundles moved by hand onto hot-1, which then sheds in the same cycle.
    let snapshot = converging::snapshot();
    let bundles: Vec<String> = snapshot.brokers["cool-1:8080"]
        .local_broker_data
        .bundles
        .iter()
        .take(2)
        .cloned()
        .collect();
    let mut req = request();
    for b in &bundles {
        req.operations.push(Operation::UnloadBundle {
            bundle: b.clone(),
            destination_broker: Some("hot-1:8080".into()),
        });
    }
    let plan = make_plan(&snapshot, &req).unwrap();
    assert!(
        plan.unloads
            .iter()
            .any(|u| u.from == "hot-1:8080" && u.origin == "shedding")
    );
    assert!(plan.verdict.patterns.iter().any(|p| matches!(p,
        Pattern::ShedAgain { broker, received: 2, at_cycle: 1, .. } if broker == "hot-1:8080")));
}

#[test]
fn judging_is_by_the_plan_numbers_alone() {
    // No brokers: nothing to judge.
    let v = judge(&Plan::default(), 0.85);
    assert_eq!(v.outcome, Outcome::NoChange);
    assert!(v.overloaded.is_empty());
}

/// A broker over ThresholdShedder's threshold that sheds nothing gets a "why not"
/// with the numbers. With loadBalancerBundleUnloadMinThroughputThreshold at 100 MiB/s, each hot
/// broker would shed 52.9 − 38.9 − 10 + 5 = 9 % of its 16 × 20 MB/s = 305.2 MiB/s, i.e. 27.47 MiB/s:
/// below the minimum, so nothing moves (the snapshot's comment derives the rest).
#[test]
fn a_broker_over_the_threshold_that_sheds_nothing_says_why() {
    let mut req = request();
    req.settings.push((
        "loadBalancerBundleUnloadMinThroughputThreshold".into(),
        "100".into(),
    ));
    let plan = make_plan(&converging::snapshot(), &req).unwrap();
    assert!(plan.unloads.is_empty());
    let why: Vec<&str> = plan
        .skipped
        .iter()
        .filter(|s| s.broker() == Some("hot-1:8080"))
        .map(|s| s.why.as_str())
        .collect();
    assert_eq!(
        why,
        vec![
            "ThresholdShedder sheds nothing from hot-1:8080: usage 52.9% ≥ average 38.9% + threshold 10.0%, but 9.0% of its 305.2 MiB/s is 27.47 MiB/s, below loadBalancerBundleUnloadMinThroughputThreshold = 100 MiB/s"
        ]
    );
    // The four hot brokers, and nobody under the threshold.
    let explained: Vec<&str> = plan
        .skipped
        .iter()
        .filter(|s| s.why.starts_with("ThresholdShedder sheds nothing"))
        .filter_map(|s| s.broker())
        .collect();
    assert_eq!(
        explained,
        vec!["hot-1:8080", "hot-2:8080", "hot-3:8080", "hot-4:8080"]
    );
}
