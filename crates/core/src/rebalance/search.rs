//! The greedy search: first empty the brokers to drain, then repeatedly move one bundle off the
//! busiest broker to the acceptable broker it lands lowest on, until the goal is met or no move
//! helps. Among the moves that get at least half of the best step's improvement, the one moving the
//! fewest bytes wins (fewer moves first, then fewer bytes); ties break on names, so the result is
//! deterministic without any randomness.

use serde::{Deserialize, Serialize};

use super::constraints::Constraints;
use super::goal::Goal;
use super::ledger::{Amounts, Ledger};
use crate::plan::BalanceSummary;

/// The operator's limits on the proposal.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// At most this many unloads in all (`--max-moves`).
    pub max_moves: Option<usize>,
    /// At most this many unloads into or out of any one broker (`--max-moves-per-broker`).
    pub max_moves_per_broker: Option<usize>,
    /// Brokers to empty (`--drain`); they receive nothing.
    pub drain: Vec<String>,
}

/// Why a move is in the proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepKind {
    Drain,
    Balance,
}

/// One chosen unload, with the two brokers' usage around it and the cluster's balance after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub kind: StepKind,
    pub bundle: String,
    pub from: String,
    pub to: String,
    pub bytes_per_sec: f64,
    pub from_usage_before: f64,
    pub from_usage_after: f64,
    pub to_usage_before: f64,
    pub to_usage_after: f64,
    pub balance_after: BalanceSummary,
}

/// A bundle that keeps the busiest broker over the goal and that no broker can take whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TooBig {
    pub bundle: String,
    pub broker: String,
    /// Its share of the broker's usage (0–1).
    pub share_of_broker: f64,
    /// Its share of the whole cluster's throughput (0–1).
    pub share_of_cluster_bytes: f64,
}

/// Steering for a re-search when the greedy proposal is not left alone by Pulsar (see
/// [`super::alternatives`]): bundles the search must not move, destinations it must not use for a
/// bundle, and one bundle to move first (the one Pulsar would shed, moved by the proposal instead).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    pub exclude: Vec<String>,
    /// (bundle, broker): the bundle may go anywhere else.
    pub forbid: Vec<(String, String)>,
    pub first: Option<String>,
}

impl Hints {
    pub fn is_empty(&self) -> bool {
        self.exclude.is_empty() && self.forbid.is_empty() && self.first.is_none()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    pub start: BalanceSummary,
    pub steps: Vec<Step>,
    /// Plain-words reasons the search stopped before the goal, or could not drain something.
    pub notes: Vec<String>,
    pub too_big: Option<TooBig>,
}

struct Candidate {
    bundle: usize,
    to: usize,
    improvement: f64,
    bytes: f64,
    to_after: f64,
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// How many acceptable brokers, lowest usage first, are tried as a bundle's destination: the
/// lowest landing spot is among the least used brokers (limits differ little within a cluster), and
/// trying all of them for every bundle of the busiest broker would cost brokers × bundles per move.
const DESTINATIONS_TRIED: usize = 16;

/// Broker positions by current usage, lowest first (ties by position), without drained brokers.
fn by_usage(ledger: &Ledger, drained: &[bool]) -> Vec<usize> {
    let usages: Vec<f64> = (0..ledger.brokers.len())
        .map(|i| ledger.usage_of(i))
        .collect();
    let mut order: Vec<usize> = (0..ledger.brokers.len())
        .filter(|&i| !drained.get(i).copied().unwrap_or(true))
        .collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (
            usages.get(a).copied().unwrap_or(0.0),
            usages.get(b).copied().unwrap_or(0.0),
        );
        x.total_cmp(&y).then(a.cmp(&b))
    });
    order
}

