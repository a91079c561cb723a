//! Pulsar's load-balancing data, with Pulsar's JSON field names and units (§2 of the reference).
//!
//! These types are the vocabulary of every strategy. They derive serde with Pulsar's camelCase names
//! so that a report exported from a cluster and our snapshot file carry the same objects verbatim.

mod broker_load_data;
mod bundle_data;
mod bundle_stats;
pub mod fingerprint;
mod local_broker_data;
mod resource_usage;
mod snapshot;
mod time_average_broker_data;

pub use broker_load_data::{BrokerLoadData, BrokerLoadSample, TopBundle, TopBundlesLoadData};
pub use bundle_data::{BundleData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, TimeAverageMessageData};
pub use bundle_stats::NamespaceBundleStats;
pub use local_broker_data::{BundleStatsTotals, LocalBrokerData};
pub use resource_usage::{ResourceUsage, SystemResourceUsage};
pub use snapshot::{
    AutoFailoverPolicy, BrokerSnapshot, BundlesData, NamespaceIsolationPolicy, NamespaceSnapshot,
    SNAPSHOT_FORMAT_VERSION, Snapshot,
};
pub use time_average_broker_data::TimeAverageBrokerData;
