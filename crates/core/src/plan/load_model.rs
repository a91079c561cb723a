//! How load moves when a bundle moves: the model behind every plan's "after" view.
//!
//! A bundle carries its traffic (message rates and throughput from its owner's latest `lastStats`,
//! else its short-term `BundleData`) and a share of its owner's resource usage equal to its share of
//! the owner's throughput (or of its message rate when the broker reports no throughput, or 1/n of its
//! bundles when it reports neither). CPU, heap, direct memory and NIC usage are moved in their raw
//! units, so the destination's percentages follow from its own limits. See `docs/plan-model.md`.

use crate::model::{
    BundleData, BundleStatsTotals, LocalBrokerData, NamespaceBundleStats, ResourceUsage, Snapshot,
};

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
    bundle_load_from(
        snapshot
            .brokers
            .get(owner)
            .and_then(|b| b.local_broker_data.last_stats.get(bundle)),
        snapshot.bundle_data.get(bundle),
    )
}

/// [`bundle_load`] from what it reads: the owner's `lastStats` entry for the bundle and the
/// bundle's stored data (a view that keeps the owner's report apart from the snapshot passes
/// them without assembling a snapshot).
pub(crate) fn bundle_load_from(
    stats: Option<&NamespaceBundleStats>,
    stored: Option<&BundleData>,
) -> BundleLoad {
    if let Some(stats) = stats {
        return BundleLoad { stats: *stats };
    }
    let data = stored.copied().unwrap_or_else(BundleData::pulsar_default);
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

/// The raw resource usage a bundle carries: cpu, memory, direct memory, NIC in, NIC out.
pub type Amounts = [f64; 5];

/// The share of its owner's resource usage a bundle carries: of CPU, heap and direct memory its
/// share of the owner's throughput (in + out), else of its message rate when the owner reports no
/// throughput, else 1/n of its n bundles; of each NIC direction its share of that direction's
/// throughput, else the overall share. The one rule plans ([`move_bundle`]) and the rebalance
/// search's ledger (`rebalance::ledger`) move load by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsageShare {
    pub overall: f64,
    pub bandwidth_in: f64,
    pub bandwidth_out: f64,
}

impl UsageShare {
    /// The share of `owner`'s usage the bundle with traffic `s` carries.
    pub fn of(s: &NamespaceBundleStats, owner: &LocalBrokerData) -> Self {
        let bundle_count = owner.bundles.len() as f64;
        let overall = share(s.total_msg_throughput(), owner.total_msg_throughput())
            .or_else(|| share(s.total_msg_rate(), owner.total_msg_rate()))
            .unwrap_or(1.0 / bundle_count.max(1.0));
        Self {
            overall,
            bandwidth_in: share(s.msg_throughput_in, owner.msg_throughput_in).unwrap_or(overall),
            bandwidth_out: share(s.msg_throughput_out, owner.msg_throughput_out).unwrap_or(overall),
        }
    }

    /// The raw usage of `owner` this share is (a negative usage counts as none).
    pub fn amounts(&self, owner: &LocalBrokerData) -> Amounts {
        let amount = |u: ResourceUsage, f: f64| u.usage.max(0.0) * f;
        [
            amount(owner.cpu, self.overall),
            amount(owner.memory, self.overall),
            amount(owner.direct_memory, self.overall),
            amount(owner.bandwidth_in, self.bandwidth_in),
            amount(owner.bandwidth_out, self.bandwidth_out),
        ]
    }
}

