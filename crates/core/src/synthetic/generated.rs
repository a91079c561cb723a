//! What the cluster skeleton and its two traffic models share: a bundle's base traffic and how a
//! broker measures it, the leader's `BundleData` at steady rates, a generated bundle and a tiled
//! namespace.

use crate::model::{
    BundleData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, NamespaceBundleStats, NamespaceSnapshot,
    TimeAverageMessageData,
};

use super::spec::NamespaceSpec;

/// Kilobits per second in one Gbps, as `loadBalancerOverrideBrokerNicSpeedGbps` converts (§1).
pub(super) const KBPS_PER_GBPS: f64 = 1_000_000.0;

/// Rounds to 3 decimals: keeps the JSON readable; `round` is exact, so this stays deterministic.
pub(super) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A bundle's traffic before measurement noise.
#[derive(Clone, Copy)]
pub(super) struct BaseTraffic {
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub msg_size_bytes: f64,
    pub topics: u32,
    pub producers: i64,
    pub consumers: i64,
}

impl BaseTraffic {
    /// One measurement of the base rates scaled by `factor`, as a broker reports it.
    pub(super) fn sample(&self, factor: f64) -> NamespaceBundleStats {
        let rate_in = round3(self.msg_rate_in * factor);
        let rate_out = round3(self.msg_rate_out * factor);
        NamespaceBundleStats {
            msg_rate_in: rate_in,
            msg_throughput_in: round3(rate_in * self.msg_size_bytes),
            msg_rate_out: rate_out,
            msg_throughput_out: round3(rate_out * self.msg_size_bytes),
            consumer_count: self.consumers,
            producer_count: self.producers,
            topics: i64::from(self.topics),
            // Roughly one second of ingress kept in the managed-ledger cache.
            cache_size: (rate_in * self.msg_size_bytes).round() as i64,
        }
    }
}

/// A steady-state moving average (window full) at the rates of `stats`.
fn window(stats: &NamespaceBundleStats, max_samples: i32) -> TimeAverageMessageData {
    TimeAverageMessageData {
        max_samples,
        num_samples: max_samples,
        msg_throughput_in: stats.msg_throughput_in,
        msg_throughput_out: stats.msg_throughput_out,
        msg_rate_in: stats.msg_rate_in,
        msg_rate_out: stats.msg_rate_out,
    }
}

/// The leader's `BundleData` of a bundle whose short- and long-term averages sit at these rates.
pub(super) fn bundle_data(short: &NamespaceBundleStats, long: &NamespaceBundleStats) -> BundleData {
    BundleData {
        short_term_data: window(short, NUM_SHORT_SAMPLES),
        long_term_data: window(long, NUM_LONG_SAMPLES),
        topics: i32::try_from(short.topics).unwrap_or(i32::MAX),
    }
}

/// One generated bundle before it is filed under its broker.
pub(super) struct GeneratedBundle {
    pub name: String,
    pub owner: usize,
    pub stats: NamespaceBundleStats,
    pub data: BundleData,
}

/// A namespace's layout and its bundles' full names, in hash-range order.
pub(super) struct TiledNamespace<'a> {
    pub spec: &'a NamespaceSpec,
    pub bundles: Vec<String>,
    pub(super) layout: NamespaceSnapshot,
}
