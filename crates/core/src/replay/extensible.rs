//! Replay of the extensible load manager's `shedding_extensible` and `placement_extensible` scenarios
//! (`oracle-extensible/README.md`): keeps the leader's load-data store, the broker registry, the
//! top-bundle store, the ownership answers and the recently-unloaded maps across cycles, runs one
//! `TransferShedder` instance (with the UnloadScheduler's bookkeeping) or the placement pipeline per
//! cycle, and prints what the oracle prints.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::ReplayError;
use super::json::{self, ConfigKeys, FlagOrMap, ListOrMap, Long};
use super::picks::Picks;
use crate::config::{self, EXTENSIBLE_LOAD_MANAGER, LoadBalancerConfig, Profile};
use crate::extensible::{
    CandidateBrokers, SheddingInput, TransferShedder, UnloadChecks, is_transferable_with_filters,
    select_broker,
};
use crate::model::{
    BrokerLoadData, BrokerLoadSample, ResourceUsage, SystemResourceUsage, TopBundlesLoadData,
};
use crate::rng::ScriptedPicker;

/// A `shedding_extensible` or `placement_extensible` scenario (the keys of the other kind are
/// refused by [`Scenario::refuse_keys_of_other_kind`]).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    config: Option<ConfigKeys>,
    now_ms: Option<Long>,
    /// shedding: `broker` (the running broker's TransferShedder, the default) or `unit_test`.
    context: Option<Context>,
    /// shedding: do the UnloadScheduler's bookkeeping around each call (default true).
    #[serde(rename = "scheduler_replay")]
    scheduler_replay: Option<bool>,
    /// placement: run the broker filters (default true).
    filters: Option<bool>,
    cycles: Vec<Cycle>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
enum Context {
    #[serde(rename = "broker")]
    Broker,
    #[serde(rename = "unit_test")]
    UnitTest,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cycle {
    #[serde(rename = "now_ms")]
    now_ms: Option<Long>,
    /// broker → its stored `BrokerLoadData` (`null` removes it).
    brokers: Option<IndexMap<String, Option<BrokerLoadData>>>,
    /// broker → a load report folded into its stored data.
    broker_updates: Option<IndexMap<String, LoadReport>>,
    remove_brokers: Option<Vec<String>>,
    /// The broker registry: names, or broker → lookup data.
    available_brokers: Option<ListOrMap<Vec<String>, IndexMap<String, Lookup>>>,
    // shedding_extensible
    /// broker → its `TopBundlesLoadData` (`null` removes it).
    top_bundles: Option<IndexMap<String, Option<TopBundlesLoadData>>>,
    is_owner: Option<FlagOrMap>,
    recently_unloaded_bundles: Option<Timestamps>,
    recently_unloaded_brokers: Option<Timestamps>,
    // placement_extensible
    assignments: Option<Vec<Assignment>>,
}

/// name → ms, or a list of names meaning "at `now_ms`".
type Timestamps = ListOrMap<Vec<String>, IndexMap<String, Long>>;

/// A broker's lookup data; only the load manager class is used.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Lookup {
    load_manager_class_name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Assignment {
    bundle: String,
    candidates: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
}

/// A `brokerUpdates` entry. Resources may sit at the top level (oracle files) or under `usage`
/// (unit-test vectors), which then wins.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoadReport {
    mode: Option<Mode>,
    usage: Option<Resources>,
    cpu: Option<ResourceUsage>,
    memory: Option<ResourceUsage>,
    direct_memory: Option<ResourceUsage>,
    bandwidth_in: Option<ResourceUsage>,
    bandwidth_out: Option<ResourceUsage>,
    msg_throughput_in: Option<f64>,
    msg_throughput_out: Option<f64>,
    msg_rate_in: Option<f64>,
    msg_rate_out: Option<f64>,
    bundle_count: Option<i32>,
    topics: Option<i32>,
}

