//! Replay of the oracle's modular `placement` scenarios (`oracle/README.md`): cycles of brokers and
//! bundles, assignments placed by one strategy instance (optionally behind the candidate pipeline,
//! with preallocation), and AvgShedder's shedding half run first when a cycle says `shed`.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::json::{self, deserialize, object, opt_bool, opt_f64, string_list};
use super::modular_shedding::{broker_usage_and_rates, java_order};
use super::{Picks, ReplayError};
use crate::config::{self, LoadBalancerConfig, Profile};
use crate::model::{
    BundleData, NamespaceBundleStats, TimeAverageBrokerData, TimeAverageMessageData,
};
use crate::modular::leader::SheddingAndPlacement;
use crate::modular::pipeline::{
    PlacementContext, SelectionPath, preallocate, select_broker_for_bundle,
};
use crate::modular::placement::{PlacementChoice, PlacementStrategy, placement_by_name};
use crate::modular::shedding::AvgShedder;
use crate::modular::{BrokerData, LoadData, LoadSheddingStrategy};
use crate::naming::JavaHashSet;
use crate::rng::{Pick, Picker, SeededPicker};

/// The profile oracle scenarios were decided with.
const ORACLE_PROFILE: Profile = Profile::Master90cba329;

/// The strategy under test: a placement strategy, or AvgShedder serving both roles.
enum Strategy {
    PlacementOnly(Box<dyn PlacementStrategy>),
    Both(Box<dyn SheddingAndPlacement>),
}

impl Strategy {
    fn placement(&mut self) -> &mut dyn PlacementStrategy {
        match self {
            Strategy::PlacementOnly(p) => p.as_mut(),
            Strategy::Both(b) => b.as_mut(),
        }
    }

    fn shedding(&mut self) -> Option<&mut dyn LoadSheddingStrategy> {
        match self {
            Strategy::PlacementOnly(_) => None,
            Strategy::Both(b) => Some(b.as_mut()),
        }
    }
}

/// AvgShedder in both roles: one object, so shedding's planned destinations drive placement.
fn make_avg_shedder(profile: Profile) -> Box<dyn SheddingAndPlacement> {
    Box::new(AvgShedder::new(profile))
}

fn build_strategy(name: &str, path: &str) -> Result<Strategy, ReplayError> {
    let qualified = config::qualify_strategy_name(name);
    if qualified == config::AVG_SHEDDER {
        return Ok(Strategy::Both(make_avg_shedder(ORACLE_PROFILE)));
    }
    placement_by_name(&qualified)
        .map(Strategy::PlacementOnly)
        .ok_or_else(|| ReplayError::malformed(path, format!("unknown placement strategy `{name}`")))
}

/// One random choice per assignment may be given from outside: the broker Pulsar finally selected.
/// Every random choice of that assignment is offered it. When it is not in the set, Pulsar's pick
/// there must have been an overloaded broker (that is what makes the pipeline re-select on a wider
/// set), so an overloaded member is taken if there is one, otherwise a seeded pick.
struct AssignmentPicker<'a> {
    wanted: Option<&'a str>,
    overloaded: &'a [String],
    fallback: &'a mut SeededPicker,
}

impl Picker for AssignmentPicker<'_> {
    fn pick(&mut self, choice_set: &[String]) -> Pick {
        let Some(w) = self.wanted else {
            return self.fallback.pick(choice_set);
        };
        if let Some(index) = choice_set.iter().position(|b| b == w) {
            return Pick {
                index,
                rejected_outside_pick: false,
            };
        }
        match choice_set.iter().position(|b| self.overloaded.contains(b)) {
            Some(index) => Pick {
                index,
                rejected_outside_pick: true,
            },
            None => Pick {
                rejected_outside_pick: true,
                ..self.fallback.pick(choice_set)
            },
        }
    }
}

