//! "Would Pulsar undo it?": re-plans the cluster with a proposal's unloads applied (same load) and
//! the configured leader running its shedding for a first cycle plus a look-ahead
//! (a plan with `leader_cycle` and `outlook_cycles` on the proposal's [`PlanEngine`]), and reads off what Pulsar's
//! own shedding would move. A proposal it leaves alone is a fixed point of the configured strategy.

use serde::{Deserialize, Serialize};

use super::ledger::Ledger;
use super::search::Step;
use crate::model::Snapshot;
use crate::plan::operations::Operation;
use crate::plan::{PlanEngine, PlanError, PlanRequest, PlannedUnload};

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
    engine: &mut PlanEngine<'_>,
    base: &PlanRequest,
    ops: &[Operation],
    outlook_cycles: u32,
) -> Result<StickCheck, PlanError> {
    let req = PlanRequest {
        operations: ops.to_vec(),
        leader_cycle: true,
        outlook_cycles,
        ..base.clone()
    };
    let plan = engine.plan(&req)?;
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

/// The share (0–1) of the cluster's throughput (in + out, every bundle) that `bundle` carries.
pub fn traffic_share(ledger: &Ledger, bundle: &str) -> Option<f64> {
    let total: f64 = ledger.bundles.iter().map(|b| b.bytes_per_sec).sum();
    let own = ledger
        .bundles
        .iter()
        .find(|b| b.name == bundle)?
        .bytes_per_sec;
    (total > 0.0).then(|| own / total)
}

/// How many bundles `broker` owns once `steps` are applied to the snapshot.
pub fn bundles_after(snapshot: &Snapshot, steps: &[Step], broker: &str) -> usize {
    let before = snapshot
        .brokers
        .get(broker)
        .map_or(0, |b| b.local_broker_data.bundles.len());
    let gone = steps.iter().filter(|s| s.from == broker).count();
    let came = steps.iter().filter(|s| s.to == broker).count();
    (before + came).saturating_sub(gone)
}

/// "ThresholdShedder with these settings sheds broker-7 whatever you do: its one bundle … carries
/// 40 % of the cluster's traffic" — the broker the leader sheds with or without the proposal, the
/// bundle it takes and that bundle's share of the cluster's throughput.
pub fn whatever_you_do(
    strategy: &str,
    broker: &str,
    bundle: &str,
    bundles_on_broker: usize,
    share_of_cluster: Option<f64>,
) -> String {
    let which = if bundles_on_broker == 1 {
        format!("its one bundle {bundle}")
    } else {
        format!("{bundle}, one of its {bundles_on_broker} bundles,")
    };
    let carries = match share_of_cluster {
        Some(f) => format!("carries {:.0} % of the cluster's traffic", f * 100.0),
        None => "carries no measured traffic".to_string(),
    };
    format!(
        "{} with these settings sheds {broker} whatever you do: {which} {carries}",
        crate::config::simple_class_name(strategy)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whatever_you_do_names_broker_bundle_and_share() {
        // The example: broker-7's one bundle carries 40 % of the cluster.
        let s = whatever_you_do(
            "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder",
            "broker-7",
            "t/ns/0x00000000_0xffffffff",
            1,
            Some(0.4),
        );
        assert_eq!(
            s,
            "ThresholdShedder with these settings sheds broker-7 whatever you do: its one bundle \
             t/ns/0x00000000_0xffffffff carries 40 % of the cluster's traffic"
        );
    }
}
