//! Telling what an input is: first by where it sits in a metadata-store tree (`store_layout::locate`),
//! then by its shape (which keys a JSON object has, whether text lines are topics or `key=value`).

use serde_json::{Map, Value};

pub(crate) use super::store_layout::{Location, locate, segments};
use super::{broker_conf, broker_load_data, broker_report, cluster, policies, snapshot_file};

/// The file name without its last extension (`brokers/b1.json` → `b1`); broker ids such as
/// `10.0.0.1:8080` keep their dots because only known extensions are removed.
pub(crate) fn stem(path: &str) -> String {
    let last = segments(path).last().copied().unwrap_or("");
    for ext in [".json", ".txt", ".conf", ".properties"] {
        if let Some(s) = last.strip_suffix(ext) {
            return s.to_string();
        }
    }
    last.to_string()
}

/// The namespace a layout/policies file outside a metadata tree is for: `…/<tenant>/<ns>.json`, or
/// `…/<tenant>/<ns>/bundles.json` (also `policies`, `local-policies`).
pub(crate) fn namespace_from_path(path: &str) -> Option<String> {
    let segs = segments(path);
    let last = stem(path);
    let n = segs.len();
    let (tenant, ns) = if ["bundles", "policies", "local-policies"].contains(&last.as_str()) {
        (
            segs.get(n.checked_sub(3)?)?.to_string(),
            segs.get(n - 2)?.to_string(),
        )
    } else {
        (segs.get(n.checked_sub(2)?)?.to_string(), last)
    };
    let ok = |s: &str| !s.is_empty() && s != ".." && !s.contains(':');
    (ok(&tenant) && ok(&ns)).then(|| format!("{tenant}/{ns}"))
}

/// The bundle a `BundleData` file outside a metadata tree is for: the last three path segments.
pub(crate) fn bundle_from_path(path: &str) -> Option<String> {
    let segs = segments(path);
    let n = segs.len();
    let tail = segs.get(n.checked_sub(3)?..)?;
    let mut parts: Vec<String> = tail.iter().map(|s| s.to_string()).collect();
    if let Some(last) = parts.last_mut() {
        *last = stem(last);
    }
    Some(parts.join("/"))
}

/// The kinds of JSON objects recognised by shape.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(crate) enum Shape {
    Snapshot,
    LocalBrokerData,
    BrokerLookupData,
    BrokerLoadData,
    TopBundlesLoadData,
    BundleData,
    TimeAverageBrokerData,
    BundlesData,
    Policies,
    Leader,
    FailureDomain,
    IsolationPolicies,
    TopicList,
    /// SimpleLoadManagerImpl's `LoadReport` (`systemResourceUsage`, `bundleStats`, no
    /// `loadReportType` before 2.x added it): real, but not what the modular or extensible load
    /// manager reads.
    LegacyLoadReport,
    /// One `NamespaceIsolationData` (`pulsar-admin ns-isolation-policy get CLUSTER POLICY`).
    IsolationPolicy,
    /// `pulsar-admin brokers get-all-dynamic-config`: broker.conf keys → values as text.
    DynamicConfig,
    Unknown,
}

const BROKER_REPORT_KEYS: &[&str] = &[
    "loadReportType",
    "lastStats",
    "lastUpdate",
    "numBundles",
    "numTopics",
    "cpu",
    "msgRateIn",
    "brokerVersionString",
    "lastBundleGains",
];

pub(crate) fn shape(v: &Value) -> Shape {
    match v {
        Value::Array(items) if items.iter().all(Value::is_string) => Shape::TopicList,
        Value::Object(m) => object_shape(v, m),
        _ => Shape::Unknown,
    }
}

fn object_shape(v: &Value, m: &Map<String, Value>) -> Shape {
    let has = |k: &str| m.contains_key(k);
    if snapshot_file::is_snapshot(v) {
        Shape::Snapshot
    } else if has("topBundlesLoadData") {
        Shape::TopBundlesLoadData
    } else if broker_load_data::DISTINCTIVE.iter().any(|k| has(k)) {
        Shape::BrokerLoadData
    } else if has("systemResourceUsage") && !has("lastStats") {
        // Before the report check: a legacy LoadReport has `msgRateIn`, `numBundles` too.
        Shape::LegacyLoadReport
    } else if has("boundaries") && !has("lastStats") {
        // Before the report check: `BundlesData` shares `numBundles` with `LocalBrokerData`.
        Shape::BundlesData
    } else if BROKER_REPORT_KEYS.iter().any(|k| has(k))
        || m.get("bundles").is_some_and(Value::is_array)
    {
        Shape::LocalBrokerData
    } else if has("shortTermData") || has("longTermData") {
        Shape::BundleData
    } else if m
        .keys()
        .any(|k| k.starts_with("shortTermMsg") || k.starts_with("longTermMsg"))
    {
        Shape::TimeAverageBrokerData
    } else if policies::is_policies(m) {
        Shape::Policies
    } else if cluster::is_leader(m) {
        Shape::Leader
    } else if broker_report::is_lookup_data(m) {
        Shape::BrokerLookupData
    } else if m.len() == 1 && has("brokers") {
        Shape::FailureDomain
    } else if cluster::is_isolation_policies(m) {
        Shape::IsolationPolicies
    } else if cluster::is_isolation_policy(m) {
        Shape::IsolationPolicy
    } else if broker_conf::is_dynamic_config(m) {
        Shape::DynamicConfig
    } else {
        Shape::Unknown
    }
}

/// What we accept, for "unrecognised content" errors.
pub(crate) const ACCEPTED: &str = "a LocalBrokerData load report, BundleData, TimeAverageBrokerData, \
BundlesData, namespace Policies, BrokerLoadData, TopBundlesLoadData, a leader, failure domain or \
isolation policies node, a topic list, broker.conf, an lbplan snapshot, or a .zip/.tar.gz/.tar of a \
metadata-store tree";
