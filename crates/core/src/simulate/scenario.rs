//! The scenario file (`format_version` 1, documented in `docs/simulation.md`): the load model, the
//! events at given cycles, the convergence criteria and the configurations to compare. Parsing
//! names the JSON path of anything malformed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json_read::{
    conf_text, object, only_keys, opt_array, opt_f64, opt_str, opt_u32, string_list,
};
use super::limits::{check_cycles, check_events};
use super::run_config::RunConfig;
use crate::replay::ReplayError;

/// Version of the scenario format this crate reads and writes.
pub const SCENARIO_FORMAT_VERSION: u32 = 1;

/// Everything a simulation varies besides the snapshot, the configuration and the seed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// The snapshot the scenario is meant for (`builtin:…`), used when none is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// Default number of cycles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u32>,
    /// `broker.conf` overrides applied to every run (before each run's own overrides).
    pub settings: Vec<(String, String)>,
    pub load: LoadSpec,
    pub events: Vec<Event>,
    pub metrics: MetricsSpec,
    /// Configurations compared when none are given on the command line.
    pub compare: Vec<RunConfig>,
}

/// How every bundle's traffic evolves: `base × growth × wave × spikes × noise`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadSpec {
    /// Compound growth per cycle, in percent (1.0 = +1 % per cycle; negative shrinks).
    pub growth_pct_per_cycle: f64,
    pub daily_wave: Option<DailyWave>,
    pub spikes: Vec<Spike>,
    /// Independent multiplicative noise per bundle and cycle, uniform in `±noise_fraction`.
    pub noise_fraction: f64,
    /// Java-heap sawtooth per broker; `None` keeps each broker's heap as the snapshot reports it.
    pub heap: Option<HeapModel>,
    /// CPU a broker uses with no traffic, as a fraction of its limit (capped at its initial usage).
    pub idle_cpu_fraction: f64,
}

/// `1 + amplitude × sin(2π (minutes + phase) / period)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DailyWave {
    pub amplitude_fraction: f64,
    pub period_minutes: f64,
    pub phase_minutes: f64,
}

/// Which bundles a spike multiplies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpikeTarget {
    /// Full bundle names (`tenant/ns/0x…_0x…`); bundles split from them keep the spike.
    Bundles(Vec<String>),
    /// Every bundle of a namespace (`tenant/ns`).
    Namespace(String),
    /// The N bundles with the highest initial throughput.
    TopBundles(u32),
}

/// A hot-topic spike: traffic of the target × `factor` for cycles `start_cycle..end_cycle`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spike {
    pub target: SpikeTarget,
    pub start_cycle: u32,
    pub end_cycle: u32,
    pub factor: f64,
}

/// Heap used = limit × (min + (max − min) × sawtooth), rising linearly over `period_cycles` then
/// dropping back (a full GC); each broker gets a seeded phase and a period jittered by ±1 cycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeapModel {
    pub min_fraction: f64,
    pub max_fraction: f64,
    pub period_cycles: u32,
}

/// Where a broker is named in an event: its brokerId, `#N` (N-th broker of the snapshot, from 0,
/// in snapshot order) or `@busiest` (highest weighted max usage when the event fires).
pub type BrokerRef = String;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum EventKind {
    /// A new, empty broker with the limits and cost coefficients of `like` (default `#0`).
    AddBroker {
        broker: String,
        like: Option<BrokerRef>,
    },
    /// The broker crashes for good; the strategy places its bundles.
    RemoveBroker { broker: BrokerRef },
    /// Each broker in turn (all live brokers in order, or the ones listed) goes away for one cycle
    /// (its bundles placed by the strategy) and comes back empty; the next one goes
    /// `interval_cycles` later.
    RollingRestart {
        brokers: Vec<BrokerRef>,
        interval_cycles: u32,
    },
    /// A `broker.conf` change from this cycle on.
    SetConfig { key: String, value: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub cycle: u32,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Convergence and thrashing criteria (defaults from the configuration when absent).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricsSpec {
    /// Balanced = std of the weighted max usage below this (fraction). Default:
    /// `loadBalancerBrokerThresholdShedderPercentage / 100`.
    pub balanced_std_fraction: Option<f64>,
    /// Consecutive balanced cycles required (default 3).
    pub balanced_consecutive_cycles: Option<u32>,
    /// A bundle moved back to a broker it left at most this many cycles earlier is thrashing.
    /// Default: the grace period in cycles.
    pub thrashing_window_cycles: Option<u32>,
}

impl LoadSpec {
    pub fn steady() -> Self {
        Self {
            idle_cpu_fraction: DEFAULT_IDLE_CPU_FRACTION,
            ..Self::default()
        }
    }
}

/// 5 % of a broker's CPU limit is taken as its idle baseline unless the scenario says otherwise.
pub const DEFAULT_IDLE_CPU_FRACTION: f64 = 0.05;

fn positive(x: f64, path: String, what: &str) -> Result<f64, ReplayError> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(ReplayError::malformed(path, format!("{what} must be > 0")))
    }
}

