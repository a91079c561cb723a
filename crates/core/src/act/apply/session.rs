//! One run of a guarded apply, as data: which steps it sends (a plan's steps for a new run; the
//! steps its journal does not record as done, for a resume; the journal's done unloads sent back to
//! their sources, last first, for a rollback), what the pre-flight check against the live owners
//! decides, and how each result is written into the journal. `lbplan apply --resume/--rollback`
//! and the dashboard's Resume / Roll back drive this one model and do only the IO (HTTP, waiting,
//! writing or offering the journal).

use serde::Serialize;

use super::affinity_batches::{AffinityBatches, affinity_batches, affinity_by_range};
use super::check::{Drift, LiveOwners, Outcome, already_applied, drifted, verify};
use super::journal::{Journal, JournalError, StepStatus};
use super::{ApplyPlan, ApplyStep, StepKind};
use crate::act::export::{ExportError, StepCall};

/// What a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Every step of the plan.
    Apply,
    /// The steps a journal does not record as done.
    Resume,
    /// The journal's done unloads moved back.
    Rollback,
}

/// Why a resume or rollback cannot start from a journal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Export(#[from] ExportError),
}

/// What the pre-flight check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preflight {
    /// Steps of a resume the cluster already shows as applied (recorded as done, not sent).
    pub already_applied: Vec<(usize, Outcome)>,
    /// Steps whose bundle is not where the run expects it: the run is refused.
    pub drift: Vec<Drift>,
}

/// One run: its steps, the ones still to send, and the journal it updates.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub mode: Mode,
    /// The steps this run may send. A step's `index` is its place in the journal; for a rollback
    /// each step is the move back of the journal step it undoes.
    pub steps: Vec<ApplyStep>,
    /// Positions in `steps` still to send, in order.
    pub pending: Vec<usize>,
    /// For a rollback: bundles the run split, which stay split (Pulsar cannot merge bundles).
    pub permanent_splits: Vec<String>,
    pub journal: Journal,
    /// Whether the plan's release keys destination affinity by range (before apache/pulsar#25518):
    /// then [`Session::batches`] never sends two same-range destination unloads together.
    pub affinity_by_range: bool,
}

impl Session {
    /// A new run of every step of `plan`, with a new journal.
    pub fn apply(plan: &ApplyPlan, admin_url: &str) -> Self {
        Self {
            mode: Mode::Apply,
            steps: plan.steps.clone(),
            pending: (0..plan.steps.len()).collect(),
            permanent_splits: Vec::new(),
            journal: Journal::new(plan, admin_url),
            affinity_by_range: affinity_by_range(&plan.context.profile),
        }
    }

    /// Continues the run `journal` records: the steps not done, in order. The journal must be of
    /// this plan (same snapshot and calls).
    pub fn resume(plan: &ApplyPlan, journal: Journal) -> Result<Self, SessionError> {
        journal.check_matches(plan)?;
        Ok(Self {
            mode: Mode::Resume,
            steps: plan.steps.clone(),
            pending: journal.resume_indices(),
            permanent_splits: Vec::new(),
            journal,
            affinity_by_range: affinity_by_range(&plan.context.profile),
        })
    }

    /// Moves back what the run `journal` records as done: each done unload to its source broker,
    /// last first, checked and verified like any step (the bundle must be where the run put it).
    pub fn rollback(plan: &ApplyPlan, journal: Journal) -> Result<Self, SessionError> {
        journal.check_matches(plan)?;
        let steps: Vec<ApplyStep> = journal
            .rollback_steps(plan)?
            .into_iter()
            .map(|m| ApplyStep {
                index: m.index,
                expected: Some(format!(
                    "move {} back: {} → {}",
                    m.bundle,
                    m.expected_owner.as_deref().unwrap_or("?"),
                    m.back_to
                )),
                step: StepCall {
                    kind: StepKind::Unload,
                    bundle: Some(m.bundle),
                    expected_owner: m.expected_owner,
                    destination: Some(m.back_to.clone()),
                    predicted: Some(m.back_to),
                    call: m.call,
                },
            })
            .collect();
        Ok(Self {
            mode: Mode::Rollback,
            pending: (0..steps.len()).collect(),
            permanent_splits: journal
                .permanent_splits()
                .into_iter()
                .map(str::to_string)
                .collect(),
            steps,
            journal,
            affinity_by_range: affinity_by_range(&plan.context.profile),
        })
    }

