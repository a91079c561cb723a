//! The plan as a readable text report (`--format text`). A plan that leaves the cluster worse balanced
//! starts with the verdict's warning, before anything else; then the plan in one line (core's
//! `plan::summary::one_line`), moves grouped by the broker they leave, and splits counted, with the
//! first few per namespace unless `--verbose` (a cycle can split 1,602 bundles; the JSON has them all). Every name and reason in it comes from the
//! snapshot (broker ids, bundle names, configuration values), so each is escaped on its own: a
//! newline or an ESC sequence in a broker id cannot forge a line or drive the terminal.

use std::fmt::Write as _;

use indexmap::IndexMap;
use lbplan_core::config::simple_class_name;
use lbplan_core::naming::BundleName;
use lbplan_core::plan::summary::{
    count, moves_by_source, one_line, rate, readable_rates, unload_bytes_per_sec,
};
use lbplan_core::plan::verdict::verdict_lines;
use lbplan_core::plan::{BalanceSummary, BrokerLoadView, Plan, PlannedSplit, SkipScope};
use lbplan_core::text::escape_control;

/// A value from the snapshot, made safe for the report.
fn e(value: &impl ToString) -> String {
    escape_control(&value.to_string()).into_owned()
}

fn pct(f: f64) -> String {
    format!("{:.1}%", f * 100.0)
}

fn mib(b: f64) -> String {
    format!("{:.1}", b / (1024.0 * 1024.0))
}

fn balance_line(label: &str, b: &BalanceSummary) -> String {
    format!(
        "{label:<7} max {:>6}  mean {:>6}  max/mean {:>5.2}  std {:>6}  bundles/broker {}..{}",
        pct(b.max_usage_fraction),
        pct(b.mean_usage_fraction),
        b.max_over_mean,
        pct(b.std_usage_fraction),
        b.min_bundle_count,
        b.max_bundle_count
    )
}

/// Splits listed per namespace without `--verbose`.
const SPLITS_PER_NAMESPACE: usize = 3;

fn render_splits(out: &mut String, plan: &Plan, verbose: bool) {
    let _ = writeln!(out, "Splits ({}):", count(plan.splits.len() as f64));
    let mut by_namespace: IndexMap<&str, Vec<&PlannedSplit>> = IndexMap::new();
    for s in &plan.splits {
        let namespace = BundleName::namespace_of(&s.bundle);
        by_namespace.entry(namespace).or_default().push(s);
    }
    let mut hidden = 0usize;
    for (namespace, splits) in &by_namespace {
        let _ = writeln!(out, "  {} ({}):", e(namespace), count(splits.len() as f64));
        let shown = if verbose {
            splits.len()
        } else {
            SPLITS_PER_NAMESPACE
        };
        for s in splits.iter().take(shown) {
            let _ = writeln!(
                out,
                "    {} on {} by {} -> {} [PERMANENT]",
                e(&s.bundle),
                e(&s.broker),
                e(&s.algorithm),
                e(&s.new_bundles.join(", "))
            );
            let _ = writeln!(out, "        {}", e(&readable_rates(&s.reason_text)));
        }
        if splits.len() > shown {
            let more = splits.len() - shown;
            hidden += more;
            let _ = writeln!(out, "    … and {} more", count(more as f64));
        }
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "  ({} splits not listed: --verbose or --format json lists them all)",
            count(hidden as f64)
        );
    }
}

