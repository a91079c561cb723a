//! Rebalance proposals Pulsar will not undo (`lbplan rebalance`): a goal-driven list of
//! unloads with destinations (and a split when one bundle is too big to move anywhere) that respects
//! Pulsar's placement constraints, its trade-off curve, and a check that the configured leader's own
//! shedding leaves the result alone. See `docs/rebalance.md`.

pub mod alternatives;
pub mod constraints;
pub mod drain;
pub mod goal;
pub mod ledger;
pub mod proposal;
pub mod search;
pub mod stick;

use crate::config::Profile;
use crate::config::settings::resolve_config;
use crate::model::Snapshot;
use crate::model::fingerprint::snapshot_fingerprint;
use crate::naming::BrokerNames;
use crate::plan::operations::Operation;
use crate::plan::{PlanEngine, PlanError, PlanRequest};

pub use goal::{Goal, GoalError};
pub use proposal::{CurvePoint, PROPOSAL_FORMAT_VERSION, Proposal};
pub use search::Limits;
pub use stick::StickCheck;

/// What the operator asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct RebalanceRequest {
    pub goal: Goal,
    pub limits: Limits,
    /// `None`: detect from the brokers' `brokerVersionString`.
    pub profile: Option<Profile>,
    /// `broker.conf` overrides (`--set`), applied after the snapshot's own values.
    pub settings: Vec<(String, String)>,
    pub seed: u64,
    /// Leader cycles looked at after the first when checking whether Pulsar undoes a proposal.
    pub outlook_cycles: u32,
    /// At most this many proposals (prefixes of the search) are checked against the leader.
    pub max_checks: usize,
    /// Exactly this many of the search's moves (a point picked on the trade-off curve), instead of
    /// the cheapest prefix that meets the goal and is left alone; capped at the moves found.
    pub chosen_moves: Option<usize>,
    /// How a moved bundle's work lands on its destination (per-broker CPU cost factors from a
    /// calibration, else the default model): the search and the final plan predict with it.
    pub load_model: crate::load::LoadModel,
}