/// Brokers whose weighted max usage is over the overload threshold (the pipeline's re-select test).
fn overloaded_brokers(data: &LoadData, cfg: &LoadBalancerConfig) -> Vec<String> {
    let threshold = cfg.overloaded_threshold_fraction();
    let weights = cfg.resource_weights();
    data.brokers
        .iter()
        .filter(|(_, b)| b.local.max_resource_usage_with_weight(&weights) > threshold)
        .map(|(n, _)| n.clone())
        .collect()
}

pub(super) fn run(
    scenario: &Value,
    base: &str,
    picks: Option<&Picks>,
    seed: u64,
) -> Result<Value, ReplayError> {
    let cfg = parse_config(scenario.get("config"), &format!("{base}.config"))?;
    let strategy_name = scenario
        .get("strategy")
        .and_then(Value::as_str)
        .ok_or_else(|| ReplayError::malformed(format!("{base}.strategy"), "expected a string"))?;
    let mut strategy = build_strategy(strategy_name, &format!("{base}.strategy"))?;
    let preallocate_choices = opt_bool(scenario, "preallocate", base)?.unwrap_or(false);
    let pipeline = opt_bool(scenario, "pipeline", base)?.unwrap_or(false);
    let cycles = scenario
        .get("cycles")
        .and_then(Value::as_array)
        .ok_or_else(|| ReplayError::malformed(format!("{base}.cycles"), "expected an array"))?;

    // Manager-level state that outlives a cycle (the candidate set's capacity, the round-robin
    // selector for excluded namespaces).
    let mut ctx = PlacementContext::new();
    let mut out_cycles = Vec::with_capacity(cycles.len());
    for (ci, cycle) in cycles.iter().enumerate() {
        let cpath = format!("{base}.cycles[{ci}]");
        let mut fallback =
            SeededPicker::new(seed ^ (ci as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let cycle_picks = picks.and_then(|p| p.cycles.get(ci));
        out_cycles.push(run_cycle(
            cycle,
            &cpath,
            &cfg,
            &mut strategy,
            &mut ctx,
            preallocate_choices,
            pipeline,
            cycle_picks.map(Vec::as_slice),
            &mut fallback,
        )?);
    }
    Ok(json!({"kind": "placement", "cycles": out_cycles}))
}

#[allow(clippy::too_many_arguments)]
fn run_cycle(
    cycle: &Value,
    cpath: &str,
    cfg: &LoadBalancerConfig,
    strategy: &mut Strategy,
    ctx: &mut PlacementContext,
    preallocate_choices: bool,
    pipeline: bool,
    picks: Option<&[String]>,
    fallback: &mut SeededPicker,
) -> Result<Value, ReplayError> {
    let mut data = parse_load_data(cycle, cpath)?;
    if let Some(active) = cycle.get("activeBrokers") {
        let active = string_list(active, &format!("{cpath}.activeBrokers"))?;
        if let Some(s) = strategy.shedding() {
            s.on_active_brokers_change(&active);
        }
        strategy.placement().on_active_brokers_change(&active);
    }

    // Per-cycle leader state: fresh preallocations, the range cache rebuilt from the reports.
    ctx.preallocated.clear();
    ctx.rebuild_bundle_range_cache(&data);
    ctx.namespace_anti_affinity_groups = match cycle.get("namespaceAntiAffinityGroups") {
        Some(v) => string_map(v, &format!("{cpath}.namespaceAntiAffinityGroups"))?,
        None => IndexMap::new(),
    };
    ctx.failure_domains = match cycle.get("failureDomains") {
        Some(v) => string_list_map(v, &format!("{cpath}.failureDomains"))?,
        None => IndexMap::new(),
    };
    ctx.available_brokers = match cycle.get("availableBrokers") {
        Some(v) => Some(string_list(v, &format!("{cpath}.availableBrokers"))?),
        None => None,
    };

    let mut out = Map::new();
    if opt_bool(cycle, "shed", cpath)?.unwrap_or(false) {
        let shedder = strategy.shedding().ok_or_else(|| {
            ReplayError::malformed(
                format!("{cpath}.shed"),
                "`shed` needs a strategy that also sheds (AvgShedder)",
            )
        })?;
        let decisions = shedder.find_bundles_for_unloading(&data, cfg);
        let mut unload: IndexMap<String, Vec<String>> = IndexMap::new();
        for d in decisions {
            unload.entry(d.broker).or_default().push(d.bundle);
        }
        out.insert("unload".to_string(), json!(unload));
    }

    let assignments = match cycle.get("assignments") {
        Some(v) => v.as_array().ok_or_else(|| {
            ReplayError::malformed(format!("{cpath}.assignments"), "expected an array")
        })?,
        None => &Vec::new(),
    };
    let mut out_assignments = Vec::with_capacity(assignments.len());
    for (ai, assignment) in assignments.iter().enumerate() {
        let apath = format!("{cpath}.assignments[{ai}]");
        let bundle = assignment
            .get("bundle")
            .and_then(Value::as_str)
            .ok_or_else(|| ReplayError::malformed(format!("{apath}.bundle"), "expected a string"))?
            .to_string();
        let bundle_data = match assignment.get("bundleData") {
            Some(v) => parse_bundle_data(v, &format!("{apath}.bundleData"))?,
            None => data
                .bundle_data
                .get(&bundle)
                .copied()
                .unwrap_or_else(BundleData::pulsar_default),
        };
        let overloaded = if pipeline {
            overloaded_brokers(&data, cfg)
        } else {
            Vec::new()
        };
        let mut picker = AssignmentPicker {
            wanted: picks.and_then(|p| p.get(ai)).map(String::as_str),
            overloaded: &overloaded,
            fallback: &mut *fallback,
        };
        let mut entry = Map::new();
        entry.insert("bundle".to_string(), json!(bundle));
        if pipeline {
            let outcome = select_broker_for_bundle(
                &bundle,
                &bundle_data,
                SelectionPath::Assignment,
                &mut data,
                ctx,
                cfg,
                strategy.placement(),
                &mut picker,
            );
            write_choice(&mut entry, outcome.choice.as_ref());
            if !outcome.stages.is_empty() {
                let mut stages = Map::new();
                for s in &outcome.stages {
                    stages.insert(s.stage.clone(), json!(s.remaining));
                }
                entry.insert("pipeline_stages".to_string(), Value::Object(stages));
            }
            entry.insert("strategy".to_string(), json!(outcome.strategy));
        } else {
            let candidates = match assignment.get("candidates") {
                Some(v) => {
                    let list = string_list(v, &format!("{apath}.candidates"))?;
                    JavaHashSet::from_ordered(list.iter().map(String::as_str)).to_vec()
                }
                // The harness copies the broker map's key set (already in `ConcurrentHashMap`
                // order) into a fresh `HashSet`.
                None => JavaHashSet::from_ordered(data.brokers.keys().map(String::as_str)).to_vec(),
            };
            let choice = strategy.placement().select_broker(
                &candidates,
                &bundle,
                &bundle_data,
                &data,
                cfg,
                &mut picker,
            );
            if preallocate_choices && let Some(c) = &choice {
                preallocate(&bundle, &c.broker, &bundle_data, &mut data, ctx);
            }
            write_choice(&mut entry, choice.as_ref());
        }
        out_assignments.push(Value::Object(entry));
    }
    out.insert("assignments".to_string(), Value::Array(out_assignments));
    Ok(Value::Object(out))
}

fn write_choice(entry: &mut Map<String, Value>, choice: Option<&PlacementChoice>) {
    match choice {
        Some(c) => {
            entry.insert("choice_set".to_string(), json!(c.choice_set));
            entry.insert("selected".to_string(), json!(c.broker));
            if c.pick_rejected {
                entry.insert("pick_rejected".to_string(), json!(true));
            }
            entry.insert("reason".to_string(), json!(c.reason));
        }
        None => {
            entry.insert("choice_set".to_string(), json!([]));
            entry.insert("selected".to_string(), Value::Null);
            entry.insert("reason".to_string(), json!("no candidate broker"));
        }
    }
}

/// `LoadBalancerConfig::for_profile(master-90cba329)` with the scenario's keys applied.
fn parse_config(config: Option<&Value>, path: &str) -> Result<LoadBalancerConfig, ReplayError> {
    json::config_over(
        LoadBalancerConfig::for_profile(ORACLE_PROFILE),
        config,
        path,
        |_, value| config::json_to_conf_text(value),
    )
}

/// An integer that may be written as a whole float (`10.0`), as Jackson would coerce it.
fn int(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>, ReplayError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                    .map(|f| f as i64)
            })
            .map(Some)
            .ok_or_else(|| ReplayError::malformed(format!("{path}.{key}"), "expected an integer")),
    }
}

