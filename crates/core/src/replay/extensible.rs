//! Replay of the extensible load manager's `shedding_extensible` and `placement_extensible` scenarios
//! (`oracle-extensible/README.md`): keeps the leader's load-data store, the broker registry, the
//! top-bundle store, the ownership answers and the recently-unloaded maps across cycles, runs one
//! `TransferShedder` instance (with the UnloadScheduler's bookkeeping) or the placement pipeline per
//! cycle, and prints what the oracle prints.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::json::{self, deserialize, opt_f64, opt_i32, opt_i64, opt_object, string_list};
use super::{Picks, ReplayError};
use crate::config::{self, EXTENSIBLE_LOAD_MANAGER, LoadBalancerConfig, Profile};
use crate::extensible::{
    CandidateBrokers, SheddingInput, TransferShedder, UnloadChecks, is_transferable_with_filters,
    select_broker,
};
use crate::model::{
    BrokerLoadData, BrokerLoadSample, ResourceUsage, SystemResourceUsage, TopBundlesLoadData,
};
use crate::rng::ScriptedPicker;

pub(super) fn run(
    kind: &str,
    scenario: &Value,
    base: &str,
    picks: Option<&Picks>,
    seed: u64,
) -> Result<Value, ReplayError> {
    let conf = scenario_config(scenario, base)?;
    let cycles = scenario
        .get("cycles")
        .and_then(Value::as_array)
        .ok_or_else(|| ReplayError::malformed(format!("{base}.cycles"), "expected an array"))?;
    let mut world = World {
        now_ms: opt_i64(scenario, "now_ms", base)?.unwrap_or(0),
        ..World::default()
    };
    let out_cycles = match kind {
        "shedding_extensible" => run_shedding(scenario, base, cycles, &conf, &mut world)?,
        "placement_extensible" => {
            run_placement(scenario, base, cycles, &conf, &mut world, picks, seed)?
        }
        other => return Err(ReplayError::UnsupportedKind(other.to_string())),
    };
    Ok(json!({ "kind": kind, "cycles": out_cycles }))
}

/// The master-90cba329 defaults with the extensible load manager, then the scenario's `config`.
fn scenario_config(scenario: &Value, base: &str) -> Result<LoadBalancerConfig, ReplayError> {
    let mut conf = LoadBalancerConfig::for_profile(Profile::Master90cba329);
    conf.load_manager_class_name = EXTENSIBLE_LOAD_MANAGER.to_string();
    json::config_over(
        conf,
        scenario.get("config"),
        &format!("{base}.config"),
        |_, value| config::json_to_conf_text(value),
    )
}

/// State that persists from cycle to cycle.
#[derive(Default)]
struct World {
    now_ms: i64,
    /// The leader's broker load-data store.
    store: IndexMap<String, BrokerLoadData>,
    /// The broker registry (broker → `loadManagerClassName`); `None` until a cycle gives one.
    registry: Option<CandidateBrokers>,
}

impl World {
    /// The registry, or every stored broker when no cycle has set one yet.
    fn available_brokers(&self, conf: &LoadBalancerConfig) -> CandidateBrokers {
        match &self.registry {
            Some(r) => r.clone(),
            None => self
                .store
                .keys()
                .map(|b| (b.clone(), conf.load_manager_class_name.clone()))
                .collect(),
        }
    }

    fn lookup_class(&self, broker: &str, conf: &LoadBalancerConfig) -> String {
        self.registry
            .as_ref()
            .and_then(|r| r.get(broker))
            .cloned()
            .unwrap_or_else(|| conf.load_manager_class_name.clone())
    }

