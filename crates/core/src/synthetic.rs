//! Deterministic synthetic clusters: realistic [`Snapshot`]s generated from a [`SyntheticSpec`] and a
//! seed, for the dashboard's demo cluster and for benchmarks.
//!
//! Everything derives from one seeded [`SplitMix64`] and uses only `+ − × ÷` and `round` on `f64`
//! (no `exp`/`powf`, whose last bit may differ between platforms), so the same (spec, seed) gives the
//! same bytes on every machine, natively and in wasm. The generated data is internally consistent the
//! way a live cluster's is: each broker's `lastStats` covers exactly the bundles it owns and its
//! message totals are their sums (`LocalBrokerData.update`), the leader's `TimeAverageBrokerData` is
//! the sum of the owned bundles' `BundleData`, cpu and NIC usage follow the broker's traffic, and the
//! bundles of every namespace tile its hash range (`PoliciesUtil.getBundles(n)` boundaries).

use indexmap::IndexMap;

use crate::config::MODULAR_LOAD_MANAGER;
use crate::model::{
    BrokerSnapshot, BundleData, BundlesData, LocalBrokerData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES,
    NamespaceBundleStats, NamespaceSnapshot, ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot,
    TimeAverageBrokerData, TimeAverageMessageData,
};
use crate::naming::BundleRange;
use crate::naming::default_boundaries;
use crate::rng::SplitMix64;

/// Seed of the committed demo snapshot (`static/demo-snapshot.json`).
pub const DEMO_SEED: u64 = 42;

/// A bundle's hash range when its namespace has a single bundle (heartbeat namespaces).
const FULL_RANGE: BundleRange = BundleRange::FULL;

/// Heartbeat traffic: the broker's health check writes and reads about one small message a second.
const HEARTBEAT_MSG_RATE: f64 = 1.0;
const HEARTBEAT_MSG_BYTES: f64 = 100.0;

/// Kilobits per second in one Gbps, as `loadBalancerOverrideBrokerNicSpeedGbps` converts (§1).
const KBPS_PER_GBPS: f64 = 1_000_000.0;
/// Each published byte is written to bookies this many times (write quorum), which leaves the
/// broker's NIC on top of what consumers read.
const BOOKIE_WRITE_QUORUM: f64 = 2.0;
/// Protocol framing on the wire, on top of the payload bytes.
const WIRE_OVERHEAD: f64 = 1.05;
/// Share of the cpu limit a broker with no traffic still uses (GC, metadata sessions, stats).
const IDLE_CPU_FRACTION: f64 = 0.03;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SyntheticError {
    #[error("a synthetic cluster needs at least one broker")]
    NoBrokers,
    #[error("namespace `{0}` is not of the form tenant/namespace")]
    BadNamespace(String),
    #[error("namespace `{0}` needs at least one bundle")]
    NoBundles(String),
    #[error("namespace `{0}` appears twice")]
    DuplicateNamespace(String),
    #[error("hot broker index {index} is out of range (the spec has {brokers} brokers)")]
    HotBrokerOutOfRange { index: u32, brokers: u32 },
    #[error("`{field}` must be a finite number >= 0, found {value}")]
    BadNumber { field: String, value: f64 },
}

/// One tenant namespace of a synthetic cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceSpec {
    /// `tenant/namespace`.
    pub name: String,
    /// Number of bundles, laid out with the default boundaries for that count.
    pub bundles: u32,
    /// Topics of the namespace, spread evenly over its bundles.
    pub topics: u32,
    /// Messages per second published into the whole namespace.
    pub msg_rate_in: f64,
    /// Average payload size in bytes.
    pub avg_msg_size_bytes: f64,
    /// Consumer fan-out: messages delivered per message published.
    pub fanout: f64,
}

