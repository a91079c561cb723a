//! Modular shedding strategies (`loadBalancerLoadSheddingStrategy`, §7): which bundles the leader
//! unloads in one cycle, each with the rule that fired and its numbers.

use serde::{Deserialize, Serialize};

use super::LoadData;
use crate::config::{self, LoadBalancerConfig, Profile};

mod avg;
mod candidates;
pub mod java_sort;
mod overload;
mod threshold;
mod uniform;

pub use avg::AvgShedder;
pub use overload::OverloadShedder;
pub use threshold::ThresholdShedder;
pub use uniform::UniformLoadShedder;

/// One bundle a strategy selected for unloading, in selection order (`findBundlesForUnloading`'s
/// broker → bundle entry, with the rule that fired). The cycle decides what becomes of it
/// (`leader::CycleUnload` or `leader::SkippedUnload`); the extensible manager's
/// `extensible::UnloadDecision` is Pulsar's own class, a move with its destination.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SheddingSelection {
    /// The broker that owns the bundle now.
    pub broker: String,
    pub bundle: String,
    pub reason: ShedReason,
}

/// Which traffic metric a strategy compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrafficMetric {
    /// msgRateIn + msgRateOut (msg/s).
    MsgRate,
    /// msgThroughputIn + msgThroughputOut (bytes/s).
    MsgThroughput,
}

/// Why a bundle was selected: the rule and the numbers it compared (fractions are 0–1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "strategy")]
pub enum ShedReason {
    ThresholdShedder {
        /// The broker's smoothed usage (`avgUsage[broker]`).
        broker_usage_fraction: f64,
        /// Mean smoothed usage over all brokers.
        avg_usage_fraction: f64,
        /// `loadBalancerBrokerThresholdShedderPercentage / 100`.
        threshold_fraction: f64,
        /// Throughput the broker had to shed.
        need_bytes_per_sec: f64,
        /// The bundle's short-term throughput.
        bundle_bytes_per_sec: f64,
        /// Selected by the `lowerBoundarySheddingEnabled` path.
        lower_boundary: bool,
    },
    OverloadShedder {
        broker_usage_fraction: f64,
        overload_threshold_fraction: f64,
        need_bytes_per_sec: f64,
        bundle_bytes_per_sec: f64,
    },
    UniformLoadShedder {
        metric: TrafficMetric,
        /// The most loaded broker's value of the metric.
        max_broker_value: f64,
        /// The least loaded broker's value (after the idle → 1.0 substitution).
        min_broker_value: f64,
        /// What remained to unload before this bundle.
        need: f64,
        bundle_value: f64,
    },
    AvgShedder {
        /// The low broker of the pair, where the bundle is planned to go.
        low_broker: String,
        high_score_pct: f64,
        low_score_pct: f64,
        /// Which hit counter reached its threshold (`high` or `low`).
        hit: String,
        metric: TrafficMetric,
        need: f64,
        bundle_value: f64,
    },
}

pub use crate::reason::NotShed;

/// A modular shedding strategy. Stateful strategies keep their history across calls.
pub trait LoadSheddingStrategy {
    /// Pulsar's simple class name, e.g. `ThresholdShedder`.
    fn name(&self) -> &'static str;

    /// `findBundlesForUnloading`: the bundles to unload this cycle, in the order chosen.
    fn find_bundles_for_unloading(
        &mut self,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
    ) -> Vec<SheddingSelection>;

    /// `onActiveBrokersChange`: forget per-broker history of brokers that left.
    fn on_active_brokers_change(&mut self, _active_brokers: &[String]) {}

    /// Brokers over the threshold that the last [`Self::find_bundles_for_unloading`] shed nothing
    /// from, with why. Strategies that do not explain this return nothing.
    fn not_shed(&self) -> Vec<NotShed> {
        Vec::new()
    }
}

/// The shedding strategy named by `loadBalancerLoadSheddingStrategy` (simple or fully qualified
/// Pulsar class name), configured for `profile`; `None` for any other name. An `AvgShedder` made
/// here serves shedding only: the combined shedding + placement wiring shares one instance elsewhere.
pub fn shedder_by_name(name: &str, profile: Profile) -> Option<Box<dyn LoadSheddingStrategy>> {
    let qualified = config::qualify_strategy_name(name);
    let strategy: Box<dyn LoadSheddingStrategy> = match qualified.as_str() {
        config::THRESHOLD_SHEDDER => Box::new(ThresholdShedder::new(profile)),
        config::OVERLOAD_SHEDDER => Box::new(OverloadShedder::new(profile)),
        config::UNIFORM_LOAD_SHEDDER => Box::new(UniformLoadShedder::new(profile)),
        config::AVG_SHEDDER => Box::new(AvgShedder::new(profile)),
        _ => return None,
    };
    Some(strategy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factory_accepts_simple_and_qualified_names() {
        for (name, simple) in [
            ("ThresholdShedder", "ThresholdShedder"),
            (config::OVERLOAD_SHEDDER, "OverloadShedder"),
            ("UniformLoadShedder", "UniformLoadShedder"),
            (config::AVG_SHEDDER, "AvgShedder"),
        ] {
            let s = shedder_by_name(name, Profile::Pulsar4x);
            assert_eq!(s.map(|s| s.name()), Some(simple));
        }
        assert!(shedder_by_name("LeastLongTermMessageRate", Profile::Pulsar4x).is_none());
        assert!(shedder_by_name("com.example.ThresholdShedder", Profile::Pulsar4x).is_none());
        assert!(shedder_by_name(config::TRANSFER_SHEDDER, Profile::Pulsar4x).is_none());
    }
}
