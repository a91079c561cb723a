//! The metric names a history is built from, as Pulsar exposes them on `/metrics` (internal
//! `brk_` names rewritten to `pulsar_` by `PrometheusMetricsGenerator.writeNameReplacingBrkPrefix`;
//! every one typed `gauge`, the `*_total` counters included). The same names at 3.0.17, 3.3.9,
//! 4.0.13, 4.1.3, 4.2.4 and master (`docs/research/pulsar-metrics-and-logs.md` §2–§4).

/// Each broker's resource usage, percent of its limit (`ResourceUsage.percentUsage()`), labels
/// `cluster, broker, metric="loadBalancing"`: the modular manager's `updateLoadBalancingMetrics`
/// and the extensible manager's `BrokerLoadData.toMetrics` write the same five.
pub const USAGE: [&str; 5] = [
    "pulsar_lb_cpu_usage",
    "pulsar_lb_memory_usage",
    "pulsar_lb_directMemory_usage",
    "pulsar_lb_bandwidth_in_usage",
    "pulsar_lb_bandwidth_out_usage",
];

/// Each bundle's stats as its owner reports them (`NamespaceBundleStats`), labels
/// `cluster, broker, bundle, metric="bundle"`; only with `exposeBundlesMetricsInPrometheus=true`
/// (default false), modular manager.
pub const BUNDLE: [&str; 7] = [
    "pulsar_bundle_msg_rate_in",
    "pulsar_bundle_msg_rate_out",
    "pulsar_bundle_msg_throughput_in",
    "pulsar_bundle_msg_throughput_out",
    "pulsar_bundle_topics_count",
    "pulsar_bundle_consumer_count",
    "pulsar_bundle_producer_count",
];

/// Topic-level rates, labels `cluster, namespace, topic` (`exposeTopicLevelMetricsInPrometheus`,
/// default true): summed per bundle after hashing each topic onto its namespace's bundles.
pub const TOPIC: [&str; 4] = [
    "pulsar_rate_in",
    "pulsar_rate_out",
    "pulsar_throughput_in",
    "pulsar_throughput_out",
];

/// The leader's own counters (modular: leader only, no `broker` label, counted since it became
/// leader; what `unload_bundle_total` counts changed in 4.0, apache/pulsar#22895: decisions
/// before, successful unloads since).
pub const UNLOADS: &str = "pulsar_lb_unload_bundle_total";
pub const SPLITS: &str = "pulsar_lb_bundles_split_total";

/// Prometheus' own scrape health: 0 at a step where the scrape of that target failed.
pub const UP: &str = "up";

/// Which of a broker's stats a metric carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Index into [`USAGE`].
    Usage(usize),
    /// Index into [`BUNDLE`].
    Bundle(usize),
    /// Index into [`TOPIC`].
    Topic(usize),
    Unloads,
    Splits,
    Up,
}

/// What `name` is, if it is one of ours.
pub fn field_of(name: &str) -> Option<Field> {
    if let Some(i) = USAGE.iter().position(|n| *n == name) {
        return Some(Field::Usage(i));
    }
    if let Some(i) = BUNDLE.iter().position(|n| *n == name) {
        return Some(Field::Bundle(i));
    }
    if let Some(i) = TOPIC.iter().position(|n| *n == name) {
        return Some(Field::Topic(i));
    }
    match name {
        UNLOADS => Some(Field::Unloads),
        SPLITS => Some(Field::Splits),
        UP => Some(Field::Up),
        _ => None,
    }
}

/// How topic metrics are used: per-topic rates hashed onto bundles only when the bundle metrics
/// are absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BundleSource {
    /// `pulsar_bundle_*` (`exposeBundlesMetricsInPrometheus=true`).
    BundleMetrics,
    /// `pulsar_rate_*` / `pulsar_throughput_*` per topic, hashed onto the namespace's bundles.
    TopicMetrics,
    /// Neither: brokers' usage only, no ownership.
    None,
}

/// Every metric name a history queries, in the order it queries them.
pub fn all() -> impl Iterator<Item = &'static str> {
    USAGE
        .iter()
        .chain(BUNDLE.iter())
        .chain(TOPIC.iter())
        .copied()
        .chain([UNLOADS, SPLITS, UP])
}

/// The PromQL of one metric over a range: its samples only while fresh (taken within the last
/// `fresh_s` seconds of each step), so a series that stopped (a bundle that moved away, with no
/// staleness marker, as after a backfill) is not read for the 5 minutes of Prometheus' lookback.
pub fn fresh_query(name: &str, fresh_s: i64) -> String {
    format!("{name} and (time() - timestamp({name}) < {fresh_s})")
}
