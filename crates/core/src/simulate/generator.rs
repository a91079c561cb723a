//! Deterministic synthetic snapshots for simulations (`builtin:demo`, `builtin:pr-16059`,
//! `builtin:bench`): brokers with equal hardware, bundles whose message rate and message size vary
//! independently (so a broker's message rate says little about its NIC usage), and a few brokers
//! that start with a larger share of bundles. Same spec, same bytes.

use indexmap::IndexMap;

use crate::model::{
    BrokerSnapshot, BundleData, BundlesData, LocalBrokerData, NamespaceBundleStats,
    NamespaceSnapshot, ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageMessageData,
};
use crate::naming::{BundleRange, default_boundaries};
use crate::rng::SplitMix64;

/// NIC speed of every synthetic broker: 10 Gbps in Kbps.
const NIC_LIMIT_KBPS: f64 = 10_000_000.0;
/// 16 cores, in percent-of-a-core.
const CPU_LIMIT: f64 = 1600.0;
const CPU_IDLE: f64 = 80.0;
/// CPU tracks NIC out at this fraction of its percentage, so the NIC is the binding resource.
const CPU_FRACTION_OF_NIC: f64 = 0.7;
const KBPS_PER_BYTE: f64 = 8.0 / 1000.0;
const MIB: f64 = 1024.0 * 1024.0;

#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorSpec {
    pub brokers: usize,
    pub namespaces: usize,
    pub bundles_per_namespace: u32,
    pub seed: u64,
    /// Brokers `0..hot_brokers` start with `hot_share` times the others' share of bundles.
    pub hot_brokers: usize,
    pub hot_share: f64,
    /// Message sizes are log-uniform in `[min_msg_bytes, max_msg_bytes]`.
    pub min_msg_bytes: f64,
    pub max_msg_bytes: f64,
    /// Traffic is scaled so the average broker's NIC-out usage is this fraction.
    pub mean_usage_fraction: f64,
    /// No bundle carries more than this (in + out), to stay under the auto-split bandwidth limit.
    pub max_bundle_mib_per_sec: f64,
    pub broker_version: String,
}

impl GeneratorSpec {
    /// A small cluster: 20 brokers, 640 bundles, 3 brokers start hot.
    pub fn demo() -> Self {
        Self {
            brokers: 20,
            namespaces: 40,
            bundles_per_namespace: 16,
            seed: 1,
            hot_brokers: 3,
            hot_share: 2.5,
            min_msg_bytes: 256.0,
            max_msg_bytes: 64.0 * 1024.0,
            mean_usage_fraction: 0.45,
            max_bundle_mib_per_sec: 80.0,
            broker_version: "4.0.5".to_string(),
        }
    }

    /// The situation of apache/pulsar#16059 / PIP-181: 136 brokers, 4,352 bundles with message
    /// sizes from 200 B to 200 KB, 14 brokers starting with twice the bundles of the others.
    pub fn pr_16059() -> Self {
        Self {
            brokers: 136,
            namespaces: 68,
            bundles_per_namespace: 64,
            seed: 16059,
            hot_brokers: 14,
            hot_share: 2.0,
            min_msg_bytes: 200.0,
            max_msg_bytes: 200.0 * 1024.0,
            mean_usage_fraction: 0.45,
            max_bundle_mib_per_sec: 80.0,
            broker_version: "4.0.5".to_string(),
        }
    }

    /// The benchmark size: 100 brokers and 10,000 bundles (625 namespaces of 16).
    pub fn bench() -> Self {
        Self {
            brokers: 100,
            namespaces: 625,
            bundles_per_namespace: 16,
            seed: 7,
            hot_brokers: 10,
            hot_share: 2.0,
            ..Self::demo()
        }
    }
}

/// `builtin:NAME` snapshots by name.
pub fn builtin_snapshot(name: &str) -> Option<Snapshot> {
    let spec = match name {
        "demo" => GeneratorSpec::demo(),
        "pr-16059" => GeneratorSpec::pr_16059(),
        "bench" => GeneratorSpec::bench(),
        _ => return None,
    };
    Some(generate(&spec))
}

pub const BUILTIN_SNAPSHOTS: &[&str] = &["demo", "pr-16059", "bench"];

/// How a built-in snapshot is written where a snapshot is expected (a CLI argument, a scenario's
/// `snapshot`, the JS API's `snapshot`).
pub const BUILTIN_PREFIX: &str = "builtin:";

