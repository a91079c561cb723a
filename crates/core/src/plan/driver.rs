//! Makes a plan: resolves the configuration, applies the operator's manual operations
//! (`manual_ops`), runs one leader cycle as a freshly elected leader would (`modular_cycle`,
//! `transfer_cycle`, each with its outlook when a stateful strategy needs more cycles), then
//! judges the result. See `docs/plan-model.md`.

use crate::model::Snapshot;

use super::after_view::{AfterStart, AfterView};
use super::balance::summarize;
use super::explain::leave_out;
use super::manual_ops::apply_operation;
use super::model::{PLAN_FORMAT_VERSION, Plan};
use super::modular_cycle::run_leader_cycle;
use super::operations::Operation;
use super::request::{MAX_OUTLOOK_CYCLES, PlanError, PlanRequest, Workspace};
use super::transfer_cycle::run_extensible_leader_cycle;
use super::working_view::{KeptView, WorkingView};
use crate::config::settings::resolve_config;
use crate::leader::memory::LeaderMemory;

/// One plan with its verdict, without re-planning for alternatives, on `snapshot` whose leader's
/// view `kept` holds (built here when empty; lent to the plan and given back unchanged).
pub(crate) fn plan_once(
    snapshot: &Snapshot,
    kept: &mut Option<KeptView>,
    req: &PlanRequest,
    fingerprint: String,
    after_start: AfterStart,
    model: &crate::load::LoadModel,
) -> Result<Plan, PlanError> {
    let mut settings = req.settings.clone();
    settings.extend(Operation::config_overrides(&req.operations));
    let resolved = resolve_config(snapshot, req.profile, &settings)?;
    let mut warnings = resolved.warnings;
    let cfg = resolved.config;
    let profile = resolved.profile;
    let release_basis = Some(resolved.basis);
    let mut after = AfterView::with_model(snapshot, after_start, model.clone());
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

    // A freshly elected leader: its strategies have seen no broker list yet.
    let leader = LeaderMemory::new(cfg, profile, req.seed, Vec::new())?;
    let resolution = leader.resolution();
    warnings.extend(resolution.warnings.iter().cloned());
    let mut plan = Plan {
        format_version: PLAN_FORMAT_VERSION,
        snapshot_fingerprint: fingerprint,
        cluster: snapshot.cluster.clone(),
        snapshot_captured_at_ms: snapshot.captured_at_ms,
        profile: profile.name(),
        release_basis,
        cpu_cost_factors: model
            .cpu_factors
            .iter()
            .filter(|(_, f)| f.is_finite() && **f > 0.0)
            .map(|(b, f)| (b.clone(), *f))
            .collect(),
        load_manager: if leader.config().is_extensible() {
            "extensible"
        } else {
            "modular"
        }
        .to_string(),
        shedding_strategy: resolution.shedding.clone(),
        placement_strategy: resolution.placement.clone(),
        seed: req.seed,
        settings,
        operations: req.operations.iter().map(Operation::to_string).collect(),
        ..Plan::default()
    };
    let mut ws = Workspace {
        leader,
        after,
        now_ms: snapshot.captured_at_ms.unwrap_or(0),
        trace: req.explain.placement_trace(),
    };
    if ws.leader.config().is_extensible() {
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
        if ws.leader.config().is_extensible() {
            run_extensible_leader_cycle(
                &mut ws,
                req.outlook_cycles.min(MAX_OUTLOOK_CYCLES),
                &mut plan,
                &mut warnings,
            );
        } else {
            run_leader_cycle(
                &mut ws,
                &mut view,
                req.outlook_cycles.min(MAX_OUTLOOK_CYCLES),
                &mut plan,
            );
        }
    }
    drop(view);

    plan.brokers_after = ws.after.broker_views(&weights, &brokers_before);
    plan.balance_before = summarize(&brokers_before);
    plan.balance_after = summarize(&plan.brokers_after);
    plan.brokers_before = brokers_before;
    plan.warnings = warnings;
    if let Some(basis) = plan.release_basis.as_mut() {
        basis.reads = Some(super::release_reads::rows_read(
            snapshot,
            &plan.settings,
            ws.leader.config(),
            &plan.unloads,
        ));
    }
    plan.verdict = super::verdict::judge(&plan, ws.leader.config().overloaded_threshold_fraction());
    leave_out(&mut plan, req.explain);
    Ok(plan)
}
