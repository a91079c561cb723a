//! What changed between two snapshots: bundles that changed owner, splits (a parent replaced by
//! the bundles that cover its range), bundles that gained or lost an owner, brokers that joined or
//! left, namespaces created or deleted. Owners come from the brokers' reports (`bundles`, then
//! `lastStats`; the first broker listing a bundle owns it, as the leader's view has it).
//!
//! Between two snapshots of a series usually only a few brokers' lists change, so [`diff`] looks
//! at those: a bundle a changed broker started or stopped listing is the only one whose owner can
//! differ. Anything structural (a broker set or order, namespace set, or owned-bundle set that
//! changed: joins, leaves, splits, assignments) falls back to comparing the whole snapshots
//! ([`diff_full`]); both give the same changes in the same order.

use std::collections::{BTreeMap, HashMap, HashSet};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::model::Snapshot;
use crate::naming::{BundleName, parse_bundle_name};

/// One change between consecutive snapshots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// `bundle` was owned by `from` and is now owned by `to`.
    Moved {
        bundle: String,
        from: String,
        to: String,
    },
    /// `parent` is gone and `children` cover its range; `owner` owned the parent.
    Split {
        parent: String,
        children: Vec<String>,
        owner: Option<String>,
    },
    /// `bundle` had no owner (or did not exist) and is now owned by `to`.
    Assigned {
        bundle: String,
        to: String,
    },
    /// `bundle` was owned by `from` and now has none (unloaded, not yet looked up).
    Unassigned {
        bundle: String,
        from: String,
    },
    BrokerJoined {
        broker: String,
    },
    /// `broker` is gone; it owned `bundles` bundles.
    BrokerLeft {
        broker: String,
        bundles: usize,
    },
    NamespaceCreated {
        namespace: String,
    },
    NamespaceDeleted {
        namespace: String,
    },
}

impl Change {
    /// The snake_case kind, as JSON and CSV name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Change::Moved { .. } => "moved",
            Change::Split { .. } => "split",
            Change::Assigned { .. } => "assigned",
            Change::Unassigned { .. } => "unassigned",
            Change::BrokerJoined { .. } => "broker_joined",
            Change::BrokerLeft { .. } => "broker_left",
            Change::NamespaceCreated { .. } => "namespace_created",
            Change::NamespaceDeleted { .. } => "namespace_deleted",
        }
    }
}

/// Bundle → owner, from the brokers' reports in order.
pub fn owners(snapshot: &Snapshot) -> IndexMap<&str, &str> {
    let mut out: IndexMap<&str, &str> = IndexMap::new();
    for (id, b) in &snapshot.brokers {
        let local = &b.local_broker_data;
        for name in local.bundles.iter().chain(local.last_stats.keys()) {
            out.entry(name.as_str()).or_insert(id.as_str());
        }
    }
    out
}

/// The changes from `before` to `after`: brokers and namespaces first, then splits, then bundles in
/// `after`'s order, then bundles that lost their owner. Looks only at the brokers whose lists
/// changed when nothing structural changed; otherwise [`diff_full`].
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
    diff_changed(before, after, None)
}

/// [`diff`] when only the reports of `changed_brokers` may differ between the two snapshots
/// (`None`: unknown). The history's series store knows which brokers' parts changed; an unchanged
/// part is the same text, so its lists are equal and need no comparing. The same changes.
pub fn diff_changed(
    before: &Snapshot,
    after: &Snapshot,
    changed_brokers: Option<&[String]>,
) -> Vec<Change> {
    diff_changed_lists(before, after, changed_brokers).unwrap_or_else(|| diff_full(before, after))
}

/// The owner of `bundle` in `s` (the first broker listing it, `bundles` before `lastStats`), with
/// where [`owners`] inserts it: (broker position, position in `bundles` then `lastStats`).
fn owner_in<'s>(s: &'s Snapshot, bundle: &str) -> Option<((usize, usize), &'s str)> {
    for (i, (id, b)) in s.brokers.iter().enumerate() {
        let local = &b.local_broker_data;
        if let Some(p) = local.bundles.iter().position(|x| x == bundle) {
            return Some(((i, p), id.as_str()));
        }
        if let Some(p) = local.last_stats.get_index_of(bundle) {
            return Some(((i, local.bundles.len().saturating_add(p)), id.as_str()));
        }
    }
    None
}

