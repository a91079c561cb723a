//! The inputs the modular `shedding` and `placement` vectors share, as serde-derived types: a
//! broker's report (`LocalBrokerData` fields, `lastStats`, the leader's `timeAverage` and
//! `preallocated`), a `BundleData` with optional windows, and `recentlyUnloadedBundles`. Each kind
//! turns them into model types itself, because the two oracles fill missing values differently.

use indexmap::IndexMap;
use serde::Deserialize;

use super::json::{Int, ListOrMap, Long, SameOr};
use crate::model::{
    LocalBrokerData, NamespaceBundleStats, ResourceUsage, TimeAverageBrokerData,
    TimeAverageMessageData,
};

/// One broker of a cycle. Resources are `{usage, limit}` (missing = 0 %), rates missing = 0.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BrokerInput {
    pub name: String,
    pub cpu: Option<ResourceUsage>,
    pub memory: Option<ResourceUsage>,
    pub direct_memory: Option<ResourceUsage>,
    pub bandwidth_in: Option<ResourceUsage>,
    pub bandwidth_out: Option<ResourceUsage>,
    pub msg_rate_in: Option<f64>,
    pub msg_rate_out: Option<f64>,
    pub msg_throughput_in: Option<f64>,
    pub msg_throughput_out: Option<f64>,
    pub num_topics: Option<Long>,
    pub bundles: Option<Vec<String>>,
    pub last_stats: Option<IndexMap<String, NamespaceBundleStats>>,
    pub time_average: Option<TimeAverageBrokerData>,
    /// Bundle → its `BundleData`, or `""` for the cycle's entry of that bundle.
    pub preallocated: Option<IndexMap<String, SameOr<BundleDataInput>>>,
    pub load_manager_class_name: Option<String>,
    pub broker_version_string: Option<String>,
    pub persistent_topics_enabled: Option<bool>,
    pub non_persistent_topics_enabled: Option<bool>,
}

impl BrokerInput {
    /// The report's resources and message rates; everything else at its default.
    pub fn usage_and_rates(&self) -> LocalBrokerData {
        LocalBrokerData {
            cpu: self.cpu.unwrap_or_default(),
            memory: self.memory.unwrap_or_default(),
            direct_memory: self.direct_memory.unwrap_or_default(),
            bandwidth_in: self.bandwidth_in.unwrap_or_default(),
            bandwidth_out: self.bandwidth_out.unwrap_or_default(),
            msg_rate_in: self.msg_rate_in.unwrap_or(0.0),
            msg_rate_out: self.msg_rate_out.unwrap_or(0.0),
            msg_throughput_in: self.msg_throughput_in.unwrap_or(0.0),
            msg_throughput_out: self.msg_throughput_out.unwrap_or(0.0),
            ..LocalBrokerData::default()
        }
    }
}

/// A `BundleData` as the vectors write it: either window may be missing, and so may any field.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BundleDataInput {
    pub short_term_data: Option<WindowInput>,
    pub long_term_data: Option<WindowInput>,
    pub topics: Option<Int>,
}

/// A `TimeAverageMessageData` with every field optional.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WindowInput {
    pub max_samples: Option<Int>,
    pub num_samples: Option<Int>,
    pub msg_throughput_in: Option<f64>,
    pub msg_throughput_out: Option<f64>,
    pub msg_rate_in: Option<f64>,
    pub msg_rate_out: Option<f64>,
}

impl WindowInput {
    /// The window with `max_samples` and `num_samples` defaulted as the caller's oracle did; rates
    /// missing = 0.
    pub fn with(
        &self,
        max_samples: i32,
        num_samples: impl Fn(i32) -> i32,
    ) -> TimeAverageMessageData {
        let max_samples = self.max_samples.map_or(max_samples, |n| n.0);
        TimeAverageMessageData {
            max_samples,
            num_samples: self.num_samples.map_or(num_samples(max_samples), |n| n.0),
            msg_throughput_in: self.msg_throughput_in.unwrap_or(0.0),
            msg_throughput_out: self.msg_throughput_out.unwrap_or(0.0),
            msg_rate_in: self.msg_rate_in.unwrap_or(0.0),
            msg_rate_out: self.msg_rate_out.unwrap_or(0.0),
        }
    }
}

/// `recentlyUnloadedBundles`: a list of names (unloaded at time 0) or name → unload time (ms).
pub(super) type RecentlyUnloaded = ListOrMap<Vec<String>, IndexMap<String, Long>>;

/// `recentlyUnloadedBundles` as the leader's map (name → ms).
pub(super) fn recently_unloaded(r: Option<&RecentlyUnloaded>) -> IndexMap<String, i64> {
    match r {
        None => IndexMap::new(),
        Some(ListOrMap::List(names)) => names.iter().map(|n| (n.clone(), 0)).collect(),
        Some(ListOrMap::Map(times)) => times.iter().map(|(n, t)| (n.clone(), t.0)).collect(),
    }
}