fn string_map(v: &Value, path: &str) -> Result<IndexMap<String, String>, ReplayError> {
    object(v, path)?
        .iter()
        .map(|(k, s)| {
            s.as_str()
                .map(|s| (k.clone(), s.to_string()))
                .ok_or_else(|| ReplayError::malformed(format!("{path}.{k}"), "expected a string"))
        })
        .collect()
}

fn string_list_map(v: &Value, path: &str) -> Result<IndexMap<String, Vec<String>>, ReplayError> {
    object(v, path)?
        .iter()
        .map(|(k, l)| Ok((k.clone(), string_list(l, &format!("{path}.{k}"))?)))
        .collect()
}

fn parse_term_data(
    v: Option<&Value>,
    default_max_samples: i32,
    path: &str,
) -> Result<TimeAverageMessageData, ReplayError> {
    let mut t = TimeAverageMessageData {
        max_samples: default_max_samples,
        num_samples: 0,
        msg_throughput_in: 0.0,
        msg_throughput_out: 0.0,
        msg_rate_in: 0.0,
        msg_rate_out: 0.0,
    };
    let Some(v) = v else {
        return Ok(t);
    };
    let o = object(v, path)?;
    let small = |key: &str| -> Result<Option<i32>, ReplayError> {
        int(o, key, path)?
            .map(|n| {
                i32::try_from(n)
                    .map_err(|_| ReplayError::malformed(format!("{path}.{key}"), "out of range"))
            })
            .transpose()
    };
    if let Some(n) = small("maxSamples")? {
        t.max_samples = n;
    }
    if let Some(n) = small("numSamples")? {
        t.num_samples = n;
    }
    t.msg_throughput_in = opt_f64(o, "msgThroughputIn", path)?.unwrap_or(0.0);
    t.msg_throughput_out = opt_f64(o, "msgThroughputOut", path)?.unwrap_or(0.0);
    t.msg_rate_in = opt_f64(o, "msgRateIn", path)?.unwrap_or(0.0);
    t.msg_rate_out = opt_f64(o, "msgRateOut", path)?.unwrap_or(0.0);
    Ok(t)
}

