//! Conformance of the modular placement strategies and the candidate pipeline against
//! `oracle/*.json` (kind `placement`) and `pulsar-unit-tests/placement/` (modular vectors).

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use indexmap::IndexMap;
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::model::{BundleData, LocalBrokerData, TimeAverageBrokerData};
use lbplan_core::modular::pipeline::{
    PlacementContext, remove_most_servicing_brokers_for_namespace,
};
use lbplan_core::modular::placement::java_order::JavaHashSet;
use lbplan_core::modular::placement::{
    LeastLongTermMessageRate, LeastResourceUsageWithWeight, PlacementStrategy,
};
use lbplan_core::modular::shedding::AvgShedder;
use lbplan_core::modular::{BrokerData, LoadData};
use lbplan_core::replay::{Picks, replay};
use lbplan_core::rng::SeededPicker;
use serde_json::Value;
use support::{
    KnownDivergences, Suite, Tally, UnknownKeys, config_from, cycles, doc_and_steps, file_name,
    file_stem, list, merge_patch, paired, read_json, string_set, strings, unload_sets, vectors_in,
};

/// Vectors that cannot pass, with the reason (kept in the counts).
const KNOWN_DIVERGENCES: KnownDivergences = &[];

/// Compares one replay output with the oracle. `exact_picks`: outside picks were given, so every
/// selection must equal Pulsar's; otherwise comparison stops at the first random pick that differs.
fn compare_oracle(ours: &Value, oracle: &Value, exact_picks: bool) -> Result<(), String> {
    for (ci, (ours, theirs)) in paired(cycles(ours), cycles(oracle), "cycles")? {
        if let Some(unload) = theirs.get("unload") {
            let (a, b) = (unload_sets(ours.get("unload")), unload_sets(Some(unload)));
            if a != b {
                return Err(format!("cycle {ci}: unload {a:?}, oracle {b:?}"));
            }
        }
        let assignments = paired(
            list(ours, "assignments"),
            list(theirs, "assignments"),
            "assignments",
        )
        .map_err(|e| format!("cycle {ci}: {e}"))?;
        for (ai, (o, t)) in assignments {
            let here = format!(
                "cycle {ci} assignment {ai} ({})",
                t.get("bundle").and_then(Value::as_str).unwrap_or("?")
            );
            let (oc, tc) = (
                string_set(o.get("choice_set")),
                string_set(t.get("choice_set")),
            );
            let osel = o.get("selected").and_then(Value::as_str).unwrap_or("");
            let tsel = t.get("selected").and_then(Value::as_str).unwrap_or("");
            if oc != tc {
                return Err(format!("{here}: choice_set {oc:?}, oracle {tc:?}"));
            }
            if !oc.contains(osel) {
                return Err(format!("{here}: selected {osel} not in its choice set"));
            }
            if (tc.len() == 1 || exact_picks) && osel != tsel {
                return Err(format!("{here}: selected {osel}, oracle {tsel}"));
            }
            if exact_picks && let Some(stages) = t.get("pipeline_stages").and_then(Value::as_object)
            {
                for (stage, list) in stages {
                    let ours_stage =
                        string_set(o.get("pipeline_stages").and_then(|s| s.get(stage)));
                    if ours_stage != string_set(Some(list)) {
                        return Err(format!(
                            "{here}: {stage} {ours_stage:?}, oracle {:?}",
                            string_set(Some(list))
                        ));
                    }
                }
            }
            if !exact_picks && osel != tsel {
                // Later steps depend on this pick (preallocation, remembered destinations).
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Outside picks: the oracle's selected broker for every assignment.
fn picks_from_oracle(oracle: &Value) -> Picks {
    Picks {
        cycles: cycles(oracle)
            .iter()
            .map(|c| {
                list(c, "assignments")
                    .iter()
                    .map(|a| {
                        a.get("selected")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string()
                    })
                    .collect()
            })
            .collect(),
    }
}

fn oracle_suite_name(scenario: &Value) -> String {
    if scenario.get("pipeline").and_then(Value::as_bool) == Some(true) {
        return "pipeline".to_string();
    }
    let s = scenario
        .get("strategy")
        .and_then(Value::as_str)
        .unwrap_or("?");
    s.rsplit('.').next().unwrap_or(s).to_string()
}

#[test]
fn oracle_placement_scenarios() {
    let mut tally = Tally::new(KNOWN_DIVERGENCES);
    for path in vectors_in("oracle") {
        let file = read_json(&path);
        let Some(scenario) = file.get("scenario") else {
            continue;
        };
        if scenario.get("kind").and_then(Value::as_str) != Some("placement") {
            continue;
        }
        let name = file_name(&path);
        let suite = oracle_suite_name(scenario);
        let oracle = file.get("oracle_output").cloned().unwrap_or(Value::Null);

        let seeded = replay(&file, None, 0)
            .map_err(|e| format!("replay failed: {e}"))
            .and_then(|ours| compare_oracle(&ours, &oracle, false));
        tally.record(
            &format!("oracle placement, seeded ({suite})"),
            &name,
            seeded,
        );

        let picks = picks_from_oracle(&oracle);
        let picked = replay(&file, Some(&picks), 0)
            .map_err(|e| format!("replay failed: {e}"))
            .and_then(|ours| compare_oracle(&ours, &oracle, true));
        tally.record(
            &format!("oracle placement, oracle picks ({suite})"),
            &name,
            picked,
        );
    }
    tally.finish();
}

// ---- pulsar-unit-tests/placement (modular vectors) ----

fn unit_config(v: &Value) -> LoadBalancerConfig {
    config_from(
        LoadBalancerConfig::pulsar_4x(),
        v.get("config"),
        UnknownKeys::Ignore,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn unit_load_data(v: &Value) -> LoadData {
    let mut data = LoadData::default();
    for (name, bundle) in v
        .get("bundles")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let bd: BundleData = serde_json::from_value(bundle.clone()).expect("bundle data");
        data.bundle_data.insert(name.clone(), bd);
    }
    for (name, broker) in v
        .get("brokers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let mut local_json = broker.clone();
        let mut time_average = TimeAverageBrokerData::default();
        let mut preallocated = IndexMap::new();
        if let Value::Object(o) = &mut local_json {
            if let Some(t) = o.remove("timeAverageData") {
                time_average = serde_json::from_value(t).expect("timeAverageData");
            }
            if let Some(Value::Object(p)) = o.remove("preallocatedBundleData") {
                for (b, bd) in p {
                    preallocated.insert(b, serde_json::from_value(bd).expect("preallocated"));
                }
            }
        }
        let local: LocalBrokerData = serde_json::from_value(local_json).expect("LocalBrokerData");
        data.brokers.insert(
            name.clone(),
            BrokerData {
                local,
                time_average,
                preallocated,
            },
        );
    }
    data
}

fn candidates_of(args: &Value) -> Vec<String> {
    let list = args.get("candidates").map(strings).unwrap_or_default();
    JavaHashSet::from_ordered(list.iter().map(String::as_str)).to_vec()
}

/// Runs the steps of a strategy vector and checks `selected` where the vector asserts it.
fn run_strategy_steps(v: &Value, strategy: &mut dyn PlacementStrategy) -> Result<(), String> {
    let (mut input, steps) = doc_and_steps(v);
    let expected: Vec<Value> = match v
        .get("expected")
        .and_then(|e| e.get("steps"))
        .and_then(Value::as_array)
    {
        Some(s) => s.clone(),
        None => vec![v.get("expected").cloned().unwrap_or(Value::Null)],
    };
    let mut picker = SeededPicker::new(0);
    for (i, step) in steps.iter().enumerate() {
        if let Some(patch) = step.get("patch") {
            merge_patch(&mut input, patch);
        }
        let mut args = input.get("args").cloned().unwrap_or(Value::Null);
        if let Some(step_args) = step.get("args") {
            merge_patch(&mut args, step_args);
        }
        let cfg = unit_config(&input);
        let data = unit_load_data(&input);
        let cands = candidates_of(&args);
        let cands = if cands.is_empty() {
            data.brokers.keys().cloned().collect()
        } else {
            cands
        };
        let choice = strategy.select_broker(
            &cands,
            "bundle",
            &BundleData::default(),
            &data,
            &cfg,
            &mut picker,
        );
        let exp = expected.get(i).cloned().unwrap_or(Value::Null);
        if let Some(sel) = exp.get("selected").and_then(Value::as_str) {
            let got = choice
                .as_ref()
                .map(|c| c.broker.as_str())
                .unwrap_or("<none>");
            if got != sel {
                return Err(format!("step {i}: selected {got}, expected {sel}"));
            }
        }
    }
    Ok(())
}

fn run_unit_vector(name: &str, v: &Value) -> Result<(), String> {
    match name {
        "least_long_term_message_rate" => run_strategy_steps(v, &mut LeastLongTermMessageRate),
        "least_resource_usage_with_weight_modular" => {
            run_strategy_steps(v, &mut LeastResourceUsageWithWeight::default())
        }
        "least_resource_usage_with_weight_modular_preseeded" => {
            let mut s = LeastResourceUsageWithWeight::default();
            let state: IndexMap<String, f64> = v
                .get("state")
                .and_then(|s| s.get("brokerAvgResourceUsageWithWeight"))
                .and_then(|m| serde_json::from_value(m.clone()).ok())
                .ok_or("missing state.brokerAvgResourceUsageWithWeight")?;
            s.set_history(state);
            run_strategy_steps(v, &mut s)?;
            // `derived` is informational; check the one broker the call must add.
            let want = v
                .pointer("/derived/history_after/3")
                .and_then(Value::as_f64);
            let got = s.history().get("3").copied();
            if want.is_some() && want != got {
                return Err(format!(
                    "history of 3 after the call: {got:?}, derived {want:?}"
                ));
            }
            Ok(())
        }
        "remove_most_servicing_brokers_for_namespace" => run_even_distribution(v),
        "avg_shedder_select_without_preassignment" => run_avg_shedder_placement(v),
        other => Err(format!("no runner for vector {other}")),
    }
}

/// `testAvgShedderWithoutPreassignedBroker` / `...WithPreassignedBroker`: a random pick that is then
/// remembered; a preset destination is returned while it is a candidate.
fn run_avg_shedder_placement(v: &Value) -> Result<(), String> {
    let cfg = unit_config(v);
    let data = unit_load_data(v);
    let bundle = v
        .pointer("/args/bundleToAssign")
        .and_then(Value::as_str)
        .unwrap_or("b");
    let bundle_data = data.bundle_data.get(bundle).copied().unwrap_or_default();
    let all: Vec<String> = ["1", "2", "3"].map(String::from).to_vec();
    let mut picker = SeededPicker::new(0);
    let select = |s: &mut AvgShedder, cands: &[String], picker: &mut SeededPicker| {
        s.select_broker(cands, bundle, &bundle_data, &data, &cfg, picker)
            .map(|c| c.broker)
            .ok_or_else(|| "no broker selected".to_string())
    };
    // Steps 1-2: random among the three, remembered; then among the two others, remembered.
    let mut s = AvgShedder::new(Profile::Master90cba329);
    let first = select(&mut s, &all, &mut picker)?;
    if !all.contains(&first) {
        return Err(format!("step 0: {first} not a candidate"));
    }
    if select(&mut s, &all, &mut picker)? != first {
        return Err("step 0: the pick was not remembered".to_string());
    }
    let rest: Vec<String> = all.iter().filter(|b| **b != first).cloned().collect();
    let second = select(&mut s, &rest, &mut picker)?;
    if !rest.contains(&second) || select(&mut s, &all, &mut picker)? != second {
        return Err(format!(
            "step 1: {second} not one of {rest:?} or not remembered"
        ));
    }
    // Steps 3-4 start from a fresh strategy whose bundleBrokerMap is {b: "1"}; placing with "1"
    // as the only candidate is how the public API presets that memory.
    let mut s = AvgShedder::new(Profile::Master90cba329);
    select(&mut s, &["1".to_string()], &mut picker)?;
    let third = select(&mut s, &all, &mut picker)?;
    if third != "1" {
        return Err(format!("step 2: selected {third}, expected 1"));
    }
    let fourth = select(&mut s, &["2".to_string()], &mut picker)?;
    if fourth != "2" || select(&mut s, &all, &mut picker)? != "2" {
        return Err(format!(
            "step 3: selected {fourth}, expected 2 and remembered"
        ));
    }
    Ok(())
}

fn run_even_distribution(v: &Value) -> Result<(), String> {
    let bundle = v
        .pointer("/args/assignedBundle")
        .and_then(Value::as_str)
        .ok_or("missing args.assignedBundle")?;
    let steps = v
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("missing steps")?;
    let expected = v
        .pointer("/expected/steps")
        .and_then(Value::as_array)
        .ok_or("missing expected.steps")?;
    let mut ctx = PlacementContext::new();
    for (i, (step, exp)) in steps.iter().zip(expected).enumerate() {
        for (broker, namespaces) in step
            .get("add_to_bundle_range_cache")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            for (ns, ranges) in namespaces.as_object().into_iter().flatten() {
                for r in ranges
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    ctx.add_to_bundle_range_cache(broker, &format!("{ns}/{r}"));
                }
            }
        }
        let cands = candidates_of(step.get("args").unwrap_or(&Value::Null));
        let mut set = JavaHashSet::from_ordered(cands.iter().map(String::as_str));
        remove_most_servicing_brokers_for_namespace(bundle, &mut set, &ctx.bundle_range_cache);
        let got: BTreeSet<String> = set.iter().cloned().collect();
        let want = string_set(exp.get("candidates_after"));
        if got != want {
            return Err(format!("step {i}: {got:?}, expected {want:?}"));
        }
    }
    Ok(())
}

#[test]
fn pulsar_unit_test_placement_vectors() {
    let files: Vec<PathBuf> = vectors_in("pulsar-unit-tests/placement")
        .into_iter()
        .filter(|p| !file_stem(p).contains("extensible"))
        .collect();
    Suite::new("pulsar-unit-tests/placement (modular)", KNOWN_DIVERGENCES).run_files(
        &files,
        |path, _| file_stem(path),
        run_unit_vector,
    );
}
