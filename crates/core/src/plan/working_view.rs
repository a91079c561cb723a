//! The leader's view of the snapshot a plan is changing. A plan starts from a loaded snapshot whose
//! view (a [`LeaderState`]) the [`super::engine::PlanEngine`] keeps; its manual operations change
//! the plan's own copy of the snapshot, and the cycle must see the view of that copy. Building it
//! from scratch costs a walk of every bundle; a move changes two brokers' reports, so the kept view
//! is lent to the plan, brought up to date with the brokers the operations changed (their held
//! reports saved first), and given back with the saved reports when the plan ends (also on an
//! error: `Drop`).
//!
//! The kept view is of the snapshot as the plan's configuration sees it:
//! `loadBalancerOverrideBrokerNicSpeedGbps` rewrites every broker's bandwidth limits, so the view
//! is tagged with that value and rebuilt when a plan asks for another. An operation that changes
//! the broker list or the set of bundles (adding or removing a broker, a split) gives the plan a
//! view of its own, built from its snapshot as before; the kept one is given back at once.

use indexmap::IndexMap;

use crate::config::LoadBalancerConfig;
use crate::model::{LocalBrokerData, Snapshot};

use super::after_view::AfterView;
use crate::config::settings::{nic_speed_limit_kbps, set_nic_limits};
use crate::leader::state::LeaderState;

/// The engine's view of its snapshot under one NIC-speed override.
pub(crate) struct KeptView {
    /// `loadBalancerOverrideBrokerNicSpeedGbps` (its bits) the view was built under.
    nic_override: Option<u64>,
    state: LeaderState,
}

impl KeptView {
    /// The view of `snapshot` (the engine's, before any override) as `cfg` sees it.
    pub(crate) fn new(snapshot: &Snapshot, cfg: &LoadBalancerConfig) -> Self {
        let mut state = LeaderState::new(snapshot);
        if let Some(limit_kbps) = nic_speed_limit_kbps(cfg) {
            // `settings::apply_nic_speed_override` on the view's reports: nothing else in the
            // view reads the limits (applying it again to reports that have it changes nothing).
            for b in state.data_mut().brokers.values_mut() {
                set_nic_limits(
                    &mut b.local.bandwidth_in,
                    &mut b.local.bandwidth_out,
                    limit_kbps,
                );
            }
        }
        Self {
            nic_override: tag(cfg),
            state,
        }
    }

    #[cfg(test)]
    pub(crate) fn state(&self) -> &LeaderState {
        &self.state
    }
}

fn tag(cfg: &LoadBalancerConfig) -> Option<u64> {
    cfg.load_balancer_override_broker_nic_speed_gbps
        .map(f64::to_bits)
}

pub(crate) struct WorkingView<'k> {
    /// The engine's view (built on first use, or again for another NIC override).
    kept: &'k mut Option<KeptView>,
    /// The plan works on `kept` (else on `own`).
    lent: bool,
    own: Option<LeaderState>,
    /// Brokers whose reports the plan's snapshot changed.
    changed: Vec<String>,
    /// The kept view's reports of the `changed` brokers before the plan changed them, and its
    /// recently-unloaded list (a cycle rewrites it): what is given back.
    saved: Vec<(String, LocalBrokerData)>,
    saved_recently_unloaded: IndexMap<String, i64>,
    /// The view has not seen the latest changes in `changed`.
    stale: bool,
    /// `own` must be built again (the broker list or the bundle set changed).
    rebuild: bool,
}

impl<'k> WorkingView<'k> {
    /// The view of `work`, the plan's snapshot before any operation (its NIC limits as loaded or
    /// already overridden), under `cfg`. `needed`: the plan will read the view (else nothing is
    /// built).
    pub(crate) fn new(
        work: &Snapshot,
        cfg: &LoadBalancerConfig,
        kept: &'k mut Option<KeptView>,
        needed: bool,
    ) -> Self {
        let mut saved_recently_unloaded = IndexMap::new();
        if needed {
            if kept.as_ref().map(|k| k.nic_override) != Some(tag(cfg)) {
                *kept = Some(KeptView::new(work, cfg));
            }
            if let Some(k) = kept.as_ref() {
                saved_recently_unloaded.clone_from(&k.state.data().recently_unloaded);
            }
        }
        Self {
            lent: needed,
            kept,
            own: None,
            changed: Vec::new(),
            saved: Vec::new(),
            saved_recently_unloaded,
            stale: false,
            rebuild: true,
        }
    }

    /// The plan's snapshot changed these brokers' reports (a bundle moved between them).
    pub(crate) fn touched<'a>(&mut self, brokers: impl IntoIterator<Item = &'a str>) {
        for b in brokers {
            if !self.changed.iter().any(|c| c == b) {
                self.changed.push(b.to_string());
            }
        }
        self.stale = true;
    }

    /// The plan's snapshot changed its broker list or its bundles: from now on the plan has a
    /// view of its own, and the kept one is given back.
    pub(crate) fn restructured(&mut self) {
        self.give_back();
        self.lent = false;
        self.rebuild = true;
    }

    /// The leader's view of `work`, the plan's after view.
    pub(crate) fn get(&mut self, work: &mut AfterView<'_>) -> &mut LeaderState {
        let stale = std::mem::replace(&mut self.stale, false);
        if self.lent
            && let Some(kept) = self.kept.as_mut()
        {
            let state = &mut kept.state;
            if stale {
                for name in &self.changed {
                    if !self.saved.iter().any(|(n, _)| n == name)
                        && let Some(report) = state.report(name)
                    {
                        self.saved.push((name.clone(), report.clone()));
                    }
                }
                // Only moves happened since the view was lent (anything else restructured): the
                // broker list and the stored bundle data are the view's.
                state.replace_reports(
                    self.changed.iter().filter_map(|name| {
                        work.broker(name)
                            .map(|b| (name.as_str(), &b.local_broker_data))
                    }),
                    &work.rest().recently_unloaded_bundles,
                );
            }
            return state;
        }
        self.lent = false;
        // A view of the plan's own follows a change of the broker list or the bundle set, made
        // on the whole snapshot.
        let work = work.to_mut();
        let rebuild = std::mem::replace(&mut self.rebuild, false);
        match &mut self.own {
            Some(state) if !rebuild => {
                if stale {
                    state.update_brokers(work, &self.changed);
                }
            }
            _ => self.own = Some(LeaderState::new(work)),
        }
        self.own.get_or_insert_with(|| LeaderState::new(work))
    }

    /// Gives the kept view back as it was lent: the saved reports and recently-unloaded list.
    fn give_back(&mut self) {
        if !self.lent {
            return;
        }
        self.lent = false;
        if let Some(kept) = self.kept.as_mut() {
            kept.state.replace_reports(
                self.saved.iter().map(|(n, r)| (n.as_str(), r)),
                &self.saved_recently_unloaded,
            );
        }
    }
}

impl Drop for WorkingView<'_> {
    fn drop(&mut self) {
        self.give_back();
    }
}
