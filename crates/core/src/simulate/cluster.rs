//! The simulated cluster: who owns which bundle, the traffic and work each bundle carries this
//! cycle (the one load model's, `crate::load`: a bundle's work estimated once from its owner's
//! report and scaled with its traffic), each broker's idle baseline, and the leader's `LoadData` /
//! `PlacementContext`, all kept up to date
//! incrementally (reports are rewritten in place each cycle instead of rebuilding `LoadData` from
//! a snapshot, which is what makes 1,000 cycles on 10,000 bundles cheap).
//!
//! The leader's first view is the plan's, built by the plan's own code from the snapshot's reports
//! as they are (a report without `lastStats` stays without), so the first cycle decides what the
//! plan decides. A broker's report becomes the load model's the first time it is rewritten.

use std::collections::HashMap;

use indexmap::IndexMap;

use crate::leader::memory::{LeaderMemory, Tick};
use crate::leader::splitter_task::{SplitHost, long_term_of};
use crate::leader::state::LeaderState;
use crate::load::bundle_load::{BundleLoad, bundle_load, owner_work_of};
use crate::load::{Amounts, LoadModel};
use crate::model::{
    BundleData, BundleStatsTotals, LocalBrokerData, NamespaceBundleStats, ResourceUsage, Snapshot,
    TimeAverageBrokerData,
};
use crate::modular::LoadData;
use crate::modular::pipeline::{PipelineTrace, PlacementContext};
use crate::naming::BundleName;
use crate::plan::splits::{apply_split, compute_split};
use crate::split::SplitResult;

use super::load_model::{HeapCurve, bundle_factor, global_factor, name_key, scaled};
use super::scenario::{LoadSpec, SpikeTarget};

/// A bundle of the simulation (tombstoned, not removed, when split so indices stay valid).
#[derive(Clone, Debug)]
pub(crate) struct SimBundle {
    pub name: String,
    /// Traffic at factor 1 (the snapshot's report, or the parent's share after a split).
    pub base: NamespaceBundleStats,
    pub key: u64,
    /// Indices of the scenario's spikes this bundle belongs to.
    pub spikes: Vec<usize>,
    pub owner: Option<usize>,
    /// Traffic this cycle.
    pub current: NamespaceBundleStats,
    /// Work at factor 1 (the one load model's estimate on its snapshot owner, CPU divided by that
    /// broker's cost factor), and this cycle's (scaled with the traffic).
    pub base_work: Amounts,
    pub work: Amounts,
    pub alive: bool,
    /// Position in `LoadData::bundle_data` once its owner's report is the model's (before that the
    /// leader may have no data for it: `usize::MAX`, which finds nothing).
    pub data_pos: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct SimBroker {
    pub id: String,
    pub live: bool,
    /// Owned bundle indices, in the order of the report's `bundles` and `lastStats`.
    pub owned: Vec<usize>,
    /// Usage none of its bundles explains (the one load model's idle baseline).
    pub baseline: Amounts,
    /// Its CPU cost factor (`LoadSpec::cpu_cost_factors`, 1 by default).
    pub cpu_factor: f64,
    pub heap: Option<HeapCurve>,
    /// Limits and static fields of the report (usages are recomputed).
    pub template: LocalBrokerData,
    /// Position in `LoadData::brokers` while live.
    pub data_pos: usize,
    /// Its report in `LoadData` is still the snapshot's (lists not aligned with `owned`).
    pub verbatim: bool,
}

pub(crate) struct SimCluster {
    pub bundles: Vec<SimBundle>,
    pub bundle_index: HashMap<String, usize>,
    pub brokers: Vec<SimBroker>,
    /// brokerId → index in `brokers`.
    broker_index: HashMap<String, usize>,
    /// Brokers went down or came up since the last [`SimCluster::settle_membership`]: the
    /// leader's broker list still holds the ones that went down, unsorted after ones that came up.
    membership: MembershipChange,
    /// The leader's view: a [`LeaderState`] built as a plan's (`LeaderState::new`), edited in place
    /// by the cluster as reports, moves, splits and brokers come and go (never `update`d from a
    /// snapshot, which the simulation does not make).
    leader: LeaderState,
    /// The leader's placement context, lent by `leader` for the whole run: a live leader keeps
    /// its round-robin selector, candidate cache and preallocations between cycles.
    pub ctx: PlacementContext,
    /// Namespaces only (layouts and topics), for split computations.
    pub layout: Snapshot,
}

/// Membership changes waiting to be applied to the leader's broker list, so that a batch of events
/// costs one pass over it instead of one per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MembershipChange {
    pub went_down: bool,
    pub came_up: bool,
    /// Passes over the broker list so far (what a batch of events costs).
    pub settle_passes: u64,
}

