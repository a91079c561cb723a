//! The proposal document: the plan (in the existing plan format, so every plan view and export
//! works on it), the trade-off curve, the "would Pulsar undo it?" check, and plain-words notes.

use crate::reason::{DecisionReason, ReasonKind};
use serde::{Deserialize, Serialize};

use super::search::{Step, StepKind, TooBig};
use super::stick::StickCheck;
use crate::plan::{BalanceSummary, Plan, UnloadDetail};

/// Version of the proposal JSON (`lbplan rebalance --format proposal-json`, the worker's answer;
/// 2: `drain_status`).
pub const PROPOSAL_FORMAT_VERSION: u32 = 2;

/// One point of the trade-off: the balance after the first `moves` moves of the search.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub moves: usize,
    pub bytes_moved_per_sec: f64,
    pub max_over_mean: f64,
    pub std_usage_fraction: f64,
    pub max_usage_fraction: f64,
    pub meets_goal: bool,
    /// Why this step raises max/mean when it does (the curve is otherwise non-increasing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rises_because: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub format_version: u32,
    /// The goal as given (normalised), e.g. `max/mean<=1.15`.
    pub goal: String,
    /// Each broker to drain after the chosen moves (empty, or what it still owns): said first.
    #[serde(default)]
    pub drain_status: Vec<super::drain::DrainStatus>,
    /// The chosen moves meet the goal (by the plan's own load model).
    pub goal_met: bool,
    pub balance_before: BalanceSummary,
    /// Every move the search found, in order (the chosen plan is a prefix of these).
    pub steps: Vec<Step>,
    /// How many of `steps` the plan carries.
    pub chosen_moves: usize,
    /// Balance after 0, 1, … moves.
    pub curve: Vec<CurvePoint>,
    /// The check of the chosen plan (and of the prefixes tried before it).
    pub stick: Option<StickCheck>,
    pub stick_tried: Vec<StickCheck>,
    /// One sentence on the check: fixed point, or what Pulsar would move back and why.
    pub stick_summary: String,
    pub too_big: Option<TooBig>,
    pub notes: Vec<String>,
    pub plan: Plan,
}

pub fn curve(
    start: &BalanceSummary,
    steps: &[Step],
    met: impl Fn(&BalanceSummary) -> bool,
) -> Vec<CurvePoint> {
    let point = |moves: usize, bytes: f64, b: &BalanceSummary| CurvePoint {
        moves,
        bytes_moved_per_sec: bytes,
        max_over_mean: b.max_over_mean,
        std_usage_fraction: b.std_usage_fraction,
        max_usage_fraction: b.max_usage_fraction,
        meets_goal: met(b),
        rises_because: None,
    };
    let mut out = vec![point(0, 0.0, start)];
    let mut bytes = 0.0;
    let mut previous = start.max_over_mean;
    for (i, s) in steps.iter().enumerate() {
        bytes += s.bytes_per_sec;
        let mut p = point(i + 1, bytes, &s.balance_after);
        if p.max_over_mean > previous + 1e-9 {
            p.rises_because = Some(rise_reason(s));
        }
        previous = p.max_over_mean;
        out.push(p);
    }
    out
}

/// Why a step of the search raises max/mean: a drain moves every bundle of the drained broker,
/// even where that raises the busiest broker; a balancing step lowers the busiest broker, so its
/// rise is the mean falling — a broker's load is its busiest resource (moving work can lower the
/// sum of those), and with CPU cost factors a bundle can cost less where it lands.
fn rise_reason(s: &Step) -> String {
    match s.kind {
        StepKind::Drain => format!(
            "draining {}: its bundles must leave even where that raises a broker ({} to {:.1} %)",
            s.from,
            s.to,
            s.to_usage_after * 100.0
        ),
        StepKind::Balance => format!(
            "{} → {} lowers the busiest broker but the mean load falls more (a broker's load is its \
             busiest resource; the move lowers the sum of those)",
            s.from, s.to
        ),
    }
}

/// Gives the plan's unloads that carry a proposal step the step's reason (`origin` `rebalance`).
pub fn label_unloads(plan: &mut Plan, steps: &[Step], goal: &str) {
    for u in &mut plan.unloads {
        if u.origin != "manual" {
            continue;
        }
        let Some(s) = steps
            .iter()
            .find(|s| s.bundle == u.bundle && s.from == u.from)
        else {
            continue;
        };
        let why = match s.kind {
            StepKind::Drain => format!("rebalance: drains {}", s.from),
            StepKind::Balance => format!("rebalance toward {goal}"),
        };
        u.reason_text = format!(
            "{why}: {} {:.1} % → {:.1} %, {} {:.1} % → {:.1} %",
            s.from,
            s.from_usage_before * 100.0,
            s.from_usage_after * 100.0,
            s.to,
            s.to_usage_before * 100.0,
            s.to_usage_after * 100.0
        );
        u.reason = DecisionReason::new(ReasonKind::Rebalance)
            .with("step", serde_json::to_value(s.kind).unwrap_or_default())
            .with("goal", goal)
            .with("from_usage_before_fraction", s.from_usage_before)
            .with("from_usage_after_fraction", s.from_usage_after)
            .with("to_usage_before_fraction", s.to_usage_before)
            .with("to_usage_after_fraction", s.to_usage_after)
            .with("max_over_mean_after", s.balance_after.max_over_mean);
        u.detail = Some(UnloadDetail::Rebalance(u.reason.clone()));
        u.origin = "rebalance".to_string();
    }
}
