//! How much of each decision's explanation a plan carries, and one decision's full
//! explanation on demand.
//!
//! A plan at [`Explain::Full`] carries every decision's `detail`: the shedding rule and the whole
//! placement pipeline, each candidate named at each stage. On 1,000 brokers recording that is two
//! thirds of a what-if. At [`Explain::Summary`] placements run at `PipelineTrace::Counts` — all
//! that `reason` and `reason_text` read, so both are exactly Full's — and every `detail` is left
//! out (`null`), the plan's `explained` saying so. [`explain_decision`] gives one decision's detail
//! back: plans are deterministic in (snapshot, configuration, seed, operations), so re-planning the
//! same request at Full and picking the decision gives exactly the detail a Full plan carries.

use serde::{Deserialize, Serialize};

use super::detail::{SplitDetail, UnloadDetail};
pub use super::explain_level::{Explain, Explained};
use super::model::Plan;

/// Leaves out what `level` does not carry: below Full, every decision's `detail` (the outlook's
/// unloads included), and says so in `explained`.
pub(crate) fn leave_out(plan: &mut Plan, level: Explain) {
    if level == Explain::Full {
        return;
    }
    for u in &mut plan.unloads {
        u.detail = None;
    }
    for s in &mut plan.splits {
        s.detail = None;
    }
    if let Some(outlook) = &mut plan.outlook {
        for u in &mut outlook.unloads_then {
            u.detail = None;
        }
    }
    plan.explained = Some(Explained::of(level));
}

/// One decision of a plan, by what an operator sees in its row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecisionRef {
    /// The first unload of `bundle` in the plan's `unloads` (a manual unload, the cycle's, …).
    Unload { bundle: String },
    /// The unload of `bundle` the outlook foresees (`outlook.unloads_then`).
    OutlookUnload { bundle: String },
    /// The split of `bundle` (a bundle splits at most once in a plan).
    Split { bundle: String },
}

/// One decision's detail, as the Full plan's `detail` has it. Tagged by the decision's kind
/// (`{"unload": …}` / `{"split": …}`): a manual split's detail and a manual unload's have the same
/// keys. [`Self::detail_json`] is the bare detail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionDetail {
    Unload(UnloadDetail),
    Split(SplitDetail),
}

impl DecisionDetail {
    /// The detail as the plan's `detail` field holds it.
    pub fn detail_json(&self) -> serde_json::Value {
        match self {
            DecisionDetail::Unload(u) => serde_json::to_value(u),
            DecisionDetail::Split(s) => serde_json::to_value(s),
        }
        .unwrap_or(serde_json::Value::Null)
    }
}

/// The detail of the decision `which` names in `full`, a plan made at [`Explain::Full`]; `None`
/// when the plan has no such decision.
pub fn pick_detail(full: Plan, which: &DecisionRef) -> Option<DecisionDetail> {
    match which {
        DecisionRef::Unload { bundle } => full
            .unloads
            .into_iter()
            .find(|u| &u.bundle == bundle)
            .and_then(|u| u.detail)
            .map(DecisionDetail::Unload),
        DecisionRef::OutlookUnload { bundle } => full
            .outlook
            .into_iter()
            .flat_map(|o| o.unloads_then)
            .find(|u| &u.bundle == bundle)
            .and_then(|u| u.detail)
            .map(DecisionDetail::Unload),
        DecisionRef::Split { bundle } => full
            .splits
            .into_iter()
            .find(|s| &s.bundle == bundle)
            .and_then(|s| s.detail)
            .map(DecisionDetail::Split),
    }
}

#[cfg(test)]
mod tests {
    //! The light level is the Full plan without its details, and each detail asked for on demand
    //! is the one the Full plan carries (the Full plan is the independent reference: a plan made
    //! from scratch on a fresh engine).

    use super::*;
    use crate::model::Snapshot;
    use crate::modular::ShedReason;
    use crate::plan::UnloadDetail;
    use crate::plan::operations::Operation;
    use crate::plan::summary::unload_bytes_per_sec;
    use crate::plan::{PlanEngine, PlanRequest, explain_decision, make_plan};
    use crate::simulate::builtin_snapshot;
    use crate::synthetic::{NamespaceSpec, SyntheticSpec, generate};

