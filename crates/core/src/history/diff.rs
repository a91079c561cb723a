//! What changed between two snapshots: bundles that changed owner, splits (a parent replaced by
//! the bundles that cover its range), bundles that gained or lost an owner, brokers that joined or
//! left, namespaces created or deleted. Owners come from the brokers' reports (`bundles`, then
//! `lastStats`; the first broker listing a bundle owns it, as the leader's view has it).

use std::collections::{BTreeMap, HashMap, HashSet};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::model::Snapshot;
use crate::naming::parse_bundle_name;

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

fn namespace_of(bundle: &str) -> &str {
    bundle.rsplit_once('/').map_or(bundle, |(ns, _)| ns)
}

/// The changes from `before` to `after`: brokers and namespaces first, then splits, then bundles in
/// `after`'s order, then bundles that lost their owner.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
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
            let ns = namespace_of(b);
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
                .entry(namespace_of(name))
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
        let Some(candidates) = new_by_ns.get(namespace_of(name)) else {
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
            && new_ns.iter().any(|ns| ns == namespace_of(name))
        {
            out.push(Change::Unassigned {
                bundle: name.to_string(),
                from: from.to_string(),
            });
        }
    }
    out
}