    /// Whether this run keeps automatic shedding paused: asked for, or left paused by an earlier
    /// run of its journal (killed, or its restore failed). Such a pause is kept through this run
    /// and put back at its end (to the journal's `shedding_before`, never to the paused value),
    /// with or without `--pause-shedding`, in a resume as in a rollback.
    pub fn pauses_shedding(&self, requested: bool) -> bool {
        requested || self.journal.shedding_left_paused()
    }

    pub fn is_rollback(&self) -> bool {
        self.mode == Mode::Rollback
    }

    /// The steps still to send, in order.
    pub fn pending_steps(&self) -> impl Iterator<Item = &ApplyStep> {
        self.pending.iter().filter_map(|&p| self.steps.get(p))
    }

    /// The pending positions cut into batches of `size`; on a release before apache/pulsar#25518
    /// also before a second destination unload of a range already in the batch
    /// ([`affinity_batches`]).
    pub fn batches(&self, size: usize) -> Vec<Vec<usize>> {
        self.batch_plan(size).batches
    }

    /// The batches and, for each batch cut by the release's range-keyed affinity, why.
    pub fn batch_plan(&self, size: usize) -> AffinityBatches {
        affinity_batches(&self.steps, &self.pending, size, self.affinity_by_range)
    }

    /// [`Session::batches`], with the reason of each early cut written on its step in the journal
    /// (the dashboard's Apply shows the journal).
    pub fn batches_noting_cuts(&mut self, size: usize) -> Vec<Vec<usize>> {
        let plan = self.batch_plan(size);
        for (pos, note) in &plan.cuts {
            if let Some(index) = self.steps.get(*pos).map(|s| s.index) {
                self.note(index, note);
            }
        }
        plan.batches
    }

    /// The check before the first call. In a resume, a step the cluster already shows as applied
    /// (sent by a run interrupted before verifying it) is recorded as done and no longer pending,
    /// instead of being called drifted. Drifts are returned, not recorded: a dry run reports them,
    /// a run records them with [`Session::record_drift`] and refuses.
    pub fn preflight(&mut self, owners: &LiveOwners) -> Preflight {
        let mut found = Vec::new();
        if self.mode == Mode::Resume {
            found = already_applied(&self.steps, &self.pending, owners);
            self.pending
                .retain(|p| !found.iter().any(|(done, _)| done == p));
            for (i, outcome) in &found {
                let owner = self.owner_of(*i, owners);
                self.journal
                    .record(*i, StepStatus::Done, Some(outcome.clone()), owner, None);
            }
        }
        Preflight {
            already_applied: found,
            drift: drifted(&self.steps, &self.pending, owners),
        }
    }

    /// The bundle owner of the step at position `pos`, if it names a bundle someone owns.
    fn owner_of(&self, pos: usize, owners: &LiveOwners) -> Option<String> {
        self.steps
            .get(pos)
            .and_then(|s| s.step.bundle.as_ref())
            .and_then(|b| owners.get(b))
            .cloned()
    }

    /// Records a drifted step.
    pub fn record_drift(&mut self, d: &Drift) {
        self.record_stop(d.index, StepStatus::Drifted, d.describe());
    }

    /// Records why the step with journal index `index` stopped the run (`Failed` or `Drifted`).
    /// In a rollback the step stays done (its bundle was not moved back) and says why.
    pub fn record_stop(&mut self, index: usize, status: StepStatus, why: String) {
        if self.is_rollback() {
            self.note(index, &format!("rollback: {why}"));
        } else {
            let owner = self
                .journal
                .steps
                .iter()
                .find(|s| s.index == index)
                .and_then(|s| s.owner_after.clone());
            self.journal.record(index, status, None, owner, Some(why));
        }
    }

