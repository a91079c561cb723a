//! Conformance of the four modular shedding strategies: (a) every oracle `shedding` scenario,
//! replayed through `lbplan_core::replay::replay` and compared per cycle, each broker's unload list
//! as a set; (b) every vector of `pulsar-unit-tests/{threshold_shedder,overload_shedder,
//! uniform_load_shedder,avg_shedder}`, with the expectations Pulsar's own tests assert.

mod support;

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::model::{BundleData, LocalBrokerData, TimeAverageBrokerData};
use lbplan_core::modular::placement::PlacementStrategy;
use lbplan_core::modular::shedding::{
    AvgShedder, LoadSheddingStrategy, SheddingSelection, shedder_by_name,
};
use lbplan_core::modular::{BrokerData, LoadData};
use lbplan_core::rng::SeededPicker;
use serde_json::{Value, json};
use support::{
    KnownDivergences, Suite, Tally, UnknownKeys, config_from, conformance_dir, cycles,
    doc_and_steps, file_name, merge_patch, paired, read_json, string_set, strings, unload_sets,
    vectors_in,
};

/// Vectors that cannot pass, with the reason. Each still counts in the totals.
const KNOWN_DIVERGENCES: KnownDivergences = &[];

// ---------------------------------------------------------------------------------------------
// (a) oracle scenarios

