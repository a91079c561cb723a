//! `LocalBrokerData` (a broker's load report: `pulsar-admin broker-stats load-report`,
//! `GET /admin/v2/broker-stats/load-report`, `/loadbalance/brokers/<broker>`) and the extensible load
//! manager's `BrokerLookupData` registration found at the same node.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::diag::{ImportError, WarningKind};
use super::fields::{bundle_name, bundle_stats, resources};
use super::json::{Ctx, JPath, field};
use crate::model::LocalBrokerData;

/// Every property `LocalBrokerData` serializes (§2.3), including those the model drops
/// (`protocols`, `advertisedListeners`, derived `maxResourceUsage`, `loadReportType`).
const KNOWN: &[&str] = &[
    "brokerId",
    "webServiceUrl",
    "webServiceUrlTls",
    "pulsarServiceUrl",
    "pulsarServiceUrlTls",
    "persistentTopicsEnabled",
    "nonPersistentTopicsEnabled",
    "cpu",
    "memory",
    "directMemory",
    "bandwidthIn",
    "bandwidthOut",
    "msgThroughputIn",
    "msgThroughputOut",
    "msgRateIn",
    "msgRateOut",
    "lastUpdate",
    "lastStats",
    "numTopics",
    "numBundles",
    "numConsumers",
    "numProducers",
    "bundles",
    "lastBundleGains",
    "lastBundleLosses",
    "brokerVersionString",
    "protocols",
    "advertisedListeners",
    "loadManagerClassName",
    "startTimestamp",
    "maxResourceUsage",
    "loadReportType",
    // Serialized by 2.x brokers (a copy of `lastStats`), excluded since; read and ignored.
    "bundleStats",
];

/// `BrokerLookupData` properties (extensible registration; no load figures).
const LOOKUP_KNOWN: &[&str] = &[
    "webServiceUrl",
    "webServiceUrlTls",
    "pulsarServiceUrl",
    "pulsarServiceUrlTls",
    "advertisedListeners",
    "protocols",
    "persistentTopicsEnabled",
    "nonPersistentTopicsEnabled",
    "loadManagerClassName",
    "startTimestamp",
    "brokerVersion",
    "properties",
    "serviceUrl",
    "serviceUrlTls",
    "brokerId",
];

/// Whether an object looks like a `BrokerLookupData` rather than a load report: URLs but no load.
pub(crate) fn is_lookup_data(m: &Map<String, Value>) -> bool {
    m.contains_key("brokerVersion")
        || (m.contains_key("webServiceUrl")
            && ![
                "cpu",
                "lastStats",
                "lastUpdate",
                "msgRateIn",
                "numBundles",
                "bundles",
            ]
            .iter()
            .any(|k| m.contains_key(*k)))
}

/// A parsed report. Bundle names in `data` are already canonical (`0x%08x` lower case).
pub(crate) struct BrokerReport {
    pub broker_id: Option<String>,
    pub data: LocalBrokerData,
}

