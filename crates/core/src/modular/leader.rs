//! The leader's strategy wiring and one shedding cycle (`doLoadShedding`, §6.3).
//!
//! [`StrategySet`] resolves `loadBalancerLoadSheddingStrategy` / `loadBalancerLoadPlacementStrategy`
//! the way the broker does at startup (AvgShedder in both roles is one shared object; the Pulsar 5.0
//! fallback; the startup error). [`do_load_shedding`] runs the strategy, then checks and places each
//! selected bundle, giving the unloads with their destinations and the decisions that were skipped.

use serde::{Deserialize, Serialize};

use super::pipeline::{
    PlacementContext, PlacementOutcome, SelectionPath, ShedSelectionMemo,
    select_broker_for_bundle_memo, should_anti_affinity_namespace_unload,
    should_namespace_policies_unload_memo,
};
use super::placement::{PlacementStrategy, placement_by_name};
use super::shedding::{AvgShedder, shedder_by_name};
use super::{LoadData, LoadSheddingStrategy, ShedReason, SheddingSelection};
use crate::config::{
    self, AVG_SHEDDER, LEAST_LONG_TERM_MESSAGE_RATE, LoadBalancerConfig, OVERLOAD_SHEDDER, Profile,
    THRESHOLD_SHEDDER, UNIFORM_LOAD_SHEDDER,
};
use crate::model::BundleData;
use crate::naming::java_map_order::JavaHashSet;
use crate::rng::Picker;

/// A strategy object that serves both roles (AvgShedder).
pub trait SheddingAndPlacement: LoadSheddingStrategy + PlacementStrategy {}

impl<T: LoadSheddingStrategy + PlacementStrategy> SheddingAndPlacement for T {}

/// Why the configured pair cannot run: Pulsar refuses to start the broker, or does not run the
/// modular load manager at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StrategyConfigError {
    /// apache/pulsar#26031: up to 4.x the broker logs a warning and falls back to
    /// `SimpleLoadManagerImpl`, which this planner does not model (5.0 fails fast instead).
    #[error(
        "loadBalancerLoadPlacementStrategy `{placement}` is a shedding strategy but differs from loadBalancerLoadSheddingStrategy `{shedding}`: on Pulsar {profile} (before apache/pulsar#26031: 4.0.12, 4.2.3, 5.0.0-M1) the broker logs a warning and falls back to SimpleLoadManagerImpl, so this cluster is not running the modular load manager at all (SimpleLoadManagerImpl is not modelled: no plan); set both to AvgShedder, or the placement to LeastLongTermMessageRate or LeastResourceUsageWithWeight"
    )]
    FallsBackToSimpleLoadManager {
        shedding: String,
        placement: String,
        profile: Profile,
    },
    #[error(
        "loadBalancerLoadPlacementStrategy `{placement}` is a shedding strategy but differs from loadBalancerLoadSheddingStrategy `{shedding}`: Pulsar refuses to start (apache/pulsar#26031, since 4.0.12, 4.2.3, 5.0.0-M1)"
    )]
    PlacementShedderMismatch { shedding: String, placement: String },
    #[error("unknown loadBalancerLoadSheddingStrategy `{0}`")]
    UnknownSheddingStrategy(String),
    #[error("unknown loadBalancerLoadPlacementStrategy `{0}`")]
    UnknownPlacementStrategy(String),
}

/// The effective strategy names (fully qualified) and what the resolution had to say.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyResolution {
    pub shedding: String,
    pub placement: String,
    /// AvgShedder configured for both roles: one instance serves both.
    pub shared_instance: bool,
    /// Warnings the broker would log (the UI shows them).
    pub warnings: Vec<String>,
}

fn is_classic_shedder(qualified: &str) -> bool {
    [THRESHOLD_SHEDDER, OVERLOAD_SHEDDER, UNIFORM_LOAD_SHEDDER].contains(&qualified)
}