    /// Applies `now_ms`, `brokers`, `brokerUpdates`, `removeBrokers` and `availableBrokers`. Returns
    /// the objects `brokerUpdates` produced (the oracle's `derived.brokers`).
    fn apply_cycle(
        &mut self,
        cycle: &Value,
        path: &str,
        conf: &LoadBalancerConfig,
    ) -> Result<Option<Map<String, Value>>, ReplayError> {
        if let Some(now) = opt_i64(cycle, "now_ms", path)? {
            self.now_ms = now;
        }
        if let Some(brokers) = opt_object(cycle, "brokers", path)? {
            for (broker, data) in brokers {
                let p = format!("{path}.brokers[\"{broker}\"]");
                if data.is_null() {
                    self.store.shift_remove(broker);
                } else {
                    let parsed: BrokerLoadData = deserialize(data, &p)?;
                    self.store.insert(broker.clone(), parsed);
                }
            }
        }
        let mut derived = None;
        if let Some(updates) = opt_object(cycle, "brokerUpdates", path)? {
            let weights = conf.resource_weights();
            let mut produced = Map::new();
            for (broker, report) in updates {
                let p = format!("{path}.brokerUpdates[\"{broker}\"]");
                let (fresh, sample) = parse_load_report(report, &p)?;
                let mut data = match self.store.get(broker) {
                    Some(existing) if !fresh => *existing,
                    _ => BrokerLoadData::default(),
                };
                data.update(
                    &sample,
                    &weights,
                    conf.load_balancer_history_resource_percentage,
                    self.now_ms,
                );
                self.store.insert(broker.clone(), data);
                produced.insert(broker.clone(), to_json(&data));
            }
            derived = Some(produced);
        }
        if let Some(remove) = cycle.get("removeBrokers") {
            for broker in string_list(remove, &format!("{path}.removeBrokers"))? {
                self.store.shift_remove(&broker);
            }
        }
        if let Some(available) = cycle.get("availableBrokers") {
            self.registry = Some(parse_registry(
                available,
                &format!("{path}.availableBrokers"),
                conf,
            )?);
        }
        Ok(derived)
    }
}

/// `availableBrokers`: a list of brokers, or broker → lookup data (only `loadManagerClassName` used).
fn parse_registry(
    value: &Value,
    path: &str,
    conf: &LoadBalancerConfig,
) -> Result<CandidateBrokers, ReplayError> {
    if let Some(obj) = value.as_object() {
        let mut out = CandidateBrokers::new();
        for (broker, lookup) in obj {
            let class = match lookup.get("loadManagerClassName") {
                None | Some(Value::Null) => conf.load_manager_class_name.clone(),
                Some(Value::String(s)) => s.clone(),
                Some(_) => {
                    return Err(ReplayError::malformed(
                        format!("{path}[\"{broker}\"].loadManagerClassName"),
                        "expected a string",
                    ));
                }
            };
            out.insert(broker.clone(), class);
        }
        return Ok(out);
    }
    Ok(string_list(value, path)?
        .into_iter()
        .map(|b| (b, conf.load_manager_class_name.clone()))
        .collect())
}

/// A `brokerUpdates` entry: `(starts from a fresh object, sample)`. Resources may sit at the top level
/// (oracle files) or under `usage` (unit-test vectors).
fn parse_load_report(report: &Value, path: &str) -> Result<(bool, BrokerLoadSample), ReplayError> {
    if !report.is_object() {
        return Err(ReplayError::malformed(path, "expected an object"));
    }
    let fresh = match report.get("mode").and_then(Value::as_str) {
        None | Some("update") => false,
        Some("new") => true,
        Some(other) => {
            return Err(ReplayError::malformed(
                format!("{path}.mode"),
                format!("expected \"new\" or \"update\", found \"{other}\""),
            ));
        }
    };
    let usage_holder = report.get("usage").unwrap_or(report);
    let resource = |key: &str| -> Result<ResourceUsage, ReplayError> {
        match usage_holder.get(key) {
            None | Some(Value::Null) => Ok(ResourceUsage::default()),
            Some(v) => deserialize(v, &format!("{path}.{key}")),
        }
    };
    let usage = SystemResourceUsage {
        cpu: resource("cpu")?,
        memory: resource("memory")?,
        direct_memory: resource("directMemory")?,
        bandwidth_in: resource("bandwidthIn")?,
        bandwidth_out: resource("bandwidthOut")?,
    };
    let sample = BrokerLoadSample {
        usage,
        msg_throughput_in: opt_f64(report, "msgThroughputIn", path)?.unwrap_or(0.0),
        msg_throughput_out: opt_f64(report, "msgThroughputOut", path)?.unwrap_or(0.0),
        msg_rate_in: opt_f64(report, "msgRateIn", path)?.unwrap_or(0.0),
        msg_rate_out: opt_f64(report, "msgRateOut", path)?.unwrap_or(0.0),
        bundle_count: opt_i32(report, "bundleCount", path)?.unwrap_or(0),
        topics: opt_i32(report, "topics", path)?.unwrap_or(0),
    };
    Ok((fresh, sample))
}

// ---------------------------------------------------------------------------------------------------
// shedding_extensible

/// The ownership channel's answers: `true`/`false` for every bundle or per bundle with a `*` default.
#[derive(Clone, Debug)]
struct Ownership {
    default: bool,
    per_bundle: HashMap<String, bool>,
}

