//! Extensible placement (§9.1): `ExtensibleLoadManagerImpl.selectAsync`'s candidate pipeline and the
//! extensible `LeastResourceUsageWithWeight`, which reads the broker-side `weightedMaxEMA` and keeps no
//! history of its own.

use indexmap::IndexMap;

use super::filters::{CandidateBrokers, PolicyInputs, apply_filters_for_bundle};
use crate::config::LoadBalancerConfig;
use crate::model::BrokerLoadData;
use crate::rng::Picker;

/// One placement, with everything needed to explain it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtensiblePlacement {
    /// Candidates after exclusion and filters, in iteration order.
    pub candidates: Vec<String>,
    /// The brokers the random pick was made among.
    pub choice_set: Vec<String>,
    /// Candidates without load data (left out of the average).
    pub no_load_data_brokers: Vec<String>,
    /// The chosen broker; `None` when no candidate is left.
    pub selected: Option<String>,
    /// An outside pick was offered but was not in the choice set.
    pub pick_rejected: bool,
}

/// The choice set of `LeastResourceUsageWithWeight.select` and the brokers without load data.
/// `best` = brokers with data whose `weightedMaxEMA + diff <= average over brokers with data`; when
/// none qualifies, every candidate (those without data included).
pub fn least_resource_usage_choice_set(
    candidates: &[String],
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
) -> (Vec<String>, Vec<String>) {
    let mut no_load_data: Vec<String> = Vec::new();
    // Summed in candidate order, as Java iterates its set.
    let mut total_usage = 0.0;
    for broker in candidates {
        match store.get(broker) {
            Some(data) => total_usage += data.weighted_max_ema,
            None => no_load_data.push(broker.clone()),
        }
    }
    let mut best: Vec<String> = Vec::new();
    if candidates.len() > no_load_data.len() {
        let with_data = candidates.len() - no_load_data.len();
        let avg_usage = total_usage / with_data as f64;
        let diff_threshold =
            conf.load_balancer_average_resource_usage_difference_threshold_percentage as f64
                / 100.0;
        for broker in candidates {
            if let Some(data) = store.get(broker)
                && data.weighted_max_ema + diff_threshold <= avg_usage
            {
                best.push(broker.clone());
            }
        }
    }
    if best.is_empty() {
        // Everyone is about as loaded as the average: pick among all.
        best = candidates.to_vec();
    }
    (best, no_load_data)
}

/// `selectAsync` for one bundle: candidates (the given ones or every available broker), minus
/// `exclude`, through the filter pipeline (when `apply_filters`; the policy filters too when `policies`
/// names the bundle), then a uniform pick in the LeastResourceUsageWithWeight choice set.
#[allow(clippy::too_many_arguments)]
pub fn select_broker(
    available_brokers: &CandidateBrokers,
    explicit_candidates: Option<&CandidateBrokers>,
    exclude: &[String],
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
    apply_filters: bool,
    policies: Option<(&str, &PolicyInputs<'_>)>,
    picker: &mut dyn Picker,
) -> ExtensiblePlacement {
    let mut candidates = explicit_candidates.unwrap_or(available_brokers).clone();
    candidates.retain(|b, _| !exclude.contains(b));
    if apply_filters {
        apply_filters_for_bundle(&mut candidates, store, conf, policies);
    }
    let candidates: Vec<String> = candidates.into_keys().collect();
    if candidates.is_empty() {
        return ExtensiblePlacement::default();
    }
    let (choice_set, no_load_data_brokers) =
        least_resource_usage_choice_set(&candidates, store, conf);
    let pick = picker.pick(&choice_set);
    let selected = choice_set.get(pick.index).cloned();
    ExtensiblePlacement {
        candidates,
        choice_set,
        no_load_data_brokers,
        selected,
        pick_rejected: pick.rejected_outside_pick,
    }
}
