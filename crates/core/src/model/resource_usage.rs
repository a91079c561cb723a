//! `ResourceUsage` (one resource's `{usage, limit}`) and the five resources a broker reports.

use serde::{Deserialize, Serialize};

use crate::units::percent_usage;

/// One resource sample in its raw unit (§1): cpu in percent-of-a-core, memory in MiB, bandwidth in Kbps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourceUsage {
    pub usage: f64,
    pub limit: f64,
}

impl ResourceUsage {
    pub const fn new(usage: f64, limit: f64) -> Self {
        Self { usage, limit }
    }

    /// Percent (0–100, may exceed 100), in Pulsar's f32 arithmetic.
    pub fn percent_usage(&self) -> f64 {
        percent_usage(self.usage, self.limit)
    }
}

/// The five resources of `LocalBrokerData` / `BrokerLoadData`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SystemResourceUsage {
    pub cpu: ResourceUsage,
    pub memory: ResourceUsage,
    pub direct_memory: ResourceUsage,
    pub bandwidth_in: ResourceUsage,
    pub bandwidth_out: ResourceUsage,
}
