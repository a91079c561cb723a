//! The plan's "after" view: the cluster as it will be once the plan's moves are made. A plan used to
//! copy the whole snapshot for it (on 1,000 brokers / 200,000 bundles a copy and a drop cost more
//! than the cycle); a move changes two brokers' reports and nothing else, so the view is the loaded
//! snapshot, borrowed, with copies of the brokers the plan changed laid over it. An operation that
//! changes more than reports (a split, a broker added or removed, the extensible manager's cycle)
//! asks for the whole snapshot ([`AfterView::to_mut`]): it is copied then, once, with the changed
//! brokers in it, and the plan works on the copy from there on. The NIC-speed override
//! (`loadBalancerOverrideBrokerNicSpeedGbps`, which the synthetic clusters set) changes every
//! broker's limits but nothing a move reads: the view notes it, applies it to each broker it copies
//! and to the broker views, and the loaded reports stay borrowed.
//!
//! The rules stay in one home: moves and loads are `load_model`'s, a move run on a snapshot holding
//! just the brokers concerned, a load read from the owner's copy (`bundle_load_from`: assembling
//! a snapshot around one report, once per unload of a what-if, cost more than the read); the broker
//! views are `balance::broker_views` of the changed brokers.

use indexmap::IndexMap;

use crate::config::LoadBalancerConfig;
use crate::model::{BrokerSnapshot, Snapshot};
use crate::units::ResourceWeights;

use super::balance::{broker_view, broker_views};
use crate::load::LoadModel;

use super::model::BrokerLoadView;
use crate::config::settings::{
    apply_nic_speed_override, nic_speed_limit_kbps, nic_speed_override_warning, set_nic_limits,
};
use crate::load::bundle_load::{
    BundleLoad, WorkBook, bundle_load, bundle_load_from, move_bundle_with, owner_of, owner_work_of,
};

/// How a plan's "after" view starts ([`super::PlanEngine::with_after_start`]). Both give the same
/// plans; they differ in what a plan copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AfterStart {
    /// The loaded snapshot borrowed, the changed brokers laid over it: what plans use.
    #[default]
    Overlay,
    /// A whole copy of the snapshot up front, as plans made it before the overlay: the
    /// reference the engine's tests compare the overlay with, and what `benches/plan_phases.rs`
    /// times the overlay against.
    WholeCopy,
}

pub(crate) struct AfterView<'s> {
    base: &'s Snapshot,
    /// The whole snapshot, once an operation needed it (then `changed` is empty).
    whole: Option<Snapshot>,
    /// The brokers the plan's moves changed, as they are now (the NIC override applied).
    changed: IndexMap<String, BrokerSnapshot>,
    /// The NIC-speed override's limit (Kbps) when it is in force and `whole` was not made: the
    /// loaded reports are read with it.
    nic_limit_kbps: Option<f64>,
    /// The one load model the moves follow, and each moved bundle's work estimated on `base`.
    model: LoadModel,
    book: WorkBook,
}

impl<'s> AfterView<'s> {
    /// The view of `base` before any change, under the default load model.
    #[cfg(test)]
    pub(crate) fn new(base: &'s Snapshot, start: AfterStart) -> Self {
        Self::with_model(base, start, LoadModel::default())
    }

    /// The view of `base` before any change; moves follow `model`.
    pub(crate) fn with_model(base: &'s Snapshot, start: AfterStart, model: LoadModel) -> Self {
        let mut view = Self {
            base,
            whole: None,
            changed: IndexMap::new(),
            nic_limit_kbps: None,
            model,
            book: WorkBook::default(),
        };
        if start == AfterStart::WholeCopy {
            view.to_mut();
        }
        view
    }

    /// The whole snapshot, to change as one: copied from the loaded one (with the brokers the plan
    /// changed so far) on the first call.
    pub(crate) fn to_mut(&mut self) -> &mut Snapshot {
        let changed = &mut self.changed;
        let base = self.base;
        let nic_limit_kbps = self.nic_limit_kbps.take();
        self.whole.get_or_insert_with(|| {
            let mut whole = base.clone();
            if let Some(limit) = nic_limit_kbps {
                for b in whole.brokers.values_mut() {
                    override_nic(b, limit);
                }
            }
            for (name, broker) in changed.drain(..) {
                if let Some(slot) = whole.brokers.get_mut(&name) {
                    *slot = broker;
                }
            }
            whole
        })
    }

    /// `loadBalancerOverrideBrokerNicSpeedGbps` under `cfg` on every broker of the view
    /// (`settings::apply_nic_speed_override`), and its warning; nothing when `cfg` has none.
    pub(crate) fn override_nic_speed(&mut self, cfg: &LoadBalancerConfig) -> Option<String> {
        if let Some(whole) = &mut self.whole {
            return apply_nic_speed_override(whole, cfg);
        }
        let limit = nic_speed_limit_kbps(cfg)?;
        for b in self.changed.values_mut() {
            override_nic(b, limit);
        }
        self.nic_limit_kbps = Some(limit);
        nic_speed_override_warning(cfg)
    }

