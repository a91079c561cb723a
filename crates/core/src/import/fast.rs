//! The fast typed path for our snapshot file: serde derive straight from the text into borrowed
//! structs, then the same checks as the generic walk, without building a `serde_json::Value` tree.
//!
//! It reports nothing. Whenever an input has an error, or anything the generic walk would warn
//! about (an unknown field, a `-1` sample, totals that disagree, …), it answers `None` and the caller
//! runs the generic walk, which produces the exact message. So a `Some` here must equal what the
//! generic walk returns with no warning: `tests` below and the corpus tests check that.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::broker_report::{self, RawLocalBrokerData};
use super::bundle_data::{self, RawBundleData};
use super::diag::{Diag, ImportError};
use super::json::Ctx;
use super::policies::MAX_BUNDLES_PER_NAMESPACE;
use super::snapshot_file::{self, BrokerParts, NamespaceParts, Parts};
use super::time_average::{self, RawTimeAverage};
use super::typed::Object;
use super::{broker_load_data, cluster, top_bundles};
use crate::naming::{BundleName, BundleRange, parse_bundle_name, parse_hex_boundary};
use rustc_hash::FxHashSet;

// ---------------------------------------------------------------------------------------------
// Leaf types

/// A string, borrowed from the text unless it had escapes.
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V(PhantomData))
    }
}

