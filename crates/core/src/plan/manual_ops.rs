//! The operator's manual operations in a plan (`UnloadBundle`, `UnloadNamespace`, `SplitBundle`,
//! `RemoveBroker`, …), applied to the plan's after view before the leader's cycle runs. A bundle
//! unloaded without a destination is placed as Pulsar's lookup would (`selectBrokerForAssignment`)
//! on the leader's view.

use crate::model::BrokerSnapshot;
use crate::modular::LoadData;
use crate::modular::pipeline::{PlacementContext, SelectionPath};
use crate::naming::BrokerNames;
use crate::reason::{DecisionReason, ReasonKind};
use crate::split::SplitAlgorithm;

use super::model::{
    PlacedOperation, Plan, PlannedUnload, SkipScope, SkippedDecision, SplitDetail, UnloadDetail,
};
use super::operations::Operation;
use super::reasons::{describe_placement, with_placement};
use super::request::{PlanError, Workspace, op_error};
use super::split_records::planned_split;
use super::splits::{apply_split, compute_split};
use super::working_view::WorkingView;
use crate::leader::context::placement_context;
use crate::leader::view::load_data_from_snapshot;
use crate::load::bundle_load::owner_of;
use crate::naming::{check_broker_id as check_broker, check_namespace, check_topic};

/// Places `bundle` as a lookup after an unload would (`selectBrokerForAssignment`), on the leader view
/// `data`, and moves it in the workspace snapshot.
fn place_and_move(
    ws: &mut Workspace<'_>,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
    bundle: &str,
    from: &str,
    kind: ReasonKind,
) -> Option<PlannedUnload> {
    let (origin, operation) = match kind {
        ReasonKind::RemoveBroker => ("remove-broker", PlacedOperation::RemoveBroker),
        ReasonKind::NamespaceUnload => ("manual", PlacedOperation::NamespaceUnload),
        _ => ("manual", PlacedOperation::ManualUnload),
    };
    let bundle_data = data.bundle_data.get(bundle).copied().unwrap_or_default();
    let outcome = ws
        .leader
        .place(bundle, &bundle_data, SelectionPath::Assignment, data, ctx);
    let to = outcome.broker.clone()?;
    let load = ws.after.bundle_load(from, bundle);
    if to != from {
        ws.after.move_bundle(bundle, from, &to);
    }
    Some(PlannedUnload {
        bundle: bundle.to_string(),
        from: from.to_string(),
        to: Some(to),
        pass_destination: false,
        reason: with_placement(DecisionReason::new(kind), &outcome),
        reason_text: format!("{}; {}", operation.words(), describe_placement(&outcome)),
        detail: Some(UnloadDetail::Placed {
            operation,
            placement: Box::new(outcome),
        }),
        bytes_per_sec: load.bytes_per_sec(),
        msg_per_sec: load.msg_per_sec(),
        origin: origin.to_string(),
    })
}

/// Places each (bundle, owner) with [`place_and_move`] on the leader's view of the workspace
/// snapshot (one view for all, as one operation: preallocations accumulate), then takes the
/// placements back out of the view and tells it which reports the moves changed.
fn place_all(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    owned: &[(String, String)],
    kind: ReasonKind,
) -> Vec<Option<PlannedUnload>> {
    let state = view.get(&mut ws.after);
    let bundle_data_len = state.data().bundle_data.len();
    let mut ctx = state.take_context();
    ctx.trace = ws.trace;
    let placed: Vec<Option<PlannedUnload>> = owned
        .iter()
        .map(|(bundle, from)| place_and_move(ws, state.data_mut(), &mut ctx, bundle, from, kind))
        .collect();
    state.restore_context(ctx);
    state.forget_placements(bundle_data_len);
    view.touched(
        placed
            .iter()
            .flatten()
            .flat_map(|u| std::iter::once(u.from.as_str()).chain(u.to.as_deref())),
    );
    placed
}

