//! Builds the modular leader's `LoadData` from a snapshot, as a freshly elected leader would see it:
//! stored `BundleData` (or Pulsar's defaults) updated once with each bundle's latest reported stats,
//! time averages recomputed from that data, no preallocations.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

use indexmap::IndexMap;
use indexmap::map::RawEntryApiV1;
use indexmap::map::raw_entry_v1::RawEntryMut;
use rustc_hash::FxBuildHasher;

use crate::model::{BundleData, Snapshot, TimeAverageBrokerData};
use crate::modular::{BrokerData, BundleDataMap, LoadData};

/// Positions in the snapshot's `bundle_data` by the Fx hash of their name: one hash of a name
/// serves the lookup in both maps (the view's is Fx too), as when the view shared the snapshot's
/// SipHash, at a fraction of SipHash's cost for a 40-byte name. The table is keyed by the hash
/// itself (no second hashing, no name stored); a hash two stored names share (never seen, but
/// possible) is marked and those names are looked up in the snapshot's own map.
struct StoredIndex<'a> {
    stored: &'a IndexMap<String, BundleData>,
    by_hash: HashMap<u64, u32, BuildHasherDefault<HashIsKey>>,
}

/// `by_hash`'s hasher: the key already is a hash.
#[derive(Default)]
struct HashIsKey(u64);

impl Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed (`write_u64`); any other input still hashes deterministically.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// `by_hash`'s mark of a hash shared by several stored names.
const SHARED: u32 = u32::MAX;

impl<'a> StoredIndex<'a> {
    fn new(stored: &'a IndexMap<String, BundleData>) -> Self {
        let mut index = Self {
            stored,
            by_hash: HashMap::with_capacity_and_hasher(stored.len(), BuildHasherDefault::default()),
        };
        for (pos, name) in stored.keys().enumerate() {
            index.add(FxBuildHasher.hash_one(name.as_str()), pos);
        }
        index
    }

    /// Records that the stored name at `pos` hashes to `hash` (a position past `u32` is looked up
    /// in the snapshot's map, as a shared hash is).
    fn add(&mut self, hash: u64, pos: usize) {
        let pos = u32::try_from(pos).unwrap_or(SHARED);
        self.by_hash
            .entry(hash)
            .and_modify(|p| *p = SHARED)
            .or_insert(pos);
    }

    /// The stored data of `name`, whose Fx hash is `hash`.
    fn get(&self, hash: u64, name: &str) -> Option<&'a BundleData> {
        match self.by_hash.get(&hash) {
            None => None,
            Some(&SHARED) => self.stored.get(name),
            Some(&pos) => match self.stored.get_index(pos as usize) {
                Some((k, d)) if k == name => Some(d),
                _ => None,
            },
        }
    }
}