impl SimCluster {
    /// The leader's `LoadData`.
    pub fn data(&self) -> &LoadData {
        self.leader.data()
    }

    /// The leader's `LoadData` and placement context, for a cycle or a placement.
    pub fn view_mut(&mut self) -> (&mut LoadData, &mut PlacementContext) {
        (self.leader.data_mut(), &mut self.ctx)
    }

    /// The cluster at the snapshot, and a warning (naming the scenario's JSON path) for each spike
    /// target that selects no bundle of it.
    pub fn from_snapshot(snapshot: &Snapshot, load: &LoadSpec, seed: u64) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let mut bundles: Vec<SimBundle> = Vec::new();
        let mut bundle_index: HashMap<String, usize> = HashMap::new();
        let mut brokers: Vec<SimBroker> = Vec::new();
        let mut leader = LeaderState::new(snapshot);
        let data = leader.data();
        let model: LoadModel = load.model();
        for (bi, (id, b)) in snapshot.brokers.iter().enumerate() {
            let local = &b.local_broker_data;
            let names = local.bundles.iter().chain(
                local
                    .last_stats
                    .keys()
                    .filter(|k| !local.bundles.contains(k)),
            );
            let mut owned = Vec::new();
            for name in names {
                if bundle_index.contains_key(name) {
                    continue; // reported by an earlier broker too: the first owner keeps it
                }
                let base = bundle_load(snapshot, id, name).stats;
                let idx = bundles.len();
                bundle_index.insert(name.clone(), idx);
                bundles.push(SimBundle {
                    name: name.clone(),
                    base,
                    key: name_key(name),
                    spikes: Vec::new(),
                    owner: Some(bi),
                    current: base,
                    base_work: [0.0; 5],
                    work: [0.0; 5],
                    alive: true,
                    data_pos: data
                        .bundle_data
                        .get_index_of(name.as_str())
                        .unwrap_or(usize::MAX),
                });
                owned.push(idx);
            }
            // The one load model's split of the report: baseline and each owned bundle's work.
            let loads = owned
                .iter()
                .filter_map(|&i| bundles.get(i))
                .map(|b| (b.name.clone(), BundleLoad { stats: b.base }))
                .collect();
            let split = owner_work_of(id, local, loads, &model);
            let cpu_factor = model.cpu_factor(id);
            for (&i, w) in owned.iter().zip(&split.bundles) {
                if let Some(b) = bundles.get_mut(i) {
                    let mut work = w.work;
                    work[0] /= cpu_factor;
                    b.base_work = work;
                    b.work = work;
                }
            }
            let mut template = local.clone();
            template.bundles.clear();
            template.last_stats.clear();
            template.last_bundle_gains.clear();
            template.last_bundle_losses.clear();
            brokers.push(SimBroker {
                id: id.clone(),
                live: true,
                owned,
                baseline: split.estimate.baseline,
                cpu_factor,
                heap: load
                    .heap
                    .as_ref()
                    .map(|h| HeapCurve::for_broker(h, seed, id)),
                template,
                data_pos: bi,
                verbatim: true,
            });
        }
        // Spikes: membership resolved once, on the initial bundles.
        for (si, spike) in load.spikes.iter().enumerate() {
            let path = format!("$.load.spikes[{si}]");
            match &spike.target {
                SpikeTarget::Bundles(names) => {
                    for (k, n) in names.iter().enumerate() {
                        match bundle_index.get(n).and_then(|&i| bundles.get_mut(i)) {
                            Some(b) => b.spikes.push(si),
                            None => warnings.push(format!(
                                "{path}.bundles[{k}]: no broker of the snapshot owns bundle `{n}`: the spike leaves it out"
                            )),
                        }
                    }
                }
                SpikeTarget::Namespace(ns) => {
                    let mut found = false;
                    for b in bundles.iter_mut() {
                        if BundleName::namespace_of(&b.name) == ns {
                            b.spikes.push(si);
                            found = true;
                        }
                    }
                    if !found {
                        warnings.push(format!(
                            "{path}.namespace: no broker of the snapshot owns a bundle of `{ns}`: the spike changes nothing"
                        ));
                    }
                }
                SpikeTarget::TopBundles(n) => {
                    if *n == 0 || bundles.is_empty() {
                        warnings.push(format!(
                            "{path}.top_bundles: {n} of {} bundles selects none: the spike changes nothing",
                            bundles.len()
                        ));
                    }
                    let mut order: Vec<usize> = (0..bundles.len()).collect();
                    order.sort_by(|&a, &b| {
                        let t = |i: usize| {
                            bundles
                                .get(i)
                                .map_or(0.0, |x| x.base.total_msg_throughput())
                        };
                        t(b).total_cmp(&t(a)).then(a.cmp(&b))
                    });
                    for i in order.into_iter().take(*n as usize) {
                        if let Some(b) = bundles.get_mut(i) {
                            b.spikes.push(si);
                        }
                    }
                }
            }
        }
        let ctx = leader.take_context();
        let layout = Snapshot {
            namespaces: snapshot.namespaces.clone(),
            ..Snapshot::default()
        };
        let broker_index = brokers
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id.clone(), i))
            .collect();
        let cluster = Self {
            bundles,
            bundle_index,
            brokers,
            broker_index,
            membership: MembershipChange::default(),
            leader,
            ctx,
            layout,
        };
        (cluster, warnings)
    }

    /// Sets every live bundle's traffic for `cycle`.
    pub fn set_traffic(&mut self, load: &LoadSpec, seed: u64, cycle: u32, interval_minutes: f64) {
        let global = global_factor(load, cycle, interval_minutes);
        for b in self.bundles.iter_mut().filter(|b| b.alive) {
            let f = global * bundle_factor(load, &b.spikes, seed, b.key, cycle);
            b.current = scaled(&b.base, f);
            b.work = b.base_work.map(|w| w * f);
        }
    }

    /// Every live broker writes its report and the leader folds each bundle's sample into its
    /// `BundleData` (`updateAll`); time averages are recomputed, preallocations forgotten.
    pub fn publish_reports(&mut self, cycle: u32, now_ms: i64) {
        for bi in 0..self.brokers.len() {
            if self.brokers.get(bi).is_some_and(|b| b.live) {
                self.write_report(bi, cycle, now_ms, true);
            }
        }
        self.ctx.preallocated.clear();
    }

    /// Makes a broker's report the model's: `bundles` and `lastStats` list what it owns, in
    /// `owned` order, and every owned bundle has leader data (Pulsar's defaults for one the leader
    /// has never seen, as `updateBundleData` gives it) at a known position.
    fn adopt_model_report(&mut self, bi: usize) {
        let Some(broker) = self.brokers.get_mut(bi) else {
            return;
        };
        if !broker.verbatim || !broker.live {
            return;
        }
        broker.verbatim = false;
        let data = self.leader.data_mut();
        let Some((_, bd)) = data.brokers.get_index_mut(broker.data_pos) else {
            return;
        };
        let local = &mut bd.local;
        let before = std::mem::take(&mut local.bundles);
        local.last_stats.clear();
        for &idx in &broker.owned {
            let Some(sb) = self.bundles.get_mut(idx) else {
                continue;
            };
            local.bundles.push(sb.name.clone());
            local.last_stats.insert(sb.name.clone(), sb.current);
            sb.data_pos = match data.bundle_data.get_index_of(sb.name.as_str()) {
                Some(p) => p,
                None => {
                    data.bundle_data
                        .insert_full(sb.name.clone(), BundleData::pulsar_default())
                        .0
                }
            };
        }
        // The snapshot's lists differ from what the broker owns only when a bundle was listed by
        // two brokers or in `lastStats` alone: the range cache was built from those lists.
        if before != local.bundles {
            self.ctx.rebuild_bundle_range_cache(data);
        }
    }

    /// Rewrites one broker's report from the traffic of the bundles it owns now; with
    /// `update_bundle_data`, also folds each sample into the leader's `BundleData`.
    pub fn write_report(&mut self, bi: usize, cycle: u32, now_ms: i64, update_bundle_data: bool) {
        self.adopt_model_report(bi);
        let Some(broker) = self.brokers.get(bi) else {
            return;
        };
        let data = self.leader.data_mut();
        let Some((_, bd)) = data.brokers.get_index_mut(broker.data_pos) else {
            return;
        };
        let local = &mut bd.local;
        let mut totals = BundleStatsTotals::default();
        let mut ta = TimeAverageBrokerData::default();
        let mut work = [0.0; 5];
        for (k, &idx) in broker.owned.iter().enumerate() {
            let Some(sb) = self.bundles.get(idx) else {
                continue;
            };
            for (sum, w) in work.iter_mut().zip(sb.work) {
                *sum += w;
            }
            let s = sb.current;
            if let Some((_, slot)) = local.last_stats.get_index_mut(k) {
                *slot = s;
            }
            totals.add(&s);
            if let Some((_, bundle)) = data.bundle_data.get_index_mut(sb.data_pos) {
                if update_bundle_data {
                    bundle.update(&s);
                }
                ta.add(bundle);
            }
        }
        totals.write_to(local);
        local.num_bundles = broker.owned.len() as i64;
        // The one load model: baseline plus the work of the bundles it hosts, CPU at its factor.
        if let Some(cpu) = work.first_mut() {
            *cpu *= broker.cpu_factor;
        }
        write_usages(local, &broker.baseline, &work);
        if let Some(h) = &broker.heap {
            local.memory.usage = local.memory.limit * h.fraction_at(cycle);
        }
        local.last_update = now_ms;
        bd.time_average = ta;
        bd.preallocated.clear();
    }

    /// Removes a bundle from its owner's report (and the range cache). Returns the old owner.
    pub fn detach(&mut self, idx: usize) -> Option<usize> {
        let sb = self.bundles.get_mut(idx)?;
        let owner = sb.owner.take()?;
        let name = sb.name.clone();
        let broker = self.brokers.get_mut(owner)?;
        let k = broker.owned.iter().position(|&x| x == idx)?;
        broker.owned.remove(k);
        if broker.live
            && let Some((id, bd)) = self
                .leader
                .data_mut()
                .brokers
                .get_index_mut(broker.data_pos)
        {
            if broker.verbatim {
                bd.local.last_stats.shift_remove(name.as_str());
            } else {
                bd.local.last_stats.shift_remove_index(k);
            }
            if let Some(p) = bd.local.bundles.iter().position(|b| *b == name) {
                bd.local.bundles.remove(p);
            }
            self.ctx.bundle_range_cache.remove(id.as_str(), &name);
        }
        Some(owner)
    }

    /// Adds a bundle (with its current traffic) to a live broker's report.
    pub fn attach(&mut self, idx: usize, to: usize) {
        let Some(sb) = self.bundles.get_mut(idx) else {
            return;
        };
        let Some(broker) = self.brokers.get_mut(to) else {
            return;
        };
        sb.owner = Some(to);
        broker.owned.push(idx);
        if let Some((id, bd)) = self
            .leader
            .data_mut()
            .brokers
            .get_index_mut(broker.data_pos)
        {
            bd.local.bundles.push(sb.name.clone());
            bd.local.last_stats.insert(sb.name.clone(), sb.current);
            let id = id.clone();
            self.ctx.add_to_bundle_range_cache(&id, &sb.name);
        }
    }

    /// One leader cycle on this cluster's view ([`LeaderMemory::tick`]), with what the cluster
    /// knows: its namespaces' bundle counts, and each bundle's long-term rates found by position.
    /// A model report lists its bundles in `owned` order, so the leader's data of its k-th
    /// `lastStats` entry is found by position (no name hashing: this runs over every bundle every
    /// cycle); a report still as the snapshot had it is looked up by name.
    pub fn tick(&mut self, leader: &mut LeaderMemory, now_ms: i64, trace: PipelineTrace) -> Tick {
        let (bundles, layout) = (&self.bundles, &self.layout);
        let data = self.leader.data_mut();
        let mut aligned: Vec<Option<&[usize]>> = vec![None; data.brokers.len()];
        for b in self.brokers.iter().filter(|b| b.live && !b.verbatim) {
            if let Some(slot) = aligned.get_mut(b.data_pos) {
                *slot = Some(&b.owned);
            }
        }
        let counts = |ns: &str| namespace_bundle_count(layout, ns);
        leader.tick(
            data,
            &mut self.ctx,
            now_ms,
            trace,
            counts,
            |data, pos, k, name| match aligned.get(pos).copied().flatten() {
                Some(owned) => owned
                    .get(k)
                    .and_then(|&bi| bundles.get(bi))
                    .and_then(|b| data.bundle_data.get_index(b.data_pos))
                    .map_or((0.0, 0.0), |(_, d)| {
                        (
                            d.long_term_data.total_msg_rate(),
                            d.long_term_data.total_msg_throughput(),
                        )
                    }),
                None => long_term_of(data, name),
            },
        )
    }

    pub fn broker_by_id(&self, id: &str) -> Option<usize> {
        self.broker_index.get(id).copied()
    }

    #[cfg(test)]
    pub fn membership(&self) -> MembershipChange {
        self.membership
    }

    pub fn bundle_by_name(&self, name: &str) -> Option<usize> {
        self.bundle_index
            .get(name)
            .copied()
            .filter(|&i| self.bundles.get(i).is_some_and(|b| b.alive))
    }

    /// Applies the membership changes since the last call to the leader's broker list in one
    /// pass: brokers that went down leave it (the others keep their order), and after any broker
    /// came up it is sorted by name as in a snapshot. Returns whether the list changed.
    pub fn settle_membership(&mut self) -> bool {
        let change = self.membership;
        if !change.went_down && !change.came_up {
            return false;
        }
        self.membership = MembershipChange {
            settle_passes: change.settle_passes + 1,
            ..MembershipChange::default()
        };
        let (brokers, index) = (&self.brokers, &self.broker_index);
        let live = |id: &str| {
            index
                .get(id)
                .and_then(|&i| brokers.get(i))
                .is_some_and(|b| b.live)
        };
        if change.went_down {
            self.leader.data_mut().brokers.retain(|id, _| live(id));
            self.ctx.bundle_range_cache.retain_brokers(|id| live(id));
        }
        if change.came_up {
            self.leader.data_mut().brokers.sort_keys();
        }
        for b in self.brokers.iter_mut() {
            if let Some(p) = self.leader.data_mut().brokers.get_index_of(b.id.as_str()) {
                b.data_pos = p;
            }
        }
        true
    }

    /// Takes a broker out of the leader's view (crash or restart). Returns its bundles, which are
    /// left without an owner for the caller to place. The leader's list drops it at
    /// [`SimCluster::settle_membership`].
    pub fn take_down(&mut self, bi: usize) -> Vec<usize> {
        let Some(b) = self.brokers.get_mut(bi) else {
            return Vec::new();
        };
        if !b.live {
            return Vec::new();
        }
        b.live = false;
        let orphans = std::mem::take(&mut b.owned);
        for &i in &orphans {
            if let Some(sb) = self.bundles.get_mut(i) {
                sb.owner = None;
            }
        }
        self.membership.went_down = true;
        orphans
    }

    /// Brings a broker (back) into the leader's view with an empty report; the list is sorted by
    /// name at [`SimCluster::settle_membership`].
    pub fn bring_up(&mut self, bi: usize, now_ms: i64) {
        let Some(b) = self.brokers.get_mut(bi) else {
            return;
        };
        if b.live {
            return;
        }
        b.live = true;
        b.verbatim = false;
        b.owned.clear();
        let mut local = b.template.clone();
        write_usages(&mut local, &b.baseline, &[0.0; 5]);
        local.msg_rate_in = 0.0;
        local.msg_rate_out = 0.0;
        local.msg_throughput_in = 0.0;
        local.msg_throughput_out = 0.0;
        local.num_topics = 0;
        local.num_bundles = 0;
        local.num_consumers = 0;
        local.num_producers = 0;
        local.last_update = now_ms;
        local.start_timestamp = Some(now_ms);
        self.ctx.bundle_range_cache.clear_broker(b.id.as_str());
        // Went down earlier in the same batch: its old entry is replaced where it is.
        let (pos, _) = self.leader.data_mut().brokers.insert_full(
            b.id.clone(),
            crate::modular::BrokerData {
                local,
                ..Default::default()
            },
        );
        b.data_pos = pos;
        self.membership.came_up = true;
    }

    /// A new broker with `like`'s limits, idle CPU and CPU cost factor (its own factor when the
    /// scenario names it), down until `bring_up`.
    pub fn add_broker(&mut self, id: &str, like: usize, seed: u64, load: &LoadSpec) -> usize {
        let (template, idle_cpu, like_factor) = match self.brokers.get(like) {
            Some(l) => (
                l.template.empty_like(),
                l.baseline.first().copied().unwrap_or(0.0),
                l.cpu_factor,
            ),
            None => (LocalBrokerData::default(), 0.0, 1.0),
        };
        let cpu_factor = match load.cpu_cost_factors.get(id) {
            Some(_) => load.model().cpu_factor(id),
            None => like_factor,
        };
        self.brokers.push(SimBroker {
            id: id.to_string(),
            live: false,
            owned: Vec::new(),
            baseline: [idle_cpu, 0.0, 0.0, 0.0, 0.0],
            cpu_factor,
            heap: load
                .heap
                .as_ref()
                .map(|h| HeapCurve::for_broker(h, seed, id)),
            template,
            data_pos: 0,
            verbatim: false,
        });
        let bi = self.brokers.len() - 1;
        self.broker_index.insert(id.to_string(), bi);
        bi
    }

    /// Replaces a bundle by its children on the same owner, each with its share of the parent's
    /// traffic; the leader forgets the parent's `BundleData` and starts the children from Pulsar's
    /// defaults (their first sample replaces them, since the windows start empty).
    pub fn split(&mut self, parent: usize, children: &[(String, f64)]) {
        let Some(p) = self.bundles.get(parent).cloned() else {
            return;
        };
        if !p.alive {
            return;
        }
        let owner = p.owner;
        if let Some(o) = owner {
            // The children take the parent's place in the report, which needs the model's lists.
            self.adopt_model_report(o);
        }
        // Position of the parent in its owner's report, to put the children in its place.
        let pos = owner.and_then(|o| {
            self.brokers
                .get(o)
                .and_then(|b| b.owned.iter().position(|&x| x == parent))
        });
        self.detach(parent);
        if let Some(sb) = self.bundles.get_mut(parent) {
            sb.alive = false;
        }
        // The parent's leader data leaves the ordered map: every later entry moves down one place,
        // so the bundles' positions are moved with them (no name looked up again).
        if let Some((removed_at, _, _)) = self
            .leader
            .data_mut()
            .bundle_data
            .shift_remove_full(p.name.as_str())
        {
            for b in self.bundles.iter_mut().filter(|b| b.alive) {
                if b.data_pos != usize::MAX && b.data_pos > removed_at {
                    b.data_pos -= 1;
                }
            }
        }
        let mut new_indices = Vec::new();
        for (name, f) in children {
            let idx = self.bundles.len();
            let base = scaled(&p.base, *f);
            let current = scaled(&p.current, *f);
            let (base_work, work) = (p.base_work.map(|w| w * f), p.work.map(|w| w * f));
            let topics = |v: i64| (v as f64 * f).round() as i64;
            let fix = |s: NamespaceBundleStats| NamespaceBundleStats {
                topics: topics(s.topics),
                consumer_count: topics(s.consumer_count),
                producer_count: topics(s.producer_count),
                ..s
            };
            self.bundles.push(SimBundle {
                name: name.clone(),
                base: fix(base),
                key: name_key(name),
                spikes: p.spikes.clone(),
                owner: None,
                current: fix(current),
                base_work,
                work,
                alive: true,
                data_pos: 0,
            });
            self.bundle_index.insert(name.clone(), idx);
            let (at, _) = self
                .leader
                .data_mut()
                .bundle_data
                .insert_full(name.clone(), BundleData::pulsar_default());
            if let Some(child) = self.bundles.get_mut(idx) {
                child.data_pos = at;
            }
            new_indices.push(idx);
        }
        if let Some(o) = owner {
            for &idx in &new_indices {
                self.attach(idx, o);
            }
            // Move the children from the end of the report to where the parent was.
            if let (Some(pos), Some(b)) = (pos, self.brokers.get_mut(o)) {
                let n = new_indices.len();
                let len = b.owned.len();
                if pos + n <= len {
                    if let Some(tail) = b.owned.get_mut(pos..) {
                        tail.rotate_right(n);
                    }
                    if let Some((_, bd)) = self.leader.data_mut().brokers.get_index_mut(b.data_pos)
                    {
                        let local = &mut bd.local;
                        for k in 0..n {
                            local.last_stats.move_index(len - n + k, pos + k);
                            let name = local.bundles.remove(len - n + k);
                            local.bundles.insert(pos + k, name);
                        }
                    }
                }
            }
        }
    }
}

