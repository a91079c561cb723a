//! The plan as lists an operator can scan at any size: moves grouped by the broker they leave
//! (busiest group first, with counts and traffic), splits grouped by namespace, one filter over
//! bundle, broker and origin, a sort, each reason's numbers laid out as label/value facts instead of
//! one long sentence, and each broker's usage before and after with the moves in and out of it.
//! Grouped lists are flattened into one row model ([`flat_rows`]: a header row per group, then its
//! items when the group is open) that the dashboard virtualises (`view::virtual_window`), so 1,602
//! splits or 200,000 rows keep a few dozen rows in the DOM.

use serde_json::Value;

use crate::naming::parse_bundle_name;
use crate::plan::summary::{moves_by_source, unload_bytes_per_sec};
use crate::plan::{Plan, PlannedSplit, PlannedUnload};

/// Groups open by default up to this many (more: their headers first, open one to read it); every
/// group is open while a filter is typed.
pub const OPEN_GROUPS: usize = 12;

/// One row of a grouped list flattened for a virtualised view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatRow {
    /// Group `group`'s header (its summary and the button that opens or closes it).
    Header { group: usize, open: bool },
    /// Item `item` of group `group`.
    Item { group: usize, item: usize },
}

/// Whether a group is open: open by default when there are at most [`OPEN_GROUPS`] groups or a
/// filter is typed; `toggled` (the user opened or closed it) flips the default.
pub fn group_open(groups: usize, filtering: bool, toggled: bool) -> bool {
    (groups <= OPEN_GROUPS || filtering) != toggled
}

/// Groups of `lens[g]` items as one list of rows: each group's header, then its items when
/// `open(g)`.
pub fn flat_rows(lens: &[usize], open: impl Fn(usize) -> bool) -> Vec<FlatRow> {
    let shown: usize = lens
        .iter()
        .enumerate()
        .map(|(g, n)| 1 + if open(g) { *n } else { 0 })
        .sum();
    let mut rows = Vec::with_capacity(shown);
    for (group, n) in lens.iter().enumerate() {
        let open = open(group);
        rows.push(FlatRow::Header { group, open });
        if open {
            rows.extend((0..*n).map(|item| FlatRow::Item { group, item }));
        }
    }
    rows
}

/// The row of item `item` of group `group` in `rows` (`None`: its group is closed or it is not there).
pub fn flat_index(rows: &[FlatRow], group: usize, item: usize) -> Option<usize> {
    rows.iter()
        .position(|r| *r == FlatRow::Item { group, item })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSort {
    /// Most traffic first (the order that matters during an incident).
    Throughput,
    Bundle,
    Destination,
    /// The plan's own order: the order the moves are applied in (a rebalance's steps chain: a
    /// broker that receives a bundle may give one away later).
    Applied,
}

impl MoveSort {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "throughput" => Some(MoveSort::Throughput),
            "bundle" => Some(MoveSort::Bundle),
            "destination" => Some(MoveSort::Destination),
            "applied" => Some(MoveSort::Applied),
            _ => None,
        }
    }
}

/// The moves that leave one broker.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveGroup<'a> {
    pub from: &'a str,
    pub moves: Vec<&'a PlannedUnload>,
    /// Traffic the group moves (each move as its reason quotes it).
    pub bytes_per_sec: f64,
    /// Distinct destinations, in order of first appearance (`None`: chosen by Pulsar's lookup).
    pub destinations: Vec<Option<&'a str>>,
}

/// Whether `query` (case-insensitive) appears in any of `fields`.
fn matches(query: &str, fields: &[&str]) -> bool {
    query.is_empty()
        || fields
            .iter()
            .any(|f| f.to_lowercase().contains(&query.to_lowercase()))
}

