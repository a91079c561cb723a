//! The project's own snapshot: everything the leader would know about a cluster at one instant.
//!
//! The envelope is ours (snake_case, versioned by `format_version`); the Pulsar objects inside it
//! (`LocalBrokerData`, `BundleData`, `TimeAverageBrokerData`, `BrokerLoadData`, `TopBundlesLoadData`,
//! `BundlesData`) are embedded verbatim with Pulsar's field names. Documented in `docs/snapshot-format.md`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{
    BrokerLoadData, BundleData, LocalBrokerData, TimeAverageBrokerData, TopBundlesLoadData,
};

/// Version of the snapshot file format written by this crate.
pub const SNAPSHOT_FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Snapshot {
    pub format_version: u32,
    /// Cluster name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// When the data was captured (ms since epoch), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured_at_ms: Option<i64>,
    /// The leader broker (`/loadbalance/leader`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_broker: Option<String>,
    /// Effective `broker.conf` values as text, keys verbatim (only what differs from the profile's
    /// defaults needs to be here).
    pub broker_conf: IndexMap<String, String>,
    /// Live brokers by brokerId (`host:port`), sorted by name.
    pub brokers: IndexMap<String, BrokerSnapshot>,
    /// The leader's `BundleData` by full bundle name (`tenant/ns/0x…_0x…`), sorted by namespace then
    /// range. Every bundle a broker reports has an entry (Pulsar's defaults when none was stored).
    pub bundle_data: IndexMap<String, BundleData>,
    /// Namespaces (`tenant/ns`) with their bundle layout and policies, sorted by name.
    pub namespaces: IndexMap<String, NamespaceSnapshot>,
    /// Failure domains: domain name → brokerIds (`/admin/clusters/<cluster>/failureDomain/<domain>`).
    pub failure_domains: IndexMap<String, Vec<String>>,
    /// Namespace isolation policies by policy name
    /// (`/admin/clusters/<cluster>/namespaceIsolationPolicies`).
    pub namespace_isolation_policies: IndexMap<String, NamespaceIsolationPolicy>,
    /// Bundles the leader unloaded recently: name → unload time (ms).
    pub recently_unloaded_bundles: IndexMap<String, i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrokerSnapshot {
    /// The broker's own report (modular load manager).
    pub local_broker_data: LocalBrokerData,
    /// The leader's aggregate for this broker; recomputed from `bundle_data` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_average_broker_data: Option<TimeAverageBrokerData>,
    /// Extensible load manager: the broker's published load data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker_load_data: Option<BrokerLoadData>,
    /// Extensible load manager: the broker's published top bundles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_bundles_load_data: Option<TopBundlesLoadData>,
}

/// `BundlesData` as Pulsar writes it: lower-case `0x%08x` boundaries and their count minus one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BundlesData {
    pub boundaries: Vec<String>,
    pub num_bundles: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NamespaceSnapshot {
    /// The bundle layout (`LocalPolicies.bundles`).
    pub bundles: BundlesData,
    /// `namespaceAntiAffinityGroup` of the namespace's policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anti_affinity_group: Option<String>,
    /// Topic names of the namespace (full names), when exported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<String>>,
}

/// `NamespaceIsolationData` as Pulsar stores it (snake_case names verbatim): which brokers (regexes)
/// serve which namespaces (regexes), and when to fail over to the secondaries.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NamespaceIsolationPolicy {
    pub namespaces: Vec<String>,
    pub primary: Vec<String>,
    pub secondary: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_failover_policy: Option<AutoFailoverPolicy>,
}

/// `AutoFailoverPolicyData`: `policy_type` (`min_available`) and its text parameters
/// (`min_limit`, `usage_threshold`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoFailoverPolicy {
    pub policy_type: String,
    pub parameters: IndexMap<String, String>,
}