impl Ownership {
    fn parse(value: &Value, path: &str) -> Result<Self, ReplayError> {
        if let Some(b) = value.as_bool() {
            return Ok(Ownership {
                default: b,
                per_bundle: HashMap::new(),
            });
        }
        let obj = value
            .as_object()
            .ok_or_else(|| ReplayError::malformed(path, "expected a boolean or an object"))?;
        let mut out = Ownership {
            default: true,
            per_bundle: HashMap::new(),
        };
        for (bundle, v) in obj {
            let b = v.as_bool().ok_or_else(|| {
                ReplayError::malformed(format!("{path}[\"{bundle}\"]"), "expected a boolean")
            })?;
            if bundle == "*" {
                out.default = b;
            } else {
                out.per_bundle.insert(bundle.clone(), b);
            }
        }
        Ok(out)
    }

    fn is_owner(&self, bundle: &str) -> bool {
        self.per_bundle.get(bundle).copied().unwrap_or(self.default)
    }
}

/// The shedder's view of the broker: ownership from the scenario, and in the `broker` context the
/// real filter pipeline for transfers.
struct ReplayChecks<'a> {
    ownership: Option<&'a Ownership>,
    filters: Option<(&'a CandidateBrokers, &'a IndexMap<String, BrokerLoadData>)>,
    conf: &'a LoadBalancerConfig,
}

impl UnloadChecks for ReplayChecks<'_> {
    fn is_owner(&self, bundle: &str, _broker: &str) -> bool {
        self.ownership.is_none_or(|o| o.is_owner(bundle))
    }

    fn is_transferable(&self, _bundle: &str, src: &str, dst: Option<&str>) -> bool {
        match self.filters {
            Some((available, store)) => {
                is_transferable_with_filters(available, store, self.conf, src, dst, None)
            }
            None => true,
        }
    }
}

