//! `LocalBrokerData` (a broker's load report: `pulsar-admin broker-stats load-report`,
//! `GET /admin/v2/broker-stats/load-report`, `/loadbalance/brokers/<broker>`) and the extensible load
//! manager's `BrokerLookupData` registration found at the same node.

use indexmap::IndexMap;
use serde::de::IgnoredAny;

use super::diag::{ImportError, WarningKind};
use super::fields::{RawResourceField, RawStats, bundle_stats, canonical_bundle_name, resources};
use super::json::{Ctx, JPath};
use super::typed::{self, Entries, Leaf, List, Object, Unknown, json_object};
use crate::model::LocalBrokerData;

/// A `LocalBrokerData` as read: every property it serializes (§2.3), including those the model
/// drops (`protocols`, `advertisedListeners`, derived `maxResourceUsage`, `loadReportType`, and
/// `bundleStats`, a copy of `lastStats` 2.x brokers wrote), in Pulsar's order.
#[derive(Default)]
pub(crate) struct RawLocalBrokerData<'a> {
    broker_id: Option<Leaf<'a>>,
    web_service_url: Option<Leaf<'a>>,
    web_service_url_tls: Option<Leaf<'a>>,
    pulsar_service_url: Option<Leaf<'a>>,
    pulsar_service_url_tls: Option<Leaf<'a>>,
    persistent_topics_enabled: Option<Leaf<'a>>,
    non_persistent_topics_enabled: Option<Leaf<'a>>,
    cpu: RawResourceField<'a>,
    memory: RawResourceField<'a>,
    direct_memory: RawResourceField<'a>,
    bandwidth_in: RawResourceField<'a>,
    bandwidth_out: RawResourceField<'a>,
    msg_throughput_in: Option<Leaf<'a>>,
    msg_throughput_out: Option<Leaf<'a>>,
    msg_rate_in: Option<Leaf<'a>>,
    msg_rate_out: Option<Leaf<'a>>,
    last_update: Option<Leaf<'a>>,
    last_stats: Option<Object<'a, Entries<'a, Object<'a, RawStats<'a>>>>>,
    num_topics: Option<Leaf<'a>>,
    num_bundles: Option<Leaf<'a>>,
    num_consumers: Option<Leaf<'a>>,
    num_producers: Option<Leaf<'a>>,
    bundles: Option<List<'a, Leaf<'a>>>,
    last_bundle_gains: Option<List<'a, Leaf<'a>>>,
    last_bundle_losses: Option<List<'a, Leaf<'a>>>,
    broker_version_string: Option<Leaf<'a>>,
    load_manager_class_name: Option<Leaf<'a>>,
    start_timestamp: Option<Leaf<'a>>,
    max_resource_usage: Option<Leaf<'a>>,
    load_report_type: Option<Leaf<'a>>,
    /// Known properties the model does not keep, skipped unread.
    dropped: Option<IgnoredAny>,
    unknown: Unknown<'a>,
}

json_object!(RawLocalBrokerData, "a LocalBrokerData load report", {
    "brokerId" => broker_id,
    "webServiceUrl" => web_service_url,
    "webServiceUrlTls" => web_service_url_tls,
    "pulsarServiceUrl" => pulsar_service_url,
    "pulsarServiceUrlTls" => pulsar_service_url_tls,
    "persistentTopicsEnabled" => persistent_topics_enabled,
    "nonPersistentTopicsEnabled" => non_persistent_topics_enabled,
    "cpu" => cpu,
    "memory" => memory,
    "directMemory" => direct_memory,
    "bandwidthIn" => bandwidth_in,
    "bandwidthOut" => bandwidth_out,
    "msgThroughputIn" => msg_throughput_in,
    "msgThroughputOut" => msg_throughput_out,
    "msgRateIn" => msg_rate_in,
    "msgRateOut" => msg_rate_out,
    "lastUpdate" => last_update,
    "lastStats" => last_stats,
    "numTopics" => num_topics,
    "numBundles" => num_bundles,
    "numConsumers" => num_consumers,
    "numProducers" => num_producers,
    "bundles" => bundles,
    "lastBundleGains" => last_bundle_gains,
    "lastBundleLosses" => last_bundle_losses,
    "brokerVersionString" => broker_version_string,
    "protocols" => dropped,
    "advertisedListeners" => dropped,
    "loadManagerClassName" => load_manager_class_name,
    "startTimestamp" => start_timestamp,
    "maxResourceUsage" => max_resource_usage,
    "loadReportType" => load_report_type,
    "bundleStats" => dropped,
}, unknown: unknown);

