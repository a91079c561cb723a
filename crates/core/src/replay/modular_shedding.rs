//! Replay of modular `shedding` scenarios (the oracle's `kind: "shedding"` files): builds the
//! leader's `LoadData` for every cycle from the scenario JSON, runs all cycles on ONE strategy
//! instance (history, hit counters and destinations carry over) and prints the unloads per broker.
//!
//! Maps are laid out in the iteration order Pulsar's Java collections would give them (see
//! [`java_order`]), so that exact ties resolve as they did in the oracle's run.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::ReplayError;
use super::java_order;
use super::json::{self, ConfigKeys, SameOr};
use super::modular_input::{
    BrokerInput, BundleDataInput, RecentlyUnloaded, WindowInput, recently_unloaded,
};
use crate::config::{self, ConfigType, LoadBalancerConfig, Profile};
use crate::model::{
    BundleData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, TimeAverageBrokerData, TimeAverageMessageData,
};
use crate::modular::shedding::{SheddingSelection, shedder_by_name};
use crate::modular::{BrokerData, LoadData};

/// The oracle files were decided by master at 90cba329; replay follows that commit.
const REPLAY_PROFILE: Profile = Profile::Master90cba329;

/// A `kind: "shedding"` scenario.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    /// A modular shedding strategy's class name (short or qualified).
    strategy: String,
    config: Option<ConfigKeys>,
    /// Feed each cycle's unloads into the next cycles' `recentlyUnloaded` (the leader's map).
    carry_recently_unloaded: Option<bool>,
    cycles: Vec<Cycle>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cycle {
    brokers: Vec<BrokerInput>,
    bundles: Option<IndexMap<String, BundleDataInput>>,
    recently_unloaded_bundles: Option<RecentlyUnloaded>,
    active_brokers: Option<Vec<String>>,
}

pub(super) fn run(scenario: &Value, base: &str, _seed: u64) -> Result<Value, ReplayError> {
    let profile = REPLAY_PROFILE;
    let scenario: Scenario = json::read(scenario, base)?;
    let cfg = json::config_over(
        LoadBalancerConfig::for_profile(profile),
        scenario.config.as_ref(),
        &format!("{base}.config"),
        conf_text,
    )?;
    let strategy_name = scenario.strategy.as_str();
    let mut strategy = shedder_by_name(strategy_name, profile).ok_or_else(|| {
        ReplayError::malformed(
            format!("{base}.strategy"),
            format!("`{strategy_name}` is not a modular shedding strategy"),
        )
    })?;
    let carry = scenario.carry_recently_unloaded.unwrap_or(false);

    let mut carried: IndexMap<String, i64> = IndexMap::new();
    let mut out_cycles = Vec::with_capacity(scenario.cycles.len());
    for (i, cycle) in scenario.cycles.iter().enumerate() {
        let path = format!("{base}.cycles[{i}]");
        let mut data = load_data(cycle, &path, profile)?;
        if carry {
            for (bundle, at) in &carried {
                data.recently_unloaded.entry(bundle.clone()).or_insert(*at);
            }
        }
        if let Some(active) = &cycle.active_brokers {
            strategy.on_active_brokers_change(active);
        }
        let decisions = strategy.find_bundles_for_unloading(&data, &cfg);
        if carry {
            let at = i64::try_from(i).unwrap_or(i64::MAX);
            for d in &decisions {
                carried.entry(d.bundle.clone()).or_insert(at);
            }
        }
        out_cycles.push(cycle_output(i, &decisions));
    }
    Ok(json!({
        "kind": "shedding",
        "strategy": config::qualify_strategy_name(strategy_name),
        "profile": profile.name(),
        "cycles": out_cycles,
    }))
}

