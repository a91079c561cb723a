//! The simulation loop: the modular leader's cycle repeated every
//! `loadBalancerSheddingIntervalMinutes` on a simulated clock, with one persistent `StrategySet`,
//! the scenario's load model and events, automatic splits, and the metrics of every cycle.
//!
//! Cycle 0 is the plan: the leader sees the snapshot's reports as they are (the load model's
//! traffic is first reported at cycle 1), with the plan's picker seed and placement trace, and the
//! decisions and their reasons come from the plan's code.

use std::collections::BTreeMap;

use super::error::ScenarioError;
use crate::config::settings::{apply_nic_speed_override, resolve_config};
use crate::config::{self, LoadBalancerConfig};
use crate::leader::memory::{LeaderMemory, Tick};
use crate::leader::splitter_task;
use crate::model::Snapshot;
use crate::modular::leader::StrategyConfigError;
use crate::modular::pipeline::{PipelineTrace, SelectionPath};
use crate::plan::balance::UsageSpread;
use crate::plan::reasons::shedding_reason;
use crate::split::ModularSplitCandidate;

use super::cluster::{SimCluster, broker_usages};
use super::limits::MAX_CYCLES;
use super::metrics::{ChurnTracker, CycleDecision, CycleMetrics, RunSummary, SimulationRun};
use super::ownership::OwnershipChange;
use super::record::SeriesRecorder;
use super::run_config::RunConfig;
use super::scenario::{EventKind, Scenario};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimulateError {
    #[error("setting {0}")]
    Setting(#[from] config::ConfigError),
    #[error(transparent)]
    Strategy(#[from] StrategyConfigError),
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// More cycles than [`MAX_CYCLES`] (or none) asked of one run.
    #[error("{cycles} cycles: a simulation runs 1 to {max} cycles", max = MAX_CYCLES)]
    Cycles { cycles: u32 },
}

/// Options that do not change the simulated cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// 1 to [`MAX_CYCLES`]; anything else is refused (`SimulateError::Cycles`).
    pub cycles: u32,
    pub seed: u64,
    /// Keep every broker's usage per cycle in the result (large for big clusters).
    pub record_broker_usage: bool,
    /// Keep each cycle's ownership changes (`CycleMetrics::ownership`), for replaying the bundle
    /// map across cycles (`timeline::snapshot_after`).
    pub record_ownership: bool,
}

struct Run<'a> {
    scenario: &'a Scenario,
    opts: RunOptions,
    /// The leader's memory and cycle, the one `history` ticks too (its picker seeded with the
    /// plan's seed: the noise is a function of (seed, bundle, cycle), not this stream).
    leader: LeaderMemory,
    cluster: SimCluster,
    start_ms: i64,
    interval_ms: i64,
    /// Indices of the scenario's events sorted by cycle (then file order), and the next one due:
    /// each event is looked at once, not once per cycle.
    event_order: Vec<usize>,
    next_event: usize,
    /// Cycle → broker indices of scheduled restarts.
    downs: BTreeMap<u32, Vec<usize>>,
    ups: BTreeMap<u32, Vec<usize>>,
    /// Bundles waiting for a broker (none was available when theirs went away).
    orphans: Vec<usize>,
    churn: ChurnTracker,
    warnings: Vec<String>,
    /// This cycle's ownership changes so far (only when recording).
    changes: Vec<OwnershipChange>,
    /// This cycle's decisions and their reasons so far (only when recording).
    decisions: Vec<CycleDecision>,
    /// The leader's view of every cycle as a snapshot (only for [`simulate_recording`]).
    series: Option<SeriesRecorder>,
}

fn interval_ms_of(cfg: &LoadBalancerConfig) -> i64 {
    crate::leader::context::cycle_interval_ms(cfg)
}

/// Runs one configuration of a scenario on a snapshot. `progress(done, total)` is called after each
/// cycle; returning `false` stops the run (the result says `cancelled`).
pub fn simulate(
    snapshot: &Snapshot,
    scenario: &Scenario,
    run: &RunConfig,
    opts: RunOptions,
    progress: &mut dyn FnMut(u32, u32) -> bool,
) -> Result<SimulationRun, SimulateError> {
    run_simulation(snapshot, scenario, run, opts, progress, None)
}

