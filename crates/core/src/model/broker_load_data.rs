//! Extensible load manager data: `BrokerLoadData` (with its EMA) and `TopBundlesLoadData` (§2.8–2.9).

use serde::{Deserialize, Serialize};

use super::{NamespaceBundleStats, ResourceUsage, SystemResourceUsage};
use crate::units::{self, ResourceWeights};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BrokerLoadData {
    pub cpu: ResourceUsage,
    pub memory: ResourceUsage,
    pub direct_memory: ResourceUsage,
    pub bandwidth_in: ResourceUsage,
    pub bandwidth_out: ResourceUsage,
    pub msg_throughput_in: f64,
    pub msg_throughput_out: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub bundle_count: i32,
    pub topics: i32,
    pub max_resource_usage: f64,
    #[serde(rename = "weightedMaxEMA")]
    pub weighted_max_ema: f64,
    #[serde(rename = "msgThroughputEMA")]
    pub msg_throughput_ema: f64,
    pub updated_at: i64,
    pub reported_at: i64,
}

impl Default for BrokerLoadData {
    /// Pulsar's constructor: usages at 0, both maxima at 1.0, no update yet.
    fn default() -> Self {
        Self {
            cpu: ResourceUsage::default(),
            memory: ResourceUsage::default(),
            direct_memory: ResourceUsage::default(),
            bandwidth_in: ResourceUsage::default(),
            bandwidth_out: ResourceUsage::default(),
            msg_throughput_in: 0.0,
            msg_throughput_out: 0.0,
            msg_rate_in: 0.0,
            msg_rate_out: 0.0,
            bundle_count: 0,
            topics: 0,
            max_resource_usage: 1.0,
            weighted_max_ema: 1.0,
            msg_throughput_ema: 0.0,
            updated_at: 0,
            reported_at: 0,
        }
    }
}

/// One report fed to [`BrokerLoadData::update`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BrokerLoadSample {
    pub usage: SystemResourceUsage,
    pub msg_throughput_in: f64,
    pub msg_throughput_out: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub bundle_count: i32,
    pub topics: i32,
}

impl BrokerLoadData {
    pub fn resource_usage(&self) -> SystemResourceUsage {
        SystemResourceUsage {
            cpu: self.cpu,
            memory: self.memory,
            direct_memory: self.direct_memory,
            bandwidth_in: self.bandwidth_in,
            bandwidth_out: self.bandwidth_out,
        }
    }

    pub fn msg_throughput(&self) -> f64 {
        self.msg_throughput_in + self.msg_throughput_out
    }

    /// `BrokerLoadData.update(...)`: copies the sample and advances both EMAs; the first sample after
    /// construction (or `clear()`, `updatedAt == 0`) initialises them. `now_ms` is the caller's clock.
    pub fn update(
        &mut self,
        s: &BrokerLoadSample,
        w: &ResourceWeights,
        history_fraction: f64,
        now_ms: i64,
    ) {
        let u = s.usage;
        self.cpu = u.cpu;
        self.memory = u.memory;
        self.direct_memory = u.direct_memory;
        self.bandwidth_in = u.bandwidth_in;
        self.bandwidth_out = u.bandwidth_out;
        self.msg_throughput_in = s.msg_throughput_in;
        self.msg_throughput_out = s.msg_throughput_out;
        self.msg_rate_in = s.msg_rate_in;
        self.msg_rate_out = s.msg_rate_out;
        self.bundle_count = s.bundle_count;
        self.topics = s.topics;
        self.max_resource_usage = units::unweighted_max_fraction(&u);
        let weighted = units::extensible_weighted_max_fraction(&u, w);
        let h = history_fraction;
        self.weighted_max_ema = if self.updated_at == 0 {
            weighted
        } else {
            self.weighted_max_ema * h + (1.0 - h) * weighted
        };
        let throughput = s.msg_throughput_in + s.msg_throughput_out;
        self.msg_throughput_ema = if self.updated_at == 0 {
            throughput
        } else {
            self.msg_throughput_ema * h + (1.0 - h) * throughput
        };
        self.updated_at = now_ms;
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TopBundle {
    pub bundle_name: String,
    pub stats: NamespaceBundleStats,
}

/// A broker's top-K bundles, ascending (largest last), as `TopKBundles` publishes them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TopBundlesLoadData {
    pub top_bundles_load_data: Vec<TopBundle>,
}
