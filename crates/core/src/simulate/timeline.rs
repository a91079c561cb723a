//! The bundle ownership a simulation went through, replayable cycle by cycle: the changes of each
//! cycle (recorded when `RunOptions::record_ownership` is set) and the snapshot's layout and owners
//! after any number of cycles, which the dashboard's time slider draws as a bundle map.
//!
//! Only ownership and layout are replayed. Traffic stays as the snapshot had it (the load model's
//! per-cycle traffic is not kept), so the map's shading shows the loaded snapshot's loads.

use std::collections::HashMap;

use crate::model::Snapshot;
use crate::naming::parse_bundle_name;
use crate::plan::splits::{apply_split, namespace_layout};
use crate::split::{SplitResult, split_bundles};

use super::metrics::CycleMetrics;
pub use super::ownership::OwnershipChange;

/// The snapshot with the ownership changes of the first `cycles_done` cycles applied
/// (`cycles_done = 0` is `start` itself). Brokers a scenario added appear, empty, when they first
/// receive a bundle. Changes that no longer apply (a bundle split away earlier) are skipped.
pub fn snapshot_after(start: &Snapshot, cycles: &[CycleMetrics], cycles_done: u32) -> Snapshot {
    let mut snap = start.clone();
    let mut owner: HashMap<String, String> = HashMap::new();
    for (id, b) in &snap.brokers {
        for bundle in &b.local_broker_data.bundles {
            owner.entry(bundle.clone()).or_insert_with(|| id.clone());
        }
    }
    for m in cycles.iter().filter(|m| m.cycle < cycles_done) {
        for change in &m.ownership {
            match change {
                OwnershipChange::Owner { bundle, broker } => {
                    reassign(&mut snap, &mut owner, bundle, broker.as_deref());
                }
                OwnershipChange::Split { bundle, cut_points } => {
                    split(&mut snap, &mut owner, bundle, cut_points);
                }
            }
        }
    }
    snap
}

fn reassign(
    snap: &mut Snapshot,
    owner: &mut HashMap<String, String>,
    bundle: &str,
    to: Option<&str>,
) {
    let mut stats = None;
    if let Some(from) = owner.remove(bundle)
        && let Some(b) = snap.brokers.get_mut(&from)
    {
        let local = &mut b.local_broker_data;
        local.bundles.retain(|x| x != bundle);
        stats = local.last_stats.shift_remove(bundle);
        local.num_bundles = local.bundles.len() as i64;
    }
    let Some(to) = to else {
        return;
    };
    let dst = snap.brokers.entry(to.to_string()).or_default();
    let local = &mut dst.local_broker_data;
    local.bundles.push(bundle.to_string());
    if let Some(s) = stats {
        local.last_stats.insert(bundle.to_string(), s);
    }
    local.num_bundles = local.bundles.len() as i64;
    owner.insert(bundle.to_string(), to.to_string());
}

fn split(snap: &mut Snapshot, owner: &mut HashMap<String, String>, bundle: &str, cuts: &[u32]) {
    let Ok(name) = parse_bundle_name(bundle) else {
        return;
    };
    let Ok(layout) = namespace_layout(snap, &name.namespace) else {
        return;
    };
    let Ok(done) = split_bundles(&layout, name.range, 0, Some(cuts)) else {
        return;
    };
    let result = SplitResult {
        namespace: name.namespace.clone(),
        parent: name.range,
        cut_points: cuts.to_vec(),
        children: done.children,
        layout_after: done.layout_after,
    };
    apply_split(snap, &result);
    if let Some(o) = owner.remove(bundle) {
        for c in &result.children {
            owner.insert(format!("{}/{}", name.namespace, c), o.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, BundlesData, NamespaceSnapshot};

    fn start() -> Snapshot {
        let mut s = Snapshot::default();
        for (id, bundles) in [
            ("a:8080", vec!["t/n/0x00000000_0x80000000"]),
            ("b:8080", vec!["t/n/0x80000000_0xffffffff"]),
        ] {
            let mut b = BrokerSnapshot::default();
            b.local_broker_data.bundles = bundles.into_iter().map(String::from).collect();
            s.brokers.insert(id.into(), b);
        }
        s.namespaces.insert(
            "t/n".into(),
            NamespaceSnapshot {
                bundles: BundlesData {
                    boundaries: vec![
                        "0x00000000".into(),
                        "0x80000000".into(),
                        "0xffffffff".into(),
                    ],
                    num_bundles: 2,
                },
                ..NamespaceSnapshot::default()
            },
        );
        s
    }

    fn cycle(n: u32, ownership: Vec<OwnershipChange>) -> CycleMetrics {
        CycleMetrics {
            cycle: n,
            ownership,
            ..CycleMetrics::default()
        }
    }

    #[test]
    fn replays_moves_splits_and_orphans_up_to_the_cycle() {
        let cycles = vec![
            cycle(
                0,
                vec![OwnershipChange::Owner {
                    bundle: "t/n/0x00000000_0x80000000".into(),
                    broker: Some("b:8080".into()),
                }],
            ),
            cycle(
                1,
                vec![OwnershipChange::Split {
                    bundle: "t/n/0x80000000_0xffffffff".into(),
                    cut_points: vec![0xc000_0000],
                }],
            ),
            cycle(
                2,
                vec![
                    OwnershipChange::Owner {
                        bundle: "t/n/0x80000000_0xc0000000".into(),
                        broker: None,
                    },
                    OwnershipChange::Owner {
                        bundle: "t/n/0xc0000000_0xffffffff".into(),
                        broker: Some("new:8080".into()),
                    },
                ],
            ),
        ];
        let s = start();
        assert_eq!(snapshot_after(&s, &cycles, 0), s);

        let after1 = snapshot_after(&s, &cycles, 1);
        assert!(
            after1.brokers["a:8080"]
                .local_broker_data
                .bundles
                .is_empty()
        );
        assert_eq!(after1.brokers["b:8080"].local_broker_data.bundles.len(), 2);

        let after2 = snapshot_after(&s, &cycles, 2);
        assert_eq!(after2.namespaces["t/n"].bundles.num_bundles, 3);
        // The children take the parent's place in its owner's list; the moved bundle was appended.
        assert_eq!(
            after2.brokers["b:8080"].local_broker_data.bundles,
            vec![
                "t/n/0x80000000_0xc0000000",
                "t/n/0xc0000000_0xffffffff",
                "t/n/0x00000000_0x80000000",
            ]
        );

        let after3 = snapshot_after(&s, &cycles, 3);
        assert_eq!(
            after3.brokers["b:8080"].local_broker_data.bundles,
            vec!["t/n/0x00000000_0x80000000"]
        );
        assert_eq!(
            after3.brokers["new:8080"].local_broker_data.bundles,
            vec!["t/n/0xc0000000_0xffffffff"]
        );
        // A later cycle count changes nothing more.
        assert_eq!(snapshot_after(&s, &cycles, 99), after3);
        // What each change leaves changed: the split's children are the ones the layout now has.
        assert_eq!(
            cycles[1].ownership[0].changed_bundles(),
            vec!["t/n/0x80000000_0xc0000000", "t/n/0xc0000000_0xffffffff"]
        );
        assert_eq!(
            cycles[0].ownership[0].changed_bundles(),
            vec!["t/n/0x00000000_0x80000000"]
        );
    }
}
