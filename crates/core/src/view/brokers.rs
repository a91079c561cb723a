//! The cluster overview: one row per broker (the five resource usages, the weighted max the modular
//! strategies compare, rates, throughput, bundle and topic counts, version) and its sort orders.

use std::cmp::Ordering;

use crate::model::Snapshot;
use crate::plan::balance::broker_views;
use crate::units::ResourceWeights;

#[derive(Clone, Debug, PartialEq)]
pub struct BrokerRow {
    pub broker: String,
    pub cpu_pct: f64,
    pub memory_pct: f64,
    pub direct_memory_pct: f64,
    pub bandwidth_in_pct: f64,
    pub bandwidth_out_pct: f64,
    /// `getMaxResourceUsageWithWeight` × 100.
    pub weighted_max_pct: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub throughput_in_bytes_per_sec: f64,
    pub throughput_out_bytes_per_sec: f64,
    pub bundle_count: usize,
    pub topic_count: i64,
    pub version: String,
}

/// Rows in the snapshot's broker order, computed by the plan's own broker view.
pub fn broker_rows(snapshot: &Snapshot, weights: &ResourceWeights) -> Vec<BrokerRow> {
    broker_views(snapshot, weights)
        .into_iter()
        .map(|v| {
            let version = snapshot
                .brokers
                .get(&v.broker)
                .and_then(|b| b.local_broker_data.broker_version_string.clone())
                .unwrap_or_default();
            BrokerRow {
                cpu_pct: v.cpu_pct,
                memory_pct: v.memory_pct,
                direct_memory_pct: v.direct_memory_pct,
                bandwidth_in_pct: v.bandwidth_in_pct,
                bandwidth_out_pct: v.bandwidth_out_pct,
                weighted_max_pct: v.weighted_max_usage_fraction * 100.0,
                msg_rate_in: v.msg_rate_in,
                msg_rate_out: v.msg_rate_out,
                throughput_in_bytes_per_sec: v.msg_throughput_in_bytes_per_sec,
                throughput_out_bytes_per_sec: v.msg_throughput_out_bytes_per_sec,
                bundle_count: v.bundle_count,
                topic_count: v.topic_count,
                version,
                broker: v.broker,
            }
        })
        .collect()
}

/// A sortable column of the overview table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BrokerColumn {
    Broker,
    WeightedMax,
    Cpu,
    Memory,
    DirectMemory,
    BandwidthIn,
    BandwidthOut,
    MsgRateIn,
    MsgRateOut,
    ThroughputIn,
    ThroughputOut,
    Bundles,
    Topics,
    Version,
}

impl BrokerColumn {
    pub const ALL: [BrokerColumn; 14] = [
        BrokerColumn::Broker,
        BrokerColumn::WeightedMax,
        BrokerColumn::Cpu,
        BrokerColumn::Memory,
        BrokerColumn::DirectMemory,
        BrokerColumn::BandwidthIn,
        BrokerColumn::BandwidthOut,
        BrokerColumn::MsgRateIn,
        BrokerColumn::MsgRateOut,
        BrokerColumn::ThroughputIn,
        BrokerColumn::ThroughputOut,
        BrokerColumn::Bundles,
        BrokerColumn::Topics,
        BrokerColumn::Version,
    ];

    pub fn title(self) -> &'static str {
        match self {
            BrokerColumn::Broker => "Broker",
            BrokerColumn::WeightedMax => "Weighted max",
            BrokerColumn::Cpu => "CPU",
            BrokerColumn::Memory => "Heap",
            BrokerColumn::DirectMemory => "Direct mem",
            BrokerColumn::BandwidthIn => "NIC in",
            BrokerColumn::BandwidthOut => "NIC out",
            BrokerColumn::MsgRateIn => "Msg in/s",
            BrokerColumn::MsgRateOut => "Msg out/s",
            BrokerColumn::ThroughputIn => "Bytes in",
            BrokerColumn::ThroughputOut => "Bytes out",
            BrokerColumn::Bundles => "Bundles",
            BrokerColumn::Topics => "Topics",
            BrokerColumn::Version => "Version",
        }
    }

    pub fn is_numeric(self) -> bool {
        !matches!(self, BrokerColumn::Broker | BrokerColumn::Version)
    }

    fn number(self, r: &BrokerRow) -> f64 {
        match self {
            BrokerColumn::WeightedMax => r.weighted_max_pct,
            BrokerColumn::Cpu => r.cpu_pct,
            BrokerColumn::Memory => r.memory_pct,
            BrokerColumn::DirectMemory => r.direct_memory_pct,
            BrokerColumn::BandwidthIn => r.bandwidth_in_pct,
            BrokerColumn::BandwidthOut => r.bandwidth_out_pct,
            BrokerColumn::MsgRateIn => r.msg_rate_in,
            BrokerColumn::MsgRateOut => r.msg_rate_out,
            BrokerColumn::ThroughputIn => r.throughput_in_bytes_per_sec,
            BrokerColumn::ThroughputOut => r.throughput_out_bytes_per_sec,
            BrokerColumn::Bundles => r.bundle_count as f64,
            BrokerColumn::Topics => r.topic_count as f64,
            BrokerColumn::Broker | BrokerColumn::Version => 0.0,
        }
    }
}

/// Sorts rows by a column (ties by broker name, so the order is total and stable).
pub fn sort_rows(rows: &mut [BrokerRow], column: BrokerColumn, descending: bool) {
    rows.sort_by(|a, b| {
        let primary = match column {
            BrokerColumn::Broker => a.broker.cmp(&b.broker),
            BrokerColumn::Version => a.version.cmp(&b.version),
            c => c.number(a).total_cmp(&c.number(b)),
        };
        let primary = if descending {
            primary.reverse()
        } else {
            primary
        };
        match primary {
            Ordering::Equal => a.broker.cmp(&b.broker),
            o => o,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, ResourceUsage};

    fn snapshot() -> Snapshot {
        let mut s = Snapshot::default();
        for (name, cpu, bundles) in [("b:8080", 80.0, 1), ("a:8080", 20.0, 3)] {
            let mut b = BrokerSnapshot::default();
            b.local_broker_data.cpu = ResourceUsage {
                usage: cpu,
                limit: 100.0,
            };
            b.local_broker_data.bundles = (0..bundles).map(|i| format!("t/n/{i}")).collect();
            b.local_broker_data.broker_version_string = Some("4.0.7".into());
            s.brokers.insert(name.to_string(), b);
        }
        s
    }

    #[test]
    fn rows_and_sorting() {
        let w = ResourceWeights {
            cpu: 1.0,
            memory: 1.0,
            direct_memory: 1.0,
            bandwidth_in: 1.0,
            bandwidth_out: 1.0,
        };
        let mut rows = broker_rows(&snapshot(), &w);
        assert_eq!(rows[0].broker, "b:8080");
        assert_eq!(rows[0].cpu_pct, 80.0);
        assert_eq!(rows[0].weighted_max_pct, 80.0);
        assert_eq!(rows[0].version, "4.0.7");
        sort_rows(&mut rows, BrokerColumn::Broker, false);
        assert_eq!(rows[0].broker, "a:8080");
        sort_rows(&mut rows, BrokerColumn::Cpu, true);
        assert_eq!(rows[0].broker, "b:8080");
        sort_rows(&mut rows, BrokerColumn::Bundles, true);
        assert_eq!(
            (rows[0].broker.as_str(), rows[0].bundle_count),
            ("a:8080", 3)
        );
    }
}
