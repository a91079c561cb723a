//! One-line explanations of the structured reasons, for the CLI's text output and the dashboard.
//! The structured reasons stay in the plan's `detail` field; these lines only format their numbers,
//! short (the winner, its numbers, the candidate count, the filters that narrowed the candidates):
//! per-candidate lists are in the JSON only.

use super::summary::{count, rate, readable_rates};
use crate::modular::leader::{CycleUnload, SkippedUnload, UnloadSkipReason};
use crate::modular::pipeline::PlacementOutcome;
use crate::modular::shedding::{ShedReason, TrafficMetric};
use crate::reason::{DecisionReason, ReasonKind};

fn pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// Rates in the unit that fits (`must shed 300 B/s`, not `0.0 MiB/s`).
fn mib_s(bytes: f64) -> String {
    rate(bytes)
}

fn metric_value(metric: TrafficMetric, v: f64) -> String {
    match metric {
        TrafficMetric::MsgRate => format!("{} msg/s", count(v)),
        TrafficMetric::MsgThroughput => mib_s(v),
    }
}

pub fn describe_shed_reason(reason: &ShedReason) -> String {
    match reason {
        ShedReason::ThresholdShedder {
            broker_usage_fraction,
            avg_usage_fraction,
            threshold_fraction,
            need_bytes_per_sec,
            bundle_bytes_per_sec,
            lower_boundary,
        } => {
            if *lower_boundary {
                format!(
                    "ThresholdShedder lower-boundary shedding: the busiest broker ({}) sheds while another broker is below average {} − {}; needs {}, bundle carries {}",
                    pct(*broker_usage_fraction),
                    pct(*avg_usage_fraction),
                    pct(*threshold_fraction),
                    mib_s(*need_bytes_per_sec),
                    mib_s(*bundle_bytes_per_sec)
                )
            } else {
                format!(
                    "ThresholdShedder: broker usage {} ≥ average {} + threshold {}; must shed {}, bundle carries {}",
                    pct(*broker_usage_fraction),
                    pct(*avg_usage_fraction),
                    pct(*threshold_fraction),
                    mib_s(*need_bytes_per_sec),
                    mib_s(*bundle_bytes_per_sec)
                )
            }
        }
        ShedReason::OverloadShedder {
            broker_usage_fraction,
            overload_threshold_fraction,
            need_bytes_per_sec,
            bundle_bytes_per_sec,
        } => format!(
            "OverloadShedder: broker usage {} ≥ overload threshold {}; must shed {}, bundle carries {}",
            pct(*broker_usage_fraction),
            pct(*overload_threshold_fraction),
            mib_s(*need_bytes_per_sec),
            mib_s(*bundle_bytes_per_sec)
        ),
        ShedReason::UniformLoadShedder {
            metric,
            max_broker_value,
            min_broker_value,
            need,
            bundle_value,
        } => format!(
            "UniformLoadShedder: most loaded broker {} vs least loaded {}; {} left to move, bundle carries {}",
            metric_value(*metric, *max_broker_value),
            metric_value(*metric, *min_broker_value),
            metric_value(*metric, *need),
            metric_value(*metric, *bundle_value)
        ),
        ShedReason::AvgShedder {
            low_broker,
            high_score_pct,
            low_score_pct,
            hit,
            metric,
            need,
            bundle_value,
        } => format!(
            "AvgShedder: paired with {low_broker} (scores {high_score_pct:.1} vs {low_score_pct:.1}), {hit} hit count reached; {} left to move, bundle carries {}",
            metric_value(*metric, *need),
            metric_value(*metric, *bundle_value)
        ),
    }
}

/// The pipeline step a stage records, as an operator knows it (the setting that controls it, if any).
fn filter_name(stage: &str) -> Option<&'static str> {
    Some(match stage {
        "after_namespace_policies" => "namespace isolation policies",
        "after_large_topic_count" => "the topic-count filter (loadBalancerBrokerMaxTopics)",
        "after_anti_affinity" => "the anti-affinity filter (namespaceAntiAffinityGroup)",
        "after_distribute_evenly" => {
            "the even-distribution filter (loadBalancerDistributeBundlesEvenlyEnabled)"
        }
        "after_broker_filters" => "the broker filters (loadBalancerBrokerFilters)",
        _ => return None,
    })
}

/// Which pipeline steps narrowed the candidates before the strategy chose: the filter that decided
/// a one-candidate choice must be named, not hidden behind "1 of 1 candidates".
struct Narrowing {
    /// "the even-distribution filter (…) left 4 of 12 brokers", joined with ", then ".
    steps: String,
    /// Candidates the strategy was given.
    left: usize,
    restored: bool,
}

