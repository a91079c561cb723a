//! The plan engine kept per loaded snapshot: the snapshot, its fingerprint and the
//! leader's view of it ([`LeaderState`]), built once; each plan asked of it — a leader cycle, manual
//! what-ifs, other settings or strategies, the verdict's alternatives — runs on the kept view and
//! gives it back as it was, so a plan costs its cycle and its changes, not a rebuild of every
//! bundle. [`super::make_plan`] is an engine built for one plan: there is one driver.

use std::borrow::Cow;

use crate::load::LoadModel;
use crate::model::Snapshot;

use super::after_view::AfterStart;
use super::driver::plan_once;
use super::explain::{DecisionDetail, DecisionRef, Explain, pick_detail};
use super::model::Plan;
use super::request::{PlanError, PlanRequest};
use super::working_view::KeptView;
use crate::config::settings::resolve_config;
use crate::model::fingerprint::snapshot_fingerprint;

/// Plans `req` on `snapshot`; the plan names the snapshot by [`snapshot_fingerprint`] (computed here,
/// which on a large snapshot costs more than the leader cycle: see [`make_plan_with_fingerprint`]).
pub fn make_plan(snapshot: &Snapshot, req: &PlanRequest) -> Result<Plan, PlanError> {
    make_plan_with_fingerprint(snapshot, req, snapshot_fingerprint(snapshot))
}

/// [`make_plan`] with the snapshot's fingerprint already known: callers that keep one snapshot loaded
/// and plan on it repeatedly (the web app, the worker) compute
/// `model::fingerprint::snapshot_fingerprint(&snapshot)` once and pass it here. The value is copied into
/// `Plan::snapshot_fingerprint` as given.
pub fn make_plan_with_fingerprint(
    snapshot: &Snapshot,
    req: &PlanRequest,
    fingerprint: String,
) -> Result<Plan, PlanError> {
    PlanEngine::with_fingerprint(std::borrow::Cow::Borrowed(snapshot), fingerprint).plan(req)
}

/// A loaded snapshot ready to be planned on repeatedly.
pub struct PlanEngine<'s> {
    snapshot: Cow<'s, Snapshot>,
    fingerprint: String,
    /// The leader's view of `snapshot`, built by [`Self::prepare`] or the first plan that needs
    /// it (an extensible-only or structural what-if never does).
    view: Option<KeptView>,
    /// How each plan's "after" view starts (the overlay unless [`Self::with_after_start`] says).
    after_start: AfterStart,
    /// The one load model its plans predict with (a calibration's CPU cost factors, if any).
    load_model: LoadModel,
}

impl PlanEngine<'static> {
    /// An engine owning `snapshot`; its fingerprint is computed here.
    pub fn new(snapshot: Snapshot) -> Self {
        let fingerprint = snapshot_fingerprint(&snapshot);
        Self::with_fingerprint(Cow::Owned(snapshot), fingerprint)
    }
}

impl<'s> PlanEngine<'s> {
    /// An engine borrowing `snapshot`; its fingerprint is computed here.
    pub fn new_borrowed(snapshot: &'s Snapshot) -> Self {
        let fingerprint = snapshot_fingerprint(snapshot);
        Self::with_fingerprint(Cow::Borrowed(snapshot), fingerprint)
    }

    /// An engine on `snapshot` whose fingerprint the caller already knows (copied into each plan's
    /// `snapshot_fingerprint` as given).
    pub fn with_fingerprint(snapshot: Cow<'s, Snapshot>, fingerprint: String) -> Self {
        Self {
            snapshot,
            fingerprint,
            view: None,
            after_start: AfterStart::Overlay,
            load_model: LoadModel::default(),
        }
    }

    /// This engine with its plans' predictions made by `model` (`lbplan plan --calibration`).
    pub fn with_load_model(mut self, model: LoadModel) -> Self {
        self.load_model = model;
        self
    }

    /// Predicts this engine's next plans with `model` (a calibration loaded or cleared while the
    /// snapshot stays): the kept leader's view does not depend on it. Whether it changed, so a
    /// caller can drop what it kept from plans made with the old one.
    pub fn set_load_model(&mut self, model: LoadModel) -> bool {
        let changed = self.load_model != model;
        self.load_model = model;
        changed
    }

