//! The cluster overview: one row per broker (the five resource usages, the weighted max the modular
//! strategies compare, rates, throughput, bundle and topic counts, version), how loaded each broker is
//! against the effective configuration, and the rows' sort orders.

use std::cmp::Ordering;

use crate::config::LoadBalancerConfig;
use crate::model::Snapshot;
use crate::plan::balance::broker_views;

/// How loaded a broker is, by the thresholds of the effective configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageLevel {
    Normal,
    /// At least the cluster average plus `loadBalancerBrokerThresholdShedderPercentage`: the broker
    /// ThresholdShedder (the 4.x default strategy) would shed from. It is "warm" because whether it
    /// sheds depends on the cluster, unlike the fixed overload line.
    Warm,
    /// At least `loadBalancerBrokerOverloadedThresholdPercentage`: OverloadShedder sheds from it and
    /// placement treats it as overloaded.
    Overloaded,
}

impl UsageLevel {
    /// The style class the dashboard gives the usage bar.
    pub fn css_class(self) -> &'static str {
        match self {
            UsageLevel::Normal => "low",
            UsageLevel::Warm => "mid",
            UsageLevel::Overloaded => "high",
        }
    }
}

/// Classifies a weighted max usage (percent) against the cluster's average (percent) and the
/// effective configuration. Both comparisons are `>=`, as OverloadShedder (`currentUsage <
/// overloadThreshold` skips) and ThresholdShedder (`currentUsage < avgUsage + threshold` skips) write
/// them. ThresholdShedder compares its smoothed history; here it is the current report's usage.
pub fn usage_level(usage_pct: f64, average_pct: f64, config: &LoadBalancerConfig) -> UsageLevel {
    let overloaded = config.load_balancer_broker_overloaded_threshold_percentage as f64;
    let margin = config.load_balancer_broker_threshold_shedder_percentage as f64;
    if usage_pct >= overloaded {
        UsageLevel::Overloaded
    } else if usage_pct >= average_pct + margin {
        UsageLevel::Warm
    } else {
        UsageLevel::Normal
    }
}

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
    /// What the broker has (mixed hardware visible at a glance): CPU cores (its report's
    /// CPU limit ÷ 100), and the limits of its NIC and memory, as [`capacity_text`] words them.
    pub cpu_cores: f64,
    pub capacity: String,
    /// The weighted max against the configuration and the cluster's average weighted max.
    pub usage_level: UsageLevel,
}

/// Rows in the snapshot's broker order, computed by the plan's own broker view with the effective
/// configuration's resource weights and thresholds.
pub fn broker_rows(snapshot: &Snapshot, config: &LoadBalancerConfig) -> Vec<BrokerRow> {
    let mut rows: Vec<BrokerRow> = broker_views(snapshot, &config.resource_weights())
        .into_iter()
        .map(|v| {
            let local = snapshot
                .brokers
                .get(&v.broker)
                .map(|b| &b.local_broker_data);
            let version = local
                .and_then(|l| l.broker_version_string.clone())
                .unwrap_or_default();
            let cpu_cores = local.map_or(0.0, |l| l.cpu.limit / 100.0);
            let capacity = local.map(capacity_text).unwrap_or_default();
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
                cpu_cores,
                capacity,
                broker: v.broker,
                usage_level: UsageLevel::Normal,
            }
        })
        .collect();
    let average_pct = if rows.is_empty() {
        0.0
    } else {
        rows.iter().map(|r| r.weighted_max_pct).sum::<f64>() / rows.len() as f64
    };
    for r in &mut rows {
        r.usage_level = usage_level(r.weighted_max_pct, average_pct, config);
    }
    rows
}

