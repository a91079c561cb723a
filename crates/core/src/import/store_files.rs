//! A snapshot written out as the metadata-store files it could have been imported from, at
//! [`store_layout`]'s paths: each broker's report (`/loadbalance/brokers/<id>`) and the leader's
//! time average for it, every stored `BundleData`, each namespace's bundle layout
//! (`/admin/local-policies/<ns>`), the leader, and `broker.conf`. Importing the files gives the
//! snapshot's brokers, bundle data, layouts, settings and leader back; what a metadata store does
//! not hold (the cluster's name, the capture instant, topic lists) is not written, and neither are
//! isolation policies, failure domains or anti-affinity groups. The benchmark and tests that need a
//! large store tree serialise a generated cluster (`synthetic`) with it: one generator, not two.

use super::store_layout;
use crate::model::Snapshot;

/// `(path, bytes)` of every file, in a fixed order: bundle data, layouts, broker reports and time
/// averages (broker order), the leader, `broker.conf`.
pub fn store_files(snapshot: &Snapshot) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::with_capacity(
        snapshot.bundle_data.len() + snapshot.namespaces.len() + 2 * snapshot.brokers.len() + 2,
    );
    for (name, data) in &snapshot.bundle_data {
        out.push((store_layout::bundle_data_path(name), json(data)));
    }
    for (name, ns) in &snapshot.namespaces {
        let layout = serde_json::json!({ "bundles": ns.bundles });
        out.push((store_layout::local_policies_path(name), json(&layout)));
    }
    for (id, broker) in &snapshot.brokers {
        out.push((
            store_layout::broker_path(id),
            json(&broker.local_broker_data),
        ));
        if let Some(time_average) = &broker.time_average_broker_data {
            out.push((store_layout::time_average_path(id), json(time_average)));
        }
    }
    if let Some(leader) = &snapshot.leader_broker {
        let service_url = snapshot
            .brokers
            .get(leader)
            .and_then(|b| b.local_broker_data.web_service_url.clone());
        let node = serde_json::json!({ "brokerId": leader, "serviceUrl": service_url });
        out.push((store_layout::LEADER.to_string(), json(&node)));
    }
    if !snapshot.broker_conf.is_empty() {
        let text: String = snapshot
            .broker_conf
            .iter()
            .map(|(key, value)| format!("{key}={value}\n"))
            .collect();
        out.push((store_layout::BROKER_CONF.to_string(), text.into_bytes()));
    }
    out
}

/// A node's JSON. Model types have string keys only, so serialising them cannot fail; an empty
/// node would be reported by the importer if it ever did.
fn json<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ImportInput, import};
    use crate::synthetic::{Detail, NamespaceSpec, SyntheticSpec, generate};

    fn imported(files: &[(String, Vec<u8>)]) -> Snapshot {
        let inputs: Vec<ImportInput<'_>> = files
            .iter()
            .map(|(n, b)| ImportInput::in_tree(n.as_str(), b.as_slice()))
            .collect();
        import(&inputs).unwrap().snapshot
    }

    /// A generated cluster, written as store files and imported, is the cluster again: reports,
    /// the leader's time averages, bundle data, layouts, settings and leader, to the bit.
    #[test]
    fn generated_clusters_survive_the_round_trip_through_store_files() {
        let small_bare = SyntheticSpec {
            brokers: 7,
            namespaces: NamespaceSpec::numbered(5, 2, 8),
            ..SyntheticSpec::bench()
        };
        let small_full = SyntheticSpec {
            detail: Detail::Full,
            ..small_bare.clone()
        };
        for (spec, seed) in [
            (SyntheticSpec::demo(), 42),
            (small_bare, 1),
            (small_full, 2),
        ] {
            let snap = generate(&spec, seed).unwrap();
            let files = store_files(&snap);
            assert_eq!(files, store_files(&snap), "deterministic");
            let mut back = imported(&files);
            // A tree without the leader's time averages (Detail::Bare) gets them derived by the
            // importer from the bundle data, as the leader does.
            for (id, b) in &snap.brokers {
                if b.time_average_broker_data.is_none()
                    && let Some(got) = back.brokers.get_mut(id)
                {
                    got.time_average_broker_data = None;
                }
            }
            assert!(back.brokers == snap.brokers, "{}: brokers", spec.cluster);
            assert!(back.bundle_data == snap.bundle_data, "{}", spec.cluster);
            assert_eq!(back.namespaces, snap.namespaces);
            assert_eq!(back.broker_conf, snap.broker_conf);
            assert_eq!(back.leader_broker, snap.leader_broker);
        }
    }
}
