//! The plan's verdict: whether the cluster ends up better or worse balanced than it started, which
//! brokers end up overloaded, the pattern behind a bad outcome when one is recognised (unloads
//! converging on one destination, apache/pulsar#16059; a destination shed again), and which single
//! setting would avoid a worse outcome, found by re-planning with it. Front ends show it; the exports
//! refuse to apply a worse plan without `--i-know` (`act::safety::script_guard`).
//!
//! Everything is judged on the numbers the plan already has (`brokers_before` / `brokers_after`,
//! `balance_before` / `balance_after`, the unloads and the outlook): the verdict adds no load model.

use indexmap::IndexMap;

use super::model::{BalanceSummary, Plan};
use super::operations::Operation;
pub use super::verdict_types::{
    Alternative, BrokerOverLimit, Change, MetricChange, Outcome, Pattern, Verdict,
};
use crate::config::{LEAST_RESOURCE_USAGE_WITH_WEIGHT, simple_class_name};

/// Changes smaller than half the last digit the reports print (0.1 % for usages, 0.01 for max/mean)
/// are "no change": a verdict must not contradict the numbers shown next to it.
const USAGE_TOLERANCE_FRACTION: f64 = 0.0005;
const RATIO_TOLERANCE: f64 = 0.005;

/// Unloads to one destination that make a converging pattern when they are most of the plan's,
/// even if the destination does not end up the busiest.
const CONCENTRATED: usize = 4;

/// The argument that makes a guarded script run anyway.
pub const I_KNOW_FLAG: &str = "--i-know";

fn pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

fn compare(metric: &str, before: f64, after: f64, tolerance: f64) -> MetricChange {
    let change = if after > before + tolerance {
        Change::Worse
    } else if after < before - tolerance {
        Change::Better
    } else {
        Change::NoChange
    };
    MetricChange {
        metric: metric.to_string(),
        before,
        after,
        change,
    }
}

pub(crate) fn metrics(before: &BalanceSummary, after: &BalanceSummary) -> Vec<MetricChange> {
    vec![
        compare(
            "max_usage_fraction",
            before.max_usage_fraction,
            after.max_usage_fraction,
            USAGE_TOLERANCE_FRACTION,
        ),
        compare(
            "max_over_mean",
            before.max_over_mean,
            after.max_over_mean,
            RATIO_TOLERANCE,
        ),
        compare(
            "std_usage_fraction",
            before.std_usage_fraction,
            after.std_usage_fraction,
            USAGE_TOLERANCE_FRACTION,
        ),
    ]
}

/// Brokers strictly over `limit` after the plan (as the overload checks compare: `usage > limit`).
fn over_limit(plan: &Plan, limit: f64) -> Vec<BrokerOverLimit> {
    plan.brokers_after
        .iter()
        .filter(|a| a.weighted_max_usage_fraction > limit)
        .map(|a| {
            let before = plan
                .brokers_before
                .iter()
                .find(|b| b.broker == a.broker)
                .map(|b| b.weighted_max_usage_fraction);
            BrokerOverLimit {
                broker: a.broker.clone(),
                before_fraction: before,
                after_fraction: a.weighted_max_usage_fraction,
                new: before.is_none_or(|b| b <= limit),
            }
        })
        .collect()
}

fn usage_of(views: &[super::model::BrokerLoadView], broker: &str) -> f64 {
    views
        .iter()
        .find(|v| v.broker == broker)
        .map_or(0.0, |v| v.weighted_max_usage_fraction)
}

