//! Replay of modular `shedding` scenarios (the oracle's `kind: "shedding"` files): builds the
//! leader's `LoadData` for every cycle from the scenario JSON, runs all cycles on ONE strategy
//! instance (history, hit counters and destinations carry over) and prints the unloads per broker.
//!
//! Maps are laid out in the iteration order Pulsar's Java collections would give them (see
//! [`java_order`]), so that exact ties resolve as they did in the oracle's run.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::ReplayError;
use super::json::{
    self, deserialize, object, opt_bool, opt_f64, opt_i32, opt_i64, resource_usage, string_list,
};
use crate::config::{self, ConfigType, LoadBalancerConfig, Profile};
use crate::model::{
    BundleData, LocalBrokerData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, NamespaceBundleStats,
    TimeAverageBrokerData, TimeAverageMessageData,
};
use crate::modular::load_data::namespace_of_bundle;
use crate::modular::shedding::{UnloadDecision, shedder_by_name};
use crate::modular::{BrokerData, LoadData, is_heartbeat_or_sla_namespace};

/// The oracle files were decided by master at 90cba329; replay follows that commit.
const REPLAY_PROFILE: Profile = Profile::Master90cba329;

pub(super) fn run(scenario: &Value, base: &str, _seed: u64) -> Result<Value, ReplayError> {
    let profile = REPLAY_PROFILE;
    let cfg = parse_config(scenario.get("config"), &format!("{base}.config"), profile)?;
    let strategy_path = format!("{base}.strategy");
    let strategy_name = scenario
        .get("strategy")
        .and_then(Value::as_str)
        .ok_or_else(|| ReplayError::malformed(&strategy_path, "expected a strategy class name"))?;
    let mut strategy = shedder_by_name(strategy_name, profile).ok_or_else(|| {
        ReplayError::malformed(
            &strategy_path,
            format!("`{strategy_name}` is not a modular shedding strategy"),
        )
    })?;
    let carry = opt_bool(scenario, "carryRecentlyUnloaded", base)?.unwrap_or(false);
    let cycles_path = format!("{base}.cycles");
    let cycles = scenario
        .get("cycles")
        .and_then(Value::as_array)
        .ok_or_else(|| ReplayError::malformed(&cycles_path, "expected an array of cycles"))?;

    let mut carried: IndexMap<String, i64> = IndexMap::new();
    let mut out_cycles = Vec::with_capacity(cycles.len());
    for (i, cycle) in cycles.iter().enumerate() {
        let path = format!("{cycles_path}[{i}]");
        let parsed = parse_cycle(cycle, &path, profile)?;
        let mut data = parsed.data;
        if carry {
            for (bundle, at) in &carried {
                data.recently_unloaded.entry(bundle.clone()).or_insert(*at);
            }
        }
        if let Some(active) = &parsed.active_brokers {
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

fn cycle_output(index: usize, decisions: &[UnloadDecision]) -> Value {
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

/// `config`: `broker.conf` keys → JSON values, applied over the profile's defaults. Unknown keys
/// are ignored (the oracle's stand-in configuration ignores them too).
fn parse_config(
    value: Option<&Value>,
    path: &str,
    profile: Profile,
) -> Result<LoadBalancerConfig, ReplayError> {
    json::config_over(
        LoadBalancerConfig::for_profile(profile),
        value.filter(|v| !v.is_null()),
        path,
        conf_text,
    )
}

/// `broker.conf` text of a JSON value; an integer key given as `10.0` reads as `10`, as Jackson
/// would coerce it.
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

struct ParsedCycle {
    data: LoadData,
    active_brokers: Option<Vec<String>>,
}

fn parse_cycle(cycle: &Value, path: &str, profile: Profile) -> Result<ParsedCycle, ReplayError> {
    let obj = object(cycle, path)?;

    let bundles_path = format!("{path}.bundles");
    let mut bundle_list: Vec<(String, BundleData)> = Vec::new();
    match obj.get("bundles") {
        None | Some(Value::Null) => {}
        Some(v) => {
            for (name, b) in object(v, &bundles_path)? {
                let p = format!("{bundles_path}[{name:?}]");
                bundle_list.push((name.clone(), parse_bundle_data(b, &p)?));
            }
        }
    }
    let bundle_data = java_order::shedding_bundle_map(bundle_list, profile);

    let brokers_path = format!("{path}.brokers");
    let brokers_json = obj
        .get("brokers")
        .and_then(Value::as_array)
        .ok_or_else(|| ReplayError::malformed(&brokers_path, "expected an array of brokers"))?;
    let mut brokers: Vec<(String, BrokerData)> = Vec::with_capacity(brokers_json.len());
    for (k, b) in brokers_json.iter().enumerate() {
        let p = format!("{brokers_path}[{k}]");
        let (name, broker) = parse_broker(b, &p, &bundle_data)?;
        if brokers.iter().any(|(n, _)| *n == name) {
            return Err(ReplayError::malformed(
                format!("{p}.name"),
                format!("broker `{name}` appears twice"),
            ));
        }
        brokers.push((name, broker));
    }

    let recently_unloaded = parse_recently_unloaded(
        obj.get("recentlyUnloadedBundles"),
        &format!("{path}.recentlyUnloadedBundles"),
    )?;
    let active_brokers = match obj.get("activeBrokers") {
        None | Some(Value::Null) => None,
        Some(v) => Some(string_list(v, &format!("{path}.activeBrokers"))?),
    };
    Ok(ParsedCycle {
        data: LoadData {
            brokers: java_order::concurrent_hash_map(brokers),
            bundle_data,
            recently_unloaded,
        },
        active_brokers,
    })
}

/// A broker's resources (`{usage, limit}`, missing = 0 %) and message rates (missing = 0).
pub(super) fn broker_usage_and_rates(
    obj: &Map<String, Value>,
    path: &str,
) -> Result<LocalBrokerData, ReplayError> {
    Ok(LocalBrokerData {
        cpu: resource_usage(obj, "cpu", path)?,
        memory: resource_usage(obj, "memory", path)?,
        direct_memory: resource_usage(obj, "directMemory", path)?,
        bandwidth_in: resource_usage(obj, "bandwidthIn", path)?,
        bandwidth_out: resource_usage(obj, "bandwidthOut", path)?,
        msg_rate_in: opt_f64(obj, "msgRateIn", path)?.unwrap_or(0.0),
        msg_rate_out: opt_f64(obj, "msgRateOut", path)?.unwrap_or(0.0),
        msg_throughput_in: opt_f64(obj, "msgThroughputIn", path)?.unwrap_or(0.0),
        msg_throughput_out: opt_f64(obj, "msgThroughputOut", path)?.unwrap_or(0.0),
        ..LocalBrokerData::default()
    })
}

fn parse_broker(
    value: &Value,
    path: &str,
    bundle_data: &IndexMap<String, BundleData>,
) -> Result<(String, BrokerData), ReplayError> {
    let obj = object(value, path)?;
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ReplayError::malformed(format!("{path}.name"), "expected a broker name"))?
        .to_string();
    let mut local = broker_usage_and_rates(obj, path)?;
    if let Some(v) = obj.get("bundles").filter(|v| !v.is_null()) {
        let mut list = string_list(v, &format!("{path}.bundles"))?;
        // `getBundles()` is a set in Pulsar.
        let mut seen = std::collections::HashSet::new();
        list.retain(|b| seen.insert(b.clone()));
        local.num_bundles = i64::try_from(list.len()).unwrap_or(i64::MAX);
        local.bundles = list;
    }
    if let Some(v) = obj.get("lastStats").filter(|v| !v.is_null()) {
        let p = format!("{path}.lastStats");
        let mut stats = IndexMap::new();
        for (bundle, s) in object(v, &p)? {
            let sp = format!("{p}[{bundle:?}]");
            let parsed: NamespaceBundleStats = deserialize(s, &sp)?;
            stats.insert(bundle.clone(), parsed);
        }
        // As `LocalBrokerData.update`: the bundle list and the summed rates come from lastStats.
        local.set_last_stats(stats);
    }
    if let Some(n) = opt_i64(obj, "numTopics", path)? {
        local.num_topics = n;
    }
    let time_average = match obj.get("timeAverage").filter(|v| !v.is_null()) {
        Some(v) => deserialize::<TimeAverageBrokerData>(v, &format!("{path}.timeAverage"))?,
        None => TimeAverageBrokerData::from_bundles(
            local.bundles.iter().map(String::as_str),
            bundle_data,
        ),
    };
    let mut preallocated = IndexMap::new();
    if let Some(v) = obj.get("preallocated").filter(|v| !v.is_null()) {
        let p = format!("{path}.preallocated");
        for (bundle, b) in object(v, &p)? {
            let bp = format!("{p}[{bundle:?}]");
            let data = match b {
                // `""`: the bundle's entry in the cycle's `bundles`.
                Value::String(s) if s.is_empty() => *bundle_data.get(bundle).ok_or_else(|| {
                    ReplayError::malformed(&bp, "no entry of that name in the cycle's bundles")
                })?,
                other => parse_bundle_data(other, &bp)?,
            };
            preallocated.insert(bundle.clone(), data);
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

/// A `BundleData` object; a missing window is Pulsar's default estimate, missing sample counts are
/// a full window (10 short-term, 1000 long-term), missing rates are 0.
fn parse_bundle_data(value: &Value, path: &str) -> Result<BundleData, ReplayError> {
    let obj = object(value, path)?;
    Ok(BundleData {
        short_term_data: parse_window(
            obj.get("shortTermData"),
            path,
            "shortTermData",
            NUM_SHORT_SAMPLES,
        )?,
        long_term_data: parse_window(
            obj.get("longTermData"),
            path,
            "longTermData",
            NUM_LONG_SAMPLES,
        )?,
        topics: opt_i32(obj, "topics", path)?.unwrap_or(0),
    })
}

fn parse_window(
    value: Option<&Value>,
    parent: &str,
    key: &str,
    default_samples: i32,
) -> Result<TimeAverageMessageData, ReplayError> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(TimeAverageMessageData::with_defaults(default_samples));
    };
    let path = format!("{parent}.{key}");
    let obj = object(value, &path)?;
    let max_samples = opt_i32(obj, "maxSamples", &path)?.unwrap_or(default_samples);
    Ok(TimeAverageMessageData {
        max_samples,
        num_samples: opt_i32(obj, "numSamples", &path)?.unwrap_or(max_samples),
        msg_throughput_in: opt_f64(obj, "msgThroughputIn", &path)?.unwrap_or(0.0),
        msg_throughput_out: opt_f64(obj, "msgThroughputOut", &path)?.unwrap_or(0.0),
        msg_rate_in: opt_f64(obj, "msgRateIn", &path)?.unwrap_or(0.0),
        msg_rate_out: opt_f64(obj, "msgRateOut", &path)?.unwrap_or(0.0),
    })
}

/// A list of names (unloaded at time 0) or a map name → unload time (ms).
fn parse_recently_unloaded(
    value: Option<&Value>,
    path: &str,
) -> Result<IndexMap<String, i64>, ReplayError> {
    let mut out = IndexMap::new();
    match value {
        None | Some(Value::Null) => {}
        Some(v @ Value::Array(_)) => {
            for name in string_list(v, path)? {
                out.insert(name, 0);
            }
        }
        Some(Value::Object(map)) => {
            for (name, at) in map {
                let at = at.as_i64().ok_or_else(|| {
                    ReplayError::malformed(format!("{path}[{name:?}]"), "expected a timestamp (ms)")
                })?;
                out.insert(name.clone(), at);
            }
        }
        Some(_) => {
            return Err(ReplayError::malformed(
                path,
                "expected a list of bundle names or a map bundle → timestamp",
            ));
        }
    }
    Ok(out)
}

/// Iteration order of the Java collections the oracle's `LoadData` lives in, so ties resolve alike:
/// brokers sit in a `ConcurrentHashMap` filled in scenario order; `getBundleDataForLoadShedding()`
/// collects the (ConcurrentHashMap) bundle data into a fresh `HashMap`.
/// Not modelled: bins that turn into trees (8+ keys in one bin), which do not occur at these sizes.
pub(crate) mod java_order {
    use indexmap::IndexMap;

    use super::{is_heartbeat_or_sla_namespace, namespace_of_bundle};
    use crate::config::Profile;
    use crate::model::BundleData;
    use crate::naming::{concurrent_hash_map_order, hash_map_order};

    /// Brokers keyed by name in `ConcurrentHashMap` order.
    pub(crate) fn concurrent_hash_map<V>(entries: Vec<(String, V)>) -> IndexMap<String, V> {
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        let order = concurrent_hash_map_order(&keys);
        reorder(entries, &order)
    }

    /// Bundle data laid out so that `LoadData::bundle_data_for_shedding` yields Pulsar's order: the
    /// `ConcurrentHashMap` order of all bundles, filtered, re-collected into a `HashMap`; heartbeat
    /// and SLA bundles (hidden from shedding) go last.
    pub(crate) fn shedding_bundle_map(
        entries: Vec<(String, BundleData)>,
        profile: Profile,
    ) -> IndexMap<String, BundleData> {
        let all = concurrent_hash_map(entries);
        let v1 = profile.filters_v1_heartbeat_names();
        let (hidden, visible): (Vec<_>, Vec<_>) = all
            .into_iter()
            .partition(|(name, _)| is_heartbeat_or_sla_namespace(namespace_of_bundle(name), v1));
        let keys: Vec<&str> = visible.iter().map(|(k, _)| k.as_str()).collect();
        let order = hash_map_order(&keys);
        let mut out = reorder(visible, &order);
        out.extend(hidden);
        out
    }

    fn reorder<V>(entries: Vec<(String, V)>, order: &[usize]) -> IndexMap<String, V> {
        let mut slots: Vec<Option<(String, V)>> = entries.into_iter().map(Some).collect();
        let mut out = IndexMap::with_capacity(slots.len());
        for &p in order {
            if let Some((k, v)) = slots.get_mut(p).and_then(Option::take) {
                out.insert(k, v);
            }
        }
        out
    }
}
