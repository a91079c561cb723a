//! A light copy of the cluster's load for the search: each broker's five resource usages and limits,
//! and each bundle's owner and the work it carries. The work is the one load model's
//! ([`crate::load::bundle_load::owner_work`], [`crate::load`]: a bundle's share of its owner's busy
//! usage), computed once against the snapshot as a plan's moves compute it, so a move costs O(1)
//! instead of a snapshot edit and the search's numbers are the final plan's.

use crate::load::LoadModel;
use crate::load::bundle_load::owner_work;
use crate::model::{ResourceUsage, Snapshot, SystemResourceUsage};
use crate::units::{ResourceWeights, modular_weighted_max_fraction};

pub use crate::load::Amounts;

#[derive(Clone, Debug)]
pub struct BundleEntry {
    pub name: String,
    /// Position of the owner in [`Ledger::brokers`].
    pub owner: usize,
    pub amounts: Amounts,
    /// Throughput in + out (what moving it costs the cluster).
    pub bytes_per_sec: f64,
}

#[derive(Clone, Debug)]
pub struct BrokerEntry {
    pub name: String,
    pub usage: SystemResourceUsage,
    /// Positions in [`Ledger::bundles`] of the bundles it owns now.
    pub bundles: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Ledger {
    pub brokers: Vec<BrokerEntry>,
    pub bundles: Vec<BundleEntry>,
    pub weights: ResourceWeights,
    /// Converts a moved bundle's work to its destination's cost (per-broker CPU factors).
    model: LoadModel,
}

fn parts(u: &mut SystemResourceUsage) -> [&mut ResourceUsage; 5] {
    [
        &mut u.cpu,
        &mut u.memory,
        &mut u.direct_memory,
        &mut u.bandwidth_in,
        &mut u.bandwidth_out,
    ]
}

impl Ledger {
    pub fn new(snapshot: &Snapshot, weights: ResourceWeights, model: &LoadModel) -> Ledger {
        let mut brokers = Vec::with_capacity(snapshot.brokers.len());
        let mut bundles = Vec::new();
        for (pos, (name, b)) in snapshot.brokers.iter().enumerate() {
            let local = &b.local_broker_data;
            let mut owned = Vec::with_capacity(local.bundles.len());
            let works = owner_work(snapshot, name, model)
                .map(|w| w.bundles)
                .unwrap_or_default();
            for w in works {
                owned.push(bundles.len());
                bundles.push(BundleEntry {
                    bytes_per_sec: w.load.stats.total_msg_throughput(),
                    name: w.bundle,
                    owner: pos,
                    amounts: w.work,
                });
            }
            brokers.push(BrokerEntry {
                name: name.clone(),
                usage: local.resource_usage(),
                bundles: owned,
            });
        }
        Ledger {
            brokers,
            bundles,
            weights,
            model: model.clone(),
        }
    }

    /// The weighted max usage (fraction) the plan's balance summary uses.
    pub fn usage_of(&self, broker: usize) -> f64 {
        self.brokers.get(broker).map_or(0.0, |b| {
            modular_weighted_max_fraction(&b.usage, &self.weights)
        })
    }

    /// The broker's usage if `amounts` were added (`sign` 1.0) or taken away (`sign` -1.0).
    pub fn usage_with(&self, broker: usize, amounts: &Amounts, sign: f64) -> f64 {
        let Some(b) = self.brokers.get(broker) else {
            return 0.0;
        };
        let mut u = b.usage;
        for (r, a) in parts(&mut u).into_iter().zip(amounts) {
            r.usage = (r.usage + sign * a).max(0.0);
        }
        modular_weighted_max_fraction(&u, &self.weights)
    }

    /// `amounts` of work on broker `from` as they cost on `to` (positions): the load model's rule,
    /// so the search predicts what the final plan does.
    pub fn carried(&self, amounts: &Amounts, from: usize, to: usize) -> Amounts {
        match (self.brokers.get(from), self.brokers.get(to)) {
            (Some(f), Some(t)) => self.model.carried(amounts, &f.name, &t.name),
            _ => *amounts,
        }
    }

    /// Moves a bundle (by position) to `to`.
    pub fn apply_move(&mut self, bundle: usize, to: usize) {
        let Some((from, amounts)) = self.bundles.get(bundle).map(|e| (e.owner, e.amounts)) else {
            return;
        };
        if from == to || to >= self.brokers.len() {
            return;
        }
        let arrived = self.carried(&amounts, from, to);
        let Some(entry) = self.bundles.get_mut(bundle) else {
            return;
        };
        entry.owner = to;
        entry.amounts = arrived;
        if let Some(b) = self.brokers.get_mut(from) {
            for (r, a) in parts(&mut b.usage).into_iter().zip(&amounts) {
                r.usage = (r.usage - a).max(0.0);
            }
            b.bundles.retain(|&x| x != bundle);
        }
        if let Some(b) = self.brokers.get_mut(to) {
            for (r, a) in parts(&mut b.usage).into_iter().zip(&arrived) {
                r.usage += a;
            }
            b.bundles.push(bundle);
        }
    }

    /// Max, mean, max/mean and std of the usages, as [`crate::plan::balance::summarize`] computes them.
    pub fn balance(&self) -> crate::plan::BalanceSummary {
        let usages: Vec<f64> = (0..self.brokers.len()).map(|i| self.usage_of(i)).collect();
        balance_of(&usages, &self.brokers)
    }
}

fn balance_of(usages: &[f64], brokers: &[BrokerEntry]) -> crate::plan::BalanceSummary {
    crate::plan::balance::balance_summary(
        usages.iter().copied(),
        brokers.iter().map(|b| b.bundles.len()),
    )
}
