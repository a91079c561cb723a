//! Conformance of the extensible load manager against the shared vectors:
//! `oracle-extensible/` (`shedding_extensible`, `placement_extensible`, through `replay`) and the
//! Pulsar unit-test vectors `transfer_shedder/`, `load_data/` and the extensible `placement/` ones
//! (through the core API). Every file of a suite is run; failures are collected and listed.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::extensible::{
    LoadStats, PermissiveChecks, SheddingInput, TopKFilter, TransferShedder, UnloadChecks,
    least_resource_usage_choice_set, top_k_bundles,
};
use lbplan_core::model::{
    BrokerLoadData, BrokerLoadSample, NamespaceBundleStats, ResourceUsage, SystemResourceUsage,
    TopBundlesLoadData,
};
use lbplan_core::replay::{self};
use serde_json::{Value, json};
use support::{
    KnownDivergences, Suite, UnknownKeys, close, config_from, cycles, doc_and_steps, file_name,
    finish_all, list, merge_patch, paired, read_json, string_set, strings, vectors_in,
};

/// Vectors known not to pass, with the reason. Kept in the counts.
const KNOWN_DIVERGENCES: KnownDivergences = &[];

const ORACLE_TOLERANCE: f64 = 1e-9;

fn decision_key(d: &Value) -> String {
    format!(
        "{}|{}|{}|{}|{}",
        d.get("sourceBroker").and_then(Value::as_str).unwrap_or("?"),
        d.get("serviceUnit").and_then(Value::as_str).unwrap_or("?"),
        d.get("destBroker")
            .and_then(Value::as_str)
            .unwrap_or("null"),
        d.get("label").and_then(Value::as_str).unwrap_or("?"),
        d.get("reason").and_then(Value::as_str).unwrap_or("?"),
    )
}

fn decision_set(v: Option<&Value>) -> BTreeSet<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(decision_key).collect())
        .unwrap_or_default()
}