impl RebalanceRequest {
    pub fn new(goal: Goal) -> Self {
        Self {
            goal,
            limits: Limits::default(),
            profile: None,
            settings: Vec::new(),
            seed: 0,
            outlook_cycles: 10,
            max_checks: 4,
            chosen_moves: None,
            load_model: crate::load::LoadModel::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RebalanceError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A `--drain` name that is no broker of the snapshot (or names several), with the ids it may
    /// have meant.
    #[error("{0}")]
    UnknownDrainBroker(String),
}

/// Progress callback: (phase, done, total).
pub type Progress<'p> = &'p mut dyn FnMut(&str, usize, usize);

/// Proposes a rebalance of `snapshot` (see the module doc).
pub fn propose(snapshot: &Snapshot, req: &RebalanceRequest) -> Result<Proposal, RebalanceError> {
    propose_with_progress(snapshot, req, &mut |_, _, _| {})
}

/// [`propose`], reporting each phase (`search`, `check`, `plan`) to `progress`.
pub fn propose_with_progress(
    snapshot: &Snapshot,
    req: &RebalanceRequest,
    progress: Progress<'_>,
) -> Result<Proposal, RebalanceError> {
    propose_with_fingerprint(snapshot, req, snapshot_fingerprint(snapshot), progress)
}

/// [`propose_with_progress`] with the snapshot's fingerprint already known
/// ([`snapshot_fingerprint`]): the dashboard's worker keeps it for the loaded snapshot, and on
/// 200,000 bundles computing it again is a sixth of a proposal. It is copied into the plan as given.
pub fn propose_with_fingerprint(
    snapshot: &Snapshot,
    req: &RebalanceRequest,
    fingerprint: String,
    progress: Progress<'_>,
) -> Result<Proposal, RebalanceError> {
    if req
        .limits
        .drain
        .iter()
        .any(|d| !snapshot.brokers.contains_key(d))
    {
        // Short names (`broker-04`, as the texts print them) are read back by the one rule.
        let names = BrokerNames::new(snapshot.brokers.keys().map(String::as_str));
        let drain = req
            .limits
            .drain
            .iter()
            .map(|d| names.resolve_or_explain(d, "--drain"))
            .collect::<Result<Vec<String>, String>>()
            .map_err(RebalanceError::UnknownDrainBroker)?;
        let mut resolved = req.clone();
        resolved.limits.drain = drain;
        return propose_with_fingerprint(snapshot, &resolved, fingerprint, progress);
    }
    let resolved = resolve_config(snapshot, req.profile, &req.settings).map_err(PlanError::from)?;
    let cfg = resolved.config;
    progress("search", 0, 1);
    let mut ledger = ledger::Ledger::new(snapshot, cfg.resource_weights(), &req.load_model);
    let mut constraints = constraints::Constraints::new(snapshot, &cfg);
    let mut found = search::search(&mut ledger, &mut constraints, &req.goal, &req.limits);
    progress("search", 1, 1);
    let goal_text = req.goal.to_string();
    let mut curve = proposal::curve(&found.start, &found.steps, |b| req.goal.is_met(b));
    let drains = found
        .steps
        .iter()
        .take_while(|s| s.kind == search::StepKind::Drain)
        .count();
    let n = found.steps.len();
    let first_meeting = curve
        .iter()
        .position(|p| p.meets_goal && p.moves >= drains)
        .map(|k| k.max(drains));
    let base = PlanRequest {
        profile: req.profile,
        settings: req.settings.clone(),
        operations: Vec::new(),
        seed: req.seed,
        leader_cycle: false,
        outlook_cycles: 0,
        explain: crate::plan::Explain::Full,
    };
    // One plan engine for the split trial, the leader checks and the final plan: the leader's
    // view of the snapshot is built once, each plan borrows it and gives it back.
    let mut engine =
        PlanEngine::with_fingerprint(std::borrow::Cow::Borrowed(snapshot), fingerprint)
            .with_load_model(req.load_model.clone());
    let mut notes = found.notes.clone();
    // How many of `notes` come from the search (an alternative chosen below replaces them).
    let search_notes = notes.len();
    // The split goes in only when the plan can carry it (it needs the namespace's bundle layout).
    let split = found.too_big.as_ref().and_then(|t| {
        let op = Operation::SplitBundle {
            bundle: t.bundle.clone(),
            algorithm: None,
            positions: Vec::new(),
        };
        let trial = PlanRequest {
            operations: vec![op.clone()],
            ..base.clone()
        };
        match engine.plan(&trial) {
            Ok(_) => Some(op),
            Err(e) => {
                notes.push(format!("{} cannot be split in this plan: {e}", t.bundle));
                None
            }
        }
    });
    let ops_for = |steps: &[search::Step], k: usize| -> Vec<Operation> {
        let mut ops: Vec<Operation> = steps
            .iter()
            .take(k)
            .map(|s| Operation::UnloadBundle {
                bundle: s.bundle.clone(),
                destination_broker: Some(s.to.clone()),
            })
            .collect();
        ops.extend(split.clone());
        ops
    };

    // Candidate sizes, cheapest first: from the first prefix meeting the goal up to every move;
    // a point picked on the curve is the one size checked.
    let start = req
        .chosen_moves
        .map_or(first_meeting.unwrap_or(n), |k| k.min(n));
    let mut sizes: Vec<usize> = Vec::new();
    let checks = if req.chosen_moves.is_some() {
        1
    } else {
        req.max_checks.max(1)
    };
    for i in 0..checks {
        let k = if checks == 1 {
            start
        } else {
            start + (n - start) * i / (checks - 1)
        };
        if !sizes.contains(&k) {
            sizes.push(k);
        }
    }
    let mut tried: Vec<stick::StickCheck> = Vec::new();
    for (i, &k) in sizes.iter().enumerate() {
        progress("check", i, sizes.len());
        let c = stick::check(
            &mut engine,
            &base,
            &ops_for(&found.steps, k),
            req.outlook_cycles,
        )?;
        let fixed = c.fixed_point;
        tried.push(c);
        if fixed {
            break;
        }
    }
    progress("check", sizes.len(), sizes.len());
    // The first fixed point, else the check that leaves the fewest unloads (the smallest on ties).
    let chosen_index = tried.iter().position(|c| c.fixed_point).or_else(|| {
        tried
            .iter()
            .enumerate()
            .min_by_key(|(i, c)| (c.would_move.len(), *i))
            .map(|(i, _)| i)
    });
    let mut chosen_moves = chosen_index
        .and_then(|i| sizes.get(i).copied())
        .unwrap_or(start);
    let mut stick_check = chosen_index.and_then(|i| tried.get(i).cloned());

    // No greedy prefix is left alone: steered re-searches, the cheapest fixed point wins (not for
    // a picked point: the operator asked for that prefix and is told what the leader would do).
    if let Some(c) = stick_check
        .clone()
        .filter(|c| !c.fixed_point && req.chosen_moves.is_none())
    {
        let greedy_meets = curve.get(chosen_moves).is_some_and(|p| p.meets_goal);
        let alts = alternatives::alternatives(
            found.steps.get(..chosen_moves).unwrap_or(&found.steps),
            &c,
            &req.goal,
        );
        let mut best: Option<(usize, f64, search::SearchResult, stick::StickCheck, String)> = None;
        for (i, alt) in alts.iter().enumerate() {
            progress("alternatives", i, alts.len());
            let mut l = ledger::Ledger::new(snapshot, cfg.resource_weights(), &req.load_model);
            let mut cons = constraints::Constraints::new(snapshot, &cfg);
            let r = search::search_with(&mut l, &mut cons, &alt.goal, &req.limits, &alt.hints);
            let meets = r.steps.last().map_or_else(
                || req.goal.is_met(&r.start),
                |s| req.goal.is_met(&s.balance_after),
            );
            if greedy_meets && !meets {
                continue;
            }
            let k = r.steps.len();
            let bytes: f64 = r.steps.iter().map(|s| s.bytes_per_sec).sum();
            if best
                .as_ref()
                .is_some_and(|(bk, bb, ..)| (*bk, *bb) <= (k, bytes))
            {
                continue;
            }
            let check = stick::check(
                &mut engine,
                &base,
                &ops_for(&r.steps, k),
                req.outlook_cycles,
            )?;
            if check.fixed_point {
                best = Some((k, bytes, r, check, alt.description.clone()));
            } else {
                tried.push(check);
            }
        }
        progress("alternatives", alts.len(), alts.len());
        if let Some((k, _, r, check, description)) = best {
            let rest = notes.split_off(search_notes.min(notes.len()));
            notes = r.notes.clone();
            notes.extend(rest);
            notes.push(format!(
                "no prefix of the greedy proposal is left alone by {} ({}); this proposal is: {description}",
                crate::config::simple_class_name(&check.shedding_strategy),
                stick::explain(&c)
            ));
            tried.push(check.clone());
            found = r;
            curve = proposal::curve(&found.start, &found.steps, |b| req.goal.is_met(b));
            chosen_moves = k;
            stick_check = Some(check);
        }
    }
    let mut stick_summary = stick_check.as_ref().map(stick::explain).unwrap_or_default();
    if let Some(c) = &stick_check
        && !c.fixed_point
    {
        // Would the leader act even without the proposal? Then no proposal can stop it.
        let baseline = stick::check(
            &mut engine,
            &base,
            &ops_for(&found.steps, drains),
            req.outlook_cycles,
        )?;
        let same = c
            .would_move
            .iter()
            .find_map(|u| baseline.would_move.iter().find(|b| b.from == u.from));
        if let Some(shed) = same {
            let bundles_on_broker = stick::bundles_after(
                snapshot,
                found.steps.get(..chosen_moves).unwrap_or(&found.steps),
                &shed.from,
            );
            stick_summary.push_str(&format!(
                ". {}; no set of whole-bundle moves under {goal_text} is left alone",
                stick::whatever_you_do(
                    &c.shedding_strategy,
                    &shed.from,
                    &shed.bundle,
                    bundles_on_broker,
                    stick::traffic_share(&ledger, &shed.bundle),
                )
            ));
        } else {
            stick_summary.push_str(&format!(
                ". None of the {} proposal(s) checked is left alone; this is the one Pulsar disturbs least",
                tried.len()
            ));
        }
    }
    if let Some(t) = found.too_big.as_ref().filter(|_| split.is_some()) {
        notes.push(format!(
            "{} carries {:.0} % of {}'s load ({:.0} % of the cluster's throughput): too big to move anywhere, so the plan splits it (permanent: Pulsar cannot merge bundles); run rebalance again after the split",
            t.bundle,
            t.share_of_broker * 100.0,
            t.broker,
            t.share_of_cluster_bytes * 100.0
        ));
    }

    progress("plan", 0, 1);
    let plan_req = PlanRequest {
        operations: ops_for(&found.steps, chosen_moves),
        ..base
    };
    let mut plan = engine.plan(&plan_req)?;
    proposal::label_unloads(&mut plan, &found.steps, &goal_text);
    // The patterns warn that Pulsar would move things again (a destination that converges, a
    // receiver shed later); the check ran the leader on this very plan and it moved nothing, so
    // on the tool's own proposal they would be warnings the check has already answered.
    if stick_check.as_ref().is_some_and(|c| c.fixed_point) {
        plan.verdict.patterns.clear();
    }
    progress("plan", 1, 1);
    let goal_met = req.goal.is_met(&plan.balance_after);
    if !goal_met && notes.is_empty() && found.too_big.is_none() {
        // The moves can reach the goal on their own and still miss it in the plan: the leader's
        // cycle runs on top of them there, and the operator must see why the goal was missed.
        let leader_unloads = plan
            .unloads
            .iter()
            .filter(|u| u.origin == "shedding")
            .count();
        notes.push(format!(
            "{goal_text} is not met after the plan: the leader's own cycle runs on top of the {chosen_moves} move(s) and unloads {leader_unloads} bundle(s), leaving max/mean {:.3}",
            plan.balance_after.max_over_mean
        ));
    }
    let drain_status = drain::drain_status(
        snapshot,
        found.steps.get(..chosen_moves).unwrap_or(&found.steps),
        &req.limits.drain,
        &constraints,
    );
    Ok(Proposal {
        format_version: proposal::PROPOSAL_FORMAT_VERSION,
        drain_status,
        goal: goal_text,
        goal_met,
        balance_before: found.start,
        steps: found.steps,
        chosen_moves,
        curve,
        stick: stick_check,
        stick_tried: tried,
        stick_summary,
        too_big: found.too_big,
        notes,
        plan,
    })
}
