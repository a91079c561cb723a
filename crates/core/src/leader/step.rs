//! One modular leader cycle on a snapshot with the leader's state carried from the cycles before:
//! the strategies' memory (ThresholdShedder's averages, AvgShedder's hit counts), the
//! recently-unloaded grace list and the picker's stream. `history` replays a recorded series with
//! it; a plan is the first step of a freshly elected leader, which this is when nothing is carried.
//!
//! The leader's view is a [`LeaderState`] kept across steps and updated with what changed between
//! snapshots (equal to what the plan's `load_data_from_snapshot` and `placement_context` build
//! from each snapshot); its memory and the cycle (`BundleSplitterTask`'s decision and
//! `do_load_shedding`) are the [`LeaderMemory`] the simulation ticks too.

use indexmap::IndexMap;

use crate::config::{LoadBalancerConfig, Profile};
use crate::model::Snapshot;
use crate::modular::leader::SheddingCycleReport;
use crate::split::ModularSplitCandidate;

use super::error::LeaderError;
use super::memory::LeaderMemory;
use super::splitter_task::long_term_after;
use super::state::LeaderState;
use super::view::load_data_from_snapshot;
use crate::config::settings::{apply_nic_speed_override, resolve_config};
use crate::leader::context::placement_context;
use crate::modular::LoadData;
use crate::modular::pipeline::{PipelineTrace, PlacementContext};

/// What one carried cycle decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeaderStep {
    /// `doLoadShedding`: every unload with its destination and reason (traced at
    /// [`PipelineTrace::Counts`]: the pipeline's stages as counts, the strategy's summary reason).
    pub shedding: SheddingCycleReport,
    /// `BundleSplitterTask`: the bundles it would split (decided on the same view, before the
    /// shedding, as the leader's tasks run).
    pub splits: Vec<ModularSplitCandidate>,
    /// Each live broker's weighted max usage (`loadBalancerResourceWeights`) as this cycle saw it.
    pub broker_usage_fraction: IndexMap<String, f64>,
}

/// The leader's state between cycles: its memory and its view of the latest snapshot.
pub struct CarriedLeader {
    profile: Option<Profile>,
    overrides: Vec<(String, String)>,
    /// The `broker.conf` the configuration was resolved from (re-resolved when it changes).
    conf: IndexMap<String, String>,
    memory: LeaderMemory,
    warnings: Vec<String>,
    /// The leader's view of the latest snapshot stepped on.
    view: Option<LeaderState>,
    /// Build the view afresh at every step instead of updating it (the cost before the view was
    /// kept: the history bench's baseline).
    rebuild_each_step: bool,
}

impl CarriedLeader {
    /// A freshly elected leader configured by `first`'s `broker.conf` with `overrides` applied.
    pub fn new(
        first: &Snapshot,
        profile: Option<Profile>,
        overrides: &[(String, String)],
        seed: u64,
    ) -> Result<Self, LeaderError> {
        let resolved = resolve_config(first, profile, overrides)?;
        let memory = LeaderMemory::new(
            resolved.config,
            resolved.profile,
            seed,
            first.brokers.keys().cloned().collect(),
        )?;
        let mut warnings = resolved.warnings;
        warnings.extend(memory.resolution().warnings.iter().cloned());
        Ok(Self {
            profile,
            overrides: overrides.to_vec(),
            conf: first.broker_conf.clone(),
            memory,
            warnings,
            view: None,
            rebuild_each_step: false,
        })
    }

    /// Builds the leader's view afresh at every step (`true`) instead of updating it; the result
    /// is the same, only slower (the history bench measures one against the other).
    pub fn set_rebuild_each_step(&mut self, rebuild: bool) {
        self.rebuild_each_step = rebuild;
    }

    pub fn config(&self) -> &LoadBalancerConfig {
        self.memory.config()
    }

    /// The shedding and placement strategy class names in use.
    pub fn strategy_names(&self) -> (String, String) {
        let resolution = self.memory.resolution();
        (resolution.shedding.clone(), resolution.placement.clone())
    }