/// [`simulate`], also returning the snapshot the leader saw at each cycle, just before it shed
/// (after the brokers' reports, the cycle's events and the re-assignment of orphaned bundles), with
/// `captured_at_ms` the cycle's time: a recorded *series* (`history`) whose every ownership change
/// has a known cause.
pub fn simulate_recording(
    snapshot: &Snapshot,
    scenario: &Scenario,
    run: &RunConfig,
    opts: RunOptions,
    progress: &mut dyn FnMut(u32, u32) -> bool,
) -> Result<(SimulationRun, Vec<Snapshot>), SimulateError> {
    let mut series = Vec::new();
    let out = simulate_recording_each(snapshot, scenario, run, opts, progress, &mut |s| {
        series.push(s);
        true
    })?;
    Ok((out, series))
}

/// [`simulate_recording`], handing each cycle's snapshot to `each` as soon as it is taken instead
/// of keeping them all (a recording of 100,000 cycles written cycle by cycle holds one snapshot at
/// a time); `each` returning `false` stops the run (the result says `cancelled`).
pub fn simulate_recording_each(
    snapshot: &Snapshot,
    scenario: &Scenario,
    run: &RunConfig,
    opts: RunOptions,
    progress: &mut dyn FnMut(u32, u32) -> bool,
    each: &mut dyn FnMut(Snapshot) -> bool,
) -> Result<SimulationRun, SimulateError> {
    run_simulation(snapshot, scenario, run, opts, progress, Some(each))
}

fn run_simulation(
    snapshot: &Snapshot,
    scenario: &Scenario,
    run: &RunConfig,
    opts: RunOptions,
    progress: &mut dyn FnMut(u32, u32) -> bool,
    mut record: Option<&mut dyn FnMut(Snapshot) -> bool>,
) -> Result<SimulationRun, SimulateError> {
    if !(1..=MAX_CYCLES).contains(&opts.cycles) {
        return Err(SimulateError::Cycles {
            cycles: opts.cycles,
        });
    }
    let mut settings = scenario.settings.clone();
    settings.extend(run.settings.iter().cloned());
    let mut work = snapshot.clone();
    if run.from_defaults {
        // `base=defaults`: the profile's defaults, not the snapshot's broker.conf (the preset
        // "Pulsar 5.0 defaults" must not run the snapshot's ThresholdShedder).
        work.broker_conf.clear();
    }
    let resolved = resolve_config(&work, run.profile, &settings)?;
    let mut warnings = resolved.warnings;
    let cfg = resolved.config;
    let profile = resolved.profile;
    let release_basis = Some(resolved.basis);
    warnings.extend(apply_nic_speed_override(&mut work, &cfg));
    if cfg.is_extensible() {
        warnings.push(
            "loadManagerClassName is ExtensibleLoadManagerImpl: simulated with the modular leader"
                .to_string(),
        );
    }
    let leader = LeaderMemory::new(
        cfg,
        profile,
        opts.seed,
        work.brokers.keys().cloned().collect(),
    )?;
    warnings.extend(leader.resolution().warnings.iter().cloned());
    let cfg = leader.config();
    let interval_ms = interval_ms_of(cfg);
    let grace_cycles = {
        let grace = cfg.load_balancer_shedding_grace_period_minutes.max(0);
        let interval = (interval_ms / 60_000).max(1);
        u32::try_from((grace + interval - 1) / interval).unwrap_or(u32::MAX)
    };
    let window = scenario
        .metrics
        .thrashing_window_cycles
        .unwrap_or(grace_cycles);
    let (cluster, spike_warnings) = SimCluster::from_snapshot(&work, &scenario.load, opts.seed);
    warnings.extend(spike_warnings);
    let (_, isolation_errors) =
        crate::isolation::IsolationPolicies::compile(&work.namespace_isolation_policies);
    warnings.extend(isolation_errors.iter().map(ToString::to_string));
    let mut r = Run {
        scenario,
        opts,
        leader,
        cluster,
        start_ms: snapshot.captured_at_ms.unwrap_or(0),
        interval_ms,
        event_order: {
            let mut order: Vec<usize> = (0..scenario.events.len()).collect();
            order.sort_by_key(|&i| scenario.events.get(i).map_or(u32::MAX, |e| e.cycle));
            order
        },
        next_event: 0,
        downs: BTreeMap::new(),
        ups: BTreeMap::new(),
        orphans: Vec::new(),
        churn: ChurnTracker::new(window),
        warnings: Vec::new(),
        changes: Vec::new(),
        decisions: Vec::new(),
        series: record
            .is_some()
            .then(|| SeriesRecorder::new(&work, &settings)),
    };
    let target = scenario.metrics.balanced_std_fraction.unwrap_or(
        r.leader
            .config()
            .load_balancer_broker_threshold_shedder_percentage as f64
            / 100.0,
    );
    let consecutive = scenario
        .metrics
        .balanced_consecutive_cycles
        .unwrap_or(3)
        .max(1);
    let mut out = SimulationRun {
        config: run.clone(),
        profile: profile.name(),
        release_basis,
        shedding_strategy: r.leader.resolution().shedding.clone(),
        placement_strategy: r.leader.resolution().placement.clone(),
        ..SimulationRun::default()
    };
    if out.config.name.is_empty() {
        out.config.name = format!(
            "{}+{}",
            config::simple_class_name(&out.shedding_strategy),
            config::simple_class_name(&out.placement_strategy)
        );
    }
    for cycle in 0..opts.cycles {
        let m = r.cycle(cycle)?;
        out.cycles.push(m);
        let mut kept = true;
        if let (Some(each), Some(series)) = (record.as_mut(), r.series.as_mut()) {
            for s in std::mem::take(&mut series.snapshots) {
                kept = kept && each(s);
            }
        }
        if !kept || !progress(cycle + 1, opts.cycles) {
            out.cancelled = true;
            break;
        }
    }
    warnings.append(&mut r.warnings);
    out.warnings = warnings;
    out.summary = summarize(&out.cycles, target, consecutive, window, interval_ms);
    Ok(out)
}