    fn requests(snapshot: &Snapshot) -> Vec<PlanRequest> {
        let mut owners = snapshot
            .brokers
            .iter()
            .filter(|(_, b)| !b.local_broker_data.bundles.is_empty());
        let (_, first) = owners.next().unwrap();
        let (b1, second) = owners.next().unwrap();
        let bundle0 = first.local_broker_data.bundles[0].clone();
        let bundle1 = second.local_broker_data.bundles[0].clone();
        let namespace = crate::modular::load_data::namespace_of_bundle(&bundle1).to_string();
        let with = |ops: &[String]| PlanRequest {
            operations: ops.iter().map(|t| Operation::parse(t).unwrap()).collect(),
            ..PlanRequest::leader_cycle()
        };
        let shedder = |name: &str| PlanRequest {
            settings: vec![(
                "loadBalancerLoadSheddingStrategy".to_string(),
                format!("org.apache.pulsar.broker.loadbalance.impl.{name}"),
            )],
            ..PlanRequest::leader_cycle()
        };
        vec![
            PlanRequest::leader_cycle(),
            with(&[format!("unload-bundle={bundle0}")]),
            with(&[
                format!("unload-bundle={bundle0}->{b1}"),
                format!("unload-namespace={namespace}"),
            ]),
            with(&[format!("split-bundle={bundle1}")]),
            with(&[format!("remove-broker={b1}")]),
            shedder("ThresholdShedder"),
            shedder("OverloadShedder"),
            shedder("UniformLoadShedder"),
            PlanRequest {
                settings: vec![("loadBalancerNamespaceBundleMaxTopics".into(), "1".into())],
                ..PlanRequest::leader_cycle()
            },
            PlanRequest {
                settings: vec![(
                    "loadManagerClassName".into(),
                    "org.apache.pulsar.broker.loadbalance.extensions.ExtensibleLoadManagerImpl"
                        .into(),
                )],
                ..with(&[format!("unload-bundle={bundle0}")])
            },
        ]
    }

    fn summary(req: &PlanRequest) -> PlanRequest {
        PlanRequest {
            explain: Explain::Summary,
            ..req.clone()
        }
    }

    /// `plan` with its details and `explained` cleared: what a Summary plan must equal.
    fn without_details(mut plan: Plan) -> Plan {
        for u in &mut plan.unloads {
            u.detail = None;
        }
        for s in &mut plan.splits {
            s.detail = None;
        }
        if let Some(o) = &mut plan.outlook {
            for u in &mut o.unloads_then {
                u.detail = None;
            }
        }
        plan.explained = None;
        plan
    }

    fn clusters() -> Vec<Snapshot> {
        vec![
            builtin_snapshot("demo").unwrap(),
            builtin_snapshot("pr-16059").unwrap(),
            generate(
                &SyntheticSpec {
                    brokers: 30,
                    namespaces: NamespaceSpec::numbered(40, 10, 16),
                    ..SyntheticSpec::bench()
                },
                7,
            )
            .unwrap(),
        ]
    }