fn cycle_output(index: usize, decisions: &[SheddingSelection]) -> Value {
    let mut unload: Map<String, Value> = Map::new();
    for d in decisions {
        let entry = unload
            .entry(d.broker.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = entry {
            list.push(Value::String(d.bundle.clone()));
        }
    }
    json!({
        "cycle": index,
        "unload": unload,
        "unload_count": decisions.len(),
        "decisions": serde_json::to_value(decisions).unwrap_or_default(),
    })
}

/// `broker.conf` text of a `config` value (keys Pulsar's configuration lacks are ignored, as the
/// oracle's stand-in configuration ignores them); an integer key given as `10.0` reads as `10`,
/// as Jackson would coerce it.
fn conf_text(key: &str, v: &Value) -> String {
    let is_int_key = LoadBalancerConfig::KEYS
        .iter()
        .any(|(k, t)| *k == key && matches!(t, ConfigType::Int));
    let whole = v
        .as_f64()
        .filter(|f| v.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15);
    if let (true, Some(f)) = (is_int_key, whole) {
        return format!("{f:.0}");
    }
    config::json_to_conf_text(v)
}

/// The cycle's `LoadData`, its maps laid out in the order of the oracle's Java maps.
fn load_data(cycle: &Cycle, path: &str, profile: Profile) -> Result<LoadData, ReplayError> {
    let bundle_list: Vec<(String, BundleData)> = cycle
        .bundles
        .iter()
        .flatten()
        .map(|(name, b)| (name.clone(), bundle_data(b)))
        .collect();
    let bundle_data = java_order::shedding_bundle_map(bundle_list, profile);

    let mut brokers: Vec<(String, BrokerData)> = Vec::with_capacity(cycle.brokers.len());
    for (k, b) in cycle.brokers.iter().enumerate() {
        let p = format!("{path}.brokers[{k}]");
        if brokers.iter().any(|(n, _)| *n == b.name) {
            return Err(ReplayError::malformed(
                format!("{p}.name"),
                format!("broker `{}` appears twice", b.name),
            ));
        }
        brokers.push((b.name.clone(), broker(b, &p, &bundle_data)?));
    }
    Ok(LoadData {
        brokers: java_order::concurrent_hash_map(brokers),
        // Same order; the view's map hashes with Fx.
        bundle_data: bundle_data.into_iter().collect(),
        recently_unloaded: recently_unloaded(cycle.recently_unloaded_bundles.as_ref()),
    })
}

fn broker(
    b: &BrokerInput,
    path: &str,
    cycle_bundles: &IndexMap<String, BundleData>,
) -> Result<BrokerData, ReplayError> {
    let mut local = b.usage_and_rates();
    if let Some(list) = &b.bundles {
        // `getBundles()` is a set in Pulsar.
        let mut seen = std::collections::HashSet::new();
        local.bundles = list.iter().filter(|n| seen.insert(*n)).cloned().collect();
        local.num_bundles = i64::try_from(local.bundles.len()).unwrap_or(i64::MAX);
    }
    if let Some(stats) = &b.last_stats {
        // As `LocalBrokerData.update`: the bundle list and the summed rates come from lastStats.
        local.set_last_stats(stats.clone());
    }
    if let Some(n) = b.num_topics {
        local.num_topics = n.0;
    }
    let time_average = match &b.time_average {
        Some(t) => *t,
        None => TimeAverageBrokerData::from_bundles(
            local.bundles.iter().map(String::as_str),
            cycle_bundles,
        ),
    };
    let mut preallocated = IndexMap::new();
    for (bundle, p) in b.preallocated.iter().flatten() {
        let data = match p {
            SameOr::Same => *cycle_bundles.get(bundle).ok_or_else(|| {
                ReplayError::malformed(
                    format!("{path}.preallocated[{bundle:?}]"),
                    "no entry of that name in the cycle's bundles",
                )
            })?,
            SameOr::Own(d) => bundle_data(d),
        };
        preallocated.insert(bundle.clone(), data);
    }
    Ok(BrokerData {
        local,
        time_average,
        preallocated,
    })
}

/// A `BundleData` as the shedding oracle read it: a missing window is Pulsar's default estimate,
/// missing sample counts are a full window (10 short-term, 1000 long-term), missing rates are 0.
fn bundle_data(b: &BundleDataInput) -> BundleData {
    let window = |w: Option<&WindowInput>, samples: i32| match w {
        None => TimeAverageMessageData::with_defaults(samples),
        Some(w) => w.with(samples, |max| max),
    };
    BundleData {
        short_term_data: window(b.short_term_data.as_ref(), NUM_SHORT_SAMPLES),
        long_term_data: window(b.long_term_data.as_ref(), NUM_LONG_SAMPLES),
        topics: b.topics.map_or(0, |n| n.0),
    }
}
