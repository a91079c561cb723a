//! A plan's records of splits: a split (automatic or manual) as a [`PlannedSplit`], and
//! `BundleSplitterTask` (`crate::leader::splitter_task`) run on a plan's snapshot — a
//! [`SplitBatch`] as the task's host — with its steps recorded as the plan's splits, and the splits
//! the algorithm declined as skipped decisions.

use std::collections::HashSet;

use crate::config::LoadBalancerConfig;
use crate::leader::splitter_task::{SplitHost, SplitStep, run, split_reason};
use crate::model::Snapshot;
use crate::modular::LoadData;
use crate::reason::{DecisionReason, ReasonKind};
use crate::split::{ModularSplitCandidate, SplitAlgorithm, SplitResult};

use super::model::{Plan, PlannedSplit, SkipScope, SkippedDecision, SplitDetail};
use super::splits::SplitBatch;

/// A [`SplitStep`] as the plan records it.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanRecord {
    Split(PlannedSplit),
    /// The algorithm did not split it: a skipped decision.
    Declined(SkippedDecision),
}

/// The plan's record of the step: the split, or the declined split as a skipped decision.
pub fn plan_record(step: SplitStep) -> PlanRecord {
    let triggers = step.triggers();
    match &step.outcome {
        Ok(split) => PlanRecord::Split(planned_split(
            &step.candidate.bundle,
            &step.owner,
            step.algorithm,
            split,
            (step.triggers_reason(), split_reason(&triggers)),
            SplitDetail::Automatic { triggers },
            "auto-split",
        )),
        Err(why) => PlanRecord::Declined(SkippedDecision {
            scope: SkipScope::Bundle {
                bundle: step.candidate.bundle.clone(),
                broker: step.owner.clone(),
            },
            why: format!(
                "BundleSplitterTask chose it ({}), but {} did not split: {why}",
                triggers.join("; "),
                step.algorithm.name()
            ),
            reason: DecisionReason::new(ReasonKind::SplitDeclined)
                .with("algorithm", step.algorithm.name())
                .with("declined", why.clone())
                .with_fields_of(&step.triggers_reason().numbers, &[]),
        }),
    }
}

/// A plan's snapshot as the step's host: the batch reads each namespace's layout once, finds the
/// candidates' owners in one pass and changes the cluster-wide `bundle_data` once.
impl SplitHost for SplitBatch<'_> {
    fn namespace_bundle_count(&self, namespace: &str) -> Option<i64> {
        SplitBatch::namespace_bundle_count(self, namespace)
    }

    fn track(&mut self, bundles: &[ModularSplitCandidate]) {
        self.track_owners(bundles.iter().map(|c| c.bundle.as_str()));
    }

    fn owner(&self, bundle: &str) -> Option<String> {
        SplitBatch::owner(self, bundle)
    }

    fn compute(
        &mut self,
        cfg: &LoadBalancerConfig,
        bundle: &str,
        algorithm: SplitAlgorithm,
    ) -> Result<Result<SplitResult, String>, String> {
        SplitBatch::compute(self, cfg, bundle, algorithm, &[])
    }

    fn apply(&mut self, _bundle: &str, split: &SplitResult) {
        SplitBatch::apply(self, split);
    }
}

/// `BundleSplitterTask` in a plan, on the leader's view `data`: bundles over a limit are split in
/// `snapshot` (a bundle `unloaded` this cycle is left alone); the splits, and the declined ones as
/// skipped decisions, in the task's order.
pub fn plan_auto_splits(
    snapshot: &mut Snapshot,
    cfg: &LoadBalancerConfig,
    data: &LoadData,
    unloaded: impl Fn(&str) -> bool,
) -> Vec<PlanRecord> {
    let mut batch = SplitBatch::new(snapshot, std::iter::empty());
    run(&mut batch, cfg, data, unloaded)
        .into_iter()
        .map(plan_record)
        .collect()
}

/// [`plan_auto_splits`] recorded in `plan`: a bundle in `plan.unloads` is left alone; the splits
/// go to `plan.splits`, the declined ones to `plan.skipped`. Public for the `auto_splits` bench.
pub fn auto_splits_step(
    snapshot: &mut Snapshot,
    cfg: &LoadBalancerConfig,
    data: &LoadData,
    plan: &mut Plan,
) {
    let unloaded: HashSet<&str> = plan.unloads.iter().map(|u| u.bundle.as_str()).collect();
    let records = plan_auto_splits(snapshot, cfg, data, |b| unloaded.contains(b));
    for record in records {
        match record {
            PlanRecord::Split(split) => plan.splits.push(split),
            PlanRecord::Declined(skip) => plan.skipped.push(skip),
        }
    }
}

/// The plan's record of a split (automatic or manual) of `bundle` on `owner`.
pub(crate) fn planned_split(
    bundle: &str,
    owner: &str,
    algorithm: SplitAlgorithm,
    split: &SplitResult,
    (reason, reason_text): (DecisionReason, String),
    detail: SplitDetail,
    origin: &str,
) -> PlannedSplit {
    PlannedSplit {
        bundle: bundle.to_string(),
        broker: owner.to_string(),
        algorithm: algorithm.name().to_string(),
        boundaries: split.cut_points.clone(),
        new_bundles: split
            .children
            .iter()
            .map(|c| format!("{}/{}", split.namespace, c))
            .collect(),
        reason,
        reason_text,
        detail: Some(detail),
        permanent: true,
        origin: origin.to_string(),
    }
}
