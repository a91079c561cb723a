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
    let mut builder = NamespaceRowsBuilder::new(snapshot);
    while !builder.step(usize::MAX) {}
    builder.finish()
}

/// Builds [`namespace_rows`] a bounded piece at a time (the one way they are built), so a page can
/// build the rows of 200,000 bundles between its other tasks: each [`NamespaceRowsBuilder::step`]
/// reads at most `budget` bundles or namespaces.
pub struct NamespaceRowsBuilder<'a> {
    snapshot: &'a Snapshot,
    isolation: IsolationPolicies,
    topics_by_ns: HashMap<String, i64>,
    next_bundle: usize,
    next_namespace: usize,
    rows: Vec<NamespaceRow>,
    heartbeats: Vec<NamespaceRow>,
}

impl<'a> NamespaceRowsBuilder<'a> {
    pub fn new(snapshot: &'a Snapshot) -> Self {
        // A policy that does not compile governs nothing here; the plan reports it as a warning.
        let (isolation, _) = IsolationPolicies::compile(&snapshot.namespace_isolation_policies);
        NamespaceRowsBuilder {
            snapshot,
            isolation,
            topics_by_ns: HashMap::new(),
            next_bundle: 0,
            next_namespace: 0,
            rows: Vec::new(),
            heartbeats: Vec::new(),
        }
    }

    /// Reads at most `budget` bundles' `BundleData` or namespaces; `true` when [`Self::finish`] is
    /// next.
    pub fn step(&mut self, budget: usize) -> bool {
        let snapshot = self.snapshot;
        let mut left = budget.max(1);
        while let Some((name, data)) = snapshot.bundle_data.get_index(self.next_bundle) {
            if left == 0 {
                return false;
            }
            if let Ok(b) = parse_bundle_name(name) {
                let n = self.topics_by_ns.entry(b.namespace).or_default();
                *n = n.saturating_add(i64::from(data.topics));
            }
            self.next_bundle += 1;
            left -= 1;
        }
        while let Some((name, ns)) = snapshot.namespaces.get_index(self.next_namespace) {
            if left == 0 {
                return false;
            }
            let row = NamespaceRow {
                namespace: name.clone(),
                bundle_count: ns.bundles.num_bundles,
                topics: match &ns.topics {
                    Some(list) => i64::try_from(list.len()).unwrap_or(i64::MAX),
                    None => self.topics_by_ns.get(name).copied().unwrap_or(0),
                },
                heartbeat: is_sla_or_heartbeat_namespace(name),
                isolation_policy: self
                    .isolation
                    .namespace_policy(name)
                    .map(|p| p.name().to_string()),
                anti_affinity_group: ns.anti_affinity_group.clone(),
            };
            if row.heartbeat {
                self.heartbeats.push(row);
            } else {
                self.rows.push(row);
            }
            self.next_namespace += 1;
            left -= 1;
        }
        true
    }

    /// The rows, once [`Self::step`] said they are all read.
    pub fn finish(self) -> Vec<NamespaceRow> {
        let mut rows = self.rows;
        rows.extend(self.heartbeats);
        rows
    }
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
        // Built one bundle or namespace per step: the same rows.
        let mut b = NamespaceRowsBuilder::new(&s);
        let mut steps = 1;
        while !b.step(1) {
            steps += 1;
        }
        assert_eq!(steps, 2 + 4);
        assert_eq!(b.finish(), rows);
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
