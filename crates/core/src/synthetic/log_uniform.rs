//! [`Traffic::LogUniform`](super::Traffic::LogUniform): every bundle draws its own message rate
//! and message size, log-uniform and independent, and its owner with a weight (a few brokers start
//! with more); throughputs are then scaled so the average broker's NIC out sits at the spec's
//! fraction with no bundle over the cap. Reports are exact (no measurement noise), and cpu tracks
//! NIC out so the NIC is the binding resource.
//!
//! `exp` and `log` come from the pure-Rust `libm` crate, so native and wasm builds draw the same bits.

use crate::model::{BundleData, LocalBrokerData, NamespaceBundleStats, ResourceUsage};
use crate::rng::SplitMix64;

use super::generated::{BaseTraffic, GeneratedBundle, KBPS_PER_GBPS, TiledNamespace, bundle_data};
use super::spec::{LogUniform, SyntheticSpec};

const KBPS_PER_BYTE: f64 = 8.0 / 1000.0;
const MIB: f64 = 1024.0 * 1024.0;
/// Messages per second published into one bundle: log-uniform in this range.
const MIN_MSG_RATE: f64 = 20.0;
const MAX_MSG_RATE: f64 = 2000.0;
/// cpu tracks NIC out at this fraction of its percentage, so the NIC is the binding resource.
const CPU_FRACTION_OF_NIC: f64 = 0.7;
/// Share of the cpu limit a broker with no traffic still uses: one twentieth.
const IDLE_CPU_DIVISOR: f64 = 20.0;
/// Heap and direct memory in use, as fractions of their limits (exact in binary).
const HEAP_FRACTION: f64 = 0.25;
const DIRECT_MEMORY_FRACTION: f64 = 0.125;

fn log_uniform(rng: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    let (lo, hi) = (lo.max(1e-9), hi.max(lo.max(1e-9)));
    libm::exp(libm::log(lo) + rng.next_f64() * (libm::log(hi) - libm::log(lo)))
}

/// A bundle's report and `BundleData` at exactly `base`'s rates.
pub(super) fn measure(base: &BaseTraffic) -> (NamespaceBundleStats, BundleData) {
    let stats = base.sample(1.0);
    (stats, bundle_data(&stats, &stats))
}

/// The tenant namespaces' bundles, namespace by namespace, scaled to the spec's NIC target.
pub(super) fn bundles(
    model: &LogUniform,
    spec: &SyntheticSpec,
    tiled: &[TiledNamespace<'_>],
    rng: &mut SplitMix64,
) -> Vec<GeneratedBundle> {
    let brokers = spec.brokers.max(1) as usize;
    let weights: Vec<f64> = (0..brokers)
        .map(|i| {
            if i < model.hot_brokers as usize {
                model.hot_share.max(0.0)
            } else {
                1.0
            }
        })
        .collect();
    let total_weight: f64 = weights.iter().sum::<f64>().max(f64::MIN_POSITIVE);

    // Bundles: (name, stats before scaling, owner).
    let mut raw: Vec<(String, NamespaceBundleStats, usize)> = Vec::new();
    for name in tiled.iter().flat_map(|t| &t.bundles) {
        let rate_in = log_uniform(rng, MIN_MSG_RATE, MAX_MSG_RATE);
        let size = log_uniform(rng, model.min_msg_bytes, model.max_msg_bytes);
        let fanout = 1.0 + rng.below(3) as f64;
        let consumer_count = 1 + rng.below(20) as i64;
        let producer_count = 1 + rng.below(10) as i64;
        let topics = 2 + rng.below(30) as i64;
        let stats = NamespaceBundleStats {
            msg_rate_in: rate_in,
            msg_throughput_in: rate_in * size,
            msg_rate_out: rate_in * fanout,
            msg_throughput_out: rate_in * size * fanout,
            consumer_count,
            producer_count,
            topics,
            cache_size: 0,
        };
        // Weighted owner choice.
        let mut x = rng.next_f64() * total_weight;
        let mut owner = brokers - 1;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                owner = i;
                break;
            }
            x -= w;
        }
        raw.push((name.clone(), stats, owner));
    }

    // Scale so the mean broker NIC-out usage hits the target with every bundle under the cap:
    // capped bundles stay at the cap and the others are scaled up to make up (a few rounds).
    let nic_limit_kbps = f64::from(spec.nic_speed_gbps) * KBPS_PER_GBPS;
    let target_out_bytes =
        model.mean_bandwidth_out_fraction * nic_limit_kbps / KBPS_PER_BYTE * brokers as f64;
    let cap = model.max_bundle_mib_per_sec * MIB;
    let factor_of = |s: &NamespaceBundleStats, scale: f64| {
        let total = s.total_msg_throughput() * scale;
        if total > cap && total > 0.0 {
            scale * cap / total
        } else {
            scale
        }
    };
    let total_out: f64 = raw.iter().map(|r| r.1.msg_throughput_out).sum();
    let mut scale = if total_out > 0.0 {
        target_out_bytes / total_out
    } else {
        1.0
    };
    for _ in 0..8 {
        let got: f64 = raw
            .iter()
            .map(|r| r.1.msg_throughput_out * factor_of(&r.1, scale))
            .sum();
        if got <= 0.0 {
            break;
        }
        scale *= target_out_bytes / got;
    }
    raw.into_iter()
        .map(|(name, s, owner)| {
            let f = factor_of(&s, scale);
            let stats = NamespaceBundleStats {
                msg_throughput_in: s.msg_throughput_in * f,
                msg_throughput_out: s.msg_throughput_out * f,
                ..s
            };
            GeneratedBundle {
                name,
                owner,
                stats,
                data: bundle_data(&stats, &stats),
            }
        })
        .collect()
}

/// Each broker's usage: the NIC carries exactly its payload, cpu follows NIC out, memory is fixed.
pub(super) fn usage(spec: &SyntheticSpec, reports: &mut [LocalBrokerData]) {
    let cpu_limit = 100.0 * f64::from(spec.cores_per_broker);
    let nic_limit_kbps = f64::from(spec.nic_speed_gbps) * KBPS_PER_GBPS;
    for d in reports {
        d.memory = ResourceUsage::new(spec.heap_mib * HEAP_FRACTION, spec.heap_mib);
        d.direct_memory = ResourceUsage::new(
            spec.direct_memory_mib * DIRECT_MEMORY_FRACTION,
            spec.direct_memory_mib,
        );
        let out_kbps = d.msg_throughput_out * KBPS_PER_BYTE;
        let in_kbps = d.msg_throughput_in * KBPS_PER_BYTE;
        d.bandwidth_in = ResourceUsage::new(in_kbps, nic_limit_kbps);
        d.bandwidth_out = ResourceUsage::new(out_kbps, nic_limit_kbps);
        let cpu = cpu_limit / IDLE_CPU_DIVISOR
            + CPU_FRACTION_OF_NIC * (out_kbps / nic_limit_kbps) * cpu_limit;
        d.cpu = ResourceUsage::new(cpu, cpu_limit);
    }
}
