//! Which rows of the release table a plan's decisions read: the rows its load manager, its
//! configured shedding and placement strategies, the keys it leaves at the release's default, the
//! snapshot's names and its destination unloads touch. Two releases that differ only in rows a
//! plan does not read decide that plan alike (4.0.13 and 4.0.14 differ in #26246 and #26253, which
//! a ThresholdShedder cluster never reads), so the apply and export checks, the upgrade preview's
//! attribution and the scripts compare only these rows ([`crate::release::Behaviour::decides_alike`]).

use crate::config::{AVG_SHEDDER, LoadBalancerConfig, UNIFORM_LOAD_SHEDDER, qualify_strategy_name};
use crate::model::Snapshot;
use crate::modular::load_data::{hidden_from_shedding, namespace_of_bundle};
use crate::release::{CHANGES, Change};

use super::model::PlannedUnload;

/// The keys whose default a row changes, as far as one leader cycle reads them (the bundle counts
/// of #26609 / #26610 only matter to namespaces created later, not to a cycle's decisions).
fn default_keys(change: Change) -> &'static [&'static str] {
    match change {
        Change::DirectMemoryWeightZero => &["loadBalancerDirectMemoryResourceWeight"],
        Change::Defaults50 => &[
            "loadBalancerLoadSheddingStrategy",
            "loadBalancerLoadPlacementStrategy",
            "maxUnloadPercentage",
            "loadBalancerDistributeBundlesEvenlyEnabled",
        ],
        _ => &[],
    }
}

/// The range of a full bundle name (`tenant/ns/0x…_0x…` → `0x…_0x…`).
fn range_of(bundle: &str) -> &str {
    bundle.rsplit('/').next().unwrap_or(bundle)
}

/// Whether two unloads that name a destination share a range: what #25518 changed (the affinity
/// keyed by range before it).
fn destinations_share_a_range(unloads: &[PlannedUnload]) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    for u in unloads
        .iter()
        .filter(|u| u.pass_destination && u.to.is_some())
    {
        let r = range_of(&u.bundle);
        if seen.contains(&r) {
            return true;
        }
        seen.push(r);
    }
    false
}

/// The rows read by a plan on `snapshot` with the operator's `settings` (`broker.conf` overrides),
/// the resolved configuration `cfg` and the plan's `unloads`, in table order.
pub fn rows_read(
    snapshot: &Snapshot,
    settings: &[(String, String)],
    cfg: &LoadBalancerConfig,
    unloads: &[PlannedUnload],
) -> Vec<Change> {
    let explicit = |key: &str| {
        settings.iter().any(|(k, _)| k == key) || snapshot.broker_conf.contains_key(key)
    };
    // The configured names, before a release that lacks AvgShedder replaces it.
    let configured = |key: &str, resolved: &str| {
        settings
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .or_else(|| snapshot.broker_conf.get(key).map(String::as_str))
            .map_or_else(|| qualify_strategy_name(resolved), qualify_strategy_name)
    };
    let shedding = configured(
        "loadBalancerLoadSheddingStrategy",
        &cfg.load_balancer_load_shedding_strategy,
    );
    let placement = configured(
        "loadBalancerLoadPlacementStrategy",
        &cfg.load_balancer_load_placement_strategy,
    );
    let modular = !cfg.is_extensible();
    let uses = |class: &str| shedding == class || placement == class;
    let names_differ = || {
        snapshot.bundle_data.keys().any(|b| {
            let ns = namespace_of_bundle(b);
            hidden_from_shedding(ns, true) != hidden_from_shedding(ns, false)
        })
    };
    CHANGES
        .iter()
        .map(|r| r.change)
        .filter(|&change| match change {
            Change::AvgShedderAvailable => modular && uses(AVG_SHEDDER),
            // Weighted max in the shedder's and the placement's overload checks: every modular
            // placement runs the check (ModularLoadManagerImpl.selectBroker).
            Change::WeightedOverloadChecks => modular,
            Change::UniformSlackRemoved => modular && shedding == UNIFORM_LOAD_SHEDDER,
            // The comparator sorts in shedding; the remembered destinations are read by placement
            // from the one shared instance.
            Change::AvgShedderExactComparator | Change::AvgShedderDestinationsByName => {
                modular && uses(AVG_SHEDDER)
            }
            Change::Pip457NamePatterns => modular && names_differ(),
            Change::FailFastOnMisconfiguration => {
                modular && placement == AVG_SHEDDER && shedding != AVG_SHEDDER
            }
            Change::AffinityByFullBundleName => modular && destinations_share_a_range(unloads),
            Change::DirectMemoryWeightZero => default_keys(change).iter().any(|k| !explicit(k)),
            // The 5.0 defaults are keys of the modular manager.
            Change::Defaults50 => modular && default_keys(change).iter().any(|k| !explicit(k)),
            // The planner never splits a bundle missing from the layout; it does not read
            // `loadBalancerOverrideBrokerNics`; a plan models one leader.
            Change::SkipSplitOfMissingBundle
            | Change::OverrideBrokerNics
            | Change::FormerLeaderStopsShedding => false,
        })
        .collect()
}
