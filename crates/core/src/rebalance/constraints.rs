//! What a proposal may move and where: the same predicates Pulsar's leader applies, reused from
//! `modular` — heartbeat and SLA namespaces stay, `loadBalancerSheddingExcludedNamespaces` stay,
//! bundles inside the recently-unloaded grace stay, and a destination must pass the placement
//! pipeline's hard steps ([`allowed_destinations`]: isolation policies, anti-affinity groups with
//! failure domains, broker filters). Anti-affinity counts follow the proposal's own moves.
//!
//! The placement checks read the brokers' reports (names, hosts, versions, load manager class),
//! the isolation policies, failure domains and anti-affinity groups, and which broker serves the
//! bundles of anti-affinity namespaces; never the other bundles nor their load. So the leader's
//! view they run on is built from [`placement_view`], the snapshot without those (on 200,000
//! bundles the full view cost a fifth of a proposal), through the same
//! `load_data_from_snapshot` and `placement_context` the planner uses.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use indexmap::IndexMap;

use crate::config::LoadBalancerConfig;
use crate::leader::context::placement_context;
use crate::leader::view::load_data_from_snapshot;
use crate::model::{BrokerSnapshot, LocalBrokerData, Snapshot};
use crate::modular::LoadData;
use crate::modular::load_data::namespace_of_bundle;
use crate::modular::pipeline::{PlacementContext, allowed_destination_positions};
use crate::naming::is_heartbeat_or_sla_namespace;

pub struct Constraints<'c> {
    cfg: &'c LoadBalancerConfig,
    data: LoadData,
    ctx: PlacementContext,
    /// Position in `data.brokers` → position in the ledger (the snapshot's broker order).
    positions: Vec<Option<usize>>,
    brokers: usize,
    /// Destinations per namespace without an anti-affinity group (they depend on nothing that moves).
    cache: HashMap<String, Rc<Vec<bool>>>,
    recently_unloaded: HashMap<String, i64>,
    grace_start_ms: i64,
}

/// Why a bundle must stay where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pinned {
    HeartbeatOrSla,
    ExcludedNamespace,
    RecentlyUnloaded,
}

impl Pinned {
    pub fn describe(self) -> &'static str {
        match self {
            Pinned::HeartbeatOrSla => "a broker's heartbeat or SLA-monitor namespace",
            Pinned::ExcludedNamespace => {
                "its namespace is in loadBalancerSheddingExcludedNamespaces"
            }
            Pinned::RecentlyUnloaded => "unloaded within loadBalancerSheddingGracePeriodMinutes",
        }
    }
}

/// A broker's report with only the bundles `keep` accepts (in `bundles` and `lastStats`), and no
/// gains or losses. Every field is named, so a field added to the report is a decision here.
fn report_with_bundles(l: &LocalBrokerData, keep: &dyn Fn(&str) -> bool) -> LocalBrokerData {
    LocalBrokerData {
        broker_id: l.broker_id.clone(),
        web_service_url: l.web_service_url.clone(),
        web_service_url_tls: l.web_service_url_tls.clone(),
        pulsar_service_url: l.pulsar_service_url.clone(),
        pulsar_service_url_tls: l.pulsar_service_url_tls.clone(),
        persistent_topics_enabled: l.persistent_topics_enabled,
        non_persistent_topics_enabled: l.non_persistent_topics_enabled,
        cpu: l.cpu,
        memory: l.memory,
        direct_memory: l.direct_memory,
        bandwidth_in: l.bandwidth_in,
        bandwidth_out: l.bandwidth_out,
        msg_throughput_in: l.msg_throughput_in,
        msg_throughput_out: l.msg_throughput_out,
        msg_rate_in: l.msg_rate_in,
        msg_rate_out: l.msg_rate_out,
        last_update: l.last_update,
        last_stats: l
            .last_stats
            .iter()
            .filter(|(b, _)| keep(b))
            .map(|(b, s)| (b.clone(), *s))
            .collect(),
        num_topics: l.num_topics,
        num_bundles: l.num_bundles,
        num_consumers: l.num_consumers,
        num_producers: l.num_producers,
        bundles: l.bundles.iter().filter(|b| keep(b)).cloned().collect(),
        last_bundle_gains: Vec::new(),
        last_bundle_losses: Vec::new(),
        broker_version_string: l.broker_version_string.clone(),
        load_manager_class_name: l.load_manager_class_name.clone(),
        start_timestamp: l.start_timestamp,
    }
}

