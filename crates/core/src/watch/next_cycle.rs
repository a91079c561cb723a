//! The leader's next cycle on a snapshot, as the watch exposes it: a plan made by the plan's own
//! code ([`PlanEngine`], the leader's cycle and no manual operation, as `lbplan plan` makes it)
//! reduced to what an operator alerts on: unloads and splits per broker and reason kind, the
//! verdict, the balance before and after, and the release whose behaviour was used. Bundles are
//! counted, never named (a metric label per bundle would be unbounded).

use std::collections::BTreeMap;

use crate::config::Profile;
use crate::model::Snapshot;
use crate::plan::model::BalanceSummary;
use crate::plan::{Explain, Outcome, Plan, PlanEngine, PlanError, PlanRequest};

/// The decisions a manual operation made (`PlannedUnload::origin`); the watch plans none.
const MANUAL_ORIGIN: &str = "manual";

/// How the watch plans each snapshot (the `lbplan plan` options it shares).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NextCycleOptions {
    pub profile: Option<Profile>,
    pub settings: Vec<(String, String)>,
    pub seed: u64,
}

/// What the leader would do at its next cycle, counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NextCycle {
    /// The snapshot's capture time.
    pub captured_at_ms: Option<i64>,
    /// The release whose behaviour decided (`release_basis.release`, else the profile).
    pub release: String,
    pub profile: String,
    pub shedding_strategy: String,
    /// (source broker, reason kind) → bundles the cycle unloads.
    pub unloads: BTreeMap<(String, String), u64>,
    /// (broker, reason kind) → bundles the cycle splits.
    pub splits: BTreeMap<(String, String), u64>,
    pub outcome: Outcome,
    pub balance_before: BalanceSummary,
    pub balance_after: BalanceSummary,
}

impl NextCycle {
    /// The leader's cycle on `snapshot`, as `lbplan plan SNAPSHOT` (same seed, profile and
    /// settings, its default outlook, which a cycle that does nothing reads for its verdict)
    /// plans it.
    pub fn of_snapshot(snapshot: Snapshot, opts: &NextCycleOptions) -> Result<Self, PlanError> {
        let request = PlanRequest {
            profile: opts.profile,
            settings: opts.settings.clone(),
            seed: opts.seed,
            explain: Explain::Summary,
            ..PlanRequest::leader_cycle()
        };
        let plan = PlanEngine::new(snapshot).plan(&request)?;
        Ok(Self::of_plan(&plan))
    }

    /// A plan's leader decisions, counted per broker and reason kind.
    pub fn of_plan(plan: &Plan) -> Self {
        let mut unloads = BTreeMap::new();
        for u in plan.unloads.iter().filter(|u| u.origin != MANUAL_ORIGIN) {
            *unloads
                .entry((u.from.clone(), u.reason.kind.as_str()))
                .or_insert(0u64) += 1;
        }
        let mut splits = BTreeMap::new();
        for s in plan.splits.iter().filter(|s| s.origin != MANUAL_ORIGIN) {
            *splits
                .entry((s.broker.clone(), s.reason.kind.as_str()))
                .or_insert(0u64) += 1;
        }
        Self {
            captured_at_ms: plan.snapshot_captured_at_ms,
            release: plan
                .release_basis
                .as_ref()
                .map_or_else(|| plan.profile.clone(), |b| b.release.clone()),
            profile: plan.profile.clone(),
            shedding_strategy: plan.shedding_strategy.clone(),
            unloads,
            splits,
            outcome: plan.verdict.outcome,
            balance_before: plan.balance_before.clone(),
            balance_after: plan.balance_after.clone(),
        }
    }

    /// Bundles the cycle unloads, all brokers and reasons.
    pub fn unload_count(&self) -> u64 {
        self.unloads.values().sum()
    }
}
