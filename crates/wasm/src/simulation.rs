//! `simulate`: the leader's loop over many cycles (core `simulate`), one or several configurations
//! side by side, from a snapshot object (or `builtin:demo|pr-16059|bench`) and an options object
//! (`scenario`, `cycles`, `seed`, `compare`, `settings`, `profile`, `recordBrokerUsage`, `recordOwnership`), each bad
//! field named by its path.

use lbplan_core::config::Profile;
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::ScenarioError;
use lbplan_core::simulate::{
    self, Comparison, RunConfig, RunOptions, Scenario, builtin_scenario, builtin_scenario_names,
    builtin_snapshot_references, resolve_builtin_snapshot,
};
use lbplan_core::typed_json;
use serde::Deserialize;
use serde::de::{self, Visitor};
use serde_json::Value;

use crate::error::{ApiError, kind_of};
use crate::options::{self, Flag, List, SafeInt, Settings, Text};
use crate::snapshot_input::snapshot_from_value;

/// Cycles when neither the options nor the scenario say (as `lbplan simulate`).
pub const DEFAULT_CYCLES: u32 = 100;

/// `simulate()`'s options as the caller wrote them (`SimulateOptions` in the declarations).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SimulateOptions {
    scenario: Option<ScenarioInput>,
    cycles: Option<SafeInt>,
    seed: Option<SafeInt>,
    compare: Option<List<RunConfigInput>>,
    settings: Option<Settings>,
    /// Any value: a wrong one gets the profile message, whatever its type.
    profile: Option<Value>,
    record_broker_usage: Option<Flag>,
    record_ownership: Option<Flag>,
    /// Read by `calibration_option` (listed so it is not refused as unknown).
    #[allow(dead_code)]
    calibration: Option<Value>,
}

/// `scenario`: a built-in scenario's name or a scenario object (read by core, which names paths
/// inside it), or what came instead.
#[derive(Debug)]
enum ScenarioInput {
    Name(String),
    Object(Value),
    Not(&'static str),
}

impl<'de> Deserialize<'de> for ScenarioInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(name) => ScenarioInput::Name(name),
            v @ Value::Object(_) => ScenarioInput::Object(v),
            other => ScenarioInput::Not(kind_of(&other)),
        })
    }
}

