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

    /// The report of a broker that joins "like" this one: its limits, topic switches, release
    /// and load manager; no usage, no identity, no bundles. The one rule for a plan's
    /// `add-broker=ID~LIKE` and the simulator's joining brokers, so both start a new broker alike.
    pub fn empty_like(&self) -> LocalBrokerData {
        let empty = |u: ResourceUsage| ResourceUsage::new(0.0, u.limit);
        LocalBrokerData {
            cpu: empty(self.cpu),
            memory: empty(self.memory),
            direct_memory: empty(self.direct_memory),
            bandwidth_in: empty(self.bandwidth_in),
            bandwidth_out: empty(self.bandwidth_out),
            persistent_topics_enabled: self.persistent_topics_enabled,
            non_persistent_topics_enabled: self.non_persistent_topics_enabled,
            broker_version_string: self.broker_version_string.clone(),
            load_manager_class_name: self.load_manager_class_name.clone(),
            ..LocalBrokerData::default()
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
        BundleStatsTotals::of(stats.values()).write_to(self);
        self.bundles = stats.keys().cloned().collect();
        self.num_bundles = stats.len() as i64;
        self.last_stats = stats;
    }
}

/// A report's sums over its bundles' `lastStats` (`LocalBrokerData.update(bundleStats)`): rates
/// and throughputs added in the bundles' order, counts added without overflow. The one place a
/// report's totals are added up (the importer's and generators' reports, a plan's moves, the
/// simulator's rewritten reports), so every copy of a report has the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BundleStatsTotals {
    pub msg_throughput_in: f64,
    pub msg_throughput_out: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub topics: i64,
    pub consumers: i64,
    pub producers: i64,
}

