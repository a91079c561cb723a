//! A guarded apply, as data: the ordered steps of a plan (each with the REST call the exports make,
//! from [`crate::act::export`]), cut into batches; the pre-flight drift check and the verification
//! of each step against the live owners ([`check`]); the journal that records each step and the
//! shedding setting before the run ([`journal`]); one run, new, resumed or rolled back from a
//! journal, with its steps and how each result is recorded ([`session`]); and the tolerant plan
//! reader ([`plan_read`]). `lbplan apply` and the dashboard's Apply both run this
//! model; they only do the IO (HTTP, files, waiting). See `docs/apply.md`.

pub mod affinity_batches;
pub mod check;
pub mod journal;
pub mod plan_read;
pub mod session;

use serde::Serialize;

use super::export::{ExportError, StepCall, step_calls};
use super::safety::{Assessment, Limits, PlanContext, assess};
use crate::plan::model::Plan;

pub use super::export::{StepKind, expected_effect};
pub use super::safety::{DEFAULT_MAX_AGE_MS, Hazard};
pub use check::{Drift, LiveOwners, Outcome, already_applied, drifted, verify};
pub use journal::{
    JOURNAL_FORMAT_VERSION, Journal, JournalError, JournalStep, RollbackStep, SheddingBefore,
    StepStatus,
};
pub use plan_read::{PlanReadError, read_plan};
pub use session::{Mode, Preflight, Session, SessionError};

/// One step of a guarded apply: its position in the plan's order and its call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApplyStep {
    /// 0-based position in [`ApplyPlan::steps`].
    pub index: usize,
    #[serde(flatten)]
    pub step: StepCall,
    /// What the plan predicts the step does, one line ([`expected_effect`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

/// Everything a guarded apply of one plan does, before any IO.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApplyPlan {
    /// The snapshot the plan was made from: the journal names it, and a resume checks it.
    pub snapshot_fingerprint: String,
    /// The plan's cluster, capture time, profile and verdict, for the safety policy.
    pub context: PlanContext,
    pub steps: Vec<ApplyStep>,
}

impl ApplyPlan {
    /// The plan's operations in the exports' order (splits, unloads, topic unloads).
    pub fn from_plan(plan: &Plan) -> Result<Self, ExportError> {
        let steps = step_calls(plan)?
            .into_iter()
            .enumerate()
            .map(|(index, step)| ApplyStep {
                index,
                expected: Some(expected_effect(plan, &step)),
                step,
            })
            .collect();
        Ok(Self {
            snapshot_fingerprint: plan.snapshot_fingerprint.clone(),
            context: PlanContext::of(plan),
            steps,
        })
    }

    /// The safety policy's assessment of this plan for a run at `limits`.
    pub fn assess(&self, limits: &Limits) -> Assessment {
        assess(&self.context, limits)
    }

    /// The bundles whose owner the pre-flight check reads (every step that names one).
    pub fn bundles(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter_map(|s| s.step.bundle.as_deref())
            .collect()
    }
}

/// `indices` cut into batches of `size` (at least 1), in order: a batch's calls are sent, then the
/// run waits and verifies them all before the next batch.
pub fn batches(indices: &[usize], size: usize) -> Vec<Vec<usize>> {
    indices.chunks(size.max(1)).map(<[usize]>::to_vec).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_keep_the_order_and_a_zero_size_is_one() {
        assert_eq!(
            batches(&[0, 1, 2, 3, 4], 2),
            vec![vec![0, 1], vec![2, 3], vec![4]]
        );
        assert_eq!(batches(&[3, 5], 0), vec![vec![3], vec![5]]);
        assert!(batches(&[], 4).is_empty());
    }
}
