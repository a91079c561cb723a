//! What the leader builds before a cycle besides `LoadData`: its strategies (shedder and placement)
//! from the configuration, and its placement context (anti-affinity groups, failure domains,
//! isolation policies, the broker → namespace → bundle-range cache).

use crate::config::{LoadBalancerConfig, Profile};
use crate::model::Snapshot;
use crate::modular::LoadData;
use crate::modular::leader::{StrategyConfigError, StrategySet, resolve_strategy_names};
use crate::modular::pipeline::PlacementContext;
use crate::modular::shedding::{AvgShedder, shedder_by_name};

/// How far apart the leader's shedding cycles are: `loadBalancerSheddingIntervalMinutes` (at least one
/// minute), in milliseconds. Plans' outlooks and the simulator's clock both step by it
/// ([`cycle_start_ms`]).
pub fn cycle_interval_ms(cfg: &LoadBalancerConfig) -> i64 {
    cfg.load_balancer_shedding_interval_minutes
        .max(1)
        .saturating_mul(60_000)
}

/// When the leader's `n`-th cycle after the one at `first_ms` runs, its cycles `interval_ms`
/// ([`cycle_interval_ms`]) apart.
pub fn cycle_start_ms(first_ms: i64, interval_ms: i64, n: u32) -> i64 {
    first_ms.saturating_add(interval_ms.saturating_mul(i64::from(n)))
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
/// exactly are reported once per plan by [`crate::plan::make_plan`].)
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
