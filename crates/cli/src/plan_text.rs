//! The plan as a readable text report (`--format text`), within 120 columns: brokers by the short
//! names of core's one rule (`naming::BrokerNames`; the JSON and the exports keep full ids), the
//! broker table bounded to the brokers the plan changes most unless `--verbose`. A plan that leaves the cluster worse balanced
//! starts with the verdict's warning, before anything else; then the plan in one line (core's
//! `plan::summary::one_line`), moves grouped by the broker they leave, and splits counted, with the
//! first few per namespace unless `--verbose` (a cycle can split 1,602 bundles; the JSON has them all). Every name and reason in it comes from the
//! snapshot (broker ids, bundle names, configuration values), so each is escaped on its own: a
//! newline or an ESC sequence in a broker id cannot forge a line or drive the terminal.

use std::fmt::Write as _;

use indexmap::IndexMap;
use lbplan_core::config::simple_class_name;
use lbplan_core::naming::BrokerNames;
use lbplan_core::naming::BundleName;
use lbplan_core::plan::broker_pairs::BrokerPair;
use lbplan_core::plan::summary::{
    broker_names, count, moves_by_source, one_line, rate, readable_rates, unload_bytes_per_sec,
};
use lbplan_core::plan::verdict::verdict_lines;
use lbplan_core::plan::{BalanceSummary, BrokerLoadView, Plan, PlannedSplit, SkipScope};
use lbplan_core::text::{escape_control, wrap, wrap_hanging};

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

/// A terminal's width: the report's lines are kept within it.
const WIDTH: usize = 120;

/// Splits listed per namespace without `--verbose`.
const SPLITS_PER_NAMESPACE: usize = 3;

fn render_splits(out: &mut String, plan: &Plan, names: &BrokerNames, verbose: bool) {
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
                e(&names.short(&s.broker)),
                e(&s.algorithm),
                e(&s.new_bundles.join(", "))
            );
            let reason = e(&names.shorten_text(&readable_rates(&s.reason_text)));
            for line in wrap(&reason, WIDTH, "        ") {
                let _ = writeln!(out, "{line}");
            }
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

/// Brokers listed without `--verbose`: those the plan changes most (a 1,000-broker plan would
/// print 1,000 rows otherwise; the JSON and `--verbose` list them all).
pub const BROKERS_LISTED: usize = 20;

/// The widest broker column that keeps a row within 120 columns (the numbers take 67).
const NAME_WIDTH_MAX: usize = 53;

/// How much the plan changes a broker: its usage change, then moves in and out.
fn change_of(pair: &BrokerPair<'_>) -> f64 {
    match (pair.before, pair.after) {
        (Some(b), Some(a)) => (a.weighted_max_usage_fraction - b.weighted_max_usage_fraction).abs(),
        // Added or removed by the plan: always listed first.
        _ => f64::INFINITY,
    }
}