    /// `balance::broker_views` of the view before any change: the loaded snapshot's, read with
    /// the NIC override when it is in force.
    pub(crate) fn broker_views_before(&self, weights: &ResourceWeights) -> Vec<BrokerLoadView> {
        self.brokers()
            .map(|(id, b)| broker_view(id, &b.local_broker_data, weights, self.nic_limit_kbps))
            .collect()
    }

    /// Everything of the view but the brokers' reports (the loaded snapshot's until the whole was
    /// asked for): namespaces, stored bundle data, the recently-unloaded list, the broker list.
    pub(crate) fn rest(&self) -> &Snapshot {
        self.whole.as_ref().unwrap_or(self.base)
    }

    /// A broker as it is now. Without the whole snapshot, a broker no move changed is the loaded
    /// one, without the NIC override: read its limits through [`Self::broker_views_before`].
    pub(crate) fn broker(&self, name: &str) -> Option<&BrokerSnapshot> {
        match &self.whole {
            Some(whole) => whole.brokers.get(name),
            None => self
                .changed
                .get(name)
                .or_else(|| self.base.brokers.get(name)),
        }
    }

    pub(crate) fn has_broker(&self, name: &str) -> bool {
        self.rest().brokers.contains_key(name)
    }

    /// Every broker in the snapshot's order, as it is now (limits as [`Self::broker`] says).
    pub(crate) fn brokers(&self) -> impl Iterator<Item = (&String, &BrokerSnapshot)> {
        self.rest()
            .brokers
            .iter()
            .map(|(name, b)| (name, self.changed.get(name).unwrap_or(b)))
    }

    /// `bundle_load::owner_of` on the view.
    pub(crate) fn owner_of(&self, bundle: &str) -> Option<String> {
        match &self.whole {
            Some(whole) => owner_of(whole, bundle),
            None => self
                .brokers()
                .find(|(_, b)| b.local_broker_data.bundles.iter().any(|x| x == bundle))
                .map(|(id, _)| id.clone()),
        }
    }

    /// `bundle_load::bundle_load` on the view.
    pub(crate) fn bundle_load(&self, owner: &str, bundle: &str) -> BundleLoad {
        if let Some(whole) = &self.whole {
            return bundle_load(whole, owner, bundle);
        }
        match self.changed.get(owner) {
            None => bundle_load(self.base, owner, bundle),
            // The stored data is the loaded snapshot's until the whole is copied.
            Some(b) => bundle_load_from(
                b.local_broker_data.last_stats.get(bundle),
                self.base.bundle_data.get(bundle),
            ),
        }
    }

    /// The work `bundle` carries out of `from` and into `to` ([`WorkBook`]: estimated once, on
    /// the loaded snapshot).
    fn work_of(&mut self, bundle: &str, from: &str, to: &str) -> ([f64; 5], [f64; 5]) {
        let mut book = std::mem::take(&mut self.book);
        let current = || {
            let b = self.broker(from)?;
            let local = &b.local_broker_data;
            let loads = local
                .bundles
                .iter()
                .map(|x| (x.clone(), self.bundle_load(from, x)))
                .collect();
            Some(owner_work_of(from, local, loads, &self.model))
        };
        let (on, work) = book.work_on(self.base, current, bundle, from, &self.model);
        self.book = book;
        (
            self.model.carried(&work, &on, from),
            self.model.carried(&work, &on, to),
        )
    }

    /// `bundle_load::move_bundle_with` on the view, the bundle's work from the [`WorkBook`]: the
    /// two brokers' copies change.
    pub(crate) fn move_bundle(&mut self, bundle: &str, from: &str, to: &str) -> Option<BundleLoad> {
        if from == to || !self.has_broker(to) {
            return None;
        }
        let (out, into) = self.work_of(bundle, from, to);
        if let Some(whole) = &mut self.whole {
            return move_bundle_with(whole, bundle, from, to, &out, &into);
        }
        let mut part = self.part(bundle, &[from, to]);
        let load = move_bundle_with(&mut part, bundle, from, to, &out, &into);
        self.put_back(&mut part);
        load
    }

    /// `balance::broker_views` of the view, given those of the loaded snapshot (`before`, in its
    /// broker order): only the changed brokers' are computed.
    pub(crate) fn broker_views(
        &mut self,
        weights: &ResourceWeights,
        before: &[BrokerLoadView],
    ) -> Vec<BrokerLoadView> {
        if let Some(whole) = &self.whole {
            return broker_views(whole, weights);
        }
        let mut views = before.to_vec();
        let part = Snapshot {
            brokers: std::mem::take(&mut self.changed),
            ..Snapshot::default()
        };
        for (view, (name, _)) in broker_views(&part, weights).into_iter().zip(&part.brokers) {
            if let Some(slot) = self
                .base
                .brokers
                .get_index_of(name)
                .and_then(|i| views.get_mut(i))
            {
                *slot = view;
            }
        }
        self.changed = part.brokers;
        views
    }

