//! How load moves when a bundle moves: the model behind every plan's "after" view.
//!
//! A bundle carries its traffic (message rates and throughput from its owner's latest `lastStats`,
//! else its short-term `BundleData`) and the work the one load model ([`crate::load`]) gives it:
//! its share of its owner's usage above the owner's idle baseline, in raw units, so the
//! destination's percentages follow from its own limits. See `docs/plan-model.md` §4.

use crate::load::{Amounts, BundleShare, LoadModel, OwnerEstimate, OwnerTraffic, estimate_owner};
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

/// A bundle of an owner with the work the one model gives it ([`crate::load`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BundleWork {
    pub bundle: String,
    pub load: BundleLoad,
    pub share: BundleShare,
    /// Its work as it costs on the owner, in the report's units.
    pub work: Amounts,
}

/// An owner's report split by the one model: its baseline and each of its bundles' work.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerWork {
    pub owner: String,
    pub estimate: OwnerEstimate,
    pub bundles: Vec<BundleWork>,
}

/// `owner`'s bundles in `snapshot` (its report's `bundles`, each read with [`bundle_load`]), their
/// work and the owner's baseline; `None` for a broker the snapshot does not have.
pub fn owner_work(snapshot: &Snapshot, owner: &str, model: &LoadModel) -> Option<OwnerWork> {
    let local = &snapshot.brokers.get(owner)?.local_broker_data;
    let loads: Vec<(String, BundleLoad)> = local
        .bundles
        .iter()
        .map(|b| (b.clone(), bundle_load(snapshot, owner, b)))
        .collect();
    Some(owner_work_of(owner, local, loads, model))
}

/// [`owner_work`] from a report and its bundles' traffic as read.
pub fn owner_work_of(
    owner: &str,
    local: &LocalBrokerData,
    loads: Vec<(String, BundleLoad)>,
    model: &LoadModel,
) -> OwnerWork {
    let traffic = OwnerTraffic::of(loads.iter().map(|(_, l)| &l.stats));
    let estimate = estimate_owner(local, traffic, model);
    let bundles = loads
        .into_iter()
        .map(|(bundle, load)| {
            let share = BundleShare::of(&load.stats, &traffic);
            BundleWork {
                bundle,
                load,
                share,
                work: share.work(&estimate.busy),
            }
        })
        .collect();
    OwnerWork {
        owner: owner.to_string(),
        estimate,
        bundles,
    }
}

/// Bundles' work as estimated once on the snapshot a plan starts from, so a bundle carries the same
/// work however many times the plan moves it (and the simulator, which estimates it the same way
/// once, agrees). A bundle the snapshot does not know (a split's child) is estimated from the
/// report of the broker it leaves.
#[derive(Clone, Debug, Default)]
pub struct WorkBook {
    /// bundle → (the broker its work was estimated on, the work there).
    works: std::collections::HashMap<String, (String, Amounts)>,
}