/// A broker that receives more bundles than its fair share (the situation shedding exists for).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HotBroker {
    /// Index of the broker (0-based, in broker order).
    pub index: u32,
    /// Probability that a bundle is placed on the hot broker before the uniform pick.
    pub extra_bundle_fraction: f64,
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    pub cluster: String,
    pub brokers: u32,
    /// Cores per broker: the cpu limit is `100 × cores` (§1).
    pub cores_per_broker: u32,
    /// One NIC of this speed per broker; also written as `loadBalancerOverrideBrokerNicSpeedGbps`.
    pub nic_speed_gbps: u32,
    pub heap_mib: f64,
    pub direct_memory_mib: f64,
    pub web_service_port: u16,
    pub broker_version: String,
    pub namespaces: Vec<NamespaceSpec>,
    /// 0: the bundles of a namespace carry equal traffic; larger: a heavier tail of hot bundles.
    pub skew: f64,
    pub hot_broker: Option<HotBroker>,
    /// Average cpu use over the brokers, as a fraction of the limit; each broker scales with its
    /// traffic, so the hot broker ends above it.
    pub target_avg_cpu_fraction: f64,
    /// The snapshot's capture instant; report timestamps are a few seconds before it.
    pub captured_at_ms: i64,
}

impl SyntheticSpec {
    /// The dashboard's demo: 12 brokers, 3 tenants, 5 namespaces of 4 to 64 bundles, one hot broker.
    pub fn demo() -> Self {
        let ns =
            |name: &str, bundles, topics, msg_rate_in, avg_msg_size_bytes, fanout| NamespaceSpec {
                name: name.to_string(),
                bundles,
                topics,
                msg_rate_in,
                avg_msg_size_bytes,
                fanout,
            };
        Self {
            cluster: "demo".to_string(),
            brokers: 12,
            cores_per_broker: 8,
            nic_speed_gbps: 2,
            heap_mib: 4096.0,
            direct_memory_mib: 4096.0,
            web_service_port: 8080,
            broker_version: "4.0.7".to_string(),
            namespaces: vec![
                ns("acme/orders", 16, 400, 20_000.0, 1024.0, 2.0),
                ns("acme/payments", 8, 64, 5_000.0, 512.0, 3.0),
                ns("globex/telemetry", 64, 2_000, 60_000.0, 300.0, 1.0),
                ns("globex/clickstream", 32, 800, 30_000.0, 2048.0, 1.5),
                ns("initech/billing", 4, 20, 1_000.0, 4096.0, 2.0),
            ],
            skew: 1.0,
            hot_broker: Some(HotBroker {
                index: 4,
                extra_bundle_fraction: 0.15,
            }),
            target_avg_cpu_fraction: 0.35,
            // 2026-11-30T00:00:00Z: a fixed instant, so the demo never changes by itself.
            captured_at_ms: 1_796_083_200_000,
        }
    }

    /// A benchmark-sized cluster: 1,000 brokers and 200,000 bundles in total (1,000 namespaces of
    /// 199 bundles in 20 tenants, plus one heartbeat bundle per broker).
    pub fn large() -> Self {
        let mut namespaces = Vec::with_capacity(1_000);
        for t in 0..20 {
            for n in 0..50 {
                namespaces.push(NamespaceSpec {
                    name: format!("tenant-{t:02}/ns-{n:02}"),
                    bundles: 199,
                    topics: 796,
                    msg_rate_in: 10_000.0,
                    avg_msg_size_bytes: 1024.0,
                    fanout: 1.5,
                });
            }
        }
        Self {
            cluster: "large".to_string(),
            brokers: 1_000,
            cores_per_broker: 16,
            nic_speed_gbps: 10,
            heap_mib: 8192.0,
            direct_memory_mib: 8192.0,
            web_service_port: 8080,
            broker_version: "4.0.7".to_string(),
            namespaces,
            skew: 1.0,
            hot_broker: Some(HotBroker {
                index: 0,
                extra_bundle_fraction: 0.001,
            }),
            target_avg_cpu_fraction: 0.4,
            captured_at_ms: 1_796_083_200_000,
        }
    }

