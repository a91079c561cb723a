//! `LocalBrokerData`: the report each broker writes under `/loadbalance/brokers/<brokerId>` (§2.3).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{NamespaceBundleStats, ResourceUsage, SystemResourceUsage};
use crate::units::{self, ResourceWeights};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LocalBrokerData {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_service_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_service_url_tls: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pulsar_service_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pulsar_service_url_tls: Option<String>,
    pub persistent_topics_enabled: bool,
    pub non_persistent_topics_enabled: bool,
    pub cpu: ResourceUsage,
    pub memory: ResourceUsage,
    pub direct_memory: ResourceUsage,
    pub bandwidth_in: ResourceUsage,
    pub bandwidth_out: ResourceUsage,
    pub msg_throughput_in: f64,
    pub msg_throughput_out: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub last_update: i64,
    pub last_stats: IndexMap<String, NamespaceBundleStats>,
    pub num_topics: i64,
    pub num_bundles: i64,
    pub num_consumers: i64,
    pub num_producers: i64,
    pub bundles: Vec<String>,
    pub last_bundle_gains: Vec<String>,
    pub last_bundle_losses: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker_version_string: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_manager_class_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_timestamp: Option<i64>,
}

impl Default for LocalBrokerData {
    fn default() -> Self {
        Self {
            broker_id: None,
            web_service_url: None,
            web_service_url_tls: None,
            pulsar_service_url: None,
            pulsar_service_url_tls: None,
            persistent_topics_enabled: true,
            non_persistent_topics_enabled: true,
            cpu: ResourceUsage::default(),
            memory: ResourceUsage::default(),
            direct_memory: ResourceUsage::default(),
            bandwidth_in: ResourceUsage::default(),
            bandwidth_out: ResourceUsage::default(),
            msg_throughput_in: 0.0,
            msg_throughput_out: 0.0,
            msg_rate_in: 0.0,
            msg_rate_out: 0.0,
            last_update: 0,
            last_stats: IndexMap::new(),
            num_topics: 0,
            num_bundles: 0,
            num_consumers: 0,
            num_producers: 0,
            bundles: Vec::new(),
            last_bundle_gains: Vec::new(),
            last_bundle_losses: Vec::new(),
            broker_version_string: None,
            load_manager_class_name: None,
            start_timestamp: None,
        }
    }
}

impl LocalBrokerData {
    pub fn resource_usage(&self) -> SystemResourceUsage {
        SystemResourceUsage {
            cpu: self.cpu,
            memory: self.memory,
            direct_memory: self.direct_memory,
            bandwidth_in: self.bandwidth_in,
            bandwidth_out: self.bandwidth_out,
        }
    }

    /// `getMaxResourceUsageWithWeight`: the number ThresholdShedder, OverloadShedder, AvgShedder and
    /// the placement strategies compare (fraction, memory ignored).
    pub fn max_resource_usage_with_weight(&self, w: &ResourceWeights) -> f64 {
        units::modular_weighted_max_fraction(&self.resource_usage(), w)
    }

    /// `getMaxResourceUsage`: unweighted max (fraction, memory ignored).
    pub fn max_resource_usage(&self) -> f64 {
        units::unweighted_max_fraction(&self.resource_usage())
    }

    pub fn total_msg_rate(&self) -> f64 {
        self.msg_rate_in + self.msg_rate_out
    }

    pub fn total_msg_throughput(&self) -> f64 {
        self.msg_throughput_in + self.msg_throughput_out
    }

    /// `LocalBrokerData.update(bundleStats)`: sets the bundle list and the summed rates and counts
    /// from per-bundle stats, as the broker does before writing its report.
    pub fn set_last_stats(&mut self, stats: IndexMap<String, NamespaceBundleStats>) {
        self.msg_throughput_in = 0.0;
        self.msg_throughput_out = 0.0;
        self.msg_rate_in = 0.0;
        self.msg_rate_out = 0.0;
        self.num_topics = 0;
        self.num_consumers = 0;
        self.num_producers = 0;
        for s in stats.values() {
            self.msg_throughput_in += s.msg_throughput_in;
            self.msg_throughput_out += s.msg_throughput_out;
            self.msg_rate_in += s.msg_rate_in;
            self.msg_rate_out += s.msg_rate_out;
            self.num_topics += s.topics;
            self.num_consumers += s.consumer_count;
            self.num_producers += s.producer_count;
        }
        self.bundles = stats.keys().cloned().collect();
        self.num_bundles = stats.len() as i64;
        self.last_stats = stats;
    }
}
