//! The bundle map's search box (Find): one query, classified as what an operator would mean by
//! it, in this order:
//!
//! - a bundle, `tenant/ns/0x…_0x…`: that bundle (a range the namespace does not have offers the
//!   bundles that overlap it: it was split or merged since);
//! - a bare range `0x…_0x…`: the bundle of that range, or the choice of namespaces that have it;
//! - a topic, `persistent://t/n/x` or `t/n/x` (`x` not a range): hashed as Pulsar hashes it, it
//!   lands on its bundle;
//! - a broker, by full id or by the short name the tables show
//!   ([`crate::naming::BrokerNames`]), or a part of one that names a single broker; a part that
//!   names several offers them;
//! - a namespace, then a tenant, then a substring of namespaces.
//!
//! Ambiguous input returns [`MapSearch::Choices`]: each choice carries the query that selects
//! exactly it.

use crate::naming::{BrokerNames, BundleRange, TopicName, parse_bundle_name};

use super::bundle_map::{BundleMap, MapFilter};

/// Choices offered at most (the count of the others is kept).
pub const MAX_CHOICES: usize = 12;

/// One way to read an ambiguous query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// What the choice is, for the reader (`bundle acme/orders/0x…`, `broker broker-04`).
    pub label: String,
    /// The query that selects exactly this choice.
    pub query: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MapSearch {
    /// Nothing typed: the filter is cleared.
    Clear,
    /// A bundle named by its full name or its range.
    Bundle {
        bundle: String,
        segment: usize,
    },
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
    /// The query could mean any of these; `more`: how many others were left out.
    Choices {
        why: String,
        choices: Vec<Choice>,
        more: usize,
    },
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
            MapSearch::Clear | MapSearch::NoMatch(_) | MapSearch::Choices { .. } => keep,
            MapSearch::Topic { topic, .. } => MapFilter {
                only_namespace: TopicName::parse(topic)
                    .ok()
                    .map(|t| t.namespace.as_str().to_string()),
                ..keep
            },
            MapSearch::Bundle { bundle, .. } => MapFilter {
                only_namespace: parse_bundle_name(bundle).ok().map(|b| b.namespace),
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

    /// The segment the result selects (a bundle or a topic's bundle).
    pub fn segment(&self) -> Option<usize> {
        match self {
            MapSearch::Bundle { segment, .. } | MapSearch::Topic { segment, .. } => Some(*segment),
            _ => None,
        }
    }
}

/// Whether `query` is written as a topic: a domain prefix, or exactly `tenant/namespace/topic`.
fn looks_like_topic(query: &str) -> bool {
    query.contains("://") || query.split('/').filter(|p| !p.is_empty()).count() == 3
}

fn choices(why: String, all: Vec<Choice>) -> MapSearch {
    let more = all.len().saturating_sub(MAX_CHOICES);
    let mut choices = all;
    choices.truncate(MAX_CHOICES);
    MapSearch::Choices { why, choices, more }
}

fn bundle_choice(map: &BundleMap, segment: usize) -> Option<Choice> {
    let name = map.bundle_name(segment)?;
    let owner = map
        .segments
        .get(segment)
        .and_then(|s| map.owner_name(s.owner))
        .unwrap_or("no broker");
    Some(Choice {
        label: format!("bundle {name} on {owner}"),
        query: name,
    })
}

/// The segments of `namespace` overlapping `range`.
fn overlapping(map: &BundleMap, row: u32, range: BundleRange) -> Vec<usize> {
    let Some(r) = map.rows.get(row as usize) else {
        return Vec::new();
    };
    (r.start..r.end)
        .filter(|&i| {
            map.segments
                .get(i)
                .is_some_and(|s| s.lo < range.hi && range.lo < s.hi)
        })
        .collect()
}

/// A full bundle name.
fn search_bundle(map: &BundleMap, name: &str) -> MapSearch {
    if let Some(segment) = map.find(name) {
        return MapSearch::Bundle {
            bundle: name.to_string(),
            segment,
        };
    }
    let Ok(b) = parse_bundle_name(name) else {
        return MapSearch::NoMatch(format!("`{name}` is not a bundle name"));
    };
    let Some(row) = map.row_of(&b.namespace) else {
        return MapSearch::NoMatch(format!(
            "namespace `{}` of bundle `{name}` is not in the snapshot",
            b.namespace
        ));
    };
    let near: Vec<Choice> = overlapping(map, row, b.range)
        .into_iter()
        .filter_map(|s| bundle_choice(map, s))
        .collect();
    if near.is_empty() {
        return MapSearch::NoMatch(format!("no bundle `{name}` in the snapshot"));
    }
    choices(
        format!(
            "`{}` has no bundle {}: these overlap it (split or merged since?)",
            b.namespace, b.range
        ),
        near,
    )
}

/// A bare range: the bundles with exactly that range, in any namespace.
fn search_range(map: &BundleMap, range: BundleRange) -> MapSearch {
    let found: Vec<usize> = map
        .segments
        .iter()
        .enumerate()
        .filter(|(_, s)| s.lo == range.lo && s.hi == range.hi)
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [] => MapSearch::NoMatch(format!("no namespace has a bundle {range}")),
        [one] => MapSearch::Bundle {
            bundle: map.bundle_name(*one).unwrap_or_default(),
            segment: *one,
        },
        many => choices(
            format!("{} namespaces have a bundle {range}", many.len()),
            many.iter().filter_map(|s| bundle_choice(map, *s)).collect(),
        ),
    }
}