    /// The spec for a name accepted by `lbplan generate --spec`.
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "demo" => Some(Self::demo()),
            "large" => Some(Self::large()),
            _ => None,
        }
    }

    fn validate(&self) -> Result<(), SyntheticError> {
        if self.brokers == 0 {
            return Err(SyntheticError::NoBrokers);
        }
        if let Some(hot) = self.hot_broker {
            if hot.index >= self.brokers {
                return Err(SyntheticError::HotBrokerOutOfRange {
                    index: hot.index,
                    brokers: self.brokers,
                });
            }
            check_number(
                "hot_broker.extra_bundle_fraction",
                hot.extra_bundle_fraction,
            )?;
        }
        check_number("skew", self.skew)?;
        check_number("heap_mib", self.heap_mib)?;
        check_number("direct_memory_mib", self.direct_memory_mib)?;
        check_number("target_avg_cpu_fraction", self.target_avg_cpu_fraction)?;
        let mut seen = std::collections::HashSet::new();
        for ns in &self.namespaces {
            let mut parts = ns.name.split('/');
            let well_formed = matches!(
                (parts.next(), parts.next(), parts.next()),
                (Some(t), Some(n), None) if !t.is_empty() && !n.is_empty()
            );
            if !well_formed {
                return Err(SyntheticError::BadNamespace(ns.name.clone()));
            }
            if ns.bundles == 0 {
                return Err(SyntheticError::NoBundles(ns.name.clone()));
            }
            if !seen.insert(ns.name.as_str()) {
                return Err(SyntheticError::DuplicateNamespace(ns.name.clone()));
            }
            check_number("msg_rate_in", ns.msg_rate_in)?;
            check_number("avg_msg_size_bytes", ns.avg_msg_size_bytes)?;
            check_number("fanout", ns.fanout)?;
        }
        Ok(())
    }
}

fn check_number(field: &str, value: f64) -> Result<(), SyntheticError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(SyntheticError::BadNumber {
            field: field.to_string(),
            value,
        })
    }
}

/// Rounds to 3 decimals: keeps the JSON readable; `round` is exact, so this stays deterministic.
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A factor uniform in `[1 − spread, 1 + spread)`: the noise of a live measurement.
fn jitter(rng: &mut SplitMix64, spread: f64) -> f64 {
    1.0 - spread + 2.0 * spread * rng.next_f64()
}

/// Per-bundle "base" traffic before measurement noise.
#[derive(Clone, Copy)]
struct BaseTraffic {
    msg_rate_in: f64,
    msg_rate_out: f64,
    msg_size_bytes: f64,
    topics: u32,
    producers: i64,
    consumers: i64,
}

impl BaseTraffic {
    fn sample(&self, factor: f64) -> NamespaceBundleStats {
        let rate_in = round3(self.msg_rate_in * factor);
        let rate_out = round3(self.msg_rate_out * factor);
        NamespaceBundleStats {
            msg_rate_in: rate_in,
            msg_throughput_in: round3(rate_in * self.msg_size_bytes),
            msg_rate_out: rate_out,
            msg_throughput_out: round3(rate_out * self.msg_size_bytes),
            consumer_count: self.consumers,
            producer_count: self.producers,
            topics: i64::from(self.topics),
            // Roughly one second of ingress kept in the managed-ledger cache.
            cache_size: (rate_in * self.msg_size_bytes).round() as i64,
        }
    }

    /// A steady-state moving average (window full) around the base rates.
    fn window(&self, factor: f64, max_samples: i32) -> TimeAverageMessageData {
        let s = self.sample(factor);
        TimeAverageMessageData {
            max_samples,
            num_samples: max_samples,
            msg_throughput_in: s.msg_throughput_in,
            msg_throughput_out: s.msg_throughput_out,
            msg_rate_in: s.msg_rate_in,
            msg_rate_out: s.msg_rate_out,
        }
    }
}

/// One generated bundle before it is filed under its broker.
struct GeneratedBundle {
    name: String,
    owner: usize,
    stats: NamespaceBundleStats,
    data: BundleData,
}