/// `new` starts from a fresh `BrokerLoadData`; `update` (the default) folds into the stored one.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
enum Mode {
    #[serde(rename = "new")]
    New,
    #[serde(rename = "update")]
    Update,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Resources {
    cpu: Option<ResourceUsage>,
    memory: Option<ResourceUsage>,
    direct_memory: Option<ResourceUsage>,
    bandwidth_in: Option<ResourceUsage>,
    bandwidth_out: Option<ResourceUsage>,
}

impl Scenario {
    /// A key of the other extensible kind would be read by neither: refused, naming its path.
    fn refuse_keys_of_other_kind(&self, kind: &str, base: &str) -> Result<(), ReplayError> {
        let shedding = kind == "shedding_extensible";
        let mut found: Option<String> = None;
        if shedding && self.filters.is_some() {
            found = Some(format!("{base}.filters"));
        }
        if !shedding && self.context.is_some() {
            found = found.or(Some(format!("{base}.context")));
        }
        if !shedding && self.scheduler_replay.is_some() {
            found = found.or(Some(format!("{base}.scheduler_replay")));
        }
        for (i, c) in self.cycles.iter().enumerate() {
            let keys: &[(&str, bool)] = if shedding {
                &[("assignments", c.assignments.is_some())]
            } else {
                &[
                    ("topBundles", c.top_bundles.is_some()),
                    ("isOwner", c.is_owner.is_some()),
                    (
                        "recentlyUnloadedBundles",
                        c.recently_unloaded_bundles.is_some(),
                    ),
                    (
                        "recentlyUnloadedBrokers",
                        c.recently_unloaded_brokers.is_some(),
                    ),
                ]
            };
            if let Some((key, _)) = keys.iter().find(|(_, present)| *present) {
                found = found.or(Some(format!("{base}.cycles[{i}].{key}")));
            }
        }
        match found {
            Some(path) => Err(ReplayError::malformed(
                path,
                format!("not a key of a {kind} scenario"),
            )),
            None => Ok(()),
        }
    }
}

pub(super) fn run(
    kind: &str,
    scenario: &Value,
    base: &str,
    picks: Option<&Picks>,
    seed: u64,
) -> Result<Value, ReplayError> {
    let scenario: Scenario = json::read(scenario, base)?;
    scenario.refuse_keys_of_other_kind(kind, base)?;
    let conf = scenario_config(&scenario, base)?;
    let mut world = World {
        now_ms: scenario.now_ms.map_or(0, |n| n.0),
        ..World::default()
    };
    let out_cycles = match kind {
        "shedding_extensible" => run_shedding(&scenario, &conf, &mut world),
        "placement_extensible" => run_placement(&scenario, &conf, &mut world, picks, seed),
        other => return Err(ReplayError::UnsupportedKind(other.to_string())),
    };
    Ok(json!({ "kind": kind, "cycles": out_cycles }))
}

/// The master-90cba329 defaults with the extensible load manager, then the scenario's `config`.
fn scenario_config(scenario: &Scenario, base: &str) -> Result<LoadBalancerConfig, ReplayError> {
    let mut conf = LoadBalancerConfig::for_profile(Profile::Master90cba329);
    conf.load_manager_class_name = EXTENSIBLE_LOAD_MANAGER.to_string();
    json::config_over(
        conf,
        scenario.config.as_ref(),
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
        cycle: &Cycle,
        conf: &LoadBalancerConfig,
    ) -> Option<Map<String, Value>> {
        if let Some(now) = cycle.now_ms {
            self.now_ms = now.0;
        }
        for (broker, data) in cycle.brokers.iter().flatten() {
            match data {
                None => {
                    self.store.shift_remove(broker);
                }
                Some(d) => {
                    self.store.insert(broker.clone(), *d);
                }
            }
        }
        let derived = cycle.broker_updates.as_ref().map(|updates| {
            let weights = conf.resource_weights();
            let mut produced = Map::new();
            for (broker, report) in updates {
                let mut data = match self.store.get(broker) {
                    Some(existing) if report.mode != Some(Mode::New) => *existing,
                    _ => BrokerLoadData::default(),
                };
                data.update(
                    &report.sample(),
                    &weights,
                    conf.load_balancer_history_resource_percentage,
                    self.now_ms,
                );
                self.store.insert(broker.clone(), data);
                produced.insert(broker.clone(), to_json(&data));
            }
            produced
        });
        for broker in cycle.remove_brokers.iter().flatten() {
            self.store.shift_remove(broker);
        }
        if let Some(available) = &cycle.available_brokers {
            self.registry = Some(registry(available, conf));
        }
        derived
    }
}

/// `availableBrokers`: a list of brokers, or broker → lookup data (only `loadManagerClassName` used).
fn registry(
    value: &ListOrMap<Vec<String>, IndexMap<String, Lookup>>,
    conf: &LoadBalancerConfig,
) -> CandidateBrokers {
    let default = || conf.load_manager_class_name.clone();
    match value {
        ListOrMap::List(names) => names.iter().map(|b| (b.clone(), default())).collect(),
        ListOrMap::Map(lookups) => lookups
            .iter()
            .map(|(b, l)| {
                let class = l.load_manager_class_name.clone().unwrap_or_else(default);
                (b.clone(), class)
            })
            .collect(),
    }
}

impl LoadReport {
    fn sample(&self) -> BrokerLoadSample {
        let usage = match &self.usage {
            Some(u) => SystemResourceUsage {
                cpu: u.cpu.unwrap_or_default(),
                memory: u.memory.unwrap_or_default(),
                direct_memory: u.direct_memory.unwrap_or_default(),
                bandwidth_in: u.bandwidth_in.unwrap_or_default(),
                bandwidth_out: u.bandwidth_out.unwrap_or_default(),
            },
            None => SystemResourceUsage {
                cpu: self.cpu.unwrap_or_default(),
                memory: self.memory.unwrap_or_default(),
                direct_memory: self.direct_memory.unwrap_or_default(),
                bandwidth_in: self.bandwidth_in.unwrap_or_default(),
                bandwidth_out: self.bandwidth_out.unwrap_or_default(),
            },
        };
        BrokerLoadSample {
            usage,
            msg_throughput_in: self.msg_throughput_in.unwrap_or(0.0),
            msg_throughput_out: self.msg_throughput_out.unwrap_or(0.0),
            msg_rate_in: self.msg_rate_in.unwrap_or(0.0),
            msg_rate_out: self.msg_rate_out.unwrap_or(0.0),
            bundle_count: self.bundle_count.unwrap_or(0),
            topics: self.topics.unwrap_or(0),
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// shedding_extensible

/// The shedder's view of the broker: ownership from the scenario, and in the `broker` context the
/// real filter pipeline for transfers.
struct ReplayChecks<'a> {
    /// The ownership channel's answers (`isOwner`): for every bundle, or per bundle with a `*` default.
    ownership: Option<&'a FlagOrMap>,
    filters: Option<(&'a CandidateBrokers, &'a IndexMap<String, BrokerLoadData>)>,
    conf: &'a LoadBalancerConfig,
}

impl UnloadChecks for ReplayChecks<'_> {
    fn is_owner(&self, bundle: &str, _broker: &str) -> bool {
        self.ownership.is_none_or(|o| o.flag(bundle))
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

fn run_shedding(scenario: &Scenario, conf: &LoadBalancerConfig, world: &mut World) -> Vec<Value> {
    let broker_context = scenario.context != Some(Context::UnitTest);
    let scheduler_replay = scenario.scheduler_replay.unwrap_or(true);
    let grace_ms = conf
        .load_balancer_shedding_grace_period_minutes
        .saturating_mul(60_000);

    let mut shedder = TransferShedder::new();
    let mut top_bundles: IndexMap<String, TopBundlesLoadData> = IndexMap::new();
    let mut ownership: Option<&FlagOrMap> = None;
    let mut recently_unloaded_bundles: IndexMap<String, i64> = IndexMap::new();
    let mut recently_unloaded_brokers: IndexMap<String, i64> = IndexMap::new();
    // The counter's loadAvg/loadStd keep their last computed values.
    let mut load_avg_std = (0.0, 0.0);
    let mut out = Vec::with_capacity(scenario.cycles.len());

    for (i, cycle) in scenario.cycles.iter().enumerate() {
        let derived = world.apply_cycle(cycle, conf);
        for (broker, data) in cycle.top_bundles.iter().flatten() {
            match data {
                None => {
                    top_bundles.shift_remove(broker);
                }
                Some(d) => {
                    top_bundles.insert(broker.clone(), d.clone());
                }
            }
        }
        if let Some(o) = &cycle.is_owner {
            ownership = Some(o);
        }
        if scheduler_replay {
            // UnloadScheduler forgets bundles unloaded longer ago than the grace period. The oracle
            // does this before merging the cycle's own entries, which the call always receives.
            let timeout = world.now_ms.wrapping_sub(grace_ms);
            recently_unloaded_bundles.retain(|_, t| *t >= timeout);
        }
        for (given, map) in [
            (
                &cycle.recently_unloaded_bundles,
                &mut recently_unloaded_bundles,
            ),
            (
                &cycle.recently_unloaded_brokers,
                &mut recently_unloaded_brokers,
            ),
        ] {
            if let Some(given) = given {
                merge_timestamps(map, given, world.now_ms);
            }
        }

        let available = world.available_brokers(conf);
        let available_names: Vec<String> = available.keys().cloned().collect();
        let bundles_in = recently_unloaded_bundles.clone();
        let brokers_in = recently_unloaded_brokers.clone();
        let checks = ReplayChecks {
            ownership,
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
            "decisions": serde_json::to_value(&decisions).unwrap_or_default(),
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
    out
}

/// Merges `name → ms` (or a list of names meaning "at `now_ms`") into a recently-unloaded map.
fn merge_timestamps(map: &mut IndexMap<String, i64>, given: &Timestamps, now_ms: i64) {
    match given {
        ListOrMap::Map(times) => map.extend(times.iter().map(|(n, t)| (n.clone(), t.0))),
        ListOrMap::List(names) => map.extend(names.iter().map(|n| (n.clone(), now_ms))),
    }
}

// ---------------------------------------------------------------------------------------------------
// placement_extensible

fn run_placement(
    scenario: &Scenario,
    conf: &LoadBalancerConfig,
    world: &mut World,
    picks: Option<&Picks>,
    seed: u64,
) -> Vec<Value> {
    let apply_filters = scenario.filters.unwrap_or(true);
    let mut out = Vec::with_capacity(scenario.cycles.len());
    for (i, cycle) in scenario.cycles.iter().enumerate() {
        let derived = world.apply_cycle(cycle, conf);
        let script = picks
            .and_then(|p| p.cycles.get(i))
            .cloned()
            .unwrap_or_default();
        let cycle_index = u64::try_from(i).unwrap_or(u64::MAX);
        let mut picker = ScriptedPicker::new(script, seed.wrapping_add(cycle_index));
        let assignments = cycle.assignments.as_deref().unwrap_or_default();
        let available = world.available_brokers(conf);
        let mut assignments_out = Vec::with_capacity(assignments.len());
        for a in assignments {
            let bundle = a.bundle.as_str();
            let explicit: Option<CandidateBrokers> = a.candidates.as_ref().map(|list| {
                list.iter()
                    .map(|b| (b.clone(), world.lookup_class(b, conf)))
                    .collect()
            });
            let exclude = a.exclude.as_deref().unwrap_or_default();
            let placed = select_broker(
                &available,
                explicit.as_ref(),
                exclude,
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
    out
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
