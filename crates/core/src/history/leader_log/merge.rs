//! The log's actions merged with a series' explanation: each logged unload or split is matched to
//! the change that shows it (same bundle, same source broker, the log time within the change's
//! interval), then sorted into *confirmed* (the replay gave the cause and the log shows the leader
//! did it), *not predicted* (the leader did it, the replay did not predict it), *no change* (logged,
//! but the series shows nothing: between snapshots, failed, outside the series) and *not logged*
//! (the replay attributed a change to the leader that the log, covering that time, does not show).
//!
//! Clocks: a change is seen in the interval `(from_ms, at_ms]` between two snapshots; a log time
//! after `at_ms` (logged after a snapshot that already shows it) or before `from_ms` is off by that
//! much. The median of those offsets over the matched actions estimates the offset between the
//! log's clock and the series' capture times; beyond the tolerance it is reported, and the log's
//! times are shifted by it before the final matching.

use std::collections::HashMap;

use super::reader::LeaderLog;
use super::types::{
    ActionKind, ClockCheck, LeaderLogSection, LoggedAction, MatchedAction, NotLogged,
    UnmatchedAction,
};
use crate::history::cause::Cause;
use crate::history::diff::Change;
use crate::history::report::HistoryReport;

/// Offsets within this are agreement (the series' capture and the log's clock).
pub const DEFAULT_CLOCK_TOLERANCE_MS: i64 = 10_000;
/// Farthest a log action is looked for from a change, to estimate a clock offset.
const SEARCH_WINDOW_MS: i64 = 3_600_000;

/// A change the log can show: an owner losing a bundle, or a split.
struct Candidate {
    change: usize,
    from: String,
    from_ms: i64,
    at_ms: i64,
}

/// Log time minus the nearest edge of `(from_ms, at_ms]`; 0 inside.
fn offset(t: i64, c: &Candidate) -> i64 {
    if t <= c.from_ms {
        t - c.from_ms
    } else if t > c.at_ms {
        t - c.at_ms
    } else {
        0
    }
}

fn median(mut v: Vec<i64>) -> i64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    let mid = v.len() / 2;
    match (v.get(mid.wrapping_sub(1)), v.get(mid)) {
        (Some(a), Some(b)) if v.len().is_multiple_of(2) => a + (b - a) / 2,
        (_, Some(b)) => *b,
        _ => 0,
    }
}

fn candidates(report: &HistoryReport) -> HashMap<(ActionKind, &str), Vec<Candidate>> {
    let mut out: HashMap<(ActionKind, &str), Vec<Candidate>> = HashMap::new();
    for (i, c) in report.changes.iter().enumerate() {
        let (kind, bundle, from) = match &c.change {
            Change::Moved { bundle, from, .. } | Change::Unassigned { bundle, from } => {
                (ActionKind::Unload, bundle.as_str(), from.clone())
            }
            Change::Split { parent, owner, .. } => (
                ActionKind::Split,
                parent.as_str(),
                owner.clone().unwrap_or_default(),
            ),
            _ => continue,
        };
        out.entry((kind, bundle)).or_default().push(Candidate {
            change: i,
            from,
            from_ms: c.from_ms,
            at_ms: c.at_ms,
        });
    }
    out
}

fn fits(a: &LoggedAction, c: &Candidate) -> bool {
    a.kind == ActionKind::Split || a.from.is_empty() || c.from.is_empty() || a.from == c.from
}

/// The typical interval between snapshots (a load report may show a change a snapshot late).
fn median_step(times: &[i64]) -> i64 {
    median(
        times
            .windows(2)
            .filter_map(|w| Some(w.get(1)? - w.first()?))
            .collect(),
    )
}

