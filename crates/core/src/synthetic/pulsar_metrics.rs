//! The load-balancing metrics a cluster's brokers would have exposed on `/metrics`, rendered from
//! a snapshot: what a test (or a demo Prometheus) backfills to have a Prometheus history of a
//! simulated cluster. Names, labels and types as Pulsar writes them
//! (`PrometheusMetricsGenerator.parseMetricsToPrometheusMetrics`, modular load manager, every
//! release 3.0–master): `# TYPE … gauge` for every LB metric, the `*_total` counters included;
//! labels `cluster` first, then the `Metrics` dimensions sorted by key; `pulsar_lb_*_usage` in
//! percent (`ResourceUsage.percentUsage()`, an f32); `pulsar_bundle_*` only with
//! `exposeBundlesMetricsInPrometheus=true`; the leader's unload counter without a `broker` label.
//!
//! Two forms: [`broker_page`] is one broker's page as Pulsar prints it (labels joined by `", "`,
//! optional millisecond timestamps, Prometheus' 0.0.4 text format); [`OpenMetricsWriter`] is what
//! Prometheus would have stored after scraping every broker (`instance` = the brokerId, `job`
//! added), in OpenMetrics for `promtool tsdb create-blocks-from openmetrics`: labels joined by `,`
//! (its lexer allows no blank inside `{…}`), timestamps in seconds, `# EOF` at the end.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::model::{LocalBrokerData, NamespaceBundleStats, Snapshot};

/// What a page holds besides the brokers' usage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricsOptions {
    /// `exposeBundlesMetricsInPrometheus=true`: each owned bundle's `pulsar_bundle_*`.
    pub expose_bundles: bool,
    /// The leader's `pulsar_lb_unload_bundle_total` at this instant (shown by the leader only).
    pub leader_unloads: Option<u64>,
}

/// One sample before it is written: name, labels after `cluster`, value text.
struct Sample {
    name: &'static str,
    labels: Vec<(&'static str, String)>,
    value: String,
}

/// `pulsar.getAdvertisedAddress()`: the brokerId's host.
fn advertised_host(broker_id: &str) -> &str {
    match broker_id.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => host,
        _ => broker_id,
    }
}

/// Java's `String.valueOf(float)` reads back to the same f32; Rust's shortest form does too.
fn percent_text(p: f64) -> String {
    format!("{}", p as f32)
}

fn usage_samples(broker_id: &str, l: &LocalBrokerData) -> Vec<Sample> {
    // One `Metrics` object: its names in sorted order (a TreeMap), dimensions broker, metric.
    let dims = || {
        vec![
            ("broker", advertised_host(broker_id).to_string()),
            ("metric", "loadBalancing".to_string()),
        ]
    };
    [
        ("pulsar_lb_bandwidth_in_usage", l.bandwidth_in),
        ("pulsar_lb_bandwidth_out_usage", l.bandwidth_out),
        ("pulsar_lb_cpu_usage", l.cpu),
        ("pulsar_lb_directMemory_usage", l.direct_memory),
        ("pulsar_lb_memory_usage", l.memory),
    ]
    .into_iter()
    .map(|(name, r)| Sample {
        name,
        labels: dims(),
        value: percent_text(r.percent_usage()),
    })
    .collect()
}

fn bundle_samples(broker_id: &str, bundle: &str, s: &NamespaceBundleStats) -> Vec<Sample> {
    let dims = || {
        vec![
            ("broker", advertised_host(broker_id).to_string()),
            ("bundle", bundle.to_string()),
            ("metric", "bundle".to_string()),
        ]
    };
    [
        ("pulsar_bundle_consumer_count", s.consumer_count.to_string()),
        ("pulsar_bundle_msg_rate_in", format!("{}", s.msg_rate_in)),
        ("pulsar_bundle_msg_rate_out", format!("{}", s.msg_rate_out)),
        (
            "pulsar_bundle_msg_throughput_in",
            format!("{}", s.msg_throughput_in),
        ),
        (
            "pulsar_bundle_msg_throughput_out",
            format!("{}", s.msg_throughput_out),
        ),
        ("pulsar_bundle_producer_count", s.producer_count.to_string()),
        ("pulsar_bundle_topics_count", s.topics.to_string()),
    ]
    .into_iter()
    .map(|(name, value)| Sample {
        name,
        labels: dims(),
        value,
    })
    .collect()
}