    /// A note on a step without changing its status.
    pub fn note(&mut self, index: usize, text: &str) {
        if let Some(s) = self.journal.steps.iter_mut().find(|s| s.index == index) {
            s.message = Some(text.to_string());
        }
    }

    /// Records that the batch at `positions` was sent but not verified (the run was interrupted
    /// during the wait); a resume checks them against the cluster first.
    pub fn record_unverified(&mut self, positions: &[usize]) {
        if self.is_rollback() {
            return;
        }
        for &p in positions {
            if let Some(index) = self.steps.get(p).map(|s| s.index) {
                self.note(index, "sent, not verified (interrupted)");
            }
        }
    }

    /// Verifies the step at position `pos` against the owners read after its batch and records
    /// the result: done (rolled back, in a rollback), or failed with the outcome. Returns the
    /// outcome (`None` for a position outside the steps).
    pub fn record_verified(&mut self, pos: usize, owners: &LiveOwners) -> Option<Outcome> {
        let step = self.steps.get(pos)?;
        let index = step.index;
        let owner = self.owner_of(pos, owners);
        let outcome = verify(step, owner.as_deref());
        if outcome.ok() {
            let status = if self.is_rollback() {
                StepStatus::RolledBack
            } else {
                StepStatus::Done
            };
            self.journal
                .record(index, status, Some(outcome.clone()), owner, None);
        } else {
            let label = self.label(pos);
            let why = format!("verification failed: {label} {}", outcome.describe());
            if self.is_rollback() {
                self.note(index, &format!("rollback: {why}"));
            } else {
                self.journal.record(
                    index,
                    StepStatus::Failed,
                    Some(outcome.clone()),
                    owner,
                    Some(why),
                );
            }
        }
        Some(outcome)
    }

