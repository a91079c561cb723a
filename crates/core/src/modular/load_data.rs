//! The leader's view of the cluster as strategies see it (`LoadData` / `BrokerData` in Pulsar).

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

use crate::model::{BundleData, LocalBrokerData, TimeAverageBrokerData};
use crate::naming::is_heartbeat_or_sla_namespace;

/// The leader's bundle data by full bundle name. Hashed with Fx, not SipHash: building the view
/// hashes all 200,000 names of a large cluster, and an `IndexMap`'s order is its insertion order
/// whatever its hasher, so no decision depends on it (the names are the user's own snapshot).
pub type BundleDataMap = IndexMap<String, BundleData, FxBuildHasher>;

/// `BrokerData`: a broker's own report, the leader's time averages and its preallocated bundles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BrokerData {
    pub local: LocalBrokerData,
    pub time_average: TimeAverageBrokerData,
    /// Bundles the leader assigned to this broker that its report does not show yet.
    pub preallocated: IndexMap<String, BundleData>,
}

/// `LoadData`: what `findBundlesForUnloading` and `selectBroker` receive.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadData {
    /// Live brokers by brokerId, in iteration order (only exact ties depend on it).
    pub brokers: IndexMap<String, BrokerData>,
    /// The leader's bundle data by full bundle name.
    pub bundle_data: BundleDataMap,
    /// Bundles unloaded recently: name → unload time (ms).
    pub recently_unloaded: IndexMap<String, i64>,
}

/// `getBundleDataForLoadShedding()`'s filter, `NamespaceService.isSLAOrHeartbeatNamespace`, as the
/// release decides it. Before PIP-457 (`pre_pip457`; apache/pulsar#25275 / #25304, 4.2.0 and
/// 5.0.0-M1) the patterns are `pulsar/[^/]+/([^:]+:\d+)`, `pulsar/([^:]+:\d+)` and
/// `sla-monitor/[^/]+/([^:]+:\d+)`: the SLA pattern needs the cluster segment, so a V2 name
/// `sla-monitor/<host:port>` is NOT hidden and its bundles can be shed. After PIP-457 the V2 forms
/// of both are hidden (the V1 forms are not, as the conformance vectors of master show).
pub fn hidden_from_shedding(namespace: &str, pre_pip457: bool) -> bool {
    if pre_pip457
        && let Some(rest) = namespace.strip_prefix("sla-monitor/")
        && !rest.contains('/')
    {
        return false;
    }
    is_heartbeat_or_sla_namespace(namespace, pre_pip457)
}

/// The namespace part of a full bundle name (text before the last `/`).
pub fn namespace_of_bundle(bundle: &str) -> &str {
    crate::naming::BundleName::namespace_of(bundle)
}

impl LoadData {
    /// `getBundleDataForLoadShedding()`: bundle data without heartbeat and SLA namespaces.
    pub fn bundle_data_for_shedding(
        &self,
        include_v1_names: bool,
    ) -> impl Iterator<Item = (&String, &BundleData)> {
        self.bundle_data.iter().filter(move |(name, _)| {
            !hidden_from_shedding(namespace_of_bundle(name), include_v1_names)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4.0's `SLA_NAMESPACE_PATTERN` is `sla-monitor/[^/]+/([^:]+:\d+)`: the V2 name does not match
    /// it, so 4.0 sheds its bundles; PIP-457 (4.2.0) hides it.
    #[test]
    fn v2_sla_names_are_shed_before_pip457_only() {
        assert!(!hidden_from_shedding("sla-monitor/10.0.0.1:8080", true));
        assert!(hidden_from_shedding("sla-monitor/10.0.0.1:8080", false));
        assert!(hidden_from_shedding("sla-monitor/use/10.0.0.1:8080", true));
        assert!(hidden_from_shedding("pulsar/10.0.0.1:8080", true));
        assert!(hidden_from_shedding("pulsar/use/10.0.0.1:8080", true));
        assert!(!hidden_from_shedding("pulsar/use/10.0.0.1:8080", false));
    }

    #[test]
    fn heartbeat_patterns() {
        assert!(is_heartbeat_or_sla_namespace("pulsar/10.0.0.1:8080", false));
        assert!(is_heartbeat_or_sla_namespace(
            "sla-monitor/broker-1.example:8080",
            false
        ));
        assert!(!is_heartbeat_or_sla_namespace("pulsar/system", false));
        assert!(!is_heartbeat_or_sla_namespace(
            "pulsar/c1/10.0.0.1:8080",
            false
        ));
        assert!(is_heartbeat_or_sla_namespace(
            "pulsar/c1/10.0.0.1:8080",
            true
        ));
        assert!(!is_heartbeat_or_sla_namespace("public/default", true));
    }
}
