//! `RoundRobinBrokerSelector` (§8.4): used for namespaces in `loadBalancerSheddingExcludedNamespaces`
//! (and selectable as a placement strategy). A global counter indexes a cached copy of the candidates.

use super::{PipelineTrace, PlacementChoice, PlacementStrategy};
use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::modular::LoadData;
use crate::rng::Picker;

/// `count` is Java's `AtomicInteger` (wraps from `Integer.MAX_VALUE` to 0); `cache` is the list copy
/// of the candidate set, rebuilt only when it no longer fits.
#[derive(Clone, Debug, Default)]
pub struct RoundRobinBrokerSelector {
    count: i32,
    cache: Vec<String>,
}

impl RoundRobinBrokerSelector {
    /// The counter's current value (the next call uses `count % |candidates|`).
    pub fn count(&self) -> i32 {
        self.count
    }
}

impl PlacementStrategy for RoundRobinBrokerSelector {
    fn name(&self) -> &'static str {
        "RoundRobinBrokerSelector"
    }

    fn select_broker_traced(
        &mut self,
        candidates: &[String],
        _bundle: &str,
        _bundle_data: &BundleData,
        _data: &LoadData,
        _cfg: &LoadBalancerConfig,
        _picker: &mut dyn Picker,
        _trace: PipelineTrace,
    ) -> Option<PlacementChoice> {
        let size = candidates.len();
        if size == 0 {
            return None;
        }
        let current = self.count;
        self.count = if current == i32::MAX { 0 } else { current + 1 };
        // `current` is never negative, so the conversion cannot fail.
        let index = usize::try_from(current).unwrap_or(0) % size;
        let stale = self.cache.len() != size
            || self
                .cache
                .get(index)
                .is_none_or(|cached| !candidates.contains(cached));
        if stale {
            self.cache = candidates.to_vec();
        }
        let broker = self.cache.get(index)?.clone();
        let reason = format!(
            "round robin: counter {current} mod {size} candidates = index {index}{}",
            if stale {
                " (candidate list refreshed)"
            } else {
                " (cached candidate list)"
            }
        );
        Some(PlacementChoice {
            broker: broker.clone(),
            choice_set: vec![broker],
            reason,
            pick_rejected: false,
            score: None,
            runner_up: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SeededPicker;

    #[test]
    fn cycles_and_keeps_cached_list_while_it_fits() {
        let mut rr = RoundRobinBrokerSelector::default();
        let cfg = LoadBalancerConfig::pulsar_4x();
        let data = LoadData::default();
        let bd = BundleData::default();
        let mut p = SeededPicker::new(0);
        let abc: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let mut sel = |c: &[String]| {
            rr.select_broker(c, "x", &bd, &data, &cfg, &mut p)
                .unwrap()
                .broker
        };
        assert_eq!(sel(&abc), "a");
        assert_eq!(sel(&abc), "b");
        assert_eq!(sel(&abc), "c");
        assert_eq!(sel(&abc), "a");
        // Same size, cache[1] = "b" still a candidate: the stale cached order is used.
        let cba: Vec<String> = ["c", "b", "a"].map(String::from).to_vec();
        assert_eq!(sel(&cba), "b");
    }
}