/// Generates the snapshot of `spec` with `seed`. Same inputs, same snapshot, on every platform.
pub fn generate(spec: &SyntheticSpec, seed: u64) -> Result<Snapshot, SyntheticError> {
    spec.validate()?;
    let mut rng = SplitMix64::new(seed);
    let broker_count = spec.brokers as usize;
    let width = digits(spec.brokers.saturating_sub(1)).max(2);
    let hosts: Vec<String> = (0..spec.brokers)
        .map(|i| format!("broker-{i:0width$}.{}.svc", spec.cluster))
        .collect();
    let broker_ids: Vec<String> = hosts
        .iter()
        .map(|h| format!("{h}:{}", spec.web_service_port))
        .collect();

    let mut namespaces = IndexMap::new();
    let mut bundles: Vec<GeneratedBundle> = Vec::new();

    for ns in &spec.namespaces {
        let Some(boundaries) = default_boundaries(ns.bundles) else {
            return Err(SyntheticError::NoBundles(ns.name.clone()));
        };
        namespaces.insert(ns.name.clone(), namespace_snapshot(&boundaries));

        // Heavy-tailed traffic weights: 1 + 8·skew·u⁴ (mean 1 + 1.6·skew, max 1 + 8·skew).
        let n = ns.bundles as usize;
        let weights: Vec<f64> = (0..n)
            .map(|_| {
                let u = rng.next_f64();
                1.0 + 8.0 * spec.skew * u * u * u * u
            })
            .collect();
        let total_weight: f64 = weights.iter().sum();
        let per_bundle_topics = ns.topics / ns.bundles;
        let extra_topics = ns.topics % ns.bundles;

        for (i, (pair, weight)) in boundaries.windows(2).zip(&weights).enumerate() {
            let [lo, hi] = pair else { continue };
            let range = BundleRange { lo: *lo, hi: *hi };
            let topics = per_bundle_topics + u32::from((i as u32) < extra_topics);
            let share = if topics > 0 && total_weight > 0.0 {
                weight / total_weight
            } else {
                0.0
            };
            let msg_rate_in = ns.msg_rate_in * share;
            let base = BaseTraffic {
                msg_rate_in,
                msg_rate_out: msg_rate_in * ns.fanout,
                msg_size_bytes: ns.avg_msg_size_bytes,
                topics,
                producers: i64::from(topics),
                consumers: (f64::from(topics) * ns.fanout).round() as i64,
            };
            let owner = pick_owner(&mut rng, spec, broker_count);
            bundles.push(make_bundle(
                &mut rng,
                format!("{}/{range}", ns.name),
                owner,
                &base,
            ));
        }
    }

    // Heartbeat namespaces after the tenants': `pulsar/<host:port>`, one bundle, always on their own
    // broker.
    for (owner, id) in broker_ids.iter().enumerate() {
        let ns_name = format!("pulsar/{id}");
        namespaces.insert(ns_name.clone(), namespace_snapshot(&[0, u32::MAX]));
        let base = BaseTraffic {
            msg_rate_in: HEARTBEAT_MSG_RATE,
            msg_rate_out: HEARTBEAT_MSG_RATE,
            msg_size_bytes: HEARTBEAT_MSG_BYTES,
            topics: 1,
            producers: 1,
            consumers: 1,
        };
        bundles.push(make_bundle(
            &mut rng,
            format!("{ns_name}/{FULL_RANGE}"),
            owner,
            &base,
        ));
    }

    // File every bundle under its owner, in generation order.
    let mut last_stats: Vec<IndexMap<String, NamespaceBundleStats>> =
        vec![IndexMap::new(); broker_count];
    let mut bundle_data = IndexMap::with_capacity(bundles.len());
    for b in bundles {
        if let Some(stats) = last_stats.get_mut(b.owner) {
            stats.insert(b.name.clone(), b.stats);
        }
        bundle_data.insert(b.name, b.data);
    }

    let brokers = build_brokers(
        spec,
        &mut rng,
        &hosts,
        &broker_ids,
        last_stats,
        &bundle_data,
    );

    let mut broker_conf = IndexMap::new();
    broker_conf.insert(
        "loadBalancerOverrideBrokerNicSpeedGbps".to_string(),
        spec.nic_speed_gbps.to_string(),
    );
    Ok(Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        cluster: Some(spec.cluster.clone()),
        captured_at_ms: Some(spec.captured_at_ms),
        leader_broker: broker_ids.first().cloned(),
        broker_conf,
        brokers,
        bundle_data,
        namespaces,
        // No failure domains, isolation policies or recent unloads: a plain cluster.
        ..Snapshot::default()
    })
}