/// Applies one manual operation to the plan's after view and records what it did in `plan`.
pub(super) fn apply_operation(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    op: &Operation,
    plan: &mut Plan,
) -> Result<(), PlanError> {
    match op {
        Operation::SetConfig { .. } => Ok(()),
        Operation::UnloadTopic { topic } => {
            check_topic(topic).map_err(|e| op_error(op, e.to_string()))?;
            plan.topic_unloads.push(topic.clone());
            Ok(())
        }
        Operation::UnloadBundle {
            bundle,
            destination_broker,
        } => unload_bundle(ws, view, op, bundle, destination_broker.as_deref(), plan),
        Operation::UnloadNamespace { namespace } => unload_namespace(ws, view, op, namespace, plan),
        Operation::AddBroker { broker, like } => add_broker(ws, view, op, broker, like.as_deref()),
        Operation::RemoveBroker { broker } => remove_broker(ws, view, op, broker, plan),
        Operation::SplitBundle {
            bundle,
            algorithm,
            positions,
        } => split_bundle(ws, view, op, bundle, algorithm.as_deref(), positions, plan),
    }
}

/// `unload-bundle=B[->TO]`: to the broker named (a short name read back), or placed as a lookup
/// after the unload would place it.
fn unload_bundle(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    op: &Operation,
    bundle: &str,
    destination_broker: Option<&str>,
    plan: &mut Plan,
) -> Result<(), PlanError> {
    let from = ws
        .after
        .owner_of(bundle)
        .ok_or_else(|| op_error(op, "no broker in the snapshot owns this bundle"))?;
    let Some(typed) = destination_broker else {
        let unload = place_all(
            ws,
            view,
            &[(bundle.to_string(), from)],
            ReasonKind::ManualUnload,
        )
        .into_iter()
        .flatten()
        .next()
        .ok_or_else(|| op_error(op, "no broker is available to take the bundle"))?;
        plan.unloads.push(unload);
        return Ok(());
    };
    // A short name (`broker-03`, as the texts print it) is read back by the one rule; a name that
    // is no broker says which it may have meant.
    let resolved = if ws.after.has_broker(typed) {
        typed.to_string()
    } else {
        BrokerNames::new(ws.after.brokers().map(|(id, _)| id.as_str()))
            .resolve_or_explain(typed, "destination broker")
            .map_err(|e| op_error(op, e))?
    };
    let to = &resolved;
    check_broker(to).map_err(|e| op_error(op, e.to_string()))?;
    if *to == from {
        return Err(op_error(op, format!("`{to}` already owns the bundle")));
    }
    let load = ws
        .after
        .move_bundle(bundle, &from, to)
        .ok_or_else(|| op_error(op, "the bundle could not be moved"))?;
    view.touched([from.as_str(), to.as_str()]);
    plan.unloads.push(PlannedUnload {
        bundle: bundle.to_string(),
        from,
        to: Some(to.clone()),
        pass_destination: true,
        reason: DecisionReason::new(ReasonKind::ManualUnloadToDestination)
            .with("destination", to.clone()),
        reason_text: "manual unload to a chosen destinationBroker".to_string(),
        detail: Some(UnloadDetail::Manual {
            operation: op.to_string(),
        }),
        bytes_per_sec: load.bytes_per_sec(),
        msg_per_sec: load.msg_per_sec(),
        origin: "manual".to_string(),
    });
    Ok(())
}

/// `unload-namespace=T/NS`: every bundle of the namespace placed as lookups would place them, in
/// name order, on one view (preallocations accumulate).
fn unload_namespace(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    op: &Operation,
    namespace: &str,
    plan: &mut Plan,
) -> Result<(), PlanError> {
    check_namespace(namespace).map_err(|e| op_error(op, e.to_string()))?;
    let mut owned: Vec<(String, String)> = Vec::new();
    for (broker, b) in ws.after.brokers() {
        for bundle in &b.local_broker_data.bundles {
            if crate::modular::load_data::namespace_of_bundle(bundle) == namespace {
                owned.push((bundle.clone(), broker.clone()));
            }
        }
    }
    if owned.is_empty() {
        return Err(op_error(
            op,
            "no bundle of this namespace is owned by a broker in the snapshot",
        ));
    }
    owned.sort();
    plan.unloads.extend(
        place_all(ws, view, &owned, ReasonKind::NamespaceUnload)
            .into_iter()
            .flatten(),
    );
    Ok(())
}

