//! The history report as text (a summary, then every change with its cause) and as CSV (one row
//! per change). JSON is the report's serde form.

use std::fmt::Write as _;

use crate::text::escape_control;

use super::diff::Change;
use super::explain::Cause;
use super::report::HistoryReport;

fn pct(f: f64) -> String {
    format!("{:.1} %", f * 100.0)
}

/// `part` of `whole` as a percentage, or `n/a` when there is nothing to count (a series of one
/// snapshot has no moves: "100.0 %" of nothing would read as a perfect score).
fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        "n/a".to_string()
    } else {
        pct(part as f64 / whole as f64)
    }
}

/// A byte count in the binary unit that keeps its digits (`2.7 TiB`), as the rates are written.
fn bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = b;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let name = UNITS.get(unit).copied().unwrap_or("B");
    if unit == 0 {
        format!("{value:.0} {name}")
    } else {
        format!("{value:.1} {name}")
    }
}

/// A change in words (`bundle moved A → B`); the dashboard's move list reads it too.
pub fn change_text(c: &Change) -> String {
    match c {
        Change::Moved { bundle, from, to } => format!("{bundle} moved {from} → {to}"),
        Change::Split {
            parent, children, ..
        } => format!("{parent} split into {}", children.join(", ")),
        Change::Assigned { bundle, to } => format!("{bundle} assigned to {to}"),
        Change::Unassigned { bundle, from } => format!("{bundle} left {from}, unowned"),
        Change::BrokerJoined { broker } => format!("broker {broker} joined"),
        Change::BrokerLeft { broker, bundles } => {
            format!("broker {broker} left ({bundles} bundles)")
        }
        Change::NamespaceCreated { namespace } => format!("namespace {namespace} created"),
        Change::NamespaceDeleted { namespace } => format!("namespace {namespace} deleted"),
    }
}

/// A cause in words, with the leader's full reason.
pub fn cause_text(c: &Cause) -> String {
    match c {
        Cause::LeaderShedding {
            predicted_to,
            destination_agrees,
            reason,
        } => {
            let dest = if *destination_agrees {
                "destination as predicted".to_string()
            } else {
                format!("predicted destination {predicted_to}")
            };
            format!("leader shedding ({dest}): {reason}")
        }
        Cause::AutomaticSplit { reason } => format!("automatic split: {reason}"),
        Cause::BrokerLeft { broker } => format!("broker {broker} left"),
        Cause::NamespaceCreated { namespace } => format!("namespace {namespace} created"),
        Cause::Observed => "observed".to_string(),
        Cause::Unexplained { why } => format!("UNEXPLAINED: {why}"),
    }
}

