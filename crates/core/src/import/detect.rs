//! Telling what an input is: first by where it sits in a metadata-store tree (`store_layout::locate`),
//! then by its shape (which keys a JSON object has, read as an outline without building the value;
//! whether text lines are topics or `key=value`). [`json_shape`] is the one decision for JSON.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use indexmap::IndexMap;
use serde::Deserializer;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::diag::ImportError;
use super::typed::Key;

pub(crate) use super::store_layout::{Location, locate, segments};
use super::{
    broker_conf, broker_load_data, broker_report, cluster, consume_output, policies, topic_list,
};

/// The file name without its last extension (`brokers/b1.json` → `b1`); broker ids such as
/// `10.0.0.1:8080` keep their dots because only known extensions are removed.
pub(crate) fn stem(path: &str) -> String {
    let last = segments(path).last().copied().unwrap_or("");
    for ext in [".json", ".txt", ".conf", ".properties"] {
        if let Some(s) = last.strip_suffix(ext) {
            return s.to_string();
        }
    }
    last.to_string()
}

/// The namespace a layout/policies file outside a metadata tree is for: `…/<tenant>/<ns>.json`, or
/// `…/<tenant>/<ns>/bundles.json` (also `policies`, `local-policies`).
pub(crate) fn namespace_from_path(path: &str) -> Option<String> {
    let segs = segments(path);
    let last = stem(path);
    let n = segs.len();
    let (tenant, ns) = if ["bundles", "policies", "local-policies"].contains(&last.as_str()) {
        (
            segs.get(n.checked_sub(3)?)?.to_string(),
            segs.get(n - 2)?.to_string(),
        )
    } else {
        (segs.get(n.checked_sub(2)?)?.to_string(), last)
    };
    let ok = |s: &str| !s.is_empty() && s != ".." && !s.contains(':');
    (ok(&tenant) && ok(&ns)).then(|| format!("{tenant}/{ns}"))
}

/// The bundle a `BundleData` file outside a metadata tree is for: the last three path segments.
pub(crate) fn bundle_from_path(path: &str) -> Option<String> {
    let segs = segments(path);
    let n = segs.len();
    let tail = segs.get(n.checked_sub(3)?..)?;
    let mut parts: Vec<String> = tail.iter().map(|s| s.to_string()).collect();
    if let Some(last) = parts.last_mut() {
        *last = stem(last);
    }
    Some(parts.join("/"))
}

/// The kinds of input recognised, JSON and text.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(crate) enum Shape {
    Snapshot,
    LocalBrokerData,
    BrokerLookupData,
    BrokerLoadData,
    TopBundlesLoadData,
    BundleData,
    TimeAverageBrokerData,
    BundlesData,
    Policies,
    Leader,
    FailureDomain,
    IsolationPolicies,
    TopicList,
    /// SimpleLoadManagerImpl's `LoadReport` (`systemResourceUsage`, `bundleStats`, no
    /// `loadReportType` before 2.x added it): real, but not what the modular or extensible load
    /// manager reads.
    LegacyLoadReport,
    /// One `NamespaceIsolationData` (`pulsar-admin ns-isolation-policy get CLUSTER POLICY`).
    IsolationPolicy,
    /// `pulsar-admin brokers get-all-dynamic-config`: broker.conf keys → values as text.
    DynamicConfig,
    /// `collect-report.json` of `lbplan collect` (`"kind": "lbplan-collect-report"`).
    CollectReport,
    // Text formats.
    /// `pulsar-client consume` output of the extensible load-data topics.
    ConsumeOutput,
    /// `pulsar-admin topics partitioned-lookup` output (not a topic list).
    PartitionedLookup,
    /// `pulsar-admin brokers list CLUSTER`: one brokerId per line.
    BrokersList,
    /// `pulsar-admin topics list`: one full topic name per line.
    TopicLines,
    /// `broker.conf` (Java properties).
    BrokerConf,
    Unknown,
}

const BROKER_REPORT_KEYS: &[&str] = &[
    "loadReportType",
    "lastStats",
    "lastUpdate",
    "numBundles",
    "numTopics",
    "cpu",
    "msgRateIn",
    "brokerVersionString",
    "lastBundleGains",
];