/// `None` when no step removed a broker (or the pipeline was not recorded).
/// Reads the stages' counts only, so it says the same whether they were recorded named or counted.
fn narrowing(outcome: &PlacementOutcome) -> Option<Narrowing> {
    let stages = outcome.stage_counts();
    let first = stages.first()?;
    let mut before = first.remaining + first.removed;
    let mut steps: Vec<String> = Vec::new();
    for stage in &stages {
        let Some(name) = filter_name(stage.stage) else {
            continue;
        };
        if stage.removed > 0 {
            steps.push(format!(
                "{name} left {} of {before} brokers",
                stage.remaining
            ));
        }
        before = stage.remaining;
    }
    if steps.is_empty() {
        return None;
    }
    let restored = stages.iter().any(|s| s.stage == "after_restore_all");
    Some(Narrowing {
        steps: steps.join(", then "),
        left: before,
        restored,
    })
}

/// The strategy's own explanation without its per-candidate lists (they stay in the plan's JSON
/// `detail`): the text form names the winner, its numbers and how many candidates there were.
fn short_choice_reason(reason: &str) -> &str {
    ["; scores: ", " (smoothed: ", " (long-term msg/s: "]
        .iter()
        .filter_map(|sep| reason.find(sep))
        .min()
        .and_then(|end| reason.get(..end))
        .unwrap_or(reason)
}

/// `readable_rates(short_choice_reason(reason))`, remembered for the last `reason` seen on this
/// thread: the two are pure functions of the text, and a shedding cycle's placements mostly repeat
/// the strategy's line (the same least rate among the same candidates: the scores are the cycle's),
/// while rewriting its numbers is most of an unload's one-line reason (the history writes one per
/// replayed unload).
fn readable_choice(reason: &str) -> String {
    thread_local! {
        static LAST: std::cell::RefCell<(String, String)> =
            const { std::cell::RefCell::new((String::new(), String::new())) };
    }
    LAST.with(|last| {
        let Ok(mut last) = last.try_borrow_mut() else {
            return readable_rates(short_choice_reason(reason));
        };
        if last.0 != reason || last.0.is_empty() {
            last.1 = readable_rates(short_choice_reason(reason));
            last.0.clear();
            last.0.push_str(reason);
        }
        last.1.clone()
    })
}

/// A placement score in the strategy's unit: long-term msg/s for LeastLongTermMessageRate (+inf:
/// overloaded), smoothed usage for LeastResourceUsageWithWeight.
fn score_text(strategy: &str, score: f64) -> String {
    if score.is_infinite() {
        return "+inf (overloaded)".to_string();
    }
    if strategy.contains("LeastResourceUsageWithWeight") {
        format!("{:.1}% smoothed usage", score * 100.0)
    } else {
        format!("{} msg/s", count(score))
    }
}

pub fn describe_placement(outcome: &PlacementOutcome) -> String {
    let Some(broker) = &outcome.broker else {
        return "no broker available".to_string();
    };
    if outcome.from_preallocation {
        return format!("placed on {broker} (preallocated)");
    }
    let narrowed = narrowing(outcome);
    let mut text = match (&outcome.choice, &narrowed) {
        // The filters decided: say so first, the strategy only confirmed the sole candidate.
        (_, Some(n)) if n.left == 1 && !n.restored => {
            format!("{}, so {} chose {broker}", n.steps, outcome.strategy)
        }
        // The strategy's own line already counts the tie ("390 of 822 candidates …").
        (Some(choice), _) if choice.choice_set.len() > 1 => format!(
            "{} picked {broker} at random ({})",
            outcome.strategy,
            readable_choice(&choice.reason)
        ),
        (Some(choice), _) => format!(
            "{} chose {broker} ({})",
            outcome.strategy,
            readable_choice(&choice.reason)
        ),
        (None, _) => format!("{} chose {broker}", outcome.strategy),
    };
    if let Some(n) = &narrowed
        && (n.left != 1 || n.restored)
    {
        text.push_str(&format!(" after {}", n.steps));
        if n.restored {
            text.push_str("; none was left, so the policy-only set was restored");
        }
    }
    if let Some(up) = outcome.choice.as_ref().and_then(|c| c.runner_up.as_ref()) {
        text.push_str(&format!(
            "; runner-up {} at {}",
            up.broker,
            score_text(&outcome.strategy, up.score)
        ));
    }
    if let Some(first) = &outcome.overloaded_first_choice {
        text.push_str(&format!(
            "; first pick {} was overloaded, re-selected on the policy-only set",
            first.broker
        ));
    }
    text
}

