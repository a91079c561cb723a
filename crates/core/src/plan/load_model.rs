//! How load moves when a bundle moves: the model behind every plan's "after" view.
//!
//! A bundle carries its traffic (message rates and throughput from its owner's latest `lastStats`,
//! else its short-term `BundleData`) and a share of its owner's resource usage equal to its share of
//! the owner's throughput (or of its message rate when the broker reports no throughput, or 1/n of its
//! bundles when it reports neither). CPU, heap, direct memory and NIC usage are moved in their raw
//! units, so the destination's percentages follow from its own limits. See `docs/plan-model.md`.

use crate::model::{BundleData, NamespaceBundleStats, ResourceUsage, Snapshot};

/// The traffic a bundle carries.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BundleLoad {
    pub stats: NamespaceBundleStats,
}

impl BundleLoad {
    pub fn bytes_per_sec(&self) -> f64 {
        self.stats.total_msg_throughput()
    }

    pub fn msg_per_sec(&self) -> f64 {
        self.stats.total_msg_rate()
    }
}

/// The bundle's traffic as its owner reports it (or its `BundleData` short-term window).
pub fn bundle_load(snapshot: &Snapshot, owner: &str, bundle: &str) -> BundleLoad {
    if let Some(stats) = snapshot
        .brokers
        .get(owner)
        .and_then(|b| b.local_broker_data.last_stats.get(bundle))
    {
        return BundleLoad { stats: *stats };
    }
    let data = snapshot
        .bundle_data
        .get(bundle)
        .copied()
        .unwrap_or_else(BundleData::pulsar_default);
    BundleLoad {
        stats: NamespaceBundleStats {
            msg_rate_in: data.short_term_data.msg_rate_in,
            msg_rate_out: data.short_term_data.msg_rate_out,
            msg_throughput_in: data.short_term_data.msg_throughput_in,
            msg_throughput_out: data.short_term_data.msg_throughput_out,
            topics: i64::from(data.topics),
            ..NamespaceBundleStats::default()
        },
    }
}

/// The owner of a bundle in the snapshot (first broker listing it).
pub fn owner_of(snapshot: &Snapshot, bundle: &str) -> Option<String> {
    snapshot
        .brokers
        .iter()
        .find(|(_, b)| b.local_broker_data.bundles.iter().any(|x| x == bundle))
        .map(|(id, _)| id.clone())
}

fn share(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0 && part.is_finite()).then(|| (part / whole).clamp(0.0, 1.0))
}

/// Moves `bundle` from `from` to `to` in the snapshot, with its traffic and its share of resource usage.
/// Returns the load moved, or `None` when `from` does not own the bundle or `to` is unknown.
pub fn move_bundle(
    snapshot: &mut Snapshot,
    bundle: &str,
    from: &str,
    to: &str,
) -> Option<BundleLoad> {
    if from == to || !snapshot.brokers.contains_key(to) {
        return None;
    }
    let load = bundle_load(snapshot, from, bundle);
    let src = snapshot.brokers.get_mut(from)?;
    let local = &mut src.local_broker_data;
    let position = local.bundles.iter().position(|b| b == bundle)?;
    let bundle_count = local.bundles.len() as f64;
    let s = load.stats;
    let overall = share(s.total_msg_throughput(), local.total_msg_throughput())
        .or_else(|| share(s.total_msg_rate(), local.total_msg_rate()))
        .unwrap_or(1.0 / bundle_count.max(1.0));
    let in_share = share(s.msg_throughput_in, local.msg_throughput_in).unwrap_or(overall);
    let out_share = share(s.msg_throughput_out, local.msg_throughput_out).unwrap_or(overall);
    let take = |u: &mut ResourceUsage, fraction: f64| {
        let moved = u.usage.max(0.0) * fraction;
        u.usage -= moved;
        moved
    };
    let moved_cpu = take(&mut local.cpu, overall);
    let moved_memory = take(&mut local.memory, overall);
    let moved_direct = take(&mut local.direct_memory, overall);
    let moved_bw_in = take(&mut local.bandwidth_in, in_share);
    let moved_bw_out = take(&mut local.bandwidth_out, out_share);
    local.bundles.remove(position);
    local.last_stats.shift_remove(bundle);
    subtract_stats(local, &s);
    src.time_average_broker_data = None;

    let dst = snapshot.brokers.get_mut(to)?;
    let local = &mut dst.local_broker_data;
    local.cpu.usage += moved_cpu;
    local.memory.usage += moved_memory;
    local.direct_memory.usage += moved_direct;
    local.bandwidth_in.usage += moved_bw_in;
    local.bandwidth_out.usage += moved_bw_out;
    local.bundles.push(bundle.to_string());
    local.last_stats.insert(bundle.to_string(), s);
    add_stats(local, &s);
    dst.time_average_broker_data = None;
    Some(load)
}