/// A `builtin:NAME` reference that names no built-in snapshot.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "unknown built-in snapshot `{reference}` (expected {})",
    builtin_snapshot_references()
)]
pub struct UnknownBuiltinSnapshot {
    pub reference: String,
}

/// `builtin:demo, builtin:pr-16059, builtin:bench`.
pub fn builtin_snapshot_references() -> String {
    BUILTIN_SNAPSHOTS
        .iter()
        .map(|n| format!("{BUILTIN_PREFIX}{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The NAME of a `builtin:NAME` reference; `None` when the text is not one (a file, an object).
pub fn builtin_snapshot_name(reference: &str) -> Option<&str> {
    reference.strip_prefix(BUILTIN_PREFIX)
}

/// Resolves a `builtin:NAME` reference to its snapshot. Text without the prefix is `Ok(None)`: the
/// caller reads it as whatever else it accepts (a path, an object).
pub fn resolve_builtin_snapshot(
    reference: &str,
) -> Result<Option<Snapshot>, UnknownBuiltinSnapshot> {
    match builtin_snapshot_name(reference) {
        None => Ok(None),
        Some(name) => builtin_snapshot(name)
            .map(Some)
            .ok_or_else(|| UnknownBuiltinSnapshot {
                reference: reference.escape_default().to_string(),
            }),
    }
}

fn log_uniform(rng: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    let (lo, hi) = (lo.max(1e-9), hi.max(lo.max(1e-9)));
    libm::exp(libm::log(lo) + rng.next_f64() * (libm::log(hi) - libm::log(lo)))
}

pub fn broker_name(i: usize) -> String {
    format!("broker-{i:04}.pulsar.svc:8080")
}

pub fn generate(spec: &GeneratorSpec) -> Snapshot {
    let mut rng = SplitMix64::new(spec.seed);
    let brokers = spec.brokers.max(1);
    let weights: Vec<f64> = (0..brokers)
        .map(|i| {
            if i < spec.hot_brokers {
                spec.hot_share.max(0.0)
            } else {
                1.0
            }
        })
        .collect();
    let total_weight: f64 = weights.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let boundaries = default_boundaries(spec.bundles_per_namespace.max(1)).unwrap_or_default();

    // Bundles: (name, stats before scaling, owner).
    let mut raw: Vec<(String, NamespaceBundleStats, usize)> = Vec::new();
    let mut snapshot = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        cluster: Some("synthetic".to_string()),
        captured_at_ms: Some(1_750_000_000_000),
        leader_broker: Some(broker_name(0)),
        ..Snapshot::default()
    };
    for n in 0..spec.namespaces {
        let ns = format!("tenant-{}/ns-{n:04}", n % 10);
        for w in boundaries.windows(2) {
            let (Some(&lo), Some(&hi)) = (w.first(), w.get(1)) else {
                continue;
            };
            let name = format!("{ns}/{}", BundleRange { lo, hi });
            let rate_in = log_uniform(&mut rng, 20.0, 2000.0);
            let size = log_uniform(&mut rng, spec.min_msg_bytes, spec.max_msg_bytes);
            let fanout = 1.0 + rng.below(3) as f64;
            let stats = NamespaceBundleStats {
                msg_rate_in: rate_in,
                msg_throughput_in: rate_in * size,
                msg_rate_out: rate_in * fanout,
                msg_throughput_out: rate_in * size * fanout,
                consumer_count: 1 + rng.below(20) as i64,
                producer_count: 1 + rng.below(10) as i64,
                topics: 2 + rng.below(30) as i64,
                cache_size: 0,
            };
            // Weighted owner choice.
            let mut x = rng.next_f64() * total_weight;
            let mut owner = brokers - 1;
            for (i, w) in weights.iter().enumerate() {
                if x < *w {
                    owner = i;
                    break;
                }
                x -= w;
            }
            raw.push((name, stats, owner));
        }
        snapshot.namespaces.insert(
            ns.clone(),
            NamespaceSnapshot {
                bundles: BundlesData {
                    boundaries: boundaries.iter().map(|b| format!("0x{b:08x}")).collect(),
                    num_bundles: i32::try_from(boundaries.len().saturating_sub(1)).unwrap_or(0),
                },
                ..NamespaceSnapshot::default()
            },
        );
    }
    // Scale so the mean broker NIC-out usage hits the target with every bundle under the cap:
    // capped bundles stay at the cap and the others are scaled up to make up (a few rounds).
    let target_out_bytes =
        spec.mean_usage_fraction * NIC_LIMIT_KBPS / KBPS_PER_BYTE * brokers as f64;
    let cap = spec.max_bundle_mib_per_sec * MIB;
    let factor_of = |s: &NamespaceBundleStats, scale: f64| {
        let total = s.total_msg_throughput() * scale;
        if total > cap && total > 0.0 {
            scale * cap / total
        } else {
            scale
        }
    };
    let total_out: f64 = raw.iter().map(|r| r.1.msg_throughput_out).sum();
    let mut scale = if total_out > 0.0 {
        target_out_bytes / total_out
    } else {
        1.0
    };
    for _ in 0..8 {
        let got: f64 = raw
            .iter()
            .map(|r| r.1.msg_throughput_out * factor_of(&r.1, scale))
            .sum();
        if got <= 0.0 {
            break;
        }
        scale *= target_out_bytes / got;
    }
    let mut reports: Vec<IndexMap<String, NamespaceBundleStats>> = vec![IndexMap::new(); brokers];
    for (name, s, owner) in raw {
        let f = factor_of(&s, scale);
        let stats = NamespaceBundleStats {
            msg_throughput_in: s.msg_throughput_in * f,
            msg_throughput_out: s.msg_throughput_out * f,
            ..s
        };
        let window = |max_samples: i32| TimeAverageMessageData {
            max_samples,
            num_samples: max_samples,
            msg_throughput_in: stats.msg_throughput_in,
            msg_throughput_out: stats.msg_throughput_out,
            msg_rate_in: stats.msg_rate_in,
            msg_rate_out: stats.msg_rate_out,
        };
        snapshot.bundle_data.insert(
            name.clone(),
            BundleData {
                short_term_data: window(10),
                long_term_data: window(1000),
                topics: i32::try_from(stats.topics).unwrap_or(0),
            },
        );
        if let Some(r) = reports.get_mut(owner) {
            r.insert(name, stats);
        }
    }
    for (i, stats) in reports.into_iter().enumerate() {
        let name = broker_name(i);
        let host = name.split(':').next().unwrap_or_default().to_string();
        let mut d = LocalBrokerData {
            web_service_url: Some(format!("http://{host}:8080")),
            pulsar_service_url: Some(format!("pulsar://{host}:6650")),
            memory: ResourceUsage::new(2048.0, 8192.0),
            direct_memory: ResourceUsage::new(1024.0, 8192.0),
            last_update: 1_750_000_000_000,
            broker_version_string: Some(spec.broker_version.clone()),
            ..LocalBrokerData::default()
        };
        d.set_last_stats(stats);
        let out_kbps = d.msg_throughput_out * KBPS_PER_BYTE;
        let in_kbps = d.msg_throughput_in * KBPS_PER_BYTE;
        d.bandwidth_in = ResourceUsage::new(in_kbps, NIC_LIMIT_KBPS);
        d.bandwidth_out = ResourceUsage::new(out_kbps, NIC_LIMIT_KBPS);
        let cpu = CPU_IDLE + CPU_FRACTION_OF_NIC * (out_kbps / NIC_LIMIT_KBPS) * CPU_LIMIT;
        d.cpu = ResourceUsage::new(cpu, CPU_LIMIT);
        snapshot.brokers.insert(
            name,
            BrokerSnapshot {
                local_broker_data: d,
                ..BrokerSnapshot::default()
            },
        );
    }
    snapshot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_references_resolve_or_name_the_choices() {
        let demo = resolve_builtin_snapshot("builtin:demo").unwrap().unwrap();
        assert_eq!(demo, generate(&GeneratorSpec::demo()));
        assert_eq!(resolve_builtin_snapshot("snapshots/prod.json"), Ok(None));
        assert_eq!(builtin_snapshot_name("builtin:pr-16059"), Some("pr-16059"));
        let e = resolve_builtin_snapshot("builtin:nope").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown built-in snapshot `builtin:nope` (expected builtin:demo, builtin:pr-16059, builtin:bench)"
        );
    }

    #[test]
    fn deterministic_and_sized() {
        let a = generate(&GeneratorSpec::demo());
        let b = generate(&GeneratorSpec::demo());
        assert_eq!(a, b);
        assert_eq!(a.brokers.len(), 20);
        assert_eq!(a.bundle_data.len(), 640);
        let owned: usize = a
            .brokers
            .values()
            .map(|b| b.local_broker_data.bundles.len())
            .sum();
        assert_eq!(owned, 640);
    }
}
