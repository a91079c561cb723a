//! The namespaces list: one row per namespace with its bundle count, topic count, the isolation policy
//! placement follows for it and its anti-affinity group; tenants' namespaces first, brokers' own
//! (heartbeat and SLA-monitor) namespaces last.

use std::collections::HashMap;

use crate::isolation::IsolationPolicies;
use crate::model::Snapshot;
use crate::naming::{is_sla_or_heartbeat_namespace, parse_bundle_name};

/// One row of the namespaces list.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceRow {
    pub namespace: String,
    pub bundle_count: i32,
    /// The exported topic list's length; without one, the sum of the bundles' `BundleData.topics`.
    pub topics: i64,
    /// A broker's heartbeat or SLA-monitor namespace (`NamespaceService.isSLAOrHeartbeatNamespace`).
    pub heartbeat: bool,
    /// The isolation policy that governs it (first match, as Pulsar looks it up).
    pub isolation_policy: Option<String>,
    pub anti_affinity_group: Option<String>,
}

/// The rows in the snapshot's namespace order, heartbeat and SLA-monitor namespaces moved last.
pub fn namespace_rows(snapshot: &Snapshot) -> Vec<NamespaceRow> {
    // A policy that does not compile governs nothing here; the plan reports it as a warning.
    let (isolation, _) = IsolationPolicies::compile(&snapshot.namespace_isolation_policies);
    let mut topics_by_ns: HashMap<String, i64> = HashMap::new();
    for (name, data) in &snapshot.bundle_data {
        if let Ok(b) = parse_bundle_name(name) {
            let n = topics_by_ns.entry(b.namespace).or_default();
            *n = n.saturating_add(i64::from(data.topics));
        }
    }
    let (mut rows, heartbeats): (Vec<NamespaceRow>, Vec<NamespaceRow>) = snapshot
        .namespaces
        .iter()
        .map(|(name, ns)| NamespaceRow {
            namespace: name.clone(),
            bundle_count: ns.bundles.num_bundles,
            topics: match &ns.topics {
                Some(list) => i64::try_from(list.len()).unwrap_or(i64::MAX),
                None => topics_by_ns.get(name).copied().unwrap_or(0),
            },
            heartbeat: is_sla_or_heartbeat_namespace(name),
            isolation_policy: isolation
                .namespace_policy(name)
                .map(|p| p.name().to_string()),
            anti_affinity_group: ns.anti_affinity_group.clone(),
        })
        .partition(|r| !r.heartbeat);
    rows.extend(heartbeats);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        AutoFailoverPolicy, BundleData, BundlesData, NamespaceIsolationPolicy, NamespaceSnapshot,
    };

    fn namespace(bundles: i32, topics: Option<Vec<&str>>) -> NamespaceSnapshot {
        NamespaceSnapshot {
            bundles: BundlesData {
                boundaries: Vec::new(),
                num_bundles: bundles,
            },
            topics: topics.map(|t| t.into_iter().map(str::to_string).collect()),
            ..NamespaceSnapshot::default()
        }
    }

    fn bundle(topics: i32) -> BundleData {
        BundleData {
            topics,
            ..BundleData::default()
        }
    }

    fn policy(namespaces: &str) -> NamespaceIsolationPolicy {
        NamespaceIsolationPolicy {
            namespaces: vec![namespaces.to_string()],
            primary: vec!["broker-1.*".to_string()],
            secondary: Vec::new(),
            auto_failover_policy: Some(AutoFailoverPolicy {
                policy_type: "min_available".to_string(),
                parameters: [("min_limit", "1"), ("usage_threshold", "80")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
        }
    }

    #[test]
    fn rows_count_topics_find_policies_and_put_broker_namespaces_last() {
        let mut s = Snapshot::default();
        s.namespaces
            .insert("pulsar/10.0.0.1:8080".into(), namespace(1, None));
        s.namespaces.insert(
            "public/default".into(),
            namespace(
                4,
                Some(vec![
                    "persistent://public/default/a",
                    "persistent://public/default/b",
                ]),
            ),
        );
        let mut tenant = namespace(2, None);
        tenant.anti_affinity_group = Some("group-a".into());
        s.namespaces.insert("t/ns".into(), tenant);
        s.namespaces
            .insert("sla-monitor/use/10.0.0.1:8080".into(), namespace(1, None));
        s.bundle_data
            .insert("t/ns/0x00000000_0x80000000".into(), bundle(3));
        s.bundle_data
            .insert("t/ns/0x80000000_0xffffffff".into(), bundle(4));
        // Java full match on `tenant/ns`: `t/.*` governs t/ns, not public/default.
        s.namespace_isolation_policies
            .insert("iso-t".into(), policy("t/.*"));

        let rows = namespace_rows(&s);
        // (namespace, bundles, topics, heartbeat, isolation policy, anti-affinity group)
        type Row<'a> = (&'a str, i32, i64, bool, Option<&'a str>, Option<&'a str>);
        let summary: Vec<Row> = rows
            .iter()
            .map(|r| {
                (
                    r.namespace.as_str(),
                    r.bundle_count,
                    r.topics,
                    r.heartbeat,
                    r.isolation_policy.as_deref(),
                    r.anti_affinity_group.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("public/default", 4, 2, false, None, None),
                ("t/ns", 2, 7, false, Some("iso-t"), Some("group-a")),
                ("pulsar/10.0.0.1:8080", 1, 0, true, None, None),
                ("sla-monitor/use/10.0.0.1:8080", 1, 0, true, None, None),
            ]
        );
    }
}