fn subtract_stats(local: &mut crate::model::LocalBrokerData, s: &NamespaceBundleStats) {
    local.msg_rate_in = (local.msg_rate_in - s.msg_rate_in).max(0.0);
    local.msg_rate_out = (local.msg_rate_out - s.msg_rate_out).max(0.0);
    local.msg_throughput_in = (local.msg_throughput_in - s.msg_throughput_in).max(0.0);
    local.msg_throughput_out = (local.msg_throughput_out - s.msg_throughput_out).max(0.0);
    local.num_topics = (local.num_topics - s.topics).max(0);
    local.num_consumers = (local.num_consumers - s.consumer_count).max(0);
    local.num_producers = (local.num_producers - s.producer_count).max(0);
    local.num_bundles = local.bundles.len() as i64;
}

fn add_stats(local: &mut crate::model::LocalBrokerData, s: &NamespaceBundleStats) {
    local.msg_rate_in += s.msg_rate_in;
    local.msg_rate_out += s.msg_rate_out;
    local.msg_throughput_in += s.msg_throughput_in;
    local.msg_throughput_out += s.msg_throughput_out;
    local.num_topics += s.topics;
    local.num_consumers += s.consumer_count;
    local.num_producers += s.producer_count;
    local.num_bundles = local.bundles.len() as i64;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, LocalBrokerData};
    use indexmap::IndexMap;

    fn broker(cpu: f64, bundles: &[(&str, f64)]) -> BrokerSnapshot {
        let mut local = LocalBrokerData {
            cpu: ResourceUsage::new(cpu, 400.0),
            bandwidth_in: ResourceUsage::new(8000.0, 1_000_000.0),
            ..LocalBrokerData::default()
        };
        let stats: IndexMap<String, NamespaceBundleStats> = bundles
            .iter()
            .map(|(n, t)| {
                (
                    n.to_string(),
                    NamespaceBundleStats {
                        msg_throughput_in: *t,
                        ..NamespaceBundleStats::default()
                    },
                )
            })
            .collect();
        local.set_last_stats(stats);
        BrokerSnapshot {
            local_broker_data: local,
            ..BrokerSnapshot::default()
        }
    }

    #[test]
    fn moving_a_bundle_moves_its_share_of_usage() {
        let mut snap = Snapshot::default();
        snap.brokers.insert(
            "a:8080".into(),
            broker(
                300.0,
                &[
                    ("t/n/0x00000000_0x80000000", 3e6),
                    ("t/n/0x80000000_0xffffffff", 1e6),
                ],
            ),
        );
        snap.brokers.insert("b:8080".into(), broker(40.0, &[]));
        let moved = move_bundle(&mut snap, "t/n/0x00000000_0x80000000", "a:8080", "b:8080");
        assert_eq!(moved.map(|m| m.bytes_per_sec()), Some(3e6));
        let a = &snap.brokers["a:8080"].local_broker_data;
        let b = &snap.brokers["b:8080"].local_broker_data;
        // The bundle had 3/4 of a's throughput: 3/4 of 300 cpu units and of 8000 Kbps move.
        assert_eq!(a.cpu.usage, 75.0);
        assert_eq!(b.cpu.usage, 265.0);
        assert_eq!(a.bandwidth_in.usage, 2000.0);
        assert_eq!(b.bandwidth_in.usage, 14000.0);
        assert_eq!(a.bundles.len(), 1);
        assert_eq!(b.msg_throughput_in, 3e6);
        assert!(move_bundle(&mut snap, "t/n/0x00000000_0x80000000", "a:8080", "b:8080").is_none());
    }
}