/// The moves between two snapshots with the same brokers (same order) and namespaces, from the
/// brokers whose `bundles` or `lastStats` lists differ: a bundle such a broker started or stopped
/// listing may have changed owner; every other bundle's listers, hence its owner, are the same.
/// `None` when a bundle gained or lost its only owner (a split, an assignment, an unload): the
/// whole comparison is needed then.
fn diff_changed_lists<'s>(
    before: &'s Snapshot,
    after: &'s Snapshot,
    changed_brokers: Option<&[String]>,
) -> Option<Vec<Change>> {
    if !before.brokers.keys().eq(after.brokers.keys())
        || !before.namespaces.keys().eq(after.namespaces.keys())
    {
        return None;
    }
    fn listed(l: &crate::model::LocalBrokerData) -> HashSet<&str> {
        l.bundles
            .iter()
            .chain(l.last_stats.keys())
            .map(String::as_str)
            .collect()
    }
    let mut touched: Vec<&'s str> = Vec::new();
    for ((id, old), new) in before.brokers.iter().zip(after.brokers.values()) {
        if changed_brokers.is_some_and(|changed| !changed.iter().any(|c| c == id)) {
            continue;
        }
        let (old, new) = (&old.local_broker_data, &new.local_broker_data);
        if old.bundles == new.bundles && old.last_stats.keys().eq(new.last_stats.keys()) {
            continue;
        }
        let (was, is) = (listed(old), listed(new));
        touched.extend(was.symmetric_difference(&is).copied());
    }
    touched.sort_unstable();
    touched.dedup();
    let mut moved: Vec<((usize, usize), Change)> = Vec::new();
    for name in touched {
        match (owner_in(before, name), owner_in(after, name)) {
            (Some((_, from)), Some((at, to))) => {
                if from != to {
                    moved.push((
                        at,
                        Change::Moved {
                            bundle: name.to_string(),
                            from: from.to_string(),
                            to: to.to_string(),
                        },
                    ));
                }
            }
            (None, None) => {}
            _ => return None,
        }
    }
    moved.sort_by_key(|(at, _)| *at);
    Some(moved.into_iter().map(|(_, c)| c).collect())
}