/// The simulated cluster as `BundleSplitterTask`'s host: layouts from its namespaces-only snapshot,
/// the bundle table for owners, and [`SimCluster::split`] to carry a split out.
impl SplitHost for SimCluster {
    fn namespace_bundle_count(&self, namespace: &str) -> Option<i64> {
        namespace_bundle_count(&self.layout, namespace)
    }

    /// The owner's id, empty for a bundle waiting for a broker (which is split too).
    fn owner(&self, bundle: &str) -> Option<String> {
        let idx = self.bundle_by_name(bundle)?;
        Some(
            self.bundles
                .get(idx)
                .and_then(|b| b.owner)
                .and_then(|o| self.brokers.get(o))
                .map(|b| b.id.clone())
                .unwrap_or_default(),
        )
    }

    fn compute(
        &mut self,
        cfg: &crate::config::LoadBalancerConfig,
        bundle: &str,
        algorithm: crate::split::SplitAlgorithm,
    ) -> Result<Result<SplitResult, String>, String> {
        compute_split(&self.layout, cfg, bundle, algorithm, &[])
    }

    fn apply(&mut self, bundle: &str, split: &SplitResult) {
        let Some(idx) = self.bundle_by_name(bundle) else {
            return;
        };
        let children = split.children_with_shares();
        apply_split(&mut self.layout, split);
        self.split(idx, &children);
    }
}

