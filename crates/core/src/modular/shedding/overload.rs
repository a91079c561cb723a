//! `OverloadShedder` (§7.2): stateless; sheds from every broker whose weighted max usage reaches
//! `loadBalancerBrokerOverloadedThresholdPercentage`.

use super::candidates::{
    has_several_bundles, no_candidate_reason, pick_until_covered, ranked_candidates,
    short_term_throughput,
};
use super::{LoadSheddingStrategy, NotShed, ShedReason, SheddingSelection};
use crate::config::{LoadBalancerConfig, Profile};
use crate::modular::LoadData;
use crate::reason::{DecisionReason, ReasonKind};

/// `ADDITIONAL_THRESHOLD_PERCENT_MARGIN`: aim 5 points below the threshold.
const ADDITIONAL_THRESHOLD_PERCENT_MARGIN: f64 = 0.05;

#[derive(Clone, Debug)]
pub struct OverloadShedder {
    profile: Profile,
    /// Overloaded brokers the last selection shed nothing from, with why.
    not_shed: Vec<NotShed>,
}

impl OverloadShedder {
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            not_shed: Vec::new(),
        }
    }
}

impl LoadSheddingStrategy for OverloadShedder {
    fn name(&self) -> &'static str {
        "OverloadShedder"
    }

    fn find_bundles_for_unloading(
        &mut self,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
    ) -> Vec<SheddingSelection> {
        let mut out = Vec::new();
        self.not_shed.clear();
        let threshold = cfg.overloaded_threshold_fraction();
        for (name, broker) in &data.brokers {
            // Weighted since PIP-358; the unweighted max on 3.x (the profile sets which).
            let usage = cfg.overload_check_usage(&broker.local);
            // Only `usage < threshold` skips: a broker exactly at the threshold is shed.
            if usage < threshold {
                continue;
            }
            let fraction = usage - threshold + ADDITIONAL_THRESHOLD_PERCENT_MARGIN;
            let throughput = broker.local.msg_throughput_in + broker.local.msg_throughput_out;
            let need = throughput * fraction;
            let over = || {
                format!(
                    "OverloadShedder sheds nothing from {name}: usage {:.1}% ≥ loadBalancerBrokerOverloadedThresholdPercentage = {}%, but",
                    usage * 100.0,
                    cfg.load_balancer_broker_overloaded_threshold_percentage
                )
            };
            if !has_several_bundles(&broker.local) {
                self.not_shed.push(NotShed {
                    broker: name.clone(),
                    why: format!(
                        "{} it owns {} bundle(s), and a broker's sole bundle is never shed",
                        over(),
                        broker.local.bundles.len()
                    ),
                    reason: DecisionReason::new(ReasonKind::SoleBundle)
                        .with("bundles", broker.local.bundles.len())
                        .with("broker_usage_fraction", usage)
                        .with("overload_threshold_fraction", threshold),
                });
                continue;
            }
            let candidates = ranked_candidates(
                data,
                self.profile.filters_v1_heartbeat_names(),
                &broker.local,
                short_term_throughput,
            );
            if candidates.is_empty() {
                self.not_shed.push(NotShed {
                    broker: name.clone(),
                    why: format!(
                        "{} none of its bundles can be unloaded (each was unloaded within loadBalancerSheddingGracePeriodMinutes, is a heartbeat or SLA-monitor bundle, or has no bundle data)",
                        over()
                    ),
                    reason: no_candidate_reason(
                        data,
                        self.profile.filters_v1_heartbeat_names(),
                        &broker.local,
                    )
                    .with("broker_usage_fraction", usage)
                    .with("overload_threshold_fraction", threshold),
                });
            }
            for c in pick_until_covered(&candidates, need) {
                out.push(SheddingSelection {
                    broker: name.clone(),
                    bundle: c.name.to_string(),
                    reason: ShedReason::OverloadShedder {
                        broker_usage_fraction: usage,
                        overload_threshold_fraction: threshold,
                        need_bytes_per_sec: need,
                        bundle_bytes_per_sec: c.value,
                    },
                });
            }
        }
        out
    }

    fn not_shed(&self) -> Vec<NotShed> {
        self.not_shed.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ResourceUsage;
    use crate::modular::BrokerData;

    /// An overloaded broker that sheds nothing says why.
    #[test]
    fn an_overloaded_broker_with_one_bundle_says_why_it_sheds_nothing() {
        let mut data = LoadData::default();
        let mut b = BrokerData::default();
        b.local.cpu = ResourceUsage::new(90.0, 100.0);
        b.local.bundles = vec!["t/ns/0x00000000_0xffffffff".into()];
        data.brokers.insert("b1:8080".into(), b);
        let mut shedder = OverloadShedder::new(Profile::Pulsar4x);
        let cfg = LoadBalancerConfig::pulsar_4x();
        assert!(shedder.find_bundles_for_unloading(&data, &cfg).is_empty());
        let not_shed = shedder.not_shed();
        assert_eq!(not_shed.len(), 1);
        let n = &not_shed[0];
        assert_eq!(n.broker, "b1:8080");
        assert_eq!(
            n.why,
            "OverloadShedder sheds nothing from b1:8080: usage 90.0% ≥ loadBalancerBrokerOverloadedThresholdPercentage = 85%, but it owns 1 bundle(s), and a broker's sole bundle is never shed"
        );
        assert_eq!(n.reason.kind, crate::reason::ReasonKind::SoleBundle);
        assert_eq!(n.reason.number("bundles"), Some(1.0));
        assert_eq!(n.reason.number("overload_threshold_fraction"), Some(0.85));
    }
}
