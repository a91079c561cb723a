//! Why each change happened: the leader's shedding (its cycle replayed on the earlier snapshot
//! with its state carried along the series, `leader::step`), an automatic split
//! (`BundleSplitterTask` predicted it), a broker leaving (its bundles re-assigned by lookups), a
//! namespace created (its bundles' first owners), or unexplained — listed, never hidden.

use std::collections::HashMap;

use indexmap::IndexMap;

use crate::config::Profile;
use crate::leader::splitter_task::split_reason;
use crate::leader::step::{CarriedLeader, LeaderStep};
use crate::model::Snapshot;
use crate::plan::PlanError;
use crate::plan::reasons::shedding_reason;

pub use super::cause::Cause;
use super::diff::{Change, diff_changed};
use super::metrics::summarize;
use super::report::{ExplainedChange, HISTORY_FORMAT_VERSION, HistoryReport, PredictedNotSeen};
use super::series::Series;

/// How to replay the leader.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExplainOptions {
    /// `None`: detected from the first snapshot's brokers.
    pub profile: Option<Profile>,
    /// `broker.conf` overrides applied to every snapshot's own.
    pub settings: Vec<(String, String)>,
    /// Seed of the replayed leader's random picks.
    pub seed: u64,
    /// The load model checked against the series (a calibration's factors, else the default).
    pub load_model: crate::load::LoadModel,
}

/// What is waiting between snapshots: bundles that lost their owner, and why.
#[derive(Default)]
struct Pending {
    /// bundle → the cause it lost its owner by (a leave, or a predicted unload).
    unowned: HashMap<String, Cause>,
}

/// Explains a series: every change between consecutive snapshots with its cause, and the summary.
pub fn explain(series: &Series, opts: &ExplainOptions) -> Result<HistoryReport, PlanError> {
    let Some(first) = series.snapshots.first() else {
        return Ok(HistoryReport::empty());
    };
    let mut ex = Explainer::new(first, opts)?;
    for s in &series.snapshots {
        ex.push(s.clone())?;
    }
    Ok(ex.finish())
}

/// Explains a series one snapshot at a time (only the latest is kept), for series too large to
/// hold: push them in time order, then `finish`.
pub struct Explainer {
    leader: CarriedLeader,
    report: HistoryReport,
    usages: Vec<IndexMap<String, f64>>,
    pending: Pending,
    /// The latest snapshot, its time and the leader's cycle on it.
    previous: Option<(Snapshot, i64, LeaderStep)>,
    grace_ms: i64,
    balanced_std_fraction: f64,
    /// The one load model's predictions on each step's moves against the next snapshot.
    accuracy: crate::load::accuracy::AccuracyCheck,
}

impl Explainer {
    /// The leader is configured from `first` (normally the series' first snapshot).
    pub fn new(first: &Snapshot, opts: &ExplainOptions) -> Result<Self, PlanError> {
        let leader = CarriedLeader::new(first, opts.profile, &opts.settings, opts.seed)?;
        let (shedding_strategy, placement_strategy) = leader.strategy_names();
        let grace_ms = leader
            .config()
            .load_balancer_shedding_grace_period_minutes
            .max(0)
            .saturating_mul(60_000);
        let balanced_std_fraction = leader
            .config()
            .load_balancer_broker_threshold_shedder_percentage
            as f64
            / 100.0;
        Ok(Self {
            leader,
            report: HistoryReport {
                format_version: HISTORY_FORMAT_VERSION,
                shedding_strategy,
                placement_strategy,
                release_basis: crate::config::settings::release_basis(first, opts.profile).ok(),
                ..HistoryReport::default()
            },
            usages: Vec::new(),
            pending: Pending::default(),
            previous: None,
            grace_ms,
            balanced_std_fraction,
            accuracy: crate::load::accuracy::AccuracyCheck::new(opts.load_model.clone()),
        })
    }

    /// Rebuilds the leader's view from each snapshot instead of updating it (same report, the
    /// cost before the view was kept; the history bench's baseline).
    pub fn rebuild_view_each_step(&mut self) {
        self.leader.set_rebuild_each_step(true);
    }

    /// The next snapshot in time order (its `captured_at_ms`, 0 when missing).
    pub fn push(&mut self, snapshot: Snapshot) -> Result<(), PlanError> {
        self.push_returning(snapshot).map(drop)
    }

    /// [`Self::push`], giving back the earlier snapshot the explainer no longer needs (unmodified,
    /// for `store::StoredSeries::recycle`).
    pub fn push_returning(&mut self, snapshot: Snapshot) -> Result<Option<Snapshot>, PlanError> {
        self.push_changed(snapshot, None)
    }