fn search_topic(map: &BundleMap, q: &str) -> MapSearch {
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
    match map.segment_at_hash(row, hash) {
        Some(segment) => MapSearch::Topic {
            topic: topic.complete_name().to_string(),
            hash,
            row,
            segment,
        },
        None => MapSearch::NoMatch(format!(
            "no bundle of `{namespace}` holds hash {hash:#010x}"
        )),
    }
}

/// `0x…_0x…` (both halves written in hex with their `0x`, as Pulsar prints ranges).
fn bare_range(q: &str) -> Option<BundleRange> {
    let (lo, hi) = q.split_once('_')?;
    let hex = |h: &str| h.starts_with("0x") || h.starts_with("0X");
    (hex(lo) && hex(hi)).then(|| BundleRange::parse(q).ok())?
}

/// What `query` names on `map`.
pub fn search(map: &BundleMap, query: &str) -> MapSearch {
    let q = query.trim();
    if q.is_empty() {
        return MapSearch::Clear;
    }
    if !q.contains("://") {
        if let Some(range) = bare_range(q) {
            return search_range(map, range);
        }
        if q.rsplit_once('/')
            .is_some_and(|(ns, r)| ns.contains('/') && bare_range(r).is_some())
        {
            return search_bundle(map, q);
        }
    }
    if looks_like_topic(q) {
        return search_topic(map, q);
    }
    let names = BrokerNames::new(map.brokers.iter().map(String::as_str));
    if map.broker_index(q).is_some() {
        return MapSearch::Broker(q.to_string());
    }
    if let crate::naming::Resolved::One(id) = names.resolve(q) {
        return MapSearch::Broker(id);
    }
    if map.row_of(q).is_some() {
        return MapSearch::Namespace(q.to_string());
    }
    if map.rows.iter().any(|r| r.tenant() == q) {
        return MapSearch::Tenant(q.to_string());
    }
    let brokers: Vec<&String> = map.brokers.iter().filter(|b| b.contains(q)).collect();
    if let [one] = brokers.as_slice() {
        return MapSearch::Broker((*one).clone());
    }
    // A broker's own heartbeat and SLA-monitor namespaces carry its id: matching them too is no
    // reason to withhold the choice of brokers.
    let namespaces = map.rows.iter().any(|r| {
        r.namespace.contains(q)
            && !(brokers.len() > 1 && crate::naming::is_sla_or_heartbeat_namespace(&r.namespace))
    });
    if brokers.len() > 1 && !namespaces {
        return choices(
            format!("{} brokers match `{q}`", brokers.len()),
            brokers
                .iter()
                .map(|b| Choice {
                    label: format!("broker {} ({b})", names.short(b)),
                    query: (*b).clone(),
                })
                .collect(),
        );
    }
    if namespaces {
        return MapSearch::Substring(q.to_string());
    }
    MapSearch::NoMatch(format!(
        "no bundle, topic, broker, tenant or namespace matches `{q}`"
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
        // `broker-` names four brokers: the choice is offered.
        let MapSearch::Choices { choices, more, .. } = search(&m, "broker-") else {
            panic!()
        };
        assert_eq!(choices.len(), 4);
        assert_eq!(more, 0);
        assert_eq!(choices[0].query, "broker-0:8080");
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

    #[test]
    fn a_bundle_name_selects_that_bundle_not_a_topic_hashed_from_it() {
        // `globex/clickstream/0xf0000000_0xf8000000` was hashed as a topic.
        let m = map();
        let found = search(&m, "acme/orders/0xc0000000_0xffffffff");
        assert_eq!(
            found,
            MapSearch::Bundle {
                bundle: "acme/orders/0xc0000000_0xffffffff".into(),
                segment: 3
            }
        );
        assert_eq!(found.segment(), Some(3));
        assert_eq!(
            found
                .filter(&MapFilter::default())
                .only_namespace
                .as_deref(),
            Some("acme/orders")
        );
        // Hashed as a topic, the bundle name lands in 0x50000000_0x58000000 (what Find
        // selected before): the classifier must not hash it.
        let as_topic = TopicName::parse("globex/clickstream/0xf0000000_0xf8000000")
            .unwrap()
            .bundle_hash();
        assert!((0x5000_0000..0x5800_0000).contains(&as_topic));
        // A bare range names its bundle when one namespace has it.
        assert_eq!(search(&m, " 0x40000000_0x80000000 ").segment(), Some(1));
        // A range the namespace does not have (split since) offers the bundles that overlap it.
        let MapSearch::Choices { choices, .. } = search(&m, "acme/orders/0x30000000_0x50000000")
        else {
            panic!()
        };
        assert_eq!(
            choices.iter().map(|c| c.query.as_str()).collect::<Vec<_>>(),
            [
                "acme/orders/0x00000000_0x40000000",
                "acme/orders/0x40000000_0x80000000"
            ]
        );
        assert_eq!(
            choices[0].label,
            "bundle acme/orders/0x00000000_0x40000000 on broker-0:8080"
        );
        assert!(matches!(
            search(&m, "acme/other/0x00000000_0x40000000"),
            MapSearch::NoMatch(_)
        ));
        // With the domain, it is a topic whatever its local name looks like.
        assert!(matches!(
            search(&m, "persistent://acme/orders/0xc0000000_0xffffffff"),
            MapSearch::Topic { .. }
        ));
    }

    #[test]
    fn short_broker_names_and_shared_ranges() {
        let mut s = Snapshot::default();
        for ns in ["acme/a", "acme/b"] {
            s.namespaces.insert(
                ns.into(),
                NamespaceSnapshot {
                    bundles: BundlesData {
                        boundaries: vec!["0x00000000".into(), "0xffffffff".into()],
                        num_bundles: 1,
                    },
                    ..NamespaceSnapshot::default()
                },
            );
        }
        for (i, ns) in ["acme/a", "acme/b"].iter().enumerate() {
            let mut b = BrokerSnapshot::default();
            b.local_broker_data.bundles = vec![format!("{ns}/0x00000000_0xffffffff")];
            s.brokers.insert(
                format!("pulsar-broker-{i}.pulsar-broker.pulsar.svc.cluster.local:8080"),
                b,
            );
        }
        let m = BundleMap::from_snapshot(&s);
        assert_eq!(
            search(&m, "pulsar-broker-1"),
            MapSearch::Broker("pulsar-broker-1.pulsar-broker.pulsar.svc.cluster.local:8080".into())
        );
        let MapSearch::Choices { choices, why, .. } = search(&m, "0x00000000_0xffffffff") else {
            panic!()
        };
        assert_eq!(why, "2 namespaces have a bundle 0x00000000_0xffffffff");
        assert_eq!(choices.len(), 2);
        assert_eq!(search(&m, &choices[1].query).segment(), Some(1));
    }
}