/// A `BrokerLookupData` as read (extensible registration; no load figures).
#[derive(Default)]
pub(crate) struct RawLookupData<'a> {
    web_service_url: Option<Leaf<'a>>,
    web_service_url_tls: Option<Leaf<'a>>,
    pulsar_service_url: Option<Leaf<'a>>,
    pulsar_service_url_tls: Option<Leaf<'a>>,
    broker_version: Option<Leaf<'a>>,
    load_manager_class_name: Option<Leaf<'a>>,
    start_timestamp: Option<Leaf<'a>>,
    /// Known properties the model does not keep, skipped unread.
    dropped: Option<IgnoredAny>,
    unknown: Unknown<'a>,
}

json_object!(RawLookupData, "a BrokerLookupData registration", {
    "webServiceUrl" => web_service_url,
    "webServiceUrlTls" => web_service_url_tls,
    "pulsarServiceUrl" => pulsar_service_url,
    "pulsarServiceUrlTls" => pulsar_service_url_tls,
    "advertisedListeners" => dropped,
    "protocols" => dropped,
    "persistentTopicsEnabled" => dropped,
    "nonPersistentTopicsEnabled" => dropped,
    "loadManagerClassName" => load_manager_class_name,
    "startTimestamp" => start_timestamp,
    "brokerVersion" => broker_version,
    "properties" => dropped,
    "serviceUrl" => dropped,
    "serviceUrlTls" => dropped,
    "brokerId" => dropped,
}, unknown: unknown);

/// Load fields a `LocalBrokerData` has and a `BrokerLookupData` does not.
pub(crate) const LOAD_KEYS: [&str; 6] = [
    "cpu",
    "lastStats",
    "lastUpdate",
    "msgRateIn",
    "numBundles",
    "bundles",
];

/// Whether an object with these keys is a `BrokerLookupData` rather than a load report: URLs but no
/// load.
pub(crate) fn is_lookup_data(mut has: impl FnMut(&str) -> bool) -> bool {
    has("brokerVersion") || (has("webServiceUrl") && !LOAD_KEYS.iter().any(|k| has(k)))
}

/// A parsed report. Bundle names in `data` are already canonical (`0x%08x` lower case).
pub(crate) struct BrokerReport {
    pub broker_id: Option<String>,
    pub data: LocalBrokerData,
}

/// A `LocalBrokerData`, read from its text.
pub(crate) fn local_broker_data_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<BrokerReport, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check_local_broker_data(ctx, raw, &JPath::ROOT)
}

fn opt_string(
    ctx: &Ctx<'_>,
    x: Option<Leaf<'_>>,
    p: &JPath<'_>,
    key: &str,
) -> Result<Option<String>, ImportError> {
    x.map(|x| x.string(ctx, &p.key(key)).map(str::to_string))
        .transpose()
}

