//! The modular leader's memory between its cycles, and the cycle itself (the one leader
//! engine): the resolved configuration, the strategies with their persistent state
//! (ThresholdShedder's averages, AvgShedder's hit counts, LeastResourceUsageWithWeight's history),
//! the seeded picker, the recently-unloaded grace list and the broker list the strategies were last
//! told about. `history` (`leader_step::CarriedLeader`) and the simulation (`simulate::engine`)
//! each keep one and [`LeaderMemory::tick`] it on the leader's view, whoever keeps that view (a
//! [`LeaderState`](super::state::LeaderState) stepped through snapshots, or the simulation's
//! edited in place); a plan keeps one for its manual placements ([`LeaderMemory::place`]), its
//! cycle and its outlook's further ticks. What differs between them is a tick's argument, not a
//! copy of the cycle.

use indexmap::IndexMap;

use crate::config::{LoadBalancerConfig, Profile};
use crate::model::BundleData;
use crate::modular::LoadData;
use crate::modular::leader::{
    SheddingCycleReport, StrategyConfigError, StrategyResolution, StrategySet, do_load_shedding,
};
use crate::modular::pipeline::{
    PipelineTrace, PlacementContext, PlacementOutcome, SelectionPath, select_broker_for_bundle,
};
use crate::rng::SeededPicker;
use crate::split::ModularSplitCandidate;

use super::splitter_task;
use crate::leader::context::build_strategies;

/// What the leader keeps from one cycle to the next.
pub struct LeaderMemory {
    cfg: LoadBalancerConfig,
    profile: Profile,
    strategies: StrategySet,
    picker: SeededPicker,
    /// `recentlyUnloadedBundles` after the last tick (a view built from a snapshot brings the
    /// snapshot's list instead: the two are merged at the next tick).
    recently_unloaded: IndexMap<String, i64>,
    /// The brokers the strategies were last told about (`onActiveBrokersChange`).
    brokers: Vec<String>,
}

/// What one tick decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tick {
    /// `BundleSplitterTask`: the bundles it would split (decided on the view before the shedding,
    /// as the leader's tasks run; not carried out).
    pub splits: Vec<ModularSplitCandidate>,
    /// `doLoadShedding`: every unload with its destination and reason.
    pub shedding: SheddingCycleReport,
}

/// The latest time of each bundle in the carried list and the view's (the carried list's order,
/// then the view's new entries).
fn merged_grace_list(
    mut carried: IndexMap<String, i64>,
    seen: &IndexMap<String, i64>,
) -> IndexMap<String, i64> {
    for (bundle, at) in seen {
        let slot = carried.entry(bundle.clone()).or_insert(*at);
        *slot = (*slot).max(*at);
    }
    carried
}

impl LeaderMemory {
    /// A freshly elected leader configured by `cfg` for `profile`, picking from `seed`, that knows
    /// `brokers`.
    pub fn new(
        cfg: LoadBalancerConfig,
        profile: Profile,
        seed: u64,
        brokers: Vec<String>,
    ) -> Result<Self, StrategyConfigError> {
        let strategies = build_strategies(&cfg, profile)?;
        Ok(Self {
            cfg,
            profile,
            strategies,
            picker: SeededPicker::new(seed),
            recently_unloaded: IndexMap::new(),
            brokers,
        })
    }

    pub fn config(&self) -> &LoadBalancerConfig {
        &self.cfg
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The strategy classes in use and the warnings their resolution gave.
    pub fn resolution(&self) -> &StrategyResolution {
        &self.strategies.resolution
    }

    /// Takes a new configuration. Pulsar builds new strategy objects (their memory lost) only when
    /// a strategy's class changes: a new value of any other key, or another name of the same
    /// class, keeps them.
    pub fn reconfigure(
        &mut self,
        cfg: LoadBalancerConfig,
        profile: Profile,
    ) -> Result<(), StrategyConfigError> {
        let rebuilt = build_strategies(&cfg, profile)?;
        let (now, next) = (&self.strategies.resolution, &rebuilt.resolution);
        if (&now.shedding, &now.placement) != (&next.shedding, &next.placement) {
            self.strategies = rebuilt;
        }
        self.cfg = cfg;
        self.profile = profile;
        Ok(())
    }

    /// The leader's live brokers now: when they differ from the ones the strategies last saw, the
    /// strategies are told (`onActiveBrokersChange`, which drops what they kept for a broker that
    /// left). Returns whether they were.
    pub fn observe_brokers<'a>(
        &mut self,
        brokers: impl Iterator<Item = &'a String> + Clone,
    ) -> bool {
        if brokers.clone().eq(self.brokers.iter()) {
            return false;
        }
        self.tell_brokers(brokers.cloned().collect());
        true
    }