/// The acceptable destination where `amounts` land lowest, and the usage they land at.
fn best_destination(
    ledger: &Ledger,
    order: &[usize],
    allowed: &[bool],
    from: usize,
    touched: &[usize],
    per_broker: usize,
    amounts: &Amounts,
) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    let mut tried = 0;
    for &to in order {
        if to == from
            || !allowed.get(to).copied().unwrap_or(false)
            || touched.get(to).copied().unwrap_or(0) >= per_broker
        {
            continue;
        }
        let after = ledger.usage_with(to, &ledger.carried(amounts, from, to), 1.0);
        if best.is_none_or(|(_, b)| after < b) {
            best = Some((to, after));
        }
        tried += 1;
        if tried >= DESTINATIONS_TRIED {
            break;
        }
    }
    best
}

/// Runs the search on `ledger` (which ends in the proposed state).
pub fn search(
    ledger: &mut Ledger,
    constraints: &mut Constraints<'_>,
    goal: &Goal,
    limits: &Limits,
) -> SearchResult {
    search_with(ledger, constraints, goal, limits, &Hints::default())
}

/// The destinations mask for `bundle` with the hints' forbidden brokers taken out.
fn allowed_for(
    ledger: &Ledger,
    constraints: &mut Constraints<'_>,
    hints: &Hints,
    bundle: &str,
) -> std::rc::Rc<Vec<bool>> {
    let mask = constraints.destinations(bundle);
    if !hints.forbid.iter().any(|(b, _)| b == bundle) {
        return mask;
    }
    let mut own = (*mask).clone();
    for (i, broker) in ledger.brokers.iter().enumerate() {
        if hints
            .forbid
            .iter()
            .any(|(b, to)| b == bundle && *to == broker.name)
            && let Some(slot) = own.get_mut(i)
        {
            *slot = false;
        }
    }
    std::rc::Rc::new(own)
}

/// [`search`] steered by `hints`: drained brokers emptied first (biggest bundle first), then the
/// bundle the hints name moved, then the busiest broker lowered one bundle at a time until the
/// goal is met or nothing can move.
pub fn search_with(
    ledger: &mut Ledger,
    constraints: &mut Constraints<'_>,
    goal: &Goal,
    limits: &Limits,
    hints: &Hints,
) -> SearchResult {
    let mut walk = Walk::new(ledger, constraints, limits, hints);
    for from in 0..walk.ledger.brokers.len() {
        if walk.drained.get(from).copied().unwrap_or(false) {
            walk.drain(from);
        }
    }
    walk.move_hinted_first();
    walk.balance(goal);
    walk.result
}

/// The search as it goes: the ledger and constraints it moves bundles in, the moves so far, the
/// drained brokers, how many moves touched each broker, and the limits.
struct Walk<'l, 'c, 'a, 'h> {
    ledger: &'l mut Ledger,
    constraints: &'c mut Constraints<'a>,
    hints: &'h Hints,
    result: SearchResult,
    drained: Vec<bool>,
    touched: Vec<usize>,
    max_moves: usize,
    per_broker: usize,
    threshold: f64,
}

impl<'l, 'c, 'a, 'h> Walk<'l, 'c, 'a, 'h> {
    fn new(
        ledger: &'l mut Ledger,
        constraints: &'c mut Constraints<'a>,
        limits: &Limits,
        hints: &'h Hints,
    ) -> Self {
        let start = ledger.balance();
        let drained: Vec<bool> = ledger
            .brokers
            .iter()
            .map(|b| limits.drain.iter().any(|d| d == &b.name))
            .collect();
        let touched = vec![0usize; ledger.brokers.len()];
        let threshold = constraints.overloaded_threshold();
        Self {
            ledger,
            constraints,
            hints,
            result: SearchResult {
                start,
                steps: Vec::new(),
                notes: Vec::new(),
                too_big: None,
            },
            drained,
            touched,
            max_moves: limits.max_moves.unwrap_or(usize::MAX),
            per_broker: limits.max_moves_per_broker.unwrap_or(usize::MAX),
            threshold,
        }
    }

    /// The lowest-usage destination allowed for `bundle` (by name) from `from`, with its usage
    /// after the move.
    fn destination(&mut self, name: &str, from: usize, amounts: &Amounts) -> Option<(usize, f64)> {
        let allowed = allowed_for(self.ledger, self.constraints, self.hints, name);
        let order = by_usage(self.ledger, &self.drained);
        best_destination(
            self.ledger,
            &order,
            &allowed,
            from,
            &self.touched,
            self.per_broker,
            amounts,
        )
    }