fn usages_mut(local: &mut LocalBrokerData) -> [&mut ResourceUsage; 5] {
    [
        &mut local.cpu,
        &mut local.memory,
        &mut local.direct_memory,
        &mut local.bandwidth_in,
        &mut local.bandwidth_out,
    ]
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
    let s = load.stats;
    let moved = UsageShare::of(&s, local).amounts(local);
    for (u, m) in usages_mut(local).into_iter().zip(moved) {
        u.usage -= m;
    }
    local.bundles.remove(position);
    local.last_stats.shift_remove(bundle);
    let mut totals = BundleStatsTotals::of_report(local);
    totals.remove(&s);
    totals.write_to(local);
    local.num_bundles = local.bundles.len() as i64;
    src.time_average_broker_data = None;

    let dst = snapshot.brokers.get_mut(to)?;
    let local = &mut dst.local_broker_data;
    for (u, m) in usages_mut(local).into_iter().zip(moved) {
        u.usage += m;
    }
    local.bundles.push(bundle.to_string());
    local.last_stats.insert(bundle.to_string(), s);
    let mut totals = BundleStatsTotals::of_report(local);
    totals.add(&s);
    totals.write_to(local);
    local.num_bundles = local.bundles.len() as i64;
    dst.time_average_broker_data = None;
    Some(load)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BrokerSnapshot;
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

    fn owner(thr: (f64, f64), rate: (f64, f64), bundles: usize) -> LocalBrokerData {
        LocalBrokerData {
            cpu: ResourceUsage::new(200.0, 400.0),
            memory: ResourceUsage::new(1024.0, 4096.0),
            direct_memory: ResourceUsage::new(-5.0, 4096.0),
            bandwidth_in: ResourceUsage::new(800.0, 1e6),
            bandwidth_out: ResourceUsage::new(600.0, 1e6),
            msg_throughput_in: thr.0,
            msg_throughput_out: thr.1,
            msg_rate_in: rate.0,
            msg_rate_out: rate.1,
            bundles: (0..bundles).map(|i| format!("t/n/{i}")).collect(),
            ..LocalBrokerData::default()
        }
    }

    fn traffic(thr: (f64, f64), rate: (f64, f64)) -> NamespaceBundleStats {
        NamespaceBundleStats {
            msg_throughput_in: thr.0,
            msg_throughput_out: thr.1,
            msg_rate_in: rate.0,
            msg_rate_out: rate.1,
            ..NamespaceBundleStats::default()
        }
    }

    #[test]
    fn a_bundle_carries_its_share_of_throughput_else_rate_else_one_nth() {
        // Throughput: (1000 + 500) / (3000 + 3000) = 1/4 of cpu 200 and memory 1024; NIC in
        // 1000/3000 of 800, NIC out 500/3000 of 600; a negative usage carries nothing.
        let o = owner((3000.0, 3000.0), (10.0, 10.0), 4);
        let share = UsageShare::of(&traffic((1000.0, 500.0), (1.0, 1.0)), &o);
        assert_eq!(share.overall, 0.25);
        let a = share.amounts(&o);
        assert_eq!(a[0], 50.0);
        assert_eq!(a[1], 256.0);
        assert_eq!(a[2], 0.0);
        assert_eq!(a[3], 800.0 * (1000.0 / 3000.0));
        assert_eq!(a[4], 600.0 * (500.0 / 3000.0));
        // No throughput on the owner: the message-rate share, 5 / (15 + 5), for every resource.
        let o = owner((0.0, 0.0), (15.0, 5.0), 4);
        let a = UsageShare::of(&traffic((0.0, 0.0), (4.0, 1.0)), &o).amounts(&o);
        assert_eq!(a, [50.0, 256.0, 0.0, 200.0, 150.0]);
        // Neither: 1/n of the owner's 5 bundles.
        let o = owner((0.0, 0.0), (0.0, 0.0), 5);
        let share = UsageShare::of(&traffic((0.0, 0.0), (0.0, 0.0)), &o);
        assert_eq!(share.overall, 0.2);
        assert_eq!(share.amounts(&o), [40.0, 204.8, 0.0, 160.0, 120.0]);
        // A bundle reporting more than its owner's total carries all of it, not more.
        let o = owner((100.0, 100.0), (1.0, 1.0), 2);
        let share = UsageShare::of(&traffic((900.0, 0.0), (1.0, 1.0)), &o);
        assert_eq!(
            (share.overall, share.bandwidth_in, share.bandwidth_out),
            (1.0, 1.0, 0.0)
        );
    }
}