/// Resolves the configured pair as the broker does at startup.
pub fn resolve_strategy_names(
    cfg: &LoadBalancerConfig,
    profile: Profile,
) -> Result<StrategyResolution, StrategyConfigError> {
    let shedding = config::qualify_strategy_name(&cfg.load_balancer_load_shedding_strategy);
    let mut placement = config::qualify_strategy_name(&cfg.load_balancer_load_placement_strategy);
    let mut warnings = Vec::new();
    let behaviour = profile.behaviour();
    if behaviour.defaults_5_0 && is_classic_shedder(&shedding) && placement == AVG_SHEDDER {
        // 5.0 made AvgShedder the default placement; paired with a classic shedder it would be a
        // startup error, so the broker falls back and logs a warning.
        warnings.push(format!(
            "loadBalancerLoadSheddingStrategy is {} while loadBalancerLoadPlacementStrategy is left at its 5.0 default AvgShedder: placement falls back to LeastLongTermMessageRate",
            config::simple_class_name(&shedding)
        ));
        placement = LEAST_LONG_TERM_MESSAGE_RATE.to_string();
    }
    if is_classic_shedder(&placement) {
        return Err(StrategyConfigError::UnknownPlacementStrategy(placement));
    }
    if placement == AVG_SHEDDER
        && shedding != AVG_SHEDDER
        && !behaviour.fail_fast_on_misconfiguration
    {
        return Err(StrategyConfigError::FallsBackToSimpleLoadManager {
            shedding,
            placement,
            profile,
        });
    }
    if placement == AVG_SHEDDER && shedding != AVG_SHEDDER {
        return Err(StrategyConfigError::PlacementShedderMismatch {
            shedding,
            placement,
        });
    }
    let shared_instance = placement == AVG_SHEDDER && shedding == AVG_SHEDDER;
    Ok(StrategyResolution {
        shedding,
        placement,
        shared_instance,
        warnings,
    })
}

enum Instances {
    Separate {
        shedding: Box<dyn LoadSheddingStrategy>,
        placement: Box<dyn PlacementStrategy>,
    },
    Shared(Box<dyn SheddingAndPlacement>),
}

/// The shedding strategy and the placement strategy the leader runs, kept across cycles.
pub struct StrategySet {
    instances: Instances,
    pub resolution: StrategyResolution,
}

impl std::fmt::Debug for StrategySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StrategySet")
            .field("resolution", &self.resolution)
            .finish_non_exhaustive()
    }
}

impl StrategySet {
    /// Builds the pair from configuration. `make_shedder` builds a shedding strategy by qualified
    /// name; `make_avg_shedder` builds the AvgShedder object used in both roles.
    pub fn build(
        cfg: &LoadBalancerConfig,
        profile: Profile,
        make_shedder: &dyn Fn(&str) -> Option<Box<dyn LoadSheddingStrategy>>,
        make_avg_shedder: &dyn Fn() -> Box<dyn SheddingAndPlacement>,
    ) -> Result<Self, StrategyConfigError> {
        let resolution = resolve_strategy_names(cfg, profile)?;
        let instances = if resolution.shared_instance {
            Instances::Shared(make_avg_shedder())
        } else {
            let shedding = make_shedder(&resolution.shedding).ok_or_else(|| {
                StrategyConfigError::UnknownSheddingStrategy(resolution.shedding.clone())
            })?;
            let placement = placement_by_name(&resolution.placement).ok_or_else(|| {
                StrategyConfigError::UnknownPlacementStrategy(resolution.placement.clone())
            })?;
            Instances::Separate {
                shedding,
                placement,
            }
        };
        Ok(Self {
            instances,
            resolution,
        })
    }

    /// Builds the pair from configuration with this crate's strategies (AvgShedder shared when it
    /// is configured for both roles).
    pub fn from_config(
        cfg: &LoadBalancerConfig,
        profile: Profile,
    ) -> Result<Self, StrategyConfigError> {
        Self::build(
            cfg,
            profile,
            &|name| shedder_by_name(name, profile),
            &|| Box::new(AvgShedder::new(profile)),
        )
    }

    /// A pair of separate objects.
    pub fn separate(
        resolution: StrategyResolution,
        shedding: Box<dyn LoadSheddingStrategy>,
        placement: Box<dyn PlacementStrategy>,
    ) -> Self {
        Self {
            instances: Instances::Separate {
                shedding,
                placement,
            },
            resolution,
        }
    }

    /// One object in both roles.
    pub fn shared(resolution: StrategyResolution, both: Box<dyn SheddingAndPlacement>) -> Self {
        Self {
            instances: Instances::Shared(both),
            resolution,
        }
    }

