//! Makes a plan: resolves the configuration, applies the operator's manual operations
//! (`manual_ops`), runs one leader cycle as a freshly elected leader would (`modular_cycle`,
//! `transfer_cycle`, each with its outlook when a stateful strategy needs more cycles), then
//! judges the result. See `docs/plan-model.md`.

use crate::config::{ConfigError, LoadBalancerConfig, Profile};
use crate::model::Snapshot;
use crate::modular::LoadData;
use crate::modular::leader::{StrategyConfigError, StrategySet, resolve_strategy_names};
use crate::modular::pipeline::PlacementContext;
use crate::modular::shedding::{AvgShedder, shedder_by_name};
use crate::rng::SeededPicker;

use super::after_view::{AfterStart, AfterView};
use super::balance::summarize;
use super::engine::PlanEngine;
use super::explain::{Explain, leave_out};
use super::manual_ops::apply_operation;
use super::model::{PLAN_FORMAT_VERSION, Plan};
use super::modular_cycle::run_leader_cycle;
use super::operations::Operation;
use super::transfer_cycle::run_extensible_leader_cycle;
use super::working_view::{KeptView, WorkingView};
use crate::config::settings::resolve_config;
use crate::model::fingerprint::snapshot_fingerprint;

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
    /// How much of each decision's explanation the plan carries ([`Explain::Full`]: all of it).
    pub explain: Explain,
}

/// The most outlook cycles a plan or a rebalance check looks at (each is a whole leader cycle on
/// the same load): the CLI's `--outlook-cycles` and the JavaScript API's `outlookCycles` refuse
/// more, and the engine never runs more.
pub const MAX_OUTLOOK_CYCLES: u32 = 1000;

/// `n` if a plan may look that many cycles ahead; otherwise why not, stating the cap.
pub fn check_outlook_cycles(n: u64) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| *n <= MAX_OUTLOOK_CYCLES)
        .ok_or_else(|| format!("{n} outlook cycles: at most {MAX_OUTLOOK_CYCLES}"))
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
            explain: Explain::Full,
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

pub(super) fn op_error(op: &Operation, why: impl Into<String>) -> PlanError {
    PlanError::Operation {
        op: op.to_string(),
        why: why.into(),
    }
}

/// Everything a cycle works on.
pub(super) struct Workspace<'s> {
    pub(super) cfg: LoadBalancerConfig,
    pub(super) profile: Profile,
    /// The cluster as it will be after the plan (the "after" view).
    pub(super) after: AfterView<'s>,
    pub(super) strategies: StrategySet,
    pub(super) picker: SeededPicker,
    pub(super) now_ms: i64,
    /// The trace level of the plan's own placements (`PlanRequest::explain`).
    pub(super) trace: crate::modular::pipeline::PipelineTrace,
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
/// `model::fingerprint::snapshot_fingerprint(&snapshot)` once and pass it here. The value is copied into
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
    model: &crate::load::LoadModel,
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

    let strategies = build_strategies(&cfg, profile)?;
    warnings.extend(strategies.resolution.warnings.iter().cloned());
    let mut plan = Plan {
        format_version: PLAN_FORMAT_VERSION,
        snapshot_fingerprint: fingerprint,
        cluster: snapshot.cluster.clone(),
        snapshot_captured_at_ms: snapshot.captured_at_ms,
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
        trace: req.explain.placement_trace(),
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
    plan.verdict = super::verdict::judge(&plan, ws.cfg.overloaded_threshold_fraction());
    leave_out(&mut plan, req.explain);
    let _ = ws.profile;
    Ok(plan)
}
