//! `UniformLoadShedder` (§7.3): stateless; compares the busiest and the idlest broker by raw message
//! rate (first) or throughput, and moves a share of the gap in Java `int` arithmetic.

use super::candidates::no_candidate_reason;
use super::candidates::{
    Candidate, has_several_bundles, java_int, ranked_candidates, short_term_rate,
    short_term_throughput,
};
use super::{LoadSheddingStrategy, NotShed, ShedReason, SheddingSelection, TrafficMetric};
use crate::config::{LoadBalancerConfig, Profile};
use crate::model::BundleData;
use crate::modular::LoadData;
use crate::reason::{DecisionReason, ReasonKind};

/// `EPS`: a minimum this close to 0 is replaced by 1.0 so ratios stay finite.
const EPS: f64 = 1e-6;
/// branch-4.0's "delta": a bundle may exceed what is left to unload by this much (int).
const SLACK: i32 = 1000;

#[derive(Clone, Debug)]
pub struct UniformLoadShedder {
    profile: Profile,
    /// The busiest broker, when the last call shed nothing from it, and why.
    not_shed: Vec<NotShed>,
}

/// The most and least loaded broker for one metric, as Pulsar's single pass finds them.
struct Extremes<'a> {
    max_broker: Option<&'a str>,
    max: f64,
    min: f64,
}

impl UniformLoadShedder {
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            not_shed: Vec::new(),
        }
    }
}

fn extremes<'a>(
    data: &'a LoadData,
    metric: impl Fn(&crate::model::LocalBrokerData) -> f64,
) -> Extremes<'a> {
    // Pulsar starts the max at -1 and the min at Integer.MAX_VALUE; the first strictly larger
    // (smaller) value wins, so ties keep the earlier broker.
    let mut e = Extremes {
        max_broker: None,
        max: -1.0,
        min: f64::from(i32::MAX),
    };
    for (name, broker) in &data.brokers {
        let v = metric(&broker.local);
        if v > e.max {
            e.max = v;
            e.max_broker = Some(name.as_str());
        }
        if v < e.min {
            e.min = v;
        }
    }
    if (-EPS..=EPS).contains(&e.min) {
        e.min = 1.0;
    }
    e
}