    /// Tells the strategies the live brokers are now `brokers` (`onActiveBrokersChange`), whether
    /// or not they differ from the ones they last saw: a plan's operation that removes a broker.
    pub fn tell_brokers(&mut self, brokers: Vec<String>) {
        self.brokers = brokers;
        self.strategies.on_active_brokers_change(&self.brokers);
    }

    /// The configuration with the picker: a placement outside the modular pipeline (the
    /// extensible manager's plain unloads) picks from the same picker as the leader's own.
    pub fn config_and_picker(&mut self) -> (&LoadBalancerConfig, &mut SeededPicker) {
        (&self.cfg, &mut self.picker)
    }

    /// A lookup's placement (`selectBrokerForAssignment` and friends) by this leader: its
    /// configuration, placement strategy and picker, on the view `data` / `ctx`.
    pub fn place(
        &mut self,
        bundle: &str,
        bundle_data: &BundleData,
        path: SelectionPath,
        data: &mut LoadData,
        ctx: &mut PlacementContext,
    ) -> PlacementOutcome {
        select_broker_for_bundle(
            bundle,
            bundle_data,
            path,
            data,
            ctx,
            &self.cfg,
            self.strategies.placement(),
            &mut self.picker,
        )
    }

    /// One leader cycle at `now_ms` on the view `data` / `ctx`: the carried grace list merged with
    /// the view's (a bundle's latest time wins), `BundleSplitterTask`'s decision, then
    /// `doLoadShedding` with placements explained at `trace`. What differs between the leaders
    /// that tick is passed in: `namespace_bundle_count(ns)` (the namespace's bundle count now) and
    /// `long_term(data, broker_pos, k, name)` (the long-term rates of the k-th `lastStats` entry of
    /// the broker at `broker_pos`, as [`splitter_task::decide`] reads them). The view keeps the
    /// grace list the cycle leaves, and so does the memory.
    pub fn tick(
        &mut self,
        data: &mut LoadData,
        ctx: &mut PlacementContext,
        now_ms: i64,
        trace: PipelineTrace,
        namespace_bundle_count: impl Fn(&str) -> Option<i64>,
        long_term: impl Fn(&LoadData, usize, usize, &str) -> (f64, f64),
    ) -> Tick {
        self.begin_cycle(data, ctx, trace);
        let view: &LoadData = data;
        let splits = splitter_task::decide(&self.cfg, view, namespace_bundle_count, |p, k, n| {
            long_term(view, p, k, n)
        });
        let shedding = self.shed(data, ctx, now_ms);
        Tick { splits, shedding }
    }

    /// [`tick`](Self::tick) without asking `BundleSplitterTask`: a plan's outlook, whose further
    /// cycles run on the load of the first, where the task would choose the first cycle's bundles
    /// again.
    pub fn tick_shedding_only(
        &mut self,
        data: &mut LoadData,
        ctx: &mut PlacementContext,
        now_ms: i64,
        trace: PipelineTrace,
    ) -> SheddingCycleReport {
        self.begin_cycle(data, ctx, trace);
        self.shed(data, ctx, now_ms)
    }

    fn begin_cycle(
        &mut self,
        data: &mut LoadData,
        ctx: &mut PlacementContext,
        trace: PipelineTrace,
    ) {
        let carried = std::mem::take(&mut self.recently_unloaded);
        data.recently_unloaded = merged_grace_list(carried, &data.recently_unloaded);
        ctx.trace = trace;
    }