fn compare_oracle(file: &Value) -> Result<(), String> {
    let got = lbplan_core::replay::replay(file, None, 0).map_err(|e| format!("replay: {e}"))?;
    let expected = file
        .pointer("/oracle_output/cycles")
        .and_then(Value::as_array)
        .ok_or("no oracle_output.cycles")?;
    for (i, (a, e)) in paired(cycles(&got), expected, "cycles")? {
        let (e, a) = (unload_sets(e.get("unload")), unload_sets(a.get("unload")));
        if e != a {
            let brokers: BTreeSet<&String> = e.keys().chain(a.keys()).collect();
            for b in brokers {
                let (eb, ab) = (e.get(b), a.get(b));
                if eb != ab {
                    return Err(format!(
                        "cycle {i}: broker {b}: expected {:?}, got {:?}",
                        eb.cloned().unwrap_or_default(),
                        ab.cloned().unwrap_or_default()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn oracle_shedding_scenarios() {
    let mut by_strategy = Tally::new(KNOWN_DIVERGENCES);
    let mut all = Suite::new("oracle shedding", KNOWN_DIVERGENCES);
    for path in vectors_in("oracle") {
        let file = read_json(&path);
        if file.pointer("/scenario/kind").and_then(Value::as_str) != Some("shedding") {
            continue;
        }
        let strategy = file
            .pointer("/scenario/strategy")
            .and_then(Value::as_str)
            .map(|s| s.rsplit('.').next().unwrap_or(s).to_string())
            .unwrap_or_default();
        let (name, result) = (file_name(&path), compare_oracle(&file));
        by_strategy.record(
            &format!("oracle shedding {strategy}"),
            &name,
            result.clone(),
        );
        all.record(&name, result);
    }
    // The breakdown is informational; `all` judges.
    by_strategy.print_counts();
    all.finish();
}

// ---------------------------------------------------------------------------------------------
// (b) Pulsar unit-test vectors

fn build_load_data(input: &Value, args: &Value) -> Result<LoadData, String> {
    let mut data = LoadData::default();
    for (name, b) in input["bundles"].as_object().into_iter().flatten() {
        let bd: BundleData =
            serde_json::from_value(b.clone()).map_err(|e| format!("bundle {name}: {e}"))?;
        data.bundle_data.insert(name.clone(), bd);
    }
    for (name, b) in input["brokers"].as_object().into_iter().flatten() {
        let local: LocalBrokerData =
            serde_json::from_value(b.clone()).map_err(|e| format!("broker {name}: {e}"))?;
        let time_average = match b.get("timeAverageData") {
            Some(t) => serde_json::from_value(t.clone()).map_err(|e| format!("{name}: {e}"))?,
            None => TimeAverageBrokerData::from_bundles(
                local.bundles.iter().map(String::as_str),
                &data.bundle_data,
            ),
        };
        let preallocated: IndexMap<String, BundleData> = match b.get("preallocatedBundleData") {
            Some(p) => serde_json::from_value(p.clone()).map_err(|e| format!("{name}: {e}"))?,
            None => IndexMap::new(),
        };
        data.brokers.insert(
            name.clone(),
            BrokerData {
                local,
                time_average,
                preallocated,
            },
        );
    }
    for (name, at) in args["recentlyUnloadedBundles"]
        .as_object()
        .into_iter()
        .flatten()
    {
        data.recently_unloaded
            .insert(name.clone(), at.as_i64().unwrap_or(0));
    }
    Ok(data)
}

enum Instance {
    Avg(Box<AvgShedder>),
    Other(Box<dyn LoadSheddingStrategy>),
}

impl Instance {
    fn new(algorithm: &str, profile: Profile) -> Result<Self, String> {
        if algorithm == "AvgShedder" {
            return Ok(Instance::Avg(Box::new(AvgShedder::new(profile))));
        }
        shedder_by_name(algorithm, profile)
            .map(Instance::Other)
            .ok_or_else(|| format!("unknown algorithm {algorithm}"))
    }

    fn shed(&mut self, data: &LoadData, cfg: &LoadBalancerConfig) -> Vec<SheddingSelection> {
        match self {
            Instance::Avg(s) => s.find_bundles_for_unloading(data, cfg),
            Instance::Other(s) => s.find_bundles_for_unloading(data, cfg),
        }
    }
}

fn result_map(decisions: &[SheddingSelection]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in decisions {
        out.entry(d.broker.clone())
            .or_default()
            .push(d.bundle.clone());
    }
    out
}

fn check_expected(
    expected: &Value,
    decisions: &[SheddingSelection],
    instance: &mut Instance,
    data: &LoadData,
    cfg: &LoadBalancerConfig,
) -> Result<(), String> {
    let got = result_map(decisions);
    let Some(exp) = expected.as_object() else {
        return Err("expected is not an object".into());
    };
    let order_matters = exp
        .get("result_order_matters")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    for (key, want) in exp {
        match key.as_str() {
            "result_order_matters" => {}
            "empty" => {
                let want = want.as_bool().ok_or("empty: not a bool")?;
                if decisions.is_empty() != want {
                    return Err(format!("empty: expected {want}, got {got:?}"));
                }
            }
            "result" => {
                let want_map: BTreeMap<String, Vec<String>> = want
                    .as_object()
                    .ok_or("result: not an object")?
                    .iter()
                    .map(|(b, list)| (b.clone(), strings(list)))
                    .collect();
                let same = if order_matters {
                    want_map == got
                } else {
                    let as_sets = |m: &BTreeMap<String, Vec<String>>| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), v.iter().cloned().collect::<BTreeSet<_>>()))
                            .collect::<BTreeMap<_, _>>()
                    };
                    as_sets(&want_map) == as_sets(&got)
                };
                if !same {
                    return Err(format!("result: expected {want_map:?}, got {got:?}"));
                }
            }
            "result_size" => {
                let n = want.as_u64().ok_or("result_size: not a number")?;
                if decisions.len() as u64 != n {
                    return Err(format!(
                        "result_size: expected {n}, got {}",
                        decisions.len()
                    ));
                }
            }
            "result_brokers" => {
                let want = string_set(Some(want));
                let have: BTreeSet<String> = got.keys().cloned().collect();
                if want != have {
                    return Err(format!("result_brokers: expected {want:?}, got {have:?}"));
                }
            }
            "result_count_by_broker" => {
                let want: BTreeMap<String, u64> = want
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(u64::MAX)))
                    .collect();
                let have: BTreeMap<String, u64> = got
                    .iter()
                    .map(|(k, v)| (k.clone(), v.len() as u64))
                    .collect();
                if want != have {
                    return Err(format!(
                        "result_count_by_broker: expected {want:?}, got {have:?}"
                    ));
                }
            }
            "planned_destination" => {
                let Instance::Avg(avg) = instance else {
                    return Err("planned_destination on a strategy that is not AvgShedder".into());
                };
                let candidates: Vec<String> = data.brokers.keys().cloned().collect();
                let mut picker = SeededPicker::new(0);
                for d in decisions {
                    let expected_dest = if let Some(all) = want.get("all").and_then(Value::as_str) {
                        all.to_string()
                    } else {
                        want.get("by_prefix")
                            .and_then(Value::as_object)
                            .and_then(|m| {
                                m.iter()
                                    .find(|(p, _)| d.bundle.starts_with(p.as_str()))
                                    .and_then(|(_, b)| b.as_str().map(str::to_string))
                            })
                            .ok_or_else(|| {
                                format!("no planned destination rule for {}", d.bundle)
                            })?
                    };
                    let bundle_data = data
                        .bundle_data
                        .get(&d.bundle)
                        .ok_or_else(|| format!("no bundle data for {}", d.bundle))?;
                    let choice = avg.select_broker(
                        &candidates,
                        &d.bundle,
                        bundle_data,
                        data,
                        cfg,
                        &mut picker,
                    );
                    let got_dest = choice.map(|c| c.broker).unwrap_or_default();
                    if got_dest != expected_dest {
                        return Err(format!(
                            "planned_destination of {}: expected {expected_dest}, got {got_dest}",
                            d.bundle
                        ));
                    }
                }
            }
            other => return Err(format!("unhandled expectation key `{other}`")),
        }
    }
    Ok(())
}

/// Runs one vector (single call or `steps`) with the given profile; returns each step's decisions.
fn run_unit_vector(v: &Value, profile: Profile) -> Result<Vec<Vec<SheddingSelection>>, String> {
    let algorithm = v["algorithm"].as_str().ok_or("no algorithm")?;
    let (mut input, steps) = doc_and_steps(v);
    let expected_steps: Vec<Value> = match v.pointer("/expected/steps").and_then(Value::as_array) {
        Some(s) => s.clone(),
        None => vec![v["expected"].clone()],
    };
    if expected_steps.len() != steps.len() {
        return Err("steps and expected.steps differ in length".into());
    }
    let mut instance = Instance::new(algorithm, profile)?;
    let mut all = Vec::new();
    for (i, (step, expected)) in steps.iter().zip(&expected_steps).enumerate() {
        if step.get("reset_state").and_then(Value::as_bool) == Some(true) {
            instance = Instance::new(algorithm, profile)?;
        }
        if step.get("state").is_some() {
            return Err(format!(
                "step {i}: preset `state` is not supported by this runner"
            ));
        }
        if let Some(patch) = step.get("patch") {
            merge_patch(&mut input, patch);
        }
        let mut args = input["args"].clone();
        if let Some(extra) = step.get("args").and_then(Value::as_object) {
            for (k, a) in extra {
                args[k] = a.clone();
            }
        }
        let cfg = config_from(
            LoadBalancerConfig::for_profile(Profile::Master90cba329),
            input.get("config"),
            UnknownKeys::Reject,
        )?;
        let data = build_load_data(&input, &args)?;
        let decisions = instance.shed(&data, &cfg);
        check_expected(expected, &decisions, &mut instance, &data, &cfg)
            .map_err(|e| format!("step {i}: {e}"))?;
        all.push(decisions);
    }
    Ok(all)
}

fn unit_suite(dir_name: &str) {
    Suite::new(dir_name, KNOWN_DIVERGENCES).run_files(
        &vectors_in(&format!("pulsar-unit-tests/{dir_name}")),
        |path, _| file_name(path),
        |_, v| run_unit_vector(v, Profile::Master90cba329).map(drop),
    );
}

#[test]
fn unit_threshold_shedder() {
    unit_suite("threshold_shedder");
}

#[test]
fn unit_overload_shedder() {
    unit_suite("overload_shedder");
}

#[test]
fn unit_uniform_load_shedder() {
    unit_suite("uniform_load_shedder");
}

#[test]
fn unit_avg_shedder() {
    unit_suite("avg_shedder");
}

/// `uniform_load_shedder/broker_with_multiple_bundles` is the vector where master and branch-4.0
/// differ (reference §7.3): master (the vector's commit) unloads 1 bundle, the 4.0.x "+1000 delta"
/// lets a second one fit.
#[test]
fn uniform_broker_with_multiple_bundles_master_vs_4x() {
    let path = conformance_dir()
        .join("pulsar-unit-tests/uniform_load_shedder/broker_with_multiple_bundles.json");
    let v = read_json(&path);
    let master = run_unit_vector(&v, Profile::Master90cba329).unwrap_or_else(|e| panic!("{e}"));
    let master_bundles: Vec<&str> = master.iter().flatten().map(|d| d.bundle.as_str()).collect();
    assert_eq!(master_bundles, vec!["bundle-10"], "master: one bundle");

    let v4 = run_unit_vector(&v, Profile::Pulsar4x).unwrap_or_else(|e| panic!("{e}"));
    let v4_decisions: Vec<&SheddingSelection> = v4.iter().flatten().collect();
    assert_eq!(
        v4_decisions.len(),
        2,
        "4.x: the +1000 delta admits a second bundle"
    );
    assert_eq!(
        v4_decisions.first().map(|d| d.bundle.as_str()),
        Some("bundle-10")
    );
    assert!(v4_decisions.iter().all(|d| d.broker == "broker-1"));
}

/// Malformed scenarios give `ReplayError::Malformed` naming the JSON path of the bad value.
#[test]
fn malformed_shedding_scenarios_name_the_json_path() {
    use lbplan_core::replay::{ReplayError, replay};
    let broker =
        json!({"name": "b1:8080", "cpu": {"usage": 10, "limit": 100}, "bundles": ["t/ns/a"]});
    let cases = [
        (
            json!({"scenario": {"kind": "shedding", "strategy": "ThresholdShedder", "config": {},
                "cycles": [{"brokers": [broker.clone(), {"name": "b2:8080", "cpu": {"usage": "high", "limit": 100}}], "bundles": {}}]}}),
            "$.scenario.cycles[0].brokers[1].cpu.usage",
        ),
        (
            json!({"scenario": {"kind": "shedding", "strategy": "LeastLongTermMessageRate", "cycles": []}}),
            "$.scenario.strategy",
        ),
        (
            json!({"scenario": {"kind": "shedding", "strategy": "AvgShedder",
                "config": {"loadBalancerAvgShedderLowThreshold": "low"}, "cycles": []}}),
            "$.scenario.config.loadBalancerAvgShedderLowThreshold",
        ),
        (
            json!({"kind": "shedding", "strategy": "OverloadShedder",
                "cycles": [{"brokers": [broker.clone()], "bundles": {"t/ns/a": {"shortTermData": {"msgRateIn": []}}}}]}),
            "$.cycles[0].bundles[\"t/ns/a\"].shortTermData.msgRateIn",
        ),
        (
            json!({"kind": "shedding", "strategy": "UniformLoadShedder",
                "cycles": [{"brokers": [broker.clone(), broker.clone()], "bundles": {}}]}),
            "$.cycles[0].brokers[1].name",
        ),
        (
            json!({"kind": "shedding", "strategy": "ThresholdShedder",
                "cycles": [{"brokers": [broker], "recentlyUnloadedBundles": 5}]}),
            "$.cycles[0].recentlyUnloadedBundles",
        ),
        (
            json!({"kind": "shedding", "strategy": "ThresholdShedder", "cycles": {}}),
            "$.cycles",
        ),
    ];
    for (scenario, want_path) in cases {
        match replay(&scenario, None, 0) {
            Err(ReplayError::Malformed { path, .. }) => assert_eq!(path, want_path),
            other => panic!("expected Malformed at {want_path}, got {other:?}"),
        }
    }
}

/// The replay output has the oracle's shape: `kind` and one `unload` map per cycle.
#[test]
fn replay_output_shape() {
    let path = conformance_dir().join("oracle/handmade-avg_1_high_hits.json");
    let file = read_json(&path);
    let out = lbplan_core::replay::replay(&file, None, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out["kind"], "shedding");
    let cycles = out["cycles"].as_array().map_or(0, Vec::len);
    assert_eq!(
        cycles,
        file.pointer("/scenario/cycles")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    );
    // The scenario's description: counters reach 2 in cycle 1, which unloads from b1.
    assert!(
        out["cycles"][0]["unload"]
            .as_object()
            .is_some_and(|m| m.is_empty())
    );
    assert!(
        out["cycles"][1]["unload"]["b1:8080"]
            .as_array()
            .is_some_and(|l| !l.is_empty())
    );
}
