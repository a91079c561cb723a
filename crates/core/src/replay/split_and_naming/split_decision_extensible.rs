//! `split_decision_extensible`: `DefaultNamespaceBundleSplitStrategyImpl` over cycles on one strategy
//! instance (hit counters carry over). Cycle keys `namespaceBundleCounts`, `isOwner`,
//! `splittingBundles`, `ownedTopics` and `bundleStats` persist until a later cycle gives them again.
//! Bundles are visited in the `ConcurrentHashMap` order of the stats map's keys. A namespace missing
//! from `namespaceBundleCounts` has an unreadable bundle count (`Failure/Unknown`, as in modular).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::input;
use crate::config::LoadBalancerConfig;
use crate::model::NamespaceBundleStats;
use crate::naming::{BundleRange, concurrent_hash_map_order, crc32};
use crate::replay::ReplayError;
use crate::replay::json;
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
    owner_default: bool,
    owner: BTreeMap<String, bool>,
    splitting: Vec<String>,
    owned_topics: BTreeMap<String, Vec<String>>,
}

impl ExtensibleSplitInput for World {
    fn local_broker(&self) -> &str {
        &self.local_broker
    }

    fn is_owner(&self, bundle: &str) -> bool {
        self.owner
            .get(bundle)
            .copied()
            .unwrap_or(self.owner_default)
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
    let cfg = input::config(scenario, base)?;
    let local_broker = match scenario.get("localBroker") {
        Some(v) => json::string(v, &format!("{base}.localBroker"))?.to_string(),
        None => String::new(),
    };
    let mut world = World {
        local_broker,
        algorithm: Some(SplitAlgorithm::by_name_or_default(
            &cfg.default_namespace_bundle_split_algorithm,
            "range_equally_divide",
        )),
        flow_limits: Some(FlowOrQpsLimits::from_config(&cfg)),
        owner_default: true,
        ..World::default()
    };
    let mut strategy = ExtensibleSplitStrategy::new();
    let cycles_path = format!("{base}.cycles");
    let cycles = json::array(json::required(scenario, "cycles", base)?, &cycles_path)?;
    let mut out = Vec::with_capacity(cycles.len());
    for (i, cycle) in cycles.iter().enumerate() {
        let path = format!("{cycles_path}[{i}]");
        apply_cycle(&mut world, cycle, &path)?;
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
fn apply_cycle(world: &mut World, cycle: &Value, path: &str) -> Result<(), ReplayError> {
    if let Some(stats) = cycle.get("bundleStats") {
        let spath = format!("{path}.bundleStats");
        let mut listed = Vec::new();
        for (bundle, s) in json::object(stats, &spath)? {
            let s: NamespaceBundleStats = json::deserialize(s, &format!("{spath}[{bundle:?}]"))?;
            listed.push((bundle.clone(), s));
        }
        let names: Vec<&str> = listed.iter().map(|(b, _)| b.as_str()).collect();
        world.bundle_stats = concurrent_hash_map_order(&names)
            .into_iter()
            .filter_map(|i| listed.get(i).cloned())
            .collect();
    }
    if let Some(c) = cycle.get("namespaceBundleCounts") {
        let cpath = format!("{path}.namespaceBundleCounts");
        world.counts.clear();
        for (ns, n) in json::object(c, &cpath)? {
            let n = n.as_i64().ok_or_else(|| {
                ReplayError::malformed(format!("{cpath}[{ns:?}]"), "expected an integer")
            })?;
            world.counts.insert(ns.clone(), n);
        }
    }
    if let Some(o) = cycle.get("isOwner") {
        let opath = format!("{path}.isOwner");
        world.owner.clear();
        world.owner_default = true;
        match o {
            Value::Bool(b) => world.owner_default = *b,
            Value::Object(map) => {
                for (bundle, v) in map {
                    let b = v.as_bool().ok_or_else(|| {
                        ReplayError::malformed(format!("{opath}[{bundle:?}]"), "expected a boolean")
                    })?;
                    if bundle == "*" {
                        world.owner_default = b;
                    } else {
                        world.owner.insert(bundle.clone(), b);
                    }
                }
            }
            _ => {
                return Err(ReplayError::malformed(
                    opath,
                    "expected a boolean or an object",
                ));
            }
        }
    }
    if let Some(s) = cycle.get("splittingBundles") {
        world.splitting = json::string_list(s, &format!("{path}.splittingBundles"))?;
    }
    if let Some(t) = cycle.get("ownedTopics") {
        let tpath = format!("{path}.ownedTopics");
        world.owned_topics.clear();
        for (bundle, list) in json::object(t, &tpath)? {
            let topics = json::string_list(list, &format!("{tpath}[{bundle:?}]"))?;
            world.owned_topics.insert(bundle.clone(), topics);
        }
    }
    Ok(())
}
