//! `ThresholdShedder` (§7.1): sheds from brokers whose smoothed usage is at least the cluster mean
//! plus `loadBalancerBrokerThresholdShedderPercentage`, optionally with lower-boundary shedding.

use indexmap::IndexMap;

use super::candidates::{
    Excluded, excluded_reason, has_several_bundles, pick_until_covered, ranked_candidates_counted,
    short_term_throughput,
};
use super::{LoadSheddingStrategy, NotShed, ShedReason, SheddingSelection};
use crate::config::{LoadBalancerConfig, Profile};
use crate::modular::LoadData;
use crate::reason::{DecisionReason, ReasonKind};
use crate::units::{MIB, ResourceWeights};

/// `ADDITIONAL_THRESHOLD_PERCENT_MARGIN`: shed 5 points more than strictly needed.
const ADDITIONAL_THRESHOLD_PERCENT_MARGIN: f64 = 0.05;
/// `LOWER_BOUNDARY_THRESHOLD_MARGIN`: the lower-boundary path sheds half the threshold's share.
const LOWER_BOUNDARY_THRESHOLD_MARGIN: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct ThresholdShedder {
    profile: Profile,
    /// `brokerAvgResourceUsage`: EWMA of each broker's weighted max usage (fraction), kept across
    /// cycles; the first observation initialises it.
    broker_avg_resource_usage: IndexMap<String, f64>,
    /// Brokers over average + threshold that the last selection shed nothing from, with why.
    not_shed: Vec<NotShed>,
}

/// The numbers one broker's selection is explained with.
struct BrokerTarget<'a> {
    broker: &'a str,
    usage: f64,
    avg: f64,
    threshold: f64,
    need_bytes_per_sec: f64,
    lower_boundary: bool,
}

impl ThresholdShedder {
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            broker_avg_resource_usage: IndexMap::new(),
            not_shed: Vec::new(),
        }
    }

    /// The smoothed usage (fraction) remembered for a broker.
    pub fn avg_resource_usage(&self, broker: &str) -> Option<f64> {
        self.broker_avg_resource_usage.get(broker).copied()
    }

    /// `getBrokerAvgUsage`: advances every broker's EWMA once and returns their mean (0 if none).
    fn refresh(&mut self, data: &LoadData, history: f64, w: &ResourceWeights) -> f64 {
        let mut total = 0.0_f64;
        let mut brokers = 0_u32;
        for (name, broker) in &data.brokers {
            let usage = broker.local.max_resource_usage_with_weight(w);
            // Updated in place: the name is copied only the first time a broker is seen.
            let smoothed = match self.broker_avg_resource_usage.get_mut(name.as_str()) {
                None => {
                    self.broker_avg_resource_usage.insert(name.clone(), usage);
                    usage
                }
                Some(prev) => {
                    *prev = *prev * history + (1.0 - history) * usage;
                    *prev
                }
            };
            total += smoothed;
            brokers = brokers.saturating_add(1);
        }
        if brokers > 0 {
            total / f64::from(brokers)
        } else {
            0.0
        }
    }

    fn current(&self, broker: &str) -> f64 {
        self.avg_resource_usage(broker).unwrap_or(0.0)
    }

    /// `filterAndSelectBundle`; what the exclusions took, for the reason when nothing is selected.
    fn select(
        &self,
        data: &LoadData,
        target: &BrokerTarget<'_>,
        out: &mut Vec<SheddingSelection>,
    ) -> Excluded {
        let Some(broker) = data.brokers.get(target.broker) else {
            return Excluded::default();
        };
        let (candidates, excluded) = ranked_candidates_counted(
            data,
            self.profile.filters_v1_heartbeat_names(),
            &broker.local,
            short_term_throughput,
        );
        for c in pick_until_covered(&candidates, target.need_bytes_per_sec) {
            out.push(SheddingSelection {
                broker: target.broker.to_string(),
                bundle: c.name.to_string(),
                reason: ShedReason::ThresholdShedder {
                    broker_usage_fraction: target.usage,
                    avg_usage_fraction: target.avg,
                    threshold_fraction: target.threshold,
                    need_bytes_per_sec: target.need_bytes_per_sec,
                    bundle_bytes_per_sec: c.value,
                    lower_boundary: target.lower_boundary,
                },
            });
        }
        excluded
    }

    /// `tryLowerBoundaryShedding`: runs only when the main pass selected nothing.
    fn lower_boundary(
        &mut self,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        threshold: f64,
        min_throughput: f64,
        out: &mut Vec<SheddingSelection>,
    ) {
        // Quirk kept from Pulsar: the history advances a second time in this cycle.
        let avg = self.refresh(
            data,
            cfg.load_balancer_history_resource_percentage,
            &cfg.resource_weights(),
        );
        // `getMaxUsageBroker`: strict `>` so the first of equal brokers wins.
        let mut max_usage = avg - threshold;
        let mut max_broker: Option<&str> = None;
        let mut has_broker_below_lower_bound = false;
        for (name, broker) in &data.brokers {
            let usage = self.current(name);
            if usage > max_usage && has_several_bundles(&broker.local) {
                max_usage = usage;
                max_broker = Some(name.as_str());
            }
            if usage < avg - threshold {
                has_broker_below_lower_bound = true;
            }
        }
        let Some(max_broker) = max_broker else {
            return;
        };
        let Some(broker) = data.brokers.get(max_broker) else {
            return;
        };
        if !has_broker_below_lower_bound {
            return;
        }
        let throughput = broker.local.msg_throughput_in + broker.local.msg_throughput_out;
        let need = throughput * threshold * LOWER_BOUNDARY_THRESHOLD_MARGIN;
        if min_throughput > need {
            return;
        }
        if has_several_bundles(&broker.local) {
            let target = BrokerTarget {
                broker: max_broker,
                usage: self.current(max_broker),
                avg,
                threshold,
                need_bytes_per_sec: need,
                lower_boundary: true,
            };
            self.select(data, &target, out);
        }
    }
}