    fn record(&mut self, kind: StepKind, bundle: usize, from: usize, to: usize) {
        record(
            self.ledger,
            self.constraints,
            &mut self.result,
            &mut self.touched,
            kind,
            bundle,
            from,
            to,
        );
    }

    /// Every movable bundle of the drained broker `from`, biggest first; what stays, and why, in
    /// the notes.
    fn drain(&mut self, from: usize) {
        let ledger = &*self.ledger;
        let mut owned = ledger
            .brokers
            .get(from)
            .map(|b| b.bundles.clone())
            .unwrap_or_default();
        owned.sort_by(|a, b| {
            let (x, y) = (ledger.bundles.get(*a), ledger.bundles.get(*b));
            let bytes = |e: Option<&super::ledger::BundleEntry>| e.map_or(0.0, |e| e.bytes_per_sec);
            bytes(y)
                .total_cmp(&bytes(x))
                .then_with(|| x.map(|e| &e.name).cmp(&y.map(|e| &e.name)))
        });
        let from_name = ledger
            .brokers
            .get(from)
            .map(|b| b.name.clone())
            .unwrap_or_default();
        let (max_moves, per_broker) = (self.max_moves, self.per_broker);
        let mut stayed = 0usize;
        for bundle in owned {
            let Some(name) = self.ledger.bundles.get(bundle).map(|b| b.name.clone()) else {
                continue;
            };
            if let Some(why) = self.constraints.pinned(&name) {
                if why != super::constraints::Pinned::HeartbeatOrSla {
                    self.result.notes.push(format!(
                        "{name} stays on {from_name} while draining: {}",
                        why.describe()
                    ));
                }
                stayed += 1;
                continue;
            }
            if self.result.steps.len() >= max_moves {
                self.result.notes.push(format!(
                    "--max-moves {max_moves} reached before {from_name} was empty"
                ));
                break;
            }
            if self.touched.get(from).copied().unwrap_or(0) >= per_broker {
                self.result.notes.push(format!(
                    "--max-moves-per-broker {per_broker} reached on {from_name} before it was empty"
                ));
                break;
            }
            let Some(amounts) = self.ledger.bundles.get(bundle).map(|b| b.amounts) else {
                continue;
            };
            match self.destination(&name, from, &amounts) {
                Some((to, after)) => {
                    if after > self.threshold {
                        self.result.notes.push(format!(
                            "draining {name} takes {} over loadBalancerBrokerOverloadedThresholdPercentage ({} > {})",
                            self.ledger.brokers.get(to).map_or("", |b| b.name.as_str()),
                            pct(after),
                            pct(self.threshold)
                        ));
                    }
                    self.record(StepKind::Drain, bundle, from, to);
                }
                None => {
                    stayed += 1;
                    self.result.notes.push(format!(
                        "{name} cannot leave {from_name}: no other broker passes its isolation policy, anti-affinity and broker filters within the limits"
                    ));
                }
            }
        }
        if stayed > 0 {
            self.result.notes.push(format!(
                "{from_name} keeps {stayed} bundle(s) that may not move (heartbeat/SLA namespaces stay with their broker)"
            ));
        }
    }

    /// The bundle Pulsar would shed (the hints' `first`), moved by the proposal first, to where it
    /// lands lowest, when that stays under the overloaded threshold.
    fn move_hinted_first(&mut self) {
        let hints = self.hints;
        if let Some(first) = &hints.first
            && self.result.steps.len() < self.max_moves
            && self.constraints.pinned(first).is_none()
            && let Some(bundle) = self.ledger.bundles.iter().position(|b| &b.name == first)
            && let Some((from, amounts)) = self
                .ledger
                .bundles
                .get(bundle)
                .map(|b| (b.owner, b.amounts))
            && self.touched.get(from).copied().unwrap_or(0) < self.per_broker
            && let Some((to, after)) = self.destination(first, from, &amounts)
            && after <= self.threshold
        {
            self.record(StepKind::Balance, bundle, from, to);
        }
    }

