//! Replay of the oracle's modular `placement` scenarios (`oracle/README.md`): cycles of brokers and
//! bundles, assignments placed by one strategy instance (optionally behind the candidate pipeline,
//! with preallocation), and AvgShedder's shedding half run first when a cycle says `shed`.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::ReplayError;
use super::java_order;
use super::json::{self, ConfigKeys, SameOr};
use super::modular_input::{
    BrokerInput, BundleDataInput, RecentlyUnloaded, WindowInput, recently_unloaded,
};
use super::picks::Picks;
use crate::config::{self, LoadBalancerConfig, Profile};
use crate::model::{BundleData, TimeAverageBrokerData, TimeAverageMessageData};
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

/// A `kind: "placement"` scenario.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    /// A placement strategy's class name (short or qualified), or AvgShedder.
    strategy: String,
    config: Option<ConfigKeys>,
    /// Preallocate each choice, as the leader does (without the candidate pipeline).
    preallocate: Option<bool>,
    /// Run the leader's candidate pipeline (`selectBrokerForAssignment`) around the strategy.
    pipeline: Option<bool>,
    cycles: Vec<Cycle>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cycle {
    brokers: Vec<BrokerInput>,
    bundles: Option<IndexMap<String, BundleDataInput>>,
    recently_unloaded_bundles: Option<RecentlyUnloaded>,
    active_brokers: Option<Vec<String>>,
    namespace_anti_affinity_groups: Option<IndexMap<String, String>>,
    failure_domains: Option<IndexMap<String, Vec<String>>>,
    available_brokers: Option<Vec<String>>,
    /// Run AvgShedder's shedding half before the assignments.
    shed: Option<bool>,
    assignments: Option<Vec<Assignment>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Assignment {
    bundle: String,
    bundle_data: Option<BundleDataInput>,
    /// The candidate set handed to the strategy (without the pipeline); default every broker.
    candidates: Option<Vec<String>>,
}

pub(super) fn run(
    scenario: &Value,
    base: &str,
    picks: Option<&Picks>,
    seed: u64,
) -> Result<Value, ReplayError> {
    let scenario: Scenario = json::read(scenario, base)?;
    let cfg = json::config_over(
        LoadBalancerConfig::for_profile(ORACLE_PROFILE),
        scenario.config.as_ref(),
        &format!("{base}.config"),
        |_, value| config::json_to_conf_text(value),
    )?;
    let mut strategy = build_strategy(&scenario.strategy, &format!("{base}.strategy"))?;
    let preallocate_choices = scenario.preallocate.unwrap_or(false);
    let pipeline = scenario.pipeline.unwrap_or(false);

    // Manager-level state that outlives a cycle (the candidate set's capacity, the round-robin
    // selector for excluded namespaces).
    let mut ctx = PlacementContext::new();
    let mut out_cycles = Vec::with_capacity(scenario.cycles.len());
    for (ci, cycle) in scenario.cycles.iter().enumerate() {
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
    cycle: &Cycle,
    cpath: &str,
    cfg: &LoadBalancerConfig,
    strategy: &mut Strategy,
    ctx: &mut PlacementContext,
    preallocate_choices: bool,
    pipeline: bool,
    picks: Option<&[String]>,
    fallback: &mut SeededPicker,
) -> Result<Value, ReplayError> {
    let mut data = load_data(cycle, cpath)?;
    if let Some(active) = &cycle.active_brokers {
        if let Some(s) = strategy.shedding() {
            s.on_active_brokers_change(active);
        }
        strategy.placement().on_active_brokers_change(active);
    }

    // Per-cycle leader state: fresh preallocations, the range cache rebuilt from the reports.
    ctx.preallocated.clear();
    ctx.rebuild_bundle_range_cache(&data);
    ctx.namespace_anti_affinity_groups = cycle
        .namespace_anti_affinity_groups
        .clone()
        .unwrap_or_default();
    ctx.failure_domains = cycle.failure_domains.clone().unwrap_or_default();
    ctx.available_brokers = cycle.available_brokers.clone();

    let mut out = Map::new();
    if cycle.shed.unwrap_or(false) {
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

    let assignments = cycle.assignments.as_deref().unwrap_or_default();
    let mut out_assignments = Vec::with_capacity(assignments.len());
    for (ai, assignment) in assignments.iter().enumerate() {
        let bundle = assignment.bundle.clone();
        let bundle_data = match &assignment.bundle_data {
            Some(b) => bundle_data(b),
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
            let candidates = match &assignment.candidates {
                Some(list) => JavaHashSet::from_ordered(list.iter().map(String::as_str)).to_vec(),
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

/// A `BundleData` as the placement oracle read it: windows of 10 / 1000 samples, a missing window
/// or field is 0 (no samples, no rates).
fn bundle_data(b: &BundleDataInput) -> BundleData {
    let window = |w: Option<&WindowInput>, samples: i32| match w {
        None => TimeAverageMessageData {
            max_samples: samples,
            num_samples: 0,
            msg_throughput_in: 0.0,
            msg_throughput_out: 0.0,
            msg_rate_in: 0.0,
            msg_rate_out: 0.0,
        },
        Some(w) => w.with(samples, |_| 0),
    };
    BundleData {
        short_term_data: window(b.short_term_data.as_ref(), 10),
        long_term_data: window(b.long_term_data.as_ref(), 1000),
        topics: b.topics.map_or(0, |n| n.0),
    }
}

/// Builds the cycle's `LoadData`: its bundle data, then each broker's report and leader-side data,
/// both laid out in the iteration order of the Java maps the oracle's `LoadData` lived in.
fn load_data(cycle: &Cycle, cpath: &str) -> Result<LoadData, ReplayError> {
    let mut data = LoadData::default();
    if let Some(bundles) = &cycle.bundles {
        let list = bundles
            .iter()
            .map(|(name, b)| (name.clone(), bundle_data(b)))
            .collect();
        // Same order; the view's map hashes with Fx.
        data.bundle_data = java_order::shedding_bundle_map(list, ORACLE_PROFILE)
            .into_iter()
            .collect();
    }
    let mut parsed: Vec<(String, BrokerData)> = Vec::with_capacity(cycle.brokers.len());
    for (bi, b) in cycle.brokers.iter().enumerate() {
        if parsed.iter().any(|(n, _)| *n == b.name) {
            return Err(ReplayError::malformed(
                format!("{cpath}.brokers[{bi}].name"),
                format!("broker `{}` appears twice", b.name),
            ));
        }
        parsed.push((b.name.clone(), broker(b, &data)));
    }
    data.brokers = java_order::concurrent_hash_map(parsed);
    data.recently_unloaded = recently_unloaded(cycle.recently_unloaded_bundles.as_ref());
    Ok(data)
}

fn broker(b: &BrokerInput, data: &LoadData) -> BrokerData {
    let mut local = b.usage_and_rates();
    local.num_topics = b.num_topics.map_or(0, |n| n.0);
    if let Some(list) = &b.bundles {
        local.bundles = list.clone();
        local.num_bundles = i64::try_from(local.bundles.len()).unwrap_or(i64::MAX);
    }
    local.load_manager_class_name = b.load_manager_class_name.clone();
    local.broker_version_string = b.broker_version_string.clone();
    if let Some(on) = b.persistent_topics_enabled {
        local.persistent_topics_enabled = on;
    }
    if let Some(on) = b.non_persistent_topics_enabled {
        local.non_persistent_topics_enabled = on;
    }
    if let Some(stats) = &b.last_stats {
        local.set_last_stats(stats.clone());
    }
    let time_average = match &b.time_average {
        Some(t) => *t,
        None => TimeAverageBrokerData::from_bundles(
            local.bundles.iter().map(String::as_str),
            &data.bundle_data,
        ),
    };
    let preallocated = b
        .preallocated
        .iter()
        .flatten()
        .map(|(bundle, p)| {
            let d = match p {
                // "" = the entry of the cycle's bundle data (Pulsar's default when there is none).
                SameOr::Same => data
                    .bundle_data
                    .get(bundle)
                    .copied()
                    .unwrap_or_else(BundleData::pulsar_default),
                SameOr::Own(d) => bundle_data(d),
            };
            (bundle.clone(), d)
        })
        .collect();
    BrokerData {
        local,
        time_average,
        preallocated,
    }
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
