//! Builds the modular leader's `LoadData` from a snapshot, as a freshly elected leader would see it:
//! stored `BundleData` (or Pulsar's defaults) updated once with each bundle's latest reported stats,
//! time averages recomputed from that data, no preallocations.

use indexmap::IndexMap;

use crate::model::{BundleData, Snapshot, TimeAverageBrokerData};
use crate::modular::{BrokerData, LoadData};

pub fn load_data_from_snapshot(snapshot: &Snapshot) -> LoadData {
    let mut bundle_data: IndexMap<String, BundleData> =
        IndexMap::with_capacity(snapshot.bundle_data.len());
    for broker in snapshot.brokers.values() {
        let local = &broker.local_broker_data;
        for name in &local.bundles {
            // Look up before inserting: a bundle reported twice (or already seen) costs no key copy.
            if !bundle_data.contains_key(name.as_str())
                && let Some(data) = snapshot.bundle_data.get(name)
            {
                bundle_data.insert(name.clone(), *data);
            }
        }
        // `updateBundleData`: every bundle in a report gets data (stored or default), then the sample.
        for (name, stats) in &local.last_stats {
            match bundle_data.get_mut(name.as_str()) {
                Some(entry) => entry.update(stats),
                None => {
                    let mut entry = snapshot
                        .bundle_data
                        .get(name)
                        .copied()
                        .unwrap_or_else(BundleData::pulsar_default);
                    entry.update(stats);
                    bundle_data.insert(name.clone(), entry);
                }
            }
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