    /// Configuration warnings so far (each once).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Runs the cycle the leader would run on `snapshot` at `now_ms`. The snapshot's own
    /// recently-unloaded list is merged into the carried one (a bundle's latest time wins).
    pub fn step(&mut self, snapshot: &Snapshot, now_ms: i64) -> Result<LeaderStep, LeaderError> {
        self.step_changed(snapshot, now_ms, None)
    }

    /// [`Self::step`] when only the reports of `changed_brokers` may differ from those of the
    /// snapshot stepped on before (`None`: unknown, every report is compared); see
    /// [`LeaderState::update_changed`].
    pub fn step_changed(
        &mut self,
        snapshot: &Snapshot,
        now_ms: i64,
        changed_brokers: Option<&[String]>,
    ) -> Result<LeaderStep, LeaderError> {
        if snapshot.broker_conf != self.conf {
            let resolved = resolve_config(snapshot, self.profile, &self.overrides)?;
            self.memory.reconfigure(resolved.config, resolved.profile)?;
            for w in resolved.warnings {
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
            self.conf = snapshot.broker_conf.clone();
        }
        let adjusted;
        let view = if self
            .config()
            .load_balancer_override_broker_nic_speed_gbps
            .is_some()
        {
            let mut copy = snapshot.clone();
            let _ = apply_nic_speed_override(&mut copy, self.memory.config());
            adjusted = copy;
            &adjusted
        } else {
            snapshot
        };
        self.memory.observe_brokers(view.brokers.keys());
        if self.rebuild_each_step {
            // The view as the plan builds it, from the whole snapshot (the cost before it was kept).
            let mut data = load_data_from_snapshot(view);
            let mut ctx = placement_context(view, &data);
            return Ok(self.cycle(view, &mut data, &mut ctx, now_ms));
        }
        let mut state = match self.view.take() {
            Some(mut state) => {
                match changed_brokers {
                    Some(changed) => state.update_changed(view, changed),
                    None => state.update(view),
                }
                state
            }
            None => LeaderState::new(view),
        };
        let mut ctx = state.take_context();
        let step = self.cycle(view, state.data_mut(), &mut ctx, now_ms);
        state.restore_context(ctx);
        self.view = Some(state);
        Ok(step)
    }

    /// The cycle on the leader's view of `view`: each broker's usage, then the memory's tick.
    fn cycle(
        &mut self,
        view: &Snapshot,
        data: &mut LoadData,
        ctx: &mut PlacementContext,
        now_ms: i64,
    ) -> LeaderStep {
        let weights = self.config().resource_weights();
        let broker_usage_fraction = data
            .brokers
            .iter()
            .map(|(id, b)| (id.clone(), b.local.max_resource_usage_with_weight(&weights)))
            .collect();
        let counts = |ns: &str| {
            view.namespaces
                .get(ns)
                .map(|n| i64::from(n.bundles.num_bundles))
        };
        // The history reads each unload's one-line reason (`reasons::shedding_reason`): how many
        // brokers each pipeline stage left and the strategy's summary, not the candidates' names
        // or scores. The split check asks for the long-term rates in report order, which is the
        // view's order but for the bundles moved since it was built: the entry after the last one
        // found is compared first (the same answer as a lookup, without hashing the name).
        let next = std::cell::Cell::new(0);
        let tick = self.memory.tick(
            data,
            ctx,
            now_ms,
            PipelineTrace::Counts,
            counts,
            |data, _, _, name| long_term_after(data, name, &next),
        );
        LeaderStep {
            shedding: tick.shedding,
            splits: tick.splits,
            broker_usage_fraction,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leader::context::build_strategies;
    use crate::modular::leader::do_load_shedding;
    use crate::plan::reasons::shedding_reason;
    use crate::rng::SeededPicker;
    use crate::simulate::builtin_snapshot;

    /// The history's trace level gives every unload the one-line reason a full trace gives, and
    /// the same decisions: three cycles on the #16059 cluster under ThresholdShedder (each
    /// moving bundles, most after the even-distribution filter narrowed the candidates).
    #[test]
    fn stages_trace_gives_the_full_trace_reasons() {
        let snap = builtin_snapshot("pr-16059").unwrap();
        let set = [(
            "loadBalancerLoadSheddingStrategy".to_string(),
            "ThresholdShedder".to_string(),
        )];
        let resolved = resolve_config(&snap, None, &set).unwrap();
        let run = |trace: PipelineTrace| {
            let mut strategies = build_strategies(&resolved.config, resolved.profile).unwrap();
            let mut picker = SeededPicker::new(3);
            let mut data = load_data_from_snapshot(&snap);
            let mut ctx = placement_context(&snap, &data);
            ctx.trace = trace;
            (0..3)
                .flat_map(|cycle| {
                    let r = do_load_shedding(
                        &mut strategies,
                        &mut data,
                        &mut ctx,
                        &resolved.config,
                        &mut picker,
                        cycle * 60_000,
                    );
                    r.unloads
                        .iter()
                        .map(|u| (u.bundle.clone(), u.to.clone(), shedding_reason(u)))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let full = run(PipelineTrace::Full);
        assert!(full.len() >= 3, "{full:?}");
        assert!(full.iter().any(|(_, _, why)| why.contains(" left ")));
        assert_eq!(run(PipelineTrace::Stages), full);
        assert_eq!(run(PipelineTrace::Counts), full);
    }

    /// One shedding cycle's selections with the candidate steps kept (`ShedSelectionMemo`) give
    /// the outcomes each selection gives on its own, at every trace level and for each placement
    /// strategy: bundles of many namespaces, repeated namespaces, and (second pass) an
    /// anti-affinity group on some namespaces, whose first steps are not shared.
    #[test]
    fn kept_candidate_steps_select_as_each_selection_alone() {
        use crate::model::BundleData;
        use crate::modular::pipeline::{
            SelectionPath, ShedSelectionMemo, select_broker_for_bundle,
            select_broker_for_bundle_memo,
        };
        use crate::modular::placement::placement_by_name;
        for name in ["pr-16059", "demo"] {
            let snap = builtin_snapshot(name).unwrap();
            let cfg = resolve_config(&snap, None, &[]).unwrap().config;
            let data0 = load_data_from_snapshot(&snap);
            let bundles: Vec<String> = data0.bundle_data.keys().take(400).cloned().collect();
            for grouped in [false, true] {
                for strategy in ["LeastLongTermMessageRate", "LeastResourceUsageWithWeight"] {
                    for trace in [PipelineTrace::Counts, PipelineTrace::Full] {
                        let run = |memo: bool| {
                            let mut data = data0.clone();
                            let mut ctx = placement_context(&snap, &data);
                            ctx.trace = trace;
                            if grouped {
                                for (i, b) in bundles.iter().enumerate().filter(|(i, _)| i % 3 == 0)
                                {
                                    let ns = crate::modular::load_data::namespace_of_bundle(b);
                                    ctx.namespace_anti_affinity_groups
                                        .insert(ns.to_string(), format!("g{}", i % 2));
                                }
                            }
                            let mut placement = placement_by_name(strategy).unwrap();
                            let mut picker = SeededPicker::new(7);
                            let mut kept = ShedSelectionMemo::new();
                            bundles
                                .iter()
                                .map(|b| {
                                    let bd = data
                                        .bundle_data
                                        .get(b)
                                        .copied()
                                        .unwrap_or_else(BundleData::pulsar_default);
                                    if memo {
                                        select_broker_for_bundle_memo(
                                            b,
                                            &bd,
                                            SelectionPath::Shedding,
                                            &mut data,
                                            &mut ctx,
                                            &cfg,
                                            placement.as_mut(),
                                            &mut picker,
                                            Some(&mut kept),
                                        )
                                    } else {
                                        select_broker_for_bundle(
                                            b,
                                            &bd,
                                            SelectionPath::Shedding,
                                            &mut data,
                                            &mut ctx,
                                            &cfg,
                                            placement.as_mut(),
                                            &mut picker,
                                        )
                                    }
                                })
                                .collect::<Vec<_>>()
                        };
                        let alone = run(false);
                        assert!(alone.iter().any(|o| o.broker.is_some()));
                        assert_eq!(
                            run(true),
                            alone,
                            "{name} grouped={grouped} {strategy} {trace:?}"
                        );
                    }
                }
            }
        }
    }
}