/// Moves grouped by source: groups by traffic (largest first, then broker id), moves in `sort`
/// order; only the moves whose bundle, source, destination or origin contains `filter`.
pub fn move_groups<'a>(plan: &'a Plan, filter: &str, sort: MoveSort) -> Vec<MoveGroup<'a>> {
    let query = filter.trim();
    // Each move's place in the plan (for the applied order), by address: moves are borrowed from
    // `plan.unloads`.
    let position: rustc_hash::FxHashMap<*const PlannedUnload, usize> = if sort == MoveSort::Applied
    {
        plan.unloads
            .iter()
            .enumerate()
            .map(|(i, u)| (std::ptr::from_ref(u), i))
            .collect()
    } else {
        rustc_hash::FxHashMap::default()
    };
    let at = |u: &PlannedUnload| {
        position
            .get(&std::ptr::from_ref(u))
            .copied()
            .unwrap_or(usize::MAX)
    };
    let mut groups: Vec<MoveGroup<'a>> = moves_by_source(plan)
        .into_iter()
        .filter_map(|(from, moves)| {
            let mut moves: Vec<&PlannedUnload> = moves
                .into_iter()
                .filter(|u| {
                    matches(
                        query,
                        &[&u.bundle, &u.from, u.to.as_deref().unwrap_or(""), &u.origin],
                    )
                })
                .collect();
            if moves.is_empty() {
                return None;
            }
            match sort {
                MoveSort::Throughput => moves.sort_by(|a, b| {
                    unload_bytes_per_sec(b)
                        .total_cmp(&unload_bytes_per_sec(a))
                        .then_with(|| a.bundle.cmp(&b.bundle))
                }),
                MoveSort::Bundle => moves.sort_by(|a, b| a.bundle.cmp(&b.bundle)),
                MoveSort::Destination => {
                    moves.sort_by(|a, b| a.to.cmp(&b.to).then_with(|| a.bundle.cmp(&b.bundle)))
                }
                MoveSort::Applied => moves.sort_by_key(|u| at(u)),
            }
            let mut destinations: Vec<Option<&str>> = Vec::new();
            for u in &moves {
                let to = u.to.as_deref();
                if !destinations.contains(&to) {
                    destinations.push(to);
                }
            }
            Some(MoveGroup {
                from,
                bytes_per_sec: moves.iter().map(|u| unload_bytes_per_sec(u)).sum(),
                moves,
                destinations,
            })
        })
        .collect();
    if sort == MoveSort::Applied {
        groups.sort_by_key(|g| g.moves.first().map_or(usize::MAX, |u| at(u)));
    } else {
        groups.sort_by(|a, b| {
            b.bytes_per_sec
                .total_cmp(&a.bytes_per_sec)
                .then_with(|| a.from.cmp(b.from))
        });
    }
    groups
}

/// The splits of one namespace.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitGroup<'a> {
    pub namespace: String,
    pub splits: Vec<&'a PlannedSplit>,
}

/// Splits grouped by namespace (most splits first, then name), filtered like the moves.
pub fn split_groups<'a>(plan: &'a Plan, filter: &str) -> Vec<SplitGroup<'a>> {
    let query = filter.trim();
    let mut groups: Vec<SplitGroup<'a>> = Vec::new();
    let mut at: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
    for s in plan
        .splits
        .iter()
        .filter(|s| matches(query, &[&s.bundle, &s.broker, &s.algorithm, &s.origin]))
    {
        let namespace =
            parse_bundle_name(&s.bundle).map_or_else(|_| s.bundle.clone(), |b| b.namespace);
        if let Some(g) = at.get(&namespace).and_then(|i| groups.get_mut(*i)) {
            g.splits.push(s);
        } else {
            at.insert(namespace.clone(), groups.len());
            groups.push(SplitGroup {
                namespace,
                splits: vec![s],
            });
        }
    }
    groups.sort_by(|a, b| {
        b.splits
            .len()
            .cmp(&a.splits.len())
            .then_with(|| a.namespace.cmp(&b.namespace))
    });
    groups
}

/// One number of a decision's structured reason.
#[derive(Clone, Debug, PartialEq)]
pub struct ReasonFact {
    /// The path inside the reason, words separated (`shedding › usage fraction`).
    pub label: String,
    pub value: String,
}

