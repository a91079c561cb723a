//! A deterministic synthetic cluster, written as metadata-store files, for the import benchmark and
//! for tests that need size: `brokers` brokers owning `namespaces × bundles_per_namespace` bundles
//! round-robin, a `BundleData` for every bundle, a local-policies layout per namespace and a leader.
//! Values vary with the indices through fixed arithmetic, so every run produces the same bytes.

use indexmap::IndexMap;

use crate::model::{
    BundleData, LocalBrokerData, NamespaceBundleStats, ResourceUsage, TimeAverageMessageData,
};
use crate::naming::{BundleRange, default_boundaries};

use super::store_layout;

/// Size of the synthetic cluster.
#[derive(Clone, Copy, Debug)]
pub struct SyntheticSpec {
    pub brokers: usize,
    pub namespaces: usize,
    pub bundles_per_namespace: u32,
}

impl SyntheticSpec {
    /// 1,000 brokers and 200,000 bundles (3,125 namespaces of 64 bundles).
    pub const LARGE: SyntheticSpec = SyntheticSpec {
        brokers: 1000,
        namespaces: 3125,
        bundles_per_namespace: 64,
    };
}

/// A value in `0..modulo` that varies with `i` (a fixed multiplicative hash).
fn vary(i: u64, modulo: u64) -> u64 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24) % modulo.max(1)
}

/// The broker name of index `i`.
pub fn broker_name(i: usize) -> String {
    format!("broker-{i:04}.pulsar.svc:8080")
}

/// `(path, bytes)` of every file of the synthetic metadata store, in a fixed order.
pub fn metadata_store(spec: SyntheticSpec) -> Vec<(String, Vec<u8>)> {
    let brokers = spec.brokers.max(1);
    let mut out = Vec::new();
    let mut reports: Vec<IndexMap<String, NamespaceBundleStats>> = vec![IndexMap::new(); brokers];
    let boundaries = default_boundaries(spec.bundles_per_namespace.max(1)).unwrap_or_default();
    let mut global = 0u64;
    for n in 0..spec.namespaces {
        let ns = format!("tenant-{}/ns-{n:05}", n % 50);
        for w in boundaries.windows(2) {
            let (Some(&lo), Some(&hi)) = (w.first(), w.get(1)) else {
                continue;
            };
            let name = format!("{ns}/{}", BundleRange { lo, hi });
            let rate = 10.0 + vary(global, 2000) as f64 / 4.0;
            let thr = rate * (512.0 + vary(global + 7, 4096) as f64);
            let stats = NamespaceBundleStats {
                msg_rate_in: rate,
                msg_throughput_in: thr,
                msg_rate_out: rate * 2.0,
                msg_throughput_out: thr * 2.0,
                consumer_count: vary(global, 40) as i64,
                producer_count: vary(global + 3, 20) as i64,
                topics: 1 + vary(global + 5, 30) as i64,
                cache_size: 0,
            };
            let window = |max_samples: i32, f: f64| TimeAverageMessageData {
                max_samples,
                num_samples: max_samples,
                msg_throughput_in: thr * f,
                msg_throughput_out: thr * 2.0 * f,
                msg_rate_in: rate * f,
                msg_rate_out: rate * 2.0 * f,
            };
            let data = BundleData {
                short_term_data: window(10, 1.0),
                long_term_data: window(1000, 0.875),
                topics: stats.topics as i32,
            };
            out.push((
                store_layout::bundle_data_path(&name),
                serde_json::to_vec(&data).unwrap_or_default(),
            ));
            if let Some(r) = reports.get_mut((global as usize) % brokers) {
                r.insert(name, stats);
            }
            global += 1;
        }
        let layout = serde_json::json!({
            "bundles": {
                "boundaries": boundaries.iter().map(|b| format!("0x{b:08x}")).collect::<Vec<_>>(),
                "numBundles": boundaries.len().saturating_sub(1),
            }
        });
        out.push((
            store_layout::local_policies_path(&ns),
            serde_json::to_vec(&layout).unwrap_or_default(),
        ));
    }
    for (i, stats) in reports.into_iter().enumerate() {
        let name = broker_name(i);
        let host = name.split(':').next().unwrap_or("");
        let mut d = LocalBrokerData {
            web_service_url: Some(format!("http://{host}:8080")),
            pulsar_service_url: Some(format!("pulsar://{host}:6650")),
            cpu: ResourceUsage::new(50.0 + vary(i as u64, 700) as f64, 800.0),
            memory: ResourceUsage::new(1000.0 + vary(i as u64 + 1, 3000) as f64, 4096.0),
            direct_memory: ResourceUsage::new(vary(i as u64 + 2, 2000) as f64, 4096.0),
            bandwidth_in: ResourceUsage::new(vary(i as u64 + 3, 9_000_000) as f64, 10_000_000.0),
            bandwidth_out: ResourceUsage::new(vary(i as u64 + 4, 9_000_000) as f64, 10_000_000.0),
            last_update: 1_750_000_000_000 + i as i64,
            broker_version_string: Some("4.0.5".to_string()),
            ..LocalBrokerData::default()
        };
        d.set_last_stats(stats);
        out.push((
            store_layout::broker_path(&name),
            serde_json::to_vec(&d).unwrap_or_default(),
        ));
    }
    out.push((
        store_layout::LEADER.to_string(),
        serde_json::to_vec(&serde_json::json!({
            "brokerId": broker_name(0),
            "serviceUrl": "http://broker-0000.pulsar.svc:8080"
        }))
        .unwrap_or_default(),
    ));
    out
}
