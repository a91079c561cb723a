//! `LeastResourceUsageWithWeight` for the modular load manager (§8.2): brokers whose smoothed weighted
//! usage is at least the difference threshold below the candidates' average; all candidates otherwise.

use indexmap::IndexMap;

use super::{PipelineTrace, PlacementChoice, PlacementStrategy, fmt_num, pick_among};
use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::modular::LoadData;
use crate::rng::Picker;

/// `MAX_RESOURCE_USAGE`: the history a broker without one is taken to have.
const MAX_RESOURCE_USAGE: f64 = 1.0;

/// State: `brokerAvgResourceUsageWithWeight`, an EWMA per broker advanced on **every** call for every
/// candidate (not once per cycle).
#[derive(Clone, Debug, Default)]
pub struct LeastResourceUsageWithWeight {
    history: IndexMap<String, f64>,
}

impl LeastResourceUsageWithWeight {
    /// The smoothed usage (fraction) per broker.
    pub fn history(&self) -> &IndexMap<String, f64> {
        &self.history
    }

    /// Presets the history (vectors that start from a known state).
    pub fn set_history(&mut self, history: IndexMap<String, f64>) {
        self.history = history;
    }

    /// `updateAndGetMaxResourceUsageWithWeight`.
    fn update(&mut self, name: &str, data: &LoadData, cfg: &LoadBalancerConfig) -> Option<f64> {
        let broker = data.brokers.get(name)?;
        let h = cfg.load_balancer_history_resource_percentage;
        let local = &broker.local;
        // A restarted or idle broker: its current usage replaces the history.
        let forget =
            local.bundles.is_empty() || (local.msg_rate_in == 0.0 && local.msg_rate_out == 0.0);
        let previous = if forget {
            None
        } else {
            self.history.get(name).copied()
        };
        let usage = local.max_resource_usage_with_weight(&cfg.resource_weights());
        let smoothed = match previous {
            None => usage,
            Some(old) => old * h + (1.0 - h) * usage,
        };
        // Overwrite in place: same map order as `put`, without a key allocation per call.
        match self.history.get_mut(name) {
            Some(slot) => *slot = smoothed,
            None => {
                self.history.insert(name.to_string(), smoothed);
            }
        }
        Some(smoothed)
    }
}

impl PlacementStrategy for LeastResourceUsageWithWeight {
    fn name(&self) -> &'static str {
        "LeastResourceUsageWithWeight"
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
        // Java would throw on a candidate without broker data; we leave such candidates out.
        let usable: Vec<String> = candidates
            .iter()
            .filter(|c| data.brokers.contains_key(c.as_str()))
            .cloned()
            .collect();
        if usable.is_empty() {
            return None;
        }
        let mut total_usage = 0.0;
        for name in &usable {
            total_usage += self.update(name, data, cfg).unwrap_or(MAX_RESOURCE_USAGE);
        }
        // usize → f64 is exact for any realistic candidate count.
        let avg_usage = total_usage / usable.len() as f64;
        let diff_threshold =
            cfg.load_balancer_average_resource_usage_difference_threshold_percentage as f64 / 100.0;
        let mut best = Vec::new();
        let mut listed = Vec::new();
        for name in &usable {
            let smoothed = self
                .history
                .get(name)
                .copied()
                .unwrap_or(MAX_RESOURCE_USAGE);
            if trace == PipelineTrace::Full {
                listed.push(format!("{name}={}%", fmt_num(smoothed * 100.0)));
            }
            if smoothed + diff_threshold <= avg_usage {
                best.push(name.clone());
            }
        }
        let fell_back = best.is_empty();
        if fell_back {
            best = usable.clone();
        }
        let smoothed_list = if trace == PipelineTrace::Full {
            format!(" (smoothed: {})", listed.join(", "))
        } else {
            String::new()
        };
        let reason = if trace == PipelineTrace::Off {
            String::new()
        } else if fell_back {
            format!(
                "no candidate is {}% below the average smoothed usage {}%; random among all {}{smoothed_list}",
                fmt_num(diff_threshold * 100.0),
                fmt_num(avg_usage * 100.0),
                best.len(),
            )
        } else {
            format!(
                "{} of {} candidates have smoothed usage + {}% <= average {}%{smoothed_list}",
                best.len(),
                usable.len(),
                fmt_num(diff_threshold * 100.0),
                fmt_num(avg_usage * 100.0),
            )
        };
        let choice = pick_among(best, reason, picker)?;
        if trace == PipelineTrace::Off {
            return Some(choice);
        }
        let history = &self.history;
        Some(choice.with_scores(usable.iter().map(|name| {
            let smoothed = history.get(name).copied().unwrap_or(MAX_RESOURCE_USAGE);
            (name.as_str(), smoothed)
        })))
    }

    /// Drops the history of brokers that left.
    fn on_active_brokers_change(&mut self, active_brokers: &[String]) {
        self.history.retain(|b, _| active_brokers.contains(b));
    }
}
