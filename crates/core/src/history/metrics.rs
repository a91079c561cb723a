//! The history's numbers: moves seen and predicted, destination agreement, unloads per hour,
//! bundles moved more than once, ping-pong, bytes moved, time without balance, and each broker's
//! load over time.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::cause::Cause;
use super::diff::Change;
use super::report::{HistoryReport, HistorySummary};

pub const HOUR_MS: i64 = 3_600_000;

/// brokerId → usage at each snapshot (`None` where it was not live), brokers in first-seen order.
pub fn broker_load_over_time(
    usages: &[IndexMap<String, f64>],
) -> IndexMap<String, Vec<Option<f64>>> {
    let mut out: IndexMap<String, Vec<Option<f64>>> = IndexMap::new();
    for (i, at) in usages.iter().enumerate() {
        for (id, u) in at {
            let row = out
                .entry(id.clone())
                .or_insert_with(|| vec![None; usages.len()]);
            if let Some(slot) = row.get_mut(i) {
                *slot = Some(*u);
            }
        }
    }
    out
}

/// Population standard deviation.
fn std_dev(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = values.clone().count();
    if n == 0 {
        return 0.0;
    }
    let mean = values.clone().sum::<f64>() / n as f64;
    let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
    var.sqrt()
}

/// A bundle that changed owner between two snapshots: `Moved`, or `Unassigned` then `Assigned`
/// (its owner let it go and a lookup placed it). The one reading of "a move" for the summary and
/// the answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeenMove<'a> {
    /// Index of the change in `report.changes` (the `Moved` or the `Assigned`).
    pub change: usize,
    pub step: usize,
    pub at_ms: i64,
    pub bundle: &'a str,
    pub from: &'a str,
    pub to: &'a str,
}

/// Every move of the series, in order.
pub fn seen_moves(report: &HistoryReport) -> Vec<SeenMove<'_>> {
    let mut out = Vec::new();
    let mut unowned_from: HashMap<&str, &str> = HashMap::new();
    for (i, c) in report.changes.iter().enumerate() {
        let moved = match &c.change {
            Change::Moved { bundle, from, to } => {
                Some((bundle.as_str(), from.as_str(), to.as_str()))
            }
            Change::Unassigned { bundle, from } => {
                unowned_from.insert(bundle.as_str(), from.as_str());
                None
            }
            Change::Assigned { bundle, to } => unowned_from
                .remove(bundle.as_str())
                .map(|from| (bundle.as_str(), from, to.as_str())),
            _ => None,
        };
        if let Some((bundle, from, to)) = moved {
            out.push(SeenMove {
                change: i,
                step: c.step,
                at_ms: c.at_ms,
                bundle,
                from,
                to,
            });
        }
    }
    out
}

/// Each move back to a broker its bundle left earlier within `window_ms` (A → B → A): the
/// positions in `moves` of the return and of the latest such leaving move.
pub fn returns(moves: &[SeenMove<'_>], window_ms: i64) -> Vec<(usize, usize)> {
    let mut by_bundle: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut out = Vec::new();
    for (k, m) in moves.iter().enumerate() {
        let earlier = by_bundle.entry(m.bundle).or_default();
        let left = earlier.iter().rev().copied().find(|&j| {
            moves
                .get(j)
                .is_some_and(|e| e.from == m.to && m.at_ms.saturating_sub(e.at_ms) <= window_ms)
        });
        if let Some(j) = left {
            out.push((k, j));
        }
        earlier.push(k);
    }
    out
}

pub fn summarize(
    report: &HistoryReport,
    usages: &[IndexMap<String, f64>],
    grace_ms: i64,
    balanced_std_fraction: f64,
) -> HistorySummary {
    let times = &report.times_ms;
    let duration_ms = match (times.first(), times.last()) {
        (Some(a), Some(b)) => b.saturating_sub(*a),
        _ => 0,
    };
    let mut s = HistorySummary {
        snapshots: times.len(),
        duration_ms,
        grace_period_ms: grace_ms,
        balanced_std_fraction,
        predicted_not_seen: report.predicted_not_seen.len(),
        ..HistorySummary::default()
    };
    for c in &report.changes {
        if matches!(c.cause, Cause::Unexplained { .. }) {
            s.unexplained += 1;
        }
        match &c.change {
            Change::Split { .. } => {
                s.splits_seen += 1;
                if matches!(c.cause, Cause::AutomaticSplit { .. }) {
                    s.splits_predicted += 1;
                }
            }
            Change::BrokerJoined { .. } => s.broker_joins += 1,
            Change::BrokerLeft { .. } => s.broker_leaves += 1,
            Change::NamespaceCreated { .. } => s.namespaces_created += 1,
            Change::NamespaceDeleted { .. } => s.namespaces_deleted += 1,
            _ => {}
        }
    }
    let seen = seen_moves(report);
    // bundle → how many times it moved.
    let mut moves: HashMap<&str, usize> = HashMap::new();
    for m in &seen {
        let Some(c) = report.changes.get(m.change) else {
            continue;
        };
        s.moves_seen += 1;
        match &c.cause {
            Cause::LeaderShedding {
                destination_agrees, ..
            } => {
                s.moves_predicted += 1;
                s.destination_agreements += usize::from(*destination_agrees);
            }
            Cause::BrokerLeft { .. } => s.moves_by_broker_left += 1,
            _ => {}
        }
        let seconds = (c.at_ms.saturating_sub(c.from_ms)) as f64 / 1000.0;
        s.bytes_moved += c.throughput_bytes_per_sec * seconds;
        *moves.entry(m.bundle).or_default() += 1;
    }
    let unloads = s.moves_seen.saturating_sub(s.moves_by_broker_left);
    s.unloads_per_hour = if duration_ms > 0 {
        unloads as f64 * HOUR_MS as f64 / duration_ms as f64
    } else {
        0.0
    };
    s.bundles_moved_more_than_once = moves.values().filter(|&&n| n > 1).count();
    s.ping_pong_within_grace = returns(&seen, grace_ms).len();
    s.ping_pong_within_hour = returns(&seen, HOUR_MS).len();
    for (i, at) in usages.iter().enumerate() {
        let (Some(t0), Some(t1)) = (times.get(i), times.get(i + 1)) else {
            continue;
        };
        if std_dev(at.values().copied()) >= balanced_std_fraction {
            s.time_without_balance_ms += t1.saturating_sub(*t0);
        }
    }
    s
}