/// The broker table: short names (core's one rule) in a column as wide as the longest shown,
/// rows in the snapshot's order, at most [`BROKERS_LISTED`] of them without `verbose`.
fn render_brokers(out: &mut String, plan: &Plan, names: &BrokerNames, verbose: bool) {
    let pairs = plan.broker_pairs();
    let total = pairs.len();
    let shown: Vec<&BrokerPair<'_>> = if verbose || total <= BROKERS_LISTED {
        pairs.iter().collect()
    } else {
        let mut ranked: Vec<(usize, f64)> = pairs
            .iter()
            .enumerate()
            .map(|(k, p)| (k, change_of(p)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut keep: Vec<usize> = ranked.iter().take(BROKERS_LISTED).map(|r| r.0).collect();
        keep.sort_unstable();
        keep.iter().filter_map(|k| pairs.get(*k)).collect()
    };
    let width = shown
        .iter()
        .map(|p| e(&names.short(p.broker)).chars().count())
        .max()
        .unwrap_or(0)
        .clamp("broker".len(), NAME_WIDTH_MAX);
    if shown.len() < total {
        let _ = writeln!(
            out,
            "Brokers: the {} of {} the plan changes most (--verbose or --format json lists them all)",
            shown.len(),
            count(total as f64)
        );
    }
    let _ = writeln!(
        out,
        "{:<width$} {:>8} {:>8} {:>8} {:>8} {:>10} {:>10} {:>8}",
        "broker", "before", "after", "cpu", "bw-in", "in MiB/s", "out MiB/s", "bundles"
    );
    let row = |v: &BrokerLoadView| pct(v.weighted_max_usage_fraction);
    for pair in &shown {
        let name = e(&names.short(pair.broker));
        let Some(b) = pair.after else {
            let _ = writeln!(
                out,
                "{name:<width$} {:>8} {:>8}",
                pair.before.map(row).unwrap_or_default(),
                "removed"
            );
            continue;
        };
        let before = pair.before;
        let _ = writeln!(
            out,
            "{name:<width$} {:>8} {:>8} {:>7.1}% {:>7.1}% {:>10} {:>10} {:>8}",
            before.map(row).unwrap_or_else(|| "new".to_string()),
            row(b),
            b.cpu_pct,
            b.bandwidth_in_pct,
            mib(b.msg_throughput_in_bytes_per_sec),
            mib(b.msg_throughput_out_bytes_per_sec),
            b.bundle_count
        );
    }
    if shown.len() < total {
        let _ = writeln!(
            out,
            "… and {} more brokers",
            count((total - shown.len()) as f64)
        );
    }
}

pub fn render_text(plan: &Plan, verbose: bool) -> String {
    let mut out = String::new();
    let names = broker_names(plan);
    let short = |id: &str| e(&names.short(id));
    // The strategies' and the verdict's sentences name brokers by full id (the JSON keeps them).
    let text = |t: &str| e(&names.shorten_text(t));
    let verdict = verdict_lines(&plan.verdict, plan.seed);
    if plan.verdict.is_worse() {
        for line in &verdict {
            for l in wrap_hanging(&text(line), WIDTH, "", "  ") {
                let _ = writeln!(out, "{l}");
            }
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
    if let Some(basis) = &plan.release_basis {
        let _ = writeln!(out, "{}", text(&basis.line()));
    }
    if let Some(basis) = plan.prediction_basis() {
        let _ = writeln!(out, "{}", e(&basis));
    }
    let _ = writeln!(
        out,
        "Shedding: {}   Placement: {}",
        e(&simple_class_name(&plan.shedding_strategy)),
        e(&simple_class_name(&plan.placement_strategy))
    );
    for w in &plan.warnings {
        let _ = writeln!(out, "warning: {}", text(w));
    }
    if !plan.verdict.is_worse() {
        for (k, line) in verdict.iter().enumerate() {
            let label = if k == 0 { "Verdict: " } else { "  " };
            for l in wrap_hanging(&text(line), WIDTH, label, "    ") {
                let _ = writeln!(out, "{l}");
            }
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
            short(from),
            count(moves.len() as f64),
            rate(moves.iter().map(|u| unload_bytes_per_sec(u)).sum())
        );
        for u in moves {
            let _ = writeln!(
                out,
                "    {} -> {}  ({}, {} msg/s)",
                e(&u.bundle),
                u.to.as_deref().map_or_else(|| "?".to_string(), short),
                rate(unload_bytes_per_sec(u)),
                count(u.msg_per_sec)
            );
            for line in wrap(&text(&u.reason_text), WIDTH, "        ") {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    for t in &plan.topic_unloads {
        let _ = writeln!(out, "  topic unload: {}", e(t));
    }
    render_splits(&mut out, plan, &names, verbose);
    if !plan.skipped.is_empty() {
        let _ = writeln!(out, "Not carried out ({}):", plan.skipped.len());
        for s in &plan.skipped {
            // A broker's why-not names its broker already; a bundle's line leads with the bundle.
            let line = match &s.scope {
                SkipScope::Cycle | SkipScope::Broker { .. } => text(&s.why),
                SkipScope::Bundle { bundle, broker } => {
                    format!("{} on {}: {}", e(bundle), short(broker), text(&s.why))
                }
            };
            for l in wrap_hanging(&line, WIDTH, "  ", "    ") {
                let _ = writeln!(out, "{l}");
            }
        }
    }
    if let Some(o) = &plan.outlook {
        let _ = writeln!(out, "Outlook: {}", text(&o.summary));
    }
    out.push('\n');
    render_brokers(&mut out, plan, &names, verbose);
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

    /// A 1,000-broker cluster with 60-character Kubernetes ids, 29 moves of which 25 to one broker.
    fn large_plan() -> Plan {
        let id = |i: usize| {
            format!("pulsar-broker-{i:04}.pulsar-broker-headless.prod-eu.svc.cluster.local:8080")
        };
        let view = |i: usize, usage: f64| BrokerLoadView {
            broker: id(i),
            weighted_max_usage_fraction: usage,
            cpu_pct: usage * 100.0,
            bundle_count: 200,
            ..BrokerLoadView::default()
        };
        let brokers_before: Vec<BrokerLoadView> = (0..1000).map(|i| view(i, 0.5)).collect();
        let mut brokers_after = brokers_before.clone();
        // 30 brokers change, by different amounts: broker 10 receives, 100..129 shed.
        for (k, b) in brokers_after.iter_mut().enumerate().skip(100).take(29) {
            b.weighted_max_usage_fraction = 0.5 - 0.001 * (k - 99) as f64;
        }
        brokers_after[10].weighted_max_usage_fraction = 0.9;
        let unloads = (0..29)
            .map(|k| lbplan_core::plan::PlannedUnload {
                bundle: format!("acme/orders/0x{:08x}_0x{:08x}", k * 16, k * 16 + 16),
                from: id(100 + k),
                to: Some(id(if k < 25 { 10 } else { 11 })),
                pass_destination: true,
                reason: DecisionReason::new(ReasonKind::ThresholdShedder),
                reason_text: "ThresholdShedder".into(),
                detail: None,
                bytes_per_sec: 0.0,
                msg_per_sec: 0.0,
                origin: "shedding".into(),
            })
            .collect();
        Plan {
            brokers_before,
            brokers_after,
            unloads,
            ..Plan::default()
        }
    }

    #[test]
    fn a_thousand_brokers_print_a_bounded_aligned_table_of_short_names() {
        let text = render_text(&large_plan(), false);
        let table: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Brokers: "))
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(
            table[0],
            "Brokers: the 20 of 1,000 the plan changes most (--verbose or --format json lists them all)"
        );
        // Header, 20 rows, the count of the others.
        assert_eq!(table.len(), 1 + 1 + BROKERS_LISTED + 1);
        assert_eq!(table[table.len() - 1], "… and 980 more brokers");
        // The broker that changed most comes in the snapshot's order among the shown; short names.
        assert!(
            table[2].starts_with("pulsar-broker-0010    50.0%    90.0%"),
            "{}",
            table[2]
        );
        let rows = &table[1..table.len() - 1];
        let width = rows[0].chars().count();
        assert!(width <= 120);
        assert!(rows.iter().all(|r| r.chars().count() == width), "{rows:#?}");
        // Moves name brokers short too; the one-line summary leads.
        assert!(
            text.contains("  from pulsar-broker-0100 (1, 0 B/s):"),
            "{text}"
        );
        assert!(text.contains("-> pulsar-broker-0010  ("), "{text}");
        assert!(!text.contains("svc.cluster.local"), "{text}");
        // 29 sources: the one line counts them and says where the moves go.
        assert!(
            text.starts_with(
                "29 moves, 0 B/s from 29 brokers → pulsar-broker-0010 (25), pulsar-broker-0011 (4); "
            ),
            "{text}"
        );
        // --verbose lists every broker.
        let all = render_text(&large_plan(), true);
        assert!(
            all.lines()
                .filter(|l| l.starts_with("pulsar-broker-"))
                .count()
                == 1000
        );
    }

    #[test]
    fn a_strategys_sentence_names_brokers_short_and_wraps_within_the_width() {
        let mut plan = large_plan();
        // The shape LeastLongTermMessageRate's reason takes at 1,000 brokers.
        plan.unloads[0].reason_text = format!(
            "ThresholdShedder: broker usage 54.2% ≥ average 37.7% + threshold 10.0%; must shed \
             120 MiB/s, bundle carries 80.0 MiB/s; LeastLongTermMessageRate chose {} (least \
             long-term message rate 226 msg/s (1 of 984 candidates tie)); runner-up {} at 427 msg/s",
            plan.unloads[0].to.clone().unwrap(),
            "pulsar-broker-0341.pulsar-broker-headless.prod-eu.svc.cluster.local:8080"
        );
        let text = render_text(&plan, false);
        assert!(text.lines().all(|l| l.chars().count() <= 120), "{text}");
        assert!(
            text.contains("LeastLongTermMessageRate chose pulsar-broker-0010 (least"),
            "{text}"
        );
        assert!(
            text.contains("runner-up pulsar-broker-0341 at 427 msg/s"),
            "{text}"
        );
        assert!(!text.contains("svc.cluster.local"), "{text}");
    }
}