/// The demo cluster (`SyntheticSpec::demo()` with [`DEMO_SEED`]).
pub fn demo() -> Result<Snapshot, SyntheticError> {
    generate(&SyntheticSpec::demo(), DEMO_SEED)
}

/// The exact text `lbplan generate` writes: pretty JSON and a final newline.
pub fn to_json(snapshot: &Snapshot) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(snapshot)?;
    text.push('\n');
    Ok(text)
}

fn digits(mut n: u32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

fn namespace_snapshot(boundaries: &[u32]) -> NamespaceSnapshot {
    NamespaceSnapshot {
        bundles: BundlesData {
            boundaries: boundaries.iter().map(|b| format!("0x{b:08x}")).collect(),
            num_bundles: i32::try_from(boundaries.len().saturating_sub(1)).unwrap_or(i32::MAX),
        },
        anti_affinity_group: None,
        topics: None,
    }
}

fn pick_owner(rng: &mut SplitMix64, spec: &SyntheticSpec, broker_count: usize) -> usize {
    if let Some(hot) = spec.hot_broker
        && rng.next_f64() < hot.extra_bundle_fraction
    {
        return hot.index as usize;
    }
    rng.below(broker_count)
}

fn make_bundle(
    rng: &mut SplitMix64,
    name: String,
    owner: usize,
    base: &BaseTraffic,
) -> GeneratedBundle {
    let stats = base.sample(jitter(rng, 0.1));
    let data = BundleData {
        short_term_data: base.window(jitter(rng, 0.05), NUM_SHORT_SAMPLES),
        long_term_data: base.window(jitter(rng, 0.15), NUM_LONG_SAMPLES),
        topics: i32::try_from(base.topics).unwrap_or(i32::MAX),
    };
    GeneratedBundle {
        name,
        owner,
        stats,
        data,
    }
}

/// Builds each broker's report and the leader's aggregate from the bundles it owns.
fn build_brokers(
    spec: &SyntheticSpec,
    rng: &mut SplitMix64,
    hosts: &[String],
    broker_ids: &[String],
    last_stats: Vec<IndexMap<String, NamespaceBundleStats>>,
    bundle_data: &IndexMap<String, BundleData>,
) -> IndexMap<String, BrokerSnapshot> {
    let cpu_limit = 100.0 * f64::from(spec.cores_per_broker);
    let nic_limit_kbps = f64::from(spec.nic_speed_gbps) * KBPS_PER_GBPS;

    // Cpu follows the work a broker does: messages handled plus bytes moved.
    let cost = |stats: &IndexMap<String, NamespaceBundleStats>| -> f64 {
        stats
            .values()
            .map(|s| s.msg_rate_in + s.msg_rate_out + (s.total_msg_throughput()) / 65_536.0)
            .sum()
    };
    let costs: Vec<f64> = last_stats.iter().map(cost).collect();
    let mean_cost = costs.iter().sum::<f64>() / costs.len().max(1) as f64;
    let idle_cpu = IDLE_CPU_FRACTION * cpu_limit;
    let busy_cpu = (spec.target_avg_cpu_fraction * cpu_limit - idle_cpu).max(0.0);

    let mut brokers = IndexMap::with_capacity(broker_ids.len());
    for ((stats, (host, id)), cost) in last_stats
        .into_iter()
        .zip(hosts.iter().zip(broker_ids))
        .zip(costs)
    {
        let mut local = LocalBrokerData {
            web_service_url: Some(format!("http://{host}:{}", spec.web_service_port)),
            pulsar_service_url: Some(format!("pulsar://{host}:6650")),
            broker_version_string: Some(spec.broker_version.clone()),
            load_manager_class_name: Some(MODULAR_LOAD_MANAGER.to_string()),
            ..LocalBrokerData::default()
        };
        local.set_last_stats(stats);

        let relative = if mean_cost > 0.0 {
            cost / mean_cost
        } else {
            0.0
        };
        let cpu = (idle_cpu + busy_cpu * relative * jitter(rng, 0.05)).min(0.99 * cpu_limit);
        let kbps = |bytes_per_sec: f64| bytes_per_sec * 8.0 / 1000.0 * WIRE_OVERHEAD;
        let bandwidth_in = kbps(local.msg_throughput_in);
        let bandwidth_out =
            kbps(local.msg_throughput_out + BOOKIE_WRITE_QUORUM * local.msg_throughput_in);
        local.cpu = ResourceUsage::new(round3(cpu), cpu_limit);
        local.memory = ResourceUsage::new(
            round3(spec.heap_mib * (0.35 + 0.3 * rng.next_f64())),
            spec.heap_mib,
        );
        local.direct_memory = ResourceUsage::new(
            round3(spec.direct_memory_mib * (0.2 + 0.3 * rng.next_f64())),
            spec.direct_memory_mib,
        );
        local.bandwidth_in = ResourceUsage::new(round3(bandwidth_in), nic_limit_kbps);
        local.bandwidth_out = ResourceUsage::new(round3(bandwidth_out), nic_limit_kbps);
        local.last_update = spec.captured_at_ms - below_i64(rng, 5_000);
        local.start_timestamp =
            Some(spec.captured_at_ms - 3 * 86_400_000 - below_i64(rng, 86_400_000));

        let time_average = TimeAverageBrokerData::from_bundles(
            local.bundles.iter().map(String::as_str),
            bundle_data,
        );
        brokers.insert(
            id.clone(),
            BrokerSnapshot {
                local_broker_data: local,
                time_average_broker_data: Some(time_average),
                broker_load_data: None,
                top_bundles_load_data: None,
            },
        );
    }
    brokers
}

fn below_i64(rng: &mut SplitMix64, n: u32) -> i64 {
    i64::try_from(rng.below(n as usize)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::naming::parse_bundle_name;

    const DEMO_FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../static/demo-snapshot.json"
    );

    fn small_spec() -> SyntheticSpec {
        SyntheticSpec {
            brokers: 3,
            namespaces: vec![NamespaceSpec {
                name: "t/ns".to_string(),
                bundles: 3,
                topics: 7,
                msg_rate_in: 300.0,
                avg_msg_size_bytes: 100.0,
                fanout: 2.0,
            }],
            hot_broker: None,
            ..SyntheticSpec::demo()
        }
    }

    #[test]
    fn demo_matches_committed_file() {
        let expected = std::fs::read_to_string(DEMO_FILE)
            .unwrap_or_else(|e| panic!("cannot read {DEMO_FILE}: {e}"));
        let generated = to_json(&demo().unwrap()).unwrap();
        assert!(
            generated == expected,
            "static/demo-snapshot.json is stale: regenerate it with \
             `cargo run -p lbplan -- generate --spec demo --seed {DEMO_SEED} -o static/demo-snapshot.json`"
        );
    }

    #[test]
    fn demo_has_the_documented_shape() {
        let snap = demo().unwrap();
        assert_eq!(snap.brokers.len(), 12);
        let tenants: std::collections::BTreeSet<&str> = snap
            .namespaces
            .keys()
            .filter(|n| !n.starts_with("pulsar/"))
            .filter_map(|n| n.split('/').next())
            .collect();
        assert_eq!(tenants.len(), 3);
        let user: Vec<i32> = snap
            .namespaces
            .iter()
            .filter(|(n, _)| !n.starts_with("pulsar/"))
            .map(|(_, ns)| ns.bundles.num_bundles)
            .collect();
        assert_eq!(user.len(), 5);
        assert!(user.iter().all(|n| (4..=64).contains(n)));
        // 12 heartbeat bundles + 16 + 8 + 64 + 32 + 4.
        assert_eq!(snap.bundle_data.len(), 12 + 124);
        for id in snap.brokers.keys() {
            let hb = format!("pulsar/{id}/0x00000000_0xffffffff");
            assert!(snap.brokers[id].local_broker_data.bundles.contains(&hb));
        }
        let version = snap.brokers[0]
            .local_broker_data
            .broker_version_string
            .as_deref();
        assert_eq!(version, Some("4.0.7"));
    }

    #[test]
    fn demo_hot_broker_is_the_most_loaded() {
        let snap = demo().unwrap();
        let w = crate::units::ResourceWeights::PULSAR_DEFAULT;
        let usage: Vec<f64> = snap
            .brokers
            .values()
            .map(|b| b.local_broker_data.max_resource_usage_with_weight(&w))
            .collect();
        let hot = usage[4];
        assert!(usage.iter().all(|u| *u <= hot), "{usage:?}");
        let mean = usage.iter().sum::<f64>() / usage.len() as f64;
        // Enough above the mean for ThresholdShedder's default 10 % band to fire.
        assert!(hot > mean + 0.1, "hot {hot} mean {mean}");
        assert!(hot < 1.0);
    }

    #[test]
    fn same_seed_same_snapshot_other_seed_differs() {
        let a = generate(&SyntheticSpec::demo(), 7).unwrap();
        let b = generate(&SyntheticSpec::demo(), 7).unwrap();
        let c = generate(&SyntheticSpec::demo(), 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    fn check_invariants(snap: &Snapshot) {
        // Bundles tile each namespace: layout boundaries match the bundle names, no gap, no overlap.
        let mut by_ns: BTreeMap<String, Vec<BundleRange>> = BTreeMap::new();
        for name in snap.bundle_data.keys() {
            let b = parse_bundle_name(name).unwrap();
            by_ns.entry(b.namespace).or_default().push(b.range);
        }
        assert_eq!(by_ns.len(), snap.namespaces.len());
        for (ns, mut ranges) in by_ns {
            ranges.sort();
            let layout = &snap.namespaces[&ns].bundles;
            assert_eq!(layout.num_bundles as usize, ranges.len(), "{ns}");
            assert_eq!(ranges.first().unwrap().lo, 0, "{ns}");
            assert_eq!(ranges.last().unwrap().hi, u32::MAX, "{ns}");
            for w in ranges.windows(2) {
                assert_eq!(w[0].hi, w[1].lo, "{ns}: gap or overlap");
            }
            let mut bounds: Vec<String> =
                ranges.iter().map(|r| format!("0x{:08x}", r.lo)).collect();
            bounds.push("0xffffffff".to_string());
            assert_eq!(layout.boundaries, bounds, "{ns}");
        }

        // Every bundle is owned by exactly one broker, and every owned bundle has BundleData.
        let mut owners: BTreeMap<&str, usize> = BTreeMap::new();
        for b in snap.brokers.values() {
            let local = &b.local_broker_data;
            assert_eq!(
                local.bundles,
                local.last_stats.keys().cloned().collect::<Vec<_>>()
            );
            for name in &local.bundles {
                *owners.entry(name.as_str()).or_default() += 1;
                assert!(
                    snap.bundle_data.contains_key(name),
                    "{name} has no BundleData"
                );
            }
        }
        assert_eq!(owners.len(), snap.bundle_data.len());
        assert!(owners.values().all(|n| *n == 1));

        // Sums match: the report's totals are its lastStats sums; the leader's aggregate is the sum
        // of the owned bundles' BundleData.
        for b in snap.brokers.values() {
            let local = &b.local_broker_data;
            let sum = |f: fn(&NamespaceBundleStats) -> f64| -> f64 {
                local.last_stats.values().map(f).sum()
            };
            assert_eq!(local.msg_rate_in, sum(|s| s.msg_rate_in));
            assert_eq!(local.msg_rate_out, sum(|s| s.msg_rate_out));
            assert_eq!(local.msg_throughput_in, sum(|s| s.msg_throughput_in));
            assert_eq!(local.msg_throughput_out, sum(|s| s.msg_throughput_out));
            let topics: i64 = local.last_stats.values().map(|s| s.topics).sum();
            assert_eq!(local.num_topics, topics);
            assert_eq!(local.num_bundles as usize, local.bundles.len());
            let expected = TimeAverageBrokerData::from_bundles(
                local.bundles.iter().map(String::as_str),
                &snap.bundle_data,
            );
            assert_eq!(b.time_average_broker_data, Some(expected));
            // Usage is consistent with traffic: within its limits, ingress on the NIC ≥ payload.
            assert!(local.cpu.usage > 0.0 && local.cpu.usage < local.cpu.limit);
            assert!(local.bandwidth_in.usage * 1000.0 / 8.0 >= local.msg_throughput_in);
            assert!(local.bandwidth_out.usage >= local.bandwidth_in.usage);
        }

        // BundleData topics equal the reported topics of the same bundle.
        for b in snap.brokers.values() {
            for (name, s) in &b.local_broker_data.last_stats {
                assert_eq!(i64::from(snap.bundle_data[name].topics), s.topics);
            }
        }
    }

    #[test]
    fn demo_invariants_hold() {
        check_invariants(&demo().unwrap());
    }

    #[test]
    fn invariants_hold_for_other_seeds_and_shapes() {
        for seed in 0..5 {
            check_invariants(&generate(&small_spec(), seed).unwrap());
        }
        let mut odd = small_spec();
        odd.namespaces[0].bundles = 5; // not a power of two: the last bundle is a little larger
        odd.namespaces[0].topics = 2; // fewer topics than bundles: idle bundles
        check_invariants(&generate(&odd, 1).unwrap());
    }

    #[test]
    fn topics_spread_over_bundles() {
        let snap = generate(&small_spec(), 3).unwrap();
        let topics: Vec<i32> = snap
            .bundle_data
            .iter()
            .filter(|(n, _)| n.starts_with("t/ns/"))
            .map(|(_, d)| d.topics)
            .collect();
        assert_eq!(topics, vec![3, 2, 2]);
    }

    #[test]
    fn bad_specs_are_rejected() {
        let mut s = small_spec();
        s.brokers = 0;
        assert_eq!(generate(&s, 0), Err(SyntheticError::NoBrokers));
        let mut s = small_spec();
        s.namespaces[0].bundles = 0;
        assert!(matches!(generate(&s, 0), Err(SyntheticError::NoBundles(_))));
        let mut s = small_spec();
        s.namespaces[0].name = "no-slash".to_string();
        assert!(matches!(
            generate(&s, 0),
            Err(SyntheticError::BadNamespace(_))
        ));
        let mut s = small_spec();
        s.hot_broker = Some(HotBroker {
            index: 3,
            extra_bundle_fraction: 0.5,
        });
        assert!(matches!(
            generate(&s, 0),
            Err(SyntheticError::HotBrokerOutOfRange { .. })
        ));
        let mut s = small_spec();
        s.skew = f64::NAN;
        assert!(matches!(
            generate(&s, 0),
            Err(SyntheticError::BadNumber { .. })
        ));
    }

    #[test]
    fn large_spec_has_the_documented_size() {
        let s = SyntheticSpec::large();
        let user: u32 = s.namespaces.iter().map(|n| n.bundles).sum();
        assert_eq!(s.brokers, 1_000);
        assert_eq!(user + s.brokers, 200_000);
    }
}