/// The result is the same as this sequence, Pulsar's: for each broker in order, every bundle of its
/// `bundles` list gets its stored data (once, in list order), then every entry of its `lastStats`
/// updates its bundle's data (an unknown bundle is added with its stored data or Pulsar's defaults
/// first); finally each broker's time averages are summed over its `bundles` list.
///
/// On a 200,000-bundle snapshot the cost is hashing bundle names, so each name is hashed once where
/// possible: a `lastStats` entry at the same position as its name in `bundles` (how brokers write
/// them) is applied while the list is walked (updates touch only their own bundle, so the order
/// between different bundles' updates does not matter, and `lastStats` keys are unique), and the
/// time averages are summed through recorded positions instead of lookups.
pub fn load_data_from_snapshot(snapshot: &Snapshot) -> LoadData {
    // The view's map and the index of the snapshot's hash alike (Fx), so each name is hashed once
    // for the lookup in both maps and the insertion.
    let mut bundle_data =
        BundleDataMap::with_capacity_and_hasher(snapshot.bundle_data.len(), FxBuildHasher);
    let stored = StoredIndex::new(&snapshot.bundle_data);
    // Per broker, the position in `bundle_data` of each entry of its `bundles` list (`None`: not
    // there when the list was walked; looked up again at the end).
    let mut positions: Vec<Vec<Option<usize>>> = Vec::with_capacity(snapshot.brokers.len());
    for broker in snapshot.brokers.values() {
        let local = &broker.local_broker_data;
        let mut broker_positions = Vec::with_capacity(local.bundles.len());
        let mut applied = vec![false; local.last_stats.len()];
        for (k, name) in local.bundles.iter().enumerate() {
            let hash = bundle_data.hasher().hash_one(name.as_str());
            let index = match bundle_data
                .raw_entry_mut_v1()
                .from_key_hashed_nocheck(hash, name.as_str())
            {
                RawEntryMut::Occupied(e) => Some(e.index()),
                RawEntryMut::Vacant(e) => match stored.get(hash, name) {
                    Some(data) => {
                        let index = e.index();
                        e.insert_hashed_nocheck(hash, name.clone(), *data);
                        Some(index)
                    }
                    None => None,
                },
            };
            if let Some(index) = index
                && let Some((stats_name, stats)) = local.last_stats.get_index(k)
                && stats_name == name
                && let Some((_, entry)) = bundle_data.get_index_mut(index)
                && let Some(done) = applied.get_mut(k)
            {
                entry.update(stats);
                *done = true;
            }
            broker_positions.push(index);
        }
        // `updateBundleData`: every bundle in a report gets data (stored or default), then the sample.
        for ((name, stats), done) in local.last_stats.iter().zip(&applied) {
            if *done {
                continue;
            }
            let hash = bundle_data.hasher().hash_one(name.as_str());
            match bundle_data
                .raw_entry_mut_v1()
                .from_key_hashed_nocheck(hash, name.as_str())
            {
                RawEntryMut::Occupied(mut e) => e.get_mut().update(stats),
                RawEntryMut::Vacant(e) => {
                    let mut entry = stored
                        .get(hash, name)
                        .map_or_else(BundleData::pulsar_default, |d| *d);
                    entry.update(stats);
                    e.insert_hashed_nocheck(hash, name.clone(), entry);
                }
            }
        }
        positions.push(broker_positions);
    }
    let default = BundleData::pulsar_default();
    let brokers = snapshot
        .brokers
        .iter()
        .zip(&positions)
        .map(|((id, b), broker_positions)| {
            let local = b.local_broker_data.clone();
            let time_average = TimeAverageBrokerData::from_bundle_data(
                local
                    .bundles
                    .iter()
                    .zip(broker_positions)
                    .map(|(name, index)| {
                        let found = match index {
                            Some(i) => bundle_data.get_index(*i).map(|(_, d)| d),
                            None => bundle_data.get(name.as_str()),
                        };
                        found.unwrap_or(&default)
                    }),
            );
            (
                id.clone(),
                BrokerData {
                    local,
                    time_average,
                    preallocated: IndexMap::new(),
                },
            )
        })
        .collect();
    LoadData {
        brokers,
        bundle_data,
        recently_unloaded: snapshot.recently_unloaded_bundles.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, NamespaceBundleStats};

    /// The straightforward sequence the doc comment describes, one lookup per step.
    fn reference(snapshot: &Snapshot) -> LoadData {
        let mut bundle_data = BundleDataMap::default();
        for broker in snapshot.brokers.values() {
            let local = &broker.local_broker_data;
            for name in &local.bundles {
                if !bundle_data.contains_key(name)
                    && let Some(data) = snapshot.bundle_data.get(name)
                {
                    bundle_data.insert(name.clone(), *data);
                }
            }
            for (name, stats) in &local.last_stats {
                let entry = bundle_data.entry(name.clone()).or_insert_with(|| {
                    snapshot
                        .bundle_data
                        .get(name)
                        .copied()
                        .unwrap_or_else(BundleData::pulsar_default)
                });
                entry.update(stats);
            }
        }
        let brokers = snapshot
            .brokers
            .iter()
            .map(|(id, b)| {
                let local = b.local_broker_data.clone();
                let time_average = TimeAverageBrokerData::from_bundles(
                    local.bundles.iter().map(String::as_str),
                    &bundle_data,
                );
                let data = BrokerData {
                    local,
                    time_average,
                    preallocated: IndexMap::new(),
                };
                (id.clone(), data)
            })
            .collect();
        LoadData {
            brokers,
            bundle_data,
            recently_unloaded: snapshot.recently_unloaded_bundles.clone(),
        }
    }

    fn stats(rate: f64) -> NamespaceBundleStats {
        NamespaceBundleStats {
            msg_rate_in: rate,
            msg_throughput_in: rate * 1000.0,
            topics: 3,
            ..NamespaceBundleStats::default()
        }
    }

    #[test]
    fn the_stored_index_finds_each_stored_name_and_no_other() {
        let names = ["t/a/0x0_0x1", "t/a/0x1_0x2", "t/b/0x0_0x1"];
        let mut stored: IndexMap<String, BundleData> = IndexMap::new();
        for (i, name) in names.iter().enumerate() {
            let mut d = BundleData::pulsar_default();
            d.update(&stats(i as f64 + 1.0));
            stored.insert(name.to_string(), d);
        }
        let hash = |n: &str| FxBuildHasher.hash_one(n);
        let mut index = StoredIndex::new(&stored);
        for (name, data) in &stored {
            assert_eq!(index.get(hash(name), name), Some(data));
        }
        let absent = "t/c/0x0_0x1";
        assert_eq!(index.get(hash(absent), absent), None);
        // An absent name whose hash leads to a stored position does not get that entry's data.
        index.by_hash.insert(hash(absent), 0);
        assert_eq!(index.get(hash(absent), absent), None);
        // Two stored names with one hash (forced: Fx collisions are not at hand): both are found
        // through the snapshot's map, and an absent name with that hash is not.
        let mut index = StoredIndex::new(&stored);
        let shared = hash(names[1]);
        index.add(shared, 2);
        assert_eq!(index.by_hash.get(&shared), Some(&SHARED));
        assert_eq!(index.get(shared, names[1]), stored.get(names[1]));
        assert_eq!(index.get(hash(names[2]), names[2]), stored.get(names[2]));
        assert_eq!(index.get(shared, absent), None);
    }

    #[test]
    fn same_as_the_lookup_per_step_sequence() {
        let mut snap = Snapshot::default();
        let stored = |rate: f64| {
            let mut d = BundleData::pulsar_default();
            d.update(&stats(rate));
            d
        };
        for (name, rate) in [
            ("t/a/0x0_0x1", 1.0),
            ("t/a/0x1_0x2", 2.0),
            ("t/b/0x0_0x1", 3.0),
        ] {
            snap.bundle_data.insert(name.to_string(), stored(rate));
        }
        let broker = |bundles: &[&str], last: &[(&str, f64)]| {
            let mut b = BrokerSnapshot::default();
            b.local_broker_data.last_stats = last
                .iter()
                .map(|(n, r)| (n.to_string(), stats(*r)))
                .collect();
            b.local_broker_data.bundles = bundles.iter().map(|s| s.to_string()).collect();
            b
        };
        // Same order in both lists; a bundle also reported by the next broker; a bundle with no
        // stored data; lists in different orders; a name listed twice; stats for an unlisted bundle.
        snap.brokers.insert(
            "b1:8080".into(),
            broker(
                &["t/a/0x0_0x1", "t/a/0x1_0x2"],
                &[("t/a/0x0_0x1", 10.0), ("t/a/0x1_0x2", 20.0)],
            ),
        );
        snap.brokers.insert(
            "b2:8080".into(),
            broker(
                &["t/c/0x0_0x1", "t/a/0x1_0x2", "t/b/0x0_0x1", "t/b/0x0_0x1"],
                &[
                    ("t/b/0x0_0x1", 30.0),
                    ("t/a/0x1_0x2", 40.0),
                    ("t/d/0x0_0x1", 50.0),
                ],
            ),
        );
        snap.brokers.insert(
            "b3:8080".into(),
            broker(&["t/c/0x0_0x1", "t/e/0x0_0x1"], &[("t/c/0x0_0x1", 60.0)]),
        );
        let fast = load_data_from_snapshot(&snap);
        let slow = reference(&snap);
        assert_eq!(fast, slow);
        let order: Vec<&str> = fast.bundle_data.keys().map(String::as_str).collect();
        assert_eq!(
            order,
            [
                "t/a/0x0_0x1",
                "t/a/0x1_0x2",
                "t/b/0x0_0x1",
                "t/d/0x0_0x1",
                "t/c/0x0_0x1"
            ]
        );
    }
}