fn patterns(plan: &Plan, threshold: f64) -> Vec<Pattern> {
    let mut out = Vec::new();
    let mut per_destination: IndexMap<&str, usize> = IndexMap::new();
    for u in &plan.unloads {
        if let Some(to) = &u.to {
            *per_destination.entry(to.as_str()).or_insert(0) += 1;
        }
    }
    let with_destination: usize = per_destination.values().sum();
    // Converging matters when it made the hot spot: the destination ends up the busiest broker or
    // overloaded (two bundles to the least loaded broker of a healthy cluster are no pattern) — or
    // when most of a cycle's unloads go to one broker (at least `CONCENTRATED` of them, more than
    // half): on 1,000 brokers 25 of 29 moves to one broker do not make it the busiest yet, but they
    // are the same pattern, and the next cycle sheds it.
    let busiest_after = plan.balance_after.max_usage_fraction;
    let mut converging: Vec<(&str, usize)> = per_destination
        .iter()
        .map(|(d, n)| (*d, *n))
        .filter(|(d, n)| {
            let after = usage_of(&plan.brokers_after, d);
            let hot = *n >= 2 && (after >= busiest_after || after > threshold);
            let concentrated = *n >= CONCENTRATED && *n * 2 > with_destination;
            hot || concentrated
        })
        .collect();
    converging.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    for (destination, unloads) in converging {
        out.push(Pattern::ConvergingDestination {
            destination: destination.to_string(),
            unloads,
            of_unloads: with_destination,
            before_fraction: usage_of(&plan.brokers_before, destination),
            after_fraction: usage_of(&plan.brokers_after, destination),
        });
    }

    // A broker shed after it received bundles: later in this plan, or in the outlook's cycle.
    let mut shed_again: IndexMap<&str, (usize, usize, u32)> = IndexMap::new();
    for (k, u) in plan.unloads.iter().enumerate() {
        let earlier = plan.unloads.get(..k).unwrap_or_default();
        let received = earlier
            .iter()
            .filter(|e| e.to.as_deref() == Some(u.from.as_str()))
            .count();
        if received > 0 {
            let entry = shed_again.entry(u.from.as_str()).or_insert((0, 0, 1));
            entry.0 = entry.0.max(received);
            entry.1 += 1;
        }
    }
    if let Some(o) = &plan.outlook
        && let Some(cycle) = o.acts_at_cycle
    {
        let mut later: IndexMap<&str, usize> = IndexMap::new();
        for u in &o.unloads_then {
            if per_destination.contains_key(u.from.as_str()) {
                *later.entry(u.from.as_str()).or_insert(0) += 1;
            }
        }
        for (broker, shed) in later {
            let received = per_destination.get(broker).copied().unwrap_or(0);
            shed_again.entry(broker).or_insert((received, shed, cycle));
        }
    }
    for (broker, (received, shed, at_cycle)) in shed_again {
        out.push(Pattern::ShedAgain {
            broker: broker.to_string(),
            received,
            shed,
            at_cycle,
        });
    }
    out
}

