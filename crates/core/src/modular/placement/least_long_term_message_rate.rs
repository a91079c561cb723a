//! `LeastLongTermMessageRate` (§8.1, Pulsar's default placement): the candidate with the smallest
//! long-term message rate (time average plus preallocated bundles); overloaded brokers score +∞.

use super::{CycleScores, PipelineTrace, PlacementChoice, PlacementStrategy, fmt_num, pick_among};
use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::modular::{BrokerData, LoadData};
use crate::rng::Picker;

/// Stateless: every call scores the candidates afresh.
#[derive(Clone, Debug, Default)]
pub struct LeastLongTermMessageRate;

/// `getScore`: +∞ when the weighted max usage exceeds the overload threshold, otherwise the sum of
/// the preallocated bundles' long-term rates (in map order, as Java sums them) plus the broker's
/// long-term time-average rate.
pub fn long_term_message_rate_score(broker: &BrokerData, cfg: &LoadBalancerConfig) -> f64 {
    let overload_threshold = cfg.overloaded_threshold_fraction();
    // Weighted since PIP-358; the unweighted max on 3.x (the profile sets which).
    let max_usage = cfg.overload_check_usage(&broker.local);
    if max_usage > overload_threshold {
        return f64::INFINITY;
    }
    let mut total_message_rate = 0.0;
    for bundle in broker.preallocated.values() {
        total_message_rate +=
            bundle.long_term_data.msg_rate_in + bundle.long_term_data.msg_rate_out;
    }
    let time_average =
        broker.time_average.long_term_msg_rate_in + broker.time_average.long_term_msg_rate_out;
    total_message_rate + time_average
}

/// `selectBroker` over the candidates as (name, broker data) in iteration order: one home for
/// the names' and the positions' entry points. `score_at(i, broker)` scores candidate `i`.
fn select(
    candidates: &[(&str, Option<&BrokerData>)],
    cfg: &LoadBalancerConfig,
    picker: &mut dyn Picker,
    trace: PipelineTrace,
    mut score_at: impl FnMut(usize, &BrokerData) -> f64,
) -> Option<PlacementChoice> {
    // Indexes in `candidates` of the best-scoring ones.
    let mut best: Vec<usize> = Vec::new();
    let mut min_score = f64::INFINITY;
    // Each candidate's score (`None`: no broker data): listed for a full explanation, and the
    // runner-up is found among them without looking each broker up again.
    let mut scores: Vec<Option<f64>> = Vec::with_capacity(candidates.len());
    for (i, (_, broker)) in candidates.iter().enumerate() {
        // Java would throw on a candidate without broker data; we leave it out.
        let Some(broker) = broker else {
            scores.push(None);
            continue;
        };
        let score = score_at(i, broker);
        scores.push(Some(score));
        // Exact comparisons, as Java: +inf == +inf, so overloaded brokers tie while nothing
        // finite has been seen; a NaN score never joins.
        if score < min_score {
            best.clear();
            best.push(i);
            min_score = score;
        } else if score == min_score {
            best.push(i);
        }
    }
    let all_overloaded_or_empty = best.is_empty();
    let best: Vec<String> = if all_overloaded_or_empty {
        candidates.iter().map(|(n, _)| (*n).to_string()).collect()
    } else {
        best.iter()
            .filter_map(|&i| candidates.get(i))
            .map(|(n, _)| (*n).to_string())
            .collect()
    };
    let listed = |prefix: &str, suffix: &str| {
        if trace != PipelineTrace::Full {
            return String::new();
        }
        // One string grown in place: a list of 1,000 candidates is one allocation, not 1,000.
        let mut list = String::from(prefix);
        for (k, ((name, _), score)) in candidates.iter().zip(&scores).enumerate() {
            if k > 0 {
                list.push_str(", ");
            }
            list.push_str(name);
            list.push('=');
            match score {
                Some(s) => list.push_str(&fmt_num(*s)),
                None => list.push_str("no data"),
            }
        }
        list.push_str(suffix);
        list
    };
    let reason = if trace == PipelineTrace::Off {
        String::new()
    } else if all_overloaded_or_empty {
        format!(
            "no candidate scored below +inf; random among all {} candidates{}",
            best.len(),
            listed(" (long-term msg/s: ", ")")
        )
    } else if min_score.is_infinite() {
        format!(
            "every candidate is over loadBalancerBrokerOverloadedThresholdPercentage={} (score +inf); random among all {}{}",
            cfg.load_balancer_broker_overloaded_threshold_percentage,
            best.len(),
            listed(" (long-term msg/s: ", ")")
        )
    } else {
        format!(
            "least long-term message rate {} msg/s ({} of {} candidates tie){}",
            fmt_num(min_score),
            best.len(),
            candidates.len(),
            listed("; scores: ", "")
        )
    };
    let choice = pick_among(best, reason, picker)?;
    if trace == PipelineTrace::Off {
        return Some(choice);
    }
    Some(
        choice.with_scores(
            candidates
                .iter()
                .zip(&scores)
                .filter_map(|((name, _), score)| score.map(|s| (*name, s))),
        ),
    )
}