    pub fn shedding(&mut self) -> &mut dyn LoadSheddingStrategy {
        match &mut self.instances {
            Instances::Separate { shedding, .. } => shedding.as_mut(),
            Instances::Shared(both) => both.as_mut(),
        }
    }

    pub fn placement(&mut self) -> &mut dyn PlacementStrategy {
        match &mut self.instances {
            Instances::Separate { placement, .. } => placement.as_mut(),
            Instances::Shared(both) => both.as_mut(),
        }
    }

    /// Whether one object serves both roles.
    pub fn is_shared(&self) -> bool {
        matches!(self.instances, Instances::Shared(_))
    }

    /// `onActiveBrokersChange` to both roles (twice to a shared object, as Pulsar does; idempotent).
    pub fn on_active_brokers_change(&mut self, active_brokers: &[String]) {
        self.shedding().on_active_brokers_change(active_brokers);
        self.placement().on_active_brokers_change(active_brokers);
    }
}

/// Why a whole cycle did nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CycleSkip {
    /// `loadBalancerEnabled` or `loadBalancerSheddingEnabled` is false.
    SheddingDisabled,
    /// At most one broker is available.
    SingleBroker { available: usize },
}

/// Why one selected bundle was not unloaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum UnloadSkipReason {
    /// The namespace is in `loadBalancerSheddingExcludedNamespaces`.
    ExcludedNamespace,
    /// No broker other than the owner is allowed for the namespace.
    NamespacePolicies,
    /// Moving it would not reduce the anti-affinity group's concentration.
    AntiAffinity,
    /// `selectBroker` found no broker.
    NoBrokerAvailable,
    /// `selectBroker` chose the current owner.
    SameBroker,
}

/// A bundle the cycle unloads, with the destination the leader passes to the unload call (the
/// plan document's row for it is `plan::PlannedUnload`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleUnload {
    pub bundle: String,
    pub from: String,
    pub to: String,
    pub shed_reason: ShedReason,
    pub placement: PlacementOutcome,
}

/// A decision of the strategy the cycle did not carry out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkippedUnload {
    pub bundle: String,
    pub from: String,
    pub shed_reason: ShedReason,
    pub why: UnloadSkipReason,
    /// The pipeline's answer when the skip came from placement.
    pub placement: Option<PlacementOutcome>,
}

/// Everything one `doLoadShedding` did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SheddingCycleReport {
    pub cycle_skipped: Option<CycleSkip>,
    /// Recently-unloaded bundles whose grace period ended this cycle.
    pub expired_recently_unloaded: Vec<String>,
    /// The strategy's raw selection, in its order.
    pub decisions: Vec<SheddingSelection>,
    pub unloads: Vec<CycleUnload>,
    pub skipped: Vec<SkippedUnload>,
    /// Brokers over the strategy's threshold it shed nothing from, with why.
    pub not_shed: Vec<super::shedding::NotShed>,
}

/// `loadBalancerEnabled` or `loadBalancerSheddingEnabled` is false: the leader skips its shedding cycle
/// (`ModularLoadManagerImpl.doLoadShedding`, and the extensible manager's unload scheduler alike).
pub fn shedding_disabled(cfg: &LoadBalancerConfig) -> bool {
    !cfg.load_balancer_enabled || !cfg.load_balancer_shedding_enabled
}

