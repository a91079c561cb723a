//! Which rows of the release table each changed decision of an upgrade preview comes from. A
//! decision is made by a side of the leader: shedding picks the bundle (a move added or removed),
//! placement picks its destination (a move sent elsewhere). A row is named for a decision when its
//! flag differs between the two releases, the plans read it (`release_basis.reads`) and it acts on
//! that side; PIP-457's filter only for a bundle whose namespace the two filters treat differently.

use serde::{Deserialize, Serialize};

use crate::modular::load_data::{hidden_from_shedding, namespace_of_bundle};
use crate::plan::diff::PlanDiff;
use crate::release::table::row;
use crate::release::{Behaviour, Change};

/// One changed decision and the PRs it is attributed to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionCause {
    pub bundle: String,
    /// `added` (only after the upgrade), `removed` (only today), `destination` (sent elsewhere).
    pub decision: String,
    /// `apache/pulsar#24954`, … in table order; empty when no row explains it (a default only).
    pub prs: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Shedding,
    Placement,
}

/// Whether `change` acts on `side` of the leader's cycle.
fn acts_on(change: Change, side: Side) -> bool {
    match change {
        // Which strategies run, their defaults, and the usage every check reads: both sides.
        Change::AvgShedderAvailable
        | Change::FailFastOnMisconfiguration
        | Change::Defaults50
        | Change::DirectMemoryWeightZero
        | Change::WeightedOverloadChecks => true,
        Change::UniformSlackRemoved
        | Change::AvgShedderExactComparator
        | Change::Pip457NamePatterns => side == Side::Shedding,
        Change::AvgShedderDestinationsByName | Change::AffinityByFullBundleName => {
            side == Side::Placement
        }
        Change::SkipSplitOfMissingBundle
        | Change::OverrideBrokerNics
        | Change::FormerLeaderStopsShedding => false,
    }
}

/// Rows that change how one strategy works inside: not a cause when the upgrade replaces the
/// strategy itself (the row that replaced it is).
fn inside_a_strategy(change: Change) -> bool {
    matches!(
        change,
        Change::UniformSlackRemoved
            | Change::AvgShedderExactComparator
            | Change::AvgShedderDestinationsByName
    )
}

/// The causes of each changed decision of `diff` between releases `from` and `to` whose plans read
/// the rows `reads`; `strategies_replaced` when the two plans run other strategies (the 5.0
/// defaults, AvgShedder appearing).
pub fn decision_causes(
    diff: &PlanDiff,
    from: &Behaviour,
    to: &Behaviour,
    reads: &[Change],
    strategies_replaced: bool,
) -> Vec<DecisionCause> {
    let differing: Vec<Change> = from
        .differences(to)
        .into_iter()
        .filter(|c| reads.contains(c))
        .filter(|c| !(strategies_replaced && inside_a_strategy(*c)))
        .collect();
    let prs = |bundle: &str, side: Side| -> Vec<String> {
        let ns = namespace_of_bundle(bundle);
        let filtered_differently =
            hidden_from_shedding(ns, true) != hidden_from_shedding(ns, false);
        differing
            .iter()
            .filter(|&&c| acts_on(c, side))
            .filter(|&&c| c != Change::Pip457NamePatterns || filtered_differently)
            .filter_map(|&c| row(c).map(|r| r.pr_label()))
            .collect()
    };
    let mut out = Vec::new();
    for (moves, decision) in [
        (&diff.moves_added, "added"),
        (&diff.moves_removed, "removed"),
    ] {
        for m in moves {
            out.push(DecisionCause {
                bundle: m.bundle.clone(),
                decision: decision.to_string(),
                prs: prs(&m.bundle, Side::Shedding),
            });
        }
    }
    for m in &diff.moves_changed {
        // Another source is shedding's choice; the same source sent elsewhere is placement's.
        let side = if m.baseline.from == m.what_if.from {
            Side::Placement
        } else {
            Side::Shedding
        };
        out.push(DecisionCause {
            bundle: m.bundle.clone(),
            decision: "destination".to_string(),
            prs: prs(&m.bundle, side),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::diff::{BalanceChange, ChangedMove, Move};
    use crate::release::resolve_version;

    fn b(v: &str) -> Behaviour {
        Behaviour::of(resolve_version(v).unwrap().release)
    }

    fn mv(bundle: &str, from: &str, to: &str) -> Move {
        Move {
            bundle: bundle.to_string(),
            from: from.to_string(),
            to: Some(to.to_string()),
        }
    }

    /// 4.0.7 → 4.0.14 on an AvgShedder cluster: #24954 (4.0.8, the comparator) sorts the brokers
    /// shedding reads; #26246 (4.0.14, destinations by name) is what placement remembers.
    #[test]
    fn shedding_and_placement_decisions_name_their_own_rows() {
        let reads = [
            Change::AvgShedderExactComparator,
            Change::AvgShedderDestinationsByName,
        ];
        let diff = PlanDiff {
            format_version: 1,
            moves_added: vec![mv("t/n/0x00000000_0x40000000", "b1:8080", "b2:8080")],
            moves_removed: Vec::new(),
            moves_changed: vec![ChangedMove {
                bundle: "t/n/0x40000000_0x80000000".to_string(),
                baseline: mv("t/n/0x40000000_0x80000000", "b1:8080", "b2:8080"),
                what_if: mv("t/n/0x40000000_0x80000000", "b1:8080", "b3:8080"),
            }],
            splits_added: Vec::new(),
            splits_removed: Vec::new(),
            baseline: BalanceChange {
                before: Default::default(),
                after: Default::default(),
            },
            what_if: BalanceChange {
                before: Default::default(),
                after: Default::default(),
            },
            identical_decisions: false,
        };
        let c = decision_causes(&diff, &b("4.0.7"), &b("4.0.14"), &reads, false);
        assert_eq!(c[0].decision, "added");
        assert_eq!(c[0].prs, vec!["apache/pulsar#24954"]);
        assert_eq!(c[1].decision, "destination");
        assert_eq!(c[1].prs, vec!["apache/pulsar#26246"]);
        // A row the plans do not read names nothing: 4.0.13 → 4.0.14 for ThresholdShedder.
        let c = decision_causes(&diff, &b("4.0.13"), &b("4.0.14"), &[], false);
        assert!(c.iter().all(|d| d.prs.is_empty()));
        // 4.0.7 → 5.0.0 from ThresholdShedder: the 5.0 defaults replace the strategies, so
        // AvgShedder's own rows are not the cause, #26609 / #26610 is.
        let mut reads5 = reads.to_vec();
        reads5.push(Change::Defaults50);
        let c = decision_causes(&diff, &b("4.0.7"), &b("5.0.0"), &reads5, true);
        assert_eq!(c[0].prs, vec!["apache/pulsar#26609 / #26610"]);
        assert_eq!(c[1].prs, vec!["apache/pulsar#26609 / #26610"]);
    }
}