/// A broker's limits in one short text: "8 cores · NIC 2.0 Gbps · heap 4.0 GiB · direct 4.0 GiB"
/// (NIC: the larger of its in and out limits, as reported; Kbps → Gbps).
pub fn capacity_text(l: &crate::model::LocalBrokerData) -> String {
    let cores = l.cpu.limit / 100.0;
    let cores = if (cores - cores.round()).abs() < 1e-9 {
        format!("{cores:.0}")
    } else {
        format!("{cores:.1}")
    };
    let nic_gbps = l.bandwidth_in.limit.max(l.bandwidth_out.limit) / 1e6;
    let unit = if cores == "1" { "core" } else { "cores" };
    format!(
        "{cores} {unit} · NIC {nic_gbps:.1} Gbps · heap {:.1} GiB · direct {:.1} GiB",
        l.memory.limit / 1024.0,
        l.direct_memory.limit / 1024.0
    )
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
    /// CPU cores (sorts by cores; shows [`BrokerRow::capacity`]).
    Capacity,
}

impl BrokerColumn {
    pub const ALL: [BrokerColumn; 15] = [
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
        BrokerColumn::Capacity,
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
            BrokerColumn::Capacity => "Capacity",
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
            BrokerColumn::Capacity => r.cpu_cores,
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
    use crate::config::Profile;
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
        let mut rows = broker_rows(
            &snapshot(),
            &LoadBalancerConfig::for_profile(Profile::Pulsar4x),
        );
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

    /// The demo's brokers are 8-core, 2 Gbps, 4 GiB heap and 4 GiB direct memory
    /// (`SyntheticSpec::demo`); a 1-core broker of the mixed cluster sorts last by capacity.
    #[test]
    fn capacity_shows_each_brokers_limits() {
        let mut demo = crate::simulate::builtin_snapshot("demo").unwrap();
        let config = LoadBalancerConfig::for_profile(Profile::Pulsar4x);
        let rows = broker_rows(&demo, &config);
        assert_eq!(
            rows[0].capacity,
            "8 cores · NIC 2.0 Gbps · heap 4.0 GiB · direct 4.0 GiB"
        );
        let first = demo.brokers.keys().next().unwrap().clone();
        demo.brokers[&first].local_broker_data.cpu.limit = 100.0;
        let mut rows = broker_rows(&demo, &config);
        sort_rows(&mut rows, BrokerColumn::Capacity, true);
        assert_eq!(rows.last().unwrap().broker, first);
        assert!(rows.last().unwrap().capacity.starts_with("1 core · "));
    }

    /// Pulsar's defaults: `loadBalancerBrokerOverloadedThresholdPercentage=85`,
    /// `loadBalancerBrokerThresholdShedderPercentage=10`.
    #[test]
    fn usage_levels_follow_the_configured_thresholds() {
        let mut config = LoadBalancerConfig::for_profile(Profile::Pulsar4x);
        assert_eq!(usage_level(85.0, 50.0, &config), UsageLevel::Overloaded);
        assert_eq!(usage_level(84.9, 50.0, &config), UsageLevel::Warm);
        // Warm from average + 10 points.
        assert_eq!(usage_level(60.0, 50.0, &config), UsageLevel::Warm);
        assert_eq!(usage_level(59.9, 50.0, &config), UsageLevel::Normal);
        // An operator who lowers the overload line sees it, not a fixed 85 %.
        config
            .set_text("loadBalancerBrokerOverloadedThresholdPercentage", "70")
            .unwrap();
        assert_eq!(usage_level(72.0, 70.0, &config), UsageLevel::Overloaded);
        config
            .set_text("loadBalancerBrokerThresholdShedderPercentage", "25")
            .unwrap();
        assert_eq!(usage_level(60.0, 50.0, &config), UsageLevel::Normal);
        // The rows: b at 80 %, a at 20 %, average 50 %: b is warm, a is normal.
        let rows = broker_rows(
            &snapshot(),
            &LoadBalancerConfig::for_profile(Profile::Pulsar4x),
        );
        assert_eq!(rows[0].usage_level, UsageLevel::Warm);
        assert_eq!(rows[1].usage_level, UsageLevel::Normal);
    }
}