pub(crate) fn parse_local_broker_data(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<BrokerReport, ImportError> {
    let m = ctx.object(v, p, "a LocalBrokerData load report")?;
    ctx.check_known(m, KNOWN, p);
    if let Some(t) = field(m, "loadReportType") {
        let t = ctx.string(t, &p.key("loadReportType"))?;
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
    let opt_str = |ctx: &Ctx<'_>, key: &str| -> Result<Option<String>, ImportError> {
        field(m, key)
            .map(|v| ctx.string(v, &p.key(key)).map(str::to_string))
            .transpose()
    };
    let broker_id = opt_str(ctx, "brokerId")?;
    d.broker_id = broker_id.clone();
    d.web_service_url = opt_str(ctx, "webServiceUrl")?;
    d.web_service_url_tls = opt_str(ctx, "webServiceUrlTls")?;
    d.pulsar_service_url = opt_str(ctx, "pulsarServiceUrl")?;
    d.pulsar_service_url_tls = opt_str(ctx, "pulsarServiceUrlTls")?;
    d.broker_version_string = opt_str(ctx, "brokerVersionString")?;
    d.load_manager_class_name = opt_str(ctx, "loadManagerClassName")?;
    if let Some(v) = field(m, "persistentTopicsEnabled") {
        d.persistent_topics_enabled = ctx.boolean(v, &p.key("persistentTopicsEnabled"))?;
    }
    if let Some(v) = field(m, "nonPersistentTopicsEnabled") {
        d.non_persistent_topics_enabled = ctx.boolean(v, &p.key("nonPersistentTopicsEnabled"))?;
    }
    let [cpu, memory, direct, bw_in, bw_out] = resources(ctx, m, p)?;
    d.cpu = cpu;
    d.memory = memory;
    d.direct_memory = direct;
    d.bandwidth_in = bw_in;
    d.bandwidth_out = bw_out;
    let num = |ctx: &Ctx<'_>, key: &str| -> Result<f64, ImportError> {
        field(m, key).map_or(Ok(0.0), |v| ctx.non_negative(v, &p.key(key)))
    };
    d.msg_throughput_in = num(ctx, "msgThroughputIn")?;
    d.msg_throughput_out = num(ctx, "msgThroughputOut")?;
    d.msg_rate_in = num(ctx, "msgRateIn")?;
    d.msg_rate_out = num(ctx, "msgRateOut")?;
    // `maxResourceUsage` is a derived getter that Pulsar ignores on read; only its type is checked.
    if let Some(v) = field(m, "maxResourceUsage") {
        ctx.number(v, &p.key("maxResourceUsage"))?;
    }
    let int = |ctx: &Ctx<'_>, key: &str| -> Result<i64, ImportError> {
        field(m, key).map_or(Ok(0), |v| ctx.non_negative_i64(v, &p.key(key)))
    };
    d.last_update = int(ctx, "lastUpdate")?;
    d.num_topics = int(ctx, "numTopics")?;
    d.num_bundles = int(ctx, "numBundles")?;
    d.num_consumers = int(ctx, "numConsumers")?;
    d.num_producers = int(ctx, "numProducers")?;
    if let Some(v) = field(m, "startTimestamp") {
        d.start_timestamp = Some(ctx.non_negative_i64(v, &p.key("startTimestamp"))?);
    }
    if let Some(v) = field(m, "lastStats") {
        let pl = p.key("lastStats");
        let stats = ctx.object(v, &pl, "a map of bundle name to NamespaceBundleStats")?;
        let mut out = IndexMap::with_capacity(stats.len());
        for (name, s) in stats {
            let pb = pl.key(name);
            let canonical = bundle_name(ctx, name, &pb)?.to_string();
            let s = bundle_stats(ctx, s, &pb)?;
            if out.insert(canonical.clone(), s).is_some() {
                return Err(ctx.err(
                    &pb,
                    format!("bundle {canonical} appears twice (names differ only in spelling)"),
                ));
            }
        }
        d.last_stats = out;
    }
    for (key, slot) in [
        ("bundles", &mut d.bundles),
        ("lastBundleGains", &mut d.last_bundle_gains),
        ("lastBundleLosses", &mut d.last_bundle_losses),
    ] {
        if let Some(v) = field(m, key) {
            let pk = p.key(key);
            let arr = ctx.array(v, &pk)?;
            let mut out = Vec::with_capacity(arr.len());
            for (i, item) in arr.iter().enumerate() {
                let pi = pk.index(i);
                let text = ctx.string(item, &pi)?;
                out.push(bundle_name(ctx, text, &pi)?.to_string());
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

/// What [`check_consistency`] warns about, as `(field, message)` (the fast path needs none).
pub(crate) fn consistency_issues(d: &LocalBrokerData) -> Vec<(&'static str, String)> {
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

/// `BrokerLookupData`: the broker is registered (live) but no load figures are known.
pub(crate) fn parse_lookup_data(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<BrokerReport, ImportError> {
    let m = ctx.object(v, p, "a BrokerLookupData registration")?;
    ctx.check_known(m, LOOKUP_KNOWN, p);
    let mut d = LocalBrokerData::default();
    let s = |ctx: &Ctx<'_>, key: &str| -> Result<Option<String>, ImportError> {
        field(m, key)
            .map(|v| ctx.string(v, &p.key(key)).map(str::to_string))
            .transpose()
    };
    d.web_service_url = s(ctx, "webServiceUrl")?;
    d.web_service_url_tls = s(ctx, "webServiceUrlTls")?;
    d.pulsar_service_url = s(ctx, "pulsarServiceUrl")?;
    d.pulsar_service_url_tls = s(ctx, "pulsarServiceUrlTls")?;
    d.broker_version_string = s(ctx, "brokerVersion")?;
    d.load_manager_class_name = s(ctx, "loadManagerClassName")?;
    if let Some(v) = field(m, "startTimestamp") {
        d.start_timestamp = Some(ctx.non_negative_i64(v, &p.key("startTimestamp"))?);
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
