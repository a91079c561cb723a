//! The bundle map's search box: one query, read as what an operator would mean by it. A topic
//! (`persistent://t/n/x` or `t/n/x`) is hashed as Pulsar hashes it and lands on its bundle; a broker
//! name (or a part of one that names a single broker) shows that broker's namespaces; a namespace or
//! a tenant narrows to it; anything else filters namespaces by substring.

use crate::naming::TopicName;

use super::bundle_map::{BundleMap, MapFilter};

#[derive(Clone, Debug, PartialEq)]
pub enum MapSearch {
    /// Nothing typed: the filter is cleared.
    Clear,
    /// A topic's bundle.
    Topic {
        topic: String,
        /// The topic's bundle hash (`ConsistentHashingTopicBundleAssigner`).
        hash: u32,
        /// Row and segment of its bundle.
        row: u32,
        segment: usize,
    },
    Broker(String),
    Namespace(String),
    Tenant(String),
    /// Namespaces whose name contains the text.
    Substring(String),
    /// A query that names nothing on the map, with why.
    NoMatch(String),
}

impl MapSearch {
    /// The filter that shows the result (`base` keeps the heartbeat toggle).
    pub fn filter(&self, base: &MapFilter) -> MapFilter {
        let keep = MapFilter {
            show_system: base.show_system,
            ..MapFilter::default()
        };
        match self {
            MapSearch::Clear | MapSearch::NoMatch(_) => keep,
            MapSearch::Topic { topic, .. } => MapFilter {
                only_namespace: TopicName::parse(topic)
                    .ok()
                    .map(|t| t.namespace.as_str().to_string()),
                ..keep
            },
            MapSearch::Broker(b) => MapFilter {
                broker: Some(b.clone()),
                ..keep
            },
            MapSearch::Namespace(n) => MapFilter {
                only_namespace: Some(n.clone()),
                ..keep
            },
            MapSearch::Tenant(t) => MapFilter {
                tenant: Some(t.clone()),
                ..keep
            },
            MapSearch::Substring(s) => MapFilter {
                namespace: Some(s.clone()),
                ..keep
            },
        }
    }
}

/// Whether `query` is written as a topic: a domain prefix, or exactly `tenant/namespace/topic`.
fn looks_like_topic(query: &str) -> bool {
    query.contains("://") || query.split('/').filter(|p| !p.is_empty()).count() == 3
}

/// What `query` names on `map`.
pub fn search(map: &BundleMap, query: &str) -> MapSearch {
    let q = query.trim();
    if q.is_empty() {
        return MapSearch::Clear;
    }
    if looks_like_topic(q) {
        let topic = match TopicName::parse(q) {
            Ok(t) => t,
            Err(e) => return MapSearch::NoMatch(e.to_string()),
        };
        let namespace = topic.namespace.as_str();
        let Some(row) = map.row_of(namespace) else {
            return MapSearch::NoMatch(format!(
                "namespace `{namespace}` of `{}` is not in the snapshot",
                topic.complete_name()
            ));
        };
        let hash = topic.bundle_hash();
        return match map.segment_at_hash(row, hash) {
            Some(segment) => MapSearch::Topic {
                topic: topic.complete_name().to_string(),
                hash,
                row,
                segment,
            },
            None => MapSearch::NoMatch(format!(
                "no bundle of `{namespace}` holds hash {hash:#010x}"
            )),
        };
    }
    if map.broker_index(q).is_some() {
        return MapSearch::Broker(q.to_string());
    }
    let mut brokers = map.brokers.iter().filter(|b| b.contains(q));
    if let (Some(b), None) = (brokers.next(), brokers.next()) {
        return MapSearch::Broker(b.clone());
    }
    if map.row_of(q).is_some() {
        return MapSearch::Namespace(q.to_string());
    }
    if map.rows.iter().any(|r| r.tenant() == q) {
        return MapSearch::Tenant(q.to_string());
    }
    if map.rows.iter().any(|r| r.namespace.contains(q)) {
        return MapSearch::Substring(q.to_string());
    }
    MapSearch::NoMatch(format!(
        "no topic, broker, tenant or namespace matches `{q}`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, BundlesData, NamespaceSnapshot, Snapshot};

    /// `acme/orders` in Pulsar's default 4-bundle layout, each bundle on its own broker.
    fn map() -> BundleMap {
        let mut s = Snapshot::default();
        let boundaries = [
            "0x00000000",
            "0x40000000",
            "0x80000000",
            "0xc0000000",
            "0xffffffff",
        ];
        s.namespaces.insert(
            "acme/orders".into(),
            NamespaceSnapshot {
                bundles: BundlesData {
                    boundaries: boundaries.iter().map(|b| b.to_string()).collect(),
                    num_bundles: 4,
                },
                ..NamespaceSnapshot::default()
            },
        );
        for (i, w) in boundaries.windows(2).enumerate() {
            let mut b = BrokerSnapshot::default();
            b.local_broker_data.bundles = vec![format!("acme/orders/{}_{}", w[0], w[1])];
            s.brokers.insert(format!("broker-{i}:8080"), b);
        }
        BundleMap::from_snapshot(&s)
    }

    #[test]
    fn a_topic_lands_on_the_bundle_pulsar_hashes_it_to() {
        let m = map();
        // Murmur3 of `persistent://acme/orders/a.b.c-3` is 2,977,135,299 (Pulsar's TopicName tests),
        // in [0x80000000, 0xc0000000): the third bundle.
        let found = search(&m, "acme/orders/a.b.c-3");
        let MapSearch::Topic { hash, segment, .. } = found.clone() else {
            panic!("{found:?}");
        };
        assert_eq!(hash, 2_977_135_299);
        assert_eq!(
            m.bundle_name(segment).as_deref(),
            Some("acme/orders/0x80000000_0xc0000000")
        );
        assert_eq!(
            m.owner_name(m.segments[segment].owner),
            Some("broker-2:8080")
        );
        assert_eq!(
            found
                .filter(&MapFilter::default())
                .only_namespace
                .as_deref(),
            Some("acme/orders")
        );
    }

    #[test]
    fn brokers_namespaces_tenants_and_misses() {
        let m = map();
        assert_eq!(
            search(&m, "broker-3"),
            MapSearch::Broker("broker-3:8080".into())
        );
        // `broker-` names four brokers: not one broker, and no namespace contains it.
        assert!(matches!(search(&m, "broker-"), MapSearch::NoMatch(_)));
        assert_eq!(
            search(&m, "acme/orders"),
            MapSearch::Namespace("acme/orders".into())
        );
        assert_eq!(search(&m, "acme"), MapSearch::Tenant("acme".into()));
        assert_eq!(search(&m, "ord"), MapSearch::Substring("ord".into()));
        assert_eq!(search(&m, "  "), MapSearch::Clear);
        assert_eq!(
            search(&m, "persistent://acme/payments/x"),
            MapSearch::NoMatch(
                "namespace `acme/payments` of `persistent://acme/payments/x` is not in the snapshot"
                    .into()
            )
        );
    }
}
