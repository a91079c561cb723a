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
        pct(s.predicted_fraction()),
        s.destination_agreements,
        pct(s.destination_fraction()),
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
         period ({} min) and {} within an hour, {:.3e} bytes moved, {:.1} min without balance \
         (std ≥ {})",
        s.unloads_per_hour,
        s.bundles_moved_more_than_once,
        s.ping_pong_within_grace,
        s.grace_period_ms / 60_000,
        s.ping_pong_within_hour,
        s.bytes_moved,
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