    #[test]
    fn a_summary_plan_is_the_full_plan_without_details_and_each_detail_comes_on_demand() {
        let (mut unloads, mut splits, mut outlook_unloads, mut placed) = (0, 0, 0, 0);
        for (c, snapshot) in clusters().into_iter().enumerate() {
            let mut engine = PlanEngine::new(snapshot.clone());
            let mut reqs = requests(&snapshot);
            if c == 1 {
                // pr-16059 is the largest: its own cycle under two shedders (debug builds are slow).
                reqs.truncate(1);
                reqs.push(requests(&snapshot).swap_remove(5));
            }
            for req in reqs {
                let full = make_plan(&snapshot, &req).unwrap();
                assert_eq!(full.explained, None);
                let light = engine.plan(&summary(&req)).unwrap();
                let explained = light.explained.clone().unwrap();
                assert_eq!(explained.level, Explain::Summary);
                assert!(light.unloads.iter().all(|u| u.detail.is_none()));
                assert!(light.splits.iter().all(|s| s.detail.is_none()));
                // A move is quoted with the figure its shedder used (the detail's), details or not.
                for (l, f) in light.unloads.iter().zip(&full.unloads) {
                    let shedder = match f.detail.as_ref().and_then(UnloadDetail::shed_reason) {
                        Some(
                            ShedReason::ThresholdShedder {
                                bundle_bytes_per_sec,
                                ..
                            }
                            | ShedReason::OverloadShedder {
                                bundle_bytes_per_sec,
                                ..
                            },
                        ) if bundle_bytes_per_sec.is_finite() => *bundle_bytes_per_sec,
                        _ => f.bytes_per_sec,
                    };
                    assert_eq!(unload_bytes_per_sec(l).to_bits(), shedder.to_bits());
                    assert_eq!(unload_bytes_per_sec(f).to_bits(), shedder.to_bits());
                }
                assert_eq!(
                    serde_json::to_string(&without_details(light)).unwrap(),
                    serde_json::to_string(&without_details(full.clone())).unwrap(),
                    "{:?} {:?}",
                    req.settings,
                    req.operations
                );
                // Every decision as the on-demand path picks it from the Full re-plan on the kept
                // engine, and the API itself for the first and last of each kind (each call is a
                // whole plan: debug builds are slow).
                let replanned = engine
                    .plan_decisions(&PlanRequest {
                        explain: Explain::Full,
                        ..summary(&req)
                    })
                    .unwrap();
                let ask = |engine: &mut PlanEngine<'_>, which: DecisionRef| {
                    explain_decision(engine, &summary(&req), &which).unwrap()
                };
                for (i, u) in full.unloads.iter().enumerate() {
                    let first = full.unloads.iter().find(|x| x.bundle == u.bundle).unwrap();
                    let which = DecisionRef::Unload {
                        bundle: u.bundle.clone(),
                    };
                    let want = first.detail.clone().map(DecisionDetail::Unload);
                    assert!(want.is_some());
                    assert_eq!(pick_detail(replanned.clone(), &which), want);
                    if i == 0 || i + 1 == full.unloads.len() {
                        assert_eq!(ask(&mut engine, which), want);
                    }
                    unloads += 1;
                    placed += usize::from(matches!(
                        u.detail,
                        Some(UnloadDetail::Shedding { .. } | UnloadDetail::Placed { .. })
                    ));
                }
                for (i, u) in full
                    .outlook
                    .iter()
                    .flat_map(|o| &o.unloads_then)
                    .enumerate()
                {
                    let which = DecisionRef::OutlookUnload {
                        bundle: u.bundle.clone(),
                    };
                    let want = u.detail.clone().map(DecisionDetail::Unload);
                    assert!(want.is_some());
                    assert_eq!(pick_detail(replanned.clone(), &which), want);
                    if i == 0 {
                        assert_eq!(ask(&mut engine, which), want);
                    }
                    outlook_unloads += 1;
                }
                for (i, s) in full.splits.iter().enumerate() {
                    let which = DecisionRef::Split {
                        bundle: s.bundle.clone(),
                    };
                    let want = s.detail.clone().map(DecisionDetail::Split);
                    assert!(want.is_some());
                    assert_eq!(pick_detail(replanned.clone(), &which), want);
                    if i == 0 {
                        assert_eq!(ask(&mut engine, which), want);
                    }
                    splits += 1;
                }
                let none = explain_decision(
                    &mut engine,
                    &req,
                    &DecisionRef::Split {
                        bundle: "no/such/0x00000000_0xffffffff".into(),
                    },
                )
                .unwrap();
                assert_eq!(none, None);
            }
        }
        // Every kind of decision was compared, most placed by the pipeline.
        assert!(unloads >= 20 && placed >= 10, "{unloads} {placed}");
        assert!(splits >= 2, "{splits}");
        assert!(outlook_unloads >= 1, "{outlook_unloads}");
    }

    #[test]
    fn a_full_plan_has_no_explained_and_a_plan_without_it_reads() {
        let snapshot = builtin_snapshot("demo").unwrap();
        let full = make_plan(&snapshot, &PlanRequest::leader_cycle()).unwrap();
        let text = serde_json::to_string(&full).unwrap();
        assert!(!text.contains("\"explained\""));
        let back: Plan = serde_json::from_str(&text).unwrap();
        assert_eq!(back, full);
        let light = make_plan(&snapshot, &summary(&PlanRequest::leader_cycle())).unwrap();
        let text = serde_json::to_string(&light).unwrap();
        assert!(text.contains(r#""explained":{"level":"summary","left_out":"#));
        assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), light);
    }

    #[test]
    fn levels_are_named_as_the_json_spells_them() {
        for level in [Explain::Full, Explain::Summary] {
            assert_eq!(Explain::parse(level.name()), Some(level));
            assert_eq!(
                serde_json::to_string(&level).unwrap(),
                format!("\"{}\"", level.name())
            );
        }
        assert_eq!(Explain::parse("none"), None);
    }
}