/// Judges a plan on its own numbers; `overloaded_threshold_fraction` is
/// `loadBalancerBrokerOverloadedThresholdPercentage` / 100 of the plan's configuration.
///
/// The plan is `worse` when the busiest broker gets busier while the load gets less even (max and
/// max/mean both rise), when a broker ends up overloaded or above 100 % that was not, or when no
/// measure improves and one worsens.
pub fn judge(plan: &Plan, overloaded_threshold_fraction: f64) -> Verdict {
    let metrics = metrics(&plan.balance_before, &plan.balance_after);
    let change_of = |name: &str| {
        metrics
            .iter()
            .find(|m| m.metric == name)
            .map_or(Change::NoChange, |m| m.change)
    };
    let overloaded = over_limit(plan, overloaded_threshold_fraction);
    let above_capacity = over_limit(plan, 1.0);
    let patterns = patterns(plan, overloaded_threshold_fraction);

    let before = &plan.balance_before;
    let after = &plan.balance_after;
    let mut reasons = Vec::new();
    if change_of("max_usage_fraction") == Change::Worse
        && change_of("max_over_mean") == Change::Worse
    {
        reasons.push(format!(
            "the busiest broker gets busier and the load less even: max {} → {}, max/mean {:.2} → {:.2}",
            pct(before.max_usage_fraction),
            pct(after.max_usage_fraction),
            before.max_over_mean,
            after.max_over_mean
        ));
    }
    let threshold_pct = (overloaded_threshold_fraction * 100.0).round();
    for b in overloaded.iter().filter(|b| b.new) {
        reasons.push(format!(
            "{} ends at {} (was {}), over loadBalancerBrokerOverloadedThresholdPercentage={threshold_pct}",
            b.broker,
            pct(b.after_fraction),
            b.before_fraction.map_or_else(|| "not there".to_string(), pct)
        ));
    }
    for b in above_capacity.iter().filter(|b| b.new) {
        reasons.push(format!(
            "{} ends above 100% ({})",
            b.broker,
            pct(b.after_fraction)
        ));
    }
    let any = |c: Change| metrics.iter().any(|m| m.change == c);
    if reasons.is_empty() && any(Change::Worse) && !any(Change::Better) {
        let worse: Vec<String> = metrics
            .iter()
            .filter(|m| m.change == Change::Worse)
            .map(metric_text)
            .collect();
        reasons.push(format!("nothing improves and {} worsens", worse.join(", ")));
    }
    let outcome = if !reasons.is_empty() {
        Outcome::Worse
    } else if any(Change::Better) && any(Change::Worse) {
        Outcome::Mixed
    } else if any(Change::Better) {
        Outcome::Better
    } else {
        Outcome::NoChange
    };
    let mut verdict = Verdict {
        outcome,
        headline: String::new(),
        reasons,
        metrics,
        overloaded_threshold_fraction,
        overloaded,
        above_capacity,
        patterns,
        alternatives: Vec::new(),
    };
    verdict.headline = headline(&verdict);
    verdict
}

pub(crate) fn metric_text(m: &MetricChange) -> String {
    match m.metric.as_str() {
        "max_over_mean" => format!("max/mean {:.2} → {:.2}", m.before, m.after),
        "std_usage_fraction" => format!("std {} → {}", pct(m.before), pct(m.after)),
        _ => format!("max {} → {}", pct(m.before), pct(m.after)),
    }
}

fn headline(v: &Verdict) -> String {
    let numbers: Vec<String> = v.metrics.iter().map(metric_text).collect();
    let numbers = numbers.join(", ");
    match v.outcome {
        Outcome::Worse => format!("WORSE: this plan leaves the cluster worse balanced ({numbers})"),
        Outcome::Better => format!("Better: {numbers}"),
        Outcome::Mixed => format!("Mixed: {numbers}"),
        Outcome::NoChange => format!("No change in balance: {numbers}"),
    }
}

/// Lines explaining a pattern.
pub fn describe_pattern(p: &Pattern) -> String {
    match p {
        Pattern::ConvergingDestination {
            destination,
            unloads,
            of_unloads,
            before_fraction,
            after_fraction,
        } => format!(
            "{unloads} of {of_unloads} unloads converge on {destination} ({} → {}): the placement scores each bundle on the same leader view, so the same broker wins every time (the apache/pulsar#16059 pattern)",
            pct(*before_fraction),
            pct(*after_fraction)
        ),
        Pattern::ShedAgain {
            broker,
            received,
            shed,
            at_cycle,
        } => {
            if *at_cycle <= 1 {
                format!(
                    "{broker} receives {received} bundle(s) and is shed again in the same plan ({shed} unload(s))"
                )
            } else {
                format!(
                    "{broker} receives {received} bundle(s) and is shed again at cycle {at_cycle} per the outlook ({shed} unload(s))"
                )
            }
        }
    }
}

pub fn describe_alternative(a: &Alternative, seed: u64) -> String {
    let value = simple_class_name(&a.value);
    if a.avoids_worse {
        format!(
            "setting {}={value} avoids it: re-planned with seed {seed}, the outcome is {} (max {}, max/mean {:.2})",
            a.key,
            a.outcome.name(),
            pct(a.max_usage_after_fraction),
            a.max_over_mean_after
        )
    } else {
        format!(
            "setting {}={value} does not avoid it: re-planned with seed {seed}, the outcome is still {} (max {})",
            a.key,
            a.outcome.name(),
            pct(a.max_usage_after_fraction)
        )
    }
}

