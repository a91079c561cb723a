//! What a simulation measures: per cycle the spread of the brokers' weighted max usage and the
//! churn (unloads, bytes moved, thrashing, splits); per run the time to balance and the totals.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::ownership::OwnershipChange;
use super::run_config::RunConfig;

/// One cycle, measured on the reports the leader saw in that cycle (after the cycle's events).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CycleMetrics {
    pub cycle: u32,
    /// Simulated minutes since the start (`cycle × loadBalancerSheddingIntervalMinutes`).
    pub minute: i64,
    pub brokers: usize,
    pub max_usage_fraction: f64,
    pub mean_usage_fraction: f64,
    pub max_over_mean: f64,
    /// Population standard deviation of the weighted max usage.
    pub std_usage_fraction: f64,
    pub bundles_unloaded: usize,
    /// Throughput (in + out) of the unloaded bundles.
    pub bytes_moved_per_sec: f64,
    /// Bytes the unloaded bundles carry over one cycle: `bytes_moved_per_sec` × the cycle's
    /// duration (`loadBalancerSheddingIntervalMinutes`), the traffic that changed brokers.
    #[serde(default)]
    pub bytes_moved: f64,
    /// Live brokers asked to carry more than a resource's limit (unweighted max usage above
    /// 100 %). The model does not saturate: usage is demand ÷ capacity, so such a cycle's numbers
    /// say how far beyond capacity the load went, not what a broker could serve.
    #[serde(default)]
    pub brokers_over_capacity: usize,
    /// Unloads that took a bundle back to a broker it left within the thrashing window.
    pub thrashing: usize,
    /// Unloads from a broker that itself received a shed bundle within the thrashing window: the
    /// PR #16059 pattern (shed bundles land on the next broker to shed).
    pub unloads_from_recent_destinations: usize,
    pub splits: usize,
    /// Bundles placed because their broker went away (crash, restart).
    pub bundles_reassigned: usize,
    /// What happened this cycle besides shedding (events, skipped splits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// Weighted max usage of every live broker (omitted when not recorded).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub broker_usage_fraction: IndexMap<String, f64>,
    /// Ownership and layout changes, in order (only when `RunOptions::record_ownership`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ownership: Vec<OwnershipChange>,
    /// The leader's unloads and splits with their reasons, in order (only when
    /// `RunOptions::record_ownership`). The first cycle's reasons are the plan's; later cycles place
    /// without a pipeline trace, so their placement reasons name the choice only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<CycleDecision>,
}

/// What the leader decided about one bundle in a cycle, and why (the plan's wording).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleDecision {
    /// `unload` (by the shedding strategy) or `split` (by `BundleSplitterTask`).
    pub kind: String,
    pub bundle: String,
    pub from: String,
    /// The destination of an unload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub reason: String,
}

/// The whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub cycles_run: u32,
    pub balanced_std_fraction: f64,
    pub balanced_consecutive_cycles: u32,
    pub thrashing_window_cycles: u32,
    /// First cycle of the first streak of `balanced_consecutive_cycles` balanced cycles.
    pub balanced_at_cycle: Option<u32>,
    pub balanced_after_minutes: Option<i64>,
    /// The last `balanced_consecutive_cycles` cycles were all balanced.
    pub balanced_at_end: bool,
    pub total_unloads: usize,
    /// Sum of the cycles' `bytes_moved`.
    pub total_bytes_moved: f64,
    pub total_thrashing: usize,
    pub total_unloads_from_recent_destinations: usize,
    pub total_splits: usize,
    pub total_reassigned: usize,
    pub cycles_with_unloads: u32,
    pub last_unload_cycle: Option<u32>,
    pub peak_max_usage_fraction: f64,
    pub final_max_usage_fraction: f64,
    pub final_max_over_mean: f64,
    pub final_std_usage_fraction: f64,
    /// Cycles with at least one broker over capacity (`CycleMetrics::brokers_over_capacity`):
    /// when non-zero, the usage numbers above 100 % are unserved demand.
    #[serde(default)]
    pub cycles_over_capacity: u32,
    #[serde(default)]
    pub first_cycle_over_capacity: Option<u32>,
}

impl RunSummary {
    /// The one-line flag every front end shows when the load went beyond capacity.
    pub fn over_capacity_text(&self) -> Option<String> {
        let first = self.first_cycle_over_capacity?;
        Some(format!(
            "overloaded beyond capacity in {} of {} cycles (from cycle {first}, peak max {:.1} %): usage above 100 % is demand the brokers could not serve (the model does not saturate)",
            self.cycles_over_capacity,
            self.cycles_run,
            self.peak_max_usage_fraction * 100.0
        ))
    }
}

/// One configuration's run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimulationRun {
    pub config: RunConfig,
    /// The Pulsar release whose behaviour the run used (`4.0.7`, `5.0.0`).
    pub profile: String,
    /// Why that release (leader's version, majority, operator); absent before comparison format 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_basis: Option<crate::release::ReleaseBasis>,
    pub shedding_strategy: String,
    pub placement_strategy: String,
    pub warnings: Vec<String>,
    /// The progress callback asked to stop; `cycles` holds what ran.
    pub cancelled: bool,
    pub summary: RunSummary,
    pub cycles: Vec<CycleMetrics>,
}

/// Remembers where bundles left from and which brokers received bundles, to count thrashing.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChurnTracker {
    window: u32,
    /// bundle → (broker it left, cycle).
    departures: HashMap<usize, Vec<(usize, u32)>>,
    /// broker → last cycle it received a shed bundle.
    received: HashMap<usize, u32>,
}

impl ChurnTracker {
    pub fn new(window: u32) -> Self {
        Self {
            window,
            ..Self::default()
        }
    }

    /// Records a shedding move; returns (thrashing, from a recent destination).
    pub fn record(&mut self, bundle: usize, from: usize, to: usize, cycle: u32) -> (bool, bool) {
        let w = self.window;
        let within = |c: u32| cycle.saturating_sub(c) <= w;
        let past = self.departures.entry(bundle).or_default();
        past.retain(|&(_, c)| within(c));
        let thrash = past.iter().any(|&(b, _)| b == to);
        past.push((from, cycle));
        let recent_destination = self.received.get(&from).is_some_and(|&c| within(c));
        self.received.insert(to, cycle);
        (thrash, recent_destination)
    }

    /// A bundle replaced by split children: its history no longer applies.
    pub fn forget(&mut self, bundle: usize) {
        self.departures.remove(&bundle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thrashing_within_window_only() {
        let mut t = ChurnTracker::new(5);
        assert_eq!(t.record(7, 0, 1, 10), (false, false));
        // Back to broker 0 four cycles later: thrashing; broker 1 received at 10: recent.
        assert_eq!(t.record(7, 1, 0, 14), (true, true));
        // Back to 1 more than 5 cycles after it left 1 (at 14 → 20 is 6 later).
        assert_eq!(t.record(7, 0, 1, 20), (false, false));
    }
}