    /// [`Self::push_returning`] when only the reports of `changed_brokers` may differ from those of
    /// the snapshot pushed before (`None`: unknown; the store's
    /// `StoredSeries::next_snapshot_with_changes` knows): the leader's view compares only those.
    pub fn push_changed(
        &mut self,
        snapshot: Snapshot,
        changed_brokers: Option<&[String]>,
    ) -> Result<Option<Snapshot>, PlanError> {
        let at = snapshot.captured_at_ms.unwrap_or(0);
        // A hint is about the snapshot pushed just before; the first one has none.
        let changed_brokers = changed_brokers.filter(|_| self.previous.is_some());
        let step = self.leader.step_changed(&snapshot, at, changed_brokers)?;
        self.usages.push(step.broker_usage_fraction.clone());
        self.report.times_ms.push(at);
        let mut done = None;
        if let Some((before, before_at, before_step)) = self.previous.take() {
            let changes = diff_changed(&before, &snapshot, changed_brokers);
            let index = self.report.times_ms.len().saturating_sub(2);
            if before.broker_conf != snapshot.broker_conf {
                let room = super::report::MAX_CONFIG_CHANGES
                    .saturating_sub(self.report.config_changes.len());
                let found = super::report::config_changes(
                    index,
                    at,
                    &before.broker_conf,
                    &snapshot.broker_conf,
                );
                self.report
                    .config_changes
                    .extend(found.into_iter().take(room));
            }
            attribute(
                index,
                before_at,
                at,
                &before,
                changes,
                &before_step,
                &mut self.pending,
                &mut self.report,
            );
            self.accuracy
                .step_changed(&before, &snapshot, changed_brokers);
            done = Some(before);
        }
        self.previous = Some((snapshot, at, step));
        Ok(done)
    }

    pub fn finish(self) -> HistoryReport {
        let accuracy = self.accuracy.clone();
        self.complete(self.report.clone(), accuracy)
    }

    /// The report of the snapshots pushed so far, as [`Self::finish`] would give it, while the
    /// explainer goes on (`lbplan watch` asks after every snapshot instead of replaying the series).
    pub fn report_so_far(&self) -> HistoryReport {
        self.complete(self.report.clone(), self.accuracy.clone())
    }

    /// The finished fields (summary, answers, load over time) of `report`.
    fn complete(
        &self,
        mut report: HistoryReport,
        accuracy: crate::load::accuracy::AccuracyCheck,
    ) -> HistoryReport {
        report.warnings = self.leader.warnings().to_vec();
        report.load_model = accuracy.finish();
        report.broker_load = super::metrics::broker_load_over_time(&self.usages);
        report.summary = summarize(
            &report,
            &self.usages,
            self.grace_ms,
            self.balanced_std_fraction,
        );
        report.answers = super::answers::answer(&report);
        report
    }

    /// The report as it is being built: its times, changes and unseen predictions only (the
    /// summary, answers and load over time are filled by [`Self::report_so_far`] and
    /// [`Self::finish`]); for a caller that reads the changes after every push without paying
    /// for the whole report each time.
    pub fn changes_so_far(&self) -> &HistoryReport {
        &self.report
    }

    /// The latest snapshot pushed (the one the next push is compared with).
    pub fn latest(&self) -> Option<&Snapshot> {
        self.previous.as_ref().map(|(s, _, _)| s)
    }

    /// Snapshots pushed and still kept (the report's `times_ms`).
    pub fn kept_snapshots(&self) -> usize {
        self.report.times_ms.len()
    }

    /// Forgets the snapshots captured before `cutoff_ms` (always keeping the latest, which the
    /// next push is compared with) and the changes and unseen predictions that start at them;
    /// the steps of what remains are renumbered from 0. The carried leader and the bundles
    /// waiting for an owner are kept, so what follows is explained exactly as before; the load
    /// model's accuracy starts again (it summarises the kept window). Returns how many snapshots
    /// were forgotten. A long-running explainer (`lbplan watch`) stays bounded this way.
    pub fn forget_before(&mut self, cutoff_ms: i64) -> usize {
        let times = &self.report.times_ms;
        let keep_from = times.len().saturating_sub(1);
        let k = times
            .iter()
            .take(keep_from)
            .take_while(|t| **t < cutoff_ms)
            .count();
        if k == 0 {
            return 0;
        }
        self.report.times_ms.drain(..k);
        self.usages.drain(..k.min(self.usages.len()));
        self.report.changes.retain(|c| c.step >= k);
        for c in &mut self.report.changes {
            c.step = c.step.saturating_sub(k);
        }
        self.report.predicted_not_seen.retain(|p| p.step >= k);
        for p in &mut self.report.predicted_not_seen {
            p.step = p.step.saturating_sub(k);
        }
        self.accuracy = crate::load::accuracy::AccuracyCheck::new(self.accuracy.model().clone());
        k
    }
}