fn run_shedding(
    scenario: &Value,
    base: &str,
    cycles: &[Value],
    conf: &LoadBalancerConfig,
    world: &mut World,
) -> Result<Vec<Value>, ReplayError> {
    let broker_context = match scenario.get("context").and_then(Value::as_str) {
        None | Some("broker") => true,
        Some("unit_test") => false,
        Some(other) => {
            return Err(ReplayError::malformed(
                format!("{base}.context"),
                format!("expected \"broker\" or \"unit_test\", found \"{other}\""),
            ));
        }
    };
    let scheduler_replay = match scenario.get("scheduler_replay") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ReplayError::malformed(
                format!("{base}.scheduler_replay"),
                "expected a boolean",
            ));
        }
    };
    let grace_ms = conf
        .load_balancer_shedding_grace_period_minutes
        .saturating_mul(60_000);

    let mut shedder = TransferShedder::new();
    let mut top_bundles: IndexMap<String, TopBundlesLoadData> = IndexMap::new();
    let mut ownership: Option<Ownership> = None;
    let mut recently_unloaded_bundles: IndexMap<String, i64> = IndexMap::new();
    let mut recently_unloaded_brokers: IndexMap<String, i64> = IndexMap::new();
    // The counter's loadAvg/loadStd keep their last computed values.
    let mut load_avg_std = (0.0, 0.0);
    let mut out = Vec::with_capacity(cycles.len());

    for (i, cycle) in cycles.iter().enumerate() {
        let path = format!("{base}.cycles[{i}]");
        let derived = world.apply_cycle(cycle, &path, conf)?;
        if let Some(tb) = opt_object(cycle, "topBundles", &path)? {
            for (broker, data) in tb {
                if data.is_null() {
                    top_bundles.shift_remove(broker);
                } else {
                    let parsed: TopBundlesLoadData =
                        deserialize(data, &format!("{path}.topBundles[\"{broker}\"]"))?;
                    top_bundles.insert(broker.clone(), parsed);
                }
            }
        }
        if let Some(v) = cycle.get("isOwner") {
            ownership = Some(Ownership::parse(v, &format!("{path}.isOwner"))?);
        }
        if scheduler_replay {
            // UnloadScheduler forgets bundles unloaded longer ago than the grace period. The oracle
            // does this before merging the cycle's own entries, which the call always receives.
            let timeout = world.now_ms.wrapping_sub(grace_ms);
            recently_unloaded_bundles.retain(|_, t| *t >= timeout);
        }
        for (key, map) in [
            ("recentlyUnloadedBundles", &mut recently_unloaded_bundles),
            ("recentlyUnloadedBrokers", &mut recently_unloaded_brokers),
        ] {
            if let Some(v) = cycle.get(key) {
                merge_timestamps(map, v, &format!("{path}.{key}"), world.now_ms)?;
            }
        }

        let available = world.available_brokers(conf);
        let available_names: Vec<String> = available.keys().cloned().collect();
        let bundles_in = recently_unloaded_bundles.clone();
        let brokers_in = recently_unloaded_brokers.clone();
        let checks = ReplayChecks {
            ownership: ownership.as_ref(),
            filters: broker_context.then_some((&available, &world.store)),
            conf,
        };
        let input = SheddingInput {
            now_ms: world.now_ms,
            load_store: &world.store,
            top_bundles: &top_bundles,
            available_brokers: &available_names,
            recently_unloaded_bundles: &recently_unloaded_bundles,
        };
        let outcome = shedder.find_bundles_for_unloading(
            conf,
            &input,
            &mut recently_unloaded_brokers,
            &checks,
        );
        let brokers_after_call = recently_unloaded_brokers.clone();
        if let Some(pair) = outcome.load_avg_std {
            load_avg_std = pair;
        }
        if scheduler_replay {
            for d in &outcome.decisions {
                recently_unloaded_bundles.insert(d.service_unit.clone(), world.now_ms);
                recently_unloaded_brokers.insert(d.source_broker.clone(), world.now_ms);
            }
        }

        let mut decisions = outcome.decisions.clone();
        decisions.sort_by(|a, b| {
            (&a.source_broker, &a.service_unit).cmp(&(&b.source_broker, &b.service_unit))
        });
        let mut cycle_out = json!({
            "cycle": i,
            "now_ms": world.now_ms,
            "recentlyUnloadedBundles_in": bundles_in,
            "recentlyUnloadedBrokers_in": brokers_in,
            "available_brokers": available_names,
            "decisions": decisions.iter().map(|d| d.to_json()).collect::<Vec<_>>(),
            "decision_count": decisions.len(),
            "skip_reason": outcome.skip_reason.map(|r| r.name()),
            "loadAvg": load_avg_std.0,
            "loadStd": load_avg_std.1,
            "load_stats_updated": outcome.load_avg_std.is_some(),
            "stats_after": to_json(&outcome.stats),
            "unloadConditionHitCount": outcome.unload_condition_hit_count,
            "recentlyUnloadedBrokers_after_call": brokers_after_call,
        });
        if let (Some(d), Some(obj)) = (derived, cycle_out.as_object_mut()) {
            obj.insert("derived".to_string(), json!({ "brokers": d }));
        }
        out.push(cycle_out);
    }
    Ok(out)
}

