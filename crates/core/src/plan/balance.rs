//! Per-broker load views and the cluster balance summary (max/mean and std of the weighted max usage).

use super::model::{BalanceSummary, BrokerLoadView};
use crate::model::Snapshot;
use crate::units::ResourceWeights;

pub fn broker_views(snapshot: &Snapshot, weights: &ResourceWeights) -> Vec<BrokerLoadView> {
    snapshot
        .brokers
        .iter()
        .map(|(id, b)| {
            let l = &b.local_broker_data;
            BrokerLoadView {
                broker: id.clone(),
                cpu_pct: l.cpu.percent_usage(),
                memory_pct: l.memory.percent_usage(),
                direct_memory_pct: l.direct_memory.percent_usage(),
                bandwidth_in_pct: l.bandwidth_in.percent_usage(),
                bandwidth_out_pct: l.bandwidth_out.percent_usage(),
                weighted_max_usage_fraction: l.max_resource_usage_with_weight(weights),
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
        })
        .collect()
}

pub fn summarize(views: &[BrokerLoadView]) -> BalanceSummary {
    let n = views.len();
    if n == 0 {
        return BalanceSummary::default();
    }
    let usages: Vec<f64> = views
        .iter()
        .map(|v| v.weighted_max_usage_fraction)
        .collect();
    let mean = usages.iter().sum::<f64>() / n as f64;
    let max = usages.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let var = usages.iter().map(|u| (u - mean) * (u - mean)).sum::<f64>() / n as f64;
    BalanceSummary {
        broker_count: n,
        max_usage_fraction: max,
        mean_usage_fraction: mean,
        max_over_mean: if mean > 0.0 { max / mean } else { 0.0 },
        std_usage_fraction: var.sqrt(),
        min_bundle_count: views.iter().map(|v| v.bundle_count).min().unwrap_or(0),
        max_bundle_count: views.iter().map(|v| v.bundle_count).max().unwrap_or(0),
    }
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
}
