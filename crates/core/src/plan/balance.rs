//! Per-broker load views and the cluster's balance: the one statistic of how evenly the brokers'
//! weighted max usage is spread ([`UsageSpread`]), which plans ([`summarize`]), rebalance proposals
//! ([`balance_summary`]) and simulations (per cycle) all compute here; and what a plan's predicted
//! usages rest on ([`explain_plan`]: the load model's arithmetic for the brokers its moves change).

use super::model::{BalanceSummary, BrokerLoadView, Plan};
use crate::load::LoadModel;
use crate::load::explain::{Move, UsageExplanation, explain_moves};
use crate::model::{LocalBrokerData, Snapshot};
use crate::units::ResourceWeights;

pub fn broker_views(snapshot: &Snapshot, weights: &ResourceWeights) -> Vec<BrokerLoadView> {
    snapshot
        .brokers
        .iter()
        .map(|(id, b)| broker_view(id, &b.local_broker_data, weights, None))
        .collect()
}

/// One broker's view; `nic_limit_kbps`: its report read with `loadBalancerOverrideBrokerNicSpeedGbps`
/// applied (`settings::set_nic_limits`), for a view that keeps the reports as loaded.
pub(crate) fn broker_view(
    id: &str,
    l: &LocalBrokerData,
    weights: &ResourceWeights,
    nic_limit_kbps: Option<f64>,
) -> BrokerLoadView {
    let mut u = l.resource_usage();
    if let Some(limit) = nic_limit_kbps {
        crate::config::settings::set_nic_limits(&mut u.bandwidth_in, &mut u.bandwidth_out, limit);
    }
    BrokerLoadView {
        broker: id.to_string(),
        cpu_pct: u.cpu.percent_usage(),
        memory_pct: u.memory.percent_usage(),
        direct_memory_pct: u.direct_memory.percent_usage(),
        bandwidth_in_pct: u.bandwidth_in.percent_usage(),
        bandwidth_out_pct: u.bandwidth_out.percent_usage(),
        // `LocalBrokerData::max_resource_usage_with_weight` of these usages.
        weighted_max_usage_fraction: crate::units::modular_weighted_max_fraction(&u, weights),
        msg_rate_in: l.msg_rate_in,
        msg_rate_out: l.msg_rate_out,
        msg_throughput_in_bytes_per_sec: l.msg_throughput_in,
        msg_throughput_out_bytes_per_sec: l.msg_throughput_out,
        // A broker of the extensible load manager reports no bundle list, only a count
        // (`BrokerLoadData.bundleCount`, imported as `numBundles`).
        bundle_count: if l.bundles.is_empty() {
            usize::try_from(l.num_bundles).unwrap_or(0)
        } else {
            l.bundles.len()
        },
        topic_count: l.num_topics,
    }
}

/// Max, mean, max/mean and population standard deviation of the brokers' weighted max usage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UsageSpread {
    pub max_usage_fraction: f64,
    pub mean_usage_fraction: f64,
    /// max / mean (1.0 is perfectly even; 0 when the mean is 0).
    pub max_over_mean: f64,
    /// Population standard deviation.
    pub std_usage_fraction: f64,
}

impl UsageSpread {
    /// The spread of `usages` (all 0 when there are none).
    pub fn of(usages: impl Iterator<Item = f64> + Clone) -> Self {
        let n = usages.clone().count();
        if n == 0 {
            return Self::default();
        }
        let mean = usages.clone().sum::<f64>() / n as f64;
        let max = usages.clone().fold(f64::NEG_INFINITY, f64::max);
        let var = usages.map(|u| (u - mean) * (u - mean)).sum::<f64>() / n as f64;
        Self {
            max_usage_fraction: max,
            mean_usage_fraction: mean,
            max_over_mean: if mean > 0.0 { max / mean } else { 0.0 },
            std_usage_fraction: var.sqrt(),
        }
    }
}

/// The balance of brokers with these weighted max usages and bundle counts (one per broker, same
/// order).
pub fn balance_summary(
    usages: impl Iterator<Item = f64> + Clone,
    bundle_counts: impl Iterator<Item = usize> + Clone,
) -> BalanceSummary {
    let broker_count = usages.clone().count();
    if broker_count == 0 {
        return BalanceSummary::default();
    }
    let spread = UsageSpread::of(usages);
    BalanceSummary {
        broker_count,
        max_usage_fraction: spread.max_usage_fraction,
        mean_usage_fraction: spread.mean_usage_fraction,
        max_over_mean: spread.max_over_mean,
        std_usage_fraction: spread.std_usage_fraction,
        min_bundle_count: bundle_counts.clone().min().unwrap_or(0),
        max_bundle_count: bundle_counts.max().unwrap_or(0),
    }
}

/// The balance of a plan's broker views.
pub fn summarize(views: &[BrokerLoadView]) -> BalanceSummary {
    balance_summary(
        views.iter().map(|v| v.weighted_max_usage_fraction),
        views.iter().map(|v| v.bundle_count),
    )
}

/// [`explain_moves`] of a plan made on `snapshot`: its unloads with a destination, the NIC limits as
/// the plan's configuration has them.
pub fn explain_plan(snapshot: &Snapshot, plan: &Plan, model: &LoadModel) -> Vec<UsageExplanation> {
    let moves: Vec<Move<'_>> = plan
        .unloads
        .iter()
        .filter_map(|u| Some((u.bundle.as_str(), u.from.as_str(), u.to.as_deref()?)))
        .collect();
    let nic = crate::config::settings::resolve_config(
        snapshot,
        crate::config::Profile::parse(&plan.profile),
        &plan.settings,
    )
    .ok()
    .and_then(|r| crate::config::settings::nic_speed_limit_kbps(&r.config));
    explain_moves(snapshot, &moves, model, nic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_two_brokers() {
        let v = |u: f64, n: usize| BrokerLoadView {
            weighted_max_usage_fraction: u,
            bundle_count: n,
            ..Default::default()
        };
        let s = summarize(&[v(0.9, 10), v(0.1, 2)]);
        assert_eq!(s.mean_usage_fraction, 0.5);
        assert_eq!(s.max_over_mean, 1.8);
        assert!((s.std_usage_fraction - 0.4).abs() < 1e-12);
        assert_eq!((s.min_bundle_count, s.max_bundle_count), (2, 10));
    }

    #[test]
    fn spread_of_two_and_of_none() {
        let s = UsageSpread::of([0.9, 0.1].into_iter());
        assert_eq!(
            (s.max_usage_fraction, s.mean_usage_fraction, s.max_over_mean),
            (0.9, 0.5, 1.8)
        );
        assert!((s.std_usage_fraction - 0.4).abs() < 1e-12);
        assert_eq!(UsageSpread::of(std::iter::empty()), UsageSpread::default());
        assert_eq!(summarize(&[]), BalanceSummary::default());
    }
}