fn non_negative(x: f64, path: String) -> Result<f64, ReplayError> {
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(ReplayError::malformed(path, "must be >= 0"))
    }
}

fn parse_load(v: &Value, path: &str) -> Result<LoadSpec, ReplayError> {
    let o = object(v, path)?;
    only_keys(
        o,
        &[
            "growth_pct_per_cycle",
            "daily_wave",
            "spikes",
            "noise_fraction",
            "heap",
            "idle_cpu_fraction",
        ],
        path,
    )?;
    let mut load = LoadSpec::steady();
    if let Some(g) = opt_f64(o, "growth_pct_per_cycle", path)? {
        if g <= -100.0 {
            return Err(ReplayError::malformed(
                format!("{path}.growth_pct_per_cycle"),
                "must be > -100",
            ));
        }
        load.growth_pct_per_cycle = g;
    }
    if let Some(n) = opt_f64(o, "noise_fraction", path)? {
        if !(0.0..1.0).contains(&n) {
            return Err(ReplayError::malformed(
                format!("{path}.noise_fraction"),
                "must be in [0, 1)",
            ));
        }
        load.noise_fraction = n;
    }
    if let Some(i) = opt_f64(o, "idle_cpu_fraction", path)? {
        if !(0.0..=1.0).contains(&i) {
            return Err(ReplayError::malformed(
                format!("{path}.idle_cpu_fraction"),
                "must be in [0, 1]",
            ));
        }
        load.idle_cpu_fraction = i;
    }
    if let Some(w) = o.get("daily_wave").filter(|w| !w.is_null()) {
        let p = format!("{path}.daily_wave");
        let wo = object(w, &p)?;
        only_keys(
            wo,
            &["amplitude_fraction", "period_minutes", "phase_minutes"],
            &p,
        )?;
        let amplitude = opt_f64(wo, "amplitude_fraction", &p)?.unwrap_or(0.3);
        if !(0.0..1.0).contains(&amplitude) {
            return Err(ReplayError::malformed(
                format!("{p}.amplitude_fraction"),
                "must be in [0, 1) so traffic stays positive",
            ));
        }
        let period = positive(
            opt_f64(wo, "period_minutes", &p)?.unwrap_or(1440.0),
            format!("{p}.period_minutes"),
            "the period",
        )?;
        load.daily_wave = Some(DailyWave {
            amplitude_fraction: amplitude,
            period_minutes: period,
            phase_minutes: opt_f64(wo, "phase_minutes", &p)?.unwrap_or(0.0),
        });
    }
    for (i, s) in opt_array(o, "spikes", path)?.iter().enumerate() {
        load.spikes
            .push(parse_spike(s, &format!("{path}.spikes[{i}]"))?);
    }
    if let Some(h) = o.get("heap").filter(|h| !h.is_null()) {
        let p = format!("{path}.heap");
        let ho = object(h, &p)?;
        only_keys(ho, &["min_fraction", "max_fraction", "period_cycles"], &p)?;
        let min = non_negative(
            opt_f64(ho, "min_fraction", &p)?.unwrap_or(0.3),
            format!("{p}.min_fraction"),
        )?;
        let max = opt_f64(ho, "max_fraction", &p)?.unwrap_or(0.85);
        if max < min {
            return Err(ReplayError::malformed(
                format!("{p}.max_fraction"),
                "must be >= min_fraction",
            ));
        }
        let period = opt_u32(ho, "period_cycles", &p)?.unwrap_or(5);
        if period == 0 {
            return Err(ReplayError::malformed(
                format!("{p}.period_cycles"),
                "must be >= 1",
            ));
        }
        load.heap = Some(HeapModel {
            min_fraction: min,
            max_fraction: max,
            period_cycles: period,
        });
    }
    Ok(load)
}

