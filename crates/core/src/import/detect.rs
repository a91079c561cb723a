//! Telling what an input is: first by where it sits in a metadata-store tree
//! (`loadbalance/brokers/<broker>`, `admin/local-policies/<tenant>/<ns>`, …), then by its shape (which
//! keys a JSON object has, whether text lines are topics or `key=value`).

use serde_json::{Map, Value};

use super::{broker_conf, broker_load_data, broker_report, cluster, policies, snapshot_file};

/// A metadata-store location recognised in a path.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Location {
    /// `loadbalance/brokers/<brokerId>`.
    Broker(String),
    /// `loadbalance/bundle-data/<tenant>/<ns>/<range>` (the full bundle name).
    BundleData(String),
    /// `loadbalance/broker-time-average/<brokerId>`.
    TimeAverage(String),
    /// `loadbalance/leader`.
    Leader,
    /// `admin/policies/<tenant>/<ns>`.
    Policies(String),
    /// `admin/local-policies/<tenant>/<ns>`.
    LocalPolicies(String),
    /// `admin/clusters/<cluster>/failureDomain/<domain>`.
    FailureDomain { cluster: String, domain: String },
    /// `admin/clusters/<cluster>/namespaceIsolationPolicies`.
    IsolationPolicies { cluster: String },
    /// Some other node under `loadbalance/` or `admin/` (not used by load balancing).
    OtherMetadata,
    /// Not a metadata-store path.
    None,
}

/// Path segments, with `\` as a separator too and `.`/empty segments dropped.
pub(crate) fn segments(path: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(8);
    out.extend(
        path.split(['/', '\\'])
            .filter(|s| !s.is_empty() && *s != "."),
    );
    out
}

/// A node name without the `.json` a dump tool may have added.
pub(crate) fn node_name(seg: &str) -> &str {
    seg.strip_suffix(".json").unwrap_or(seg)
}

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

pub(crate) fn locate(path: &str) -> Location {
    let segs = segments(path);
    let mut other = false;
    for (i, seg) in segs.iter().enumerate() {
        let rest = segs.get(i + 1..).unwrap_or(&[]);
        match (*seg, rest) {
            ("loadbalance", ["brokers", id]) => return Location::Broker(node_name(id).to_string()),
            ("loadbalance", ["broker-time-average", id]) => {
                return Location::TimeAverage(node_name(id).to_string());
            }
            ("loadbalance", ["leader"]) | ("loadbalance", ["leader.json"]) => {
                return Location::Leader;
            }
            ("loadbalance", ["bundle-data", ns @ .., range]) if (2..=3).contains(&ns.len()) => {
                // One allocation (this runs once per bundle of a dump).
                let mut name = String::with_capacity(path.len());
                for part in ns {
                    name.push_str(part);
                    name.push('/');
                }
                name.push_str(node_name(range));
                return Location::BundleData(name);
            }
            ("admin", ["policies", ns @ ..]) if (2..=3).contains(&ns.len()) => {
                return Location::Policies(namespace_of(ns));
            }
            ("admin", ["local-policies", ns @ ..]) if (2..=3).contains(&ns.len()) => {
                return Location::LocalPolicies(namespace_of(ns));
            }
            ("admin", ["clusters", c, "failureDomain", d]) => {
                return Location::FailureDomain {
                    cluster: c.to_string(),
                    domain: node_name(d).to_string(),
                };
            }
            ("admin", ["clusters", c, iso]) if node_name(iso) == "namespaceIsolationPolicies" => {
                return Location::IsolationPolicies {
                    cluster: c.to_string(),
                };
            }
            ("loadbalance" | "admin", [_, ..]) => other = true,
            _ => {}
        }
    }
    if other {
        Location::OtherMetadata
    } else {
        Location::None
    }
}

fn namespace_of(parts: &[&str]) -> String {
    let mut out: Vec<&str> = parts.to_vec();
    if let Some(last) = out.last_mut() {
        *last = node_name(last);
    }
    out.join("/")
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
