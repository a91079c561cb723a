//! The scenario file (`format_version` 1, documented in `docs/simulation.md`): the load model, the
//! events at given cycles, the convergence criteria and the configurations to compare. Parsing
//! names the JSON path of anything malformed.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ScenarioError;
use super::json_read::{ConfText, Count, Finite};
use super::limits::{check_cycles, check_events};
use super::run_config::RunConfig;
use crate::typed_json::{self, Obj, ReadError};

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
    /// CPU a broker uses with no traffic, as a fraction of its limit (capped at its initial usage):
    /// the one load model's idle baseline (`load::LoadModel::idle_cpu_fraction`).
    pub idle_cpu_fraction: f64,
    /// Per-broker CPU cost factors (brokerId → the cores one unit of work needs there relative to
    /// a factor-1 broker): brokers of different speeds, as `lbplan history --calibrate` fits them.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub cpu_cost_factors: IndexMap<String, f64>,
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
pub const DEFAULT_IDLE_CPU_FRACTION: f64 = crate::load::work::DEFAULT_IDLE_CPU_FRACTION;

impl LoadSpec {
    /// The one load model this scenario's reports are written with.
    pub fn model(&self) -> crate::load::LoadModel {
        crate::load::LoadModel {
            idle_cpu_fraction: self.idle_cpu_fraction,
            cpu_factors: self.cpu_cost_factors.clone(),
        }
    }

    /// Runs the brokers at a calibration's speeds: its factors join the scenario's, and a factor
    /// the scenario sets itself wins (the scenario is the more specific statement).
    pub fn add_calibration(&mut self, calibration: &crate::load::calibration::Calibration) {
        for (broker, factor) in &calibration.cpu_cost_factors {
            self.cpu_cost_factors
                .entry(broker.clone())
                .or_insert(*factor);
        }
    }
}

fn positive(x: f64, path: String, what: &str) -> Result<f64, ScenarioError> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(ScenarioError::malformed(
            path,
            format!("{what} must be > 0"),
        ))
    }
}

fn non_negative(x: f64, path: String) -> Result<f64, ScenarioError> {
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(ScenarioError::malformed(path, "must be >= 0"))
    }
}

// The file as written: every field optional (a `null` is an absent field), unknown keys refused
// (a typo in a scenario should not be silently ignored). The checks below turn it into a
// `Scenario` with the documented defaults.

