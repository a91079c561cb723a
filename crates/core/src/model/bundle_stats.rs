//! `NamespaceBundleStats`: a bundle's instantaneous stats as its broker reports them (§2.2).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NamespaceBundleStats {
    pub msg_rate_in: f64,
    pub msg_throughput_in: f64,
    pub msg_rate_out: f64,
    pub msg_throughput_out: f64,
    pub consumer_count: i64,
    pub producer_count: i64,
    pub topics: i64,
    pub cache_size: i64,
}

/// Java `Math.round(double)`: floor(x + 0.5), saturating like Java's long conversion.
pub(crate) fn java_round(x: f64) -> i64 {
    (x + 0.5).floor() as i64
}

impl NamespaceBundleStats {
    pub fn total_msg_rate(&self) -> f64 {
        self.msg_rate_in + self.msg_rate_out
    }

    pub fn total_msg_throughput(&self) -> f64 {
        self.msg_throughput_in + self.msg_throughput_out
    }

    /// `NamespaceBundleStats.compareTo`: the coarse ordering used for top-K bundle selection.
    pub fn pulsar_cmp(&self, other: &Self) -> Ordering {
        java_round(self.msg_throughput_in / 1e5)
            .cmp(&java_round(other.msg_throughput_in / 1e5))
            .then_with(|| {
                java_round(self.msg_throughput_out / 1e5)
                    .cmp(&java_round(other.msg_throughput_out / 1e5))
            })
            .then_with(|| {
                java_round((self.msg_rate_in + self.msg_rate_out) / 100.0).cmp(&java_round(
                    (other.msg_rate_in + other.msg_rate_out) / 100.0,
                ))
            })
            .then_with(|| {
                ((self.topics + self.consumer_count + self.producer_count) / 500)
                    .cmp(&((other.topics + other.consumer_count + other.producer_count) / 500))
            })
            .then_with(|| (self.cache_size / 100_000).cmp(&(other.cache_size / 100_000)))
    }
}
