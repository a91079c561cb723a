//! `OverloadShedder` (§7.2): stateless; sheds from every broker whose weighted max usage reaches
//! `loadBalancerBrokerOverloadedThresholdPercentage`.

use super::candidates::{
    has_several_bundles, pick_until_covered, ranked_candidates, short_term_throughput,
};
use super::{LoadSheddingStrategy, ShedReason, UnloadDecision};
use crate::config::{LoadBalancerConfig, Profile};
use crate::modular::LoadData;

/// `ADDITIONAL_THRESHOLD_PERCENT_MARGIN`: aim 5 points below the threshold.
const ADDITIONAL_THRESHOLD_PERCENT_MARGIN: f64 = 0.05;

#[derive(Clone, Debug)]
pub struct OverloadShedder {
    profile: Profile,
}

impl OverloadShedder {
    pub fn new(profile: Profile) -> Self {
        Self { profile }
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
    ) -> Vec<UnloadDecision> {
        let mut out = Vec::new();
        let threshold = cfg.overloaded_threshold_fraction();
        let weights = cfg.resource_weights();
        for (name, broker) in &data.brokers {
            let usage = broker.local.max_resource_usage_with_weight(&weights);
            // Only `usage < threshold` skips: a broker exactly at the threshold is shed.
            if usage < threshold {
                continue;
            }
            let fraction = usage - threshold + ADDITIONAL_THRESHOLD_PERCENT_MARGIN;
            let throughput = broker.local.msg_throughput_in + broker.local.msg_throughput_out;
            let need = throughput * fraction;
            if !has_several_bundles(&broker.local) {
                continue;
            }
            let candidates = ranked_candidates(
                data,
                self.profile.filters_v1_heartbeat_names(),
                &broker.local,
                short_term_throughput,
            );
            for c in pick_until_covered(&candidates, need) {
                out.push(UnloadDecision {
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
}
