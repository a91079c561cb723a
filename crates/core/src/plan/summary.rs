//! A plan at a glance, for every front end: the one-line summary ("3 moves, 26 MiB/s: broker-04 →
//! broker-10, broker-00; max 79% → 60%"), moves grouped by source broker, and a strategy's own text
//! with its rates made readable (with `crate::text`'s number formats, handed on here). One home, so
//! the CLI and the dashboard say the same thing.

use indexmap::IndexMap;

use super::model::{Plan, PlannedUnload};
use crate::naming::BrokerNames;
use crate::reason::ReasonKind;

pub use crate::text::{count, rate};

/// A strategy's or the split task's own text with its rates made readable: `13209.3467 msg/s` →
/// `13,209 msg/s`, `2345678.9 B/s` → `2.2 MiB/s` (the exact figures stay in the JSON `detail`).
pub fn readable_rates(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut skip_unit = false;
    for (i, word) in words.iter().enumerate() {
        if skip_unit {
            skip_unit = false;
            if let Some(rest) = word.strip_prefix("B/s") {
                if let Some(last) = out.last_mut() {
                    last.push_str(rest);
                }
                continue;
            }
        }
        let next = words.get(i + 1).copied().unwrap_or("");
        match word.parse::<f64>() {
            Ok(v) if next.starts_with("msg/s") => out.push(count(v)),
            Ok(v) if next.starts_with("B/s") => {
                out.push(rate(v));
                skip_unit = true;
            }
            _ => out.push((*word).to_string()),
        }
    }
    out.join(" ")
}

/// The bytes per second a move is quoted with: the figure its shedding reason used (the shedder's
/// own view of the bundle, e.g. ThresholdShedder's long-term in + out) so the move's line and its
/// reason agree; the short-term in + out for moves no shedder chose.
pub fn unload_bytes_per_sec(u: &PlannedUnload) -> f64 {
    // Read from the structured reason, which every plan carries: a plan made at `explain:
    // summary` (the dashboard's) leaves `detail` out, and the move must be quoted the same there.
    let shedder_figure = match u.reason.kind {
        ReasonKind::ThresholdShedder
        | ReasonKind::ThresholdShedderLowerBoundary
        | ReasonKind::OverloadShedder => u.reason.number("bundle_bytes_per_sec"),
        _ => None,
    };
    // A non-finite figure is written `null` (and kept as `null` in the reason): quote the move's
    // own throughput instead.
    shedder_figure
        .filter(|b| b.is_finite())
        .unwrap_or(u.bytes_per_sec)
}

/// Moves grouped by the broker they leave, in the plan's order of first appearance.
pub fn moves_by_source(plan: &Plan) -> IndexMap<&str, Vec<&PlannedUnload>> {
    let mut groups: IndexMap<&str, Vec<&PlannedUnload>> = IndexMap::new();
    for u in &plan.unloads {
        groups.entry(u.from.as_str()).or_default().push(u);
    }
    groups
}

/// The display names of a plan's brokers (before and after): the one rule of
/// [`crate::naming::BrokerNames`] (`broker-04.demo.svc:8080` → `broker-04`).
pub fn broker_names(plan: &Plan) -> BrokerNames {
    BrokerNames::new(
        plan.brokers_before
            .iter()
            .chain(&plan.brokers_after)
            .map(|b| b.broker.as_str())
            .chain(plan.unloads.iter().map(|u| u.from.as_str())),
    )
}

fn whole_pct(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}

/// Source brokers the one-line summary lists route by route; with more (or routes too long for
/// the line), it counts the sources and lists the destinations (at most this many, busiest first).
const ROUTES_IN_ONE_LINE: usize = 4;

/// The most characters the routes take in the one line (which stays within a terminal's 120
/// columns with the counts around them).
const ROUTES_WIDTH: usize = 80;

/// The plan in one line: how many moves and how much traffic, from which brokers to which, splits,
/// and the busiest broker's usage before and after.
pub fn one_line(plan: &Plan) -> String {
    let moves = plan.unloads.len() + plan.topic_unloads.len();
    let mut text = match moves {
        0 => "no moves".to_string(),
        1 => "1 move".to_string(),
        n => format!("{} moves", count(n as f64)),
    };
    if !plan.unloads.is_empty() {
        let names = broker_names(plan);
        let total: f64 = plan.unloads.iter().map(unload_bytes_per_sec).sum();
        let by_source = moves_by_source(plan);
        let dest = |u: &PlannedUnload| {
            u.to.as_deref()
                .map_or_else(|| "?".to_string(), |t| names.short(t).to_string())
        };
        let routes: Vec<String> = by_source
            .iter()
            .map(|(from, us)| {
                let mut to: Vec<String> = Vec::new();
                for u in us {
                    let name = dest(u);
                    if !to.contains(&name) {
                        to.push(name);
                    }
                }
                format!("{} → {}", names.short(from), to.join(", "))
            })
            .collect();
        let routes = routes.join("; ");
        if by_source.len() <= ROUTES_IN_ONE_LINE && routes.chars().count() <= ROUTES_WIDTH {
            text.push_str(&format!(", {}: {routes}", rate(total)));
        } else {
            // Many sources: where the moves go is the point (25 of 29 to one broker is a
            // pattern); the sources are counted.
            let mut to: Vec<(String, usize)> = Vec::new();
            for u in &plan.unloads {
                let name = dest(u);
                match to.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, k)) => *k += 1,
                    None => to.push((name, 1)),
                }
            }
            to.sort_by_key(|d| std::cmp::Reverse(d.1));
            // Destinations, busiest first, as many as the line has room for (at least one).
            let mut listed: Vec<String> = Vec::new();
            let mut width = 0;
            for (n, k) in &to {
                let item = format!("{n} ({})", count(*k as f64));
                let w = item.chars().count() + 2;
                if !listed.is_empty()
                    && (listed.len() == ROUTES_IN_ONE_LINE || width + w > ROUTES_WIDTH - 20)
                {
                    break;
                }
                width += w;
                listed.push(item);
            }
            if to.len() > listed.len() {
                listed.push(format!(
                    "{} more brokers",
                    count((to.len() - listed.len()) as f64)
                ));
            }
            text.push_str(&format!(
                ", {} from {} brokers → {}",
                rate(total),
                count(by_source.len() as f64),
                listed.join(", ")
            ));
        }
    }
    match plan.splits.len() {
        0 => {}
        1 => text.push_str("; 1 split"),
        n => text.push_str(&format!("; {} splits", count(n as f64))),
    }
    text.push_str(&format!(
        "; max {} → {}",
        whole_pct(plan.balance_before.max_usage_fraction),
        whole_pct(plan.balance_after.max_usage_fraction)
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_inside_texts_are_rounded() {
        assert_eq!(
            readable_rates("least long-term message rate 13209.3467 msg/s (1 of 4 candidates tie)"),
            "least long-term message rate 13,209 msg/s (1 of 4 candidates tie)"
        );
        assert_eq!(
            readable_rates(
                "msg rate 2547.9501699999996 msg/s > loadBalancerNamespaceBundleMaxMsgRate 100"
            ),
            "msg rate 2,548 msg/s > loadBalancerNamespaceBundleMaxMsgRate 100"
        );
        assert_eq!(
            readable_rates(
                "throughput 209715200 B/s > loadBalancerNamespaceBundleMaxBandwidthMbytes × MiB = 104857600 B/s"
            ),
            "throughput 200 MiB/s > loadBalancerNamespaceBundleMaxBandwidthMbytes × MiB = 100 MiB/s"
        );
    }
}
