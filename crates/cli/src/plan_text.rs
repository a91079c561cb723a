//! The plan as a readable text report (`--format text`).

use std::fmt::Write as _;

use lbplan_core::plan::{BalanceSummary, BrokerLoadView, Plan};

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

pub fn render_text(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Plan for snapshot {} (profile {}, {} load manager, seed {})",
        plan.snapshot_fingerprint, plan.profile, plan.load_manager, plan.seed
    );
    let _ = writeln!(
        out,
        "Shedding: {}   Placement: {}",
        plan.shedding_strategy, plan.placement_strategy
    );
    for w in &plan.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out.push('\n');
    let _ = writeln!(out, "Splits ({}):", plan.splits.len());
    for s in &plan.splits {
        let _ = writeln!(
            out,
            "  {} on {} by {} -> {} [PERMANENT]",
            s.bundle,
            s.broker,
            s.algorithm,
            s.new_bundles.join(", ")
        );
        let _ = writeln!(out, "      {}", s.reason);
    }
    let _ = writeln!(out, "Unloads ({}):", plan.unloads.len());
    for u in &plan.unloads {
        let _ = writeln!(
            out,
            "  {}  {} -> {}  ({} MiB/s, {:.0} msg/s)",
            u.bundle,
            u.from,
            u.to.as_deref().unwrap_or("?"),
            mib(u.bytes_per_sec),
            u.msg_per_sec
        );
        let _ = writeln!(out, "      {}", u.reason);
    }
    for t in &plan.topic_unloads {
        let _ = writeln!(out, "  topic unload: {t}");
    }
    if !plan.skipped.is_empty() {
        let _ = writeln!(out, "Not carried out ({}):", plan.skipped.len());
        for s in &plan.skipped {
            if s.bundle.is_empty() {
                let _ = writeln!(out, "  {}", s.why);
            } else {
                let _ = writeln!(out, "  {} on {}: {}", s.bundle, s.from, s.why);
            }
        }
    }
    if let Some(o) = &plan.outlook {
        let _ = writeln!(out, "Outlook: {}", o.summary);
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
                pair.broker,
                pair.before.map(row).unwrap_or_default(),
                "removed"
            );
            continue;
        };
        let before = pair.before;
        let _ = writeln!(
            out,
            "{:<28} {:>8} {:>8} {:>7.1}% {:>7.1}% {:>10} {:>10} {:>8}",
            b.broker,
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