/// The checks on a `LocalBrokerData` read at `p`.
pub(crate) fn check_local_broker_data(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawLocalBrokerData<'_>>,
    p: &JPath<'_>,
) -> Result<BrokerReport, ImportError> {
    let m = raw.get(ctx, p, "a LocalBrokerData load report")?;
    m.unknown.warn(ctx, p);
    if let Some(t) = &m.load_report_type {
        let t = t.string(ctx, &p.key("loadReportType"))?;
        if t != "LocalBrokerData" {
            return Err(ctx.err(
                &p.key("loadReportType"),
                format!(
                    "expected \"LocalBrokerData\", found \"{t}\" (the legacy SimpleLoadManager \
                     LoadReport is not supported)"
                ),
            ));
        }
    }
    let mut d = LocalBrokerData::default();
    let broker_id = opt_string(ctx, m.broker_id, p, "brokerId")?;
    d.broker_id = broker_id.clone();
    d.web_service_url = opt_string(ctx, m.web_service_url, p, "webServiceUrl")?;
    d.web_service_url_tls = opt_string(ctx, m.web_service_url_tls, p, "webServiceUrlTls")?;
    d.pulsar_service_url = opt_string(ctx, m.pulsar_service_url, p, "pulsarServiceUrl")?;
    d.pulsar_service_url_tls = opt_string(ctx, m.pulsar_service_url_tls, p, "pulsarServiceUrlTls")?;
    d.broker_version_string = opt_string(ctx, m.broker_version_string, p, "brokerVersionString")?;
    d.load_manager_class_name =
        opt_string(ctx, m.load_manager_class_name, p, "loadManagerClassName")?;
    if let Some(v) = m.persistent_topics_enabled {
        d.persistent_topics_enabled = ctx.boolean(&v.value(), &p.key("persistentTopicsEnabled"))?;
    }
    if let Some(v) = m.non_persistent_topics_enabled {
        d.non_persistent_topics_enabled =
            ctx.boolean(&v.value(), &p.key("nonPersistentTopicsEnabled"))?;
    }
    resources(
        ctx,
        [
            m.cpu,
            m.memory,
            m.direct_memory,
            m.bandwidth_in,
            m.bandwidth_out,
        ],
        p,
        &mut d,
    )?;
    let num = |ctx: &Ctx<'_>, x: Option<Leaf<'_>>, key: &str| -> Result<f64, ImportError> {
        x.map_or(Ok(0.0), |v| ctx.non_negative(&v.value(), &p.key(key)))
    };
    d.msg_throughput_in = num(ctx, m.msg_throughput_in, "msgThroughputIn")?;
    d.msg_throughput_out = num(ctx, m.msg_throughput_out, "msgThroughputOut")?;
    d.msg_rate_in = num(ctx, m.msg_rate_in, "msgRateIn")?;
    d.msg_rate_out = num(ctx, m.msg_rate_out, "msgRateOut")?;
    // `maxResourceUsage` is a derived getter that Pulsar ignores on read; only its type is checked.
    if let Some(v) = m.max_resource_usage {
        ctx.number(&v.value(), &p.key("maxResourceUsage"))?;
    }
    let int = |ctx: &Ctx<'_>, x: Option<Leaf<'_>>, key: &str| -> Result<i64, ImportError> {
        x.map_or(Ok(0), |v| ctx.non_negative_i64(&v.value(), &p.key(key)))
    };
    d.last_update = int(ctx, m.last_update, "lastUpdate")?;
    d.num_topics = int(ctx, m.num_topics, "numTopics")?;
    d.num_bundles = int(ctx, m.num_bundles, "numBundles")?;
    d.num_consumers = int(ctx, m.num_consumers, "numConsumers")?;
    d.num_producers = int(ctx, m.num_producers, "numProducers")?;
    if let Some(v) = m.start_timestamp {
        d.start_timestamp = Some(ctx.non_negative_i64(&v.value(), &p.key("startTimestamp"))?);
    }
    if let Some(v) = m.last_stats {
        let pl = p.key("lastStats");
        let stats = v.get(ctx, &pl, "a map of bundle name to NamespaceBundleStats")?;
        let mut out = IndexMap::with_capacity(stats.0.len());
        for (name, s) in stats.0 {
            let pb = pl.key(&name);
            let canonical = canonical_bundle_name(ctx, &name, &pb)?;
            let s = bundle_stats(ctx, s, &pb)?;
            match out.entry(canonical) {
                indexmap::map::Entry::Vacant(slot) => {
                    slot.insert(s);
                }
                indexmap::map::Entry::Occupied(slot) => {
                    return Err(ctx.err(
                        &pb,
                        format!(
                            "bundle {} appears twice (names differ only in spelling)",
                            slot.key()
                        ),
                    ));
                }
            }
        }
        d.last_stats = out;
    }
    for (key, list, slot) in [
        ("bundles", m.bundles, &mut d.bundles),
        (
            "lastBundleGains",
            m.last_bundle_gains,
            &mut d.last_bundle_gains,
        ),
        (
            "lastBundleLosses",
            m.last_bundle_losses,
            &mut d.last_bundle_losses,
        ),
    ] {
        if let Some(list) = list {
            let pk = p.key(key);
            let arr = list.get(ctx, &pk)?;
            let mut out = Vec::with_capacity(arr.len());
            for (i, item) in arr.iter().enumerate() {
                let pi = pk.index(i);
                let text = item.string(ctx, &pi)?;
                out.push(canonical_bundle_name(ctx, text, &pi)?);
            }
            *slot = out;
        }
    }
    check_consistency(ctx, &d, p);
    Ok(BrokerReport { broker_id, data: d })
}