/// Read first: a scenario of another version may differ anywhere else.
#[derive(Deserialize)]
struct RawHeader {
    #[serde(default)]
    format_version: Option<Count>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    #[allow(dead_code)] // checked from `RawHeader`
    format_version: Option<Count>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    snapshot: Option<String>,
    #[serde(default)]
    cycles: Option<Count>,
    /// `broker.conf` key → value, in document order.
    #[serde(default)]
    settings: Option<indexmap::IndexMap<String, ConfText>>,
    #[serde(default)]
    load: Option<Obj<RawLoad>>,
    #[serde(default)]
    events: Option<Vec<Obj<RawEvent>>>,
    #[serde(default)]
    metrics: Option<Obj<RawMetrics>>,
    #[serde(default)]
    compare: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLoad {
    #[serde(default)]
    growth_pct_per_cycle: Option<Finite>,
    #[serde(default)]
    daily_wave: Option<Obj<RawWave>>,
    #[serde(default)]
    spikes: Option<Vec<Obj<RawSpike>>>,
    #[serde(default)]
    noise_fraction: Option<Finite>,
    #[serde(default)]
    heap: Option<Obj<RawHeap>>,
    #[serde(default)]
    idle_cpu_fraction: Option<Finite>,
    #[serde(default)]
    cpu_cost_factors: Option<IndexMap<String, Finite>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWave {
    #[serde(default)]
    amplitude_fraction: Option<Finite>,
    #[serde(default)]
    period_minutes: Option<Finite>,
    #[serde(default)]
    phase_minutes: Option<Finite>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeap {
    #[serde(default)]
    min_fraction: Option<Finite>,
    #[serde(default)]
    max_fraction: Option<Finite>,
    #[serde(default)]
    period_cycles: Option<Count>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpike {
    #[serde(default)]
    bundles: Option<Vec<String>>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    top_bundles: Option<Count>,
    #[serde(default)]
    start_cycle: Option<Count>,
    #[serde(default)]
    end_cycle: Option<Count>,
    #[serde(default)]
    factor: Option<Finite>,
}

/// Every event's fields; which ones a kind allows is checked after reading ([`parse_event`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    #[serde(default)]
    cycle: Option<Count>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    broker: Option<String>,
    #[serde(default)]
    like: Option<String>,
    #[serde(default)]
    brokers: Option<Vec<String>>,
    #[serde(default)]
    interval_cycles: Option<Count>,
    #[serde(default)]
    key: Option<String>,
    /// `null` is a value here (refused by `ConfText`), not an absent field.
    #[serde(default, deserialize_with = "present")]
    value: Option<ConfText>,
}

/// A field that is there, even as `null` (which `T` then judges).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetrics {
    #[serde(default)]
    balanced_std_fraction: Option<Finite>,
    #[serde(default)]
    balanced_consecutive_cycles: Option<Count>,
    #[serde(default)]
    thrashing_window_cycles: Option<Count>,
}

fn f(x: Option<Finite>) -> Option<f64> {
    x.map(|x| x.0)
}

fn n(x: Option<Count>) -> Option<u32> {
    x.map(|x| x.0)
}

fn parse_load(raw: RawLoad, path: &str) -> Result<LoadSpec, ScenarioError> {
    let mut load = LoadSpec::steady();
    if let Some(g) = f(raw.growth_pct_per_cycle) {
        if g <= -100.0 {
            return Err(ScenarioError::malformed(
                format!("{path}.growth_pct_per_cycle"),
                "must be > -100",
            ));
        }
        load.growth_pct_per_cycle = g;
    }
    if let Some(n) = f(raw.noise_fraction) {
        if !(0.0..1.0).contains(&n) {
            return Err(ScenarioError::malformed(
                format!("{path}.noise_fraction"),
                "must be in [0, 1)",
            ));
        }
        load.noise_fraction = n;
    }
    if let Some(i) = f(raw.idle_cpu_fraction) {
        if !(0.0..=1.0).contains(&i) {
            return Err(ScenarioError::malformed(
                format!("{path}.idle_cpu_fraction"),
                "must be in [0, 1]",
            ));
        }
        load.idle_cpu_fraction = i;
    }
    for (broker, factor) in raw.cpu_cost_factors.into_iter().flatten() {
        let Some(x) = f(Some(factor)).filter(|x| *x > 0.0) else {
            return Err(ScenarioError::malformed(
                format!("{path}.cpu_cost_factors.{broker}"),
                "a CPU cost factor must be > 0",
            ));
        };
        load.cpu_cost_factors.insert(broker, x);
    }
    if let Some(Obj(w)) = raw.daily_wave {
        let p = format!("{path}.daily_wave");
        let amplitude = f(w.amplitude_fraction).unwrap_or(0.3);
        if !(0.0..1.0).contains(&amplitude) {
            return Err(ScenarioError::malformed(
                format!("{p}.amplitude_fraction"),
                "must be in [0, 1) so traffic stays positive",
            ));
        }
        let period = positive(
            f(w.period_minutes).unwrap_or(1440.0),
            format!("{p}.period_minutes"),
            "the period",
        )?;
        load.daily_wave = Some(DailyWave {
            amplitude_fraction: amplitude,
            period_minutes: period,
            phase_minutes: f(w.phase_minutes).unwrap_or(0.0),
        });
    }
    for (i, Obj(s)) in raw.spikes.unwrap_or_default().into_iter().enumerate() {
        load.spikes
            .push(parse_spike(s, &format!("{path}.spikes[{i}]"))?);
    }
    if let Some(Obj(h)) = raw.heap {
        let p = format!("{path}.heap");
        let min = non_negative(
            f(h.min_fraction).unwrap_or(0.3),
            format!("{p}.min_fraction"),
        )?;
        let max = f(h.max_fraction).unwrap_or(0.85);
        if max < min {
            return Err(ScenarioError::malformed(
                format!("{p}.max_fraction"),
                "must be >= min_fraction",
            ));
        }
        let period = n(h.period_cycles).unwrap_or(5);
        if period == 0 {
            return Err(ScenarioError::malformed(
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

fn parse_spike(raw: RawSpike, path: &str) -> Result<Spike, ScenarioError> {
    let bundles = raw.bundles.unwrap_or_default();
    let namespace = raw.namespace;
    let top = n(raw.top_bundles);
    let given = usize::from(!bundles.is_empty())
        + usize::from(namespace.is_some())
        + usize::from(top.is_some());
    if given != 1 {
        return Err(ScenarioError::malformed(
            path,
            "a spike needs exactly one of `bundles`, `namespace`, `top_bundles`",
        ));
    }
    let target = match (namespace, top) {
        (Some(ns), _) => SpikeTarget::Namespace(ns),
        (None, Some(n)) => SpikeTarget::TopBundles(n),
        (None, None) => SpikeTarget::Bundles(bundles),
    };
    let start = n(raw.start_cycle).unwrap_or(0);
    let end = n(raw.end_cycle).unwrap_or(u32::MAX);
    if end <= start {
        return Err(ScenarioError::malformed(
            format!("{path}.end_cycle"),
            "must be greater than start_cycle",
        ));
    }
    let factor = positive(
        f(raw.factor).unwrap_or(5.0),
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

/// The event fields each kind takes (besides `cycle` and `kind`).
const EVENT_FIELDS: &[(&str, &[&str])] = &[
    ("add_broker", &["broker", "like"]),
    ("remove_broker", &["broker"]),
    ("rolling_restart", &["brokers", "interval_cycles"]),
    ("set_config", &["key", "value"]),
];

fn parse_event(raw: RawEvent, path: &str) -> Result<Event, ScenarioError> {
    let cycle = n(raw.cycle)
        .ok_or_else(|| ScenarioError::malformed(format!("{path}.cycle"), "required"))?;
    let kind = raw
        .kind
        .ok_or_else(|| ScenarioError::malformed(format!("{path}.kind"), "required"))?;
    let Some((_, allowed)) = EVENT_FIELDS.iter().find(|(k, _)| *k == kind) else {
        return Err(ScenarioError::malformed(
            format!("{path}.kind"),
            format!(
                "unknown event `{kind}` (expected add_broker, remove_broker, rolling_restart, set_config)"
            ),
        ));
    };
    let given = [
        ("broker", raw.broker.is_some()),
        ("like", raw.like.is_some()),
        ("brokers", raw.brokers.is_some()),
        ("interval_cycles", raw.interval_cycles.is_some()),
        ("key", raw.key.is_some()),
        ("value", raw.value.is_some()),
    ];
    if let Some((key, _)) = given
        .iter()
        .find(|(k, there)| *there && !allowed.contains(k))
    {
        let mut known = vec!["cycle", "kind"];
        known.extend_from_slice(allowed);
        return Err(ScenarioError::malformed(
            format!("{path}.{key}"),
            format!("unknown field (expected one of: {})", known.join(", ")),
        ));
    }
    let need = |v: Option<String>, key: &str| {
        v.ok_or_else(|| ScenarioError::malformed(format!("{path}.{key}"), "required"))
    };
    let kind = match kind.as_str() {
        "add_broker" => EventKind::AddBroker {
            broker: need(raw.broker, "broker")?,
            like: raw.like,
        },
        "remove_broker" => EventKind::RemoveBroker {
            broker: need(raw.broker, "broker")?,
        },
        "rolling_restart" => {
            let interval = n(raw.interval_cycles).unwrap_or(1);
            if interval == 0 {
                return Err(ScenarioError::malformed(
                    format!("{path}.interval_cycles"),
                    "must be >= 1",
                ));
            }
            EventKind::RollingRestart {
                brokers: raw.brokers.unwrap_or_default(),
                interval_cycles: interval,
            }
        }
        _ => {
            let value = raw
                .value
                .ok_or_else(|| ScenarioError::malformed(format!("{path}.value"), "required"))?;
            let key = need(raw.key, "key")?;
            // A mistyped key would otherwise be ignored and the run would compare settings the
            // operator believes are applied: refused with the nearest known key, as `--set` is.
            crate::config::LoadBalancerConfig::check_key(&key)
                .map_err(|e| ScenarioError::malformed(format!("{path}.key"), e.to_string()))?;
            EventKind::SetConfig {
                key,
                value: value.0,
            }
        }
    };
    Ok(Event { cycle, kind })
}

fn parse_metrics(raw: RawMetrics, path: &str) -> Result<MetricsSpec, ScenarioError> {
    let consecutive = n(raw.balanced_consecutive_cycles);
    if consecutive == Some(0) {
        return Err(ScenarioError::malformed(
            format!("{path}.balanced_consecutive_cycles"),
            "must be >= 1",
        ));
    }
    Ok(MetricsSpec {
        balanced_std_fraction: f(raw.balanced_std_fraction)
            .map(|x| non_negative(x, format!("{path}.balanced_std_fraction")))
            .transpose()?,
        balanced_consecutive_cycles: consecutive,
        thrashing_window_cycles: n(raw.thrashing_window_cycles),
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
    pub fn from_json_text(text: &str) -> Result<Self, ScenarioError> {
        let not_json = |e: ReadError| {
            if e.syntax {
                ScenarioError::malformed("$", format!("not JSON: {}", e.message))
            } else {
                e.into()
            }
        };
        let header = typed_json::from_str::<Obj<RawHeader>>(text).map_err(not_json)?;
        check_version(header.value.0)?;
        let raw = typed_json::from_str::<Obj<RawScenario>>(text).map_err(not_json)?;
        Self::from_raw(raw.value.0)
    }

    /// Parses a scenario already parsed as JSON (the JavaScript API's `scenario` option).
    pub fn from_json(value: &Value) -> Result<Self, ScenarioError> {
        check_version(typed_json::from_value::<Obj<RawHeader>>(value)?.value.0)?;
        Self::from_raw(typed_json::from_value::<Obj<RawScenario>>(value)?.value.0)
    }

    fn from_raw(raw: RawScenario) -> Result<Self, ScenarioError> {
        let mut s = Scenario {
            name: raw.name.unwrap_or_else(|| "custom".to_string()),
            description: raw.description.unwrap_or_default(),
            snapshot: raw.snapshot,
            cycles: n(raw.cycles)
                .map(|c| check_cycles(c, "$.cycles"))
                .transpose()?,
            load: LoadSpec::steady(),
            ..Scenario::default()
        };
        s.settings = raw
            .settings
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, v.0))
            .collect();
        if let Some(Obj(load)) = raw.load {
            s.load = parse_load(load, "$.load")?;
        }
        let events = raw.events.unwrap_or_default();
        check_events(events.len(), "$.events")?;
        for (i, Obj(e)) in events.into_iter().enumerate() {
            s.events.push(parse_event(e, &format!("$.events[{i}]"))?);
        }
        if let Some(Obj(m)) = raw.metrics {
            s.metrics = parse_metrics(m, "$.metrics")?;
        }
        for (i, c) in raw.compare.unwrap_or_default().iter().enumerate() {
            s.compare.push(
                RunConfig::parse(c)
                    .map_err(|e| ScenarioError::malformed(format!("$.compare[{i}]"), e.why))?,
            );
        }
        Ok(s)
    }
}

/// `format_version` must be there and be the one this crate reads.
fn check_version(h: RawHeader) -> Result<(), ScenarioError> {
    match n(h.format_version) {
        Some(SCENARIO_FORMAT_VERSION) => Ok(()),
        Some(v) => Err(ScenarioError::malformed(
            "$.format_version",
            format!("expected {SCENARIO_FORMAT_VERSION}, found {v}"),
        )),
        None => Err(ScenarioError::malformed("$.format_version", "required")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_paths_are_precise() {
        let bad = r#"{"format_version":1,"load":{"spikes":[{"namespace":"a/b"},{"namespace":"a/b","factor":-1}]}}"#;
        match Scenario::from_json_text(bad) {
            Err(ScenarioError::Malformed { path, .. }) => {
                assert_eq!(path, "$.load.spikes[1].factor")
            }
            other => panic!("{other:?}"),
        }
        let bad = r#"{"format_version":1,"events":[{"cycle":3,"kind":"explode"}]}"#;
        match Scenario::from_json_text(bad) {
            Err(ScenarioError::Malformed { path, .. }) => assert_eq!(path, "$.events[0].kind"),
            other => panic!("{other:?}"),
        }
        assert!(Scenario::from_json_text(r#"{"format_version":2}"#).is_err());
        assert!(Scenario::from_json_text("[").is_err());
    }

    fn err(text: &str) -> String {
        Scenario::from_json_text(text).unwrap_err().to_string()
    }

    #[test]
    fn each_problem_is_named_with_its_path() {
        assert_eq!(
            err(r#"{"format_version":1,"load":{"noise_fraction":"x"}}"#),
            "$.load.noise_fraction: invalid type: string \"x\", expected a finite number"
        );
        assert_eq!(
            err(r#"{"format_version":1,"load":{"nois_fraction":0.1}}"#),
            "$.load.nois_fraction: unknown field `nois_fraction`, expected one of \
             `growth_pct_per_cycle`, `daily_wave`, `spikes`, `noise_fraction`, `heap`, \
             `idle_cpu_fraction`, `cpu_cost_factors`"
        );
        assert_eq!(
            err(
                r#"{"format_version":1,"events":[{"cycle":1,"kind":"remove_broker","broker":"b","like":"c"}]}"#
            ),
            "$.events[0].like: unknown field (expected one of: cycle, kind, broker)"
        );
        assert_eq!(
            err(
                r#"{"format_version":1,"events":[{"cycle":1,"kind":"set_config","key":"loadBalancerSheddingEnabled","value":null}]}"#
            ),
            "$.events[0].value: invalid type: null, expected a string, number or boolean"
        );
        assert_eq!(
            err(
                r#"{"format_version":1,"events":[{"cycle":1,"kind":"set_config","key":"loadBalancerSheddingEnabled"}]}"#
            ),
            "$.events[0].value: required"
        );
        assert_eq!(
            err(r#"{"format_version":1,"load":[0.1]}"#),
            "$.load: invalid type: sequence, expected an object"
        );
        assert_eq!(
            err(r#"{"format_version":1,"cycles":-1}"#),
            "$.cycles: invalid value: integer `-1`, expected a non-negative integer below 2^32"
        );
        assert_eq!(
            err(r#"{"format_version":2,"load":7}"#),
            "$.format_version: expected 1, found 2"
        );
        assert_eq!(err(r#"{"name":"x"}"#), "$.format_version: required");
        assert_eq!(err("[1]"), "$: invalid type: sequence, expected an object");
        assert_eq!(
            err("{\"format_version\": 1,\n"),
            "$: not JSON: EOF while parsing a value at line 2 column 0"
        );
        let s = Scenario::from_json_text(
            r#"{"format_version":1,"settings":{"loadBalancerSheddingEnabled":false,"loadBalancerBrokerOverloadedThresholdPercentage":85,"x":0.5}}"#,
        )
        .unwrap();
        assert_eq!(
            s.settings,
            [
                ("loadBalancerSheddingEnabled", "false"),
                ("loadBalancerBrokerOverloadedThresholdPercentage", "85"),
                ("x", "0.5")
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
    }

    #[test]
    fn a_mistyped_set_config_key_is_refused_with_the_nearest_key() {
        let bad = r#"{"format_version":1,"events":[{"cycle":2,"kind":"set_config","key":"loadBalancerShedingEnabled","value":"false"}]}"#;
        match Scenario::from_json_text(bad) {
            Err(ScenarioError::Malformed { path, message }) => {
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
