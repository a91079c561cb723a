//! The history report as text (a summary, then every change with its cause) and as CSV (one row
//! per change). JSON is the report's serde form.

use crate::text::escape_control;

use super::cause::Cause;
use super::diff::Change;
use super::report::HistoryReport;
use crate::naming::BrokerNames;

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

/// Text lines are kept within this many columns (a terminal's width); JSON and CSV carry every
/// reason in full.
const TEXT_WIDTH: usize = 120;

/// A change in few words with the brokers' short names (the text report's one line per change).
fn change_brief(c: &Change, names: &BrokerNames) -> String {
    match c {
        Change::Moved { bundle, from, to } => {
            format!("{bundle}  {} → {}", names.short(from), names.short(to))
        }
        Change::Assigned { bundle, to } => format!("{bundle}  → {} (assigned)", names.short(to)),
        Change::Unassigned { bundle, from } => {
            format!("{bundle}  {} → (unowned)", names.short(from))
        }
        Change::BrokerJoined { broker } => format!("broker {} joined", names.short(broker)),
        Change::BrokerLeft { broker, bundles } => {
            format!("broker {} left ({bundles} bundles)", names.short(broker))
        }
        other => change_text(other),
    }
}

/// A cause in few words (the full reason is in the JSON and CSV).
fn cause_brief(c: &Cause, names: &BrokerNames) -> String {
    match c {
        Cause::LeaderShedding {
            predicted_to,
            destination_agrees,
            ..
        } => {
            if *destination_agrees {
                "leader shedding".to_string()
            } else {
                format!(
                    "leader shedding, predicted to {}",
                    names.short(predicted_to)
                )
            }
        }
        Cause::AutomaticSplit { .. } => "automatic split".to_string(),
        Cause::BrokerLeft { broker } => format!("{} left", names.short(broker)),
        Cause::NamespaceCreated { .. } => "namespace created".to_string(),
        Cause::Observed => "observed".to_string(),
        Cause::Unexplained { why } => format!("UNEXPLAINED: {why}"),
    }
}

/// Minutes since the series' first snapshot.
fn minutes(r: &HistoryReport, at_ms: i64) -> f64 {
    (at_ms - r.times_ms.first().copied().unwrap_or(0)) as f64 / 60_000.0
}

/// The report as text within [`TEXT_WIDTH`] columns: the summary, the answers (per broker,
/// ping-pong, bursts), the load model's check, then one line per change.
pub fn render_text(r: &HistoryReport) -> String {
    let s = &r.summary;
    let names = BrokerNames::new(r.broker_load.keys().map(String::as_str));
    let mut lines: Vec<String> = Vec::new();
    if s.snapshots < 2 {
        lines.push(format!(
            "{} snapshot: a history compares consecutive snapshots, so there is nothing to report yet",
            s.snapshots
        ));
        lines.push("  (record a series: lbplan collect --every 60s, docs/history.md)".to_string());
    }
    lines.push(format!(
        "{} snapshots over {:.1} h; leader replayed: {} + {}",
        s.snapshots,
        s.duration_ms as f64 / 3_600_000.0,
        crate::config::simple_class_name(&r.shedding_strategy),
        crate::config::simple_class_name(&r.placement_strategy)
    ));
    if let Some(basis) = &r.release_basis {
        lines.push(names.shorten_text(&basis.line()));
    }
    lines.extend(super::prometheus::render::basis_lines(&r.basis, s));
    lines.push(format!(
        "moves seen {}: predicted by the leader {} ({} of moves not caused by a broker leaving),",
        s.moves_seen,
        s.moves_predicted,
        share(
            s.moves_predicted,
            s.moves_seen.saturating_sub(s.moves_by_broker_left)
        )
    ));
    lines.push(format!(
        "  destination as predicted {} ({}), by a broker leaving {}, unexplained changes {}",
        s.destination_agreements,
        share(s.destination_agreements, s.moves_predicted),
        s.moves_by_broker_left,
        s.unexplained
    ));
    lines.push(format!(
        "splits {} (predicted {}), brokers joined {} left {}, namespaces created {} deleted {},",
        s.splits_seen,
        s.splits_predicted,
        s.broker_joins,
        s.broker_leaves,
        s.namespaces_created,
        s.namespaces_deleted
    ));
    lines.push(format!(
        "  predicted unloads not seen {}",
        s.predicted_not_seen
    ));
    lines.push(format!(
        "churn: {:.1} unloads/h, {} bundles moved more than once, {} moved, {:.1} min without balance (std ≥ {})",
        s.unloads_per_hour,
        s.bundles_moved_more_than_once,
        bytes(s.bytes_moved),
        s.time_without_balance_ms as f64 / 60_000.0,
        pct(s.balanced_std_fraction)
    ));
    lines.push(format!(
        "  ping-pong {} within the grace period ({} min) and {} within an hour",
        s.ping_pong_within_grace,
        s.grace_period_ms / 60_000,
        s.ping_pong_within_hour
    ));
    lines.extend(r.load_model.lines());
    for w in &r.warnings {
        lines.push(format!("warning: {}", escape_control(w)));
    }
    answers_text(r, &names, &mut lines);
    if !r.changes.is_empty() {
        lines.push(String::new());
        lines.push("changes (the full reasons: --format json or csv):".to_string());
    }
    for c in &r.changes {
        lines.push(format!(
            "  #{:<4} +{:>6.1} min  {}  {}",
            c.step,
            minutes(r, c.at_ms),
            escape_control(&change_brief(&c.change, &names)),
            escape_control(&cause_brief(&c.cause, &names))
        ));
    }
    if !r.predicted_not_seen.is_empty() {
        lines.push(String::new());
        lines.push("predicted by the leader, not seen:".to_string());
        for p in &r.predicted_not_seen {
            lines.push(format!(
                "  #{:<4} {}  {} → {}",
                p.step,
                escape_control(&p.bundle),
                escape_control(names.short(&p.from)),
                escape_control(names.short(&p.to))
            ));
        }
    }
    if let Some(log) = &r.leader_log {
        lines.extend(super::leader_log::render::lines(
            log,
            r.times_ms.first().copied().unwrap_or(0),
            &names,
        ));
    }
    let mut out = String::new();
    for line in lines {
        out.push_str(&crate::text::fit_width(&line, TEXT_WIDTH));
        out.push('\n');
    }
    out
}