/// The verdict's warnings, whatever its outcome: why it is worse, brokers that stay over the
/// overloaded threshold, and the patterns (converging destination, shed again). Every front end
/// shows these (the CLI's report, the script's header, the dashboard's banner).
pub fn warnings(v: &Verdict) -> Vec<String> {
    let mut lines: Vec<String> = v.reasons.clone();
    if v.outcome != Outcome::Worse {
        for b in &v.overloaded {
            lines.push(format!(
                "{} stays over loadBalancerBrokerOverloadedThresholdPercentage ({})",
                b.broker,
                pct(b.after_fraction)
            ));
        }
    }
    lines.extend(
        v.patterns
            .iter()
            .map(|p| format!("pattern: {}", describe_pattern(p))),
    );
    lines
}

/// The verdict as lines of text, headline first (the CLI report and the script's header).
pub fn verdict_lines(v: &Verdict, seed: u64) -> Vec<String> {
    let mut lines = vec![v.headline.clone()];
    lines.extend(warnings(v).into_iter().map(|w| format!("- {w}")));
    lines.extend(
        v.alternatives
            .iter()
            .map(|a| format!("- {}", describe_alternative(a, seed))),
    );
    lines
}

/// What "Propose a rebalance instead" prefills for a plan judged worse: a rebalance of the same
/// cluster and settings whose goal keeps every broker under the overloaded threshold the verdict
/// used (`max<=85%`), with at most as many moves as the plan made (`None`: no limit). An
/// alternative placement strategy may not help; a proposal with destinations checked against the
/// leader's own rules does.
pub fn rebalance_instead(plan: &Plan) -> (String, Option<usize>) {
    let threshold = plan.verdict.overloaded_threshold_fraction;
    let goal = if threshold > 0.0 && threshold.is_finite() {
        format!("max<={:.0}%", (threshold * 100.0).min(100.0))
    } else {
        "max/mean<=1.15".to_string()
    };
    let moves = plan.unloads.len();
    (goal, (moves > 0).then_some(moves))
}

/// The single settings worth re-planning with when a plan is worse: the placement strategy that
/// compares resource usage instead of message rates (the fix apache/pulsar#16059 discusses), unless
/// it is already in use or the extensible load manager (which ignores it) runs.
pub fn alternative_settings(plan: &Plan) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if plan.load_manager == "modular" && plan.placement_strategy != LEAST_RESOURCE_USAGE_WITH_WEIGHT
    {
        out.push((
            "loadBalancerLoadPlacementStrategy".to_string(),
            LEAST_RESOURCE_USAGE_WITH_WEIGHT.to_string(),
        ));
    }
    out
}

/// The request with one setting changed: given last, so it wins over the request's own value for
/// the key (a `set=` operation of the same key is dropped for the same reason).
pub fn request_with_setting(
    req: &super::PlanRequest,
    key: &str,
    value: &str,
) -> super::PlanRequest {
    let mut alt = req.clone();
    alt.operations
        .retain(|op| !matches!(op, Operation::SetConfig { key: k, .. } if k == key));
    alt.settings.retain(|(k, _)| k != key);
    alt.settings.push((key.to_string(), value.to_string()));
    alt
}

