//! The snapshot's stored `BundleData` as a leader view keeps it, to tell which bundles' stored data
//! the next snapshot changed. A copy of the snapshot's map cost one allocation per bundle name
//! (200,000 on the large cluster) when a plan engine was built; here every name lives in one
//! buffer, and the lookup by name is built on the first lookup: only an update of the view looks
//! names up (a view planned on without changes, as every cycle-only plan is, never does). Same
//! answers, same order as the snapshot's map.

use std::cell::OnceCell;
use std::hash::BuildHasher;

use indexmap::IndexMap;
use indexmap::map::RawEntryApiV1;
use indexmap::map::raw_entry_v1::RawEntryMut;
use rustc_hash::FxBuildHasher;

use crate::model::BundleData;

/// A name's bytes in [`StoredBundles::text`].
type Span = (usize, usize);

/// Positions in [`StoredBundles::entries`], found by the name's text through indexmap's raw
/// entries (a position itself is never hashed).
type ByName = IndexMap<usize, (), FxBuildHasher>;

pub(crate) struct StoredBundles {
    text: String,
    /// In the snapshot's order.
    entries: Vec<(Span, BundleData)>,
    by_name: OnceCell<ByName>,
}

impl StoredBundles {
    pub(crate) fn new(stored: &IndexMap<String, BundleData>) -> Self {
        let mut text = String::with_capacity(stored.keys().map(String::len).sum());
        let entries = stored
            .iter()
            .map(|(name, data)| {
                let start = text.len();
                text.push_str(name);
                ((start, text.len()), *data)
            })
            .collect();
        Self {
            text,
            entries,
            by_name: OnceCell::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn name(&self, span: Span) -> &str {
        self.text.get(span.0..span.1).unwrap_or("")
    }

    fn name_at(&self, pos: usize) -> Option<&str> {
        self.entries.get(pos).map(|(span, _)| self.name(*span))
    }

    fn by_name(&self) -> &ByName {
        self.by_name.get_or_init(|| {
            let mut by_name = ByName::with_capacity_and_hasher(self.entries.len(), FxBuildHasher);
            for (pos, (span, _)) in self.entries.iter().enumerate() {
                let name = self.name(*span);
                let hash = FxBuildHasher.hash_one(name);
                // The snapshot's keys are unique; a repeated one would keep its first entry, as
                // the snapshot's map would.
                if let RawEntryMut::Vacant(e) = by_name
                    .raw_entry_mut_v1()
                    .from_hash(hash, |&p| self.name_at(p) == Some(name))
                {
                    e.insert_hashed_nocheck(hash, pos, ());
                }
            }
            by_name
        })
    }

    pub(crate) fn get(&self, name: &str) -> Option<&BundleData> {
        let pos = self.position(name)?;
        self.entries.get(pos).map(|(_, data)| data)
    }

    /// The position of `name` (in order).
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        let hash = FxBuildHasher.hash_one(name);
        let (&pos, _) = self
            .by_name()
            .raw_entry_v1()
            .from_hash(hash, |&p| self.name_at(p) == Some(name))?;
        Some(pos)
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The name and data at `pos` (in order).
    pub(crate) fn entry_at(&self, pos: usize) -> Option<(&str, &BundleData)> {
        self.entries
            .get(pos)
            .map(|(span, data)| (self.name(*span), data))
    }

    /// The names in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|(span, _)| self.name(*span))
    }

    /// The entries in order, their data writable (the names, and so the lookup, stay).
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut BundleData)> + '_ {
        let text = &self.text;
        self.entries
            .iter_mut()
            .map(|(span, data)| (text.get(span.0..span.1).unwrap_or(""), data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NamespaceBundleStats;

    #[test]
    fn answers_as_the_map_it_was_built_from() {
        let mut map: IndexMap<String, BundleData> = IndexMap::new();
        for i in 0..500u32 {
            let mut d = BundleData::pulsar_default();
            d.update(&NamespaceBundleStats {
                msg_rate_in: f64::from(i),
                topics: i64::from(i % 7),
                ..NamespaceBundleStats::default()
            });
            // Names that share prefixes and lengths, and an empty one.
            let name = if i == 0 {
                String::new()
            } else {
                format!("t/ns{}/0x{:08x}_0x{:08x}", i % 13, i, i + 1)
            };
            map.insert(name, d);
        }
        let mut stored = StoredBundles::new(&map);
        assert_eq!(stored.len(), map.len());
        assert!(stored.keys().eq(map.keys().map(String::as_str)));
        for (pos, (name, data)) in map.iter().enumerate() {
            assert_eq!(stored.get(name), Some(data));
            assert_eq!(stored.position(name), Some(pos));
            assert!(stored.contains_key(name));
        }
        for missing in ["t/ns1", "t/ns1/0x00000001_0x0000000", "x"] {
            assert!(!stored.contains_key(missing));
        }
        let first = BundleData::pulsar_default();
        for (_, data) in stored.iter_mut().take(1) {
            *data = first;
        }
        assert_eq!(stored.get(""), Some(&first));
        assert!(
            stored
                .iter_mut()
                .map(|(n, _)| n.to_string())
                .eq(map.keys().cloned())
        );
    }
}
