//! [`Traffic::PerNamespace`](super::Traffic::PerNamespace): each namespace's own totals spread over
//! its bundles with a heavy tail, every sample measured with noise, one broker that receives more
//! than its share, and cpu and NIC usage that follow each broker's traffic.
//!
//! Only `+ − × ÷` and `round` on `f64` (no `exp`/`powf`), so the same (spec, seed) gives the same
//! bytes on every machine.

use crate::model::{BundleData, LocalBrokerData, NamespaceBundleStats, ResourceUsage};
use crate::rng::SplitMix64;

use super::generated::{
    BaseTraffic, GeneratedBundle, KBPS_PER_GBPS, TiledNamespace, bundle_data, round3,
};
use super::spec::{PerNamespace, SyntheticSpec};

/// Each published byte is written to bookies this many times (write quorum), which leaves the
/// broker's NIC on top of what consumers read.
const BOOKIE_WRITE_QUORUM: f64 = 2.0;
/// Protocol framing on the wire, on top of the payload bytes.
const WIRE_OVERHEAD: f64 = 1.05;
/// Share of the cpu limit a broker with no traffic still uses (GC, metadata sessions, stats).
const IDLE_CPU_FRACTION: f64 = 0.03;

/// A factor uniform in `[1 − spread, 1 + spread)`: the noise of a live measurement.
fn jitter(rng: &mut SplitMix64, spread: f64) -> f64 {
    1.0 - spread + 2.0 * spread * rng.next_f64()
}

/// A bundle's report and `BundleData` around `base`: the report, the short-term and the long-term
/// averages each measured with their own noise.
pub(super) fn measure(
    rng: &mut SplitMix64,
    base: &BaseTraffic,
) -> (NamespaceBundleStats, BundleData) {
    let stats = base.sample(jitter(rng, 0.1));
    let short = base.sample(jitter(rng, 0.05));
    let long = base.sample(jitter(rng, 0.15));
    (stats, bundle_data(&short, &long))
}

fn pick_owner(rng: &mut SplitMix64, model: &PerNamespace, brokers: u32) -> usize {
    if let Some(hot) = model.hot_broker
        && rng.next_f64() < hot.extra_bundle_fraction
    {
        return hot.index as usize;
    }
    rng.below(brokers as usize)
}

/// The tenant namespaces' bundles, namespace by namespace.
pub(super) fn bundles(
    model: &PerNamespace,
    brokers: u32,
    tiled: &[TiledNamespace<'_>],
    rng: &mut SplitMix64,
) -> Vec<GeneratedBundle> {
    let mut out = Vec::new();
    for t in tiled {
        let ns = t.spec;
        // Heavy-tailed traffic weights: 1 + 8·skew·u⁴ (mean 1 + 1.6·skew, max 1 + 8·skew).
        let weights: Vec<f64> = (0..t.bundles.len())
            .map(|_| {
                let u = rng.next_f64();
                1.0 + 8.0 * model.skew * u * u * u * u
            })
            .collect();
        let total_weight: f64 = weights.iter().sum();
        let per_bundle_topics = ns.topics / ns.bundles;
        let extra_topics = ns.topics % ns.bundles;

        for (i, (name, weight)) in t.bundles.iter().zip(&weights).enumerate() {
            let topics = per_bundle_topics + u32::from((i as u32) < extra_topics);
            let share = if topics > 0 && total_weight > 0.0 {
                weight / total_weight
            } else {
                0.0
            };
            let msg_rate_in = ns.msg_rate_in * share;
            let base = BaseTraffic {
                msg_rate_in,
                msg_rate_out: msg_rate_in * ns.fanout,
                msg_size_bytes: ns.avg_msg_size_bytes,
                topics,
                producers: i64::from(topics),
                consumers: (f64::from(topics) * ns.fanout).round() as i64,
            };
            let owner = pick_owner(rng, model, brokers);
            let (stats, data) = measure(rng, &base);
            out.push(GeneratedBundle {
                name: name.clone(),
                owner,
                stats,
                data,
            });
        }
    }
    out
}

/// Each broker's resource usage from its traffic: cpu follows the work it does (messages handled
/// plus bytes moved) around the spec's average, the NIC carries payload, bookie writes and framing,
/// memory and report times vary a little.
pub(super) fn usage(
    model: &PerNamespace,
    spec: &SyntheticSpec,
    rng: &mut SplitMix64,
    reports: &mut [LocalBrokerData],
) {
    let cpu_limit = 100.0 * f64::from(spec.cores_per_broker);
    let nic_limit_kbps = f64::from(spec.nic_speed_gbps) * KBPS_PER_GBPS;

    let cost = |local: &LocalBrokerData| -> f64 {
        local
            .last_stats
            .values()
            .map(|s| s.msg_rate_in + s.msg_rate_out + (s.total_msg_throughput()) / 65_536.0)
            .sum()
    };
    let costs: Vec<f64> = reports.iter().map(cost).collect();
    let mean_cost = costs.iter().sum::<f64>() / costs.len().max(1) as f64;
    let idle_cpu = IDLE_CPU_FRACTION * cpu_limit;
    let busy_cpu = (model.target_avg_cpu_fraction * cpu_limit - idle_cpu).max(0.0);

    for (local, cost) in reports.iter_mut().zip(costs) {
        let relative = if mean_cost > 0.0 {
            cost / mean_cost
        } else {
            0.0
        };
        let cpu = (idle_cpu + busy_cpu * relative * jitter(rng, 0.05)).min(0.99 * cpu_limit);
        let kbps = |bytes_per_sec: f64| bytes_per_sec * 8.0 / 1000.0 * WIRE_OVERHEAD;
        let bandwidth_in = kbps(local.msg_throughput_in);
        let bandwidth_out =
            kbps(local.msg_throughput_out + BOOKIE_WRITE_QUORUM * local.msg_throughput_in);
        local.cpu = ResourceUsage::new(round3(cpu), cpu_limit);
        local.memory = ResourceUsage::new(
            round3(spec.heap_mib * (0.35 + 0.3 * rng.next_f64())),
            spec.heap_mib,
        );
        local.direct_memory = ResourceUsage::new(
            round3(spec.direct_memory_mib * (0.2 + 0.3 * rng.next_f64())),
            spec.direct_memory_mib,
        );
        local.bandwidth_in = ResourceUsage::new(round3(bandwidth_in), nic_limit_kbps);
        local.bandwidth_out = ResourceUsage::new(round3(bandwidth_out), nic_limit_kbps);
        local.last_update = spec.captured_at_ms - below_i64(rng, 5_000);
        local.start_timestamp =
            Some(spec.captured_at_ms - 3 * 86_400_000 - below_i64(rng, 86_400_000));
    }
}

fn below_i64(rng: &mut SplitMix64, n: u32) -> i64 {
    i64::try_from(rng.below(n as usize)).unwrap_or(0)
}