/// For a worse plan, re-plans with each of [`alternative_settings`] through `replan` (which must not
/// itself look for alternatives) and records the outcomes. A setting the re-plan refuses is left out.
pub fn add_alternatives<E>(
    plan: &mut Plan,
    req: &super::PlanRequest,
    mut replan: impl FnMut(&super::PlanRequest) -> Result<Plan, E>,
) {
    if !plan.verdict.is_worse() {
        return;
    }
    for (key, value) in alternative_settings(plan) {
        let Ok(alt) = replan(&request_with_setting(req, &key, &value)) else {
            continue;
        };
        plan.verdict.alternatives.push(Alternative {
            key,
            value,
            outcome: alt.verdict.outcome,
            max_usage_after_fraction: alt.balance_after.max_usage_fraction,
            max_over_mean_after: alt.balance_after.max_over_mean,
            avoids_worse: !alt.verdict.is_worse(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::balance::summarize;
    use super::super::model::{BrokerLoadView, PlannedUnload};
    use super::*;

    fn view(broker: &str, usage: f64) -> BrokerLoadView {
        BrokerLoadView {
            broker: broker.to_string(),
            weighted_max_usage_fraction: usage,
            ..BrokerLoadView::default()
        }
    }

    fn unload(from: &str, to: &str) -> PlannedUnload {
        PlannedUnload {
            bundle: format!("t/ns/0x00000000_0x{:08x}", to.len()),
            from: from.to_string(),
            to: Some(to.to_string()),
            pass_destination: true,
            reason: crate::reason::DecisionReason::new(crate::reason::ReasonKind::ManualUnload),
            reason_text: String::new(),
            detail: None,
            bytes_per_sec: 0.0,
            msg_per_sec: 0.0,
            origin: "shedding".to_string(),
        }
    }

    fn plan(before: Vec<BrokerLoadView>, after: Vec<BrokerLoadView>) -> Plan {
        Plan {
            balance_before: summarize(&before),
            balance_after: summarize(&after),
            brokers_before: before,
            brokers_after: after,
            ..Plan::default()
        }
    }

    /// The 1,000-broker figures of the converging cluster: the busiest broker goes from 98.5 % to 811 % (shape: one
    /// small broker receives every unload, the sources drop a little).
    #[test]
    fn a_worse_plan_proposes_a_rebalance_under_the_overloaded_threshold() {
        let mut p = plan(vec![view("a", 0.6)], vec![view("a", 0.9)]);
        p.verdict.overloaded_threshold_fraction = 0.85;
        p.unloads = vec![unload("a", "b"), unload("a", "c")];
        assert_eq!(rebalance_instead(&p), ("max<=85%".to_string(), Some(2)));
        p.verdict.overloaded_threshold_fraction = 0.0;
        p.unloads.clear();
        assert_eq!(rebalance_instead(&p), ("max/mean<=1.15".to_string(), None));
    }

    #[test]
    fn the_busiest_broker_at_811_pct_is_worse_and_names_the_destination() {
        let mut before = vec![view("src-1:8080", 0.985), view("src-2:8080", 0.90)];
        let mut after = vec![view("src-1:8080", 0.90), view("src-2:8080", 0.85)];
        before.push(view("small:8080", 0.02));
        after.push(view("small:8080", 8.11));
        let mut p = plan(before, after);
        p.unloads = vec![
            unload("src-1:8080", "small:8080"),
            unload("src-2:8080", "small:8080"),
        ];
        let v = judge(&p, 0.85);
        assert_eq!(v.outcome, Outcome::Worse);
        assert_eq!(v.overloaded.len(), 2);
        assert!(
            v.overloaded
                .iter()
                .any(|b| b.broker == "small:8080" && b.new)
        );
        // src-1 was already over 85 % (98.5 %) and still is: listed, not new.
        assert!(
            v.overloaded
                .iter()
                .any(|b| b.broker == "src-1:8080" && !b.new)
        );
        assert_eq!(v.above_capacity.len(), 1);
        assert!(matches!(v.patterns.first(),
            Some(Pattern::ConvergingDestination { destination, unloads: 2, .. }) if destination == "small:8080"));
    }

    #[test]
    fn a_broker_newly_overloaded_is_worse_even_when_the_max_falls() {
        let p = plan(
            vec![view("a", 0.95), view("b", 0.50), view("c", 0.10)],
            vec![view("a", 0.80), view("b", 0.86), view("c", 0.10)],
        );
        let v = judge(&p, 0.85);
        assert_eq!(v.outcome, Outcome::Worse);
        assert_eq!(v.reasons.len(), 1);
        assert!(
            v.reasons[0].starts_with("b ends at 86.0% (was 50.0%)"),
            "{:?}",
            v.reasons
        );
    }

    #[test]
    fn changes_below_the_printed_precision_are_no_change() {
        let p = plan(
            vec![view("a", 0.5000), view("b", 0.3000)],
            vec![view("a", 0.5004), view("b", 0.2996)],
        );
        let v = judge(&p, 0.85);
        assert_eq!(v.outcome, Outcome::NoChange);
        assert!(v.metrics.iter().all(|m| m.change == Change::NoChange));
    }

    #[test]
    fn max_down_but_std_up_is_mixed() {
        // Removing load from the top broker onto the bottom one past the middle: max falls, the
        // spread grows.
        let p = plan(
            vec![view("a", 0.60), view("b", 0.50), view("c", 0.50)],
            vec![view("a", 0.55), view("b", 0.50), view("c", 0.05)],
        );
        let v = judge(&p, 0.85);
        assert_eq!(v.outcome, Outcome::Mixed);
    }

    #[test]
    fn a_better_plan_still_carries_its_warnings() {
        // The CLI warned "3 of 4 unloads converge on broker-10" while the dashboard said
        // only "Better": the warnings are one list, whatever the outcome.
        let v = Verdict {
            outcome: Outcome::Better,
            headline: "Better: max 79.2% → 60.1%".into(),
            overloaded: vec![BrokerOverLimit {
                broker: "broker-04".into(),
                before_fraction: Some(0.92),
                after_fraction: 0.88,
                new: false,
            }],
            patterns: vec![
                Pattern::ConvergingDestination {
                    destination: "broker-10".into(),
                    unloads: 3,
                    of_unloads: 4,
                    before_fraction: 0.2,
                    after_fraction: 0.6,
                },
                Pattern::ShedAgain {
                    broker: "broker-10".into(),
                    received: 3,
                    shed: 1,
                    at_cycle: 2,
                },
            ],
            ..Verdict::default()
        };
        let w = warnings(&v);
        assert_eq!(w.len(), 3);
        assert_eq!(
            w[0],
            "broker-04 stays over loadBalancerBrokerOverloadedThresholdPercentage (88.0%)"
        );
        assert!(w[1].starts_with("pattern: 3 of 4 unloads converge on broker-10 (20.0% → 60.0%)"));
        assert_eq!(
            w[2],
            "pattern: broker-10 receives 3 bundle(s) and is shed again at cycle 2 per the outlook (1 unload(s))"
        );
        // The CLI's lines are the same warnings under the headline.
        let lines = verdict_lines(&v, 0);
        assert_eq!(lines[0], v.headline);
        assert_eq!(lines[1], format!("- {}", w[0]));
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn most_unloads_to_one_broker_is_a_pattern_even_when_it_stays_cool() {
        // On 1,000 brokers, 25 of 29 moves went to one broker with no warning (it ends
        // at 40 %, well below the busiest broker's 80 %). Shape: 5 of 6 unloads to `dst`.
        let before = vec![
            view("hot:8080", 0.9),
            view("dst:8080", 0.1),
            view("other:8080", 0.8),
        ];
        let after = vec![
            view("hot:8080", 0.6),
            view("dst:8080", 0.4),
            view("other:8080", 0.8),
        ];
        let mut p = plan(before, after);
        p.unloads = (0..6)
            .map(|k| unload("hot:8080", if k < 5 { "dst:8080" } else { "other:8080" }))
            .collect();
        let v = judge(&p, 0.85);
        assert_eq!(v.outcome, Outcome::Better);
        assert_eq!(
            v.patterns,
            [Pattern::ConvergingDestination {
                destination: "dst:8080".into(),
                unloads: 5,
                of_unloads: 6,
                before_fraction: 0.1,
                after_fraction: 0.4,
            }]
        );
        assert!(warnings(&v)[0].starts_with("pattern: 5 of 6 unloads converge on dst:8080"));
        // Three of four to a cool broker is below the bar (a small plan spreads little).
        p.unloads.truncate(4);
        p.unloads[3] = unload("hot:8080", "other:8080");
        assert!(judge(&p, 0.85).patterns.is_empty());
    }
}