pub fn render_text(r: &HistoryReport) -> String {
    let s = &r.summary;
    let mut out = String::new();
    if s.snapshots < 2 {
        let _ = writeln!(
            out,
            "{} snapshot: a history compares consecutive snapshots, so there is nothing to report yet (record a series: lbplan collect --every 60s, docs/history.md)",
            s.snapshots
        );
    }
    let _ = writeln!(
        out,
        "{} snapshots over {:.1} h; leader replayed with {} + {}",
        s.snapshots,
        s.duration_ms as f64 / 3_600_000.0,
        r.shedding_strategy,
        r.placement_strategy
    );
    let _ = writeln!(
        out,
        "moves seen {}: predicted by the leader {} ({} of moves not caused by a broker leaving), \
         destination as predicted {} ({}), by a broker leaving {}, unexplained changes {}",
        s.moves_seen,
        s.moves_predicted,
        share(
            s.moves_predicted,
            s.moves_seen.saturating_sub(s.moves_by_broker_left)
        ),
        s.destination_agreements,
        share(s.destination_agreements, s.moves_predicted),
        s.moves_by_broker_left,
        s.unexplained
    );
    let _ = writeln!(
        out,
        "splits {} (predicted {}), brokers joined {} left {}, namespaces created {} deleted {}, \
         predicted unloads not seen {}",
        s.splits_seen,
        s.splits_predicted,
        s.broker_joins,
        s.broker_leaves,
        s.namespaces_created,
        s.namespaces_deleted,
        s.predicted_not_seen
    );
    let _ = writeln!(
        out,
        "churn: {:.1} unloads/h, {} bundles moved more than once, ping-pong {} within the grace \
         period ({} min) and {} within an hour, {} moved, {:.1} min without balance \
         (std ≥ {})",
        s.unloads_per_hour,
        s.bundles_moved_more_than_once,
        s.ping_pong_within_grace,
        s.grace_period_ms / 60_000,
        s.ping_pong_within_hour,
        bytes(s.bytes_moved),
        s.time_without_balance_ms as f64 / 60_000.0,
        pct(s.balanced_std_fraction)
    );
    for line in r.load_model.lines() {
        let _ = writeln!(out, "{line}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {}", escape_control(w));
    }
    if !r.changes.is_empty() {
        let _ = writeln!(out, "\nchanges:");
    }
    for c in &r.changes {
        let _ = writeln!(
            out,
            "  #{:<4} +{:>6.1} min  {} — {}",
            c.step,
            (c.at_ms - r.times_ms.first().copied().unwrap_or(0)) as f64 / 60_000.0,
            escape_control(&change_text(&c.change)),
            escape_control(&cause_text(&c.cause))
        );
    }
    if !r.predicted_not_seen.is_empty() {
        let _ = writeln!(out, "\npredicted by the leader, not seen:");
        for p in &r.predicted_not_seen {
            let _ = writeln!(
                out,
                "  #{:<4} {} {} → {}: {}",
                p.step,
                escape_control(&p.bundle),
                escape_control(&p.from),
                escape_control(&p.to),
                escape_control(&p.reason)
            );
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One row per change: `step,from_ms,at_ms,kind,bundle,from,to,cause,predicted_to,destination_agrees,detail`.
pub fn render_csv(r: &HistoryReport) -> String {
    let mut out = String::from(
        "step,from_ms,at_ms,kind,bundle,from,to,cause,predicted_to,destination_agrees,detail\n",
    );
    for c in &r.changes {
        let (bundle, from, to) = match &c.change {
            Change::Moved { bundle, from, to } => (bundle.clone(), from.clone(), to.clone()),
            Change::Split {
                parent,
                children,
                owner,
            } => (
                parent.clone(),
                owner.clone().unwrap_or_default(),
                children.join(" "),
            ),
            Change::Assigned { bundle, to } => (bundle.clone(), String::new(), to.clone()),
            Change::Unassigned { bundle, from } => (bundle.clone(), from.clone(), String::new()),
            Change::BrokerJoined { broker } => (String::new(), String::new(), broker.clone()),
            Change::BrokerLeft { broker, .. } => (String::new(), broker.clone(), String::new()),
            Change::NamespaceCreated { namespace } | Change::NamespaceDeleted { namespace } => {
                (namespace.clone(), String::new(), String::new())
            }
        };
        let (predicted, agrees, detail) = match &c.cause {
            Cause::LeaderShedding {
                predicted_to,
                destination_agrees,
                reason,
            } => (
                predicted_to.clone(),
                destination_agrees.to_string(),
                reason.clone(),
            ),
            Cause::AutomaticSplit { reason } => (String::new(), String::new(), reason.clone()),
            Cause::BrokerLeft { broker } => (String::new(), String::new(), broker.clone()),
            Cause::NamespaceCreated { namespace } => {
                (String::new(), String::new(), namespace.clone())
            }
            Cause::Observed => (String::new(), String::new(), String::new()),
            Cause::Unexplained { why } => (String::new(), String::new(), why.clone()),
        };
        let row = [
            c.step.to_string(),
            c.from_ms.to_string(),
            c.at_ms.to_string(),
            c.change.kind().to_string(),
            bundle,
            from,
            to,
            c.cause.name().to_string(),
            predicted,
            agrees,
            detail,
        ];
        let line: Vec<String> = row.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::report::HistorySummary;

    #[test]
    fn one_snapshot_reports_nothing_as_a_score() {
        // Issue 41: `history` on one snapshot printed "predicted by the leader 0 (100.0 % …)".
        let r = HistoryReport {
            times_ms: vec![1_700_000_000_000],
            summary: HistorySummary {
                snapshots: 1,
                ..HistorySummary::default()
            },
            ..HistoryReport::default()
        };
        let text = render_text(&r);
        assert!(!text.contains("100.0 %"), "{text}");
        assert!(text.starts_with("1 snapshot: a history compares consecutive snapshots"));
        assert!(
            text.contains("predicted by the leader 0 (n/a of moves"),
            "{text}"
        );
    }

    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(bytes(0.0), "0 B");
        assert_eq!(bytes(1536.0), "1.5 KiB");
        // The 2.946e12 bytes.
        assert_eq!(bytes(2.946e12), "2.7 TiB");
        assert_eq!(share(3, 4), "75.0 %");
        assert_eq!(share(0, 0), "n/a");
    }
}