fn master_config(v: Option<&Value>) -> LoadBalancerConfig {
    config_from(
        LoadBalancerConfig::for_profile(Profile::Master90cba329),
        v,
        UnknownKeys::Ignore,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A unit-test vector's `id`, else its file name.
fn vector_id(path: &Path, v: &Value) -> String {
    v.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| file_name(path), str::to_string)
}

// ---------------------------------------------------------------------------------------------------
// oracle-extensible

#[test]
fn oracle_extensible() {
    let mut shedding = Suite::new("oracle-extensible/shedding_extensible", KNOWN_DIVERGENCES);
    let mut placement = Suite::new("oracle-extensible/placement_extensible", KNOWN_DIVERGENCES);
    for path in vectors_in("oracle-extensible") {
        let name = file_name(&path);
        let file = read_json(&path);
        let kind = file
            .pointer("/scenario/kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let suite = match kind {
            "shedding_extensible" => &mut shedding,
            "placement_extensible" => &mut placement,
            _ => continue,
        };
        let result = replay::replay(&file, None, 7)
            .map_err(|e| format!("replay failed: {e}"))
            .and_then(|out| {
                let expected = file.get("oracle_output").cloned().unwrap_or(Value::Null);
                if kind == "shedding_extensible" {
                    compare_shedding(&out, &expected)
                } else {
                    compare_placement(&out, &expected)
                }
            });
        suite.record(&name, result);
    }
    finish_all([shedding, placement]);
}

fn compare_derived(ours: &Value, exp: &Value, i: usize, field: &str) -> Result<(), String> {
    let Some(exp_brokers) = exp.get(field).and_then(Value::as_object) else {
        return Ok(());
    };
    for (b, e) in exp_brokers {
        let o = ours.get(field).and_then(|m| m.get(b));
        for f in ["weightedMaxEMA", "msgThroughputEMA", "maxResourceUsage"] {
            let ev = e.get(f).and_then(Value::as_f64);
            let ov = o.and_then(|o| o.get(f)).and_then(Value::as_f64);
            if !close(ov, ev, ORACLE_TOLERANCE) {
                return Err(format!(
                    "cycle {i}: {field}[{b}].{f} = {ov:?}, expected {ev:?}"
                ));
            }
        }
    }
    Ok(())
}

fn compare_shedding(out: &Value, expected: &Value) -> Result<(), String> {
    for (i, (o, e)) in paired(cycles(out), cycles(expected), "cycles")? {
        if let (Some(od), Some(ed)) = (o.get("derived"), e.get("derived")) {
            compare_derived(od, ed, i, "brokers")?;
        }
        let (od, ed) = (
            decision_set(o.get("decisions")),
            decision_set(e.get("decisions")),
        );
        if od != ed {
            let missing: Vec<_> = ed.difference(&od).collect();
            let extra: Vec<_> = od.difference(&ed).collect();
            return Err(format!(
                "cycle {i}: decisions differ: missing {missing:?}, extra {extra:?}"
            ));
        }
        if o.get("skip_reason") != e.get("skip_reason") {
            return Err(format!(
                "cycle {i}: skip_reason {}, expected {}",
                o.get("skip_reason").unwrap_or(&Value::Null),
                e.get("skip_reason").unwrap_or(&Value::Null)
            ));
        }
        for f in ["loadAvg", "loadStd"] {
            let (ov, ev) = (
                o.get(f).and_then(Value::as_f64),
                e.get(f).and_then(Value::as_f64),
            );
            if !close(ov, ev, ORACLE_TOLERANCE) {
                return Err(format!("cycle {i}: {f} = {ov:?}, expected {ev:?}"));
            }
        }
        if o.get("unloadConditionHitCount") != e.get("unloadConditionHitCount") {
            return Err(format!(
                "cycle {i}: unloadConditionHitCount {:?}, expected {:?}",
                o.get("unloadConditionHitCount"),
                e.get("unloadConditionHitCount")
            ));
        }
        if let Some(es) = e.get("stats_after") {
            for f in ["avg", "std", "sum", "sqSum"] {
                let ov = o
                    .pointer(&format!("/stats_after/{f}"))
                    .and_then(Value::as_f64);
                let ev = es.get(f).and_then(Value::as_f64);
                if !close(ov, ev, ORACLE_TOLERANCE) {
                    return Err(format!(
                        "cycle {i}: stats_after.{f} = {ov:?}, expected {ev:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}

fn compare_placement(out: &Value, expected: &Value) -> Result<(), String> {
    for (i, (o, e)) in paired(cycles(out), cycles(expected), "cycles")? {
        compare_derived(o, e, i, "brokers_after")?;
        let assignments = paired(
            list(o, "assignments"),
            list(e, "assignments"),
            "assignments",
        )
        .map_err(|e| format!("cycle {i}: {e}"))?;
        for (j, (x, y)) in assignments {
            for f in ["candidates", "choice_set", "no_load_data_brokers"] {
                let (xs, ys) = (string_set(x.get(f)), string_set(y.get(f)));
                if xs != ys {
                    return Err(format!(
                        "cycle {i} assignment {j}: {f} differ: missing {:?}, extra {:?}",
                        ys.difference(&xs).collect::<Vec<_>>(),
                        xs.difference(&ys).collect::<Vec<_>>()
                    ));
                }
            }
            let selected = x.get("selected").and_then(Value::as_str);
            let choice = string_set(y.get("choice_set"));
            match selected {
                Some(s) if choice.contains(s) => {}
                None if choice.is_empty() => {}
                other => {
                    return Err(format!(
                        "cycle {i} assignment {j}: selected {other:?} not in choice set"
                    ));
                }
            }
            if y.get("deterministic") == Some(&Value::Bool(true))
                && x.get("selected") != y.get("selected")
            {
                return Err(format!(
                    "cycle {i} assignment {j}: selected {:?}, expected {:?}",
                    x.get("selected"),
                    y.get("selected")
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// pulsar-unit-tests: shared helpers

fn parse_store(brokers: Option<&Value>, order: Option<&Value>) -> IndexMap<String, BrokerLoadData> {
    let mut store = IndexMap::new();
    let Some(obj) = brokers.and_then(Value::as_object) else {
        return store;
    };
    let mut names: Vec<String> = obj.keys().cloned().collect();
    if let Some(order) = order.and_then(Value::as_array) {
        let ordered: Vec<String> = order
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .filter(|n| obj.contains_key(n))
            .collect();
        if ordered.len() == names.len() {
            names = ordered;
        }
    }
    for n in names {
        if let Some(v) = obj.get(&n) {
            let data: BrokerLoadData =
                serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("broker {n}: {e}"));
            store.insert(n, data);
        }
    }
    store
}

fn parse_timestamps(v: Option<&Value>) -> IndexMap<String, i64> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, t)| t.as_i64().map(|t| (k.clone(), t)))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_sample(u: &Value) -> (bool, BrokerLoadSample) {
    let usage = u.get("usage").unwrap_or(u);
    let r = |k: &str| -> ResourceUsage {
        usage
            .get(k)
            .map(|v| serde_json::from_value(v.clone()).unwrap_or_default())
            .unwrap_or_default()
    };
    let f = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let n = |k: &str| {
        u.get(k)
            .and_then(Value::as_i64)
            .and_then(|x| i32::try_from(x).ok())
            .unwrap_or(0)
    };
    (
        u.get("mode").and_then(Value::as_str) == Some("new"),
        BrokerLoadSample {
            usage: SystemResourceUsage {
                cpu: r("cpu"),
                memory: r("memory"),
                direct_memory: r("directMemory"),
                bandwidth_in: r("bandwidthIn"),
                bandwidth_out: r("bandwidthOut"),
            },
            msg_throughput_in: f("msgThroughputIn"),
            msg_throughput_out: f("msgThroughputOut"),
            msg_rate_in: f("msgRateIn"),
            msg_rate_out: f("msgRateOut"),
            bundle_count: n("bundleCount"),
            topics: n("topics"),
        },
    )
}

/// Applies a step's `updates` to the brokers of `doc` (as `BrokerLoadData` JSON).
fn apply_updates(doc: &mut Value, updates: &Value, conf: &LoadBalancerConfig, now_ms: i64) {
    let Some(ups) = updates.as_object() else {
        return;
    };
    for (b, u) in ups {
        let (fresh, sample) = parse_sample(u);
        let mut data = match doc.pointer(&format!("/brokers/{b}")) {
            Some(v) if !fresh => serde_json::from_value(v.clone()).unwrap_or_default(),
            _ => BrokerLoadData::default(),
        };
        data.update(
            &sample,
            &conf.resource_weights(),
            conf.load_balancer_history_resource_percentage,
            now_ms,
        );
        let value = serde_json::to_value(data).unwrap_or(Value::Null);
        merge_patch(doc, &json!({ "brokers": { b.clone(): Value::Null } }));
        if let Some(brokers) = doc.get_mut("brokers").and_then(Value::as_object_mut) {
            brokers.insert(b.clone(), value);
        } else {
            merge_patch(doc, &json!({ "brokers": { b.clone(): value } }));
        }
    }
}

fn expected_steps(v: &Value, n: usize) -> Vec<Value> {
    let exp = v.get("expected").cloned().unwrap_or(Value::Null);
    match exp.get("steps").and_then(Value::as_array) {
        Some(s) => s.clone(),
        None => vec![exp; n.max(1)],
    }
}

// ---------------------------------------------------------------------------------------------------
// transfer_shedder/

struct OwnerChecks(bool);

impl UnloadChecks for OwnerChecks {
    fn is_owner(&self, _bundle: &str, _broker: &str) -> bool {
        self.0
    }
    fn is_transferable(&self, _b: &str, _s: &str, _d: Option<&str>) -> bool {
        true
    }
}

#[test]
fn pulsar_unit_tests_transfer_shedder() {
    Suite::new("pulsar-unit-tests/transfer_shedder", KNOWN_DIVERGENCES).run_files(
        &vectors_in("pulsar-unit-tests/transfer_shedder"),
        vector_id,
        |_, v| match v.get("kind").and_then(Value::as_str) {
            Some("load-stats") => check_load_stats(v),
            Some("shedding-extensible") => check_transfer_shedder(v),
            other => Err(format!("unexpected kind {other:?}")),
        },
    );
}

fn check_load_stats(v: &Value) -> Result<(), String> {
    let conf = master_config(v.get("config"));
    let store = parse_store(v.get("brokers"), None);
    let available: Vec<String> = string_set(v.pointer("/args/availableBrokers"))
        .into_iter()
        .collect();
    let now = v
        .pointer("/args/now_ms")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let mut stats = LoadStats::default();
    stats.set_load_data_store(&store);
    let mut recent = IndexMap::new();
    if let Some(r) = stats.update(&store, &available, &mut recent, &conf, now) {
        return Err(format!("skipped with {r}"));
    }
    let tol = v
        .pointer("/expected/tolerance")
        .and_then(Value::as_f64)
        .unwrap_or(1e-9);
    for (f, ours) in [("avg", stats.avg), ("std", stats.std)] {
        let e = v.pointer(&format!("/expected/{f}")).and_then(Value::as_f64);
        if !close(Some(ours), e, tol) {
            return Err(format!("{f} = {ours}, expected {e:?}"));
        }
    }
    Ok(())
}

fn check_transfer_shedder(v: &Value) -> Result<(), String> {
    let (mut doc, steps) = doc_and_steps(v);
    let expected = expected_steps(v, steps.len());
    let mut shedder = TransferShedder::new();
    for (i, step) in steps.iter().enumerate() {
        if let Some(p) = step.get("patch") {
            merge_patch(&mut doc, p);
        }
        if step.get("reset_state") == Some(&Value::Bool(true)) {
            shedder = TransferShedder::new();
        }
        let mut args = doc.get("args").cloned().unwrap_or_else(|| json!({}));
        if let Some(a) = step.get("args") {
            merge_patch(&mut args, a);
        }
        let conf = master_config(doc.get("config"));
        let store = parse_store(doc.get("brokers"), args.get("java_hashmap_iteration_order"));
        let mut top_bundles: IndexMap<String, TopBundlesLoadData> = IndexMap::new();
        if let Some(tb) = doc.get("topBundles").and_then(Value::as_object) {
            for (b, t) in tb {
                let parsed = serde_json::from_value(t.clone()).map_err(|e| format!("{b}: {e}"))?;
                top_bundles.insert(b.clone(), parsed);
            }
        }
        let available: Vec<String> = match args.get("availableBrokers") {
            Some(a) if a.is_array() => strings(a),
            _ => store.keys().cloned().collect(),
        };
        let recent_bundles = parse_timestamps(args.get("recentlyUnloadedBundles"));
        let mut recent_brokers = parse_timestamps(args.get("recentlyUnloadedBrokers"));
        let now = args.get("now_ms").and_then(Value::as_i64).unwrap_or(0);
        let owner = args.get("isOwner").and_then(Value::as_bool).unwrap_or(true);
        let checks: Box<dyn UnloadChecks> = if owner {
            Box::new(PermissiveChecks)
        } else {
            Box::new(OwnerChecks(false))
        };
        let input = SheddingInput {
            now_ms: now,
            load_store: &store,
            top_bundles: &top_bundles,
            available_brokers: &available,
            recently_unloaded_bundles: &recent_bundles,
        };
        let outcome =
            shedder.find_bundles_for_unloading(&conf, &input, &mut recent_brokers, checks.as_ref());
        let ours: Vec<Value> = outcome
            .decisions
            .iter()
            .map(|d| serde_json::to_value(d).unwrap())
            .collect();
        let ours_set: BTreeSet<String> = ours.iter().map(decision_key).collect();
        let exp = expected.get(i).cloned().unwrap_or(Value::Null);
        let at = if steps.len() > 1 {
            format!("step {i}: ")
        } else {
            String::new()
        };
        check_decisions(&ours, &ours_set, &exp).map_err(|e| format!("{at}{e}"))?;
        if let Some(sr) = exp.get("skip_reason") {
            let got = outcome.skip_reason.map(|r| r.name().to_string());
            if sr.as_str().map(str::to_string) != got {
                return Err(format!("{at}skip_reason {got:?}, expected {sr}"));
            }
        }
        let tol = exp.get("tolerance").and_then(Value::as_f64).unwrap_or(1e-9);
        let (avg, std) = outcome
            .load_avg_std
            .map_or((None, None), |(a, s)| (Some(a), Some(s)));
        for (f, ours_v) in [
            ("loadAvg", avg),
            ("loadStd", std),
            ("std_after", Some(outcome.stats.std)),
            ("stats_avg_after", Some(outcome.stats.avg)),
        ] {
            if let Some(e) = exp.get(f).and_then(Value::as_f64)
                && !close(ours_v, Some(e), tol)
            {
                return Err(format!("{at}{f} = {ours_v:?}, expected {e}"));
            }
        }
    }
    Ok(())
}

/// Checks the decision expectations of one step, accepting every outcome the vector accepts.
fn check_decisions(ours: &[Value], ours_set: &BTreeSet<String>, exp: &Value) -> Result<(), String> {
    if let Some(d) = exp.get("decisions") {
        let e = decision_set(Some(d));
        if &e != ours_set {
            return Err(format!(
                "decisions differ: missing {:?}, extra {:?}",
                e.difference(ours_set).collect::<Vec<_>>(),
                ours_set.difference(&e).collect::<Vec<_>>()
            ));
        }
    }
    if let Some(n) = exp.get("decisions_count").and_then(Value::as_u64)
        && u64::try_from(ours.len()).ok() != Some(n)
    {
        return Err(format!("{} decisions, expected {n}", ours.len()));
    }
    if let Some(alternatives) = exp.get("decisions_one_of").and_then(Value::as_array) {
        let mut accepted: Vec<BTreeSet<String>> =
            alternatives.iter().map(|a| decision_set(Some(a))).collect();
        // The relaxed rule: the first alternative with any min-load broker as destination.
        if let (Some(first), Some(dests)) = (
            alternatives.first().and_then(Value::as_array),
            exp.pointer("/relaxed/destBroker_any_of_min_load_brokers")
                .and_then(Value::as_array),
        ) {
            for dest in dests {
                let variant: BTreeSet<String> = first
                    .iter()
                    .map(|d| {
                        let mut d = d.clone();
                        if let Some(o) = d.as_object_mut() {
                            o.insert("destBroker".to_string(), dest.clone());
                        }
                        decision_key(&d)
                    })
                    .collect();
                accepted.push(variant);
            }
        }
        if !accepted.iter().any(|a| a == ours_set) {
            return Err(format!(
                "decisions {ours_set:?} are none of the accepted outcomes"
            ));
        }
    }
    if let Some(patterns) = exp.get("decisions_pattern").and_then(Value::as_array) {
        let mut unmatched: Vec<&Value> = ours.iter().collect();
        for p in patterns {
            let pos = unmatched.iter().position(|d| pattern_matches(p, d));
            match pos {
                Some(k) => {
                    unmatched.remove(k);
                }
                None => return Err(format!("no decision matches pattern {p}")),
            }
        }
        if !unmatched.is_empty() {
            return Err(format!("decisions beyond the patterns: {unmatched:?}"));
        }
    }
    Ok(())
}

fn pattern_matches(p: &Value, d: &Value) -> bool {
    for f in ["sourceBroker", "destBroker", "label", "reason"] {
        if p.get(f) != d.get(f) {
            return false;
        }
    }
    let unit = d.get("serviceUnit").and_then(Value::as_str).unwrap_or("");
    match p.get("serviceUnit").and_then(Value::as_str) {
        Some(s) => match s.strip_prefix("any bundle of ") {
            Some(ns) => unit.strip_prefix(ns).is_some_and(|r| r.starts_with('/')),
            None => s == unit,
        },
        None => false,
    }
}

// ---------------------------------------------------------------------------------------------------
// load_data/

#[test]
fn pulsar_unit_tests_load_data() {
    Suite::new("pulsar-unit-tests/load_data", KNOWN_DIVERGENCES).run_files(
        &vectors_in("pulsar-unit-tests/load_data"),
        vector_id,
        |_, v| match v.get("kind").and_then(Value::as_str) {
            Some("load-data-update") => check_load_data_update(v),
            Some("topk") => check_topk(v),
            other => Err(format!("unexpected kind {other:?}")),
        },
    );
}

fn check_load_data_update(v: &Value) -> Result<(), String> {
    let (mut doc, steps) = doc_and_steps(v);
    let expected = expected_steps(v, steps.len());
    let conf = master_config(v.get("config"));
    let mut now = 1_700_000_000_000i64;
    for (i, step) in steps.iter().enumerate() {
        if let Some(u) = step.get("updates") {
            apply_updates(&mut doc, u, &conf, now);
        }
        now += 1000;
        let exp = expected.get(i).cloned().unwrap_or(Value::Null);
        let Some(updated) = step.get("updates").and_then(Value::as_object) else {
            continue;
        };
        for b in updated.keys() {
            let ours = doc
                .pointer(&format!("/brokers/{b}"))
                .cloned()
                .unwrap_or(Value::Null);
            for f in [
                "maxResourceUsage",
                "weightedMaxEMA",
                "msgThroughputEMA",
                "reportedAt",
            ] {
                if let Some(e) = exp.get(f).and_then(Value::as_f64) {
                    let o = ours.get(f).and_then(Value::as_f64);
                    if !close(o, Some(e), 1e-9) {
                        return Err(format!("step {i}: {b}.{f} = {o:?}, expected {e}"));
                    }
                }
            }
        }
    }
    Ok(())
}

fn check_topk(v: &Value) -> Result<(), String> {
    let conf = master_config(v.get("config"));
    let mut stats: IndexMap<String, NamespaceBundleStats> = IndexMap::new();
    if let Some(m) = v.pointer("/args/bundleStats").and_then(Value::as_object) {
        for (b, s) in m {
            stats.insert(
                b.clone(),
                serde_json::from_value(s.clone()).map_err(|e| format!("{b}: {e}"))?,
            );
        }
    }
    let k = v
        .pointer("/args/k")
        .and_then(Value::as_i64)
        .unwrap_or(conf.load_balancer_max_number_of_bundles_in_bundle_load_report);
    let out = top_k_bundles(
        &stats,
        k,
        &TopKFilter {
            shedding_excluded_namespaces: &conf.load_balancer_shedding_excluded_namespaces,
            shedding_bundles_with_policies_enabled: conf
                .load_balancer_shedding_bundles_with_policies_enabled,
            namespace_has_policies: &|_| false,
        },
    );
    let ours: Vec<&str> = out
        .top_bundles_load_data
        .iter()
        .map(|b| b.bundle_name.as_str())
        .collect();
    let expected: Vec<&str> = v
        .pointer("/expected/topBundlesLoadData_order")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if ours != expected {
        return Err(format!("order {ours:?}, expected {expected:?}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// placement/ (extensible vectors)

#[test]
fn pulsar_unit_tests_placement_extensible() {
    let files: Vec<PathBuf> = vectors_in("pulsar-unit-tests/placement")
        .into_iter()
        .filter(|p| file_name(p).contains("extensible"))
        .collect();
    Suite::new(
        "pulsar-unit-tests/placement (extensible)",
        KNOWN_DIVERGENCES,
    )
    .run_files(&files, vector_id, |_, v| check_placement_extensible(v));
}

fn check_placement_extensible(v: &Value) -> Result<(), String> {
    let (mut doc, steps) = doc_and_steps(v);
    let expected = expected_steps(v, steps.len());
    let mut now = 1_700_000_000_000i64;
    for (i, step) in steps.iter().enumerate() {
        if let Some(p) = step.get("patch") {
            merge_patch(&mut doc, p);
        }
        let conf = master_config(doc.get("config"));
        if let Some(u) = step.get("updates") {
            apply_updates(&mut doc, u, &conf, now);
        }
        now += 1000;
        let store = parse_store(doc.get("brokers"), None);
        let candidates = doc
            .pointer("/args/candidates")
            .map(strings)
            .unwrap_or_default();
        let (choice, _) = least_resource_usage_choice_set(&candidates, &store, &conf);
        let choice: BTreeSet<String> = choice.into_iter().collect();
        let exp = expected.get(i).cloned().unwrap_or(Value::Null);
        if let Some(s) = exp.get("selected").and_then(Value::as_str)
            && (choice.len() != 1 || !choice.contains(s))
        {
            return Err(format!(
                "step {i}: choice set {choice:?}, expected only {s}"
            ));
        }
        if let Some(set) = exp.get("selected_one_of") {
            let accepted = string_set(Some(set));
            if choice != accepted {
                return Err(format!(
                    "step {i}: choice set {choice:?}, expected {accepted:?}"
                ));
            }
        }
        if let Some(emas) = exp.get("weightedMaxEMA").and_then(Value::as_object) {
            for (b, e) in emas {
                let o = store.get(b).map(|d| d.weighted_max_ema);
                if !close(o, e.as_f64(), 1e-9) {
                    return Err(format!(
                        "step {i}: {b}.weightedMaxEMA = {o:?}, expected {e}"
                    ));
                }
            }
        }
    }
    Ok(())
}
