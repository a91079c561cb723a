//! What a proposal may move and where: the same predicates Pulsar's leader applies, reused from
//! `modular` — heartbeat and SLA namespaces stay, `loadBalancerSheddingExcludedNamespaces` stay,
//! bundles inside the recently-unloaded grace stay, and a destination must pass the placement
//! pipeline's hard steps ([`allowed_destinations`]: isolation policies, anti-affinity groups with
//! failure domains, broker filters). Anti-affinity counts follow the proposal's own moves.

use std::collections::HashMap;
use std::rc::Rc;

use crate::config::LoadBalancerConfig;
use crate::model::Snapshot;
use crate::modular::LoadData;
use crate::modular::load_data::{is_heartbeat_or_sla_namespace, namespace_of_bundle};
use crate::modular::pipeline::{PlacementContext, allowed_destination_positions};
use crate::plan::driver::placement_context;
use crate::plan::leader_view::load_data_from_snapshot;

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

impl<'c> Constraints<'c> {
    pub fn new(snapshot: &Snapshot, cfg: &'c LoadBalancerConfig) -> Constraints<'c> {
        let data = load_data_from_snapshot(snapshot);
        let ctx = placement_context(snapshot, &data);
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