/// Everything `broker_id` exposes in `snapshot` (nothing for a broker not in it).
fn samples(snapshot: &Snapshot, broker_id: &str, opts: &MetricsOptions) -> Vec<Sample> {
    let Some(b) = snapshot.brokers.get(broker_id) else {
        return Vec::new();
    };
    let l = &b.local_broker_data;
    let mut out = Vec::new();
    // `getLoadBalancingMetrics`: the bundle metrics first, then the broker's usage.
    if opts.expose_bundles {
        for (bundle, stats) in &l.last_stats {
            out.extend(bundle_samples(broker_id, bundle, stats));
        }
    }
    out.extend(usage_samples(broker_id, l));
    let leader = snapshot.leader_broker.as_deref() == Some(broker_id);
    if let (true, Some(n)) = (leader, opts.leader_unloads) {
        out.push(Sample {
            name: "pulsar_lb_unload_bundle_total",
            labels: vec![("metric", "bundleUnloading".to_string())],
            value: n.to_string(),
        });
    }
    out
}

/// One broker's `/metrics` LB block as Pulsar prints it, each sample stamped `at_ms` when given.
pub fn broker_page(
    snapshot: &Snapshot,
    broker_id: &str,
    opts: &MetricsOptions,
    at_ms: Option<i64>,
) -> String {
    let cluster = snapshot.cluster.as_deref().unwrap_or("");
    let mut typed = BTreeSet::new();
    let mut out = String::new();
    for s in samples(snapshot, broker_id, opts) {
        if typed.insert(s.name) {
            let _ = writeln!(out, "# TYPE {} gauge", s.name);
        }
        let _ = write!(out, "{}{{cluster=\"{cluster}\"", s.name);
        for (k, v) in &s.labels {
            let _ = write!(out, ", {k}=\"{v}\"");
        }
        let _ = write!(out, "}} {}", s.value);
        if let Some(t) = at_ms {
            let _ = write!(out, " {t}");
        }
        out.push('\n');
    }
    out
}

/// Escapes a label value for OpenMetrics (`\`, `"`, newline).
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The OpenMetrics text of a series of snapshots as Prometheus stored it: push them in time order.
#[derive(Debug)]
pub struct OpenMetricsWriter {
    job: String,
    opts: MetricsOptions,
    typed: BTreeSet<&'static str>,
    out: String,
}

impl OpenMetricsWriter {
    /// `job`: the scrape job's name, as Prometheus labels every series of the targets.
    pub fn new(job: &str, opts: MetricsOptions) -> Self {
        Self {
            job: job.to_string(),
            opts,
            typed: BTreeSet::new(),
            out: String::new(),
        }
    }

    /// The leader's counter for the next snapshots pushed.
    pub fn set_leader_unloads(&mut self, n: Option<u64>) {
        self.opts.leader_unloads = n;
    }

    /// Every broker's samples at the snapshot's capture time (a snapshot without one is skipped).
    pub fn push(&mut self, snapshot: &Snapshot) {
        let Some(at_ms) = snapshot.captured_at_ms else {
            return;
        };
        let cluster = escape(snapshot.cluster.as_deref().unwrap_or(""));
        let seconds = format!("{}.{:03}", at_ms.div_euclid(1000), at_ms.rem_euclid(1000));
        for id in snapshot.brokers.keys() {
            let instance = escape(id);
            for s in samples(snapshot, id, &self.opts) {
                if self.typed.insert(s.name) {
                    let _ = writeln!(self.out, "# TYPE {} gauge", s.name);
                }
                let _ = write!(self.out, "{}{{cluster=\"{cluster}\"", s.name);
                for (k, v) in &s.labels {
                    let _ = write!(self.out, ",{k}=\"{}\"", escape(v));
                }
                let _ = writeln!(
                    self.out,
                    ",instance=\"{instance}\",job=\"{}\"}} {} {seconds}",
                    escape(&self.job),
                    s.value
                );
            }
        }
    }

