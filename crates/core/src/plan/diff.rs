//! A what-if plan against its baseline on the same snapshot: which moves were added, removed or
//! sent elsewhere, which splits appeared or vanished, and the balance before and after in both —
//! what changed when the operator edited a setting or added a manual operation.

use serde::{Deserialize, Serialize};

use super::model::{BalanceSummary, Plan};
use super::verdict::{self, Change, MetricChange, Outcome};

/// Version of the diff JSON (`lbplan plan --diff-baseline --format json`).
pub const PLAN_DIFF_FORMAT_VERSION: u32 = 1;

/// One bundle move as the diff names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Move {
    pub bundle: String,
    pub from: String,
    pub to: Option<String>,
}

/// A bundle both plans move, to different brokers (or from different owners).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangedMove {
    pub bundle: String,
    pub baseline: Move,
    pub what_if: Move,
}

/// Balance before and after one plan (max, max/mean, std of the brokers' weighted max usage).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BalanceChange {
    pub before: BalanceSummary,
    pub after: BalanceSummary,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanDiff {
    pub format_version: u32,
    /// Moves only the what-if makes, in its order.
    pub moves_added: Vec<Move>,
    /// Moves only the baseline makes, in its order.
    pub moves_removed: Vec<Move>,
    /// Bundles both move, with a different source or destination.
    pub moves_changed: Vec<ChangedMove>,
    /// Bundles only the what-if splits / only the baseline splits.
    pub splits_added: Vec<String>,
    pub splits_removed: Vec<String>,
    pub baseline: BalanceChange,
    pub what_if: BalanceChange,
    /// Both plans decide the same moves and splits.
    pub identical_decisions: bool,
}

/// Why two plans cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    #[error(
        "the plans were made from different snapshots ({baseline} vs {what_if}): a diff compares a what-if with the baseline of the same snapshot"
    )]
    DifferentSnapshots { baseline: String, what_if: String },
}

fn moves(plan: &Plan) -> Vec<Move> {
    plan.unloads
        .iter()
        .map(|u| Move {
            bundle: u.bundle.clone(),
            from: u.from.clone(),
            to: u.to.clone(),
        })
        .collect()
}

/// The diff of `what_if` against `baseline`; both must come from the same snapshot.
pub fn diff_plans(baseline: &Plan, what_if: &Plan) -> Result<PlanDiff, DiffError> {
    if baseline.snapshot_fingerprint != what_if.snapshot_fingerprint {
        return Err(DiffError::DifferentSnapshots {
            baseline: baseline.snapshot_fingerprint.clone(),
            what_if: what_if.snapshot_fingerprint.clone(),
        });
    }
    let base = moves(baseline);
    let what = moves(what_if);
    // A bundle moved twice in one plan (a manual unload then the cycle) is compared by its last move.
    let last =
        |list: &[Move], bundle: &str| list.iter().rev().find(|m| m.bundle == bundle).cloned();
    let mut moves_added = Vec::new();
    let mut moves_changed = Vec::new();
    for m in &what {
        match last(&base, &m.bundle) {
            None => moves_added.push(m.clone()),
            Some(b)
                if (b.from != m.from || b.to != m.to)
                    && last(&what, &m.bundle) == Some(m.clone()) =>
            {
                moves_changed.push(ChangedMove {
                    bundle: m.bundle.clone(),
                    baseline: b,
                    what_if: m.clone(),
                });
            }
            Some(_) => {}
        }
    }
    let moves_removed: Vec<Move> = base
        .iter()
        .filter(|m| !what.iter().any(|w| w.bundle == m.bundle))
        .cloned()
        .collect();
    let split_set =
        |p: &Plan| -> Vec<String> { p.splits.iter().map(|s| s.bundle.clone()).collect() };
    let (base_splits, what_splits) = (split_set(baseline), split_set(what_if));
    let splits_added: Vec<String> = what_splits
        .iter()
        .filter(|s| !base_splits.contains(s))
        .cloned()
        .collect();
    let splits_removed: Vec<String> = base_splits
        .iter()
        .filter(|s| !what_splits.contains(s))
        .cloned()
        .collect();
    let identical_decisions = moves_added.is_empty()
        && moves_removed.is_empty()
        && moves_changed.is_empty()
        && splits_added.is_empty()
        && splits_removed.is_empty();
    Ok(PlanDiff {
        format_version: PLAN_DIFF_FORMAT_VERSION,
        moves_added,
        moves_removed,
        moves_changed,
        splits_added,
        splits_removed,
        baseline: BalanceChange {
            before: baseline.balance_before.clone(),
            after: baseline.balance_after.clone(),
        },
        what_if: BalanceChange {
            before: what_if.balance_before.clone(),
            after: what_if.balance_after.clone(),
        },
        identical_decisions,
    })
}

fn pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

fn balance_line(label: &str, b: &BalanceChange) -> String {
    format!(
        "{label}: max {} → {}, max/mean {:.2} → {:.2}, std {} → {}",
        pct(b.before.max_usage_fraction),
        pct(b.after.max_usage_fraction),
        b.before.max_over_mean,
        b.after.max_over_mean,
        pct(b.before.std_usage_fraction),
        pct(b.after.std_usage_fraction)
    )
}

fn move_text(m: &Move) -> String {
    format!(
        "{} {} → {}",
        m.bundle,
        m.from,
        m.to.as_deref().unwrap_or("(next lookup)")
    )
}