/// What the placement checks read of `snapshot` (see the module doc): every broker's report with
/// only the bundles of anti-affinity namespaces, the anti-affinity namespaces, failure domains,
/// isolation policies, configuration and grace list; no bundle data.
pub fn placement_view(snapshot: &Snapshot) -> Snapshot {
    let grouped: HashSet<&str> = snapshot
        .namespaces
        .iter()
        .filter(|(_, n)| n.anti_affinity_group.is_some())
        .map(|(ns, _)| ns.as_str())
        .collect();
    let keep = |bundle: &str| grouped.contains(namespace_of_bundle(bundle));
    Snapshot {
        format_version: snapshot.format_version,
        cluster: snapshot.cluster.clone(),
        captured_at_ms: snapshot.captured_at_ms,
        leader_broker: snapshot.leader_broker.clone(),
        broker_conf: snapshot.broker_conf.clone(),
        brokers: snapshot
            .brokers
            .iter()
            .map(|(id, b)| {
                let view = BrokerSnapshot {
                    local_broker_data: report_with_bundles(&b.local_broker_data, &keep),
                    time_average_broker_data: b.time_average_broker_data,
                    broker_load_data: b.broker_load_data,
                    top_bundles_load_data: b.top_bundles_load_data.clone(),
                };
                (id.clone(), view)
            })
            .collect(),
        namespaces: snapshot
            .namespaces
            .iter()
            .filter(|(ns, _)| grouped.contains(ns.as_str()))
            .map(|(ns, n)| (ns.clone(), n.clone()))
            .collect(),
        failure_domains: snapshot.failure_domains.clone(),
        namespace_isolation_policies: snapshot.namespace_isolation_policies.clone(),
        recently_unloaded_bundles: snapshot.recently_unloaded_bundles.clone(),
        bundle_data: IndexMap::new(),
    }
}

impl<'c> Constraints<'c> {
    pub fn new(snapshot: &Snapshot, cfg: &'c LoadBalancerConfig) -> Constraints<'c> {
        let view = placement_view(snapshot);
        let data = load_data_from_snapshot(&view);
        let ctx = placement_context(&view, &data);
        let positions = data
            .brokers
            .keys()
            .map(|b| snapshot.brokers.get_index_of(b))
            .collect();
        let now = snapshot.captured_at_ms.unwrap_or(0);
        let grace_ms = cfg
            .load_balancer_shedding_grace_period_minutes
            .saturating_mul(60_000);
        Constraints {
            cfg,
            data,
            ctx,
            positions,
            brokers: snapshot.brokers.len(),
            cache: HashMap::new(),
            recently_unloaded: snapshot
                .recently_unloaded_bundles
                .iter()
                .map(|(b, at)| (b.clone(), *at))
                .collect(),
            grace_start_ms: now.saturating_sub(grace_ms),
        }
    }

    /// `Some` when the leader would never move the bundle (both heartbeat name forms count: a
    /// proposal must not move a broker's own namespace under any profile).
    pub fn pinned(&self, bundle: &str) -> Option<Pinned> {
        let ns = namespace_of_bundle(bundle);
        if is_heartbeat_or_sla_namespace(ns, true) {
            return Some(Pinned::HeartbeatOrSla);
        }
        if self
            .cfg
            .load_balancer_shedding_excluded_namespaces
            .iter()
            .any(|n| n == ns)
        {
            return Some(Pinned::ExcludedNamespace);
        }
        if self
            .recently_unloaded
            .get(bundle)
            .is_some_and(|at| *at >= self.grace_start_ms)
        {
            return Some(Pinned::RecentlyUnloaded);
        }
        None
    }

    /// The brokers placement would accept for `bundle` now, as a mask over broker positions.
    pub fn destinations(&mut self, bundle: &str) -> Rc<Vec<bool>> {
        let ns = namespace_of_bundle(bundle);
        let grouped = self
            .ctx
            .namespace_anti_affinity_groups
            .get(ns)
            .is_some_and(|g| !g.trim().is_empty());
        if !grouped && let Some(hit) = self.cache.get(ns) {
            return hit.clone();
        }
        let mut mask = vec![false; self.brokers];
        for p in allowed_destination_positions(bundle, &self.data, &self.ctx, self.cfg) {
            if let Some(slot) = self
                .positions
                .get(p)
                .copied()
                .flatten()
                .and_then(|i| mask.get_mut(i))
            {
                *slot = true;
            }
        }
        let mask = Rc::new(mask);
        if !grouped {
            self.cache.insert(ns.to_string(), mask.clone());
        }
        mask
    }

    /// Records a chosen move so later anti-affinity decisions see it.
    pub fn record_move(&mut self, bundle: &str, from: &str, to: &str) {
        self.ctx.remove_from_bundle_range_cache(from, bundle);
        self.ctx.add_to_bundle_range_cache(to, bundle);
    }

    pub fn overloaded_threshold(&self) -> f64 {
        self.cfg.overloaded_threshold_fraction()
    }
}