/// Whether a (non-empty, trimmed) text is JSON rather than a text export.
pub(crate) fn is_json(trimmed: &str) -> bool {
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

/// What an input is, decided in one place before any reader runs: JSON by [`json_shape`], text by
/// its lines (and a `.conf`/`.properties` name). `text` is non-empty; for JSON, `json_guard` has
/// already bounded it.
pub(crate) fn format(
    file: &str,
    loc: &Location,
    path: &str,
    text: &str,
    top_keys: Option<&[&str]>,
) -> Result<Shape, ImportError> {
    if is_json(text.trim_start()) {
        return json_shape(file, loc, text, top_keys);
    }
    let name = segments(path).last().copied().unwrap_or("");
    let conf_name = name.ends_with(".conf") || name.ends_with(".properties");
    Ok(if consume_output::looks_like_consume_output(text) {
        Shape::ConsumeOutput
    } else if topic_list::looks_like_partitioned_lookup(text) {
        Shape::PartitionedLookup
    } else if !conf_name && cluster::looks_like_brokers_list(text) {
        Shape::BrokersList
    } else if topic_list::looks_like_topics(text) {
        Shape::TopicLines
    } else if conf_name || broker_conf::looks_like_conf(text) {
        Shape::BrokerConf
    } else {
        Shape::Unknown
    })
}

/// What a JSON input is, decided in one place: by its place in a metadata-store tree, else (and
/// for a broker node, which may hold either of two formats) by an outline of its content read
/// without building it ([`peek`]). The 200,000 `BundleData` nodes of a large cluster are known by
/// their path alone and not read twice.
///
/// `top_keys` are the top-level keys as written, when `json_guard`'s pass could list them: a
/// snapshot (`format_version` without `kind`, as [`shape_of`] decides) is then known without the
/// outline's second pass over a file that may be 200 MB.
pub(crate) fn json_shape(
    file: &str,
    loc: &Location,
    text: &str,
    top_keys: Option<&[&str]>,
) -> Result<Shape, ImportError> {
    Ok(match loc {
        Location::BundleData(_) => Shape::BundleData,
        Location::TimeAverage(_) => Shape::TimeAverageBrokerData,
        Location::Leader => Shape::Leader,
        Location::Policies(_) | Location::LocalPolicies(_) => Shape::Policies,
        Location::FailureDomain { .. } => Shape::FailureDomain,
        Location::IsolationPolicies { .. } => Shape::IsolationPolicies,
        Location::Broker(_) => {
            let outline = peek(file, text)?;
            if broker_report::is_lookup_data(|k| outline.has(k)) {
                Shape::BrokerLookupData
            } else {
                Shape::LocalBrokerData
            }
        }
        Location::OtherMetadata | Location::None if top_keys.is_some_and(is_snapshot_keys) => {
            Shape::Snapshot
        }
        Location::OtherMetadata | Location::None => {
            let outline = peek(file, text)?;
            // Before the shape check: a collect report has `format_version` like a snapshot.
            if matches!(outline.get("kind"), Some(Kind::Str(k)) if k == super::collect_report::KIND)
            {
                Shape::CollectReport
            } else {
                shape_of(&outline)
            }
        }
    })
}

/// Whether an object with these top-level keys is a snapshot by [`json_shape`]'s rules: it has
/// `format_version`, and no `kind` that could make it a collect report (which has both).
fn is_snapshot_keys(keys: &[&str]) -> bool {
    keys.contains(&"format_version") && !keys.contains(&"kind")
}

/// The kind of JSON export an outline is (see [`Shape`]); the order of the checks matters where
/// formats share keys.
pub(crate) fn shape_of(peek: &Peek<'_>) -> Shape {
    let keys = match peek {
        Peek::Array { all_strings: true } => return Shape::TopicList,
        Peek::Object(keys) => keys,
        _ => return Shape::Unknown,
    };
    let has = |k: &str| keys.contains_key(k);
    let is = |k: &str, want: fn(&Kind<'_>) -> bool| keys.get(k).is_some_and(want);
    let array = |k: &Kind<'_>| matches!(k, Kind::Array);
    if has("format_version") {
        Shape::Snapshot
    } else if has("topBundlesLoadData") {
        Shape::TopBundlesLoadData
    } else if broker_load_data::DISTINCTIVE.iter().any(|k| has(k)) {
        Shape::BrokerLoadData
    } else if has("systemResourceUsage") && !has("lastStats") {
        // Before the report check: a legacy LoadReport has `msgRateIn`, `numBundles` too.
        Shape::LegacyLoadReport
    } else if has("boundaries") && !has("lastStats") {
        // Before the report check: `BundlesData` shares `numBundles` with `LocalBrokerData`.
        Shape::BundlesData
    } else if BROKER_REPORT_KEYS.iter().any(|k| has(k)) || is("bundles", array) {
        Shape::LocalBrokerData
    } else if has("shortTermData") || has("longTermData") {
        Shape::BundleData
    } else if keys
        .keys()
        .any(|k| k.starts_with("shortTermMsg") || k.starts_with("longTermMsg"))
    {
        Shape::TimeAverageBrokerData
    } else if is("bundles", |k| matches!(k, Kind::Object { .. }))
        || policies::DISTINCTIVE.iter().any(|k| has(k))
    {
        Shape::Policies
    } else if has("serviceUrl") && keys.keys().all(|k| k == "brokerId" || k == "serviceUrl") {
        // Exactly the leader-election payload.
        Shape::Leader
    } else if broker_report::is_lookup_data(has) {
        Shape::BrokerLookupData
    } else if keys.len() == 1 && has("brokers") {
        Shape::FailureDomain
    } else if !keys.is_empty()
        && keys.values().all(|k| {
            matches!(
                k,
                Kind::Object {
                    namespaces: true,
                    primary: true
                }
            )
        })
    {
        // A map of isolation policies (each value has `namespaces` and `primary`).
        Shape::IsolationPolicies
    } else if is("namespaces", array) && is("primary", array) {
        Shape::IsolationPolicy
    } else if broker_conf::is_dynamic_config(
        keys.iter()
            .map(|(k, v)| (k.as_ref(), matches!(v, Kind::Str(_)))),
    ) {
        Shape::DynamicConfig
    } else {
        Shape::Unknown
    }
}

/// What we accept, for "unrecognised content" errors.
pub(crate) const ACCEPTED: &str = "a LocalBrokerData load report, BundleData, TimeAverageBrokerData, \
BundlesData, namespace Policies, BrokerLoadData, TopBundlesLoadData, a leader, failure domain or \
isolation policies node, a topic list, broker.conf, an lbplan snapshot, or a .zip/.tar.gz/.tar of a \
metadata-store tree";

/// The kind of a top-level value, as [`peek`] saw it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind<'a> {
    Null,
    Bool,
    Number,
    Str(Cow<'a, str>),
    Array,
    /// An object, and whether it has `namespaces` and `primary` (an isolation policy's keys).
    Object {
        namespaces: bool,
        primary: bool,
    },
}

/// The outline of a JSON text, read without building it: an object's keys (each once, the later
/// value's kind kept) and the kinds of their values, or whether an array holds only strings.
#[derive(Debug)]
pub(crate) enum Peek<'a> {
    Object(IndexMap<Cow<'a, str>, Kind<'a>>),
    Array { all_strings: bool },
    Scalar,
}

impl<'a> Peek<'a> {
    /// The kind of `key`'s value, when the text is an object with that key.
    pub(crate) fn get(&self, key: &str) -> Option<&Kind<'a>> {
        match self {
            Peek::Object(keys) => keys.get(key),
            _ => None,
        }
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// Reads the outline of `text` (JSON starting with `{` or `[`); a syntax error is named by line
/// and column, as every reader names it.
pub(crate) fn peek<'a>(file: &str, text: &'a str) -> Result<Peek<'a>, ImportError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let out = (&mut de)
        .deserialize_any(PeekV(PhantomData))
        .and_then(|p| de.end().map(|()| p));
    out.map_err(|e| super::json::syntax_error(file, text, &e))
}