/// Merges `name → ms` (or a list of names meaning "at `now_ms`") into a recently-unloaded map.
fn merge_timestamps(
    map: &mut IndexMap<String, i64>,
    value: &Value,
    path: &str,
    now_ms: i64,
) -> Result<(), ReplayError> {
    if let Some(obj) = value.as_object() {
        for (name, t) in obj {
            let ms = t.as_i64().ok_or_else(|| {
                ReplayError::malformed(format!("{path}[\"{name}\"]"), "expected a timestamp in ms")
            })?;
            map.insert(name.clone(), ms);
        }
        return Ok(());
    }
    for name in string_list(value, path)? {
        map.insert(name, now_ms);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// placement_extensible

fn run_placement(
    scenario: &Value,
    base: &str,
    cycles: &[Value],
    conf: &LoadBalancerConfig,
    world: &mut World,
    picks: Option<&Picks>,
    seed: u64,
) -> Result<Vec<Value>, ReplayError> {
    let apply_filters = match scenario.get("filters") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ReplayError::malformed(
                format!("{base}.filters"),
                "expected a boolean",
            ));
        }
    };
    let mut out = Vec::with_capacity(cycles.len());
    for (i, cycle) in cycles.iter().enumerate() {
        let path = format!("{base}.cycles[{i}]");
        let derived = world.apply_cycle(cycle, &path, conf)?;
        let script = picks
            .and_then(|p| p.cycles.get(i))
            .cloned()
            .unwrap_or_default();
        let cycle_index = u64::try_from(i).unwrap_or(u64::MAX);
        let mut picker = ScriptedPicker::new(script, seed.wrapping_add(cycle_index));
        let assignments = match cycle.get("assignments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(_) => {
                return Err(ReplayError::malformed(
                    format!("{path}.assignments"),
                    "expected an array",
                ));
            }
        };
        let available = world.available_brokers(conf);
        let mut assignments_out = Vec::with_capacity(assignments.len());
        for (j, a) in assignments.iter().enumerate() {
            let ap = format!("{path}.assignments[{j}]");
            let bundle = a.get("bundle").and_then(Value::as_str).ok_or_else(|| {
                ReplayError::malformed(format!("{ap}.bundle"), "expected a string")
            })?;
            let explicit: Option<CandidateBrokers> = match a.get("candidates") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    string_list(v, &format!("{ap}.candidates"))?
                        .into_iter()
                        .map(|b| {
                            let class = world.lookup_class(&b, conf);
                            (b, class)
                        })
                        .collect(),
                ),
            };
            let exclude = match a.get("exclude") {
                None | Some(Value::Null) => Vec::new(),
                Some(v) => string_list(v, &format!("{ap}.exclude"))?,
            };
            let placed = select_broker(
                &available,
                explicit.as_ref(),
                &exclude,
                &world.store,
                conf,
                apply_filters,
                None,
                &mut picker,
            );
            let mut entry = json!({
                "bundle": bundle,
                "candidates": sorted(&placed.candidates),
                "choice_set": sorted(&placed.choice_set),
                "selected": placed.selected,
                "no_load_data_brokers": sorted(&placed.no_load_data_brokers),
                "deterministic": placed.choice_set.len() == 1,
            });
            if let (true, Some(obj)) = (placed.pick_rejected, entry.as_object_mut()) {
                obj.insert("pick_rejected".to_string(), Value::Bool(true));
            }
            assignments_out.push(entry);
        }
        let brokers_after: Map<String, Value> = world
            .store
            .iter()
            .map(|(b, d)| (b.clone(), to_json(d)))
            .collect();
        let mut cycle_out = json!({
            "cycle": i,
            "now_ms": world.now_ms,
            "brokers_after": brokers_after,
            "assignments": assignments_out,
        });
        if let (Some(d), Some(obj)) = (derived, cycle_out.as_object_mut()) {
            obj.insert("derived".to_string(), json!({ "brokers": d }));
        }
        out.push(cycle_out);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------------
// small JSON helpers

fn sorted(v: &[String]) -> Vec<String> {
    let mut s = v.to_vec();
    s.sort();
    s
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement_scenario() -> Value {
        json!({"scenario": {
            "kind": "placement_extensible",
            "cycles": [{
                "now_ms": 1000,
                "brokerUpdates": {
                    "a:1": {"mode": "new", "cpu": {"usage": 10.0, "limit": 100.0}},
                    "b:1": {"mode": "new", "cpu": {"usage": 12.0, "limit": 100.0}},
                    "c:1": {"mode": "new", "cpu": {"usage": 90.0, "limit": 100.0}}
                },
                "assignments": [{"bundle": "t/ns/0x00000000_0xffffffff"}]
            }]
        }})
    }

    #[test]
    fn malformed_input_names_the_json_path() {
        let mut file = placement_scenario();
        if let Some(u) = file.pointer_mut("/scenario/cycles/0/brokerUpdates/a:1/cpu") {
            *u = json!("lots");
        }
        let err = super::super::replay(&file, None, 0).err();
        match err {
            Some(ReplayError::Malformed { path, .. }) => {
                assert_eq!(path, "$.scenario.cycles[0].brokerUpdates[\"a:1\"].cpu")
            }
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    #[test]
    fn placement_follows_outside_picks_within_the_choice_set() {
        // avg = (0.10 + 0.12 + 0.90) / 3 = 0.3733; a and b are >= 0.10 below it.
        let file = placement_scenario();
        let picks = Picks {
            cycles: vec![vec!["b:1".to_string()]],
        };
        let out = super::super::replay(&file, Some(&picks), 0).ok();
        let a = out
            .as_ref()
            .and_then(|o| o.pointer("/cycles/0/assignments/0"))
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(a.get("choice_set"), Some(&json!(["a:1", "b:1"])));
        assert_eq!(a.get("selected"), Some(&json!("b:1")));

        let rejected = Picks {
            cycles: vec![vec!["c:1".to_string()]],
        };
        let out = super::super::replay(&file, Some(&rejected), 0).ok();
        assert_eq!(
            out.as_ref()
                .and_then(|o| o.pointer("/cycles/0/assignments/0/pick_rejected")),
            Some(&json!(true))
        );
    }
}