/// A `BundleData` object of the scenario (windows default to 10 / 1000 samples).
fn parse_bundle_data(v: &Value, path: &str) -> Result<BundleData, ReplayError> {
    let o = object(v, path)?;
    let topics = int(o, "topics", path)?.unwrap_or(0);
    Ok(BundleData {
        short_term_data: parse_term_data(
            o.get("shortTermData"),
            10,
            &format!("{path}.shortTermData"),
        )?,
        long_term_data: parse_term_data(
            o.get("longTermData"),
            1000,
            &format!("{path}.longTermData"),
        )?,
        topics: i32::try_from(topics)
            .map_err(|_| ReplayError::malformed(format!("{path}.topics"), "out of range"))?,
    })
}

/// Builds the cycle's `LoadData`: its bundle data, then each broker's report and leader-side data,
/// both laid out in the iteration order of the Java maps the oracle's `LoadData` lived in.
pub(super) fn parse_load_data(cycle: &Value, cpath: &str) -> Result<LoadData, ReplayError> {
    let mut data = LoadData::default();
    if let Some(bundles) = cycle.get("bundles") {
        let bpath = format!("{cpath}.bundles");
        let mut list = Vec::new();
        for (name, bd) in object(bundles, &bpath)? {
            list.push((
                name.clone(),
                parse_bundle_data(bd, &format!("{bpath}.{name}"))?,
            ));
        }
        data.bundle_data = java_order::shedding_bundle_map(list, ORACLE_PROFILE);
    }
    let brokers = cycle
        .get("brokers")
        .and_then(Value::as_array)
        .ok_or_else(|| ReplayError::malformed(format!("{cpath}.brokers"), "expected an array"))?;
    let mut parsed: Vec<(String, BrokerData)> = Vec::with_capacity(brokers.len());
    for (bi, b) in brokers.iter().enumerate() {
        let path = format!("{cpath}.brokers[{bi}]");
        let (name, broker) = parse_broker(b, &path, &data)?;
        if parsed.iter().any(|(n, _)| *n == name) {
            return Err(ReplayError::malformed(
                format!("{path}.name"),
                format!("broker `{name}` appears twice"),
            ));
        }
        parsed.push((name, broker));
    }
    data.brokers = java_order::concurrent_hash_map(parsed);
    if let Some(r) = cycle.get("recentlyUnloadedBundles") {
        let rpath = format!("{cpath}.recentlyUnloadedBundles");
        match r {
            Value::Array(_) => {
                for name in string_list(r, &rpath)? {
                    data.recently_unloaded.insert(name, 0);
                }
            }
            Value::Object(o) => {
                for (name, _) in o {
                    let at = int(o, name, &rpath)?.unwrap_or(0);
                    data.recently_unloaded.insert(name.clone(), at);
                }
            }
            _ => {
                return Err(ReplayError::malformed(
                    rpath,
                    "expected a list or an object",
                ));
            }
        }
    }
    Ok(data)
}