struct PeekV<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for PeekV<'a> {
    type Value = Peek<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Peek<'a>, A::Error> {
        let mut keys = IndexMap::new();
        while let Some(Key(k)) = map.next_key::<Key<'a>>()? {
            // A repeated key: the later value, in the first one's place (as a parsed tree).
            keys.insert(k, map.next_value::<KindOf<'a>>()?.0);
        }
        Ok(Peek::Object(keys))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Peek<'a>, A::Error> {
        let mut all_strings = true;
        while let Some(k) = seq.next_element::<KindOf<'a>>()? {
            all_strings &= matches!(k.0, Kind::Str(_));
        }
        Ok(Peek::Array { all_strings })
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Peek<'a>, E> {
        Ok(Peek::Scalar)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Peek<'a>, E> {
        Ok(Peek::Scalar)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Peek<'a>, E> {
        Ok(Peek::Scalar)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Peek<'a>, E> {
        Ok(Peek::Scalar)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Peek<'a>, E> {
        Ok(Peek::Scalar)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Peek<'a>, E> {
        Ok(Peek::Scalar)
    }
}

/// A value's [`Kind`]; an object's or array's contents are skipped unbuilt.
struct KindOf<'a>(Kind<'a>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for KindOf<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KindV(PhantomData)).map(KindOf)
    }
}

struct KindV<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for KindV<'a> {
    type Value = Kind<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Kind<'a>, E> {
        Ok(Kind::Bool)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Kind<'a>, E> {
        Ok(Kind::Number)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Kind<'a>, E> {
        Ok(Kind::Number)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Kind<'a>, E> {
        Ok(Kind::Number)
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Kind<'a>, E> {
        Ok(Kind::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Kind<'a>, E> {
        Ok(Kind::Str(Cow::Owned(s.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Kind<'a>, E> {
        Ok(Kind::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind<'a>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Kind::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind<'a>, A::Error> {
        let (mut namespaces, mut primary) = (false, false);
        while let Some(Key(k)) = map.next_key::<Key<'a>>()? {
            map.next_value::<IgnoredAny>()?;
            namespaces |= k == "namespaces";
            primary |= k == "primary";
        }
        Ok(Kind::Object {
            namespaces,
            primary,
        })
    }
}
