//! The candidate pipeline's explain layer: what each step of one placement left, recorded at the
//! context's [`PipelineTrace`] level. Plans record every step with its candidates named and its
//! numbers ([`PipelineStage`]); the history, which reads only the one-line reason, records each
//! step as counts ([`StageCount`]); the simulation records nothing. The decisions never depend on it.

use serde::{Deserialize, Serialize};

use super::LoadData;
use super::placement::{PipelineTrace, PlacementChoice, name_at};
use super::placement_context::{Candidates, PlacementContext};
use crate::isolation::NamespacePoliciesOutcome;

/// The candidates' names in iteration order.
pub(super) fn names_of(set: &Candidates, data: &LoadData) -> Vec<String> {
    set.iter().map(|&p| name_at(data, p).to_string()).collect()
}

/// One pipeline step and what it left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PipelineStage {
    /// `after_namespace_policies`, `after_large_topic_count`, `after_anti_affinity`,
    /// `after_distribute_evenly`, `after_broker_filters`, `after_restore_all`, `reselect_policy_only`.
    pub stage: String,
    /// Candidates after the step, in iteration order.
    pub remaining: Vec<String>,
    /// Candidates the step removed (or, for restores, that it brought back).
    pub removed: Vec<String>,
    /// The numbers behind the step, when it has any.
    pub note: Option<String>,
}

/// One pipeline step as the one-line reason reads it (`plan::reasons`): its stage name and how many
/// candidates it left and removed. What [`PipelineTrace::Counts`] records instead of the names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageCount<'a> {
    /// As [`PipelineStage::stage`].
    pub stage: &'a str,
    pub remaining: usize,
    pub removed: usize,
}

impl PipelineStage {
    /// This step's counts.
    pub fn count(&self) -> StageCount<'_> {
        StageCount {
            stage: &self.stage,
            remaining: self.remaining.len(),
            removed: self.removed.len(),
        }
    }
}

/// The pipeline's answer for one bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementOutcome {
    pub bundle: String,
    /// The chosen broker; `None` when no broker is available.
    pub broker: Option<String>,
    /// The strategy's final answer (after the overload re-selection, if it ran).
    pub choice: Option<PlacementChoice>,
    /// The strategy that decided (`RoundRobinBrokerSelector` for excluded namespaces).
    pub strategy: String,
    /// Every step with its candidates named ([`PipelineTrace::Full`] and [`PipelineTrace::Stages`]).
    pub stages: Vec<PipelineStage>,
    /// Every step as counts ([`PipelineTrace::Counts`]; empty when `stages` is recorded). Not part
    /// of the plan document: read it through [`Self::stage_counts`].
    #[serde(skip)]
    pub stage_counts: Vec<StageCount<'static>>,
    /// The first choice when it landed on an overloaded broker and the strategy was re-run on the
    /// policy-only set.
    pub overloaded_first_choice: Option<PlacementChoice>,
    /// Answered from `preallocatedBundleToBroker` without running the pipeline.
    pub from_preallocation: bool,
}

impl PlacementOutcome {
    /// The recorded steps as counts, from the named stages when they were recorded (the same counts
    /// [`PipelineTrace::Counts`] records for the same placement). Empty when nothing was recorded.
    pub fn stage_counts(&self) -> Vec<StageCount<'_>> {
        if self.stages.is_empty() {
            self.stage_counts.clone()
        } else {
            self.stages.iter().map(PipelineStage::count).collect()
        }
    }
}

/// The explanation of the namespace-policy step, when isolation policies exist.
pub(super) fn namespace_policies_note(
    ctx: &PlacementContext,
    outcome: &NamespacePoliciesOutcome<()>,
) -> Option<String> {
    if ctx.isolation.is_empty() {
        return None;
    }
    Some(match &outcome.policy {
        Some(name) => {
            let min_limit = outcome.min_limit.unwrap_or(0);
            format!(
                "isolation policy `{name}`: {} primary broker(s){}",
                outcome.primaries,
                if outcome.failover {
                    format!(
                        " < min_limit={min_limit}, so {} secondary broker(s) added",
                        outcome.secondaries
                    )
                } else {
                    format!(" >= min_limit={min_limit}, secondaries not used")
                }
            )
        }
        None => "no isolation policy for this namespace: only shared brokers (not a primary of any policy)".to_string(),
    })
}
/// The stage names, as [`PipelineStage::stage`] spells them.
pub(super) mod stage {
    pub const NAMESPACE_POLICIES: &str = "after_namespace_policies";
    pub const LARGE_TOPIC_COUNT: &str = "after_large_topic_count";
    pub const ANTI_AFFINITY: &str = "after_anti_affinity";
    pub const DISTRIBUTE_EVENLY: &str = "after_distribute_evenly";
    pub const BROKER_FILTERS: &str = "after_broker_filters";
    pub const RESTORE_ALL: &str = "after_restore_all";
    pub const RESELECT_POLICY_ONLY: &str = "reselect_policy_only";
}