/// Per broker, ping-pong and bursts, each bounded (the JSON lists them all).
fn answers_text(r: &HistoryReport, names: &BrokerNames, lines: &mut Vec<String>) {
    let a = &r.answers;
    if !a.brokers.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            "per broker (bundles received / given away, with their traffic){}:",
            if a.brokers.len() > 10 {
                format!("; 10 of {}", a.brokers.len())
            } else {
                String::new()
            }
        ));
        let width = a
            .brokers
            .iter()
            .take(10)
            .map(|b| names.short(&b.broker).chars().count())
            .max()
            .unwrap_or(0);
        for b in a.brokers.iter().take(10) {
            lines.push(format!(
                "  {:<width$}  in {:>5} {:>12}   out {:>5} {:>12}  ({} by the leader)",
                escape_control(names.short(&b.broker)),
                b.bundles_in,
                format!("{}/s", bytes(b.bytes_in_per_sec)),
                b.bundles_out,
                format!("{}/s", bytes(b.bytes_out_per_sec)),
                b.out_by_leader
            ));
        }
    }
    if !a.ping_pong.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            "ping-pong (back on a broker it left within an hour){}:",
            if a.ping_pong.len() > 20 {
                format!("; 20 of {}", a.ping_pong.len())
            } else {
                String::new()
            }
        ));
        for p in a.ping_pong.iter().take(20) {
            let path: Vec<&str> = p.brokers.iter().map(|b| names.short(b)).collect();
            lines.push(format!(
                "  {}  {}  left +{:.1} min, back +{:.1} min{}",
                escape_control(&p.bundle),
                escape_control(&path.join(" → ")),
                minutes(r, p.left_at_ms),
                minutes(r, p.back_at_ms),
                if p.within_grace {
                    " (within the grace period)"
                } else {
                    ""
                }
            ));
        }
    }
    if !a.bursts.is_empty() {
        lines.push(String::new());
        lines.push("bursts (steps with far more moves than usual):".to_string());
        for b in &a.bursts {
            lines.push(format!(
                "  snapshot {} (+{:.1} min): {} moves (usually {:.0}); likely trigger:",
                b.step + 1,
                minutes(r, b.at_ms),
                b.moves,
                b.usual_moves
            ));
            lines.push(format!("    {}", escape_control(&b.trigger)));
        }
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One row per change: `step,from_ms,at_ms,kind,bundle,from,to,cause,predicted_to,destination_agrees,detail`,
/// and with a leader's log `,leader_log,logged_at_ms` (`confirmed`, `not_predicted`, `not_logged`).
pub fn render_csv(r: &HistoryReport) -> String {
    let mut out = String::from(
        "step,from_ms,at_ms,kind,bundle,from,to,cause,predicted_to,destination_agrees,detail",
    );
    let log_columns = r
        .leader_log
        .as_ref()
        .map(super::leader_log::render::csv_columns);
    out.push_str(if log_columns.is_some() {
        ",leader_log,logged_at_ms\n"
    } else {
        "\n"
    });
    for (index, c) in r.changes.iter().enumerate() {
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
        let mut line: Vec<String> = row.iter().map(|f| csv_field(f)).collect();
        if let Some(cols) = &log_columns {
            let [what, at] = cols.get(&index).cloned().unwrap_or_default();
            line.push(what);
            line.push(at);
        }
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
        // `history` on one snapshot printed "predicted by the leader 0 (100.0 % …)".
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
