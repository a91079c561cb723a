//! `lbplan replay` reproduces every oracle scenario: runs the built binary on each file of
//! `tests/conformance/oracle/` and `oracle-extensible/` (with Pulsar's own random picks passed as
//! `--picks`) and compares the fields the READMEs name, under their rules (unload lists and decisions
//! as sets, choice sets as sets, the pick itself exactly).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn conformance_dir() -> PathBuf {
    match std::env::var_os("LBPLAN_CONFORMANCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance"),
    }
}

fn set_of(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.to_string()).collect())
        .unwrap_or_default()
}

/// broker → set of bundles, ignoring brokers with an empty list.
fn unload_sets(v: &Value) -> Vec<(String, BTreeSet<String>)> {
    let mut out: Vec<(String, BTreeSet<String>)> = v
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, b)| (k.clone(), set_of(b)))
                .filter(|(_, s)| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn decision_set(v: &Value, keys: &[&str]) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    keys.iter()
                        .map(|k| d.get(*k).map(|x| x.to_string()).unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Pulsar's picks, one list per cycle, for `--picks`.
fn picks_of(oracle: &Value) -> Value {
    let cycles = oracle["cycles"].as_array().cloned().unwrap_or_default();
    let picks: Vec<Value> = cycles
        .iter()
        .map(|c| {
            let a = c["assignments"].as_array().cloned().unwrap_or_default();
            Value::Array(
                a.iter()
                    .map(|x| x["selected"].clone())
                    .filter(|s| s.is_string())
                    .collect(),
            )
        })
        .collect();
    json!({ "cycles": picks })
}

/// The array at `v[key]`, empty when missing.
fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key].as_array().map_or(&[], Vec::as_slice)
}

/// Same number of assignments, each with the same choice set (as a set) and the same pick.
fn assignments_match(got: &Value, want: &Value) -> Result<(), String> {
    let (ga, wa) = (items(got, "assignments"), items(want, "assignments"));
    if ga.len() != wa.len() {
        return Err("number of assignments".to_string());
    }
    for (x, y) in ga.iter().zip(wa) {
        if set_of(&x["choice_set"]) != set_of(&y["choice_set"]) || x["selected"] != y["selected"] {
            return Err(format!("assignment of {}", y["bundle"]));
        }
    }
    Ok(())
}

/// The cycle's `decisions`, compared as sets of the `keys` fields.
fn decisions_match(got: &Value, want: &Value, keys: &[&str]) -> Result<(), String> {
    if decision_set(&got["decisions"], keys) != decision_set(&want["decisions"], keys) {
        return Err("decisions".to_string());
    }
    Ok(())
}

/// One cycle of a cycle-based kind, under the README's rules; `Err(what differs)`.
fn compare_cycle(kind: &str, gc: &Value, wc: &Value) -> Result<(), String> {
    let differs = |what: &str| Err(what.to_string());
    match kind {
        "shedding" | "placement" => {
            if wc.get("unload").is_some()
                && unload_sets(&gc["unload"]) != unload_sets(&wc["unload"])
            {
                return differs("unload");
            }
            if kind == "placement" {
                assignments_match(gc, wc)?;
            }
        }
        "bundle_split" => {
            if gc["split"] != wc["split"] {
                return differs("split");
            }
        }
        "shedding_extensible" => {
            let keys = [
                "sourceBroker",
                "serviceUnit",
                "destBroker",
                "label",
                "reason",
            ];
            decisions_match(gc, wc, &keys)?;
            if gc["skip_reason"] != wc["skip_reason"] {
                return differs("skip_reason");
            }
        }
        "placement_extensible" => assignments_match(gc, wc)?,
        _ => {
            let keys = [
                "serviceUnit",
                "sourceBroker",
                "splitServiceUnits",
                "label",
                "reason",
            ];
            decisions_match(gc, wc, &keys)?;
        }
    }
    Ok(())
}

fn compare(kind: &str, got: &Value, want: &Value) -> Result<(), String> {
    match kind {
        "shedding"
        | "placement"
        | "bundle_split"
        | "shedding_extensible"
        | "placement_extensible"
        | "split_decision_extensible" => {
            let (g, w) = (items(got, "cycles"), items(want, "cycles"));
            if g.len() != w.len() {
                return Err(format!("{} cycles, oracle has {}", g.len(), w.len()));
            }
            for (i, (gc, wc)) in g.iter().zip(w).enumerate() {
                compare_cycle(kind, gc, wc).map_err(|what| format!("cycle {i}: {what} differs"))?;
            }
            Ok(())
        }
        "split_algorithm" => {
            for k in ["result", "split_boundaries", "new_bundles", "bundles_after"] {
                if want.get(k).is_some() && got[k] != want[k] {
                    return Err(format!("{k}: got {}, oracle {}", got[k], want[k]));
                }
            }
            Ok(())
        }
        "topic_bundle" => {
            let (g, w) = (items(got, "topics"), items(want, "topics"));
            if g.len() != w.len() {
                return Err("number of topics differs".to_string());
            }
            for (x, y) in g.iter().zip(w) {
                let refused = |t: &Value| t.get("error").is_some_and(|e| !e.is_null());
                if refused(x) != refused(y)
                    || (!refused(y) && (x["hash"] != y["hash"] || x["bundle"] != y["bundle"]))
                {
                    return Err(format!("topic {}", y["topic"]));
                }
            }
            Ok(())
        }
        other => Err(format!("unexpected kind {other}")),
    }
}

#[test]
fn lbplan_replay_reproduces_every_oracle_scenario() {
    let root = conformance_dir();
    assert!(
        root.is_dir(),
        "conformance vectors not found at {} (set LBPLAN_CONFORMANCE_DIR)",
        root.display()
    );
    let tmp = std::env::temp_dir().join(format!("lbplan-replay-all-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = Vec::new();
    let mut counts: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for suite in ["oracle", "oracle-extensible"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(suite))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.ends_with("manifest.json"))
            .collect();
        files.sort();
        for file in files {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let want = &doc["oracle_output"];
            let kind = doc["scenario"]["kind"].as_str().unwrap_or("?").to_string();
            let picks = tmp.join("picks.json");
            std::fs::write(&picks, picks_of(want).to_string()).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
                .arg("replay")
                .arg(&file)
                .arg("--picks")
                .arg(&picks)
                .output()
                .unwrap();
            let entry = counts.entry(format!("{suite}/{kind}")).or_default();
            entry.1 += 1;
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if !out.status.success() {
                failures.push(format!(
                    "{name}: exit {:?}: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
            let got: Value = match serde_json::from_slice(&out.stdout) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{name}: output is not JSON: {e}"));
                    continue;
                }
            };
            match compare(&kind, &got, want) {
                Ok(()) => entry.0 += 1,
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    for (suite, (pass, total)) in &counts {
        println!("lbplan replay {suite}: {pass}/{total} scenarios reproduced");
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        failures.is_empty(),
        "{} scenarios differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn malformed_scenario_exits_2_with_json_path() {
    let tmp = std::env::temp_dir().join(format!("lbplan-bad-scenario-{}.json", std::process::id()));
    std::fs::write(&tmp, r#"{"scenario": {"kind": "shedding", "strategy": "ThresholdShedder", "cycles": [{"brokers": [{"name": "b1:8080", "cpu": "lots"}]}]}}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .arg("replay")
        .arg(&tmp)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("$.scenario.cycles[0].brokers[0].cpu"), "{err}");
}
