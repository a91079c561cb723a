//! Makes a plan: resolves the configuration, applies the operator's manual operations, runs one leader
//! cycle as a freshly elected leader would, and looks ahead when a stateful strategy needs more
//! cycles. See `docs/plan-model.md`.

use crate::config::{ConfigError, LoadBalancerConfig, Profile};
use crate::model::{BrokerSnapshot, LocalBrokerData, ResourceUsage, Snapshot};
use crate::modular::LoadData;
use crate::modular::leader::{
    CycleSkip, SheddingCycleReport, StrategyConfigError, StrategySet, do_load_shedding,
    resolve_strategy_names,
};
use crate::modular::pipeline::{
    PipelineTrace, PlacementContext, SelectionPath, select_broker_for_bundle,
};
use crate::modular::shedding::{AvgShedder, shedder_by_name};
use crate::rng::SeededPicker;

use super::after_view::{AfterStart, AfterView};
use super::balance::summarize;
use super::engine::PlanEngine;
use super::fingerprint::snapshot_fingerprint;
use super::leader_state::LeaderState;
use super::leader_view::load_data_from_snapshot;
use super::load_model::owner_of;
use super::model::{
    Outlook, PLAN_FORMAT_VERSION, PlacedOperation, Plan, PlannedUnload, SkipScope, SkippedDecision,
    SplitDetail, UnloadDetail,
};
use super::names::{check_broker, check_namespace, check_topic};
use super::operations::Operation;
use super::reasons::{
    describe_placement, describe_shed_reason, describe_skip, skip_reason, unload_reason,
    with_placement,
};
use super::settings::resolve_config;
use super::splits::{apply_split, compute_split};
use super::splitter_task::{
    LongTermCursor, auto_splits_step, decide as decide_auto_splits, planned_split,
};
use super::working_view::KeptView;
use super::working_view::WorkingView;
use crate::reason::{DecisionReason, ReasonKind};
use crate::split::SplitAlgorithm;

/// The one-line reason of an automatic split (the history's wording too).
pub(crate) use super::splitter_task::split_reason;

/// What the operator asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRequest {
    /// `None`: detect from the brokers' `brokerVersionString`.
    pub profile: Option<Profile>,
    /// `broker.conf` overrides, applied after the snapshot's own values.
    pub settings: Vec<(String, String)>,
    pub operations: Vec<Operation>,
    pub seed: u64,
    /// Run the leader's shedding cycle after the manual operations.
    pub leader_cycle: bool,
    /// Extra cycles to look ahead when the first cycle unloads nothing.
    pub outlook_cycles: u32,
}

