//! "Who owns this topic?" against a snapshot: the topic's bundle from its namespace's layout in the
//! snapshot (`ConsistentHashingTopicBundleAssigner`'s hash), the broker that owns that bundle, and the
//! load the bundle carries (as a plan moves it). Used by `lbplan hash --snapshot`.

use crate::model::Snapshot;
use crate::naming::{NamespaceBundles, TopicName};

use super::bundle_load::{BundleLoad, bundle_load, owner_of};

#[derive(Clone, Debug, PartialEq)]
pub struct TopicLocation {
    /// The full bundle name, `tenant/namespace/0x…_0x…`.
    pub bundle: String,
    /// The broker whose load report lists the bundle; `None` when no broker owns it right now.
    pub owner: Option<String>,
    /// The bundle's traffic (its owner's `lastStats`, else its `BundleData` short-term window).
    pub load: BundleLoad,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LocateError {
    #[error(
        "namespace `{namespace}` of topic `{topic}` is not in the snapshot (its layout is unknown)"
    )]
    UnknownNamespace { topic: String, namespace: String },
    #[error("$.namespaces[\"{namespace}\"].bundles: {why}")]
    BadLayout { namespace: String, why: String },
}

/// Where `topic` lives in `snapshot`.
pub fn locate_topic(snapshot: &Snapshot, topic: &TopicName) -> Result<TopicLocation, LocateError> {
    let namespace = topic.namespace.as_str();
    let ns = snapshot
        .namespaces
        .get(namespace)
        .ok_or_else(|| LocateError::UnknownNamespace {
            topic: topic.complete_name().to_string(),
            namespace: namespace.to_string(),
        })?;
    let bad = |why: String| LocateError::BadLayout {
        namespace: namespace.to_string(),
        why,
    };
    let layout = NamespaceBundles::from_bundles_data(namespace, &ns.bundles)
        .map_err(|e| bad(e.to_string()))?;
    let range = layout.find_bundle(topic).map_err(|e| bad(e.to_string()))?;
    let bundle = format!("{namespace}/{range}");
    let owner = owner_of(snapshot, &bundle);
    let load = owner.as_deref().map_or_else(
        || bundle_load(snapshot, "", &bundle),
        |o| bundle_load(snapshot, o, &bundle),
    );
    Ok(TopicLocation {
        bundle,
        owner,
        load,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BundlesData, NamespaceSnapshot};

    #[test]
    fn a_topic_of_an_unknown_namespace_is_an_error() {
        let snapshot = Snapshot::default();
        let topic = TopicName::parse("persistent://acme/orders/t").unwrap();
        assert_eq!(
            locate_topic(&snapshot, &topic).map_err(|e| e.to_string()),
            Err("namespace `acme/orders` of topic `persistent://acme/orders/t` is not in the snapshot (its layout is unknown)".to_string())
        );
    }

    #[test]
    fn an_unowned_bundle_has_no_owner() {
        let mut snapshot = Snapshot::default();
        snapshot.namespaces.insert(
            "acme/orders".into(),
            NamespaceSnapshot {
                bundles: BundlesData {
                    boundaries: vec!["0x00000000".into(), "0xffffffff".into()],
                    num_bundles: 1,
                },
                ..NamespaceSnapshot::default()
            },
        );
        let topic = TopicName::parse("persistent://acme/orders/t").unwrap();
        let at = locate_topic(&snapshot, &topic).unwrap();
        assert_eq!(at.bundle, "acme/orders/0x00000000_0xffffffff");
        assert_eq!(at.owner, None);
    }
}