/// A configuration: `name=N;profile=P;KEY=VALUE` text, or `{name?, profile?, settings?}`.
#[derive(Debug)]
enum RunConfigInput {
    Text(String),
    Object(RunConfigObject),
    Not(&'static str),
}

#[derive(Debug, Default, Deserialize)]
struct RunConfigObject {
    name: Option<Text>,
    /// Any value: a wrong one gets the profile message, whatever its type.
    profile: Option<Value>,
    settings: Option<Settings>,
}

impl<'de> Deserialize<'de> for RunConfigInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RunConfigInput;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("configuration text or object")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<RunConfigInput, E> {
                Ok(RunConfigInput::Not("a boolean"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<RunConfigInput, E> {
                Ok(RunConfigInput::Not("a number"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<RunConfigInput, E> {
                Ok(RunConfigInput::Not("a number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<RunConfigInput, E> {
                Ok(RunConfigInput::Not("a number"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<RunConfigInput, E> {
                Ok(RunConfigInput::Not("null"))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RunConfigInput, E> {
                Ok(RunConfigInput::Text(s.to_string()))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RunConfigInput, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(RunConfigInput::Not("an array"))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RunConfigInput, A::Error> {
                RunConfigObject::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RunConfigInput::Object)
            }
        }
        d.deserialize_any(V)
    }
}

/// Everything a simulation needs, parsed.
pub struct SimulationInput {
    pub snapshot: Snapshot,
    pub scenario: Scenario,
    pub configs: Vec<RunConfig>,
    pub opts: RunOptions,
}

/// `snapshot`: a snapshot object, or `builtin:NAME` (a synthetic cluster); `null` takes the
/// scenario's own snapshot (the built-in scenarios name one).
pub fn simulation_input(snapshot: &Value, options: &Value) -> Result<SimulationInput, ApiError> {
    let (o, unknown) = options::read::<SimulateOptions>(options)?;
    let nested = format!(
        "expected {}",
        typed_json::field_names::<RunConfigObject>().join(", ")
    );
    options::refuse_unknown::<SimulateOptions>(&unknown, &nested)?;
    let mut scenario = match o.scenario {
        None => Scenario::steady(),
        Some(ScenarioInput::Name(name)) => builtin_scenario(&name)
            .ok_or_else(|| {
                ApiError::at(
                    "options.scenario",
                    format!(
                        "unknown built-in scenario `{name}` (expected {}, or a scenario object)",
                        builtin_scenario_names().join(", ")
                    ),
                )
            })?
            .map_err(|e| scenario_error(e, "options.scenario"))?,
        Some(ScenarioInput::Object(v)) => {
            Scenario::from_json(&v).map_err(|e| scenario_error(e, "options.scenario"))?
        }
        Some(ScenarioInput::Not(kind)) => {
            return Err(ApiError::at(
                "options.scenario",
                format!("expected a built-in scenario name or a scenario object, found {kind}"),
            ));
        }
    };
    if let Some(Settings(s)) = o.settings {
        scenario.settings.extend(s);
    }
    if let Some(c) = crate::calibration_option::calibration(options)? {
        scenario.load.add_calibration(&c);
    }
    let profile = o
        .profile
        .filter(|p| !p.is_null())
        .map(|p| profile(&p, "options.profile"))
        .transpose()?;
    let mut configs = match o.compare {
        None => scenario.compare.clone(),
        Some(list) => list
            .items("options.compare", "an array of configurations")?
            .into_iter()
            .enumerate()
            .map(|(i, item)| run_config(item, &format!("options.compare[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if let Some(p) = profile {
        if configs.is_empty() {
            configs.push(RunConfig::default());
        }
        for c in &mut configs {
            c.profile.get_or_insert(p);
        }
    }
    let cycles = match o.cycles {
        Some(SafeInt(n)) => u32::try_from(n)
            .map_err(|_| ApiError::at("options.cycles", "expected at most 4294967295"))?,
        None => scenario.cycles.unwrap_or(DEFAULT_CYCLES),
    };
    let seed = o.seed.map_or(0, |SafeInt(s)| s);
    let record_broker_usage = o.record_broker_usage.is_some_and(|Flag(b)| b);
    let record_ownership = o.record_ownership.is_some_and(|Flag(b)| b);
    let snapshot = match snapshot {
        Value::String(s) => builtin(s)?,
        Value::Null => match &scenario.snapshot {
            Some(s) => builtin(s)?,
            None => {
                return Err(ApiError::at(
                    "$",
                    "no snapshot given and the scenario names none (try \"builtin:demo\")",
                ));
            }
        },
        other => snapshot_from_value(other)?.0,
    };
    Ok(SimulationInput {
        snapshot,
        scenario,
        configs,
        opts: RunOptions {
            cycles,
            seed,
            record_broker_usage,
            record_ownership,
        },
    })
}

/// A profile given as any value: a string naming a Pulsar release or a line (core resolves it).
fn profile(v: &Value, path: &str) -> Result<Profile, ApiError> {
    let text = v
        .as_str()
        .ok_or_else(|| ApiError::at(path, "expected a Pulsar version such as 4.0.7 or 4.x"))?;
    lbplan_core::release::resolve_version(text)
        .map(|m| Profile::of_release(m.release))
        .map_err(|e| ApiError::at(path, e.to_string()))
}

/// Runs the simulation; `progress(done, total)` returning `false` stops it (the run says
/// `cancelled`).
pub fn run(
    input: &SimulationInput,
    progress: &mut dyn FnMut(u32, u32) -> bool,
) -> Result<Comparison, ApiError> {
    simulate::compare(
        &input.snapshot,
        &input.scenario,
        &input.configs,
        input.opts,
        progress,
    )
    .map_err(|e| ApiError::whole(e.to_string()))
}

fn builtin(text: &str) -> Result<Snapshot, ApiError> {
    match resolve_builtin_snapshot(text) {
        Ok(Some(snapshot)) => Ok(snapshot),
        Ok(None) => Err(ApiError::at(
            "$",
            format!(
                "`{}` is not a snapshot (pass a snapshot object, or one of {})",
                text.escape_default(),
                builtin_snapshot_references()
            ),
        )),
        Err(e) => Err(ApiError::at("$", e.to_string())),
    }
}

/// A scenario's own path (`$.load.noise_fraction`) placed under the option that carried it.
fn scenario_error(e: ScenarioError, at: &str) -> ApiError {
    let path = e.path();
    let rest = path.strip_prefix('$').unwrap_or(path);
    ApiError::at(format!("{at}{rest}"), e.message())
}

/// A configuration: `name=N;profile=P;KEY=VALUE` text, or `{name?, profile?, settings?}`.
fn run_config(item: RunConfigInput, path: &str) -> Result<RunConfig, ApiError> {
    match item {
        RunConfigInput::Text(text) => {
            RunConfig::parse(&text).map_err(|e| ApiError::at(path, e.to_string()))
        }
        RunConfigInput::Object(o) => {
            let mut c = RunConfig::default();
            if let Some(Text(name)) = o.name {
                c.name = name;
            }
            if let Some(p) = o.profile.filter(|p| !p.is_null()) {
                c.profile = Some(profile(&p, &format!("{path}.profile"))?);
            }
            if let Some(Settings(s)) = o.settings {
                c.settings = s;
            }
            Ok(c)
        }
        RunConfigInput::Not(kind) => Err(ApiError::at(
            path,
            format!(
                "expected `name=N;profile=P;KEY=VALUE` text or {{name, profile, settings}}, found {kind}"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    #[test]
    fn runs_a_builtin_scenario_on_the_demo_with_progress() {
        let snapshot: Value = serde_json::from_str(DEMO).unwrap();
        let input = simulation_input(
            &snapshot,
            &json!({"scenario": "steady", "cycles": 5, "seed": 3,
                    "compare": ["name=tlr", {"name": "uniform", "settings": {"loadBalancerLoadSheddingStrategy": "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder"}}]}),
        )
        .unwrap();
        let mut calls = Vec::new();
        let c = run(&input, &mut |done, total| {
            calls.push((done, total));
            true
        })
        .unwrap();
        assert_eq!(
            c.format_version, 3,
            "comparison format 3: each run's release and why"
        );
        assert_eq!(c.cycles, 5);
        assert_eq!(c.seed, 3);
        assert_eq!(c.runs.len(), 2);
        assert_eq!(c.runs[0].config.name, "tlr");
        assert_eq!(c.runs[1].config.name, "uniform");
        assert_eq!(c.runs[0].cycles.len(), 5);
        assert_eq!(calls.last(), Some(&(10, 10)));
    }

    #[test]
    fn progress_can_cancel() {
        let input = simulation_input(&json!("builtin:demo"), &json!({"cycles": 10})).unwrap();
        let c = run(&input, &mut |done, _| done < 3).unwrap();
        assert!(c.runs[0].cancelled);
        assert_eq!(c.runs[0].cycles.len(), 3);
    }

    #[test]
    fn errors_name_the_path() {
        let path = |s: Value, o: Value| match simulation_input(&s, &o) {
            Err(e) => e.path,
            Ok(_) => "ok".to_string(),
        };
        let demo = json!("builtin:demo");
        assert_eq!(
            path(demo.clone(), json!({"scenario": "nope"})),
            "options.scenario"
        );
        assert_eq!(
            path(
                demo.clone(),
                json!({"scenario": {"format_version": 1, "load": {"noise_fraction": "x"}}})
            ),
            "options.scenario.load.noise_fraction"
        );
        assert_eq!(path(demo.clone(), json!({"cycles": -2})), "options.cycles");
        assert_eq!(
            path(demo.clone(), json!({"compare": [7]})),
            "options.compare[0]"
        );
        assert_eq!(
            path(demo.clone(), json!({"compare": ["nonsense"]})),
            "options.compare[0]"
        );
        assert_eq!(path(demo.clone(), json!({"cylces": 2})), "options.cylces");
        assert_eq!(path(json!("builtin:nope"), json!({})), "$");
        assert_eq!(path(Value::Null, json!({})), "$");
        assert_eq!(
            path(json!({"format_version": 1, "brokers": 3}), json!({})),
            "$.brokers"
        );
    }
}