    /// Lowers the busiest broker one bundle at a time until `goal` is met: of the moves that improve
    /// it by at least half the best improvement, the one moving the fewest bytes. Stops at a limit,
    /// or when the busiest broker can give nothing away (saying why, and naming a bundle too big
    /// to move anywhere).
    fn balance(&mut self, goal: &Goal) {
        let n = self.ledger.brokers.len();
        let (max_moves, per_broker, threshold) = (self.max_moves, self.per_broker, self.threshold);
        loop {
            let balance = self.ledger.balance();
            if goal.is_met(&balance) {
                break;
            }
            if self.result.steps.len() >= max_moves {
                self.result.notes.push(format!(
                    "--max-moves {max_moves} reached with {goal} not met ({})",
                    describe_measure(goal, &balance)
                ));
                break;
            }
            let ledger = &*self.ledger;
            let Some(hot) = (0..n)
                .filter(|&b| !self.drained.get(b).copied().unwrap_or(false))
                .max_by(|&a, &b| {
                    ledger
                        .usage_of(a)
                        .total_cmp(&ledger.usage_of(b))
                        .then(b.cmp(&a))
                })
            else {
                break;
            };
            let hot_name = ledger
                .brokers
                .get(hot)
                .map(|b| b.name.clone())
                .unwrap_or_default();
            let hot_usage = ledger.usage_of(hot);
            if self.touched.get(hot).copied().unwrap_or(0) >= per_broker {
                self.result.notes.push(format!(
                    "--max-moves-per-broker {per_broker} reached on {hot_name}, the busiest broker ({}), with {goal} not met",
                    pct(hot_usage)
                ));
                break;
            }
            let owned = ledger
                .brokers
                .get(hot)
                .map(|b| b.bundles.clone())
                .unwrap_or_default();
            let order = by_usage(ledger, &self.drained);
            let mut candidates: Vec<Candidate> = Vec::new();
            let mut movable = 0usize;
            for bundle in owned.iter().copied() {
                let Some(entry) = self.ledger.bundles.get(bundle) else {
                    continue;
                };
                let name = entry.name.clone();
                let amounts = entry.amounts;
                let bytes = entry.bytes_per_sec;
                if self.constraints.pinned(&name).is_some() || self.hints.exclude.contains(&name) {
                    continue;
                }
                movable += 1;
                let hot_after = self.ledger.usage_with(hot, &amounts, -1.0);
                let allowed = allowed_for(self.ledger, self.constraints, self.hints, &name);
                let Some((to, to_after)) = best_destination(
                    self.ledger,
                    &order,
                    &allowed,
                    hot,
                    &self.touched,
                    per_broker,
                    &amounts,
                ) else {
                    continue;
                };
                if to_after > threshold {
                    continue;
                }
                let improvement = hot_usage - hot_after.max(to_after);
                if improvement > 1e-9 {
                    candidates.push(Candidate {
                        bundle,
                        to,
                        improvement,
                        bytes,
                        to_after,
                    });
                }
            }
            let best_improvement = candidates.iter().map(|c| c.improvement).fold(0.0, f64::max);
            let chosen = candidates
                .iter()
                .filter(|c| c.improvement >= best_improvement * 0.5)
                .min_by(|a, b| {
                    a.bytes
                        .total_cmp(&b.bytes)
                        .then(b.improvement.total_cmp(&a.improvement))
                        .then(a.to_after.total_cmp(&b.to_after))
                        .then(a.bundle.cmp(&b.bundle))
                });
            match chosen {
                Some(c) => {
                    let (bundle, to) = (c.bundle, c.to);
                    self.record(StepKind::Balance, bundle, hot, to);
                }
                None => {
                    self.result.notes.push(stuck_note(
                        self.ledger,
                        hot,
                        movable,
                        goal,
                        &balance,
                        threshold,
                    ));
                    self.result.too_big = too_big(self.ledger, self.constraints, hot);
                    break;
                }
            }
        }
    }
}