impl LoadSheddingStrategy for ThresholdShedder {
    fn name(&self) -> &'static str {
        "ThresholdShedder"
    }

    fn find_bundles_for_unloading(
        &mut self,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
    ) -> Vec<SheddingSelection> {
        let mut out = Vec::new();
        let mut not_shed = Vec::new();
        let threshold = cfg.load_balancer_broker_threshold_shedder_percentage as f64 / 100.0;
        let min_throughput = cfg.load_balancer_bundle_unload_min_throughput_threshold * MIB;
        let avg = self.refresh(
            data,
            cfg.load_balancer_history_resource_percentage,
            &cfg.resource_weights(),
        );
        if avg == 0.0 {
            self.not_shed = not_shed;
            return out;
        }
        for (name, broker) in &data.brokers {
            let usage = self.current(name);
            // `cur < avg + thr` skips, so a broker exactly at avg + thr IS shed.
            if usage < avg + threshold {
                continue;
            }
            let over = format!(
                "ThresholdShedder sheds nothing from {name}: usage {:.1}% ≥ average {:.1}% + threshold {:.1}%, but",
                usage * 100.0,
                avg * 100.0,
                threshold * 100.0
            );
            let fraction = usage - avg - threshold + ADDITIONAL_THRESHOLD_PERCENT_MARGIN;
            let throughput = broker.local.msg_throughput_in + broker.local.msg_throughput_out;
            let need = throughput * fraction;
            if need < min_throughput {
                not_shed.push(NotShed {
                    broker: name.clone(),
                    why: format!(
                        "{over} {:.1}% of its {:.1} MiB/s is {:.2} MiB/s, below loadBalancerBundleUnloadMinThroughputThreshold = {} MiB/s",
                        fraction * 100.0,
                        throughput / MIB,
                        need / MIB,
                        cfg.load_balancer_bundle_unload_min_throughput_threshold
                    ),
                    reason: DecisionReason::new(ReasonKind::BelowMinThroughput)
                        .with("broker_usage_fraction", usage)
                        .with("avg_usage_fraction", avg)
                        .with("threshold_fraction", threshold)
                        .with("broker_bytes_per_sec", throughput)
                        .with("need_bytes_per_sec", need)
                        .with("min_throughput_bytes_per_sec", min_throughput),
                });
                continue;
            }
            // A broker's sole bundle (or none) is never shed.
            if has_several_bundles(&broker.local) {
                let target = BrokerTarget {
                    broker: name,
                    usage,
                    avg,
                    threshold,
                    need_bytes_per_sec: need,
                    lower_boundary: false,
                };
                let before = out.len();
                let excluded = self.select(data, &target, &mut out);
                // Nothing selected means no candidate (the first is always taken): the counts
                // of that same pass are `no_candidate_reason`'s.
                if out.len() == before {
                    not_shed.push(NotShed {
                        broker: name.clone(),
                        why: format!(
                            "{over} none of its bundles can be unloaded (each was unloaded within loadBalancerSheddingGracePeriodMinutes, is a heartbeat or SLA-monitor bundle, or has no bundle data)"
                        ),
                        reason: excluded_reason(excluded, &broker.local)
                        .with("broker_usage_fraction", usage)
                        .with("avg_usage_fraction", avg)
                        .with("threshold_fraction", threshold),
                    });
                }
            } else {
                not_shed.push(NotShed {
                    broker: name.clone(),
                    why: format!(
                        "{over} it owns {} bundle(s), and a broker's sole bundle is never shed",
                        broker.local.bundles.len()
                    ),
                    reason: DecisionReason::new(ReasonKind::SoleBundle)
                        .with("bundles", broker.local.bundles.len())
                        .with("broker_usage_fraction", usage)
                        .with("avg_usage_fraction", avg)
                        .with("threshold_fraction", threshold),
                });
            }
        }
        if out.is_empty() && cfg.lower_boundary_shedding_enabled {
            self.lower_boundary(data, cfg, threshold, min_throughput, &mut out);
        }
        self.not_shed = not_shed;
        out
    }

    fn not_shed(&self) -> Vec<NotShed> {
        self.not_shed.clone()
    }

    fn on_active_brokers_change(&mut self, active_brokers: &[String]) {
        self.broker_avg_resource_usage
            .retain(|broker, _| active_brokers.iter().any(|a| a == broker));
    }
}