    /// `doLoadShedding`, the grace list it leaves kept.
    fn shed(
        &mut self,
        data: &mut LoadData,
        ctx: &mut PlacementContext,
        now_ms: i64,
    ) -> SheddingCycleReport {
        let shedding = do_load_shedding(
            &mut self.strategies,
            data,
            ctx,
            &self.cfg,
            &mut self.picker,
            now_ms,
        );
        self.recently_unloaded.clone_from(&data.recently_unloaded);
        shedding
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::settings::resolve_config;
    use crate::leader::splitter_task::long_term_of;
    use crate::leader::state::LeaderState;
    use crate::simulate::builtin_snapshot;

    fn memory_on(
        snap: &crate::model::Snapshot,
        set: &[(&str, &str)],
    ) -> (LeaderMemory, LoadBalancerConfig, Profile) {
        let set: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let resolved = resolve_config(snap, None, &set).unwrap();
        let memory = LeaderMemory::new(
            resolved.config.clone(),
            resolved.profile,
            3,
            snap.brokers.keys().cloned().collect(),
        )
        .unwrap();
        (memory, resolved.config, resolved.profile)
    }

    /// Ticks a fresh view of `snap` `cycles` times, one minute apart: each cycle's unload count.
    fn unloads(
        memory: &mut LeaderMemory,
        snap: &crate::model::Snapshot,
        cycles: i64,
    ) -> Vec<usize> {
        (0..cycles)
            .map(|cycle| {
                let mut state = LeaderState::new(snap);
                let mut ctx = state.take_context();
                let tick = memory.tick(
                    state.data_mut(),
                    &mut ctx,
                    cycle * 60_000,
                    PipelineTrace::Off,
                    |_| None,
                    |data, _, _, name| long_term_of(data, name),
                );
                tick.shedding.unloads.len()
            })
            .collect()
    }

    /// AvgShedder sheds a pair of brokers only after it saw them far apart in consecutive cycles
    /// (its hit counts, kept in the strategy object): a change of another key, or another name of
    /// the same class, keeps the count; a change of class and back starts it again.
    #[test]
    fn strategies_are_rebuilt_only_when_a_class_changes() {
        let snap = builtin_snapshot("pr-16059").unwrap();
        let avg = [
            ("loadBalancerLoadSheddingStrategy", "AvgShedder"),
            ("loadBalancerLoadPlacementStrategy", "AvgShedder"),
        ];
        let (mut fresh, _, _) = memory_on(&snap, &avg);
        let fresh = unloads(&mut fresh, &snap, 2);
        assert_eq!(fresh[0], 0, "{fresh:?}");
        assert!(fresh[1] > 0, "{fresh:?}");
        let after = |change: &dyn Fn(&mut LoadBalancerConfig)| {
            let (mut memory, mut cfg, profile) = memory_on(&snap, &avg);
            unloads(&mut memory, &snap, 1);
            change(&mut cfg);
            memory.reconfigure(cfg.clone(), profile).unwrap();
            unloads(&mut memory, &snap, 1)
        };
        let other_key = after(&|cfg| cfg.load_balancer_namespace_maximum_bundles = 7);
        assert_eq!(other_key, [fresh[1]]);
        let same_class = after(&|cfg| {
            cfg.load_balancer_load_shedding_strategy =
                "org.apache.pulsar.broker.loadbalance.impl.AvgShedder".to_string();
        });
        assert_eq!(same_class, [fresh[1]]);
        let (mut memory, cfg, profile) = memory_on(&snap, &avg);
        unloads(&mut memory, &snap, 1);
        let mut other = cfg.clone();
        other.load_balancer_load_shedding_strategy = "ThresholdShedder".to_string();
        other.load_balancer_load_placement_strategy = "LeastLongTermMessageRate".to_string();
        memory.reconfigure(other, profile).unwrap();
        assert_eq!(
            memory.resolution().placement,
            "org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate"
        );
        memory.reconfigure(cfg, profile).unwrap();
        assert_eq!(unloads(&mut memory, &snap, 1), [0]);
    }

    /// The grace list a tick leaves is carried into the next tick's view even when the view comes
    /// from a snapshot without it, and an entry the view brings with a later time wins.
    #[test]
    fn the_grace_list_is_carried_and_merged() {
        let mut carried = IndexMap::new();
        carried.insert("a".to_string(), 5);
        carried.insert("b".to_string(), 9);
        let mut seen = IndexMap::new();
        seen.insert("c".to_string(), 1);
        seen.insert("a".to_string(), 7);
        seen.insert("b".to_string(), 2);
        let merged = merged_grace_list(carried, &seen);
        let got: Vec<(&str, i64)> = merged.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(got, [("a", 7), ("b", 9), ("c", 1)]);
    }
}
