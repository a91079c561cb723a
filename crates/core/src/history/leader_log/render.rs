//! The leader's log part of the history's text (within the report's width) and its CSV columns.

use super::types::{ActionKind, LeaderLogSection, LoggedAction, MatchedAction};
use crate::naming::BrokerNames;
use crate::text::escape_control;

/// Most entries of each list in the text (the JSON has them all).
const MAX_LISTED: usize = 20;

/// `HH:MM:SS.mmm` UTC of a log time.
fn clock(ms: i64) -> String {
    let day_ms = ms.rem_euclid(86_400_000);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000
    )
}

fn minutes(first_ms: i64, at_ms: i64) -> String {
    format!("+{:>6.1} min", (at_ms - first_ms) as f64 / 60_000.0)
}

fn action_brief(a: &LoggedAction, names: &BrokerNames) -> String {
    let what = match a.kind {
        ActionKind::Unload => format!(
            "unload {} {} → {}",
            a.bundle,
            names.short(&a.from),
            a.to.as_deref().map_or("(owner picks)", |t| names.short(t))
        ),
        ActionKind::Split => format!(
            "split {}{}",
            a.bundle,
            match a.unloading {
                Some(true) => " (and unload)",
                _ => "",
            }
        ),
    };
    format!("{}  {what}", clock(a.at_ms))
}

/// Who logged the action, where (the file's name without its directory), and the strategy's words.
fn source(a: &LoggedAction, lines: &mut Vec<String>) {
    let file = a.file.rsplit(['/', '\\']).next().unwrap_or(&a.file);
    let words = a
        .words
        .as_deref()
        .map(|w| format!(": {w}"))
        .unwrap_or_default();
    lines.push(format!(
        "      {}",
        escape_control(&format!("{} {file}:{}{words}", a.strategy, a.line))
    ));
}

/// The section as text lines; `first_ms` is the series' first capture time.
pub fn lines(s: &LeaderLogSection, first_ms: i64, names: &BrokerNames) -> Vec<String> {
    let mut out = vec![String::new()];
    let total_lines: u64 = s.files.iter().map(|f| f.lines).sum();
    let leaders: Vec<&str> = s.files.iter().filter_map(|f| f.leader.as_deref()).collect();
    out.push(format!(
        "leader's log: {} file(s), {} lines, {} actions ({} failed); leader named: {}",
        s.files.len(),
        total_lines,
        s.actions,
        s.failed,
        if leaders.is_empty() {
            "none (the files are taken as the leader's)".to_string()
        } else {
            leaders.join(", ")
        }
    ));
    out.push(format!(
        "  confirmed {}, by the leader but not predicted {}, logged with no change {}, predicted but not logged {}",
        s.confirmed.len(),
        s.not_predicted.len(),
        s.no_change.len(),
        s.not_logged.len()
    ));
    if s.predictions_outside_log > 0 {
        out.push(format!(
            "  {} changes given to the leader fall outside the log's time span (not checked)",
            s.predictions_outside_log
        ));
    }
    for f in &s.files {
        if !f.skipped.is_empty() {
            let parts: Vec<String> = f.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
            out.push(format!(
                "  {}: skipped lines: {}",
                escape_control(&f.file),
                parts.join(", ")
            ));
        }
    }
    let c = &s.clock;
    if c.disagrees {
        out.push(format!(
            "  clocks disagree: the log's times are {:.1} s {} the snapshots that show its actions \
             (median of {}); matched after shifting the log by that",
            c.offset_ms.abs() as f64 / 1000.0,
            if c.offset_ms > 0 { "after" } else { "before" },
            c.matched
        ));
    } else if c.matched > 0 {
        out.push(format!(
            "  clocks agree within {:.0} s (median offset {:.1} s over {} actions)",
            c.tolerance_ms as f64 / 1000.0,
            c.offset_ms as f64 / 1000.0,
            c.matched
        ));
    }
    let matched = |title: &str, list: &[MatchedAction], out: &mut Vec<String>| {
        if list.is_empty() {
            return;
        }
        out.push(title.to_string());
        for m in list.iter().take(MAX_LISTED) {
            let dest = match m.destination_as_logged {
                Some(false) => " (went elsewhere than logged)",
                _ => "",
            };
            out.push(format!(
                "  #{:<4} {}  {}{}",
                m.step,
                minutes(first_ms, m.at_ms),
                escape_control(&action_brief(&m.action, names)),
                dest
            ));
            source(&m.action, out);
        }
        if list.len() > MAX_LISTED {
            out.push(format!(
                "  … {} more (--format json)",
                list.len() - MAX_LISTED
            ));
        }
    };
    matched("confirmed by the leader's log:", &s.confirmed, &mut out);
    matched(
        "in the leader's log, not predicted by the replay:",
        &s.not_predicted,
        &mut out,
    );
    if !s.no_change.is_empty() {
        out.push("in the leader's log, no change in the series:".to_string());
        for u in s.no_change.iter().take(MAX_LISTED) {
            out.push(format!(
                "  {}  {}",
                minutes(first_ms, u.action.at_ms),
                escape_control(&action_brief(&u.action, names))
            ));
            source(&u.action, &mut out);
            out.push(format!("      {}", u.note));
        }
        if s.no_change.len() > MAX_LISTED {
            out.push(format!(
                "  … {} more (--format json)",
                s.no_change.len() - MAX_LISTED
            ));
        }
    }
    if !s.not_logged.is_empty() {
        out.push("predicted by the replay, seen, not in the leader's log:".to_string());
        for n in s.not_logged.iter().take(MAX_LISTED) {
            let what = match n.kind {
                ActionKind::Unload => format!("unload {} from {}", n.bundle, names.short(&n.from)),
                ActionKind::Split => format!("split {}", n.bundle),
            };
            out.push(format!(
                "  #{:<4} {}  {}",
                n.step,
                minutes(first_ms, n.at_ms),
                escape_control(&what)
            ));
        }
        if s.not_logged.len() > MAX_LISTED {
            out.push(format!(
                "  … {} more (--format json)",
                s.not_logged.len() - MAX_LISTED
            ));
        }
    }
    out
}

/// The CSV's two extra columns per change index: what the log says (`confirmed`,
/// `not_predicted`, `not_logged`; changes not listed: empty) and the logged time.
pub fn csv_columns(s: &LeaderLogSection) -> std::collections::HashMap<usize, [String; 2]> {
    let mut out = std::collections::HashMap::new();
    for n in &s.not_logged {
        out.insert(n.change, ["not_logged".to_string(), String::new()]);
    }
    for m in &s.not_predicted {
        out.insert(
            m.change,
            ["not_predicted".to_string(), m.action.at_ms.to_string()],
        );
    }
    for m in &s.confirmed {
        out.insert(
            m.change,
            ["confirmed".to_string(), m.action.at_ms.to_string()],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_utc_time_of_day() {
        assert_eq!(clock(1_787_216_257_123), "08:57:37.123");
    }
}
