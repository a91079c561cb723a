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
///
/// The phases: drain names read back, the search, the split trial, the leader checks of the
/// search's prefixes, steered re-searches when no prefix is left alone, the summary of the check,
/// the final plan and its notes.
pub fn propose_with_fingerprint(
    snapshot: &Snapshot,
    req: &RebalanceRequest,
    fingerprint: String,
    progress: Progress<'_>,
) -> Result<Proposal, RebalanceError> {
    if let Some(resolved) = with_drain_names_resolved(snapshot, req)? {
        return propose_with_fingerprint(snapshot, &resolved, fingerprint, progress);
    }
    let resolved = resolve_config(snapshot, req.profile, &req.settings).map_err(PlanError::from)?;
    let cfg = resolved.config;
    progress("search", 0, 1);
    let mut ledger = ledger::Ledger::new(snapshot, cfg.resource_weights(), &req.load_model);
    let mut constraints = constraints::Constraints::new(snapshot, &cfg);
    let found = search::search(&mut ledger, &mut constraints, &req.goal, &req.limits);
    progress("search", 1, 1);
    let mut p = Proposer::new(snapshot, req, cfg.clone(), fingerprint);
    let mut notes = found.notes.clone();
    p.split = p.split_if_plannable(found.too_big.as_ref(), &mut notes);
    let checked = p.check_prefixes(found, notes, progress)?;
    let checked = p.steer_if_disturbed(checked, progress)?;
    let Checked {
        found,
        curve,
        drains,
        mut notes,
        tried,
        chosen_moves,
        stick: stick_check,
        ..
    } = checked;
    let stick_summary = p.stick_summary(
        stick_check.as_ref(),
        &found,
        drains,
        chosen_moves,
        tried.len(),
        &ledger,
    )?;
    if let Some(t) = found.too_big.as_ref().filter(|_| p.split.is_some()) {
        notes.push(format!(
            "{} carries {:.0} % of {}'s load ({:.0} % of the cluster's throughput): too big to move anywhere, so the plan splits it (permanent: Pulsar cannot merge bundles); run rebalance again after the split",
            t.bundle,
            t.share_of_broker * 100.0,
            t.broker,
            t.share_of_cluster_bytes * 100.0
        ));
    }

    progress("plan", 0, 1);
    let goal_text = req.goal.to_string();
    let plan_req = PlanRequest {
        operations: p.ops_for(&found.steps, chosen_moves),
        ..p.base.clone()
    };
    let mut plan = p.engine.plan(&plan_req)?;
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

/// The request with its `--drain` names read back to broker ids (short names, as the texts print
/// them, by the one rule), or `None` when every name is already a broker of the snapshot.
fn with_drain_names_resolved(
    snapshot: &Snapshot,
    req: &RebalanceRequest,
) -> Result<Option<RebalanceRequest>, RebalanceError> {
    if req
        .limits
        .drain
        .iter()
        .all(|d| snapshot.brokers.contains_key(d))
    {
        return Ok(None);
    }
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
    Ok(Some(resolved))
}

/// What the phases after the search share: the request, the configuration, one plan engine for
/// the split trial, the leader checks and the final plan (the leader's view of the snapshot built
/// once, each plan borrowing it), the plan request without operations, and the split every
/// candidate carries when one bundle is too big to move.
struct Proposer<'s, 'r> {
    snapshot: &'s Snapshot,
    req: &'r RebalanceRequest,
    cfg: crate::config::LoadBalancerConfig,
    base: PlanRequest,
    engine: PlanEngine<'s>,
    split: Option<Operation>,
}

/// The search's moves as checked against the leader: the moves (the greedy search's, or a steered
/// re-search's), their curve, how many lead with drains, the notes so far (`search_notes` of them
/// the search's own), every check made, the size chosen and its check.
struct Checked {
    found: search::SearchResult,
    curve: Vec<CurvePoint>,
    drains: usize,
    notes: Vec<String>,
    search_notes: usize,
    tried: Vec<StickCheck>,
    chosen_moves: usize,
    stick: Option<StickCheck>,
}

impl<'s, 'r> Proposer<'s, 'r> {
    fn new(
        snapshot: &'s Snapshot,
        req: &'r RebalanceRequest,
        cfg: crate::config::LoadBalancerConfig,
        fingerprint: String,
    ) -> Self {
        let base = PlanRequest {
            profile: req.profile,
            settings: req.settings.clone(),
            operations: Vec::new(),
            seed: req.seed,
            leader_cycle: false,
            outlook_cycles: 0,
            explain: crate::plan::Explain::Full,
        };
        let engine =
            PlanEngine::with_fingerprint(std::borrow::Cow::Borrowed(snapshot), fingerprint)
                .with_load_model(req.load_model.clone());
        Self {
            snapshot,
            req,
            cfg,
            base,
            engine,
            split: None,
        }
    }

    /// The first `k` moves of `steps` as operations, then the split.
    fn ops_for(&self, steps: &[search::Step], k: usize) -> Vec<Operation> {
        let mut ops: Vec<Operation> = steps
            .iter()
            .take(k)
            .map(|s| Operation::UnloadBundle {
                bundle: s.bundle.clone(),
                destination_broker: Some(s.to.clone()),
            })
            .collect();
        ops.extend(self.split.clone());
        ops
    }

    /// The split of the bundle too big to move, when the plan can carry it (it needs the
    /// namespace's bundle layout); otherwise why not, in `notes`.
    fn split_if_plannable(
        &mut self,
        too_big: Option<&search::TooBig>,
        notes: &mut Vec<String>,
    ) -> Option<Operation> {
        let t = too_big?;
        let op = Operation::SplitBundle {
            bundle: t.bundle.clone(),
            algorithm: None,
            positions: Vec::new(),
        };
        let trial = PlanRequest {
            operations: vec![op.clone()],
            ..self.base.clone()
        };
        match self.engine.plan(&trial) {
            Ok(_) => Some(op),
            Err(e) => {
                notes.push(format!("{} cannot be split in this plan: {e}", t.bundle));
                None
            }
        }
    }

    /// Checks prefixes of the search's moves against the leader, cheapest first (from the first
    /// prefix meeting the goal up to every move; a point picked on the curve is the one size
    /// checked), stopping at the first the leader leaves alone; else the one leaving the fewest
    /// unloads is chosen (the smallest on ties).
    fn check_prefixes(
        &mut self,
        found: search::SearchResult,
        notes: Vec<String>,
        progress: Progress<'_>,
    ) -> Result<Checked, RebalanceError> {
        let req = self.req;
        let curve = proposal::curve(&found.start, &found.steps, |b| req.goal.is_met(b));
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
        let start = req
            .chosen_moves
            .map_or(first_meeting.unwrap_or(n), |k| k.min(n));
        let checks = if req.chosen_moves.is_some() {
            1
        } else {
            req.max_checks.max(1)
        };
        let mut sizes: Vec<usize> = Vec::new();
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
        let mut tried: Vec<StickCheck> = Vec::new();
        for (i, &k) in sizes.iter().enumerate() {
            progress("check", i, sizes.len());
            let ops = self.ops_for(&found.steps, k);
            let c = stick::check(&mut self.engine, &self.base, &ops, req.outlook_cycles)?;
            let fixed = c.fixed_point;
            tried.push(c);
            if fixed {
                break;
            }
        }
        progress("check", sizes.len(), sizes.len());
        let chosen_index = tried.iter().position(|c| c.fixed_point).or_else(|| {
            tried
                .iter()
                .enumerate()
                .min_by_key(|(i, c)| (c.would_move.len(), *i))
                .map(|(i, _)| i)
        });
        let chosen_moves = chosen_index
            .and_then(|i| sizes.get(i).copied())
            .unwrap_or(start);
        let stick = chosen_index.and_then(|i| tried.get(i).cloned());
        Ok(Checked {
            search_notes: found.notes.len(),
            found,
            curve,
            drains,
            notes,
            tried,
            chosen_moves,
            stick,
        })
    }

    /// When no greedy prefix is left alone, steered re-searches: the cheapest the leader leaves
    /// alone replaces the greedy one (not for a picked point: the operator asked for that prefix
    /// and is told what the leader would do).
    fn steer_if_disturbed(
        &mut self,
        mut checked: Checked,
        progress: Progress<'_>,
    ) -> Result<Checked, RebalanceError> {
        let req = self.req;
        let Some(c) = checked
            .stick
            .clone()
            .filter(|c| !c.fixed_point && req.chosen_moves.is_none())
        else {
            return Ok(checked);
        };
        let greedy_meets = checked
            .curve
            .get(checked.chosen_moves)
            .is_some_and(|p| p.meets_goal);
        let alts = alternatives::alternatives(
            checked
                .found
                .steps
                .get(..checked.chosen_moves)
                .unwrap_or(&checked.found.steps),
            &c,
            &req.goal,
        );
        let mut best: Option<(usize, f64, search::SearchResult, StickCheck, String)> = None;
        for (i, alt) in alts.iter().enumerate() {
            progress("alternatives", i, alts.len());
            let mut l =
                ledger::Ledger::new(self.snapshot, self.cfg.resource_weights(), &req.load_model);
            let mut cons = constraints::Constraints::new(self.snapshot, &self.cfg);
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
            let ops = self.ops_for(&r.steps, k);
            let check = stick::check(&mut self.engine, &self.base, &ops, req.outlook_cycles)?;
            if check.fixed_point {
                best = Some((k, bytes, r, check, alt.description.clone()));
            } else {
                checked.tried.push(check);
            }
        }
        progress("alternatives", alts.len(), alts.len());
        if let Some((k, _, r, check, description)) = best {
            let rest = checked
                .notes
                .split_off(checked.search_notes.min(checked.notes.len()));
            checked.notes = r.notes.clone();
            checked.notes.extend(rest);
            checked.notes.push(format!(
                "no prefix of the greedy proposal is left alone by {} ({}); this proposal is: {description}",
                crate::config::simple_class_name(&check.shedding_strategy),
                stick::explain(&c)
            ));
            checked.tried.push(check.clone());
            checked.found = r;
            checked.curve = proposal::curve(&checked.found.start, &checked.found.steps, |b| {
                req.goal.is_met(b)
            });
            checked.chosen_moves = k;
            checked.stick = Some(check);
        }
        Ok(checked)
    }

    /// The check's summary; when the leader still moves something, whether it would act even
    /// without the proposal (then no set of whole-bundle moves is left alone) or this is the
    /// proposal it disturbs least.
    fn stick_summary(
        &mut self,
        stick_check: Option<&StickCheck>,
        found: &search::SearchResult,
        drains: usize,
        chosen_moves: usize,
        tried: usize,
        ledger: &ledger::Ledger,
    ) -> Result<String, RebalanceError> {
        let mut summary = stick_check.map(stick::explain).unwrap_or_default();
        let Some(c) = stick_check.filter(|c| !c.fixed_point) else {
            return Ok(summary);
        };
        let ops = self.ops_for(&found.steps, drains);
        let baseline = stick::check(&mut self.engine, &self.base, &ops, self.req.outlook_cycles)?;
        let same = c
            .would_move
            .iter()
            .find_map(|u| baseline.would_move.iter().find(|b| b.from == u.from));
        if let Some(shed) = same {
            let bundles_on_broker = stick::bundles_after(
                self.snapshot,
                found.steps.get(..chosen_moves).unwrap_or(&found.steps),
                &shed.from,
            );
            summary.push_str(&format!(
                ". {}; no set of whole-bundle moves under {} is left alone",
                stick::whatever_you_do(
                    &c.shedding_strategy,
                    &shed.from,
                    &shed.bundle,
                    bundles_on_broker,
                    stick::traffic_share(ledger, &shed.bundle),
                ),
                self.req.goal
            ));
        } else {
            summary.push_str(&format!(
                ". None of the {tried} proposal(s) checked is left alone; this is the one Pulsar disturbs least"
            ));
        }
        Ok(summary)
    }
}