impl BundleStatsTotals {
    /// The sums over `stats`, in order.
    pub fn of<'a>(stats: impl IntoIterator<Item = &'a NamespaceBundleStats>) -> Self {
        let mut t = Self::default();
        for s in stats {
            t.add(s);
        }
        t
    }

    /// The totals a report carries now.
    pub fn of_report(local: &LocalBrokerData) -> Self {
        Self {
            msg_throughput_in: local.msg_throughput_in,
            msg_throughput_out: local.msg_throughput_out,
            msg_rate_in: local.msg_rate_in,
            msg_rate_out: local.msg_rate_out,
            topics: local.num_topics,
            consumers: local.num_consumers,
            producers: local.num_producers,
        }
    }

    /// One more bundle.
    pub fn add(&mut self, s: &NamespaceBundleStats) {
        self.msg_throughput_in += s.msg_throughput_in;
        self.msg_throughput_out += s.msg_throughput_out;
        self.msg_rate_in += s.msg_rate_in;
        self.msg_rate_out += s.msg_rate_out;
        self.topics = self.topics.saturating_add(s.topics);
        self.consumers = self.consumers.saturating_add(s.consumer_count);
        self.producers = self.producers.saturating_add(s.producer_count);
    }

    /// One bundle less, never below zero (a report whose totals were rounded or edited by hand may
    /// sum to less than one of its bundles).
    pub fn remove(&mut self, s: &NamespaceBundleStats) {
        self.msg_rate_in = (self.msg_rate_in - s.msg_rate_in).max(0.0);
        self.msg_rate_out = (self.msg_rate_out - s.msg_rate_out).max(0.0);
        self.msg_throughput_in = (self.msg_throughput_in - s.msg_throughput_in).max(0.0);
        self.msg_throughput_out = (self.msg_throughput_out - s.msg_throughput_out).max(0.0);
        self.topics = self.topics.saturating_sub(s.topics).max(0);
        self.consumers = self.consumers.saturating_sub(s.consumer_count).max(0);
        self.producers = self.producers.saturating_sub(s.producer_count).max(0);
    }

    pub fn total_msg_throughput(&self) -> f64 {
        self.msg_throughput_in + self.msg_throughput_out
    }

    /// Writes the totals into the report (its bundle list and `numBundles` are the caller's).
    pub fn write_to(self, local: &mut LocalBrokerData) {
        local.msg_throughput_in = self.msg_throughput_in;
        local.msg_throughput_out = self.msg_throughput_out;
        local.msg_rate_in = self.msg_rate_in;
        local.msg_rate_out = self.msg_rate_out;
        local.num_topics = self.topics;
        local.num_consumers = self.consumers;
        local.num_producers = self.producers;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(
        thr_in: f64,
        thr_out: f64,
        rate_in: f64,
        rate_out: f64,
        topics: i64,
    ) -> NamespaceBundleStats {
        NamespaceBundleStats {
            msg_throughput_in: thr_in,
            msg_throughput_out: thr_out,
            msg_rate_in: rate_in,
            msg_rate_out: rate_out,
            topics,
            consumer_count: topics * 2,
            producer_count: topics,
            cache_size: 0,
        }
    }

    #[test]
    fn a_report_sums_its_bundles_as_local_broker_data_update_does() {
        // LocalBrokerData.update(bundleStats): msgThroughputIn = Σ bundle msgThroughputIn, and so
        // on for every rate and count; numBundles = the number of bundles.
        let mut local = LocalBrokerData::default();
        local.set_last_stats(
            [
                (
                    "t/n/0x00000000_0x80000000",
                    stats(1000.0, 3000.0, 10.0, 30.0, 4),
                ),
                ("t/n/0x80000000_0xffffffff", stats(500.0, 0.25, 5.5, 0.0, 1)),
            ]
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect(),
        );
        assert_eq!(local.msg_throughput_in, 1500.0);
        assert_eq!(local.msg_throughput_out, 3000.25);
        assert_eq!(local.msg_rate_in, 15.5);
        assert_eq!(local.msg_rate_out, 30.0);
        assert_eq!(local.num_topics, 5);
        assert_eq!(local.num_consumers, 10);
        assert_eq!(local.num_producers, 5);
        assert_eq!(local.num_bundles, 2);
        // Taking the second bundle away leaves the first one's numbers; taking more than there
        // is stops at zero.
        let mut t = BundleStatsTotals::of_report(&local);
        t.remove(&stats(500.0, 0.25, 5.5, 0.0, 1));
        assert_eq!(
            t,
            BundleStatsTotals::of([&stats(1000.0, 3000.0, 10.0, 30.0, 4)])
        );
        t.remove(&stats(2000.0, 0.0, 0.0, 0.0, 9));
        assert_eq!((t.msg_throughput_in, t.topics, t.consumers), (0.0, 0, 0));
    }

    #[test]
    fn a_broker_like_another_keeps_its_limits_and_release_and_nothing_it_owns() {
        // A broker's report as the admin API prints it (`/admin/v2/broker-stats/load-report`).
        let text = r#"{"webServiceUrl":"http://broker-1:8080","pulsarServiceUrl":"pulsar://broker-1:6650",
            "persistentTopicsEnabled":true,"nonPersistentTopicsEnabled":false,
            "cpu":{"usage":312.5,"limit":800.0},"memory":{"usage":1800.0,"limit":4096.0},
            "directMemory":{"usage":900.0,"limit":4096.0},
            "bandwidthIn":{"usage":40000.0,"limit":1250000.0},"bandwidthOut":{"usage":52000.0,"limit":1250000.0},
            "msgRateIn":120.0,"numTopics":7,"bundles":["t/n/0x00000000_0x40000000"],
            "brokerVersionString":"3.0.7","loadManagerClassName":"org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl",
            "startTimestamp":1700000000000,"lastUpdate":1700000060000}"#;
        let like: LocalBrokerData = serde_json::from_str(text).unwrap();
        let new = like.empty_like();
        assert_eq!(new.cpu, ResourceUsage::new(0.0, 800.0));
        assert_eq!(new.memory, ResourceUsage::new(0.0, 4096.0));
        assert_eq!(new.bandwidth_out, ResourceUsage::new(0.0, 1_250_000.0));
        assert!(new.persistent_topics_enabled && !new.non_persistent_topics_enabled);
        assert_eq!(new.broker_version_string.as_deref(), Some("3.0.7"));
        assert_eq!(new.load_manager_class_name, like.load_manager_class_name);
        assert_eq!((new.web_service_url, new.pulsar_service_url), (None, None));
        assert!(new.bundles.is_empty() && new.num_topics == 0 && new.msg_rate_in == 0.0);
        assert_eq!((new.start_timestamp, new.last_update), (None, 0));
    }
}