/// What a [`StageLog`] keeps.
#[derive(Clone)]
enum Record {
    Nothing,
    Counts(Vec<StageCount<'static>>),
    Named(Vec<PipelineStage>),
}

/// The steps of one selection as the trace level asks: named at [`PipelineTrace::Full`] and
/// [`PipelineTrace::Stages`], counted at [`PipelineTrace::Counts`], nothing below. The pipeline
/// calls [`Self::mark`] before a step and [`Self::step`] after it; both are no-ops when nothing is
/// recorded, and counting allocates no names.
pub(super) struct StageLog<'d> {
    data: &'d LoadData,
    record: Record,
    /// The candidates before the step being recorded (positions in `data.brokers`).
    before: Vec<usize>,
    /// Scratch: whether each broker position is in the set after the step.
    kept: Vec<bool>,
}

impl<'d> StageLog<'d> {
    pub(super) fn new(data: &'d LoadData, trace: PipelineTrace) -> Self {
        let record = match trace {
            PipelineTrace::Off | PipelineTrace::Summary => Record::Nothing,
            PipelineTrace::Counts => Record::Counts(Vec::new()),
            PipelineTrace::Stages | PipelineTrace::Full => Record::Named(Vec::new()),
        };
        Self {
            data,
            record,
            before: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// Whether the steps are named: only then are their notes read (the caller formats them only then).
    /// The steps recorded so far, to resume a log from (see [`Self::resumed`]).
    pub(super) fn steps_so_far(&self) -> LoggedSteps {
        LoggedSteps(self.record.clone())
    }

    /// A log that has already recorded `steps` (taken with [`Self::steps_so_far`] from a log of
    /// the same trace level).
    pub(super) fn resumed(data: &'d LoadData, steps: &LoggedSteps) -> Self {
        Self {
            data,
            record: steps.0.clone(),
            before: Vec::new(),
            kept: Vec::new(),
        }
    }

    pub(super) fn named(&self) -> bool {
        matches!(self.record, Record::Named(_))
    }

    fn on(&self) -> bool {
        !matches!(self.record, Record::Nothing)
    }

    /// Remembers the candidates before a step.
    pub(super) fn mark(&mut self, set: &Candidates) {
        if self.on() {
            self.before.clear();
            // Sized first: the set's iterator gives no useful size hint, so extending alone
            // regrew the vector several times per step.
            self.before.reserve(set.len());
            self.before.extend(set.iter().copied());
        }
    }

    /// Fills `kept` with the membership of every broker position in `set`.
    fn fill_kept(&mut self, set: &Candidates) {
        self.kept.clear();
        self.kept.resize(self.data.brokers.len(), false);
        for &pos in set.iter() {
            if let Some(k) = self.kept.get_mut(pos) {
                *k = true;
            }
        }
    }

    fn is_kept(&self, pos: usize) -> bool {
        self.kept.get(pos).copied().unwrap_or(false)
    }

    /// The first step, narrowing the available brokers (`None`: every broker with load data;
    /// a listed one may have none, and then it is removed).
    pub(super) fn first_step(
        &mut self,
        stage: &'static str,
        available: Option<&[String]>,
        set: &Candidates,
        note: Option<String>,
    ) {
        if !self.on() {
            return;
        }
        self.fill_kept(set);
        let data = self.data;
        let removed_by_name = |b: &String| {
            data.brokers
                .get_index_of(b.as_str())
                .is_none_or(|pos| !self.is_kept(pos))
        };
        let entry = match &self.record {
            Record::Named(_) => {
                let removed = match available {
                    Some(list) => list
                        .iter()
                        .filter(|b| removed_by_name(b))
                        .cloned()
                        .collect(),
                    None => (0..data.brokers.len())
                        .filter(|&pos| !self.is_kept(pos))
                        .map(|pos| name_at(data, pos).to_string())
                        .collect(),
                };
                Entry::Named(PipelineStage {
                    stage: stage.to_string(),
                    remaining: names_of(set, data),
                    removed,
                    note,
                })
            }
            _ => {
                let removed = match available {
                    Some(list) => list.iter().filter(|b| removed_by_name(b)).count(),
                    None => (0..data.brokers.len())
                        .filter(|&pos| !self.is_kept(pos))
                        .count(),
                };
                Entry::Count(StageCount {
                    stage,
                    remaining: set.len(),
                    removed,
                })
            }
        };
        self.push(entry);
    }

    /// A step that changed the set from the one [`Self::mark`] saw.
    pub(super) fn step(&mut self, stage: &'static str, set: &Candidates, note: Option<String>) {
        if !self.on() {
            return;
        }
        self.fill_kept(set);
        let data = self.data;
        let removed = self.before.iter().filter(|&&pos| !self.is_kept(pos));
        let entry = match &self.record {
            Record::Named(_) => Entry::Named(PipelineStage {
                stage: stage.to_string(),
                remaining: names_of(set, data),
                removed: removed.map(|&pos| name_at(data, pos).to_string()).collect(),
                note,
            }),
            _ => Entry::Count(StageCount {
                stage,
                remaining: set.len(),
                removed: removed.count(),
            }),
        };
        self.push(entry);
    }

    /// [`Self::mark`] for candidates held as a list of positions (in iteration order).
    pub(super) fn mark_positions(&mut self, positions: impl Iterator<Item = usize>) {
        if self.on() {
            self.before.clear();
            self.before.extend(positions);
        }
    }

    /// [`Self::step_retained`] for candidates held as a list, `remaining` of them left: counted
    /// only. Callers record steps this way only when the steps are not named (see
    /// [`Self::named`]); a named log records nothing here.
    pub(super) fn step_retained_count(&mut self, stage: &'static str, remaining: usize) {
        if let Record::Counts(_) = &self.record {
            self.push(Entry::Count(StageCount {
                stage,
                remaining,
                removed: self.before.len().saturating_sub(remaining),
            }));
        }
    }

    /// A step that only removed candidates from the set [`Self::mark`] saw (a `retain`): counted,
    /// what it removed is the difference of the sizes, so no membership is filled; named, as
    /// [`Self::step`].
    pub(super) fn step_retained(
        &mut self,
        stage: &'static str,
        set: &Candidates,
        note: Option<String>,
    ) {
        match &self.record {
            Record::Nothing => {}
            Record::Named(_) => self.step(stage, set, note),
            Record::Counts(_) => self.push(Entry::Count(StageCount {
                stage,
                remaining: set.len(),
                removed: self.before.len().saturating_sub(set.len()),
            })),
        }
    }

    /// No candidate was left and the policy-only set in `set` was brought back: every one of them
    /// counts as remaining and as brought back.
    pub(super) fn restored_all(&mut self, set: &Candidates) {
        let entry = match &self.record {
            Record::Nothing => return,
            Record::Named(_) => {
                let restored = names_of(set, self.data);
                Entry::Named(PipelineStage {
                    stage: stage::RESTORE_ALL.to_string(),
                    remaining: restored.clone(),
                    removed: restored,
                    note: Some("no candidate left; restored the policy-only set".to_string()),
                })
            }
            Record::Counts(_) => Entry::Count(StageCount {
                stage: stage::RESTORE_ALL,
                remaining: set.len(),
                removed: set.len(),
            }),
        };
        self.push(entry);
    }

    /// The strategy is re-run on `candidates` (the policy-only set) because its first choice was
    /// overloaded; `note` says why (read only when [`Self::named`]).
    pub(super) fn reselected(&mut self, candidates: &[usize], note: impl FnOnce() -> String) {
        let data = self.data;
        let entry = match &self.record {
            Record::Nothing => return,
            Record::Named(_) => Entry::Named(PipelineStage {
                stage: stage::RESELECT_POLICY_ONLY.to_string(),
                remaining: candidates
                    .iter()
                    .map(|&pos| name_at(data, pos).to_string())
                    .collect(),
                removed: Vec::new(),
                note: Some(note()),
            }),
            Record::Counts(_) => Entry::Count(StageCount {
                stage: stage::RESELECT_POLICY_ONLY,
                remaining: candidates.len(),
                removed: 0,
            }),
        };
        self.push(entry);
    }

    fn push(&mut self, entry: Entry) {
        match (&mut self.record, entry) {
            (Record::Named(stages), Entry::Named(s)) => stages.push(s),
            (Record::Counts(counts), Entry::Count(c)) => counts.push(c),
            _ => {}
        }
    }

    /// The recorded steps: (named, counted); at most one is non-empty.
    pub(super) fn finish(self) -> (Vec<PipelineStage>, Vec<StageCount<'static>>) {
        match self.record {
            Record::Nothing => (Vec::new(), Vec::new()),
            Record::Counts(counts) => (Vec::new(), counts),
            Record::Named(stages) => (stages, Vec::new()),
        }
    }
}

/// One step as recorded.
/// The steps a [`StageLog`] recorded, kept to resume another log from.
#[derive(Clone)]
pub(super) struct LoggedSteps(Record);

enum Entry {
    Named(PipelineStage),
    Count(StageCount<'static>),
}