/// `add-broker=ID[~LIKE]`: an empty broker with the limits, version and topic switches of `like`
/// (the first broker without one).
fn add_broker(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    op: &Operation,
    broker: &str,
    like: Option<&str>,
) -> Result<(), PlanError> {
    check_broker(broker).map_err(|e| op_error(op, e.to_string()))?;
    let snapshot = ws.after.to_mut();
    if snapshot.brokers.contains_key(broker) {
        return Err(op_error(op, "a broker with this name already exists"));
    }
    let template = match like {
        Some(l) => snapshot
            .brokers
            .get(l)
            .ok_or_else(|| op_error(op, format!("template broker `{l}` not found")))?,
        None => snapshot
            .brokers
            .values()
            .next()
            .ok_or_else(|| op_error(op, "the snapshot has no broker to copy limits from"))?,
    };
    let local = template.local_broker_data.empty_like();
    snapshot.brokers.insert(
        broker.to_string(),
        BrokerSnapshot {
            local_broker_data: local,
            ..BrokerSnapshot::default()
        },
    );
    view.restructured();
    Ok(())
}

/// `remove-broker=ID`: the broker's bundles placed by lookups on the brokers left (the strategies
/// told the broker list changed), then the broker gone.
fn remove_broker(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    op: &Operation,
    broker: &str,
    plan: &mut Plan,
) -> Result<(), PlanError> {
    let removed = ws
        .after
        .to_mut()
        .brokers
        .get(broker)
        .ok_or_else(|| op_error(op, "no such broker in the snapshot"))?
        .local_broker_data
        .bundles
        .clone();
    if ws.after.to_mut().brokers.len() <= 1 {
        return Err(op_error(op, "cannot remove the only broker"));
    }
    // The leader's view without the broker: built for this operation (the broker list changes, so
    // the plan's view is rebuilt after it).
    view.restructured();
    let mut data = load_data_from_snapshot(ws.after.to_mut());
    data.brokers.shift_remove(broker);
    let mut ctx = placement_context(ws.after.to_mut(), &data);
    ws.leader
        .tell_brokers(data.brokers.keys().cloned().collect());
    for bundle in removed {
        if let Some(u) = place_and_move(
            ws,
            &mut data,
            &mut ctx,
            &bundle,
            broker,
            ReasonKind::RemoveBroker,
        ) {
            plan.unloads.push(u);
        }
    }
    ws.after.to_mut().brokers.shift_remove(broker);
    Ok(())
}

/// `split-bundle=B[:ALGORITHM[:POSITIONS]]`: split as the admin call would (the namespace's
/// default algorithm when none is named); an algorithm that declines leaves the bundle whole, as
/// Pulsar completes the call without splitting.
fn split_bundle(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    op: &Operation,
    bundle: &str,
    algorithm: Option<&str>,
    positions: &[u32],
    plan: &mut Plan,
) -> Result<(), PlanError> {
    let owner = owner_of(ws.after.to_mut(), bundle)
        .ok_or_else(|| op_error(op, "no broker in the snapshot owns this bundle"))?;
    let chosen = match algorithm {
        Some(name) => SplitAlgorithm::from_name(name).ok_or_else(|| {
            op_error(
                op,
                format!("unknown split algorithm `{name}` (Pulsar answers HTTP 412)"),
            )
        })?,
        None => SplitAlgorithm::by_name_or_default(
            "",
            &ws.leader.config().default_namespace_bundle_split_algorithm,
        ),
    };
    if chosen == SplitAlgorithm::SpecifiedPositionsDivide && positions.is_empty() {
        return Err(op_error(
            op,
            "specified_positions_divide needs positions (Pulsar answers HTTP 412)",
        ));
    }
    match compute_split(
        ws.after.to_mut(),
        ws.leader.config(),
        bundle,
        chosen,
        positions,
    )
    .map_err(|e| op_error(op, e))?
    {
        Ok(split) => {
            apply_split(ws.after.to_mut(), &split);
            view.restructured();
            plan.splits.push(planned_split(
                bundle,
                &owner,
                chosen,
                &split,
                (
                    DecisionReason::new(ReasonKind::ManualSplit).with("algorithm", chosen.name()),
                    "manual split".to_string(),
                ),
                SplitDetail::Manual {
                    operation: op.to_string(),
                },
                "manual",
            ));
        }
        Err(why) => plan.skipped.push(SkippedDecision {
            scope: SkipScope::Bundle {
                bundle: bundle.to_string(),
                broker: owner,
            },
            why: format!(
                "{} declined to split: {why} (Pulsar completes the call without splitting)",
                chosen.name()
            ),
            reason: DecisionReason::new(ReasonKind::SplitDeclined)
                .with("algorithm", chosen.name())
                .with("declined", why),
        }),
    }
    Ok(())
}
