//! What the conformance tests share: locating the vectors (`LBPLAN_CONFORMANCE_DIR` or the
//! vendored `tests/conformance/`, failing loudly when missing), listing and reading them, the per-suite
//! tally (`"<suite>: N/M vectors pass"`, then a failure listing every failing vector with a one-line
//! diff), and the JSON helpers the comparisons use (string sets, cycles, unload sets, numeric
//! tolerance, RFC 7386 merge patches, a vector's `config` and steps).

// Each test binary includes this module and uses its own subset of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lbplan_core::config::{LoadBalancerConfig, json_to_conf_text};
use serde_json::{Value, json};

/// `KNOWN_DIVERGENCES` of a test file: vector id → why it cannot pass. Such vectors stay in the
/// counts.
pub type KnownDivergences = &'static [(&'static str, &'static str)];

// ---- locating and reading vectors ----------------------------------------------------------------

/// The conformance root: `LBPLAN_CONFORMANCE_DIR` if set, else the vendored `tests/conformance/` of
/// the workspace (refreshed by `scripts/refresh-conformance.sh`). Panics when it is not a directory (a missing corpus must not pass as zero vectors).
pub fn conformance_dir() -> PathBuf {
    let dir = std::env::var_os("LBPLAN_CONFORMANCE_DIR").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/conformance"
            ))
        },
        PathBuf::from,
    );
    assert!(
        dir.is_dir(),
        "conformance vectors not found at {} (set LBPLAN_CONFORMANCE_DIR)",
        dir.display()
    );
    dir
}

/// Every `*.json` vector of `dir` but `manifest.json`, sorted; panics when there is none.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "manifest.json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    files
}

/// `json_files` of a directory given relative to the conformance root.
pub fn vectors_in(relative_dir: &str) -> Vec<PathBuf> {
    json_files(&conformance_dir().join(relative_dir))
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()))
}

pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

// ---- per-suite tally -----------------------------------------------------------------------------

/// One suite's count and failures.
pub struct Suite {
    name: String,
    known_divergences: KnownDivergences,
    total: usize,
    failures: Vec<String>,
    known: Vec<String>,
}

impl Suite {
    pub fn new(name: impl Into<String>, known_divergences: KnownDivergences) -> Self {
        Suite {
            name: name.into(),
            known_divergences,
            total: 0,
            failures: Vec::new(),
            known: Vec::new(),
        }
    }

    /// Counts one vector; `result` is `Err(one-line diff)` when it fails. A vector listed in
    /// `KNOWN_DIVERGENCES` that passes is a failure too, so the list cannot go stale.
    pub fn record(&mut self, id: &str, result: Result<(), String>) {
        self.total += 1;
        let known = self.known_divergences.iter().find(|(k, _)| *k == id);
        match (result, known) {
            (Ok(()), Some(_)) => self
                .failures
                .push(format!("{id}: listed in KNOWN_DIVERGENCES but passes")),
            (Ok(()), None) => {}
            (Err(e), Some((_, why))) => self.known.push(format!("{id}: {e} (known: {why})")),
            (Err(e), None) => self.failures.push(format!("{id}: {e}")),
        }
    }

    /// Reads every file, records `check`'s verdict under the id `id_of` gives, and finishes.
    pub fn run_files(
        mut self,
        files: &[PathBuf],
        id_of: impl Fn(&Path, &Value) -> String,
        mut check: impl FnMut(&str, &Value) -> Result<(), String>,
    ) {
        for path in files {
            let v = read_json(path);
            let id = id_of(path, &v);
            let result = check(&id, &v);
            self.record(&id, result);
        }
        self.finish();
    }

    /// Prints `"<suite>: N/M vectors pass"` and the known divergences.
    pub fn print_count(&self) {
        let pass = self.total - self.failures.len() - self.known.len();
        let known = if self.known.is_empty() {
            String::new()
        } else {
            format!(" ({} known divergences)", self.known.len())
        };
        println!("{}: {pass}/{} vectors pass{known}", self.name, self.total);
        for k in &self.known {
            println!("  known divergence {k}");
        }
    }

    /// Prints the count, then fails listing every failing vector (or when there was none at all).
    pub fn finish(self) {
        finish_all([self]);
    }
}

