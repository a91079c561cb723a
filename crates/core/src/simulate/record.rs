//! Records a simulation as a series of snapshots: at each cycle, the leader's view just before it
//! sheds, written so that the plan's `load_data_from_snapshot` rebuilds that same view (the stored
//! `BundleData` is the leader's data before the cycle's samples, which the view applies once).

use std::collections::HashSet;

use indexmap::IndexMap;

use crate::model::{BrokerSnapshot, BundleData, Snapshot};

use super::cluster::SimCluster;

pub(crate) struct SeriesRecorder {
    /// The simulated snapshot's envelope (cluster, policies, domains) and effective `broker.conf`.
    base: Snapshot,
    pub snapshots: Vec<Snapshot>,
}

impl SeriesRecorder {
    /// `settings` are the run's overrides: the recorded `broker.conf` holds them, so a replay
    /// configured from the snapshots runs the simulated strategies.
    pub fn new(work: &Snapshot, settings: &[(String, String)]) -> Self {
        let mut base = Snapshot {
            format_version: work.format_version,
            cluster: work.cluster.clone(),
            leader_broker: work.leader_broker.clone(),
            broker_conf: work.broker_conf.clone(),
            failure_domains: work.failure_domains.clone(),
            namespace_isolation_policies: work.namespace_isolation_policies.clone(),
            // The cycle-0 view is the snapshot's stored data plus its reports' samples.
            bundle_data: work.bundle_data.clone(),
            ..Snapshot::default()
        };
        for (k, v) in settings {
            base.broker_conf.insert(k.clone(), v.clone());
        }
        Self {
            base,
            snapshots: Vec::new(),
        }
    }

    /// A `setConfig` event: later snapshots carry the new value.
    pub fn set(&mut self, key: &str, value: &str) {
        self.base
            .broker_conf
            .insert(key.to_string(), value.to_string());
    }

    /// The leader's view now; `before` is its `BundleData` before this cycle's samples (`None` at
    /// cycle 0, when the view is the snapshot's own).
    pub fn record(
        &mut self,
        cluster: &SimCluster,
        before: Option<&crate::modular::BundleDataMap>,
        now_ms: i64,
    ) {
        let mut brokers = IndexMap::with_capacity(cluster.data().brokers.len());
        let mut listed: HashSet<&str> = HashSet::new();
        for (id, b) in &cluster.data().brokers {
            listed.extend(b.local.bundles.iter().map(String::as_str));
            listed.extend(b.local.last_stats.keys().map(String::as_str));
            brokers.insert(
                id.clone(),
                BrokerSnapshot {
                    local_broker_data: b.local.clone(),
                    ..BrokerSnapshot::default()
                },
            );
        }
        // Sorted by namespace then range, as a snapshot's bundle data is.
        let keep = |(name, d): (&String, &BundleData)| {
            listed.contains(name.as_str()).then(|| (name.clone(), *d))
        };
        let mut bundle_data: IndexMap<String, BundleData> = match before {
            Some(stored) => stored.iter().filter_map(keep).collect(),
            None => self.base.bundle_data.iter().filter_map(keep).collect(),
        };
        bundle_data.sort_unstable_keys();
        let snapshot = Snapshot {
            captured_at_ms: Some(now_ms),
            brokers,
            bundle_data,
            namespaces: cluster.layout.namespaces.clone(),
            recently_unloaded_bundles: cluster.data().recently_unloaded.clone(),
            ..envelope(&self.base)
        };
        self.snapshots.push(snapshot);
    }
}

/// Everything but brokers, bundle data and namespaces.
fn envelope(s: &Snapshot) -> Snapshot {
    Snapshot {
        format_version: s.format_version,
        cluster: s.cluster.clone(),
        captured_at_ms: s.captured_at_ms,
        leader_broker: s.leader_broker.clone(),
        broker_conf: s.broker_conf.clone(),
        failure_domains: s.failure_domains.clone(),
        namespace_isolation_policies: s.namespace_isolation_policies.clone(),
        recently_unloaded_bundles: s.recently_unloaded_bundles.clone(),
        ..Snapshot::default()
    }
}