/// `doLoadShedding` for one cycle at time `now_ms` (§6.3). Records every unload in
/// `data.recently_unloaded` at `now_ms`.
pub fn do_load_shedding(
    strategies: &mut StrategySet,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
    cfg: &LoadBalancerConfig,
    picker: &mut dyn Picker,
    now_ms: i64,
) -> SheddingCycleReport {
    let mut report = SheddingCycleReport::default();
    if shedding_disabled(cfg) {
        report.cycle_skipped = Some(CycleSkip::SheddingDisabled);
        return report;
    }
    let available = ctx.available_broker_count(data);
    if available <= 1 {
        report.cycle_skipped = Some(CycleSkip::SingleBroker { available });
        return report;
    }
    let grace_ms = cfg
        .load_balancer_shedding_grace_period_minutes
        .saturating_mul(60_000);
    let timeout = now_ms.saturating_sub(grace_ms);
    data.recently_unloaded.retain(|bundle, at| {
        let keep = *at >= timeout;
        if !keep {
            report.expired_recently_unloaded.push(bundle.clone());
        }
        keep
    });

    let decisions = strategies.shedding().find_bundles_for_unloading(data, cfg);
    report.decisions = decisions.clone();
    report.not_shed = strategies.shedding().not_shed();

    // Pulsar walks the multimap broker by broker (HashMap key order), each broker's bundles in order.
    let broker_order = JavaHashSet::from_ordered(decisions.iter().map(|d| d.broker.as_str()));
    // The candidate steps' result per namespace, for this cycle's selections only.
    let mut memo = ShedSelectionMemo::new();
    for broker in broker_order.iter() {
        for decision in decisions.iter().filter(|d| d.broker == *broker) {
            handle_decision(
                decision,
                strategies,
                data,
                ctx,
                cfg,
                picker,
                now_ms,
                &mut report,
                &mut memo,
            );
        }
    }
    report
}