impl PlanRequest {
    /// One leader cycle with the detected profile, seed 0, a 10-cycle outlook.
    pub fn leader_cycle() -> Self {
        Self {
            profile: None,
            settings: Vec::new(),
            operations: Vec::new(),
            seed: 0,
            leader_cycle: true,
            outlook_cycles: 10,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error("setting {0}")]
    Setting(#[from] ConfigError),
    #[error(transparent)]
    Strategy(#[from] StrategyConfigError),
    #[error("operation `{op}`: {why}")]
    Operation { op: String, why: String },
}

fn op_error(op: &Operation, why: impl Into<String>) -> PlanError {
    PlanError::Operation {
        op: op.to_string(),
        why: why.into(),
    }
}

/// Everything a cycle works on.
struct Workspace<'s> {
    cfg: LoadBalancerConfig,
    profile: Profile,
    /// The cluster as it will be after the plan (the "after" view).
    after: AfterView<'s>,
    strategies: StrategySet,
    picker: SeededPicker,
    now_ms: i64,
}

pub fn build_strategies(
    cfg: &LoadBalancerConfig,
    profile: Profile,
) -> Result<StrategySet, StrategyConfigError> {
    // The extensible manager runs TransferShedder whatever the shedding strategy names (§9.2); the
    // modular pair only places manual operations, so a name only it knows must not stop the plan.
    let modular_defaults;
    let cfg = if cfg.is_extensible()
        && resolve_strategy_names(cfg, profile)
            .ok()
            .and_then(|r| shedder_by_name(&r.shedding, profile))
            .is_none()
    {
        modular_defaults = LoadBalancerConfig {
            load_balancer_load_shedding_strategy: LoadBalancerConfig::for_profile(profile)
                .load_balancer_load_shedding_strategy,
            load_balancer_load_placement_strategy: LoadBalancerConfig::for_profile(profile)
                .load_balancer_load_placement_strategy,
            ..cfg.clone()
        };
        &modular_defaults
    } else {
        cfg
    };
    StrategySet::build(
        cfg,
        profile,
        &|name| shedder_by_name(name, profile),
        &|| Box::new(AvgShedder::new(profile)),
    )
}

/// The leader's placement context for a snapshot: anti-affinity groups, failure domains, namespace
/// isolation policies and the broker → namespace → ranges cache. (Policies that cannot be evaluated
/// exactly are reported once per plan by [`make_plan`].)
pub fn placement_context(snapshot: &Snapshot, data: &LoadData) -> PlacementContext {
    let mut ctx = PlacementContext::new();
    let _ = ctx.set_isolation_policies(&snapshot.namespace_isolation_policies);
    ctx.namespace_anti_affinity_groups = anti_affinity_groups(snapshot);
    ctx.failure_domains = snapshot.failure_domains.clone();
    ctx.rebuild_bundle_range_cache(data);
    ctx
}

/// Each namespace's anti-affinity group, in the snapshot's namespace order: what the leader's
/// placement context and the kept `LeaderState` both read.
pub(crate) fn anti_affinity_groups(snapshot: &Snapshot) -> indexmap::IndexMap<String, String> {
    snapshot
        .namespaces
        .iter()
        .filter_map(|(ns, n)| {
            n.anti_affinity_group
                .as_ref()
                .map(|g| (ns.clone(), g.clone()))
        })
        .collect()
}

/// Plans `req` on `snapshot`; the plan names the snapshot by [`snapshot_fingerprint`] (computed here,
/// which on a large snapshot costs more than the leader cycle: see [`make_plan_with_fingerprint`]).
pub fn make_plan(snapshot: &Snapshot, req: &PlanRequest) -> Result<Plan, PlanError> {
    make_plan_with_fingerprint(snapshot, req, snapshot_fingerprint(snapshot))
}

/// [`make_plan`] with the snapshot's fingerprint already known: callers that keep one snapshot loaded
/// and plan on it repeatedly (the web app, the worker) compute
/// `plan::fingerprint::snapshot_fingerprint(&snapshot)` once and pass it here. The value is copied into
/// `Plan::snapshot_fingerprint` as given.
pub fn make_plan_with_fingerprint(
    snapshot: &Snapshot,
    req: &PlanRequest,
    fingerprint: String,
) -> Result<Plan, PlanError> {
    PlanEngine::with_fingerprint(std::borrow::Cow::Borrowed(snapshot), fingerprint).plan(req)
}

/// One plan with its verdict, without re-planning for alternatives, on `snapshot` whose leader's
/// view `kept` holds (built here when empty; lent to the plan and given back unchanged).
pub(crate) fn plan_once(
    snapshot: &Snapshot,
    kept: &mut Option<KeptView>,
    req: &PlanRequest,
    fingerprint: String,
    after_start: AfterStart,
) -> Result<Plan, PlanError> {
    let mut settings = req.settings.clone();
    for op in &req.operations {
        if let Operation::SetConfig { key, value } = op {
            settings.push((key.clone(), value.clone()));
        }
    }
    let resolved = resolve_config(snapshot, req.profile, &settings)?;
    let mut warnings = resolved.warnings;
    let cfg = resolved.config;
    let profile = resolved.profile;
    let mut after = AfterView::new(snapshot, after_start);
    warnings.extend(after.override_nic_speed(&cfg));
    let work = after.rest();
    // The leader's view is read by manual placements and the modular cycle.
    let needs_view = req
        .operations
        .iter()
        .any(|op| !matches!(op, Operation::SetConfig { .. }))
        || (req.leader_cycle && !cfg.is_extensible());
    let mut view = WorkingView::new(work, &cfg, kept, needs_view);
    let (_, isolation_errors) =
        crate::isolation::IsolationPolicies::compile(&snapshot.namespace_isolation_policies);
    warnings.extend(isolation_errors.iter().map(ToString::to_string));
    let weights = cfg.resource_weights();
    let brokers_before = after.broker_views_before(&weights);

    let strategies = build_strategies(&cfg, profile)?;
    warnings.extend(strategies.resolution.warnings.iter().cloned());
    let mut plan = Plan {
        format_version: PLAN_FORMAT_VERSION,
        snapshot_fingerprint: fingerprint,
        profile: profile.name().to_string(),
        load_manager: if cfg.is_extensible() {
            "extensible"
        } else {
            "modular"
        }
        .to_string(),
        shedding_strategy: strategies.resolution.shedding.clone(),
        placement_strategy: strategies.resolution.placement.clone(),
        seed: req.seed,
        settings,
        operations: req.operations.iter().map(Operation::to_string).collect(),
        ..Plan::default()
    };
    let mut ws = Workspace {
        cfg,
        profile,
        after,
        strategies,
        picker: SeededPicker::new(req.seed),
        now_ms: snapshot.captured_at_ms.unwrap_or(0),
    };
    if ws.cfg.is_extensible() {
        plan.shedding_strategy = crate::config::TRANSFER_SHEDDER.to_string();
        plan.placement_strategy =
            "org.apache.pulsar.broker.loadbalance.extensions.strategy.LeastResourceUsageWithWeight"
                .to_string();
        if !req.operations.is_empty() {
            warnings.push(
                "loadManagerClassName is ExtensibleLoadManagerImpl: manual operations are placed with the modular placement pipeline".to_string(),
            );
        }
    }

    for op in &req.operations {
        apply_operation(&mut ws, &mut view, op, &mut plan)?;
    }

    if req.leader_cycle {
        if ws.cfg.is_extensible() {
            run_extensible_leader_cycle(&mut ws, req.outlook_cycles, &mut plan, &mut warnings);
        } else {
            run_leader_cycle(&mut ws, &mut view, req.outlook_cycles, &mut plan);
        }
    }
    drop(view);

    plan.brokers_after = ws.after.broker_views(&weights, &brokers_before);
    plan.balance_before = summarize(&brokers_before);
    plan.balance_after = summarize(&plan.brokers_after);
    plan.brokers_before = brokers_before;
    plan.warnings = warnings;
    plan.verdict = super::verdict::judge(&plan, ws.cfg.overloaded_threshold_fraction());
    let _ = ws.profile;
    Ok(plan)
}

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
    let outcome = select_broker_for_bundle(
        bundle,
        &bundle_data,
        SelectionPath::Assignment,
        data,
        ctx,
        &ws.cfg,
        ws.strategies.placement(),
        &mut ws.picker,
    );
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

fn apply_operation(
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
        } => {
            let from = ws
                .after
                .owner_of(bundle)
                .ok_or_else(|| op_error(op, "no broker in the snapshot owns this bundle"))?;
            match destination_broker {
                Some(to) => {
                    check_broker(to).map_err(|e| op_error(op, e.to_string()))?;
                    if !ws.after.has_broker(to) {
                        return Err(op_error(
                            op,
                            format!("destination broker `{to}` is not in the snapshot"),
                        ));
                    }
                    if *to == from {
                        return Err(op_error(op, format!("`{to}` already owns the bundle")));
                    }
                    let load = ws
                        .after
                        .move_bundle(bundle, &from, to)
                        .ok_or_else(|| op_error(op, "the bundle could not be moved"))?;
                    view.touched([from.as_str(), to.as_str()]);
                    plan.unloads.push(PlannedUnload {
                        bundle: bundle.clone(),
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
                None => {
                    let unload = place_all(
                        ws,
                        view,
                        &[(bundle.clone(), from)],
                        ReasonKind::ManualUnload,
                    )
                    .into_iter()
                    .flatten()
                    .next()
                    .ok_or_else(|| op_error(op, "no broker is available to take the bundle"))?;
                    plan.unloads.push(unload);
                    Ok(())
                }
            }
        }
        Operation::UnloadNamespace { namespace } => {
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
        Operation::AddBroker { broker, like } => {
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
                None => snapshot.brokers.values().next().ok_or_else(|| {
                    op_error(op, "the snapshot has no broker to copy limits from")
                })?,
            };
            let t = &template.local_broker_data;
            let empty = |u: ResourceUsage| ResourceUsage::new(0.0, u.limit);
            let local = LocalBrokerData {
                cpu: empty(t.cpu),
                memory: empty(t.memory),
                direct_memory: empty(t.direct_memory),
                bandwidth_in: empty(t.bandwidth_in),
                bandwidth_out: empty(t.bandwidth_out),
                persistent_topics_enabled: t.persistent_topics_enabled,
                non_persistent_topics_enabled: t.non_persistent_topics_enabled,
                broker_version_string: t.broker_version_string.clone(),
                load_manager_class_name: t.load_manager_class_name.clone(),
                ..LocalBrokerData::default()
            };
            snapshot.brokers.insert(
                broker.clone(),
                BrokerSnapshot {
                    local_broker_data: local,
                    ..BrokerSnapshot::default()
                },
            );
            view.restructured();
            Ok(())
        }
        Operation::RemoveBroker { broker } => {
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
            // The leader's view without the broker: built for this operation (the broker list
            // changes, so the plan's view is rebuilt after it).
            view.restructured();
            let mut data = load_data_from_snapshot(ws.after.to_mut());
            data.brokers.shift_remove(broker);
            let mut ctx = placement_context(ws.after.to_mut(), &data);
            let active: Vec<String> = data.brokers.keys().cloned().collect();
            ws.strategies.on_active_brokers_change(&active);
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
        Operation::SplitBundle {
            bundle,
            algorithm,
            positions,
        } => {
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
                    &ws.cfg.default_namespace_bundle_split_algorithm,
                ),
            };
            if chosen == SplitAlgorithm::SpecifiedPositionsDivide && positions.is_empty() {
                return Err(op_error(
                    op,
                    "specified_positions_divide needs positions (Pulsar answers HTTP 412)",
                ));
            }
            match compute_split(ws.after.to_mut(), &ws.cfg, bundle, chosen, positions)
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
                            DecisionReason::new(ReasonKind::ManualSplit)
                                .with("algorithm", chosen.name()),
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
                        bundle: bundle.clone(),
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
    }
}

/// Why the shedding cycle unloaded a bundle and placed it where it did (the plan's and the
/// simulation's wording).
pub(crate) fn shedding_reason(u: &crate::modular::leader::CycleUnload) -> String {
    format!(
        "{}; {}",
        describe_shed_reason(&u.shed_reason),
        describe_placement(&u.placement)
    )
}

/// A whole cycle off: which of the two switches is off.
fn shedding_disabled_reason(cfg: &LoadBalancerConfig) -> DecisionReason {
    DecisionReason::new(ReasonKind::SheddingDisabled)
        .with("loadBalancerEnabled", cfg.load_balancer_enabled)
        .with(
            "loadBalancerSheddingEnabled",
            cfg.load_balancer_shedding_enabled,
        )
}

/// The cycle's unloads as the plan records them, moved out of `report` (their explanations name
/// every candidate of every step: on 1,000 brokers a copy costs as much as the rest of the plan).
fn unloads_of(report: &mut SheddingCycleReport, after: &mut AfterView<'_>) -> Vec<PlannedUnload> {
    std::mem::take(&mut report.unloads)
        .into_iter()
        .map(|u| {
            let load = after.bundle_load(&u.from, &u.bundle);
            let reason = unload_reason(&u.shed_reason, &u.placement);
            let reason_text = shedding_reason(&u);
            PlannedUnload {
                reason,
                reason_text,
                detail: Some(UnloadDetail::Shedding {
                    shedding: u.shed_reason,
                    placement: Box::new(u.placement),
                }),
                bytes_per_sec: load.bytes_per_sec(),
                msg_per_sec: load.msg_per_sec(),
                bundle: u.bundle,
                from: u.from,
                to: Some(u.to),
                pass_destination: true,
                origin: "shedding".to_string(),
            }
        })
        .collect()
}

/// [`auto_splits_step`] on the plan's after view: the whole snapshot is asked for only when
/// `BundleSplitterTask` accepts a bundle (splitting changes the bundle set and the layouts).
fn auto_splits_on_after(ws: &mut Workspace<'_>, data: &LoadData, plan: &mut Plan) {
    let rest = ws.after.rest();
    let counts = |ns: &str| {
        rest.namespaces
            .get(ns)
            .map(|n| i64::from(n.bundles.num_bundles))
    };
    // A bundle this cycle unloads is left alone by `auto_splits_step`: when it is every candidate
    // (the usual case on a cluster the cycle acts on), nothing would change.
    let long_term = LongTermCursor::new(data);
    let candidates = decide_auto_splits(&ws.cfg, data, counts, |_, _, name| long_term.get(name));
    if candidates
        .iter()
        .all(|c| plan.unloads.iter().any(|u| u.bundle == c.bundle))
    {
        return;
    }
    auto_splits_step(ws.after.to_mut(), &ws.cfg, data, plan);
}

fn run_leader_cycle(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    outlook_cycles: u32,
    plan: &mut Plan,
) {
    let state = view.get(&mut ws.after);
    // The cycle changes only `recently_unloaded` in the leader view (the shedding path preallocates
    // nothing), so the steady view for the split check and the look-ahead is the view with this
    // copy put back: no clone of the whole view. The context's kept parts (policies, range cache)
    // are left as they were too; its per-cycle parts are fresh at each `take_context`.
    let steady_recently_unloaded = state.data().recently_unloaded.clone();
    let mut ctx = state.take_context();
    let mut report = do_load_shedding(
        &mut ws.strategies,
        state.data_mut(),
        &mut ctx,
        &ws.cfg,
        &mut ws.picker,
        ws.now_ms,
    );
    state.data_mut().recently_unloaded = steady_recently_unloaded;
    if let Some(skip) = &report.cycle_skipped {
        state.restore_context(ctx);
        let (why, reason) = match skip {
            CycleSkip::SheddingDisabled => (
                "no shedding: loadBalancerEnabled or loadBalancerSheddingEnabled is false"
                    .to_string(),
                shedding_disabled_reason(&ws.cfg),
            ),
            CycleSkip::SingleBroker { available } => (
                format!("no shedding: only {available} broker available"),
                DecisionReason::new(ReasonKind::SingleBroker).with("available_brokers", *available),
            ),
        };
        plan.skipped.push(SkippedDecision {
            scope: SkipScope::Cycle,
            why,
            reason,
        });
        auto_splits_on_after(ws, state.data(), plan);
        return;
    }
    let unloads = unloads_of(&mut report, &mut ws.after);
    for n in &report.not_shed {
        plan.skipped.push(SkippedDecision {
            scope: SkipScope::Broker {
                broker: n.broker.clone(),
            },
            why: n.why.clone(),
            reason: n.reason.clone(),
        });
    }
    for s in &report.skipped {
        plan.skipped.push(SkippedDecision {
            scope: SkipScope::Bundle {
                bundle: s.bundle.clone(),
                broker: s.from.clone(),
            },
            why: describe_skip(s),
            reason: skip_reason(s),
        });
    }
    for u in &unloads {
        if let Some(to) = &u.to {
            ws.after.move_bundle(&u.bundle, &u.from, to);
        }
    }
    let acted = !unloads.is_empty();
    plan.unloads.extend(unloads);
    auto_splits_on_after(ws, state.data(), plan);
    if !acted && outlook_cycles > 0 {
        // A cycle that placed nothing left the context as it was; one that did starts afresh.
        if !report.decisions.is_empty() {
            state.restore_context(ctx);
            ctx = state.take_context();
        }
        plan.outlook = Some(look_ahead(ws, state, &mut ctx, outlook_cycles));
    }
    state.restore_context(ctx);
}

/// Keeps the same strategy objects running on unchanged load to see when (if ever) they act.
///
/// Each extra cycle starts from the steady view (`state`, with its own `recently_unloaded`) and a
/// fresh placement context. Both are reused rather than copied: a cycle that selects nothing changes
/// neither (its expiry of `recently_unloaded` entries would happen again at any later cycle, so
/// keeping it changes nothing), and one whose selections were all skipped is followed by a reset.
/// `ctx` is the context lent by `state`; the caller gives it back.
fn look_ahead(
    ws: &mut Workspace<'_>,
    state: &mut LeaderState,
    ctx: &mut PlacementContext,
    cycles: u32,
) -> Outlook {
    let interval_ms = ws
        .cfg
        .load_balancer_shedding_interval_minutes
        .max(1)
        .saturating_mul(60_000);
    let strategy = crate::config::simple_class_name(&ws.strategies.resolution.shedding).to_string();
    let steady_recently_unloaded = state.data().recently_unloaded.clone();
    for extra in 1..=cycles {
        ctx.trace = PipelineTrace::Summary;
        let now = ws
            .now_ms
            .saturating_add(interval_ms.saturating_mul(i64::from(extra)));
        let mut report = do_load_shedding(
            &mut ws.strategies,
            state.data_mut(),
            ctx,
            &ws.cfg,
            &mut ws.picker,
            now,
        );
        let unloads = unloads_of(&mut report, &mut ws.after);
        if !unloads.is_empty() {
            let cycle = extra + 1;
            let mut sources: Vec<&str> = unloads.iter().map(|u| u.from.as_str()).collect();
            sources.dedup();
            let summary = format!(
                "{strategy} unloads {} bundle(s) from {} at cycle {cycle} if the load stays as it is",
                unloads.len(),
                sources.join(", ")
            );
            return Outlook {
                cycles_examined: extra,
                acts_at_cycle: Some(cycle),
                unloads_then: unloads,
                summary,
            };
        }
        if !report.decisions.is_empty() {
            // Skipped selections ran the pipeline, which may have grown the candidate cache or
            // advanced the round robin: start the next cycle from a fresh context, as before.
            state.data_mut().recently_unloaded = steady_recently_unloaded.clone();
            state.restore_context(std::mem::take(ctx));
            *ctx = state.take_context();
        }
    }
    Outlook {
        cycles_examined: cycles,
        acts_at_cycle: None,
        unloads_then: Vec::new(),
        summary: format!(
            "{strategy} would not unload anything in the next {cycles} cycles if the load stays as it is"
        ),
    }
}

/// A TransferShedder cycle that decided nothing, as a cycle-level skip.
fn transfer_skip(
    skip: crate::extensible::SkipReason,
    stats: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> SkippedDecision {
    let why = match (skip, stats) {
        (crate::extensible::SkipReason::HitCount, Some((avg, std))) => format!(
            "TransferShedder skipped the cycle (HitCount): load std {:.1}% vs loadBalancerBrokerLoadTargetStd {:.1}% (avg {:.1}%), no overloaded or underloaded outlier held for more than loadBalancerSheddingConditionHitCountThreshold = {} cycles",
            std * 100.0,
            cfg.load_balancer_broker_load_target_std * 100.0,
            avg * 100.0,
            cfg.load_balancer_shedding_condition_hit_count_threshold
        ),
        (other, _) => format!("TransferShedder skipped the cycle: {}", other.name()),
    };
    SkippedDecision {
        scope: SkipScope::Cycle,
        why,
        reason: transfer_skip_reason(skip, stats, cfg),
    }
}

/// A TransferShedder move: `transfer_shedder_overloaded` / `_underloaded` with the cluster's load
/// average and standard deviation against `loadBalancerBrokerLoadTargetStd`.
fn transfer_reason(
    why: crate::extensible::UnloadReason,
    avg_std: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> DecisionReason {
    let kind = match why {
        crate::extensible::UnloadReason::Overloaded => ReasonKind::TransferShedderOverloaded,
        crate::extensible::UnloadReason::Underloaded => ReasonKind::TransferShedderUnderloaded,
    };
    with_load_stats(DecisionReason::new(kind), avg_std, cfg)
}

fn with_load_stats(
    mut r: DecisionReason,
    avg_std: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> DecisionReason {
    if let Some((avg, std)) = avg_std {
        r = r
            .with("load_avg_fraction", avg)
            .with("load_std_fraction", std);
    }
    r.with(
        "target_std_fraction",
        cfg.load_balancer_broker_load_target_std,
    )
}

/// A TransferShedder cycle that decided nothing: Pulsar's `Skip` reason name and the statistics.
fn transfer_skip_reason(
    skip: crate::extensible::SkipReason,
    avg_std: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> DecisionReason {
    let r = DecisionReason::new(ReasonKind::TransferShedderSkipped).with("skip", skip.name());
    let r = with_load_stats(r, avg_std, cfg);
    if skip == crate::extensible::SkipReason::HitCount {
        r.with(
            "hit_count_threshold",
            cfg.load_balancer_shedding_condition_hit_count_threshold,
        )
    } else {
        r
    }
}

/// The extensible manager's cycle: TransferShedder on the brokers' published load data; decisions carry
/// their destination (or are placed by extensible LeastResourceUsageWithWeight when transfers are off).
fn run_extensible_leader_cycle(
    ws: &mut Workspace<'_>,
    outlook_cycles: u32,
    plan: &mut Plan,
    warnings: &mut Vec<String>,
) {
    use super::extensible_cycle::{extensible_view, place_plain_unload, run_transfer_shedder};
    if !ws.cfg.load_balancer_enabled || !ws.cfg.load_balancer_shedding_enabled {
        plan.skipped.push(SkippedDecision {
            scope: SkipScope::Cycle,
            why: "no shedding: loadBalancerEnabled or loadBalancerSheddingEnabled is false"
                .to_string(),
            reason: shedding_disabled_reason(&ws.cfg),
        });
        return;
    }
    // TransferShedder reads every broker's published load: the plan works on the whole snapshot.
    let snapshot = ws.after.to_mut();
    let view = extensible_view(snapshot, &ws.cfg);
    warnings.extend(view.warnings.iter().cloned());
    let mut shedder = crate::extensible::TransferShedder::new();
    let recent = snapshot.recently_unloaded_bundles.clone();
    let interval_ms = ws
        .cfg
        .load_balancer_shedding_interval_minutes
        .max(1)
        .saturating_mul(60_000);
    let mut cycle = 1;
    let mut outcome = run_transfer_shedder(&mut shedder, &view, &ws.cfg, &recent, view.now_ms);
    for n in &outcome.not_shed {
        plan.skipped.push(SkippedDecision {
            scope: SkipScope::Broker {
                broker: n.broker.clone(),
            },
            why: n.why.clone(),
            reason: n.reason.clone(),
        });
    }
    let mut first_skip = outcome.skip_reason;
    let first_stats = outcome.load_avg_std;
    while outcome.decisions.is_empty()
        && cycle <= outlook_cycles
        && outcome.skip_reason == Some(crate::extensible::SkipReason::HitCount)
    {
        cycle += 1;
        let now = view
            .now_ms
            .saturating_add(interval_ms.saturating_mul(i64::from(cycle - 1)));
        outcome = run_transfer_shedder(&mut shedder, &view, &ws.cfg, &recent, now);
    }
    let mut unloads = Vec::new();
    for d in &outcome.decisions {
        let (to, pass) = match &d.dest_broker {
            Some(dest) => (Some(dest.clone()), true),
            None => (
                place_plain_unload(
                    &view,
                    &ws.cfg,
                    &d.service_unit,
                    &d.source_broker,
                    &mut ws.picker,
                ),
                false,
            ),
        };
        let load = ws.after.bundle_load(&d.source_broker, &d.service_unit);
        let stats = outcome
            .load_avg_std
            .map(|(avg, std)| {
                format!(
                    " (load avg {:.1}%, std {:.1}% vs target {:.1}%)",
                    avg * 100.0,
                    std * 100.0,
                    ws.cfg.load_balancer_broker_load_target_std * 100.0
                )
            })
            .unwrap_or_default();
        unloads.push(PlannedUnload {
            bundle: d.service_unit.clone(),
            from: d.source_broker.clone(),
            to,
            pass_destination: pass,
            reason: transfer_reason(d.reason, outcome.load_avg_std, &ws.cfg),
            reason_text: format!("TransferShedder: {}{stats}", d.reason.name()),
            detail: Some(UnloadDetail::Transfer(d.clone())),
            bytes_per_sec: load.bytes_per_sec(),
            msg_per_sec: load.msg_per_sec(),
            origin: "shedding".to_string(),
        });
    }
    if cycle == 1 {
        if unloads.is_empty()
            && let Some(skip) = first_skip
        {
            plan.skipped.push(transfer_skip(skip, first_stats, &ws.cfg));
        }
        for u in &unloads {
            if let Some(to) = &u.to {
                ws.after.move_bundle(&u.bundle, &u.from, to);
            }
        }
        plan.unloads.extend(unloads);
        return;
    }
    if let Some(skip) = first_skip.take() {
        plan.skipped.push(transfer_skip(skip, first_stats, &ws.cfg));
    }
    let acts = !unloads.is_empty();
    let mut sources: Vec<&str> = unloads.iter().map(|u| u.from.as_str()).collect();
    sources.dedup();
    let summary = if acts {
        format!(
            "TransferShedder unloads {} bundle(s) from {} at cycle {cycle} if the load stays as it is (loadBalancerSheddingConditionHitCountThreshold = {})",
            unloads.len(),
            sources.join(", "),
            ws.cfg.load_balancer_shedding_condition_hit_count_threshold
        )
    } else {
        format!(
            "TransferShedder would not unload anything in the next {outlook_cycles} cycles if the load stays as it is"
        )
    };
    plan.outlook = Some(Outlook {
        cycles_examined: cycle - 1,
        acts_at_cycle: acts.then_some(cycle),
        unloads_then: unloads,
        summary,
    });
}