fn parse_spike(v: &Value, path: &str) -> Result<Spike, ReplayError> {
    let o = object(v, path)?;
    only_keys(
        o,
        &[
            "bundles",
            "namespace",
            "top_bundles",
            "start_cycle",
            "end_cycle",
            "factor",
        ],
        path,
    )?;
    let bundles = string_list(o, "bundles", path)?;
    let namespace = opt_str(o, "namespace", path)?;
    let top = opt_u32(o, "top_bundles", path)?;
    let given = usize::from(!bundles.is_empty())
        + usize::from(namespace.is_some())
        + usize::from(top.is_some());
    if given != 1 {
        return Err(ReplayError::malformed(
            path,
            "a spike needs exactly one of `bundles`, `namespace`, `top_bundles`",
        ));
    }
    let target = match (namespace, top) {
        (Some(ns), _) => SpikeTarget::Namespace(ns.to_string()),
        (None, Some(n)) => SpikeTarget::TopBundles(n),
        (None, None) => SpikeTarget::Bundles(bundles),
    };
    let start = opt_u32(o, "start_cycle", path)?.unwrap_or(0);
    let end = opt_u32(o, "end_cycle", path)?.unwrap_or(u32::MAX);
    if end <= start {
        return Err(ReplayError::malformed(
            format!("{path}.end_cycle"),
            "must be greater than start_cycle",
        ));
    }
    let factor = positive(
        opt_f64(o, "factor", path)?.unwrap_or(5.0),
        format!("{path}.factor"),
        "the factor",
    )?;
    Ok(Spike {
        target,
        start_cycle: start,
        end_cycle: end,
        factor,
    })
}

fn parse_event(v: &Value, path: &str) -> Result<Event, ReplayError> {
    let o = object(v, path)?;
    let cycle = opt_u32(o, "cycle", path)?
        .ok_or_else(|| ReplayError::malformed(format!("{path}.cycle"), "required"))?;
    let kind = opt_str(o, "kind", path)?
        .ok_or_else(|| ReplayError::malformed(format!("{path}.kind"), "required"))?;
    let need = |key: &str| -> Result<String, ReplayError> {
        opt_str(o, key, path)?
            .map(str::to_string)
            .ok_or_else(|| ReplayError::malformed(format!("{path}.{key}"), "required"))
    };
    let kind = match kind {
        "add_broker" => {
            only_keys(o, &["cycle", "kind", "broker", "like"], path)?;
            EventKind::AddBroker {
                broker: need("broker")?,
                like: opt_str(o, "like", path)?.map(str::to_string),
            }
        }
        "remove_broker" => {
            only_keys(o, &["cycle", "kind", "broker"], path)?;
            EventKind::RemoveBroker {
                broker: need("broker")?,
            }
        }
        "rolling_restart" => {
            only_keys(o, &["cycle", "kind", "brokers", "interval_cycles"], path)?;
            let interval = opt_u32(o, "interval_cycles", path)?.unwrap_or(1);
            if interval == 0 {
                return Err(ReplayError::malformed(
                    format!("{path}.interval_cycles"),
                    "must be >= 1",
                ));
            }
            EventKind::RollingRestart {
                brokers: string_list(o, "brokers", path)?,
                interval_cycles: interval,
            }
        }
        "set_config" => {
            only_keys(o, &["cycle", "kind", "key", "value"], path)?;
            let value = o
                .get("value")
                .ok_or_else(|| ReplayError::malformed(format!("{path}.value"), "required"))?;
            let key = need("key")?;
            // A mistyped key would otherwise be ignored and the run would compare settings the
            // operator believes are applied: refused with the nearest known key, as `--set` is.
            crate::config::LoadBalancerConfig::check_key(&key)
                .map_err(|e| ReplayError::malformed(format!("{path}.key"), e.to_string()))?;
            EventKind::SetConfig {
                key,
                value: conf_text(value, &format!("{path}.value"))?,
            }
        }
        other => {
            return Err(ReplayError::malformed(
                format!("{path}.kind"),
                format!(
                    "unknown event `{other}` (expected add_broker, remove_broker, rolling_restart, set_config)"
                ),
            ));
        }
    };
    Ok(Event { cycle, kind })
}

fn parse_metrics(v: &Value, path: &str) -> Result<MetricsSpec, ReplayError> {
    let o = object(v, path)?;
    only_keys(
        o,
        &[
            "balanced_std_fraction",
            "balanced_consecutive_cycles",
            "thrashing_window_cycles",
        ],
        path,
    )?;
    let consecutive = opt_u32(o, "balanced_consecutive_cycles", path)?;
    if consecutive == Some(0) {
        return Err(ReplayError::malformed(
            format!("{path}.balanced_consecutive_cycles"),
            "must be >= 1",
        ));
    }
    Ok(MetricsSpec {
        balanced_std_fraction: opt_f64(o, "balanced_std_fraction", path)?
            .map(|x| non_negative(x, format!("{path}.balanced_std_fraction")))
            .transpose()?,
        balanced_consecutive_cycles: consecutive,
        thrashing_window_cycles: opt_u32(o, "thrashing_window_cycles", path)?,
    })
}