/// Prints every suite's count first, then fails listing the failing vectors of all of them.
pub fn finish_all(suites: impl IntoIterator<Item = Suite>) {
    let suites: Vec<Suite> = suites.into_iter().collect();
    for s in &suites {
        s.print_count();
    }
    let mut failures = Vec::new();
    for s in &suites {
        assert!(s.total > 0, "{}: no vectors found", s.name);
        failures.extend(s.failures.iter().map(|f| format!("{}: {f}", s.name)));
    }
    assert!(
        failures.is_empty(),
        "{} failing vector(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Suites whose names are only known while iterating (one per strategy, say), printed in name order.
pub struct Tally {
    known_divergences: KnownDivergences,
    suites: BTreeMap<String, Suite>,
}

impl Tally {
    pub fn new(known_divergences: KnownDivergences) -> Self {
        Tally {
            known_divergences,
            suites: BTreeMap::new(),
        }
    }

    pub fn record(&mut self, suite: &str, id: &str, result: Result<(), String>) {
        let known = self.known_divergences;
        self.suites
            .entry(suite.to_string())
            .or_insert_with(|| Suite::new(suite, known))
            .record(id, result);
    }

    /// Prints each suite's count without judging (for a breakdown of a suite finished elsewhere).
    pub fn print_counts(&self) {
        self.suites.values().for_each(Suite::print_count);
    }

    pub fn finish(self) {
        finish_all(self.suites.into_values());
    }
}

// ---- JSON helpers --------------------------------------------------------------------------------

/// The array at `v[key]`, empty when missing or not an array.
pub fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The `cycles` of a replay output or an oracle output.
pub fn cycles(v: &Value) -> &[Value] {
    list(v, "cycles")
}

/// Our list beside the expected one, item by item with its index; fails with
/// `"<ours> <what>, expected <theirs>"` when their lengths differ.
pub fn paired<'a>(
    ours: &'a [Value],
    expected: &'a [Value],
    what: &str,
) -> Result<impl Iterator<Item = (usize, (&'a Value, &'a Value))>, String> {
    if ours.len() != expected.len() {
        return Err(format!(
            "{} {what}, expected {}",
            ours.len(),
            expected.len()
        ));
    }
    Ok(ours.iter().zip(expected).enumerate())
}

/// The strings of an array (other items skipped), in order; empty when not an array.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The strings of an array as a set (the READMEs compare lists of names as sets).
pub fn string_set(v: Option<&Value>) -> BTreeSet<String> {
    v.map(strings).unwrap_or_default().into_iter().collect()
}

/// An `unload` map as broker → set of bundles, brokers with an empty list left out.
pub fn unload_sets(unload: Option<&Value>) -> BTreeMap<String, BTreeSet<String>> {
    unload
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, l)| (k.clone(), string_set(Some(l))))
                .filter(|(_, s)| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Equal within `tol` (NaN equals NaN), or both absent.
pub fn close(a: Option<f64>, b: Option<f64>, tol: f64) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= tol || (x.is_nan() && y.is_nan()),
        (None, None) => true,
        _ => false,
    }
}

/// RFC 7386 JSON Merge Patch (a removed key keeps the order of the others).
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch_map) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    if let Value::Object(t) = target {
        for (k, v) in patch_map {
            if v.is_null() {
                t.shift_remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// Whether a `config` key `LoadBalancerConfig` does not know fails the vector.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum UnknownKeys {
    Ignore,
    Reject,
}

/// `base` with each key of a vector's `config` object set from its JSON value.
pub fn config_from(
    mut base: LoadBalancerConfig,
    keys: Option<&Value>,
    unknown: UnknownKeys,
) -> Result<LoadBalancerConfig, String> {
    for (k, v) in keys.and_then(Value::as_object).into_iter().flatten() {
        let known = base
            .set_text(k, &json_to_conf_text(v))
            .map_err(|e| format!("config {k}: {e}"))?;
        if !known && unknown == UnknownKeys::Reject {
            return Err(format!("config key {k} is not known to LoadBalancerConfig"));
        }
    }
    Ok(base)
}

/// The `{config, brokers, bundles, topBundles, args}` document a unit-test vector's steps patch,
/// and its steps (one empty step when it has none).
pub fn doc_and_steps(v: &Value) -> (Value, Vec<Value>) {
    let mut doc = json!({});
    for k in ["config", "brokers", "bundles", "topBundles", "args"] {
        if let (Some(x), Some(obj)) = (v.get(k), doc.as_object_mut()) {
            obj.insert(k.to_string(), x.clone());
        }
    }
    let steps = v
        .get("steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_else(|| vec![json!({})]);
    (doc, steps)
}