fn parse_broker(
    b: &Value,
    path: &str,
    data: &LoadData,
) -> Result<(String, BrokerData), ReplayError> {
    let o = object(b, path)?;
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ReplayError::malformed(format!("{path}.name"), "expected a string"))?
        .to_string();
    let mut local = broker_usage_and_rates(o, path)?;
    local.num_topics = int(o, "numTopics", path)?.unwrap_or(0);
    if let Some(v) = o.get("bundles") {
        local.bundles = string_list(v, &format!("{path}.bundles"))?;
        local.num_bundles = i64::try_from(local.bundles.len()).unwrap_or(i64::MAX);
    }
    for (key, field) in [
        ("loadManagerClassName", &mut local.load_manager_class_name),
        ("brokerVersionString", &mut local.broker_version_string),
    ] {
        if let Some(v) = o.get(key) {
            *field = Some(json::string(v, &format!("{path}.{key}"))?.to_string());
        }
    }
    for (key, field) in [
        (
            "persistentTopicsEnabled",
            &mut local.persistent_topics_enabled,
        ),
        (
            "nonPersistentTopicsEnabled",
            &mut local.non_persistent_topics_enabled,
        ),
    ] {
        if let Some(v) = o.get(key) {
            *field = v.as_bool().ok_or_else(|| {
                ReplayError::malformed(format!("{path}.{key}"), "expected true or false")
            })?;
        }
    }
    if let Some(v) = o.get("lastStats") {
        let lpath = format!("{path}.lastStats");
        let mut stats = IndexMap::new();
        for (bundle, s) in object(v, &lpath)? {
            let parsed: NamespaceBundleStats = deserialize(s, &format!("{lpath}.{bundle}"))?;
            stats.insert(bundle.clone(), parsed);
        }
        local.set_last_stats(stats);
    }
    let time_average = match o.get("timeAverage") {
        Some(v) => deserialize::<TimeAverageBrokerData>(v, &format!("{path}.timeAverage"))?,
        None => TimeAverageBrokerData::from_bundles(
            local.bundles.iter().map(String::as_str),
            &data.bundle_data,
        ),
    };
    let mut preallocated = IndexMap::new();
    if let Some(v) = o.get("preallocated") {
        let ppath = format!("{path}.preallocated");
        for (bundle, bd) in object(v, &ppath)? {
            let parsed = match bd {
                // "" = the entry of the cycle's bundle data (Pulsar's default when there is none).
                Value::String(s) if s.is_empty() => data
                    .bundle_data
                    .get(bundle)
                    .copied()
                    .unwrap_or_else(BundleData::pulsar_default),
                other => parse_bundle_data(other, &format!("{ppath}.{bundle}"))?,
            };
            preallocated.insert(bundle.clone(), parsed);
        }
    }
    Ok((
        name,
        BrokerData {
            local,
            time_average,
            preallocated,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::replay;
    use super::*;

    fn scenario(cycles: Value) -> Value {
        json!({"scenario": {"kind": "placement", "strategy": "LeastLongTermMessageRate",
            "config": {}, "cycles": cycles}})
    }

    #[test]
    fn malformed_input_names_the_json_path() {
        let bad_cpu = scenario(
            json!([{"brokers": [{"name": "b1:8080", "cpu": {"usage": "x"}}],
            "assignments": []}]),
        );
        match replay(&bad_cpu, None, 0) {
            Err(ReplayError::Malformed { path, .. }) => {
                assert_eq!(path, "$.scenario.cycles[0].brokers[0].cpu.usage")
            }
            other => panic!("{other:?}"),
        }
        let bad_bundle = scenario(json!([{"brokers": [], "assignments": [{"bundle": 3}]}]));
        match replay(&bad_bundle, None, 0) {
            Err(ReplayError::Malformed { path, .. }) => {
                assert_eq!(path, "$.scenario.cycles[0].assignments[0].bundle")
            }
            other => panic!("{other:?}"),
        }
        let bad_conf = json!({"kind": "placement", "strategy": "LeastLongTermMessageRate",
            "config": {"loadBalancerBrokerMaxTopics": "many"}, "cycles": []});
        match replay(&bad_conf, None, 0) {
            Err(ReplayError::Malformed { path, .. }) => {
                assert_eq!(path, "$.config.loadBalancerBrokerMaxTopics")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn outside_pick_outside_the_choice_set_is_flagged() {
        // handmade-lltmr_2_tie: b1 and b3 tie at 1000 msg/s, b2 is overloaded.
        let broker = |name: &str, cpu: f64| {
            json!({"name": name, "cpu": {"usage": cpu, "limit": 100.0},
                "timeAverage": {"longTermMsgRateIn": 500.0, "longTermMsgRateOut": 500.0}})
        };
        let file = scenario(
            json!([{"brokers": [broker("b1:8080", 10.0), broker("b2:8080", 90.0),
            broker("b3:8080", 10.0)], "assignments": [{"bundle": "t/ns/0x00000000_0x10000000"}]}]),
        );
        let picks = Picks {
            cycles: vec![vec!["b3:8080".to_string()]],
        };
        let out = replay(&file, Some(&picks), 0).unwrap();
        let a = &out["cycles"][0]["assignments"][0];
        assert_eq!(a["selected"], "b3:8080");
        assert!(a.get("pick_rejected").is_none());
        let picks = Picks {
            cycles: vec![vec!["b2:8080".to_string()]],
        };
        let out = replay(&file, Some(&picks), 0).unwrap();
        assert_eq!(out["cycles"][0]["assignments"][0]["pick_rejected"], true);
    }
}
