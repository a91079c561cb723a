//! The one skeleton every synthetic cluster is built on, whatever its traffic model: the brokers'
//! names, the tiling of each namespace's hash range into bundles (`PoliciesUtil.getBundles(n)`
//! boundaries), the heartbeat namespaces, and the consistent derivation of what the leader reads:
//! each broker's `lastStats` covers exactly the bundles it owns and its totals are their sums
//! (`LocalBrokerData.update`), each `BundleData` is made of its moving averages, and the leader's
//! `TimeAverageBrokerData` is the sum of the owned bundles' `BundleData`.

use indexmap::IndexMap;

use crate::config::MODULAR_LOAD_MANAGER;
use crate::model::{
    BrokerSnapshot, BundlesData, LocalBrokerData, NamespaceBundleStats, NamespaceSnapshot,
    SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageBrokerData,
};
use crate::naming::{BundleRange, default_boundaries};
use crate::rng::SplitMix64;

use super::generated::{BaseTraffic, GeneratedBundle, TiledNamespace};
use super::spec::{Detail, NamespaceSpec, SyntheticSpec, Traffic};
use super::{SyntheticError, log_uniform, per_namespace};

/// Heartbeat traffic: the broker's health check writes and reads about one small message a second.
const HEARTBEAT_MSG_RATE: f64 = 1.0;
const HEARTBEAT_MSG_BYTES: f64 = 100.0;

/// The bundles of `name` tiling its hash range with `boundaries`.
fn tile<'a>(spec: &'a NamespaceSpec, boundaries: &[u32]) -> TiledNamespace<'a> {
    let bundles = boundaries
        .windows(2)
        .filter_map(|pair| match pair {
            [lo, hi] => Some(format!(
                "{}/{}",
                spec.name,
                BundleRange { lo: *lo, hi: *hi }
            )),
            _ => None,
        })
        .collect();
    let layout = NamespaceSnapshot {
        bundles: BundlesData {
            boundaries: boundaries
                .iter()
                .map(|&b| crate::naming::boundary_text(b))
                .collect(),
            num_bundles: i32::try_from(boundaries.len().saturating_sub(1)).unwrap_or(i32::MAX),
        },
        anti_affinity_group: None,
        topics: None,
    };
    TiledNamespace {
        spec,
        bundles,
        layout,
    }
}

fn digits(mut n: u32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The brokers' hosts (`broker-<i>.<domain>.svc`) in broker order.
fn broker_hosts(spec: &SyntheticSpec) -> Vec<String> {
    let width = digits(spec.brokers.saturating_sub(1)).max(spec.broker_digits);
    (0..spec.brokers)
        .map(|i| format!("broker-{i:0width$}.{}.svc", spec.broker_domain))
        .collect()
}

/// Generates the snapshot of `spec` with `seed`. Same inputs, same snapshot, on every platform.
pub fn generate(spec: &SyntheticSpec, seed: u64) -> Result<Snapshot, SyntheticError> {
    spec.validate()?;
    let mut rng = SplitMix64::new(seed);
    let hosts = broker_hosts(spec);
    let broker_ids: Vec<String> = hosts
        .iter()
        .map(|h| format!("{h}:{}", spec.web_service_port))
        .collect();

    let mut namespaces = IndexMap::with_capacity(spec.namespaces.len());
    let mut tiled = Vec::with_capacity(spec.namespaces.len());
    for ns in &spec.namespaces {
        let Some(boundaries) = default_boundaries(ns.bundles) else {
            return Err(SyntheticError::NoBundles(ns.name.clone()));
        };
        let t = tile(ns, &boundaries);
        namespaces.insert(ns.name.clone(), t.layout.clone());
        tiled.push(t);
    }

    let mut bundles = match &spec.traffic {
        Traffic::PerNamespace(t) => per_namespace::bundles(t, spec.brokers, &tiled, &mut rng),
        Traffic::LogUniform(t) => log_uniform::bundles(t, spec, &tiled, &mut rng),
    };

    // Heartbeat namespaces after the tenants': `pulsar/<host:port>`, one bundle, always on their
    // own broker.
    if spec.detail == Detail::Full {
        let heartbeat = BaseTraffic {
            msg_rate_in: HEARTBEAT_MSG_RATE,
            msg_rate_out: HEARTBEAT_MSG_RATE,
            msg_size_bytes: HEARTBEAT_MSG_BYTES,
            topics: 1,
            producers: 1,
            consumers: 1,
        };
        for (owner, id) in broker_ids.iter().enumerate() {
            let ns = NamespaceSpec {
                name: format!("pulsar/{id}"),
                bundles: 1,
                topics: heartbeat.topics,
                msg_rate_in: heartbeat.msg_rate_in,
                avg_msg_size_bytes: heartbeat.msg_size_bytes,
                fanout: 1.0,
            };
            let t = tile(&ns, &[BundleRange::FULL.lo, BundleRange::FULL.hi]);
            namespaces.insert(ns.name.clone(), t.layout);
            for name in t.bundles {
                let (stats, data) = match &spec.traffic {
                    Traffic::PerNamespace(_) => per_namespace::measure(&mut rng, &heartbeat),
                    Traffic::LogUniform(_) => log_uniform::measure(&heartbeat),
                };
                bundles.push(GeneratedBundle {
                    name,
                    owner,
                    stats,
                    data,
                });
            }
        }
    }

    // File every bundle under its owner, in generation order.
    let mut last_stats: Vec<IndexMap<String, NamespaceBundleStats>> =
        vec![IndexMap::new(); broker_ids.len()];
    let mut bundle_data = IndexMap::with_capacity(bundles.len());
    for b in bundles {
        if let Some(stats) = last_stats.get_mut(b.owner) {
            stats.insert(b.name.clone(), b.stats);
        }
        bundle_data.insert(b.name, b.data);
    }

    let mut reports: Vec<LocalBrokerData> = last_stats
        .into_iter()
        .zip(&hosts)
        .map(|(stats, host)| {
            let mut local = LocalBrokerData {
                web_service_url: Some(format!("http://{host}:{}", spec.web_service_port)),
                pulsar_service_url: Some(format!("pulsar://{host}:6650")),
                broker_version_string: Some(spec.broker_version.clone()),
                load_manager_class_name: (spec.detail == Detail::Full)
                    .then(|| MODULAR_LOAD_MANAGER.to_string()),
                last_update: spec.captured_at_ms,
                ..LocalBrokerData::default()
            };
            local.set_last_stats(stats);
            local
        })
        .collect();
    match &spec.traffic {
        Traffic::PerNamespace(t) => per_namespace::usage(t, spec, &mut rng, &mut reports),
        Traffic::LogUniform(_) => log_uniform::usage(spec, &mut reports),
    }

    let brokers = broker_ids
        .iter()
        .zip(reports)
        .map(|(id, local)| {
            let time_average_broker_data = (spec.detail == Detail::Full).then(|| {
                TimeAverageBrokerData::from_bundles(
                    local.bundles.iter().map(String::as_str),
                    &bundle_data,
                )
            });
            let broker = BrokerSnapshot {
                local_broker_data: local,
                time_average_broker_data,
                broker_load_data: None,
                top_bundles_load_data: None,
            };
            (id.clone(), broker)
        })
        .collect();

    let mut broker_conf = IndexMap::new();
    if spec.detail == Detail::Full {
        broker_conf.insert(
            "loadBalancerOverrideBrokerNicSpeedGbps".to_string(),
            spec.nic_speed_gbps.to_string(),
        );
    }
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