/// Why the shedding cycle unloaded a bundle and placed it where it did (the plan's and the
/// simulation's wording).
pub(crate) fn shedding_reason(u: &CycleUnload) -> String {
    format!(
        "{}; {}",
        describe_shed_reason(&u.shed_reason),
        describe_placement(&u.placement)
    )
}

pub fn describe_skip(s: &SkippedUnload) -> String {
    let why = match &s.why {
        UnloadSkipReason::ExcludedNamespace => {
            "its namespace is in loadBalancerSheddingExcludedNamespaces".to_string()
        }
        UnloadSkipReason::NamespacePolicies => {
            "namespace isolation policies allow no other broker".to_string()
        }
        UnloadSkipReason::AntiAffinity => {
            "moving it would not reduce its anti-affinity group's concentration".to_string()
        }
        UnloadSkipReason::NoBrokerAvailable => "the placement pipeline found no broker".to_string(),
        UnloadSkipReason::SameBroker => {
            "placement chose the broker that already owns it".to_string()
        }
    };
    format!(
        "{} selected it ({}), but the leader skips it: {why}",
        shed_strategy(&s.shed_reason),
        describe_shed_reason(&s.shed_reason)
    )
}

fn shed_strategy(r: &ShedReason) -> &'static str {
    match r {
        ShedReason::ThresholdShedder { .. } => "ThresholdShedder",
        ShedReason::OverloadShedder { .. } => "OverloadShedder",
        ShedReason::UniformLoadShedder { .. } => "UniformLoadShedder",
        ShedReason::AvgShedder { .. } => "AvgShedder",
    }
}

/// The kind of a shedding strategy's selection, with the numbers it compared.
pub fn shed_reason(reason: &ShedReason) -> DecisionReason {
    let kind = match reason {
        ShedReason::ThresholdShedder {
            lower_boundary: true,
            ..
        } => ReasonKind::ThresholdShedderLowerBoundary,
        ShedReason::ThresholdShedder { .. } => ReasonKind::ThresholdShedder,
        ShedReason::OverloadShedder { .. } => ReasonKind::OverloadShedder,
        ShedReason::UniformLoadShedder { .. } => ReasonKind::UniformLoadShedder,
        ShedReason::AvgShedder { .. } => ReasonKind::AvgShedder,
    };
    DecisionReason::new(kind).with_fields_of(reason, &["strategy", "lower_boundary"])
}

/// The candidates the strategy was given (the last pipeline stage's), when the stages were recorded.
fn candidate_count(outcome: &PlacementOutcome) -> Option<usize> {
    outcome.stage_counts().last().map(|s| s.remaining)
}

/// The last filter that removed a broker before the strategy chose, as a stable id (the pipeline
/// stage without `after_`: `namespace_policies`, `large_topic_count`, `anti_affinity`,
/// `distribute_evenly`, `broker_filters`); `None` when none did.
fn deciding_filter(outcome: &PlacementOutcome) -> Option<&str> {
    outcome
        .stage_counts()
        .into_iter()
        .filter(|s| s.removed > 0 && filter_name(s.stage).is_some())
        .filter_map(|s| s.stage.strip_prefix("after_"))
        .next_back()
}

/// Adds where placement put the bundle and why: the destination, the strategy, the candidate count,
/// the deciding filter, the winner's and the runner-up's scores.
pub fn with_placement(mut r: DecisionReason, outcome: &PlacementOutcome) -> DecisionReason {
    r = r
        .with("destination", outcome.broker.clone())
        .with("placement_strategy", outcome.strategy.clone())
        .with("preallocated", outcome.from_preallocation);
    if let Some(n) = candidate_count(outcome) {
        r = r.with("candidates", n);
    }
    if let Some(f) = deciding_filter(outcome) {
        r = r.with("deciding_filter", f.to_string());
    }
    if let Some(choice) = &outcome.choice {
        r = r.with("tied", choice.choice_set.len());
        if let Some(score) = choice.score {
            r = r.with("score", score);
        }
        if let Some(up) = &choice.runner_up {
            r = r
                .with("runner_up", up.broker.clone())
                .with("runner_up_score", up.score);
        }
    }
    r
}

/// A shedding unload: the shedder's kind and numbers, then where placement put it.
pub fn unload_reason(reason: &ShedReason, placement: &PlacementOutcome) -> DecisionReason {
    with_placement(shed_reason(reason), placement)
}

