//! What the page derives from the loaded snapshot (the profile it plans with), the effective configuration and the plan,
//! each computed by core and memoised on what it depends on: broker rows and the operator's split
//! algorithms, the selected broker's detail ("why is this broker hot?"), and the bundle map's
//! marks for the plan (bundles it touches, owners after its moves).

use std::rc::Rc;

use lbplan_core::config::settings::resolve_config;
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::plan::Plan;
use lbplan_core::split::{SplitAlgorithm, operator_split_algorithms};
use lbplan_core::view::broker_detail::BrokerDetail;
use lbplan_core::view::brokers::{BrokerRow, broker_rows};
use lbplan_core::view::settings::effective_profile;
use yew::prelude::*;

use crate::state::Loaded;

/// The profile the page plans with: the operator's choice, else the one the snapshot's brokers
/// run (resolving the release reads every broker's version: once per snapshot and choice).
#[hook]
pub fn use_effective_profile(loaded: Option<Rc<Loaded>>, chosen: Option<Profile>) -> Profile {
    *use_memo(
        (loaded.as_ref().map(|l| Rc::as_ptr(l) as usize), chosen),
        move |(_, chosen)| {
            loaded
                .as_ref()
                .map(|l| effective_profile(&l.snapshot, *chosen))
                .unwrap_or(Profile::Pulsar4x)
        },
    )
}

/// Broker rows (usage levels), the split algorithms an operator may pick, and the configuration
/// they were derived from.
pub type ConfigViews = (
    Rc<Vec<BrokerRow>>,
    Rc<Vec<SplitAlgorithm>>,
    Option<Rc<LoadBalancerConfig>>,
);

/// What the effective configuration decides for the page.
#[hook]
pub fn use_config_views(
    loaded: Option<Rc<Loaded>>,
    profile: Profile,
    overrides: Vec<(String, String)>,
) -> Rc<ConfigViews> {
    use_memo(
        (
            loaded.as_ref().map(|l| Rc::as_ptr(l) as usize),
            profile,
            overrides,
        ),
        move |(_, profile, overrides)| match &loaded {
            Some(l) => {
                let cfg = resolve_config(&l.snapshot, Some(*profile), overrides)
                    .or_else(|_| resolve_config(&l.snapshot, Some(*profile), &[]))
                    .map(|r| r.config)
                    .unwrap_or_else(|_| LoadBalancerConfig::for_profile(*profile));
                (
                    Rc::new(broker_rows(&l.snapshot, &cfg)),
                    Rc::new(operator_split_algorithms(&cfg)),
                    Some(Rc::new(cfg)),
                )
            }
            None => (Rc::new(Vec::new()), Rc::new(Vec::new()), None),
        },
    )
}

/// The selected broker's detail under the effective configuration, with what the plan does to it.
#[hook]
pub fn use_broker_detail(
    loaded: Option<Rc<Loaded>>,
    broker: Option<String>,
    cfg: Option<Rc<LoadBalancerConfig>>,
    plan: Option<Rc<Result<Plan, String>>>,
) -> Rc<Option<Rc<BrokerDetail>>> {
    use_memo(
        (
            loaded.as_ref().map(|l| Rc::as_ptr(l) as usize),
            broker,
            cfg.as_ref().map(|c| Rc::as_ptr(c) as usize),
            plan.as_ref().map(|p| Rc::as_ptr(p) as usize),
        ),
        move |(_, broker, _, _)| {
            let (Some(l), Some(broker), Some(cfg)) = (&loaded, broker, &cfg) else {
                return None;
            };
            let plan = plan.as_deref().and_then(|p| p.as_ref().ok());
            lbplan_core::view::broker_detail::broker_detail(&l.snapshot, cfg, broker, plan)
                .map(Rc::new)
        },
    )
}

/// The map segments a plan unloads or splits, and the owners after its moves (when it moves).
pub type PlanMarks = (Rc<Vec<usize>>, Option<Rc<Vec<u32>>>);

/// The bundle map's marks for the plan (`serial` changes with every plan).
#[hook]
pub fn use_plan_marks(
    loaded: Option<Rc<Loaded>>,
    plan: Option<Rc<Result<Plan, String>>>,
    serial: u32,
) -> Rc<PlanMarks> {
    use_memo(
        (loaded.as_ref().map(|l| Rc::as_ptr(l) as usize), serial),
        move |_| {
            let (Some(l), Some(Ok(p))) = (&loaded, plan.as_deref()) else {
                return (Rc::new(Vec::new()), None);
            };
            let mut segs: Vec<usize> = p
                .unloads
                .iter()
                .filter_map(|u| l.map.find(&u.bundle))
                .chain(p.splits.iter().filter_map(|s| l.map.find(&s.bundle)))
                .collect();
            segs.sort_unstable();
            segs.dedup();
            let moves: Vec<(&str, &str)> = p
                .unloads
                .iter()
                .filter_map(|u| Some((u.bundle.as_str(), u.to.as_deref()?)))
                .collect();
            let after = (!moves.is_empty()).then(|| Rc::new(l.map.owners_after(moves)));
            (Rc::new(segs), after)
        },
    )
}
