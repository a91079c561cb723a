//! `simulate`: the leader's loop over many cycles (core `simulate`), one or several configurations
//! side by side, from a snapshot object (or `builtin:demo|pr-16059|bench`) and an options object
//! (`scenario`, `cycles`, `seed`, `compare`, `settings`, `profile`, `recordBrokerUsage`, `recordOwnership`), each bad
//! field named by its path.

use lbplan_core::config::{Profile, json_to_conf_text};
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::{
    self, Comparison, RunConfig, RunOptions, Scenario, ScenarioError, builtin_scenario,
    builtin_scenario_names, builtin_snapshot_references, resolve_builtin_snapshot,
};
use serde_json::{Map, Value};

use crate::error::{ApiError, kind_of};
use crate::plan_options::{present, safe_integer};
use crate::snapshot_input::snapshot_from_value;

/// Cycles when neither the options nor the scenario say (as `lbplan simulate`).
pub const DEFAULT_CYCLES: u32 = 100;

const KNOWN: &[&str] = &[
    "scenario",
    "cycles",
    "seed",
    "compare",
    "settings",
    "profile",
    "recordBrokerUsage",
    "recordOwnership",
];

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
    let empty = Map::new();
    let map = match options {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => {
            return Err(ApiError::at(
                "options",
                format!("expected an object, found {}", kind_of(other)),
            ));
        }
    };
    if let Some(key) = map.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(ApiError::at(
            format!("options.{key}"),
            format!("unknown option (expected one of {})", KNOWN.join(", ")),
        ));
    }
    let mut scenario = match present(map, "scenario") {
        None => Scenario::steady(),
        Some(Value::String(name)) => builtin_scenario(name)
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
        Some(v @ Value::Object(_)) => {
            Scenario::from_json(v).map_err(|e| scenario_error(e, "options.scenario"))?
        }
        Some(other) => {
            return Err(ApiError::at(
                "options.scenario",
                format!(
                    "expected a built-in scenario name or a scenario object, found {}",
                    kind_of(other)
                ),
            ));
        }
    };
    if let Some(s) = present(map, "settings") {
        let Value::Object(m) = s else {
            return Err(ApiError::at(
                "options.settings",
                format!(
                    "expected an object of broker.conf keys to values, found {}",
                    kind_of(s)
                ),
            ));
        };
        for (k, v) in m {
            scenario
                .settings
                .push((k.clone(), conf_value(v, &format!("options.settings.{k}"))?));
        }
    }
    let profile = match present(map, "profile") {
        None => None,
        Some(p) => {
            let text = p.as_str().unwrap_or_default();
            Some(Profile::parse(text).ok_or_else(|| {
                ApiError::at(
                    "options.profile",
                    "expected 3.x, 4.x, 5.0 or master-90cba329".to_string(),
                )
            })?)
        }
    };
    let mut configs = match present(map, "compare") {
        None => scenario.compare.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| run_config(item, &format!("options.compare[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(other) => {
            return Err(ApiError::at(
                "options.compare",
                format!(
                    "expected an array of configurations, found {}",
                    kind_of(other)
                ),
            ));
        }
    };
    if let Some(p) = profile {
        if configs.is_empty() {
            configs.push(RunConfig::default());
        }
        for c in &mut configs {
            c.profile.get_or_insert(p);
        }
    }
    let cycles = match present(map, "cycles") {
        Some(v) => u32::try_from(safe_integer(v, "options.cycles")?)
            .map_err(|_| ApiError::at("options.cycles", "expected at most 4294967295"))?,
        None => scenario.cycles.unwrap_or(DEFAULT_CYCLES),
    };
    let seed = match present(map, "seed") {
        Some(v) => safe_integer(v, "options.seed")?,
        None => 0,
    };
    let flag = |key: &str| -> Result<bool, ApiError> {
        match present(map, key) {
            Some(v) => v.as_bool().ok_or_else(|| {
                ApiError::at(
                    format!("options.{key}"),
                    format!("expected a boolean, found {}", kind_of(v)),
                )
            }),
            None => Ok(false),
        }
    };
    let record_broker_usage = flag("recordBrokerUsage")?;
    let record_ownership = flag("recordOwnership")?;
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

fn conf_value(v: &Value, path: &str) -> Result<String, ApiError> {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Ok(json_to_conf_text(v)),
        other => Err(ApiError::at(
            path,
            format!(
                "expected a string, number or boolean, found {}",
                kind_of(other)
            ),
        )),
    }
}

/// A configuration: `name=N;profile=P;KEY=VALUE` text, or `{name?, profile?, settings?}`.
fn run_config(v: &Value, path: &str) -> Result<RunConfig, ApiError> {
    match v {
        Value::String(text) => {
            RunConfig::parse(text).map_err(|e| ApiError::at(path, e.to_string()))
        }
        Value::Object(m) => {
            if let Some(key) = m
                .keys()
                .find(|k| !["name", "profile", "settings"].contains(&k.as_str()))
            {
                return Err(ApiError::at(
                    format!("{path}.{key}"),
                    "unknown field (expected name, profile, settings)",
                ));
            }
            let mut c = RunConfig::default();
            if let Some(n) = present(m, "name") {
                c.name = n
                    .as_str()
                    .ok_or_else(|| ApiError::at(format!("{path}.name"), "expected a string"))?
                    .to_string();
            }
            if let Some(p) = present(m, "profile") {
                c.profile = Some(p.as_str().and_then(Profile::parse).ok_or_else(|| {
                    ApiError::at(
                        format!("{path}.profile"),
                        "expected 3.x, 4.x, 5.0 or master-90cba329",
                    )
                })?);
            }
            if let Some(s) = present(m, "settings") {
                let Value::Object(sm) = s else {
                    return Err(ApiError::at(
                        format!("{path}.settings"),
                        format!("expected an object, found {}", kind_of(s)),
                    ));
                };
                for (k, val) in sm {
                    c.settings
                        .push((k.clone(), conf_value(val, &format!("{path}.settings.{k}"))?));
                }
            }
            Ok(c)
        }
        other => Err(ApiError::at(
            path,
            format!(
                "expected `name=N;profile=P;KEY=VALUE` text or {{name, profile, settings}}, found {}",
                kind_of(other)
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
            c.format_version, 2,
            "comparison format 2: bytes moved, over-capacity counts"
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