/// [`diff`] by comparing the whole snapshots' owner maps.
pub fn diff_full(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
    let mut out = Vec::new();
    for id in after.brokers.keys() {
        if !before.brokers.contains_key(id) {
            out.push(Change::BrokerJoined { broker: id.clone() });
        }
    }
    let old = owners(before);
    let new = owners(after);
    for id in before.brokers.keys() {
        if !after.brokers.contains_key(id) {
            let owned = old.values().filter(|o| **o == id.as_str()).count();
            out.push(Change::BrokerLeft {
                broker: id.clone(),
                bundles: owned,
            });
        }
    }
    let namespaces = |s: &Snapshot, owned: &IndexMap<&str, &str>| {
        let mut set: Vec<String> = s.namespaces.keys().cloned().collect();
        for b in owned.keys() {
            let ns = BundleName::namespace_of(b);
            if !s.namespaces.contains_key(ns) && !set.iter().any(|x| x == ns) {
                set.push(ns.to_string());
            }
        }
        set
    };
    let old_ns = namespaces(before, &old);
    let new_ns = namespaces(after, &new);
    for ns in &new_ns {
        if !old_ns.contains(ns) {
            out.push(Change::NamespaceCreated {
                namespace: ns.clone(),
            });
        }
    }
    for ns in &old_ns {
        if !new_ns.contains(ns) {
            out.push(Change::NamespaceDeleted {
                namespace: ns.clone(),
            });
        }
    }
    // Splits: a bundle gone from `after` whose range new bundles of its namespace fall inside.
    let mut new_by_ns: HashMap<&str, Vec<(&str, u32, u32)>> = HashMap::new();
    for name in new.keys() {
        if old.contains_key(name) {
            continue;
        }
        if let Ok(n) = parse_bundle_name(name) {
            new_by_ns
                .entry(BundleName::namespace_of(name))
                .or_default()
                .push((name, n.range.lo, n.range.hi));
        }
    }
    let mut child_of: HashMap<&str, &str> = HashMap::new();
    for (&name, &owner) in &old {
        if new.contains_key(name) {
            continue;
        }
        let Ok(p) = parse_bundle_name(name) else {
            continue;
        };
        let Some(candidates) = new_by_ns.get(BundleName::namespace_of(name)) else {
            continue;
        };
        // Children in hash order, so the split reads low to high.
        let children: BTreeMap<u32, &str> = candidates
            .iter()
            .filter(|(_, lo, hi)| *lo >= p.range.lo && *hi <= p.range.hi)
            .map(|(n, lo, _)| (*lo, *n))
            .collect();
        if children.len() < 2 {
            continue;
        }
        for c in children.values() {
            child_of.insert(c, name);
        }
        out.push(Change::Split {
            parent: name.to_string(),
            children: children.values().map(|c| c.to_string()).collect(),
            owner: Some(owner.to_string()),
        });
    }
    for (&name, &to) in &new {
        match old.get(name) {
            Some(&from) if from != to => out.push(Change::Moved {
                bundle: name.to_string(),
                from: from.to_string(),
                to: to.to_string(),
            }),
            Some(_) => {}
            None => match child_of.get(name).and_then(|p| old.get(p)) {
                // A child on its parent's owner did not move.
                Some(&parent_owner) if parent_owner == to => {}
                Some(&parent_owner) => out.push(Change::Moved {
                    bundle: name.to_string(),
                    from: parent_owner.to_string(),
                    to: to.to_string(),
                }),
                None => out.push(Change::Assigned {
                    bundle: name.to_string(),
                    to: to.to_string(),
                }),
            },
        }
    }
    let split_parents: HashSet<&str> = child_of.values().copied().collect();
    for (&name, &from) in &old {
        if !new.contains_key(name)
            && !split_parents.contains(name)
            && new_ns.iter().any(|ns| ns == BundleName::namespace_of(name))
        {
            out.push(Change::Unassigned {
                bundle: name.to_string(),
                from: from.to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BrokerSnapshot;
    use crate::rng::SplitMix64;
    use crate::simulate::builtin_snapshot;

    fn local(s: &mut Snapshot, pos: usize) -> Option<&mut crate::model::LocalBrokerData> {
        s.brokers
            .get_index_mut(pos)
            .map(|(_, b)| &mut b.local_broker_data)
    }

    /// One random change of ownership or structure.
    fn change(s: &mut Snapshot, rng: &mut SplitMix64) {
        let n = s.brokers.len();
        let (from, to, pick) = (rng.below(n), rng.below(n), rng.below(1_000));
        match rng.below(10) {
            0..=3 => {
                // A move, with its stats, to any position of another broker's lists.
                let Some(l) = local(s, from) else { return };
                if l.bundles.is_empty() {
                    return;
                }
                let name = l.bundles.remove(pick % l.bundles.len());
                let stats = l.last_stats.shift_remove(&name);
                let Some(d) = local(s, to) else { return };
                let at = pick % (d.bundles.len() + 1);
                d.bundles.insert(at, name.clone());
                if let Some(st) = stats {
                    let at = pick % (d.last_stats.len() + 1);
                    d.last_stats.shift_insert(at, name, st);
                }
            }
            4 => {
                // Listed by a second broker too, or its stats dropped, or a list reordered.
                let name = local(s, from).and_then(|l| l.bundles.first().cloned());
                let Some((name, d)) = name.zip(local(s, to)) else {
                    return;
                };
                match pick % 3 {
                    0 => d.bundles.push(name),
                    1 => {
                        d.last_stats.shift_remove(&name);
                    }
                    _ => d.bundles.reverse(),
                }
            }
            5 => {
                // A split: the parent replaced by its two halves, on its owner or another broker.
                let Some(l) = local(s, from) else { return };
                let Some(parent) = l.bundles.first().cloned() else {
                    return;
                };
                let Ok(p) = parse_bundle_name(&parent) else {
                    return;
                };
                let mid = p.range.lo + (p.range.hi - p.range.lo) / 2;
                if mid == p.range.lo {
                    return;
                }
                let ns = BundleName::namespace_of(&parent).to_string();
                l.bundles.retain(|b| *b != parent);
                l.last_stats.shift_remove(&parent);
                let owner = if pick % 2 == 0 { from } else { to };
                if let Some(d) = local(s, owner) {
                    d.bundles
                        .push(format!("{ns}/0x{:08x}_0x{mid:08x}", p.range.lo));
                    d.bundles
                        .push(format!("{ns}/0x{mid:08x}_0x{:08x}", p.range.hi));
                }
            }
            6 => {
                // Unloaded, not looked up yet.
                if let Some(l) = local(s, from)
                    && let Some(name) = l.bundles.pop()
                {
                    l.last_stats.shift_remove(&name);
                }
            }
            7 => {
                if pick % 4 == 0 && n > 2 {
                    s.brokers.shift_remove_index(from);
                } else if pick % 4 == 1 {
                    s.brokers
                        .insert(format!("joined-{pick}:8080"), BrokerSnapshot::default());
                }
            }
            _ => {}
        }
    }

    /// The diff from the changed lists equals the whole comparison, and is the one taken when
    /// nothing structural changed.
    #[test]
    fn the_changed_lists_diff_equals_the_whole_comparison() {
        let mut targeted_moves = 0;
        for (name, steps, seed) in [("demo", 300, 11), ("pr-16059", 60, 12)] {
            let mut s = builtin_snapshot(name).unwrap();
            let mut rng = SplitMix64::new(seed);
            for step in 0..steps {
                let before = s.clone();
                for _ in 0..=rng.below(3) {
                    change(&mut s, &mut rng);
                }
                let full = diff_full(&before, &s);
                assert_eq!(diff(&before, &s), full, "step {step} of {name}");
                // Told exactly the brokers whose report differs, as the series store tells it.
                let changed: Vec<String> = s
                    .brokers
                    .iter()
                    .filter(|(id, b)| {
                        before
                            .brokers
                            .get(*id)
                            .is_none_or(|o| o.local_broker_data != b.local_broker_data)
                    })
                    .map(|(id, _)| id.clone())
                    .collect();
                assert_eq!(
                    diff_changed(&before, &s, Some(&changed)),
                    full,
                    "step {step} of {name}, told {changed:?}"
                );
                if let Some(moves) = diff_changed_lists(&before, &s, None) {
                    assert_eq!(moves, full, "step {step} of {name}");
                    targeted_moves += moves.len();
                }
            }
        }
        assert!(
            targeted_moves > 100,
            "{targeted_moves} moves found from the lists"
        );
    }
}
