//! Iteration order of the Java collections the oracle's `LoadData` lives in, so ties resolve alike:
//! brokers sit in a `ConcurrentHashMap` filled in scenario order; `getBundleDataForLoadShedding()`
//! collects the (ConcurrentHashMap) bundle data into a fresh `HashMap`.
//! Not modelled: bins that turn into trees (8+ keys in one bin), which do not occur at these sizes.

use indexmap::IndexMap;

use crate::config::Profile;
use crate::model::BundleData;
use crate::modular::load_data::namespace_of_bundle;
use crate::naming::{concurrent_hash_map_order, hash_map_order};

/// Brokers keyed by name in `ConcurrentHashMap` order.
pub(crate) fn concurrent_hash_map<V>(entries: Vec<(String, V)>) -> IndexMap<String, V> {
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    let order = concurrent_hash_map_order(&keys);
    reorder(entries, &order)
}

/// Bundle data laid out so that `LoadData::bundle_data_for_shedding` yields Pulsar's order: the
/// `ConcurrentHashMap` order of all bundles, filtered, re-collected into a `HashMap`; heartbeat
/// and SLA bundles (hidden from shedding) go last.
pub(crate) fn shedding_bundle_map(
    entries: Vec<(String, BundleData)>,
    profile: Profile,
) -> IndexMap<String, BundleData> {
    let all = concurrent_hash_map(entries);
    let v1 = profile.filters_v1_heartbeat_names();
    let (hidden, visible): (Vec<_>, Vec<_>) = all.into_iter().partition(|(name, _)| {
        crate::modular::load_data::hidden_from_shedding(namespace_of_bundle(name), v1)
    });
    let keys: Vec<&str> = visible.iter().map(|(k, _)| k.as_str()).collect();
    let order = hash_map_order(&keys);
    let mut out = reorder(visible, &order);
    out.extend(hidden);
    out
}

fn reorder<V>(entries: Vec<(String, V)>, order: &[usize]) -> IndexMap<String, V> {
    let mut slots: Vec<Option<(String, V)>> = entries.into_iter().map(Some).collect();
    let mut out = IndexMap::with_capacity(slots.len());
    for &p in order {
        if let Some((k, v)) = slots.get_mut(p).and_then(Option::take) {
            out.insert(k, v);
        }
    }
    out
}