/// Warns (never fails) when a report's totals disagree with its per-bundle stats: the leader uses
/// the totals as reported, so they are kept.
fn check_consistency(ctx: &mut Ctx<'_>, d: &LocalBrokerData, p: &JPath<'_>) {
    for (key, message) in consistency_issues(d) {
        ctx.warn(WarningKind::InconsistentReport, &p.key(key), message);
    }
}

/// What [`check_consistency`] warns about, as `(field, message)`.
pub(super) fn consistency_issues(d: &LocalBrokerData) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if d.last_stats.is_empty() && d.bundles.is_empty() {
        return out;
    }
    let n = d.last_stats.len() as i64;
    if d.num_bundles != n {
        out.push((
            "numBundles",
            format!(
                "numBundles is {} but lastStats has {n} bundles (kept as reported)",
                d.num_bundles
            ),
        ));
    }
    let listed: rustc_hash::FxHashSet<&str> = d.bundles.iter().map(String::as_str).collect();
    if listed.len() != d.last_stats.len()
        || d.last_stats.keys().any(|k| !listed.contains(k.as_str()))
    {
        out.push((
            "bundles",
            "bundles and the keys of lastStats differ; the broker is taken to own both".to_string(),
        ));
    }
    let (mut r_in, mut r_out, mut t_in, mut t_out) = (0.0, 0.0, 0.0, 0.0);
    for s in d.last_stats.values() {
        r_in += s.msg_rate_in;
        r_out += s.msg_rate_out;
        t_in += s.msg_throughput_in;
        t_out += s.msg_throughput_out;
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0);
    for (key, reported, summed) in [
        ("msgRateIn", d.msg_rate_in, r_in),
        ("msgRateOut", d.msg_rate_out, r_out),
        ("msgThroughputIn", d.msg_throughput_in, t_in),
        ("msgThroughputOut", d.msg_throughput_out, t_out),
    ] {
        if !close(reported, summed) {
            out.push((
                key,
                format!("{key} is {reported} but lastStats sums to {summed} (kept as reported)"),
            ));
        }
    }
    out
}

/// A `BrokerLookupData`, read from its text.
pub(crate) fn lookup_data_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<BrokerReport, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check_lookup_data(ctx, raw, &JPath::ROOT)
}

