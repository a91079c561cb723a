//! The situation of issue 22 (apache/pulsar#16059's pattern) in 15 brokers: ThresholdShedder sheds
//! 2 bundles from each of 4 NIC-bound brokers, and LeastLongTermMessageRate, scoring every bundle of
//! the cycle on the same leader view, sends all 8 to the one broker with the lowest long-term message
//! rate: a 1-core broker, where each bundle's CPU weighs 8× what it did on its 8-core source.
//!
//! The numbers (weighted max = the largest of cpu, NIC in, NIC out; memory weighs 0):
//! * 4 hot brokers: NIC out 52.9 %, cpu 240 of 800 (30 %); 5 mid: NIC out 46.9 %, cpu 20 %;
//!   5 cool: NIC out 26.9 %, cpu 15 %; `tiny-1`: cpu 2.9 of 100, NIC out 1 %.
//! * average = (4 × 52.9 + 5 × 46.9 + 5 × 26.9 + 2.9) / 15 = 38.9 %; ThresholdShedder (threshold
//!   10 %) sheds the hot brokers only (52.9 ≥ 48.9 > 46.9), each needing 52.9 − 38.9 − 10 + 5 = 9 %
//!   of its throughput: 2 of its 16 equal bundles (6.25 % each).
//! * every broker serves 16 bundles of `t/ns`, so the even-distribution filter keeps all 15;
//!   `tiny-1`'s bundles carry 1 msg/s each way, the others' 100 or more.
//! * a moved bundle takes 1/16 of its source's busy cpu (the one load model: 240 less the idle
//!   baseline of 5 % of 800), 12.5 (percent of a core, 0.125 cores): on `tiny-1`, 1 core, 8 of them
//!   make 2.9 + 100 = 102.9 %.
//! * LeastResourceUsageWithWeight (difference threshold 10 %) picks at random among the brokers at or
//!   below 38.9 − 10 = 28.9 %: the 5 cool ones and `tiny-1`.

use lbplan_core::model::{
    BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats, NamespaceSnapshot,
    ResourceUsage, SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageMessageData,
};
use lbplan_core::naming::{NamespaceBundles, default_boundaries};

pub const TINY: &str = "tiny-1:8080";
pub const NIC_KBPS: f64 = 1_000_000.0;
const MB: f64 = 1_000_000.0;

fn window(thr_each_way: f64, rate_each_way: f64, max: i32) -> TimeAverageMessageData {
    TimeAverageMessageData {
        max_samples: max,
        num_samples: max,
        msg_throughput_in: thr_each_way,
        msg_throughput_out: thr_each_way,
        msg_rate_in: rate_each_way,
        msg_rate_out: rate_each_way,
    }
}

struct Kind {
    prefix: &'static str,
    count: usize,
    cores: f64,
    cpu_fraction: f64,
    nic_out_fraction: f64,
    rate_each_way: f64,
}

pub fn snapshot() -> Snapshot {
    let kinds = [
        Kind {
            prefix: "hot",
            count: 4,
            cores: 8.0,
            cpu_fraction: 0.30,
            nic_out_fraction: 0.529,
            rate_each_way: 200.0,
        },
        Kind {
            prefix: "mid",
            count: 5,
            cores: 8.0,
            cpu_fraction: 0.20,
            nic_out_fraction: 0.469,
            rate_each_way: 150.0,
        },
        Kind {
            prefix: "cool",
            count: 5,
            cores: 8.0,
            cpu_fraction: 0.15,
            nic_out_fraction: 0.269,
            rate_each_way: 100.0,
        },
        Kind {
            prefix: "tiny",
            count: 1,
            cores: 1.0,
            cpu_fraction: 0.029,
            nic_out_fraction: 0.01,
            rate_each_way: 1.0,
        },
    ];
    let ns = "t/ns";
    let layout = NamespaceBundles::new(ns, default_boundaries(256).unwrap_or_default()).unwrap();
    let mut names = layout.bundle_names().into_iter();
    let mut s = Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        ..Snapshot::default()
    };
    for kind in &kinds {
        for i in 1..=kind.count {
            let limit = kind.cores * 100.0;
            let mut local = LocalBrokerData {
                cpu: ResourceUsage::new(kind.cpu_fraction * limit, limit),
                memory: ResourceUsage::new(0.0, 8192.0),
                direct_memory: ResourceUsage::new(0.0, 8192.0),
                bandwidth_in: ResourceUsage::new(0.0, NIC_KBPS),
                bandwidth_out: ResourceUsage::new(kind.nic_out_fraction * NIC_KBPS, NIC_KBPS),
                broker_version_string: Some("4.0.0".to_string()),
                ..LocalBrokerData::default()
            };
            let mut stats = Vec::new();
            for _ in 0..16 {
                let name = names.next().unwrap();
                stats.push((
                    name.clone(),
                    NamespaceBundleStats {
                        msg_rate_in: kind.rate_each_way,
                        msg_rate_out: kind.rate_each_way,
                        msg_throughput_in: 10.0 * MB,
                        msg_throughput_out: 10.0 * MB,
                        topics: 4,
                        ..NamespaceBundleStats::default()
                    },
                ));
                s.bundle_data.insert(
                    name,
                    BundleData {
                        short_term_data: window(10.0 * MB, kind.rate_each_way, 10),
                        long_term_data: window(10.0 * MB, kind.rate_each_way, 1000),
                        topics: 4,
                    },
                );
            }
            local.set_last_stats(stats.into_iter().collect());
            s.brokers.insert(
                format!("{}-{i}:8080", kind.prefix),
                BrokerSnapshot {
                    local_broker_data: local,
                    ..BrokerSnapshot::default()
                },
            );
        }
    }
    s.namespaces.insert(
        ns.into(),
        NamespaceSnapshot {
            bundles: layout.to_bundles_data(),
            ..NamespaceSnapshot::default()
        },
    );
    s
}