pub fn render_text(plan: &Plan, verbose: bool) -> String {
    let mut out = String::new();
    let verdict = verdict_lines(&plan.verdict, plan.seed);
    if plan.verdict.is_worse() {
        for line in &verdict {
            let _ = writeln!(out, "{}", e(line));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", e(&one_line(plan)));
    let _ = writeln!(
        out,
        "Plan for snapshot {} (profile {}, {} load manager, seed {})",
        e(&plan.snapshot_fingerprint),
        e(&plan.profile),
        e(&plan.load_manager),
        plan.seed
    );
    let _ = writeln!(
        out,
        "Shedding: {}   Placement: {}",
        e(&simple_class_name(&plan.shedding_strategy)),
        e(&simple_class_name(&plan.placement_strategy))
    );
    for w in &plan.warnings {
        let _ = writeln!(out, "warning: {}", e(w));
    }
    if !plan.verdict.is_worse() {
        for (k, line) in verdict.iter().enumerate() {
            let label = if k == 0 { "Verdict: " } else { "  " };
            let _ = writeln!(out, "{label}{}", e(line));
        }
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "Moves ({}, {}):",
        count(plan.unloads.len() as f64),
        rate(plan.unloads.iter().map(unload_bytes_per_sec).sum())
    );
    for (from, moves) in moves_by_source(plan) {
        let _ = writeln!(
            out,
            "  from {} ({}, {}):",
            e(&from),
            count(moves.len() as f64),
            rate(moves.iter().map(|u| unload_bytes_per_sec(u)).sum())
        );
        for u in moves {
            let _ = writeln!(
                out,
                "    {} -> {}  ({}, {} msg/s)",
                e(&u.bundle),
                e(&u.to.as_deref().unwrap_or("?")),
                rate(unload_bytes_per_sec(u)),
                count(u.msg_per_sec)
            );
            let _ = writeln!(out, "        {}", e(&u.reason_text));
        }
    }
    for t in &plan.topic_unloads {
        let _ = writeln!(out, "  topic unload: {}", e(t));
    }
    render_splits(&mut out, plan, verbose);
    if !plan.skipped.is_empty() {
        let _ = writeln!(out, "Not carried out ({}):", plan.skipped.len());
        for s in &plan.skipped {
            // A broker's why-not names its broker already; a bundle's line leads with the bundle.
            match &s.scope {
                SkipScope::Cycle | SkipScope::Broker { .. } => {
                    let _ = writeln!(out, "  {}", e(&s.why));
                }
                SkipScope::Bundle { bundle, broker } => {
                    let _ = writeln!(out, "  {} on {}: {}", e(bundle), e(broker), e(&s.why));
                }
            }
        }
    }
    if let Some(o) = &plan.outlook {
        let _ = writeln!(out, "Outlook: {}", e(&o.summary));
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{:<28} {:>8} {:>8} {:>8} {:>8} {:>10} {:>10} {:>8}",
        "broker", "before", "after", "cpu", "bw-in", "in MiB/s", "out MiB/s", "bundles"
    );
    let row = |v: &BrokerLoadView| pct(v.weighted_max_usage_fraction);
    for pair in plan.broker_pairs() {
        let Some(b) = pair.after else {
            let _ = writeln!(
                out,
                "{:<28} {:>8} {:>8}",
                e(&pair.broker),
                pair.before.map(row).unwrap_or_default(),
                "removed"
            );
            continue;
        };
        let before = pair.before;
        let _ = writeln!(
            out,
            "{:<28} {:>8} {:>8} {:>7.1}% {:>7.1}% {:>10} {:>10} {:>8}",
            e(&b.broker),
            before.map(row).unwrap_or_else(|| "new".to_string()),
            row(b),
            b.cpu_pct,
            b.bandwidth_in_pct,
            mib(b.msg_throughput_in_bytes_per_sec),
            mib(b.msg_throughput_out_bytes_per_sec),
            b.bundle_count
        );
    }
    out.push('\n');
    out.push_str(&balance_line("before", &plan.balance_before));
    out.push('\n');
    out.push_str(&balance_line("after", &plan.balance_after));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use lbplan_core::plan::SkippedDecision;
    use lbplan_core::reason::{DecisionReason, ReasonKind};

    use super::*;

    fn skip(scope: SkipScope, why: &str, kind: ReasonKind) -> SkippedDecision {
        SkippedDecision {
            scope,
            why: why.to_string(),
            reason: DecisionReason::new(kind),
        }
    }

    /// The "Not carried out" lines.
    fn not_carried_out(text: &str) -> Vec<&str> {
        text.lines()
            .skip_while(|l| !l.starts_with("Not carried out"))
            .take_while(|l| !l.is_empty() && !l.starts_with("Outlook"))
            .collect()
    }

    #[test]
    fn each_skip_scope_reads_as_its_own_line() {
        let plan = Plan {
            skipped: vec![
                skip(
                    SkipScope::Cycle,
                    "no shedding: only 1 broker available",
                    ReasonKind::SingleBroker,
                ),
                skip(
                    SkipScope::Broker {
                        broker: "b1:8080".into(),
                    },
                    "ThresholdShedder sheds nothing from b1:8080: a sole bundle",
                    ReasonKind::SoleBundle,
                ),
                skip(
                    SkipScope::Bundle {
                        bundle: "t/ns/0x00000000_0x40000000".into(),
                        broker: "b1:8080".into(),
                    },
                    "placement chose its current owner",
                    ReasonKind::PlacementChoseCurrentOwner,
                ),
            ],
            ..Plan::default()
        };
        assert_eq!(
            not_carried_out(&render_text(&plan, false)),
            [
                "Not carried out (3):",
                "  no shedding: only 1 broker available",
                "  ThresholdShedder sheds nothing from b1:8080: a sole bundle",
                "  t/ns/0x00000000_0x40000000 on b1:8080: placement chose its current owner",
            ]
        );
    }
}