/// A what-if judged against its baseline: the what-if's balance after, compared with the
/// baseline's balance after by the verdict's own measures and tolerances.
#[derive(Clone, Debug, PartialEq)]
pub struct AgainstBaseline {
    /// `worse` when the what-if's busiest broker ends busier and the load less even than the
    /// baseline leaves it, or when nothing improves and a measure worsens.
    pub outcome: Outcome,
    /// `Worse than the baseline: max 60.1% → 71.0%, …`.
    pub headline: String,
    pub metrics: Vec<MetricChange>,
}

/// Judges the what-if of `diff` against its baseline.
pub fn against_baseline(diff: &PlanDiff) -> AgainstBaseline {
    let metrics = verdict::metrics(&diff.baseline.after, &diff.what_if.after);
    let change_of = |name: &str| {
        metrics
            .iter()
            .find(|m| m.metric == name)
            .map_or(Change::NoChange, |m| m.change)
    };
    let any = |c: Change| metrics.iter().any(|m| m.change == c);
    let outcome = if (change_of("max_usage_fraction") == Change::Worse
        && change_of("max_over_mean") == Change::Worse)
        || (any(Change::Worse) && !any(Change::Better))
    {
        Outcome::Worse
    } else if any(Change::Better) && any(Change::Worse) {
        Outcome::Mixed
    } else if any(Change::Better) {
        Outcome::Better
    } else {
        Outcome::NoChange
    };
    let numbers: Vec<String> = metrics.iter().map(verdict::metric_text).collect();
    let numbers = numbers.join(", ");
    let headline = match outcome {
        Outcome::Better => format!("Better than the baseline: {numbers}"),
        Outcome::Worse => format!("Worse than the baseline: {numbers}"),
        Outcome::Mixed => format!("Mixed against the baseline: {numbers}"),
        Outcome::NoChange => format!("Same balance as the baseline: {numbers}"),
    };
    AgainstBaseline {
        outcome,
        headline,
        metrics,
    }
}

/// The diff as text lines: a summary line, the balance of both plans, then each change.
pub fn describe(diff: &PlanDiff) -> Vec<String> {
    let mut lines = vec![if diff.identical_decisions {
        "The what-if decides the same moves and splits as the baseline.".to_string()
    } else {
        format!(
            "Against the baseline: {} move(s) added, {} removed, {} sent elsewhere; {} split(s) added, {} removed.",
            diff.moves_added.len(),
            diff.moves_removed.len(),
            diff.moves_changed.len(),
            diff.splits_added.len(),
            diff.splits_removed.len()
        )
    }];
    lines.push(balance_line("Baseline", &diff.baseline));
    lines.push(balance_line("What-if ", &diff.what_if));
    lines.extend(
        diff.moves_added
            .iter()
            .map(|m| format!("+ {}", move_text(m))),
    );
    lines.extend(
        diff.moves_removed
            .iter()
            .map(|m| format!("- {}", move_text(m))),
    );
    lines.extend(diff.moves_changed.iter().map(|c| {
        format!(
            "~ {}: baseline {} → {}, what-if {} → {}",
            c.bundle,
            c.baseline.from,
            c.baseline.to.as_deref().unwrap_or("(next lookup)"),
            c.what_if.from,
            c.what_if.to.as_deref().unwrap_or("(next lookup)")
        )
    }));
    lines.extend(diff.splits_added.iter().map(|s| format!("+ split {s}")));
    lines.extend(diff.splits_removed.iter().map(|s| format!("- split {s}")));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn balance(max: f64, ratio: f64, std: f64) -> BalanceSummary {
        BalanceSummary {
            broker_count: 12,
            max_usage_fraction: max,
            mean_usage_fraction: max / ratio,
            max_over_mean: ratio,
            std_usage_fraction: std,
            ..BalanceSummary::default()
        }
    }

    fn diff(baseline_after: BalanceSummary, what_if_after: BalanceSummary) -> PlanDiff {
        let before = balance(0.792, 1.9, 0.2);
        PlanDiff {
            format_version: PLAN_DIFF_FORMAT_VERSION,
            moves_added: Vec::new(),
            moves_removed: Vec::new(),
            moves_changed: Vec::new(),
            splits_added: Vec::new(),
            splits_removed: Vec::new(),
            baseline: BalanceChange {
                before: before.clone(),
                after: baseline_after,
            },
            what_if: BalanceChange {
                before,
                after: what_if_after,
            },
            identical_decisions: false,
        }
    }

    #[test]
    fn a_what_if_is_judged_against_the_baseline_not_the_snapshot() {
        // Both plans improve on the snapshot (79.2 %); the what-if less than the baseline.
        let j = against_baseline(&diff(balance(0.60, 1.3, 0.1), balance(0.71, 1.6, 0.15)));
        assert_eq!(j.outcome, Outcome::Worse);
        assert_eq!(
            j.headline,
            "Worse than the baseline: max 60.0% → 71.0%, max/mean 1.30 → 1.60, std 10.0% → 15.0%"
        );
        let j = against_baseline(&diff(balance(0.71, 1.6, 0.15), balance(0.60, 1.3, 0.1)));
        assert_eq!(j.outcome, Outcome::Better);
        // Within the printed digits: the same.
        let j = against_baseline(&diff(balance(0.60, 1.3, 0.1), balance(0.6002, 1.301, 0.1)));
        assert_eq!(j.outcome, Outcome::NoChange);
        let j = against_baseline(&diff(balance(0.60, 1.3, 0.1), balance(0.65, 1.2, 0.1)));
        assert_eq!(j.outcome, Outcome::Mixed);
    }
}