    /// A snapshot of just `brokers` (their current copies, moved out of the view, or the loaded
    /// ones copied) and the stored data of `bundle`: all `load_model` reads for one bundle.
    fn part(&mut self, bundle: &str, brokers: &[&str]) -> Snapshot {
        let mut part = Snapshot::default();
        for &name in brokers {
            let broker = match self.changed.swap_remove(name) {
                Some(b) => b,
                None => match self.base.brokers.get(name) {
                    Some(b) => {
                        let mut b = b.clone();
                        if let Some(limit) = self.nic_limit_kbps {
                            override_nic(&mut b, limit);
                        }
                        b
                    }
                    None => continue,
                },
            };
            part.brokers.insert(name.to_string(), broker);
        }
        if let Some(data) = self.base.bundle_data.get(bundle) {
            part.bundle_data.insert(bundle.to_string(), *data);
        }
        part
    }

    fn put_back(&mut self, part: &mut Snapshot) {
        self.changed.extend(part.brokers.drain(..));
    }
}

fn override_nic(b: &mut BrokerSnapshot, limit_kbps: f64) {
    let l = &mut b.local_broker_data;
    set_nic_limits(&mut l.bandwidth_in, &mut l.bandwidth_out, limit_kbps);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::bundle_load::owner_work;
    use crate::plan::balance::broker_views;
    use crate::rng::SplitMix64;
    use crate::simulate::builtin_snapshot;

    /// Moves on the view and on a whole copy give the same brokers, loads, owners and broker views;
    /// asking for the whole snapshot midway keeps the moves made so far. With the NIC-speed
    /// override, the view (which keeps the loaded reports) equals the copy it was applied to.
    #[test]
    fn moves_on_the_view_equal_moves_on_a_copy() {
        let base = builtin_snapshot("demo").unwrap();
        let plain =
            crate::config::LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
        let mut nic = plain.clone();
        nic.load_balancer_override_broker_nic_speed_gbps = Some(3.0);
        let weights = plain.resource_weights();
        for (whole_at, cfg) in [
            (usize::MAX, &plain),
            (5, &plain),
            (usize::MAX, &nic),
            (5, &nic),
        ] {
            let mut view = AfterView::new(&base, AfterStart::Overlay);
            let mut copy = base.clone();
            let overridden = cfg.load_balancer_override_broker_nic_speed_gbps.is_some();
            assert_eq!(
                view.override_nic_speed(cfg),
                crate::config::settings::apply_nic_speed_override(&mut copy, cfg)
            );
            let before = view.broker_views_before(&weights);
            assert_eq!(
                format!("{before:?}"),
                format!("{:?}", broker_views(&copy, &weights))
            );
            if overridden {
                assert_ne!(
                    format!("{before:?}"),
                    format!("{:?}", broker_views(&base, &weights))
                );
            }
            let mut rng = SplitMix64::new(17);
            let model = LoadModel::default();
            let mut book = WorkBook::default();
            for step in 0..30 {
                if step == whole_at {
                    assert!(*view.to_mut() == copy);
                }
                let n = base.brokers.len();
                let from = base.brokers.get_index(rng.below(n)).unwrap().0.clone();
                let to = base.brokers.get_index(rng.below(n)).unwrap().0.clone();
                let bundles = &copy.brokers[&from].local_broker_data.bundles;
                let Some(bundle) = bundles.get(rng.below(bundles.len().max(1))).cloned() else {
                    continue;
                };
                assert_eq!(view.owner_of(&bundle), owner_of(&copy, &bundle));
                assert_eq!(
                    view.bundle_load(&from, &bundle),
                    bundle_load(&copy, &from, &bundle)
                );
                let (on, w) = book.work_on(
                    &base,
                    || owner_work(&copy, &from, &model),
                    &bundle,
                    &from,
                    &model,
                );
                let (out, into) = (model.carried(&w, &on, &from), model.carried(&w, &on, &to));
                assert_eq!(
                    view.move_bundle(&bundle, &from, &to),
                    move_bundle_with(&mut copy, &bundle, &from, &to, &out, &into)
                );
                for (name, b) in &copy.brokers {
                    // Unchanged brokers are the loaded ones, their limits not overridden.
                    if !overridden || view.whole.is_some() || view.changed.contains_key(name) {
                        assert!(view.broker(name) == Some(b), "{name} after step {step}");
                    }
                }
                assert!(view.brokers().map(|(n, _)| n).eq(copy.brokers.keys()));
                assert_eq!(
                    format!("{:?}", view.broker_views(&weights, &before)),
                    format!("{:?}", broker_views(&copy, &weights))
                );
            }
            assert!(*view.to_mut() == copy);
        }
    }
}