/// A namespace's bundle count in the cluster's layouts.
fn namespace_bundle_count(layout: &Snapshot, namespace: &str) -> Option<i64> {
    layout
        .namespaces
        .get(namespace)
        .map(|n| i64::from(n.bundles.num_bundles))
}

/// A report's five usages: `baseline + work`, in the report's units.
fn write_usages(local: &mut LocalBrokerData, baseline: &Amounts, work: &Amounts) {
    let usages: [&mut ResourceUsage; 5] = [
        &mut local.cpu,
        &mut local.memory,
        &mut local.direct_memory,
        &mut local.bandwidth_in,
        &mut local.bandwidth_out,
    ];
    for ((u, b), w) in usages.into_iter().zip(baseline).zip(work) {
        u.usage = b + w;
    }
}

/// The weighted max usage of every live broker, in `LoadData` order.
pub(crate) fn broker_usages(
    data: &LoadData,
    weights: &crate::units::ResourceWeights,
) -> IndexMap<String, f64> {
    data.brokers
        .iter()
        .map(|(id, b)| (id.clone(), b.local.max_resource_usage_with_weight(weights)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, SNAPSHOT_FORMAT_VERSION};

    #[test]
    fn a_batch_of_membership_changes_costs_one_pass_over_the_broker_list() {
        let mut snapshot = Snapshot {
            format_version: SNAPSHOT_FORMAT_VERSION,
            ..Snapshot::default()
        };
        for id in ["m:8080", "z:8080"] {
            snapshot
                .brokers
                .insert(id.to_string(), BrokerSnapshot::default());
        }
        let (mut cluster, _) = SimCluster::from_snapshot(&snapshot, &LoadSpec::steady(), 0);
        let load = LoadSpec::steady();
        // 1,000 brokers come up (named to sort around the existing ones) and one goes down.
        for i in 0..1_000 {
            let id = format!("{}{i:04}:8080", if i % 2 == 0 { "a" } else { "q" });
            let bi = cluster.add_broker(&id, 0, 0, &load);
            cluster.bring_up(bi, 0);
        }
        cluster.take_down(1);
        assert_eq!(cluster.membership().settle_passes, 0);
        assert!(cluster.settle_membership());
        assert_eq!(cluster.membership().settle_passes, 1);
        assert!(!cluster.settle_membership());
        assert_eq!(cluster.membership().settle_passes, 1);
        let ids: Vec<&String> = cluster.data().brokers.keys().collect();
        assert_eq!(ids.len(), 1_001);
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(!cluster.data().brokers.contains_key("z:8080"));
        for b in cluster.brokers.iter().filter(|b| b.live) {
            assert_eq!(
                cluster.data().brokers.get_index(b.data_pos).map(|(k, _)| k),
                Some(&b.id)
            );
        }
    }
}