fn summarize(
    cycles: &[CycleMetrics],
    target: f64,
    consecutive: u32,
    window: u32,
    interval_ms: i64,
) -> RunSummary {
    let mut s = RunSummary {
        cycles_run: u32::try_from(cycles.len()).unwrap_or(u32::MAX),
        balanced_std_fraction: target,
        balanced_consecutive_cycles: consecutive,
        thrashing_window_cycles: window,
        ..RunSummary::default()
    };
    let mut streak = 0u32;
    for c in cycles {
        if c.std_usage_fraction < target {
            streak += 1;
            if streak == consecutive && s.balanced_at_cycle.is_none() {
                let start = c.cycle + 1 - consecutive;
                s.balanced_at_cycle = Some(start);
                s.balanced_after_minutes = Some(i64::from(start) * (interval_ms / 60_000));
            }
        } else {
            streak = 0;
        }
        s.total_unloads += c.bundles_unloaded;
        s.total_bytes_moved += c.bytes_moved;
        if c.brokers_over_capacity > 0 {
            s.cycles_over_capacity += 1;
            s.first_cycle_over_capacity.get_or_insert(c.cycle);
        }
        s.total_thrashing += c.thrashing;
        s.total_unloads_from_recent_destinations += c.unloads_from_recent_destinations;
        s.total_splits += c.splits;
        s.total_reassigned += c.bundles_reassigned;
        if c.bundles_unloaded > 0 {
            s.cycles_with_unloads += 1;
            s.last_unload_cycle = Some(c.cycle);
        }
        s.peak_max_usage_fraction = s.peak_max_usage_fraction.max(c.max_usage_fraction);
    }
    s.balanced_at_end = streak >= consecutive;
    if let Some(last) = cycles.last() {
        s.final_max_usage_fraction = last.max_usage_fraction;
        s.final_max_over_mean = last.max_over_mean;
        s.final_std_usage_fraction = last.std_usage_fraction;
    }
    s
}

/// How much of the placements of `cycle` is explained: the first cycle's as the plan does; after
/// it, thousands of placements nobody reads the reasons of are decided without explaining.
fn trace_at(cycle: u32) -> PipelineTrace {
    if cycle == 0 {
        PipelineTrace::Full
    } else {
        PipelineTrace::Off
    }
}