    /// The text, ended by `# EOF` as OpenMetrics requires.
    pub fn finish(mut self) -> String {
        self.out.push_str("# EOF\n");
        self.out
    }
}

/// The leader's unloads between two snapshots of a recorded series: bundles newly in the
/// recently-unloaded list (or unloaded again), what `pulsar_lb_unload_bundle_total` counts.
pub fn unloads_between(before: &Snapshot, after: &Snapshot) -> u64 {
    after
        .recently_unloaded_bundles
        .iter()
        .filter(|(b, t)| before.recently_unloaded_bundles.get(*b) != Some(*t))
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, ResourceUsage};

    fn one_broker() -> Snapshot {
        let mut l = LocalBrokerData {
            cpu: ResourceUsage::new(632.8, 800.0),
            ..LocalBrokerData::default()
        };
        let mut stats = indexmap::IndexMap::new();
        stats.insert(
            "t/n/0x00000000_0xffffffff".to_string(),
            NamespaceBundleStats {
                msg_rate_in: 12.5,
                topics: 3,
                ..NamespaceBundleStats::default()
            },
        );
        l.set_last_stats(stats);
        let mut s = Snapshot {
            cluster: Some("c1".into()),
            captured_at_ms: Some(1_700_000_060_000),
            leader_broker: Some("broker-1.example:8080".into()),
            ..Snapshot::default()
        };
        s.brokers.insert(
            "broker-1.example:8080".into(),
            BrokerSnapshot {
                local_broker_data: l,
                ..BrokerSnapshot::default()
            },
        );
        s
    }

    #[test]
    fn a_page_as_pulsar_prints_it() {
        let s = one_broker();
        let page = broker_page(
            &s,
            "broker-1.example:8080",
            &MetricsOptions {
                expose_bundles: false,
                leader_unloads: Some(3),
            },
            None,
        );
        // The shape of the research notes' example (§1.2, 4.0.13): `, ` separators, host only.
        assert!(page.starts_with(
            "# TYPE pulsar_lb_bandwidth_in_usage gauge\n\
             pulsar_lb_bandwidth_in_usage{cluster=\"c1\", broker=\"broker-1.example\", \
             metric=\"loadBalancing\"} 0\n"
        ));
        assert!(page.contains(
            "pulsar_lb_cpu_usage{cluster=\"c1\", broker=\"broker-1.example\", \
             metric=\"loadBalancing\"} 79.1\n"
        ));
        assert!(page.ends_with(
            "# TYPE pulsar_lb_unload_bundle_total gauge\n\
             pulsar_lb_unload_bundle_total{cluster=\"c1\", metric=\"bundleUnloading\"} 3\n"
        ));
    }

    #[test]
    fn openmetrics_for_promtool() {
        let s = one_broker();
        let mut w = OpenMetricsWriter::new(
            "pulsar",
            MetricsOptions {
                expose_bundles: true,
                leader_unloads: None,
            },
        );
        w.push(&s);
        w.push(&Snapshot {
            captured_at_ms: Some(1_700_000_120_000),
            ..s.clone()
        });
        let text = w.finish();
        assert!(text.ends_with("# EOF\n"));
        assert_eq!(
            text.matches("# TYPE pulsar_bundle_msg_rate_in gauge")
                .count(),
            1
        );
        assert!(text.contains(
            "pulsar_bundle_msg_rate_in{cluster=\"c1\",broker=\"broker-1.example\",\
             bundle=\"t/n/0x00000000_0xffffffff\",metric=\"bundle\",\
             instance=\"broker-1.example:8080\",job=\"pulsar\"} 12.5 1700000120.000\n"
        ));
        assert!(!text.contains(", "));
    }
}
