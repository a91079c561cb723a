//! `bundle_split`: the modular `BundleSplitterTask` decision per cycle. The task keeps no state, so
//! cycles are independent. Brokers are visited in the leader's `ConcurrentHashMap` order of their
//! names; each broker's `lastStats` in the order the scenario lists them. A namespace missing from
//! `namespaceBundleCounts` is one whose bundle count cannot be read: its bundles are not split (the
//! oracle's namespace service fails for it, which `BundleSplitterTask` logs and skips).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::input;
use crate::model::{BundleData, NamespaceBundleStats};
use crate::naming::concurrent_hash_map_order;
use crate::replay::ReplayError;
use crate::replay::json;
use crate::split::{BrokerBundleStats, SplitThresholds, find_bundles_to_split};

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let cfg = input::config(scenario, base)?;
    let thresholds = SplitThresholds::from_config(&cfg);
    let cycles_path = format!("{base}.cycles");
    let cycles = json::array(json::required(scenario, "cycles", base)?, &cycles_path)?;
    let mut out_cycles = Vec::with_capacity(cycles.len());
    for (i, cycle) in cycles.iter().enumerate() {
        let path = format!("{cycles_path}[{i}]");
        out_cycles.push(run_cycle(cycle, &path, i, &thresholds)?);
    }
    Ok(json!({"kind": "bundle_split", "cycles": out_cycles}))
}

/// A broker of the cycle: its name and `lastStats` in file order.
struct Reported {
    name: String,
    stats: Vec<(String, NamespaceBundleStats)>,
}

fn run_cycle(
    cycle: &Value,
    path: &str,
    index: usize,
    thresholds: &SplitThresholds,
) -> Result<Value, ReplayError> {
    let brokers_path = format!("{path}.brokers");
    let mut reported = Vec::new();
    for (j, broker) in json::array(json::required(cycle, "brokers", path)?, &brokers_path)?
        .iter()
        .enumerate()
    {
        let bpath = format!("{brokers_path}[{j}]");
        let name = json::string(
            json::required(broker, "name", &bpath)?,
            &format!("{bpath}.name"),
        )?;
        let mut stats = Vec::new();
        if let Some(last) = broker.get("lastStats") {
            let lpath = format!("{bpath}.lastStats");
            for (bundle, s) in json::object(last, &lpath)? {
                let s = json::deserialize(s, &format!("{lpath}[{bundle:?}]"))?;
                stats.push((bundle.clone(), s));
            }
        }
        reported.push(Reported {
            name: name.to_string(),
            stats,
        });
    }
    let mut bundle_data: IndexMap<String, BundleData> = IndexMap::new();
    if let Some(bundles) = cycle.get("bundles") {
        let bpath = format!("{path}.bundles");
        for (name, data) in json::object(bundles, &bpath)? {
            bundle_data.insert(
                name.clone(),
                json::deserialize(data, &format!("{bpath}[{name:?}]"))?,
            );
        }
    }
    let mut counts: IndexMap<String, i64> = IndexMap::new();
    if let Some(c) = cycle.get("namespaceBundleCounts") {
        let cpath = format!("{path}.namespaceBundleCounts");
        for (ns, n) in json::object(c, &cpath)? {
            let n = n.as_i64().ok_or_else(|| {
                ReplayError::malformed(format!("{cpath}[{ns:?}]"), "expected an integer")
            })?;
            counts.insert(ns.clone(), n);
        }
    }

    let names: Vec<&str> = reported.iter().map(|r| r.name.as_str()).collect();
    let order = concurrent_hash_map_order(&names);
    let brokers: Vec<BrokerBundleStats<'_>> = order
        .iter()
        .filter_map(|&i| reported.get(i))
        .map(|r| BrokerBundleStats {
            broker: &r.name,
            bundles: r.stats.iter().map(|(b, s)| (b.as_str(), s)).collect(),
        })
        .collect();
    let plan = find_bundles_to_split(
        &brokers,
        &bundle_data,
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
    Ok(json!({
        "cycle": index,
        "broker_iteration_order": brokers.iter().map(|b| b.broker).collect::<Vec<_>>(),
        "split": split,
        "split_count": plan.accepted.len(),
        "split_reasons": reasons,
    }))
}
