//! `TimeAverageBrokerData`: the leader's per-broker sums of its bundles' averages (§2.6).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::BundleData;

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TimeAverageBrokerData {
    pub short_term_msg_throughput_in: f64,
    pub short_term_msg_throughput_out: f64,
    pub short_term_msg_rate_in: f64,
    pub short_term_msg_rate_out: f64,
    pub long_term_msg_throughput_in: f64,
    pub long_term_msg_throughput_out: f64,
    pub long_term_msg_rate_in: f64,
    pub long_term_msg_rate_out: f64,
}

impl TimeAverageBrokerData {
    /// Recomputed from scratch as the leader does: the sum over the broker's bundles, a bundle with
    /// no `BundleData` counting with Pulsar's defaults.
    pub fn from_bundles<'a, S: std::hash::BuildHasher>(
        bundles: impl IntoIterator<Item = &'a str>,
        bundle_data: &IndexMap<String, BundleData, S>,
    ) -> Self {
        let default = BundleData::pulsar_default();
        Self::from_bundle_data(
            bundles
                .into_iter()
                .map(|name| bundle_data.get(name).unwrap_or(&default)),
        )
    }

    /// The same sum over the bundles' data given directly, in order (for callers that already hold
    /// it and need not look each name up again).
    pub fn from_bundle_data<'a>(bundles: impl IntoIterator<Item = &'a BundleData>) -> Self {
        let mut out = Self::default();
        for data in bundles {
            out.add(data);
        }
        out
    }

    /// One more bundle in the sum (the one place it is added, so the simulator's running sums
    /// have the bits of a sum from scratch).
    pub fn add(&mut self, data: &BundleData) {
        self.short_term_msg_throughput_in += data.short_term_data.msg_throughput_in;
        self.short_term_msg_throughput_out += data.short_term_data.msg_throughput_out;
        self.short_term_msg_rate_in += data.short_term_data.msg_rate_in;
        self.short_term_msg_rate_out += data.short_term_data.msg_rate_out;
        self.long_term_msg_throughput_in += data.long_term_data.msg_throughput_in;
        self.long_term_msg_throughput_out += data.long_term_data.msg_throughput_out;
        self.long_term_msg_rate_in += data.long_term_data.msg_rate_in;
        self.long_term_msg_rate_out += data.long_term_data.msg_rate_out;
    }

    pub fn long_term_msg_rate(&self) -> f64 {
        self.long_term_msg_rate_in + self.long_term_msg_rate_out
    }
}