impl LoadSheddingStrategy for UniformLoadShedder {
    fn name(&self) -> &'static str {
        "UniformLoadShedder"
    }

    fn find_bundles_for_unloading(
        &mut self,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
    ) -> Vec<SheddingSelection> {
        self.not_shed.clear();
        let rate = extremes(data, |l| l.msg_rate_in + l.msg_rate_out);
        let throughput = extremes(data, |l| l.msg_throughput_in + l.msg_throughput_out);

        let rate_difference_pct = ((rate.max - rate.min) * 100.0) / rate.min;
        let throughput_ratio = throughput.max / throughput.min;
        let rate_threshold = cfg.load_balancer_msg_rate_difference_shedder_threshold;
        let throughput_threshold =
            cfg.load_balancer_msg_throughput_multiplier_difference_shedder_threshold;
        let rate_hit = rate_threshold > 0.0 && rate_difference_pct > rate_threshold;
        let throughput_hit = throughput_threshold > 0.0 && throughput_ratio > throughput_threshold;

        // The message rate wins when both thresholds are exceeded.
        let (metric, ext, floor, value_of): (_, _, i64, fn(&BundleData) -> f64) = if rate_hit {
            (
                TrafficMetric::MsgRate,
                rate,
                cfg.min_unload_message,
                short_term_rate,
            )
        } else if throughput_hit {
            (
                TrafficMetric::MsgThroughput,
                throughput,
                cfg.min_unload_message_throughput,
                short_term_throughput,
            )
        } else {
            // Neither difference is over its threshold: say so for the busiest broker (the only
            // one this strategy ever sheds from), with both comparisons.
            if data.brokers.len() > 1
                && let Some(busiest) = rate.max_broker.or(throughput.max_broker)
            {
                self.not_shed.push(NotShed {
                    broker: busiest.to_string(),
                    why: format!(
                        "UniformLoadShedder sheds nothing from {busiest}: message-rate difference {rate_difference_pct:.1}% is not above loadBalancerMsgRateDifferenceShedderThreshold = {rate_threshold}%, and throughput ratio {throughput_ratio:.2} is not above loadBalancerMsgThroughputMultiplierDifferenceShedderThreshold = {throughput_threshold}"
                    ),
                    reason: DecisionReason::new(ReasonKind::DifferenceBelowThreshold)
                        .with("msg_rate_difference_pct", rate_difference_pct)
                        .with("msg_rate_difference_threshold_pct", rate_threshold)
                        .with("msg_throughput_ratio", throughput_ratio)
                        .with("msg_throughput_ratio_threshold", throughput_threshold),
                });
            }
            return Vec::new();
        };
        let mut need = java_int((ext.max - ext.min) * cfg.max_unload_percentage);
        let Some(name) = ext.max_broker else {
            return Vec::new();
        };
        let Some(broker) = data.brokers.get(name) else {
            return Vec::new();
        };
        let (metric_name, metric_id) = match metric {
            TrafficMetric::MsgRate => ("message rate", "msg_rate"),
            TrafficMetric::MsgThroughput => ("throughput", "msg_throughput"),
        };
        let over = format!(
            "UniformLoadShedder sheds nothing from {name}: its {metric_name} {:.0} vs the least loaded broker's {:.0} is over the threshold, but",
            ext.max, ext.min
        );
        if !has_several_bundles(&broker.local) {
            self.not_shed.push(NotShed {
                broker: name.to_string(),
                why: format!(
                    "{over} it owns {} bundle(s), and a broker's sole bundle is never shed",
                    broker.local.bundles.len()
                ),
                reason: DecisionReason::new(ReasonKind::SoleBundle)
                    .with("bundles", broker.local.bundles.len())
                    .with("metric", metric_id)
                    .with("max_broker_value", ext.max)
                    .with("min_broker_value", ext.min),
            });
            return Vec::new();
        }
        if i64::from(need) < floor {
            let floor_key = match metric {
                TrafficMetric::MsgRate => "minUnloadMessage",
                TrafficMetric::MsgThroughput => "minUnloadMessageThroughput",
            };
            self.not_shed.push(NotShed {
                broker: name.to_string(),
                why: format!(
                    "{over} {} × the gap = {need} is below {floor_key} = {floor}",
                    cfg.max_unload_percentage
                ),
                reason: DecisionReason::new(ReasonKind::BelowMinUnload)
                    .with("metric", metric_id)
                    .with("max_broker_value", ext.max)
                    .with("min_broker_value", ext.min)
                    .with("max_unload_percentage", cfg.max_unload_percentage)
                    .with("need", need)
                    .with("min_unload", floor),
            });
            return Vec::new();
        }

        // Bundles with no traffic stay candidates (and always fit): the oracle shows master
        // unloading them, and the reference gives branch-4.0 no other difference than the slack.
        let candidates: Vec<Candidate<'_>> = ranked_candidates(
            data,
            self.profile.filters_v1_heartbeat_names(),
            &broker.local,
            value_of,
        );
        let max_bundles = cfg.max_unload_bundle_num_per_shedding;
        let slack = if self.profile.uniform_shedder_slack() {
            SLACK
        } else {
            0
        };
        let mut out = Vec::new();
        if candidates.is_empty() {
            self.not_shed.push(NotShed {
                broker: name.to_string(),
                why: format!(
                    "{over} none of its bundles can be unloaded (each was unloaded within loadBalancerSheddingGracePeriodMinutes, is a heartbeat or SLA-monitor bundle, or has no bundle data)"
                ),
                reason: no_candidate_reason(
                    data,
                    self.profile.filters_v1_heartbeat_names(),
                    &broker.local,
                )
                .with("metric", metric_id),
            });
            return out;
        }
        let first_need = need;
        let smallest = candidates
            .iter()
            .map(|c| c.value)
            .fold(f64::INFINITY, f64::min);
        for c in candidates {
            if max_bundles != -1 && i64::try_from(out.len()).unwrap_or(i64::MAX) >= max_bundles {
                continue;
            }
            // `need + 1000` is int arithmetic in Java and wraps like it.
            if c.value <= f64::from(need.wrapping_add(slack)) {
                out.push(SheddingSelection {
                    broker: name.to_string(),
                    bundle: c.name.to_string(),
                    reason: ShedReason::UniformLoadShedder {
                        metric,
                        max_broker_value: ext.max,
                        min_broker_value: ext.min,
                        need: f64::from(need),
                        bundle_value: c.value,
                    },
                });
                // `MutableInt.add(-metric)`: the bundle's metric is truncated to int first.
                need = need.wrapping_add(java_int(-c.value));
            }
        }
        if out.is_empty() {
            self.not_shed.push(NotShed {
                broker: name.to_string(),
                why: format!(
                    "{over} its smallest bundle carries {smallest:.0}, more than the {first_need} (+ {slack}) left to move"
                ),
                reason: DecisionReason::new(ReasonKind::NoBundleFits)
                    .with("metric", metric_id)
                    .with("need", first_need)
                    .with("slack", slack)
                    .with("smallest_bundle_value", smallest),
            });
        }
        out
    }

    fn not_shed(&self) -> Vec<NotShed> {
        self.not_shed.clone()
    }
}