fn describe_measure(goal: &Goal, b: &BalanceSummary) -> String {
    match goal {
        Goal::MaxOverMean(_) => format!("max/mean is {:.3}", b.max_over_mean),
        Goal::StdPercent(_) => format!("std is {:.1} %", b.std_usage_fraction * 100.0),
        Goal::MaxPercent(_) => format!("max is {:.1} %", b.max_usage_fraction * 100.0),
    }
}

fn stuck_note(
    ledger: &Ledger,
    hot: usize,
    movable: usize,
    goal: &Goal,
    balance: &BalanceSummary,
    threshold: f64,
) -> String {
    let name = ledger.brokers.get(hot).map_or("", |b| b.name.as_str());
    let count = ledger.brokers.get(hot).map_or(0, |b| b.bundles.len());
    let usage = pct(ledger.usage_of(hot));
    if movable == 0 {
        return format!(
            "{goal} is not reachable: the busiest broker {name} ({usage}) has {count} bundle(s) and none may move ({})",
            describe_measure(goal, balance)
        );
    }
    format!(
        "{goal} is not reachable by moving whole bundles: no move off the busiest broker {name} ({usage}, {count} bundle(s)) lowers the maximum without taking another acceptable broker higher or over {} ({})",
        pct(threshold),
        describe_measure(goal, balance)
    )
}

/// The busiest broker's largest movable bundle, when it alone is more than the goal's headroom.
fn too_big(ledger: &Ledger, constraints: &Constraints<'_>, hot: usize) -> Option<TooBig> {
    let broker = ledger.brokers.get(hot)?;
    let total_bytes: f64 = ledger.bundles.iter().map(|b| b.bytes_per_sec).sum();
    let hot_usage = ledger.usage_of(hot);
    let (entry, share) = broker
        .bundles
        .iter()
        .filter_map(|&i| ledger.bundles.get(i))
        .filter(|e| constraints.pinned(&e.name).is_none())
        .map(|e| {
            let left = ledger.usage_with(hot, &e.amounts, -1.0);
            let share = if hot_usage > 0.0 {
                (hot_usage - left) / hot_usage
            } else {
                0.0
            };
            (e, share)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.name.cmp(&a.0.name)))?;
    // Only worth splitting when it dominates its broker.
    (share >= 0.5).then(|| TooBig {
        bundle: entry.name.clone(),
        broker: broker.name.clone(),
        share_of_broker: share,
        share_of_cluster_bytes: if total_bytes > 0.0 {
            entry.bytes_per_sec / total_bytes
        } else {
            0.0
        },
    })
}

#[allow(clippy::too_many_arguments)]
fn record(
    ledger: &mut Ledger,
    constraints: &mut Constraints<'_>,
    result: &mut SearchResult,
    touched: &mut [usize],
    kind: StepKind,
    bundle: usize,
    from: usize,
    to: usize,
) {
    let Some(entry) = ledger.bundles.get(bundle).cloned() else {
        return;
    };
    let from_name = ledger
        .brokers
        .get(from)
        .map(|b| b.name.clone())
        .unwrap_or_default();
    let to_name = ledger
        .brokers
        .get(to)
        .map(|b| b.name.clone())
        .unwrap_or_default();
    let from_before = ledger.usage_of(from);
    let to_before = ledger.usage_of(to);
    ledger.apply_move(bundle, to);
    constraints.record_move(&entry.name, &from_name, &to_name);
    for b in [from, to] {
        if let Some(t) = touched.get_mut(b) {
            *t += 1;
        }
    }
    result.steps.push(Step {
        kind,
        bundle: entry.name,
        from: from_name,
        to: to_name,
        bytes_per_sec: entry.bytes_per_sec,
        from_usage_before: from_before,
        from_usage_after: ledger.usage_of(from),
        to_usage_before: to_before,
        to_usage_after: ledger.usage_of(to),
        balance_after: ledger.balance(),
    });
}
