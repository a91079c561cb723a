//! One-line explanations of the structured reasons, for the CLI's text output and the dashboard.
//! The structured reasons stay in the plan's `detail` field; these lines only format their numbers.

use crate::modular::leader::{SkipReason, SkippedUnload};
use crate::modular::pipeline::PlacementOutcome;
use crate::modular::shedding::{ShedReason, TrafficMetric};
use crate::units::MIB;

fn pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

fn mib_s(bytes: f64) -> String {
    format!("{:.1} MiB/s", bytes / MIB)
}

fn metric_value(metric: TrafficMetric, v: f64) -> String {
    match metric {
        TrafficMetric::MsgRate => format!("{v:.0} msg/s"),
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

pub fn describe_placement(outcome: &PlacementOutcome) -> String {
    let Some(broker) = &outcome.broker else {
        return "no broker available".to_string();
    };
    if outcome.from_preallocation {
        return format!("placed on {broker} (preallocated)");
    }
    let mut text = match &outcome.choice {
        Some(choice) if choice.choice_set.len() > 1 => format!(
            "{} picked {broker} at random among {} equally good brokers ({})",
            outcome.strategy,
            choice.choice_set.len(),
            choice.reason
        ),
        Some(choice) => format!("{} chose {broker} ({})", outcome.strategy, choice.reason),
        None => format!("{} chose {broker}", outcome.strategy),
    };
    if let Some(first) = &outcome.overloaded_first_choice {
        text.push_str(&format!(
            "; first pick {} was overloaded, re-selected on the policy-only set",
            first.broker
        ));
    }
    text
}

pub fn describe_skip(s: &SkippedUnload) -> String {
    let why = match &s.why {
        SkipReason::ExcludedNamespace => {
            "its namespace is in loadBalancerSheddingExcludedNamespaces".to_string()
        }
        SkipReason::NamespacePolicies => {
            "namespace isolation policies allow no other broker".to_string()
        }
        SkipReason::AntiAffinity => {
            "moving it would not reduce its anti-affinity group's concentration".to_string()
        }
        SkipReason::NoBrokerAvailable => "the placement pipeline found no broker".to_string(),
        SkipReason::SameBroker => "placement chose the broker that already owns it".to_string(),
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
