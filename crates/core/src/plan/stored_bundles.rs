//! The snapshot's stored `BundleData` as a leader view keeps it, to tell which bundles' stored data
//! the next snapshot changed. A copy of the snapshot's map cost one allocation per bundle name
//! (200,000 on the large cluster, ≈ 8 % of building a plan engine); here every name lives in one
//! buffer and the map holds spans of it, looked up by the name's text through indexmap's raw
//! entries. Same answers, same order as the snapshot's map.

use std::hash::BuildHasher;

use indexmap::IndexMap;
use indexmap::map::RawEntryApiV1;
use indexmap::map::raw_entry_v1::RawEntryMut;
use rustc_hash::FxBuildHasher;

use crate::model::BundleData;

/// A name's bytes in [`StoredBundles::text`].
type Span = (usize, usize);

pub(crate) struct StoredBundles {
    text: String,
    /// Only ever hashed and compared through the raw-entry API with the name's text (the span
    /// itself is never hashed), so the hasher parameter is the one used for names.
    entries: IndexMap<Span, BundleData, FxBuildHasher>,
}

impl StoredBundles {
    pub(crate) fn new(stored: &IndexMap<String, BundleData>) -> Self {
        let mut text = String::with_capacity(stored.keys().map(String::len).sum());
        let mut entries: IndexMap<Span, BundleData, FxBuildHasher> =
            IndexMap::with_capacity_and_hasher(stored.len(), FxBuildHasher);
        for (name, data) in stored {
            let hash = FxBuildHasher.hash_one(name.as_str());
            // The snapshot's keys are unique, but a duplicate would keep the first entry, as
            // lookups in the snapshot's map would find it.
            if let RawEntryMut::Vacant(e) = entries
                .raw_entry_mut_v1()
                .from_hash(hash, |span| text.get(span.0..span.1) == Some(name.as_str()))
            {
                let start = text.len();
                text.push_str(name);
                e.insert_hashed_nocheck(hash, (start, text.len()), *data);
            }
        }
        Self { text, entries }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&BundleData> {
        let hash = FxBuildHasher.hash_one(name);
        let text = &self.text;
        self.entries
            .raw_entry_v1()
            .from_hash(hash, |span| text.get(span.0..span.1) == Some(name))
            .map(|(_, data)| data)
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    fn name(&self, span: Span) -> &str {
        self.text.get(span.0..span.1).unwrap_or("")
    }

    /// The names in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.keys().map(|&span| self.name(span))
    }

    /// The entries in order, their data writable.
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
        for (name, data) in &map {
            assert_eq!(stored.get(name), Some(data));
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
