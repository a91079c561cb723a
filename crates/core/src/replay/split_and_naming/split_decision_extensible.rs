//! `split_decision_extensible`: `DefaultNamespaceBundleSplitStrategyImpl` over cycles on one strategy
//! instance (hit counters carry over). Cycle keys `namespaceBundleCounts`, `isOwner`,
//! `splittingBundles`, `ownedTopics` and `bundleStats` persist until a later cycle gives them again.
//! Bundles are visited in the `ConcurrentHashMap` order of the stats map's keys. A namespace missing
//! from `namespaceBundleCounts` has an unreadable bundle count (`Failure/Unknown`, as in modular).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::input;
use crate::config::LoadBalancerConfig;
use crate::model::NamespaceBundleStats;
use crate::naming::{BundleRange, concurrent_hash_map_order, crc32};
use crate::replay::error::ReplayError;
use crate::replay::json::{self, ConfigKeys, FlagOrMap};

/// A `kind: "split_decision_extensible"` scenario.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    config: Option<ConfigKeys>,
    /// The broker the strategy runs on (`sourceBroker` of its decisions).
    local_broker: Option<String>,
    cycles: Vec<Cycle>,
}

/// A cycle's keys; each given one replaces what earlier cycles gave.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cycle {
    bundle_stats: Option<IndexMap<String, NamespaceBundleStats>>,
    namespace_bundle_counts: Option<IndexMap<String, i64>>,
    is_owner: Option<FlagOrMap>,
    splitting_bundles: Option<Vec<String>>,
    owned_topics: Option<IndexMap<String, Vec<String>>>,
}
use crate::split::{
    ExtensibleSplitInput, ExtensibleSplitStrategy, FlowOrQpsLimits, SplitAlgorithm, SplitError,
    SplitPoints, flow_or_qps_equally_divide, range_equally_divide, topic_count_equally_divide,
};

/// The broker around the strategy, as the scenario describes it.
#[derive(Default)]
struct World {
    local_broker: String,
    algorithm: Option<SplitAlgorithm>,
    flow_limits: Option<FlowOrQpsLimits>,
    bundle_stats: Vec<(String, NamespaceBundleStats)>,
    counts: BTreeMap<String, i64>,
    /// `None` until a cycle gives `isOwner`: then every bundle is owned.
    owner: Option<FlagOrMap>,
    splitting: Vec<String>,
    owned_topics: BTreeMap<String, Vec<String>>,
}

impl ExtensibleSplitInput for World {
    fn local_broker(&self) -> &str {
        &self.local_broker
    }

    fn is_owner(&self, bundle: &str) -> bool {
        self.owner.as_ref().is_none_or(|o| o.flag(bundle))
    }

    fn namespace_bundle_count(&self, namespace: &str) -> Option<i64> {
        self.counts.get(namespace).copied()
    }

    fn splitting_bundles(&self) -> Vec<String> {
        self.splitting.clone()
    }

    /// `NamespaceService.getSplitBoundary(bundle, null, defaultAlgorithm)`: no positions are passed,
    /// and no topic stats are known to this replay.
    fn split_boundary(&self, bundle: &str, range: BundleRange) -> Result<SplitPoints, SplitError> {
        let topics = self.owned_topics.get(bundle).map_or(&[][..], Vec::as_slice);
        let hashes: Vec<u32> = topics.iter().map(|t| crc32(t.as_bytes())).collect();
        match self.algorithm.unwrap_or(SplitAlgorithm::RangeEquallyDivide) {
            SplitAlgorithm::RangeEquallyDivide => Ok(range_equally_divide(range)),
            SplitAlgorithm::TopicCountEquallyDivide => Ok(topic_count_equally_divide(&hashes)),
            SplitAlgorithm::SpecifiedPositionsDivide
            | SplitAlgorithm::SpecifiedPositionsDivideForce => Err(SplitError::EmptyPositions),
            SplitAlgorithm::FlowOrQpsEquallyDivide => {
                let owned: Vec<(u32, Option<_>)> = hashes.iter().map(|h| (*h, None)).collect();
                let limits = self.flow_limits.unwrap_or(FlowOrQpsLimits {
                    max_msg_rate_per_sec: 0,
                    max_bandwidth_mbytes: 0,
                    difference_threshold_pct: 0,
                });
                flow_or_qps_equally_divide(&owned, &limits)
            }
        }
    }
}

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let scenario: Scenario = json::read(scenario, base)?;
    let cfg = input::config(scenario.config.as_ref(), base)?;
    let mut world = World {
        local_broker: scenario.local_broker.clone().unwrap_or_default(),
        algorithm: Some(SplitAlgorithm::by_name_or_default(
            &cfg.default_namespace_bundle_split_algorithm,
            "range_equally_divide",
        )),
        flow_limits: Some(FlowOrQpsLimits::from_config(&cfg)),
        ..World::default()
    };
    let mut strategy = ExtensibleSplitStrategy::new();
    let mut out = Vec::with_capacity(scenario.cycles.len());
    for (i, cycle) in scenario.cycles.iter().enumerate() {
        apply_cycle(&mut world, cycle);
        out.push(run_cycle(&mut strategy, &world, &cfg, i));
    }
    Ok(json!({"kind": "split_decision_extensible", "cycles": out}))
}

fn run_cycle(
    strategy: &mut ExtensibleSplitStrategy,
    world: &World,
    cfg: &LoadBalancerConfig,
    index: usize,
) -> Value {
    let result = strategy.find_bundles_to_split(&world.bundle_stats, world, cfg);
    let decisions: Vec<Value> = result
        .decisions
        .iter()
        .map(|d| {
            let mut children: Vec<String> = d.children.iter().map(ToString::to_string).collect();
            children.sort();
            json!({
                "serviceUnit": d.service_unit,
                "sourceBroker": d.source_broker,
                "splitServiceUnits": children,
                "label": "Success",
                "reason": d.reason.name(),
                "trigger": d.trigger.to_string(),
            })
        })
        .collect();
    let mut counter_delta = Map::new();
    if result.failure_unknown > 0 {
        counter_delta.insert("Failure/Unknown".into(), json!(result.failure_unknown));
    }
    json!({
        "cycle": index,
        "bundle_iteration_order": world.bundle_stats.iter().map(|(b, _)| b).collect::<Vec<_>>(),
        "decisions": decisions,
        "decision_count": result.decisions.len(),
        "counter_delta": counter_delta,
        "splitConditionHitCounts": strategy.hit_counts(),
    })
}

/// Applies a cycle's keys to the persistent world.
fn apply_cycle(world: &mut World, cycle: &Cycle) {
    if let Some(stats) = &cycle.bundle_stats {
        let names: Vec<&str> = stats.keys().map(String::as_str).collect();
        world.bundle_stats = concurrent_hash_map_order(&names)
            .into_iter()
            .filter_map(|i| stats.get_index(i))
            .map(|(b, s)| (b.clone(), *s))
            .collect();
    }
    if let Some(c) = &cycle.namespace_bundle_counts {
        world.counts = c.iter().map(|(ns, n)| (ns.clone(), *n)).collect();
    }
    if let Some(o) = &cycle.is_owner {
        world.owner = Some(o.clone());
    }
    if let Some(s) = &cycle.splitting_bundles {
        world.splitting = s.clone();
    }
    if let Some(t) = &cycle.owned_topics {
        world.owned_topics = t.iter().map(|(b, l)| (b.clone(), l.clone())).collect();
    }
}