impl Scenario {
    /// No load change, no events.
    pub fn steady() -> Self {
        Self {
            name: "steady".to_string(),
            load: LoadSpec::steady(),
            ..Self::default()
        }
    }

    /// Parses a scenario file's text.
    pub fn from_json_text(text: &str) -> Result<Self, ReplayError> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            ReplayError::malformed(
                "$",
                format!("not JSON: {e} (line {}, column {})", e.line(), e.column()),
            )
        })?;
        Self::from_json(&value)
    }

    pub fn from_json(value: &Value) -> Result<Self, ReplayError> {
        let o = object(value, "$")?;
        only_keys(
            o,
            &[
                "format_version",
                "name",
                "description",
                "snapshot",
                "cycles",
                "settings",
                "load",
                "events",
                "metrics",
                "compare",
            ],
            "$",
        )?;
        match opt_u32(o, "format_version", "$")? {
            Some(SCENARIO_FORMAT_VERSION) => {}
            Some(v) => {
                return Err(ReplayError::malformed(
                    "$.format_version",
                    format!("expected {SCENARIO_FORMAT_VERSION}, found {v}"),
                ));
            }
            None => return Err(ReplayError::malformed("$.format_version", "required")),
        }
        let mut s = Scenario {
            name: opt_str(o, "name", "$")?.unwrap_or("custom").to_string(),
            description: opt_str(o, "description", "$")?
                .unwrap_or_default()
                .to_string(),
            snapshot: opt_str(o, "snapshot", "$")?.map(str::to_string),
            cycles: opt_u32(o, "cycles", "$")?
                .map(|c| check_cycles(c, "$.cycles"))
                .transpose()?,
            load: LoadSpec::steady(),
            ..Scenario::default()
        };
        if let Some(settings) = o.get("settings").filter(|v| !v.is_null()) {
            let so = object(settings, "$.settings")?;
            for (k, v) in so {
                s.settings
                    .push((k.clone(), conf_text(v, &format!("$.settings.{k}"))?));
            }
        }
        if let Some(load) = o.get("load").filter(|v| !v.is_null()) {
            s.load = parse_load(load, "$.load")?;
        }
        let events = opt_array(o, "events", "$")?;
        check_events(events.len(), "$.events")?;
        for (i, e) in events.iter().enumerate() {
            s.events.push(parse_event(e, &format!("$.events[{i}]"))?);
        }
        if let Some(m) = o.get("metrics").filter(|v| !v.is_null()) {
            s.metrics = parse_metrics(m, "$.metrics")?;
        }
        for (i, c) in string_list(o, "compare", "$")?.iter().enumerate() {
            s.compare.push(
                RunConfig::parse(c)
                    .map_err(|e| ReplayError::malformed(format!("$.compare[{i}]"), e.why))?,
            );
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_paths_are_precise() {
        let bad = r#"{"format_version":1,"load":{"spikes":[{"namespace":"a/b"},{"namespace":"a/b","factor":-1}]}}"#;
        match Scenario::from_json_text(bad) {
            Err(ReplayError::Malformed { path, .. }) => assert_eq!(path, "$.load.spikes[1].factor"),
            other => panic!("{other:?}"),
        }
        let bad = r#"{"format_version":1,"events":[{"cycle":3,"kind":"explode"}]}"#;
        match Scenario::from_json_text(bad) {
            Err(ReplayError::Malformed { path, .. }) => assert_eq!(path, "$.events[0].kind"),
            other => panic!("{other:?}"),
        }
        assert!(Scenario::from_json_text(r#"{"format_version":2}"#).is_err());
        assert!(Scenario::from_json_text("[").is_err());
    }

    #[test]
    fn a_mistyped_set_config_key_is_refused_with_the_nearest_key() {
        let bad = r#"{"format_version":1,"events":[{"cycle":2,"kind":"set_config","key":"loadBalancerShedingEnabled","value":"false"}]}"#;
        match Scenario::from_json_text(bad) {
            Err(ReplayError::Malformed { path, message }) => {
                assert_eq!(path, "$.events[0].key");
                assert!(
                    message.contains("did you mean `loadBalancerSheddingEnabled`?"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
        let good = r#"{"format_version":1,"events":[{"cycle":2,"kind":"set_config","key":"loadBalancerSheddingEnabled","value":"false"}]}"#;
        assert!(Scenario::from_json_text(good).is_ok());
    }
}