/// `BrokerLookupData`: the broker is registered (live) but no load figures are known.
pub(crate) fn check_lookup_data(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawLookupData<'_>>,
    p: &JPath<'_>,
) -> Result<BrokerReport, ImportError> {
    let m = raw.get(ctx, p, "a BrokerLookupData registration")?;
    m.unknown.warn(ctx, p);
    let mut d = LocalBrokerData {
        web_service_url: opt_string(ctx, m.web_service_url, p, "webServiceUrl")?,
        web_service_url_tls: opt_string(ctx, m.web_service_url_tls, p, "webServiceUrlTls")?,
        pulsar_service_url: opt_string(ctx, m.pulsar_service_url, p, "pulsarServiceUrl")?,
        pulsar_service_url_tls: opt_string(
            ctx,
            m.pulsar_service_url_tls,
            p,
            "pulsarServiceUrlTls",
        )?,
        broker_version_string: opt_string(ctx, m.broker_version, p, "brokerVersion")?,
        load_manager_class_name: opt_string(
            ctx,
            m.load_manager_class_name,
            p,
            "loadManagerClassName",
        )?,
        ..Default::default()
    };
    if let Some(v) = m.start_timestamp {
        d.start_timestamp = Some(ctx.non_negative_i64(&v.value(), &p.key("startTimestamp"))?);
    }
    ctx.warn(
        WarningKind::MissingResource,
        p,
        "BrokerLookupData registration (extensible load manager): the broker is live but its load \
         comes only from BrokerLoadData, if given",
    );
    Ok(BrokerReport {
        broker_id: None,
        data: d,
    })
}

#[cfg(test)]
mod tests {
    //! Unknown keys of the broker reports become warnings naming their JSON path, at every level
    //! (the report, a resource, a bundle's stats, a top-bundles entry).

    use crate::import::{ImportInput, WarningKind, import};

    fn unknown(inputs: &[ImportInput<'_>]) -> Vec<String> {
        let out = import(inputs).unwrap();
        out.warnings
            .iter()
            .filter(|w| w.kind == WarningKind::UnknownField)
            .map(|w| {
                format!(
                    "{} {}: {}",
                    w.file,
                    w.at.clone().unwrap_or_default(),
                    w.message
                )
            })
            .collect()
    }

    #[test]
    fn local_broker_data_and_lookup_data() {
        let report = r#"{"lastUpdate": 1, "x": 1, "cpu": {"usage": 1, "limit": 100, "y": 2},
            "lastStats": {"t/ns/0x00000000_0xffffffff": {"msgRateIn": 1, "z": 3}},
            "bundles": ["t/ns/0x00000000_0xffffffff"], "numBundles": 1, "msgRateIn": 1}"#;
        let lookup = r#"{"webServiceUrl": "http://b2:8080", "brokerVersion": "4.0.0", "w": 0}"#;
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", report.as_bytes()),
            ImportInput::in_tree("loadbalance/brokers/b2:8080", lookup.as_bytes()),
        ];
        assert_eq!(
            unknown(&inputs),
            [
                "loadbalance/brokers/b1:8080 $: unknown field `x` ignored",
                "loadbalance/brokers/b1:8080 $.cpu: unknown field `y` ignored",
                "loadbalance/brokers/b1:8080 $.lastStats[\"t/ns/0x00000000_0xffffffff\"]: \
                 unknown field `z` ignored",
                "loadbalance/brokers/b2:8080 $: unknown field `w` ignored",
            ]
        );
    }

    #[test]
    fn broker_load_data_and_top_bundles() {
        let report = r#"{"lastUpdate": 1, "cpu": {"usage": 1, "limit": 100}}"#;
        let load = r#"{"cpu": {"usage": 1, "limit": 100}, "bundleCount": 1, "v": 1}"#;
        let top = r#"{"topBundlesLoadData": [{"bundleName": "t/ns/0x00000000_0xffffffff",
            "stats": {"topics": 1, "s": 1}, "e": 1}], "u": 1}"#;
        let inputs = [
            ImportInput::in_tree("b1:8080.json", report.as_bytes()),
            ImportInput::in_tree("load/b1:8080.json", load.as_bytes()),
            ImportInput::in_tree("top/b1:8080.json", top.as_bytes()),
        ];
        assert_eq!(
            unknown(&inputs),
            [
                "load/b1:8080.json $: unknown field `v` ignored",
                "top/b1:8080.json $: unknown field `u` ignored",
                "top/b1:8080.json $.topBundlesLoadData[0]: unknown field `e` ignored",
                "top/b1:8080.json $.topBundlesLoadData[0].stats: unknown field `s` ignored",
            ]
        );
    }
}