    pub fn load_model(&self) -> &LoadModel {
        &self.load_model
    }

    /// This engine with its plans' "after" views started as `start` says: a whole copy is the
    /// reference the overlay is checked and timed against.
    pub fn with_after_start(mut self, start: AfterStart) -> Self {
        self.after_start = start;
        self
    }

    /// Builds the leader's view now, as the snapshot's own configuration sees it, rather than in
    /// the first plan (what "loading" costs). A configuration that does not resolve is left to the
    /// plan, which reports it.
    pub fn prepare(&mut self) -> &mut Self {
        if self.view.is_none()
            && let Ok(resolved) = resolve_config(&self.snapshot, None, &[])
        {
            self.view = Some(KeptView::new(&self.snapshot, &resolved.config));
        }
        self
    }

    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The plan `req` asks for: exactly [`super::make_plan_with_fingerprint`]'s, alternatives
    /// included. The kept view is the same afterwards whatever the plan did.
    pub fn plan(&mut self, req: &PlanRequest) -> Result<Plan, PlanError> {
        let snapshot: &Snapshot = &self.snapshot;
        let view = &mut self.view;
        let fingerprint = &self.fingerprint;
        let start = self.after_start;
        let model = &self.load_model;
        let mut plan = plan_once(snapshot, view, req, fingerprint.clone(), start, model)?;
        super::verdict::add_alternatives(&mut plan, req, |alt| {
            plan_once(snapshot, view, alt, fingerprint.clone(), start, model)
        });
        Ok(plan)
    }

    /// The plan `req` asks for without the verdict's alternatives (no decision depends on them):
    /// what [`super::explain_decision`] re-plans.
    pub(crate) fn plan_decisions(&mut self, req: &PlanRequest) -> Result<Plan, PlanError> {
        let start = self.after_start;
        plan_once(
            &self.snapshot,
            &mut self.view,
            req,
            self.fingerprint.clone(),
            start,
            &self.load_model,
        )
    }
}