impl Run<'_> {
    fn now_ms(&self, cycle: u32) -> i64 {
        crate::leader::context::cycle_start_ms(self.start_ms, self.interval_ms, cycle)
    }

    fn resolve_broker(&self, r: &str, path: String) -> Result<usize, SimulateError> {
        let found = if let Some(n) = r.strip_prefix('#') {
            n.parse::<usize>()
                .ok()
                .filter(|&i| i < self.cluster.brokers.len())
        } else if r == "@busiest" {
            let w = self.leader.config().resource_weights();
            let mut best: Option<(usize, f64)> = None;
            for (i, b) in self.cluster.brokers.iter().enumerate() {
                if !b.live {
                    continue;
                }
                let u = self
                    .cluster
                    .data()
                    .brokers
                    .get_index(b.data_pos)
                    .map_or(0.0, |(_, d)| d.local.max_resource_usage_with_weight(&w));
                if best.is_none_or(|(_, bu)| u > bu) {
                    best = Some((i, u));
                }
            }
            best.map(|(i, _)| i)
        } else {
            self.cluster.broker_by_id(r)
        };
        found.ok_or_else(|| {
            SimulateError::Scenario(ScenarioError::malformed(
                path,
                format!("no broker `{r}` (use a brokerId, #N or @busiest)"),
            ))
        })
    }

    /// Places bundles whose broker went away, one at a time as lookups would (preallocating).
    fn place_orphans(&mut self, cycle: u32, reassigned: &mut usize) {
        if self.cluster.data().brokers.is_empty() {
            return;
        }
        let orphans = std::mem::take(&mut self.orphans);
        let mut touched = Vec::new();
        for idx in orphans {
            let Some(sb) = self.cluster.bundles.get(idx) else {
                continue;
            };
            if !sb.alive {
                continue;
            }
            let name = sb.name.clone();
            let data = self
                .cluster
                .data()
                .bundle_data
                .get(name.as_str())
                .copied()
                .unwrap_or_default();
            let (view, ctx) = self.cluster.view_mut();
            ctx.trace = trace_at(cycle);
            let outcome = self
                .leader
                .place(&name, &data, SelectionPath::Assignment, view, ctx);
            match outcome.broker.and_then(|b| self.cluster.broker_by_id(&b)) {
                Some(to) => {
                    self.cluster.attach(idx, to);
                    self.record_owner(&name, Some(to));
                    *reassigned += 1;
                    if !touched.contains(&to) {
                        touched.push(to);
                    }
                }
                None => self.orphans.push(idx),
            }
        }
        let now = self.now_ms(cycle);
        for b in touched {
            self.cluster.write_report(b, cycle, now, false);
        }
    }

    fn record_owner(&mut self, bundle: &str, broker: Option<usize>) {
        if self.opts.record_ownership {
            let broker = broker.and_then(|b| self.cluster.brokers.get(b).map(|x| x.id.clone()));
            self.changes.push(OwnershipChange::Owner {
                bundle: bundle.to_string(),
                broker,
            });
        }
    }

    fn go_down(&mut self, bi: usize) {
        let orphans = self.cluster.take_down(bi);
        if self.opts.record_ownership {
            for &i in &orphans {
                if let Some(name) = self.cluster.bundles.get(i).map(|b| b.name.clone()) {
                    self.record_owner(&name, None);
                }
            }
        }
        self.orphans.extend(orphans);
    }

    fn come_up(&mut self, bi: usize, cycle: u32) {
        let now = self.now_ms(cycle);
        self.cluster.bring_up(bi, now);
    }

    /// After a cycle's events: the leader's broker list updated once, and the strategies told once.
    /// (Telling them after each event would give the same histories: they only drop brokers that
    /// are not active, and no broker goes down and comes back within one cycle.)
    fn settle_membership(&mut self) {
        if self.cluster.settle_membership() {
            self.leader
                .observe_brokers(self.cluster.data().brokers.keys());
        }
    }

    fn set_config(&mut self, key: &str, value: &str, path: String) -> Result<(), SimulateError> {
        let mut cfg = self.leader.config().clone();
        if !cfg.set_text(key, value)? {
            return Err(SimulateError::Scenario(ScenarioError::malformed(
                path,
                format!("`{key}` is not a load-balancing key"),
            )));
        }
        let nic_gbps = cfg.load_balancer_override_broker_nic_speed_gbps;
        let profile = self.leader.profile();
        self.leader.reconfigure(cfg, profile)?;
        if key == "loadBalancerOverrideBrokerNicSpeedGbps"
            && let Some(gbps) = nic_gbps
        {
            let limit = gbps * 1_000_000.0;
            for b in self.cluster.brokers.iter_mut() {
                b.template.bandwidth_in.limit = limit;
                b.template.bandwidth_out.limit = limit;
            }
            for bd in self.cluster.view_mut().0.brokers.values_mut() {
                bd.local.bandwidth_in.limit = limit;
                bd.local.bandwidth_out.limit = limit;
            }
        }
        Ok(())
    }

    fn apply_events(&mut self, cycle: u32, notes: &mut Vec<String>) -> Result<(), SimulateError> {
        let ups = self.ups.remove(&cycle).unwrap_or_default();
        for b in ups {
            self.come_up(b, cycle);
            if let Some(x) = self.cluster.brokers.get(b) {
                notes.push(format!("{} is back (empty)", x.id));
            }
        }
        let scenario = self.scenario;
        while let Some(&i) = self.event_order.get(self.next_event) {
            let Some(e) = scenario.events.get(i) else {
                break;
            };
            if e.cycle > cycle {
                break;
            }
            self.next_event += 1;
            if e.cycle < cycle {
                continue;
            }
            let path = format!("$.events[{i}]");
            match &e.kind {
                EventKind::SetConfig { key, value } => {
                    self.set_config(key, value, format!("{path}.key"))?;
                    if let Some(series) = self.series.as_mut() {
                        series.set(key, value);
                    }
                    notes.push(format!("set {key}={value}"));
                }
                EventKind::AddBroker { broker, like } => {
                    if self.cluster.broker_by_id(broker).is_some() {
                        return Err(SimulateError::Scenario(ScenarioError::malformed(
                            format!("{path}.broker"),
                            format!("a broker `{broker}` already exists"),
                        )));
                    }
                    let like = self
                        .resolve_broker(like.as_deref().unwrap_or("#0"), format!("{path}.like"))?;
                    let bi =
                        self.cluster
                            .add_broker(broker, like, self.opts.seed, &self.scenario.load);
                    self.come_up(bi, cycle);
                    notes.push(format!("added {broker}"));
                }
                EventKind::RemoveBroker { broker } => {
                    let bi = self.resolve_broker(broker, format!("{path}.broker"))?;
                    if let Some(x) = self.cluster.brokers.get(bi) {
                        notes.push(format!("{} crashed", x.id));
                    }
                    self.go_down(bi);
                }
                EventKind::RollingRestart {
                    brokers,
                    interval_cycles,
                } => {
                    let list: Vec<usize> = if brokers.is_empty() {
                        (0..self.cluster.brokers.len())
                            .filter(|&b| self.cluster.brokers.get(b).is_some_and(|x| x.live))
                            .collect()
                    } else {
                        brokers
                            .iter()
                            .enumerate()
                            .map(|(k, r)| self.resolve_broker(r, format!("{path}.brokers[{k}]")))
                            .collect::<Result<_, _>>()?
                    };
                    for (k, b) in list.into_iter().enumerate() {
                        let k = u32::try_from(k).unwrap_or(u32::MAX);
                        let down = cycle.saturating_add(k.saturating_mul(*interval_cycles));
                        self.downs.entry(down).or_default().push(b);
                        self.ups.entry(down.saturating_add(1)).or_default().push(b);
                    }
                    notes.push("rolling restart begins".to_string());
                }
            }
        }
        let downs = self.downs.remove(&cycle).unwrap_or_default();
        for b in downs {
            if let Some(x) = self.cluster.brokers.get(b) {
                notes.push(format!("{} restarts", x.id));
            }
            self.go_down(b);
        }
        self.settle_membership();
        Ok(())
    }

    /// `BundleSplitterTask`'s splits of this cycle (a bundle unloaded this cycle is left alone).
    fn apply_splits(
        &mut self,
        decided: Vec<ModularSplitCandidate>,
        unloaded: &[String],
        notes: &mut Vec<String>,
    ) -> usize {
        let steps =
            splitter_task::carry_out(&mut self.cluster, self.leader.config(), decided, |b| {
                unloaded.iter().any(|u| u == b)
            });
        let mut done = 0;
        for step in steps {
            let bundle = &step.candidate.bundle;
            match &step.outcome {
                Ok(split) => {
                    if self.opts.record_ownership {
                        self.changes.push(OwnershipChange::Split {
                            bundle: bundle.clone(),
                            cut_points: split.cut_points.clone(),
                        });
                        self.decisions.push(CycleDecision {
                            kind: "split".to_string(),
                            bundle: bundle.clone(),
                            from: step.candidate.broker.clone(),
                            to: None,
                            reason: step.reason_text(),
                        });
                    }
                    // The parent keeps its index (tombstoned) in the bundle table.
                    if let Some(&idx) = self.cluster.bundle_index.get(bundle.as_str()) {
                        self.churn.forget(idx);
                    }
                    done += 1;
                }
                Err(why) => notes.push(format!("split of {bundle} not done: {why}")),
            }
        }
        done
    }

    fn cycle(&mut self, cycle: u32) -> Result<CycleMetrics, SimulateError> {
        let now = self.now_ms(cycle);
        let interval_minutes = (self.interval_ms / 60_000) as f64;
        let mut m = CycleMetrics {
            cycle,
            minute: i64::from(cycle) * (self.interval_ms / 60_000),
            ..CycleMetrics::default()
        };
        self.cluster
            .set_traffic(&self.scenario.load, self.opts.seed, cycle, interval_minutes);
        // The leader's data before this cycle's samples: what a recorded snapshot stores, since
        // the leader's view of it applies the reports' samples once more.
        let before = match (&self.series, cycle) {
            (Some(_), 1..) => Some(self.cluster.data().bundle_data.clone()),
            _ => None,
        };
        if cycle > 0 {
            self.cluster.publish_reports(cycle, now);
        }
        self.apply_events(cycle, &mut m.events)?;
        let mut reassigned = 0;
        self.place_orphans(cycle, &mut reassigned);
        m.bundles_reassigned = reassigned;
        if let Some(series) = self.series.as_mut() {
            series.record(&self.cluster, before.as_ref(), now);
        }

        let weights = self.leader.config().resource_weights();
        // The same values `broker_usages` gives, without copying every broker's name each cycle
        // unless they are recorded.
        let usages: Vec<f64> = self
            .cluster
            .data()
            .brokers
            .values()
            .map(|b| b.local.max_resource_usage_with_weight(&weights))
            .collect();
        let spread = UsageSpread::of(usages.iter().copied());
        m.brokers = usages.len();
        m.max_usage_fraction = spread.max_usage_fraction;
        m.mean_usage_fraction = spread.mean_usage_fraction;
        m.max_over_mean = spread.max_over_mean;
        m.std_usage_fraction = spread.std_usage_fraction;
        m.brokers_over_capacity = self
            .cluster
            .data()
            .brokers
            .values()
            .filter(|b| b.local.max_resource_usage() > 1.0)
            .count();
        if self.opts.record_broker_usage {
            m.broker_usage_fraction = broker_usages(self.cluster.data(), &weights);
        }

        let Tick {
            splits,
            shedding: report,
        } = self.cluster.tick(&mut self.leader, now, trace_at(cycle));
        let mut unloaded = Vec::new();
        for u in &report.unloads {
            let (Some(idx), Some(to)) = (
                self.cluster.bundle_by_name(&u.bundle),
                self.cluster.broker_by_id(&u.to),
            ) else {
                continue;
            };
            let bytes = self
                .cluster
                .bundles
                .get(idx)
                .map_or(0.0, |b| b.current.total_msg_throughput());
            let Some(from) = self.cluster.detach(idx) else {
                continue;
            };
            self.cluster.attach(idx, to);
            self.record_owner(&u.bundle, Some(to));
            if self.opts.record_ownership {
                self.decisions.push(CycleDecision {
                    kind: "unload".to_string(),
                    bundle: u.bundle.clone(),
                    from: u.from.clone(),
                    to: Some(u.to.clone()),
                    reason: shedding_reason(u),
                });
            }
            let (thrash, recent) = self.churn.record(idx, from, to, cycle);
            m.bundles_unloaded += 1;
            m.bytes_moved_per_sec += bytes;
            m.thrashing += usize::from(thrash);
            m.unloads_from_recent_destinations += usize::from(recent);
            unloaded.push(u.bundle.clone());
        }
        m.bytes_moved = m.bytes_moved_per_sec * (self.interval_ms as f64 / 1000.0);
        m.splits = self.apply_splits(splits, &unloaded, &mut m.events);
        m.ownership = std::mem::take(&mut self.changes);
        m.decisions = std::mem::take(&mut self.decisions);
        Ok(m)
    }
}