/// A struct read from a JSON object only (derived structs would also take an array of values in
/// field order, which the generic walk refuses).
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// A whole number as `Ctx::integer` reads it: a JSON integer, or a float without a fraction below
/// 9e15 (Jackson coerces `3.0`).
struct Int(i64);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                i64::try_from(v)
                    .map(Int)
                    .map_err(|_| E::custom("out of range"))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Int, E> {
                if x.fract() == 0.0 && x.abs() < 9.0e15 {
                    Ok(Int(x as i64))
                } else {
                    Err(E::custom("not an integer"))
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn non_negative_i64(x: Option<Int>) -> Option<Option<i64>> {
    match x {
        Some(Int(v)) if v < 0 => None,
        Some(Int(v)) => Some(Some(v)),
        None => Some(None),
    }
}

/// A JSON object's entries in document order (a duplicate key is kept twice: callers refuse it).
struct Entries<'a, T>(Vec<(Cow<'a, str>, T)>);

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for Entries<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, T>(PhantomData<(&'a (), T)>);
        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for V<'a, T> {
            type Value = Entries<'a, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((k, v)) = map.next_entry::<Str<'a>, T>()? {
                    out.push((k.0, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// Whether all keys differ (the generic walk would silently keep the last of equal keys).
fn distinct<'k>(keys: impl ExactSizeIterator<Item = &'k str>) -> bool {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(keys.len());
    keys.into_iter().all(|k| seen.insert(k))
}

fn owned(s: Option<Str<'_>>) -> Option<String> {
    s.map(|s| s.0.into_owned())
}

// ---------------------------------------------------------------------------------------------
// BundlesData and policies

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBundlesData<'a> {
    #[serde(borrow)]
    boundaries: Option<Vec<Str<'a>>>,
    num_bundles: Option<Int>,
}

/// Boundaries the generic walk accepts: 2 to 2²⁰+1 strictly increasing hex values from 0 to
/// 0xffffffff, `numBundles` (if given) one less than their count. Without `boundaries` (default
/// partitioning from `numBundles`) the generic walk decides.
fn boundaries(raw: RawBundlesData<'_>) -> Option<Vec<u32>> {
    let num = non_negative_i64(raw.num_bundles)?;
    let list = raw.boundaries?;
    if list.len() < 2 || list.len() > MAX_BUNDLES_PER_NAMESPACE + 1 {
        return None;
    }
    let mut out: Vec<u32> = Vec::with_capacity(list.len());
    for b in &list {
        let x = parse_hex_boundary(&b.0).ok()?;
        if out.last().is_some_and(|&prev| x <= prev) {
            return None;
        }
        out.push(x);
    }
    let ok = out.first() == Some(&0)
        && out.last() == Some(&u32::MAX)
        && num.is_none_or(|n| usize::try_from(n).is_ok_and(|n| n + 1 == out.len()));
    ok.then_some(out)
}

// ---------------------------------------------------------------------------------------------
// Our snapshot

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBroker<'a> {
    #[serde(borrow)]
    local_broker_data: Option<Object<'a, RawLocalBrokerData<'a>>>,
    #[serde(borrow)]
    time_average_broker_data: Option<Object<'a, RawTimeAverage<'a>>>,
    broker_load_data: Option<Value>,
    top_bundles_load_data: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNamespace<'a> {
    #[serde(borrow)]
    bundles: Option<Obj<RawBundlesData<'a>>>,
    #[serde(borrow)]
    anti_affinity_group: Option<Str<'a>>,
    topics: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSnapshot<'a> {
    format_version: Int,
    #[serde(borrow)]
    cluster: Option<Str<'a>>,
    captured_at_ms: Option<Int>,
    #[serde(borrow)]
    leader_broker: Option<Str<'a>>,
    broker_conf: Option<Value>,
    #[serde(borrow)]
    brokers: Option<Entries<'a, Obj<RawBroker<'a>>>>,
    #[serde(borrow)]
    bundle_data: Option<Entries<'a, Object<'a, RawBundleData<'a>>>>,
    #[serde(borrow)]
    namespaces: Option<Entries<'a, Obj<RawNamespace<'a>>>>,
    failure_domains: Option<Value>,
    namespace_isolation_policies: Option<Value>,
    recently_unloaded_bundles: Option<Value>,
}

/// Runs a generic reader on a small part (kept as a `Value`) with its warnings captured: `Some`
/// only when it neither fails nor warns.
fn quietly<T>(file: &str, f: impl FnOnce(&mut Ctx<'_>) -> Result<T, ImportError>) -> Option<T> {
    let mut scratch = Diag::default();
    let out = f(&mut Ctx {
        file,
        diag: &mut scratch,
    })
    .ok()?;
    scratch.is_empty().then_some(out)
}

fn broker(file: &str, name: &str, raw: RawBroker<'_>) -> Option<BrokerParts> {
    let lbd = raw.local_broker_data?;
    let report = quietly(file, |ctx| {
        broker_report::check_local_broker_data(ctx, lbd, &super::json::JPath::ROOT)
    })?
    .data;
    let time_average = match raw.time_average_broker_data {
        Some(t) => Some(quietly(file, |ctx| {
            time_average::check(ctx, t, &super::json::JPath::ROOT)
        })?),
        None => None,
    };
    let root = super::json::JPath::ROOT;
    let pb = root.key("brokers");
    let p = pb.key(name);
    let load_data = match &raw.broker_load_data {
        Some(v) => Some(quietly(file, |ctx| {
            broker_load_data::parse(ctx, v, &p.key("broker_load_data"))
        })?),
        None => None,
    };
    let top_bundles = match &raw.top_bundles_load_data {
        Some(v) => Some(quietly(file, |ctx| {
            top_bundles::parse(ctx, v, &p.key("top_bundles_load_data"))
        })?),
        None => None,
    };
    Some(BrokerParts {
        name: name.to_string(),
        report,
        time_average,
        load_data,
        top_bundles,
    })
}

fn namespace(file: &str, name: &str, raw: RawNamespace<'_>) -> Option<NamespaceParts> {
    let boundaries = match raw.bundles {
        Some(Obj(b)) => Some(boundaries(b)?),
        None => None,
    };
    let topics = match &raw.topics {
        Some(v) => {
            let root = super::json::JPath::ROOT;
            let pn = root.key("namespaces");
            let p = pn.key(name);
            Some(quietly(file, |ctx| {
                snapshot_file::read_topics(ctx, name, v, &p.key("topics"))
            })?)
        }
        None => None,
    };
    Some(NamespaceParts {
        name: name.to_string(),
        boundaries,
        anti_affinity_group: owned(raw.anti_affinity_group),
        topics,
    })
}

/// Our snapshot file, as [`Parts`] for [`snapshot_file::apply`].
pub(crate) fn snapshot(file: &str, text: &str) -> Option<Parts> {
    let Obj(raw): Obj<RawSnapshot<'_>> = serde_json::from_str(text).ok()?;
    let version = non_negative_i64(Some(raw.format_version))??;
    let mut parts = Parts::default();
    quietly(file, |ctx| snapshot_file::check_version(ctx, version))?;
    parts.cluster = owned(raw.cluster);
    parts.leader = owned(raw.leader_broker);
    parts.captured_at_ms = non_negative_i64(raw.captured_at_ms)?;
    if let Some(v) = &raw.broker_conf {
        parts.conf = quietly(file, |ctx| snapshot_file::read_conf(ctx, v))?;
    }
    if let Some(brokers) = raw.brokers {
        if !distinct(brokers.0.iter().map(|(k, _)| k.as_ref())) {
            return None;
        }
        parts.brokers = brokers
            .0
            .into_iter()
            .map(|(name, b)| broker(file, &name, b.0))
            .collect::<Option<_>>()?;
    }
    if let Some(data) = raw.bundle_data {
        let mut out = Vec::with_capacity(data.0.len());
        // One scratch for all: a bundle's warning (or error) sends the whole file to the generic walk.
        let mut scratch = Diag::default();
        let mut ctx = Ctx {
            file,
            diag: &mut scratch,
        };
        for (key, d) in data.0 {
            let bn: BundleName = parse_bundle_name(&key).ok()?;
            let d = bundle_data::check(&mut ctx, d, &super::json::JPath::ROOT).ok()?;
            out.push((key.into_owned(), bn, d));
        }
        if !scratch.is_empty() {
            return None;
        }
        // Two keys for one bundle: a repeated key, or two spellings (an error in the generic walk).
        let mut seen: FxHashSet<(&str, BundleRange)> = FxHashSet::default();
        seen.reserve(out.len());
        if !out
            .iter()
            .all(|(_, bn, _)| seen.insert((bn.namespace.as_str(), bn.range)))
        {
            return None;
        }
        drop(seen);
        parts.bundle_data = out;
    }
    if let Some(nss) = raw.namespaces {
        if !distinct(nss.0.iter().map(|(k, _)| k.as_ref())) {
            return None;
        }
        parts.namespaces = nss
            .0
            .into_iter()
            .map(|(name, n)| namespace(file, &name, n.0))
            .collect::<Option<_>>()?;
    }
    if let Some(v) = &raw.failure_domains {
        parts.failure_domains = quietly(file, |ctx| snapshot_file::read_failure_domains(ctx, v))?;
    }
    if let Some(v) = &raw.namespace_isolation_policies {
        let root = super::json::JPath::ROOT;
        let pi = root.key("namespace_isolation_policies");
        parts.isolation = quietly(file, |ctx| cluster::parse_isolation_policies(ctx, v, &pi))?;
    }
    if let Some(v) = &raw.recently_unloaded_bundles {
        parts.recently_unloaded =
            quietly(file, |ctx| snapshot_file::read_recently_unloaded(ctx, v))?;
    }
    Some(parts)
}

#[cfg(test)]
pub(crate) mod tests {
    //! The fast path must give exactly what the generic walk gives: whole imports are compared with
    //! and without it, on the corpus and on every single-node mutation of its JSON (each node
    //! replaced by values that hit the checks: negatives, zero, -1, wrong types, NaN strings, arrays
    //! for objects, …, and each object's first key renamed).

    use std::cell::Cell;
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use crate::import::{ImportError, ImportInput, Imported, import};

    thread_local! {
        /// Set by [`generic_only`]: `fast_path` declines everything.
        pub(crate) static GENERIC_ONLY: Cell<bool> = const { Cell::new(false) };
    }

    fn generic_only<T>(f: impl FnOnce() -> T) -> T {
        GENERIC_ONLY.with(|g| g.set(true));
        let out = f();
        GENERIC_ONLY.with(|g| g.set(false));
        out
    }

    type Outcome = Result<Imported, ImportError>;

    fn both(inputs: &[ImportInput<'_>]) -> (Outcome, Outcome) {
        (import(inputs), generic_only(|| import(inputs)))
    }

    fn corpus() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import_corpus")
    }

    fn files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                files(&p, out);
            } else {
                let rel = p
                    .strip_prefix(corpus())
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }

    fn corpus_files() -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        files(&corpus(), &mut out);
        assert!(out.len() > 40, "corpus missing: {}", corpus().display());
        out
    }

    /// The metadata-store tree with metadata-store paths, and the snapshot it imports to.
    fn tree_and_snapshot() -> (Vec<(String, Vec<u8>)>, Vec<u8>) {
        let tree: Vec<(String, Vec<u8>)> = corpus_files()
            .into_iter()
            .filter_map(|(n, b)| Some((n.strip_prefix("metadata-store/")?.to_string(), b)))
            .collect();
        let inputs: Vec<ImportInput<'_>> = tree
            .iter()
            .map(|(n, b)| ImportInput::in_tree(n.as_str(), b.as_slice()))
            .collect();
        let snapshot = import(&inputs).unwrap().snapshot;
        (tree, serde_json::to_vec_pretty(&snapshot).unwrap())
    }

    #[test]
    fn corpus_imports_the_same_with_and_without_the_fast_path() {
        for (name, bytes) in &corpus_files() {
            let one = [ImportInput::given(name.as_str(), bytes.as_slice())];
            let (fast, generic) = both(&one);
            assert_eq!(fast, generic, "{name}");
        }
        let (tree, snapshot) = tree_and_snapshot();
        let inputs: Vec<ImportInput<'_>> = tree
            .iter()
            .map(|(n, b)| ImportInput::in_tree(n.as_str(), b.as_slice()))
            .collect();
        let (fast, generic) = both(&inputs);
        assert_eq!(fast, generic);
        let snap = [ImportInput::given("snapshot.json", snapshot.as_slice())];
        let (fast, generic) = both(&snap);
        assert_eq!(fast, generic);
        assert!(fast.unwrap().warnings.is_empty());
    }

    fn replacements() -> Vec<Value> {
        vec![
            Value::Null,
            json!(-1),
            json!(-1.0),
            json!(-5),
            json!(0),
            json!(-0.0),
            json!(3.0),
            json!(2.5),
            json!(2147483648u64),
            json!(9007199254740993u64),
            json!(1e300),
            json!("NaN"),
            json!("x"),
            json!("public/default/0x00000000_0xFFFFFFFF"),
            json!(true),
            json!([]),
            json!([1, 2]),
            json!({}),
            json!({"usage": 1.0, "limit": 2.0}),
        ]
    }

    /// The child indices leading to every node of `v`, depth first (the root first).
    fn node_paths(v: &Value, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(path.clone());
        let children: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            Value::Object(m) => m.values().collect(),
            _ => Vec::new(),
        };
        for (k, c) in children.into_iter().enumerate() {
            path.push(k);
            node_paths(c, path, out);
            path.pop();
        }
    }

    fn node_mut<'v>(v: &'v mut Value, path: &[usize]) -> Option<&'v mut Value> {
        let mut cur = v;
        for &k in path {
            cur = match cur {
                Value::Array(a) => a.get_mut(k)?,
                Value::Object(m) => m.values_mut().nth(k)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    fn json_inputs() -> Vec<(String, Value)> {
        let (tree, snapshot) = tree_and_snapshot();
        let mut out: Vec<(String, Value)> = tree
            .into_iter()
            .filter_map(|(n, b)| Some((n, serde_json::from_slice(&b).ok()?)))
            .collect();
        out.push((
            "snapshot.json".to_string(),
            serde_json::from_slice(&snapshot).unwrap(),
        ));
        for f in ["LocalBrokerDataTest.json", "issue-15313.json"] {
            let b = std::fs::read(corpus().join("reports").join(f)).unwrap();
            out.push((
                format!("loadbalance/brokers/{f}"),
                serde_json::from_slice(&b).unwrap(),
            ));
        }
        out
    }

    fn check(name: &str, v: &Value, what: &str, failures: &mut Vec<String>) {
        let text = serde_json::to_string(v).unwrap();
        let one = [ImportInput::in_tree(name, text.as_bytes())];
        let (fast, generic) = both(&one);
        if fast != generic {
            failures.push(format!(
                "{name}: {what}: fast {fast:?}\n   generic {generic:?}"
            ));
        }
    }

    #[test]
    fn every_single_node_mutation_imports_the_same() {
        let reps = replacements();
        let keys = ["fooBar", "public/default/0x00000000_0X40000000", "cpu", ""];
        let mut failures = Vec::new();
        let mut cases = 0usize;
        for (name, v) in json_inputs() {
            let mut paths = Vec::new();
            node_paths(&v, &mut Vec::new(), &mut paths);
            for path in &paths {
                for r in &reps {
                    let mut m = v.clone();
                    if let Some(slot) = node_mut(&mut m, path) {
                        *slot = r.clone();
                    }
                    check(&name, &m, &format!("{path:?} = {r}"), &mut failures);
                    cases += 1;
                }
                for k in keys {
                    let mut m = v.clone();
                    if let Some(Value::Object(o)) = node_mut(&mut m, path)
                        && let Some((old, x)) = o.iter().next().map(|(k, x)| (k.clone(), x.clone()))
                    {
                        o.shift_remove(&old);
                        o.insert(k.to_string(), x);
                        check(
                            &name,
                            &m,
                            &format!("{path:?} key {old} -> {k}"),
                            &mut failures,
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 5000, "{cases} cases");
        assert!(
            failures.is_empty(),
            "{} of {cases} mutations differ:\n{}",
            failures.len(),
            failures
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