    /// How an operator names the step at `pos`: its bundle, else its path.
    pub fn label(&self, pos: usize) -> String {
        self.steps
            .get(pos)
            .map(|s| {
                s.step
                    .bundle
                    .clone()
                    .unwrap_or_else(|| s.step.call.path.clone())
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::act::apply::read_plan;

    /// A split of `a/b/0x00000000_0x80000000` on b1, then `a/b/0x80000000_0xffffffff` b1 → b2 and
    /// `a/c/0x00000000_0xffffffff` b2 → b3, both naming their destination.
    fn plan() -> ApplyPlan {
        let json = serde_json::json!({
            "format_version": 4,
            "snapshot_fingerprint": "fp",
            "splits": [{"bundle": "a/b/0x00000000_0x80000000", "broker": "b1:8080",
                        "algorithm": "range_equally_divide"}],
            "unloads": [
                {"bundle": "a/b/0x80000000_0xffffffff", "from": "b1:8080", "to": "b2:8080",
                 "pass_destination": true},
                {"bundle": "a/c/0x00000000_0xffffffff", "from": "b2:8080", "to": "b3:8080",
                 "pass_destination": true}
            ]
        });
        ApplyPlan::from_plan(&read_plan(&json.to_string()).unwrap()).unwrap()
    }

    fn owners(pairs: &[(&str, &str)]) -> LiveOwners {
        pairs
            .iter()
            .map(|(b, o)| (b.to_string(), o.to_string()))
            .collect()
    }

    /// The run stopped at step 2 (the first unload's call failed): step 1 done, 2 failed, 3 pending.
    fn interrupted() -> Journal {
        let p = plan();
        let mut s = Session::apply(&p, "http://admin:8080");
        s.journal
            .record(0, StepStatus::Done, Some(Outcome::SplitDone), None, None);
        s.record_stop(1, StepStatus::Failed, "HTTP 500".to_string());
        s.journal
    }

    #[test]
    fn a_resume_sends_the_steps_not_done_and_counts_a_sent_step_the_cluster_shows_done() {
        let p = plan();
        let mut s = Session::resume(&p, interrupted()).unwrap();
        assert_eq!(s.pending, vec![1, 2]);
        // The failed unload was in fact applied (b2 owns it now): done, not drifted; the other
        // bundle is still on its source.
        let live = owners(&[
            ("a/b/0x80000000_0xffffffff", "b2:8080"),
            ("a/c/0x00000000_0xffffffff", "b2:8080"),
        ]);
        let pre = s.preflight(&live);
        assert_eq!(
            pre.already_applied,
            vec![(
                1,
                Outcome::Honoured {
                    owner: "b2:8080".to_string()
                }
            )]
        );
        assert!(pre.drift.is_empty());
        assert_eq!(s.pending, vec![2]);
        assert_eq!(s.journal.steps[1].status, StepStatus::Done);
        // The last step lands on its destination.
        let after = owners(&[("a/c/0x00000000_0xffffffff", "b3:8080")]);
        assert!(s.record_verified(2, &after).unwrap().ok());
        assert_eq!(s.journal.counts(), (3, 0, 0));
    }

    #[test]
    fn a_resume_refuses_a_bundle_moved_elsewhere() {
        let p = plan();
        let mut s = Session::resume(&p, interrupted()).unwrap();
        let live = owners(&[
            ("a/b/0x80000000_0xffffffff", "b1:8080"),
            ("a/c/0x00000000_0xffffffff", "b1:8080"),
        ]);
        let pre = s.preflight(&live);
        assert_eq!(pre.drift.len(), 1);
        assert_eq!(pre.drift[0].index, 2);
        s.record_drift(&pre.drift[0]);
        assert_eq!(s.journal.steps[2].status, StepStatus::Drifted);
    }

    #[test]
    fn a_rollback_sends_the_done_unloads_back_last_first_and_leaves_splits() {
        let p = plan();
        let mut j = interrupted();
        j.record(1, StepStatus::Done, None, Some("b2:8080".to_string()), None);
        j.record(2, StepStatus::Done, None, Some("b3:8080".to_string()), None);
        let mut s = Session::rollback(&p, j).unwrap();
        let moves: Vec<_> = s
            .pending_steps()
            .map(|m| {
                (
                    m.index,
                    m.step.call.path.clone(),
                    m.step.expected_owner.clone(),
                )
            })
            .collect();
        assert_eq!(
            moves,
            vec![
                (
                    2,
                    "/admin/v2/namespaces/a/c/0x00000000_0xffffffff/unload?destinationBroker=b2%3A8080"
                        .to_string(),
                    Some("b3:8080".to_string())
                ),
                (
                    1,
                    "/admin/v2/namespaces/a/b/0x80000000_0xffffffff/unload?destinationBroker=b1%3A8080"
                        .to_string(),
                    Some("b2:8080".to_string())
                ),
            ]
        );
        assert_eq!(s.permanent_splits, vec!["a/b/0x00000000_0x80000000"]);
        // Back on its source: rolled back. The second is left where the run put it: stays done.
        let back = owners(&[
            ("a/c/0x00000000_0xffffffff", "b2:8080"),
            ("a/b/0x80000000_0xffffffff", "b2:8080"),
        ]);
        assert!(s.record_verified(0, &back).unwrap().ok());
        assert!(!s.record_verified(1, &back).unwrap().ok());
        assert_eq!(s.journal.steps[2].status, StepStatus::RolledBack);
        assert_eq!(s.journal.steps[1].status, StepStatus::Done);
        assert!(
            s.journal.steps[1]
                .message
                .as_deref()
                .unwrap()
                .starts_with("rollback: ")
        );
    }

    #[test]
    fn a_journal_of_another_plan_is_refused() {
        let mut j = interrupted();
        j.snapshot_fingerprint = "other".to_string();
        assert!(matches!(
            Session::resume(&plan(), j.clone()),
            Err(SessionError::Journal(JournalError::OtherPlan { .. }))
        ));
        assert!(Session::rollback(&plan(), j).is_err());
    }
}