/// A selection the leader did not carry out: the skip's kind, the shedder's numbers, and the
/// placement's when placement decided (`placement_chose_current_owner`, apache/pulsar#20822).
pub fn skip_reason(s: &SkippedUnload) -> DecisionReason {
    let kind = match s.why {
        UnloadSkipReason::ExcludedNamespace => ReasonKind::ExcludedNamespace,
        UnloadSkipReason::NamespacePolicies => ReasonKind::Isolation,
        UnloadSkipReason::AntiAffinity => ReasonKind::AntiAffinity,
        UnloadSkipReason::NoBrokerAvailable => ReasonKind::NoBrokerAvailable,
        UnloadSkipReason::SameBroker => ReasonKind::PlacementChoseCurrentOwner,
    };
    let shed = shed_reason(&s.shed_reason);
    let mut r = DecisionReason::new(kind)
        .with("shedding", shed.kind.as_str())
        .with_fields_of(&shed.numbers, &[]);
    if let Some(p) = &s.placement {
        r = with_placement(r, p);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modular::pipeline::PipelineStage;
    use crate::modular::placement::PlacementChoice;

    fn names(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix}-{i:02}:8080")).collect()
    }

    /// On the demo cluster the even-distribution filter removes 11 of 12 brokers and
    /// LeastLongTermMessageRate "ties" its sole candidate; the text must name the filter.
    fn outcome(left: usize) -> PlacementOutcome {
        let all = names("broker", 12);
        let kept: Vec<String> = all.iter().take(left).cloned().collect();
        let removed: Vec<String> = all.iter().skip(left).cloned().collect();
        let scores: Vec<String> = kept.iter().map(|b| format!("{b}=13209.3467")).collect();
        PlacementOutcome {
            bundle: "globex/clickstream/0xf0000000_0xf8000000".into(),
            broker: kept.first().cloned(),
            choice: Some(PlacementChoice {
                broker: kept.first().cloned().unwrap_or_default(),
                choice_set: kept.iter().take(1).cloned().collect(),
                reason: format!(
                    "least long-term message rate 13209.3467 msg/s (1 of {left} candidates tie); scores: {}",
                    scores.join(", ")
                ),
                pick_rejected: false,
                score: None,
                runner_up: None,
            }),
            strategy: "LeastLongTermMessageRate".into(),
            stages: vec![
                PipelineStage {
                    stage: "after_namespace_policies".into(),
                    remaining: all.clone(),
                    removed: Vec::new(),
                    note: None,
                },
                PipelineStage {
                    stage: "after_distribute_evenly".into(),
                    remaining: kept,
                    removed,
                    note: None,
                },
            ],
            stage_counts: Vec::new(),
            overloaded_first_choice: None,
            from_preallocation: false,
        }
    }

    #[test]
    fn the_filter_that_decided_is_named() {
        assert_eq!(
            describe_placement(&outcome(1)),
            "the even-distribution filter (loadBalancerDistributeBundlesEvenlyEnabled) left 1 of 12 brokers, so LeastLongTermMessageRate chose broker-00:8080"
        );
    }

    #[test]
    fn the_text_is_short_the_lists_stay_in_the_detail() {
        let text = describe_placement(&outcome(4));
        assert_eq!(
            text,
            "LeastLongTermMessageRate chose broker-00:8080 (least long-term message rate 13,209 msg/s (1 of 4 candidates tie)) after the even-distribution filter (loadBalancerDistributeBundlesEvenlyEnabled) left 4 of 12 brokers"
        );
        assert!(!text.contains("scores:"));
    }

    #[test]
    fn small_figures_keep_a_unit_that_shows_them() {
        // Never "must shed 0.0 MiB/s".
        let text = describe_shed_reason(&ShedReason::ThresholdShedder {
            broker_usage_fraction: 0.792,
            avg_usage_fraction: 0.349,
            threshold_fraction: 0.1,
            need_bytes_per_sec: 40_000.0,
            bundle_bytes_per_sec: 10.4 * 1024.0 * 1024.0,
            lower_boundary: false,
        });
        assert_eq!(
            text,
            "ThresholdShedder: broker usage 79.2% ≥ average 34.9% + threshold 10.0%; must shed 39.1 KiB/s, bundle carries 10.4 MiB/s"
        );
    }

    #[test]
    fn a_remembered_choice_line_is_the_line_for_its_own_text() {
        let a = "least long-term message rate 13209.3467 msg/s (1 of 3 candidates tie); scores: x";
        let b = "least long-term message rate 2.5 msg/s (2 of 3 candidates tie)";
        for text in [a, a, b, a, "", b, b] {
            assert_eq!(
                readable_choice(text),
                readable_rates(short_choice_reason(text))
            );
        }
        assert_eq!(
            readable_choice(a),
            "least long-term message rate 13,209 msg/s (1 of 3 candidates tie)"
        );
    }
}
