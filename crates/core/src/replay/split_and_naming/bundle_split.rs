//! `bundle_split`: the modular `BundleSplitterTask` decision per cycle. The task keeps no state, so
//! cycles are independent. Brokers are visited in the leader's `ConcurrentHashMap` order of their
//! names; each broker's `lastStats` in the order the scenario lists them. A namespace missing from
//! `namespaceBundleCounts` is one whose bundle count cannot be read: its bundles are not split (the
//! oracle's namespace service fails for it, which `BundleSplitterTask` logs and skips).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::input;
use crate::model::{BundleData, NamespaceBundleStats, ResourceUsage};
use crate::naming::concurrent_hash_map_order;
use crate::replay::error::ReplayError;
use crate::replay::json::{self, ConfigKeys};
use crate::split::{BrokerBundleStats, SplitThresholds, find_bundles_to_split};

/// A `kind: "bundle_split"` scenario.
#[derive(Debug, Deserialize)]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    config: Option<ConfigKeys>,
    cycles: Vec<Cycle>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cycle {
    brokers: Vec<Reported>,
    /// bundle → the leader's `BundleData`.
    #[serde(default)]
    bundles: IndexMap<String, BundleData>,
    /// namespace → bundle count; a namespace missing here has an unreadable count.
    #[serde(default)]
    namespace_bundle_counts: IndexMap<String, i64>,
}

/// A broker of the cycle: its name and `lastStats` in file order.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reported {
    name: String,
    #[serde(default)]
    last_stats: IndexMap<String, NamespaceBundleStats>,
    /// The report's CPU usage, which the oracle writes and `BundleSplitterTask` does not read.
    #[serde(rename = "cpu")]
    _cpu: Option<ResourceUsage>,
}

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let scenario: Scenario = json::read(scenario, base)?;
    let cfg = input::config(scenario.config.as_ref(), base)?;
    let thresholds = SplitThresholds::from_config(&cfg);
    let out_cycles: Vec<Value> = scenario
        .cycles
        .iter()
        .enumerate()
        .map(|(i, cycle)| run_cycle(cycle, i, &thresholds))
        .collect();
    Ok(json!({"kind": "bundle_split", "cycles": out_cycles}))
}

fn run_cycle(cycle: &Cycle, index: usize, thresholds: &SplitThresholds) -> Value {
    let reported = &cycle.brokers;
    let bundle_data = &cycle.bundles;
    let counts = &cycle.namespace_bundle_counts;
    let names: Vec<&str> = reported.iter().map(|r| r.name.as_str()).collect();
    let order = concurrent_hash_map_order(&names);
    let brokers: Vec<BrokerBundleStats<'_>> = order
        .iter()
        .filter_map(|&i| reported.get(i))
        .map(|r| BrokerBundleStats {
            broker: &r.name,
            bundles: r.last_stats.iter().map(|(b, s)| (b.as_str(), s)).collect(),
        })
        .collect();
    let plan = find_bundles_to_split(
        &brokers,
        bundle_data,
        |ns| counts.get(ns).copied(),
        thresholds,
    );
    let split: Map<String, Value> = plan
        .accepted
        .iter()
        .map(|c| (c.bundle.clone(), json!(c.broker)))
        .collect();
    let reasons: Map<String, Value> = plan
        .accepted
        .iter()
        .map(|c| {
            let why: Vec<String> = c.triggers.iter().map(ToString::to_string).collect();
            (c.bundle.clone(), json!(why))
        })
        .collect();
    json!({
        "cycle": index,
        "broker_iteration_order": brokers.iter().map(|b| b.broker).collect::<Vec<_>>(),
        "split": split,
        "split_count": plan.accepted.len(),
        "split_reasons": reasons,
    })
}