#[allow(clippy::too_many_arguments)]
fn handle_decision(
    decision: &SheddingSelection,
    strategies: &mut StrategySet,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
    cfg: &LoadBalancerConfig,
    picker: &mut dyn Picker,
    now_ms: i64,
    report: &mut SheddingCycleReport,
    memo: &mut ShedSelectionMemo,
) {
    let bundle = decision.bundle.as_str();
    let from = decision.broker.as_str();
    let skip = |why: UnloadSkipReason, placement: Option<PlacementOutcome>| SkippedUnload {
        bundle: bundle.to_string(),
        from: from.to_string(),
        shed_reason: decision.reason.clone(),
        why,
        placement,
    };
    let namespace = super::load_data::namespace_of_bundle(bundle);
    if cfg
        .load_balancer_shedding_excluded_namespaces
        .iter()
        .any(|n| n == namespace)
    {
        report
            .skipped
            .push(skip(UnloadSkipReason::ExcludedNamespace, None));
        return;
    }
    if !should_namespace_policies_unload_memo(bundle, from, data, ctx, memo) {
        report
            .skipped
            .push(skip(UnloadSkipReason::NamespacePolicies, None));
        return;
    }
    if !should_anti_affinity_namespace_unload(bundle, from, data, ctx) {
        report
            .skipped
            .push(skip(UnloadSkipReason::AntiAffinity, None));
        return;
    }
    let bundle_data = data
        .bundle_data
        .get(bundle)
        .copied()
        .unwrap_or_else(BundleData::pulsar_default);
    let outcome = select_broker_for_bundle_memo(
        bundle,
        &bundle_data,
        SelectionPath::Shedding,
        data,
        ctx,
        cfg,
        strategies.placement(),
        picker,
        Some(memo),
    );
    match outcome.broker.clone() {
        None => report
            .skipped
            .push(skip(UnloadSkipReason::NoBrokerAvailable, Some(outcome))),
        Some(to) if to == from => report
            .skipped
            .push(skip(UnloadSkipReason::SameBroker, Some(outcome))),
        Some(to) => {
            data.recently_unloaded.insert(bundle.to_string(), now_ms);
            report.unloads.push(CycleUnload {
                bundle: bundle.to_string(),
                from: from.to_string(),
                to,
                shed_reason: decision.reason.clone(),
                placement: outcome,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::ResourceUsage;
    use crate::modular::BrokerData;
    use crate::modular::placement::LeastLongTermMessageRate;
    use crate::rng::SeededPicker;

    /// A shedder that returns fixed decisions.
    struct Fixed(Vec<SheddingSelection>);

    impl LoadSheddingStrategy for Fixed {
        fn name(&self) -> &'static str {
            "Fixed"
        }
        fn find_bundles_for_unloading(
            &mut self,
            _data: &LoadData,
            _cfg: &LoadBalancerConfig,
        ) -> Vec<SheddingSelection> {
            self.0.clone()
        }
    }

    fn decision(broker: &str, bundle: &str) -> SheddingSelection {
        SheddingSelection {
            broker: broker.into(),
            bundle: bundle.into(),
            reason: ShedReason::OverloadShedder {
                broker_usage_fraction: 0.9,
                overload_threshold_fraction: 0.85,
                need_bytes_per_sec: 1.0,
                bundle_bytes_per_sec: 1.0,
            },
        }
    }

    fn two_brokers() -> LoadData {
        let mut data = LoadData::default();
        for (name, cpu, rate) in [("b1:8080", 90.0, 5000.0), ("b2:8080", 10.0, 100.0)] {
            let mut b = BrokerData::default();
            b.local.cpu = ResourceUsage::new(cpu, 100.0);
            b.time_average.long_term_msg_rate_in = rate;
            data.brokers.insert(name.into(), b);
        }
        data
    }

    fn set_with(decisions: Vec<SheddingSelection>) -> StrategySet {
        let cfg = LoadBalancerConfig::pulsar_4x();
        let resolution = resolve_strategy_names(&cfg, Profile::Pulsar4x).unwrap();
        StrategySet::separate(
            resolution,
            Box::new(Fixed(decisions)),
            Box::new(LeastLongTermMessageRate),
        )
    }

    #[test]
    fn shedding_cycle_places_skips_and_records() {
        let mut cfg = LoadBalancerConfig::pulsar_4x();
        cfg.load_balancer_shedding_excluded_namespaces = vec!["t/excluded".into()];
        let mut set = set_with(vec![
            decision("b1:8080", "t/ns/0x00000000_0x80000000"),
            decision("b1:8080", "t/excluded/0x00000000_0xffffffff"),
            decision("b2:8080", "t/ns/0x80000000_0xffffffff"),
        ]);
        let mut data = two_brokers();
        // Grace period 30 min: an entry 31 minutes old expires, one 1 minute old stays.
        let now = 10_000_000;
        data.recently_unloaded
            .insert("old".into(), now - 31 * 60_000);
        data.recently_unloaded.insert("new".into(), now - 60_000);
        let mut ctx = PlacementContext::new();
        let report = do_load_shedding(
            &mut set,
            &mut data,
            &mut ctx,
            &cfg,
            &mut SeededPicker::new(0),
            now,
        );
        assert_eq!(report.expired_recently_unloaded, ["old"]);
        // b1 is overloaded (90% > 85%): LeastLongTermMessageRate scores it +inf, so b2 is chosen.
        assert_eq!(report.unloads.len(), 1);
        assert_eq!(report.unloads[0].to, "b2:8080");
        assert_eq!(report.unloads[0].from, "b1:8080");
        let whys: Vec<&UnloadSkipReason> = report.skipped.iter().map(|s| &s.why).collect();
        assert!(whys.contains(&&UnloadSkipReason::ExcludedNamespace));
        // The bundle already on b2 would go to b2 again.
        assert!(whys.contains(&&UnloadSkipReason::SameBroker));
        assert_eq!(
            data.recently_unloaded.get("t/ns/0x00000000_0x80000000"),
            Some(&now)
        );
        assert!(!data.recently_unloaded.contains_key("old"));
    }

    #[test]
    fn shedding_cycle_skips_when_disabled_or_alone() {
        let mut cfg = LoadBalancerConfig::pulsar_4x();
        let mut set = set_with(vec![decision("b1:8080", "t/ns/0x00000000_0xffffffff")]);
        let mut data = two_brokers();
        let mut ctx = PlacementContext::new();
        cfg.load_balancer_shedding_enabled = false;
        let r = do_load_shedding(
            &mut set,
            &mut data,
            &mut ctx,
            &cfg,
            &mut SeededPicker::new(0),
            0,
        );
        assert_eq!(r.cycle_skipped, Some(CycleSkip::SheddingDisabled));
        cfg.load_balancer_shedding_enabled = true;
        data.brokers.shift_remove("b2:8080");
        let r = do_load_shedding(
            &mut set,
            &mut data,
            &mut ctx,
            &cfg,
            &mut SeededPicker::new(0),
            0,
        );
        assert_eq!(
            r.cycle_skipped,
            Some(CycleSkip::SingleBroker { available: 1 })
        );
    }

    #[test]
    fn avg_shedder_sheds_towards_its_planned_destination() {
        // As oracle handmade-avgplace_2_after_shed: scores 90 vs 10 (gap 80 >= high threshold 40);
        // the high hit count reaches 2 in the second cycle, then the bundle goes to the low broker.
        // The oracle ran master's maxUnloadPercentage 0.2 (5.0.0 defaults to 0.5).
        let mut cfg = LoadBalancerConfig::pulsar_5_0();
        cfg.max_unload_percentage = 0.2;
        let mut set = StrategySet::from_config(&cfg, Profile::Pulsar50).unwrap();
        assert!(set.is_shared());
        let mut data = two_brokers();
        let bundle = BundleData {
            short_term_data: crate::model::TimeAverageMessageData {
                msg_rate_in: 2000.0,
                msg_rate_out: 2000.0,
                ..crate::model::TimeAverageMessageData::with_defaults(10)
            },
            ..BundleData::default()
        };
        for (name, rate, bundles) in [
            (
                "b1:8080",
                15000.0,
                vec!["t/ns/0x00000000_0x80000000", "t/ns/0x80000000_0xffffffff"],
            ),
            ("b2:8080", 1500.0, vec![]),
        ] {
            let b = data.brokers.get_mut(name).unwrap();
            b.local.msg_rate_in = rate;
            b.local.msg_rate_out = rate;
            b.local.bundles = bundles.iter().map(|s| s.to_string()).collect();
        }
        for name in ["t/ns/0x00000000_0x80000000", "t/ns/0x80000000_0xffffffff"] {
            data.bundle_data.insert(name.into(), bundle);
        }
        let mut ctx = PlacementContext::new();
        let mut picker = SeededPicker::new(0);
        let first = do_load_shedding(&mut set, &mut data, &mut ctx, &cfg, &mut picker, 0);
        assert!(first.decisions.is_empty());
        let second = do_load_shedding(&mut set, &mut data, &mut ctx, &cfg, &mut picker, 60_000);
        // need = (30000 - 3000) * 0.2 = 5400 msg/s: one 4000 msg/s bundle fits, the second does not.
        assert_eq!(second.unloads.len(), 1);
        assert_eq!(second.unloads[0].to, "b2:8080");
        assert_eq!(
            second.unloads[0]
                .placement
                .choice
                .as_ref()
                .unwrap()
                .choice_set,
            ["b2:8080"]
        );
    }

    #[test]
    fn pulsar_5_falls_back_for_classic_shedders() {
        let mut cfg = LoadBalancerConfig::pulsar_5_0();
        cfg.load_balancer_load_shedding_strategy = "ThresholdShedder".into();
        let r = resolve_strategy_names(&cfg, Profile::Pulsar50).unwrap();
        assert_eq!(r.placement, LEAST_LONG_TERM_MESSAGE_RATE);
        assert_eq!(r.warnings.len(), 1);
        assert!(!r.shared_instance);
        let mut set = StrategySet::from_config(&cfg, Profile::Pulsar50).unwrap();
        assert!(!set.is_shared());
        assert_eq!(set.placement().name(), "LeastLongTermMessageRate");
        assert_eq!(set.shedding().name(), "ThresholdShedder");
    }

    #[test]
    fn avg_shedder_placement_with_other_shedder_falls_back_or_is_a_startup_error() {
        // apache/pulsar#26031 (4.0.12, 4.2.3, 5.0.0-M1): before it the broker falls back to
        // SimpleLoadManagerImpl; from it (and on the oracle's master) it refuses to start.
        let mut cfg = LoadBalancerConfig::pulsar_4x();
        cfg.load_balancer_load_placement_strategy = AVG_SHEDDER.into();
        for before in ["3.x", "4.0.11", "4.1.3", "4.2.2"] {
            assert!(matches!(
                resolve_strategy_names(&cfg, Profile::parse(before).unwrap()),
                Err(StrategyConfigError::FallsBackToSimpleLoadManager { .. })
            ));
        }
        for after in ["4.0.12", "4.x", "4.2.3", "master-90cba329"] {
            assert!(matches!(
                resolve_strategy_names(&cfg, Profile::parse(after).unwrap()),
                Err(StrategyConfigError::PlacementShedderMismatch { .. })
            ));
        }
        let both = LoadBalancerConfig::pulsar_5_0();
        let r = resolve_strategy_names(&both, Profile::Pulsar50).unwrap();
        assert!(r.shared_instance);
        assert!(r.warnings.is_empty());
    }
}