/// The detail of the decision `which` in the plan `req` asks for, whatever `req.explain` says:
/// `req` planned again at Full on `engine` (the kept view; the verdict's alternatives, which no
/// decision depends on, are not planned). `Ok(None)` when the plan has no such decision.
pub fn explain_decision(
    engine: &mut PlanEngine<'_>,
    req: &PlanRequest,
    which: &DecisionRef,
) -> Result<Option<DecisionDetail>, PlanError> {
    let full = PlanRequest {
        explain: Explain::Full,
        ..req.clone()
    };
    Ok(pick_detail(engine.plan_decisions(&full)?, which))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::operations::Operation;
    use crate::simulate::builtin_snapshot;
    use crate::synthetic::{NamespaceSpec, SyntheticSpec, generate};

    fn ops(texts: &[&str]) -> Vec<Operation> {
        texts.iter().map(|t| Operation::parse(t).unwrap()).collect()
    }

    /// Requests of every kind against `snapshot`: the cycle alone, manual moves (placed and to a
    /// destination), a namespace unload, structural what-ifs, other settings and strategies, the
    /// extensible manager, no cycle.
    fn requests(snapshot: &Snapshot) -> Vec<PlanRequest> {
        let mut owners = snapshot
            .brokers
            .iter()
            .filter(|(_, b)| !b.local_broker_data.bundles.is_empty());
        let (b0, first) = owners.next().unwrap();
        let (b1, second) = owners.next().unwrap();
        let bundle0 = first.local_broker_data.bundles[0].clone();
        let bundle1 = second.local_broker_data.bundles[0].clone();
        let namespace = crate::modular::load_data::namespace_of_bundle(&bundle1).to_string();
        let cycle = PlanRequest::leader_cycle();
        let with = |operations: Vec<Operation>| PlanRequest {
            operations,
            ..PlanRequest::leader_cycle()
        };
        let set = |settings: &[(&str, &str)]| PlanRequest {
            settings: settings
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..PlanRequest::leader_cycle()
        };
        vec![
            cycle.clone(),
            with(ops(&[&format!("unload-bundle={bundle0}")])),
            with(ops(&[&format!("unload-bundle={bundle1}->{b0}")])),
            with(ops(&[
                &format!("unload-bundle={bundle0}->{b1}"),
                &format!("unload-bundle={bundle1}"),
                &format!("unload-namespace={namespace}"),
            ])),
            with(ops(&[&format!("split-bundle={bundle0}")])),
            with(ops(&[
                &format!("unload-bundle={bundle1}"),
                "add-broker=added.example:8080",
                &format!("unload-bundle={bundle0}"),
            ])),
            with(ops(&[&format!("remove-broker={b1}")])),
            with(ops(&["set=loadBalancerBrokerThresholdShedderPercentage=1"])),
            set(&[(
                "loadBalancerLoadSheddingStrategy",
                "org.apache.pulsar.broker.loadbalance.impl.OverloadShedder",
            )]),
            set(&[(
                "loadBalancerLoadPlacementStrategy",
                "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight",
            )]),
            set(&[("loadBalancerOverrideBrokerNicSpeedGbps", "1")]),
            set(&[(
                "loadManagerClassName",
                "org.apache.pulsar.broker.loadbalance.extensions.ExtensibleLoadManagerImpl",
            )]),
            PlanRequest {
                leader_cycle: false,
                seed: 3,
                ..with(ops(&[&format!("unload-bundle={bundle0}")]))
            },
            PlanRequest {
                seed: 9,
                ..with(ops(&["unload-bundle=no/such/0x00000000_0x10000000"]))
            },
        ]
    }

    fn same(a: &Result<Plan, PlanError>, b: &Result<Plan, PlanError>) -> bool {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                serde_json::to_string(a).unwrap() == serde_json::to_string(b).unwrap()
            }
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }

    /// One engine answers a sequence of different requests, in several orders, with exactly the
    /// plans fresh engines give that copy the whole snapshot for the plan's "after" view (as plans
    /// did before the overlay of changed brokers).
    #[test]
    fn one_engine_plans_like_fresh_make_plan_in_any_order() {
        let demo = builtin_snapshot("demo").unwrap();
        // The simulator's model (log-uniform traffic, bare reports) on 20 brokers.
        let synthetic = generate(
            &SyntheticSpec {
                brokers: 20,
                namespaces: NamespaceSpec::numbered(40, 10, 16),
                ..SyntheticSpec::bench()
            },
            5,
        )
        .unwrap();
        for snapshot in [demo, synthetic] {
            let reqs = requests(&snapshot);
            // The reference: fresh plans on a whole copy of the snapshot (the after view as it
            // was before the overlay of changed brokers).
            let fresh: Vec<_> = reqs
                .iter()
                .map(|r| {
                    PlanEngine::with_fingerprint(
                        std::borrow::Cow::Borrowed(&snapshot),
                        crate::model::fingerprint::snapshot_fingerprint(&snapshot),
                    )
                    .with_after_start(AfterStart::WholeCopy)
                    .plan(r)
                })
                .collect();
            assert!(fresh.iter().filter(|p| p.is_ok()).count() >= reqs.len() - 1);
            let n = reqs.len();
            let orders: Vec<Vec<usize>> = vec![
                (0..n).collect(),
                (0..n).rev().collect(),
                (0..n).map(|i| (i * 5 + 3) % n).collect(),
            ];
            for order in orders {
                let mut engine = PlanEngine::new(snapshot.clone());
                for &i in &order {
                    let got = engine.plan(&reqs[i]);
                    assert!(
                        same(&got, &fresh[i]),
                        "request {i} ({:?}) differs on the kept engine (order {order:?})",
                        reqs[i].operations
                    );
                }
                // The kept view is the loaded snapshot's again (after a plan under the
                // snapshot's own NIC setting, which the NIC request changed).
                assert!(same(&engine.plan(&reqs[0]), &fresh[0]));
                let kept = engine.view.as_ref().unwrap();
                let cfg = resolve_config(&snapshot, None, &[]).unwrap().config;
                let fresh_view = KeptView::new(&snapshot, &cfg);
                assert!(
                    format!("{:?}", kept.state().data())
                        == format!("{:?}", fresh_view.state().data())
                );
            }
        }
    }
}