#[allow(clippy::too_many_arguments)]
fn attribute(
    step_index: usize,
    from_ms: i64,
    at_ms: i64,
    before: &Snapshot,
    changes: Vec<Change>,
    step: &LeaderStep,
    pending: &mut Pending,
    report: &mut HistoryReport,
) {
    let predicted: HashMap<&str, &crate::modular::leader::CycleUnload> = step
        .shedding
        .unloads
        .iter()
        .map(|u| (u.bundle.as_str(), u))
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    let left: Vec<String> = changes
        .iter()
        .filter_map(|c| match c {
            Change::BrokerLeft { broker, .. } => Some(broker.clone()),
            _ => None,
        })
        .collect();
    let created: Vec<String> = changes
        .iter()
        .filter_map(|c| match c {
            Change::NamespaceCreated { namespace } => Some(namespace.clone()),
            _ => None,
        })
        .collect();
    let unexplained = |why: &str| Cause::Unexplained {
        why: why.to_string(),
    };
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        let cause = match &change {
            Change::BrokerJoined { .. }
            | Change::BrokerLeft { .. }
            | Change::NamespaceDeleted { .. }
            | Change::NamespaceCreated { .. } => Cause::Observed,
            Change::Moved { bundle, from, to } => {
                let shed = predicted.get(bundle.as_str());
                // A bundle the leader shed to where it went, from a broker that then left, moved
                // by the shedding; one that went elsewhere was re-assigned after the leave.
                if let Some(u) = shed.filter(|u| u.to == *to || !left.contains(from)) {
                    seen.push(u.bundle.as_str());
                    Cause::LeaderShedding {
                        predicted_to: u.to.clone(),
                        destination_agrees: u.to == *to,
                        reason: shedding_reason(u),
                    }
                } else if left.contains(from) {
                    if let Some(u) = shed {
                        seen.push(u.bundle.as_str());
                    }
                    Cause::BrokerLeft {
                        broker: from.clone(),
                    }
                } else {
                    unexplained(
                        "the replayed leader did not unload it and its owner did not leave \
                         (a manual unload, a client lookup, or a model gap)",
                    )
                }
            }
            Change::Unassigned { bundle, from } => {
                let cause = if left.contains(from) {
                    Cause::BrokerLeft {
                        broker: from.clone(),
                    }
                } else if let Some(u) = predicted.get(bundle.as_str()) {
                    seen.push(u.bundle.as_str());
                    Cause::LeaderShedding {
                        predicted_to: u.to.clone(),
                        destination_agrees: false,
                        reason: shedding_reason(u),
                    }
                } else {
                    unexplained("unowned without a predicted unload or a broker leaving")
                };
                pending.unowned.insert(bundle.clone(), cause.clone());
                cause
            }
            Change::Assigned { bundle, to } => match pending.unowned.remove(bundle) {
                Some(Cause::LeaderShedding {
                    predicted_to,
                    reason,
                    ..
                }) => Cause::LeaderShedding {
                    destination_agrees: predicted_to == *to,
                    predicted_to,
                    reason,
                },
                Some(Cause::BrokerLeft { broker }) => Cause::BrokerLeft { broker },
                Some(other) => other,
                None => {
                    let ns = crate::naming::BundleName::parts(bundle).map_or("", |(ns, _)| ns);
                    if created.iter().any(|c| c == ns) {
                        Cause::NamespaceCreated {
                            namespace: ns.to_string(),
                        }
                    } else {
                        unexplained(
                            "owned now, no owner before, and no earlier unload or leave explains it",
                        )
                    }
                }
            },
            Change::Split { parent, .. } => {
                match step.splits.iter().find(|s| s.bundle == *parent) {
                    Some(s) => {
                        let triggers: Vec<String> =
                            s.triggers.iter().map(|t| t.to_string()).collect();
                        Cause::AutomaticSplit {
                            reason: split_reason(&triggers),
                        }
                    }
                    None => unexplained(
                        "BundleSplitterTask did not choose it (a manual split, or a model gap)",
                    ),
                }
            }
        };
        let throughput_bytes_per_sec = match &change {
            Change::Moved { bundle, from, .. } | Change::Unassigned { bundle, from } => {
                throughput(before, from, bundle)
            }
            _ => 0.0,
        };
        out.push(ExplainedChange {
            throughput_bytes_per_sec,
            step: step_index,
            from_ms,
            at_ms,
            change,
            cause,
        });
    }
    for u in &step.shedding.unloads {
        if !seen.contains(&u.bundle.as_str()) && before.brokers.contains_key(&u.from) {
            report.predicted_not_seen.push(PredictedNotSeen {
                step: step_index,
                at_ms: from_ms,
                bundle: u.bundle.clone(),
                from: u.from.clone(),
                to: u.to.clone(),
                reason: shedding_reason(u),
            });
        }
    }
    report.changes.extend(out);
}

/// Throughput (in + out, bytes/s) of `bundle` in its owner's report.
fn throughput(snapshot: &Snapshot, owner: &str, bundle: &str) -> f64 {
    snapshot
        .brokers
        .get(owner)
        .and_then(|b| b.local_broker_data.last_stats.get(bundle))
        .map_or(0.0, |s| s.msg_throughput_in + s.msg_throughput_out)
}