/// The candidates given by position in the view, with their names and data (a position past the
/// end, which the pipeline never gives, reads as a broker without data).
fn by_position<'d>(
    data: &'d LoadData,
    candidates: &[usize],
) -> Vec<(&'d str, Option<&'d BrokerData>)> {
    candidates
        .iter()
        .map(|&pos| match data.brokers.get_index(pos) {
            Some((name, broker)) => (name.as_str(), Some(broker)),
            None => ("", None),
        })
        .collect()
}

impl PlacementStrategy for LeastLongTermMessageRate {
    fn name(&self) -> &'static str {
        "LeastLongTermMessageRate"
    }

    fn select_broker_traced(
        &mut self,
        candidates: &[String],
        _bundle: &str,
        _bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        trace: PipelineTrace,
    ) -> Option<PlacementChoice> {
        let candidates: Vec<(&str, Option<&BrokerData>)> = candidates
            .iter()
            .map(|name| (name.as_str(), data.brokers.get(name)))
            .collect();
        select(&candidates, cfg, picker, trace, |_, broker| {
            long_term_message_rate_score(broker, cfg)
        })
    }

    /// By position: each candidate's data read at its index, no name copied or hashed.
    fn select_broker_at(
        &mut self,
        candidates: &[usize],
        _bundle: &str,
        _bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        trace: PipelineTrace,
    ) -> Option<PlacementChoice> {
        select(
            &by_position(data, candidates),
            cfg,
            picker,
            trace,
            |_, broker| long_term_message_rate_score(broker, cfg),
        )
    }

    /// By position, each broker scored once per shedding cycle: `getScore` reads only the broker's
    /// report, time averages and preallocated bundles and the configuration, none of which a
    /// shedding cycle's `selectBroker` changes, and no randomness (the pick among the best is
    /// made afterwards, through the picker, as before). So the same scores, ties and choice.
    fn select_broker_at_cycle(
        &mut self,
        candidates: &[usize],
        _bundle: &str,
        _bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        trace: PipelineTrace,
        scores: &mut CycleScores,
    ) -> Option<PlacementChoice> {
        select(
            &by_position(data, candidates),
            cfg,
            picker,
            trace,
            |i, broker| match candidates.get(i) {
                Some(&pos) => scores.get_or(pos, || long_term_message_rate_score(broker, cfg)),
                None => long_term_message_rate_score(broker, cfg),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Profile;
    use crate::model::ResourceUsage;
    use crate::rng::SeededPicker;

    /// §13: before PIP-358 (3.x) the overload check compares the unweighted max. With
    /// `loadBalancerCPUResourceWeight=0.5` a broker at 90 % cpu is at 0.45 weighted (not over 0.85)
    /// but 0.90 unweighted: +∞ on 3.x only.
    #[test]
    fn overload_is_the_unweighted_max_on_3x() {
        let mut b = BrokerData::default();
        b.local.cpu = ResourceUsage::new(90.0, 100.0);
        for (profile, overloaded) in [(Profile::Pulsar3x, true), (Profile::Pulsar4x, false)] {
            let mut cfg = LoadBalancerConfig::for_profile(profile);
            assert_eq!(
                cfg.set_text("loadBalancerCPUResourceWeight", "0.5"),
                Ok(true)
            );
            assert_eq!(
                long_term_message_rate_score(&b, &cfg).is_infinite(),
                overloaded,
                "{profile}"
            );
        }
    }

    fn broker(rate_in: f64, cpu_pct: f64) -> BrokerData {
        let mut b = BrokerData::default();
        b.time_average.long_term_msg_rate_in = rate_in;
        b.local.cpu = ResourceUsage::new(cpu_pct, 100.0);
        b
    }

    #[test]
    fn overloaded_scores_infinity_and_ties_are_exact() {
        // Oracle handmade-lltmr_2_tie: b1 and b3 tie at 1000, b2 at cpu 90% is +inf.
        let mut data = LoadData::default();
        data.brokers.insert("b1".into(), broker(1000.0, 10.0));
        data.brokers.insert("b2".into(), broker(0.0, 90.0));
        data.brokers.insert("b3".into(), broker(1000.0, 10.0));
        let cfg = LoadBalancerConfig::pulsar_4x();
        let cands: Vec<String> = ["b1", "b2", "b3"].map(String::from).to_vec();
        let choice = LeastLongTermMessageRate
            .select_broker(
                &cands,
                "t/ns/0x0_0x1",
                &BundleData::default(),
                &data,
                &cfg,
                &mut SeededPicker::new(1),
            )
            .unwrap();
        assert_eq!(choice.choice_set, ["b1", "b3"]);
    }
}