/// Merges the log's actions (sorted by time) with the report's changes.
pub fn merge(report: &HistoryReport, log: &LeaderLog, tolerance_ms: i64) -> LeaderLogSection {
    let tolerance_ms = tolerance_ms.max(0);
    let cands = candidates(report);
    let nearest = |a: &LoggedAction, t: i64, used: &[bool]| -> Option<(usize, i64)> {
        cands
            .get(&(a.kind, a.bundle.as_str()))?
            .iter()
            .enumerate()
            .filter(|(_, c)| fits(a, c) && !used.get(c.change).copied().unwrap_or(false))
            .map(|(i, c)| (i, offset(t, c)))
            .min_by_key(|(_, d)| d.abs())
    };
    // Pass 1: the clock offset from each action's nearest change.
    let none_used = vec![false; report.changes.len()];
    let offsets: Vec<i64> = log
        .actions
        .iter()
        .filter(|a| !a.failed)
        .filter_map(|a| nearest(a, a.at_ms, &none_used))
        .map(|(_, d)| d)
        .filter(|d| d.abs() <= SEARCH_WINDOW_MS)
        .collect();
    let clock = ClockCheck {
        matched: offsets.len(),
        offset_ms: median(offsets),
        tolerance_ms,
        disagrees: false,
    };
    let clock = ClockCheck {
        disagrees: clock.offset_ms.abs() > tolerance_ms,
        ..clock
    };
    let shift = if clock.disagrees { clock.offset_ms } else { 0 };
    // Pass 2: one change per action, within the tolerance and a snapshot's lag.
    let window = tolerance_ms + median_step(&report.times_ms);
    let mut used = vec![false; report.changes.len()];
    let mut section = LeaderLogSection {
        files: log.files.clone(),
        actions: log.actions.len(),
        failed: log.actions.iter().filter(|a| a.failed).count(),
        clock,
        ..LeaderLogSection::default()
    };
    for a in &log.actions {
        let t = a.at_ms - shift;
        let hit = if a.failed {
            None
        } else {
            nearest(a, t, &used).filter(|(_, d)| d.abs() <= window)
        };
        let cand = hit.and_then(|(i, _)| cands.get(&(a.kind, a.bundle.as_str()))?.get(i));
        let Some(cand) = cand else {
            section.no_change.push(unmatched(report, a, t, window));
            continue;
        };
        if let Some(u) = used.get_mut(cand.change) {
            *u = true;
        }
        let Some(change) = report.changes.get(cand.change) else {
            continue;
        };
        let destination_as_logged = match (&change.change, &a.to) {
            (Change::Moved { to, .. }, Some(logged)) => Some(to == logged),
            _ => None,
        };
        let confirmed = matches!(
            (&change.cause, a.kind),
            (Cause::LeaderShedding { .. }, ActionKind::Unload)
                | (Cause::AutomaticSplit { .. }, ActionKind::Split)
        );
        let m = MatchedAction {
            change: cand.change,
            step: change.step,
            from_ms: change.from_ms,
            at_ms: change.at_ms,
            cause: change.cause.name().to_string(),
            destination_as_logged,
            action: a.clone(),
        };
        if confirmed {
            section.confirmed.push(m);
        } else {
            section.not_predicted.push(m);
        }
    }
    // Changes the replay gave to the leader that the log, covering their time, does not show.
    let span = log
        .files
        .iter()
        .filter_map(|f| Some((f.first_ms? - shift, f.last_ms? - shift)))
        .collect::<Vec<_>>();
    for (i, c) in report.changes.iter().enumerate() {
        let kind = match (&c.change, &c.cause) {
            (Change::Moved { .. } | Change::Unassigned { .. }, Cause::LeaderShedding { .. }) => {
                ActionKind::Unload
            }
            (Change::Split { .. }, Cause::AutomaticSplit { .. }) => ActionKind::Split,
            _ => continue,
        };
        if used.get(i).copied().unwrap_or(false) {
            continue;
        }
        let covered = span
            .iter()
            .any(|(first, last)| *first <= c.at_ms && *last >= c.from_ms);
        if !covered {
            section.predictions_outside_log += 1;
            continue;
        }
        let (bundle, from) = match &c.change {
            Change::Moved { bundle, from, .. } | Change::Unassigned { bundle, from } => {
                (bundle.clone(), from.clone())
            }
            Change::Split { parent, owner, .. } => {
                (parent.clone(), owner.clone().unwrap_or_default())
            }
            _ => continue,
        };
        section.not_logged.push(NotLogged {
            change: i,
            step: c.step,
            from_ms: c.from_ms,
            at_ms: c.at_ms,
            kind,
            bundle,
            from,
        });
    }
    section
}

fn unmatched(report: &HistoryReport, a: &LoggedAction, t: i64, window: i64) -> UnmatchedAction {
    let predicted = a.kind == ActionKind::Unload
        && report.predicted_not_seen.iter().any(|p| {
            let next = report.times_ms.get(p.step + 1).copied().unwrap_or(p.at_ms);
            p.bundle == a.bundle && p.from == a.from && t > p.at_ms - window && t <= next + window
        });
    let first = report.times_ms.first().copied().unwrap_or(0);
    let last = report.times_ms.last().copied().unwrap_or(0);
    let note = if a.failed {
        "the log shows it failed"
    } else if t < first || t > last {
        "outside the series' time span"
    } else if predicted {
        "the replay predicted it too; no snapshot shows it (undone between snapshots, or the leader's view differed)"
    } else {
        "no snapshot shows it (undone between snapshots, an unload back to its owner, or a gap in the series)"
    };
    UnmatchedAction {
        note: note.to_string(),
        predicted,
        action: a.clone(),
    }
}