impl WorkBook {
    /// The work `bundle` carries as it costs on `on`: estimated from `base` (its owner there), else
    /// from `current` (the report of `from`, the broker it leaves, as it is now).
    pub fn work_on(
        &mut self,
        base: &Snapshot,
        current: impl FnOnce() -> Option<OwnerWork>,
        bundle: &str,
        from: &str,
        model: &LoadModel,
    ) -> (String, Amounts) {
        if let Some(w) = self.works.get(bundle) {
            return w.clone();
        }
        let base_owner = if base
            .brokers
            .get(from)
            .is_some_and(|b| b.local_broker_data.bundles.iter().any(|x| x == bundle))
        {
            Some(from.to_string())
        } else {
            owner_of(base, bundle)
        };
        let estimated = match base_owner.and_then(|o| owner_work(base, &o, model)) {
            Some(ow) => Some(ow),
            None => current(),
        };
        if let Some(ow) = estimated {
            for b in ow.bundles {
                self.works
                    .entry(b.bundle)
                    .or_insert_with(|| (ow.owner.clone(), b.work));
            }
        }
        self.works
            .get(bundle)
            .cloned()
            .unwrap_or_else(|| (from.to_string(), [0.0; 5]))
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

/// Moves `bundle` from `from` to `to` in the snapshot with its traffic and the work the one model
/// gives it, estimated on `from`'s report as it is now (the default model). Returns the load moved,
/// or `None` when `from` does not own the bundle or `to` is unknown. A plan moves with
/// [`move_bundle_with`] and a [`WorkBook`], so a bundle keeps its work when moved twice.
pub fn move_bundle(
    snapshot: &mut Snapshot,
    bundle: &str,
    from: &str,
    to: &str,
) -> Option<BundleLoad> {
    let model = LoadModel::default();
    let work = owner_work(snapshot, from, &model)?
        .bundles
        .into_iter()
        .find(|b| b.bundle == bundle)?
        .work;
    move_bundle_with(
        snapshot,
        bundle,
        from,
        to,
        &work,
        &model.carried(&work, from, to),
    )
}

/// Moves `bundle` from `from` to `to`: its traffic, `out` of `from`'s usage (its work as it costs
/// there) and `into` `to`'s (as it costs there). Usage never goes below zero.
pub fn move_bundle_with(
    snapshot: &mut Snapshot,
    bundle: &str,
    from: &str,
    to: &str,
    out: &Amounts,
    into: &Amounts,
) -> Option<BundleLoad> {
    if from == to || !snapshot.brokers.contains_key(to) {
        return None;
    }
    let load = bundle_load(snapshot, from, bundle);
    let src = snapshot.brokers.get_mut(from)?;
    let local = &mut src.local_broker_data;
    let position = local.bundles.iter().position(|b| b == bundle)?;
    let s = load.stats;
    for (u, m) in usages_mut(local).into_iter().zip(out) {
        u.usage = (u.usage - m).max(0.0_f64.min(u.usage));
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
    for (u, m) in usages_mut(local).into_iter().zip(into) {
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
    fn moving_a_bundle_moves_its_share_of_the_busy_usage() {
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
        // 4 cores: 5 % of 400 is a's idle baseline, 280 of its 300 is busy; the bundle has 3/4
        // of a's throughput, so 210 cpu units and 3/4 of 8000 Kbps move.
        assert_eq!(a.cpu.usage, 90.0);
        assert_eq!(b.cpu.usage, 250.0);
        assert_eq!(a.bandwidth_in.usage, 2000.0);
        assert_eq!(b.bandwidth_in.usage, 14000.0);
        assert_eq!(a.bundles.len(), 1);
        assert_eq!(b.msg_throughput_in, 3e6);
        assert!(move_bundle(&mut snap, "t/n/0x00000000_0x80000000", "a:8080", "b:8080").is_none());
    }

    #[test]
    fn a_work_book_keeps_a_bundles_work_from_the_snapshot_it_started_on() {
        let mut base = Snapshot::default();
        base.brokers.insert(
            "a:8080".into(),
            broker(
                300.0,
                &[
                    ("t/n/0x00000000_0x80000000", 3e6),
                    ("t/n/0x80000000_0xffffffff", 1e6),
                ],
            ),
        );
        base.brokers.insert(
            "b:8080".into(),
            broker(40.0, &[("t/n2/0x00000000_0xffffffff", 1e6)]),
        );
        let model = LoadModel::default();
        let mut book = WorkBook::default();
        let (on, w) = book.work_on(
            &base,
            || None,
            "t/n/0x00000000_0x80000000",
            "a:8080",
            &model,
        );
        assert_eq!((on.as_str(), w[0]), ("a:8080", 210.0));
        // Asked again from another broker (after a move), the same work, estimated on a.
        let (on, w) = book.work_on(
            &base,
            || None,
            "t/n/0x00000000_0x80000000",
            "b:8080",
            &model,
        );
        assert_eq!((on.as_str(), w[0]), ("a:8080", 210.0));
        // A bundle the snapshot does not have: estimated from the current report given.
        let (on, w) = book.work_on(&base, || None, "t/n/x", "b:8080", &model);
        assert_eq!((on.as_str(), w), ("b:8080", [0.0; 5]));
    }
}