/// A value with the unit its key names: `*_fraction` as a percentage, `*_bytes_per_sec` in binary
/// units, `*_pct` as given with `%`; other numbers with grouping, text as is.
fn fact_value(key: &str, v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => {
            let x = n.as_f64()?;
            Some(if key.ends_with("fraction") {
                format!("{:.1} %", x * 100.0)
            } else if key.ends_with("pct") || key.ends_with("percentage") {
                format!("{x:.1} %")
            } else if key.ends_with("bytes_per_sec") {
                crate::plan::summary::rate(x)
            } else {
                crate::plan::summary::count(x)
            })
        }
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The scalar fields of a structured reason (a decision's `reason`: its kind and numbers), depth
/// first in the reason's own order. Lists (e.g.
/// every candidate's score) are counted, not spelled out: the JSON export has them in full.
pub fn reason_facts(detail: &Value) -> Vec<ReasonFact> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<ReasonFact>, depth: usize) {
        let Value::Object(map) = v else {
            return;
        };
        for (key, value) in map {
            let words = key.replace('_', " ");
            let label = if prefix.is_empty() {
                words
            } else {
                format!("{prefix} › {words}")
            };
            match value {
                Value::Object(_) if depth < 4 => walk(&label, value, out, depth + 1),
                Value::Array(items) => out.push(ReasonFact {
                    label,
                    value: format!("{} entries", items.len()),
                }),
                _ => {
                    if let Some(value) = fact_value(key, value) {
                        out.push(ReasonFact { label, value });
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk("", detail, &mut out, 0);
    out
}

/// One broker's usage before and after, with the plan's moves in and out of it.
#[derive(Clone, Debug, PartialEq)]
pub struct UsageChange<'a> {
    pub broker: &'a str,
    /// Weighted max usage in percent; `None` for a broker the plan adds (before) or removes (after).
    pub before_pct: Option<f64>,
    pub after_pct: Option<f64>,
    /// Bundles it owns before and after (`None` as for the usage).
    pub bundles_before: Option<usize>,
    pub bundles_after: Option<usize>,
    pub moves_in: usize,
    pub moves_out: usize,
}

/// Every broker's change, the busiest (before or after) first.
pub fn usage_changes(plan: &Plan) -> Vec<UsageChange<'_>> {
    let mut moves_in: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    let mut moves_out: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for u in &plan.unloads {
        *moves_out.entry(u.from.as_str()).or_default() += 1;
        if let Some(to) = u.to.as_deref() {
            *moves_in.entry(to).or_default() += 1;
        }
    }
    let mut rows: Vec<UsageChange<'_>> = plan
        .broker_pairs()
        .into_iter()
        .map(|p| UsageChange {
            broker: p.broker,
            before_pct: p.before.map(|b| b.weighted_max_usage_fraction * 100.0),
            after_pct: p.after.map(|a| a.weighted_max_usage_fraction * 100.0),
            bundles_before: p.before.map(|b| b.bundle_count),
            bundles_after: p.after.map(|a| a.bundle_count),
            moves_in: moves_in.get(p.broker).copied().unwrap_or(0),
            moves_out: moves_out.get(p.broker).copied().unwrap_or(0),
        })
        .collect();
    let peak = |r: &UsageChange<'_>| r.before_pct.unwrap_or(0.0).max(r.after_pct.unwrap_or(0.0));
    rows.sort_by(|a, b| {
        peak(b)
            .total_cmp(&peak(a))
            .then_with(|| a.broker.cmp(b.broker))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::BrokerLoadView;
    use crate::reason::{DecisionReason, ReasonKind};
    use serde_json::json;

    fn unload(bundle: &str, from: &str, to: &str, bytes: f64) -> PlannedUnload {
        PlannedUnload {
            bundle: bundle.into(),
            from: from.into(),
            to: Some(to.into()),
            pass_destination: true,
            reason: DecisionReason::new(ReasonKind::ThresholdShedder),
            reason_text: String::new(),
            detail: None,
            bytes_per_sec: bytes,
            msg_per_sec: 0.0,
            origin: "shedding".into(),
        }
    }

    fn split(bundle: &str) -> PlannedSplit {
        PlannedSplit {
            bundle: bundle.into(),
            broker: "b1".into(),
            algorithm: "range_equally_divide".into(),
            boundaries: vec![],
            new_bundles: vec![],
            reason: DecisionReason::new(ReasonKind::SplitThresholdsExceeded),
            reason_text: String::new(),
            detail: None,
            permanent: true,
            origin: "automatic".into(),
        }
    }

    fn view(broker: &str, fraction: f64) -> BrokerLoadView {
        BrokerLoadView {
            broker: broker.into(),
            weighted_max_usage_fraction: fraction,
            ..BrokerLoadView::default()
        }
    }

    fn plan() -> Plan {
        Plan {
            unloads: vec![
                unload("t/a/0x00000000_0x40000000", "b1", "b3", 1_000.0),
                unload("t/a/0x40000000_0x80000000", "b2", "b3", 5_000.0),
                unload("t/b/0x00000000_0xffffffff", "b1", "b4", 3_000.0),
            ],
            splits: vec![
                split("t/a/0x80000000_0xc0000000"),
                split("u/c/0x00000000_0x80000000"),
                split("t/a/0xc0000000_0xffffffff"),
            ],
            brokers_before: vec![
                view("b1", 0.9),
                view("b2", 0.5),
                view("b3", 0.1),
                view("b4", 0.2),
            ],
            brokers_after: vec![
                view("b1", 0.4),
                view("b2", 0.3),
                view("b3", 0.6),
                view("b4", 0.3),
            ],
            ..Plan::default()
        }
    }

    #[test]
    fn moves_group_by_source_busiest_first() {
        let p = plan();
        let g = move_groups(&p, "", MoveSort::Throughput);
        // b2 moves 5,000 B/s, b1 4,000 B/s (3,000 + 1,000).
        assert_eq!(
            g.iter().map(|g| g.from).collect::<Vec<_>>(),
            vec!["b2", "b1"]
        );
        assert_eq!(g[1].bytes_per_sec, 4_000.0);
        assert_eq!(g[1].moves[0].bundle, "t/b/0x00000000_0xffffffff");
        assert_eq!(g[1].destinations, vec![Some("b4"), Some("b3")]);
        let by_bundle = move_groups(&p, "", MoveSort::Bundle);
        assert_eq!(by_bundle[1].moves[0].bundle, "t/a/0x00000000_0x40000000");
        // The filter matches destinations too, case-insensitively.
        let to_b3 = move_groups(&p, "B3", MoveSort::Throughput);
        assert_eq!(to_b3.iter().map(|g| g.moves.len()).sum::<usize>(), 2);
        assert!(move_groups(&p, "nothing", MoveSort::Throughput).is_empty());
        // In the order applied: b1's group first (its first move is the plan's first), its moves
        // in plan order, then b2's.
        let applied = move_groups(&p, "", MoveSort::Applied);
        assert_eq!(
            applied.iter().map(|g| g.from).collect::<Vec<_>>(),
            vec!["b1", "b2"]
        );
        assert_eq!(
            applied[0]
                .moves
                .iter()
                .map(|u| u.bundle.as_str())
                .collect::<Vec<_>>(),
            vec!["t/a/0x00000000_0x40000000", "t/b/0x00000000_0xffffffff"]
        );
        assert_eq!(MoveSort::parse("applied"), Some(MoveSort::Applied));
    }

    #[test]
    fn splits_group_by_namespace() {
        let p = plan();
        let g = split_groups(&p, "");
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].namespace.as_str(), g[0].splits.len()), ("t/a", 2));
        assert_eq!((g[1].namespace.as_str(), g[1].splits.len()), ("u/c", 1));
        assert_eq!(split_groups(&p, "u/c").len(), 1);
    }

    #[test]
    fn reason_numbers_are_laid_out_with_their_units() {
        let detail = json!({
            "shedding": {
                "strategy": "ThresholdShedder",
                "usage_fraction": 0.8125,
                "threshold_fraction": 0.1,
                "bundle_bytes_per_sec": 1_048_576.0,
                "recently_unloaded": false
            },
            "placement": { "candidates": [1, 2, 3], "winner_score": 12_345.0 }
        });
        let facts: Vec<(String, String)> = reason_facts(&detail)
            .into_iter()
            .map(|f| (f.label, f.value))
            .collect();
        assert_eq!(
            facts,
            vec![
                ("shedding › strategy".into(), "ThresholdShedder".into()),
                ("shedding › usage fraction".into(), "81.2 %".into()),
                ("shedding › threshold fraction".into(), "10.0 %".into()),
                (
                    "shedding › bundle bytes per sec".into(),
                    crate::plan::summary::rate(1_048_576.0)
                ),
                ("shedding › recently unloaded".into(), "no".into()),
                ("placement › candidates".into(), "3 entries".into()),
                (
                    "placement › winner score".into(),
                    crate::plan::summary::count(12_345.0)
                ),
            ]
        );
    }

    #[test]
    fn groups_flatten_to_headers_and_the_items_of_open_groups() {
        let rows = flat_rows(&[2, 3, 1], |g| g != 1);
        assert_eq!(
            rows,
            vec![
                FlatRow::Header {
                    group: 0,
                    open: true
                },
                FlatRow::Item { group: 0, item: 0 },
                FlatRow::Item { group: 0, item: 1 },
                FlatRow::Header {
                    group: 1,
                    open: false
                },
                FlatRow::Header {
                    group: 2,
                    open: true
                },
                FlatRow::Item { group: 2, item: 0 },
            ]
        );
        assert_eq!(flat_index(&rows, 2, 0), Some(5));
        assert_eq!(flat_index(&rows, 1, 0), None);
        assert!(flat_rows(&[], |_| true).is_empty());
        // Few groups open by default, many closed; a filter opens them; a toggle flips either.
        assert!(group_open(OPEN_GROUPS, false, false));
        assert!(!group_open(OPEN_GROUPS + 1, false, false));
        assert!(group_open(OPEN_GROUPS + 1, true, false));
        assert!(group_open(OPEN_GROUPS + 1, false, true));
        assert!(!group_open(3, false, true));
        // 1,000 groups of 200 items, all open: one row per header and item.
        let big = flat_rows(&vec![200; 1_000], |_| true);
        assert_eq!(big.len(), 201_000);
        assert_eq!(
            big[201],
            FlatRow::Header {
                group: 1,
                open: true
            }
        );
    }

    #[test]
    fn usage_changes_busiest_first_with_moves_in_and_out() {
        let p = plan();
        let rows = usage_changes(&p);
        assert_eq!(rows[0].broker, "b1");
        assert_eq!((rows[0].moves_out, rows[0].moves_in), (2, 0));
        let b3 = rows.iter().find(|r| r.broker == "b3").unwrap();
        assert_eq!((b3.moves_out, b3.moves_in), (0, 2));
        assert_eq!(b3.after_pct, Some(60.0));
        assert_eq!(
            rows.iter().map(|r| r.broker).collect::<Vec<_>>(),
            vec!["b1", "b3", "b2", "b4"]
        );
    }

    /// A removed broker has no "after" bundle count, an added one no "before": the pane shows a
    /// dash there rather than a zero that would read as "emptied".
    #[test]
    fn usage_changes_carry_bundle_counts_and_none_for_added_or_removed() {
        let counted = |broker: &str, fraction: f64, bundles: usize| BrokerLoadView {
            bundle_count: bundles,
            ..view(broker, fraction)
        };
        let p = Plan {
            unloads: vec![unload("t/a/0x00000000_0x40000000", "b1", "b3", 1_000.0)],
            brokers_before: vec![counted("b1", 0.9, 4), counted("b2", 0.5, 2)],
            brokers_after: vec![counted("b1", 0.4, 3), counted("b3", 0.2, 1)],
            ..Plan::default()
        };
        let rows = usage_changes(&p);
        let get = |b: &str| rows.iter().find(|r| r.broker == b).unwrap();
        assert_eq!(
            (get("b1").bundles_before, get("b1").bundles_after),
            (Some(4), Some(3))
        );
        assert_eq!(
            (get("b2").bundles_before, get("b2").bundles_after),
            (Some(2), None)
        );
        assert_eq!(
            (get("b3").bundles_before, get("b3").bundles_after),
            (None, Some(1))
        );
    }
}
