//! "Would Pulsar undo it?": re-plans the cluster with a proposal's unloads applied (same load) and
//! the configured leader running its shedding for a first cycle plus a look-ahead
//! ([`crate::plan::make_plan`] with `leader_cycle` and `outlook_cycles`), and reads off what Pulsar's
//! own shedding would move. A proposal it leaves alone is a fixed point of the configured strategy.

use serde::{Deserialize, Serialize};

use crate::model::Snapshot;
use crate::plan::operations::Operation;
use crate::plan::{PlanError, PlanRequest, PlannedUnload, make_plan_with_fingerprint};

/// What the configured leader does after a proposal is applied.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StickCheck {
    /// How many of the proposal's moves were applied for this check.
    pub moves: usize,
    /// The leader's shedding moves nothing in the first cycle nor in the cycles examined after it.
    pub fixed_point: bool,
    /// Leader cycles simulated (the first plus the look-ahead).
    pub cycles_examined: u32,
    /// The cycle (1-based) at which the leader first unloads something, if it does.
    pub acts_at_cycle: Option<u32>,
    /// What it would unload then, with Pulsar's reason.
    pub would_move: Vec<PlannedUnload>,
    /// How many of those unloads take back a bundle the proposal moved.
    pub undoes_proposal_moves: usize,
    /// The shedding strategy checked.
    pub shedding_strategy: String,
}

/// Applies `ops` and runs the leader for `1 + outlook_cycles` cycles on the same load.
pub fn check(
    snapshot: &Snapshot,
    base: &PlanRequest,
    ops: &[Operation],
    outlook_cycles: u32,
    fingerprint: &str,
) -> Result<StickCheck, PlanError> {
    let req = PlanRequest {
        operations: ops.to_vec(),
        leader_cycle: true,
        outlook_cycles,
        ..base.clone()
    };
    let plan = make_plan_with_fingerprint(snapshot, &req, fingerprint.to_string())?;
    let moved: Vec<&str> = ops
        .iter()
        .filter_map(|o| match o {
            Operation::UnloadBundle { bundle, .. } => Some(bundle.as_str()),
            _ => None,
        })
        .collect();
    let first: Vec<PlannedUnload> = plan
        .unloads
        .iter()
        .filter(|u| u.origin == "shedding")
        .cloned()
        .collect();
    let (acts_at_cycle, would_move, cycles_examined) = if !first.is_empty() {
        (Some(1), first, 1)
    } else {
        match &plan.outlook {
            Some(o) => (
                o.acts_at_cycle.map(|c| c.saturating_add(1)),
                o.unloads_then.clone(),
                o.cycles_examined.saturating_add(1),
            ),
            None => (None, Vec::new(), 1),
        }
    };
    let undoes = would_move
        .iter()
        .filter(|u| moved.contains(&u.bundle.as_str()))
        .count();
    Ok(StickCheck {
        moves: moved.len(),
        fixed_point: acts_at_cycle.is_none(),
        cycles_examined,
        acts_at_cycle,
        would_move,
        undoes_proposal_moves: undoes,
        shedding_strategy: plan.shedding_strategy,
    })
}

/// Plain words for a check that is not a fixed point.
pub fn explain(check: &StickCheck) -> String {
    let strategy = crate::config::simple_class_name(&check.shedding_strategy).to_string();
    if check.fixed_point {
        return format!(
            "{strategy} leaves the cluster alone after these {} move(s) ({} cycle(s) simulated on the same load)",
            check.moves, check.cycles_examined
        );
    }
    let mut out = format!(
        "{strategy} would unload {} bundle(s) at cycle {}",
        check.would_move.len(),
        check.acts_at_cycle.unwrap_or(1)
    );
    if check.undoes_proposal_moves > 0 {
        out.push_str(&format!(
            ", {} of them moved by this proposal",
            check.undoes_proposal_moves
        ));
    }
    if let Some(u) = check.would_move.first() {
        out.push_str(&format!(
            ": e.g. {} from {}: {}",
            u.bundle, u.from, u.reason_text
        ));
    }
    out
}
