//! Conformance of naming and splitting: every `oracle/` scenario of kinds `topic_bundle`,
//! `split_algorithm`, `bundle_split`; every `oracle-extensible/` scenario of kind
//! `split_decision_extensible` (through `replay`); and every vector of `pulsar-unit-tests/naming`,
//! `split` and `bundle_split_decision` (through the library). Each suite prints
//! `"<suite>: N/M vectors pass"` and fails listing every failing file with a one-line diff.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use indexmap::IndexMap;
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::model::{BundleData, NamespaceBundleStats};
use lbplan_core::naming::{BundleRange, NamespaceBundles, TopicName, crc32};
use lbplan_core::replay::replay;
use lbplan_core::split::{
    BrokerBundleStats, ExtensibleSplitInput, ExtensibleSplitStrategy, FlowOrQpsLimits, SplitError,
    SplitPoints, SplitThresholds, TopicRates, find_bundles_to_split, flow_or_qps_equally_divide,
    range_equally_divide, specified_positions_divide, split_bundles, split_cut_points,
    topic_count_equally_divide,
};
use serde_json::{Value, json};
use support::{
    KnownDivergences, Suite, UnknownKeys, config_from, conformance_dir, read_json, strings,
    vectors_in,
};

/// Vectors we cannot pass, with the reason (file name relative to the conformance root).
const KNOWN_DIVERGENCES: KnownDivergences = &[];

/// Runs `check` on every file, prints the count and fails with one line per failing file.
fn run_suite(suite: &str, files: &[PathBuf], check: impl Fn(&Value) -> Result<(), String>) {
    let root = conformance_dir();
    Suite::new(suite, KNOWN_DIVERGENCES).run_files(
        files,
        |path, _| {
            path.strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string()
        },
        |_, v| check(v),
    );
}

fn files_of_kind(dir: &str, kind: &str) -> Vec<PathBuf> {
    vectors_in(dir)
        .into_iter()
        .filter(|p| {
            read_json(p)
                .pointer("/scenario/kind")
                .and_then(Value::as_str)
                == Some(kind)
        })
        .collect()
}

fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {want:?}"))
    }
}

fn replay_of(file: &Value) -> Result<Value, String> {
    replay(file, None, 0).map_err(|e| format!("replay failed: {e}"))
}

/// Replays `file` and runs `check` on each cycle beside the oracle's (both must have `cycles`).
fn each_cycle(
    file: &Value,
    check: impl Fn(usize, &Value, &Value) -> Result<(), String>,
) -> Result<(), String> {
    let got = replay_of(file)?;
    let want = &file["oracle_output"]["cycles"];
    let (Some(g), Some(w)) = (got["cycles"].as_array(), want.as_array()) else {
        return Err("cycles missing".into());
    };
    expect_eq("cycle count", g.len(), w.len())?;
    for (i, (g, w)) in g.iter().zip(w).enumerate() {
        check(i, g, w)?;
    }
    Ok(())
}

// ----- oracle scenarios, through `replay` ------------------------------------------------------

#[test]
fn oracle_topic_bundle() {
    run_suite(
        "oracle topic_bundle",
        &files_of_kind("oracle", "topic_bundle"),
        |file| {
            let got = replay_of(file)?;
            let want = &file["oracle_output"]["topics"];
            let (Some(got_topics), Some(want_topics)) = (got["topics"].as_array(), want.as_array())
            else {
                return Err("topics missing".into());
            };
            expect_eq("topic count", got_topics.len(), want_topics.len())?;
            for (g, w) in got_topics.iter().zip(want_topics) {
                let topic = &w["topic"];
                if w.get("hash").is_some() {
                    expect_eq(&format!("{topic} hash"), &g["hash"], &w["hash"])?;
                }
                if w.get("error").is_some() {
                    if g.get("error").is_none() {
                        return Err(format!("{topic}: expected an error, got {g}"));
                    }
                } else {
                    expect_eq(&format!("{topic} bundle"), &g["bundle"], &w["bundle"])?;
                }
            }
            Ok(())
        },
    );
}

#[test]
fn oracle_split_algorithm() {
    run_suite(
        "oracle split_algorithm",
        &files_of_kind("oracle", "split_algorithm"),
        |file| {
            let got = replay_of(file)?;
            let want = &file["oracle_output"];
            for key in ["result", "split_boundaries", "new_bundles", "bundles_after"] {
                expect_eq(key, got.get(key), want.get(key))?;
            }
            Ok(())
        },
    );
}

#[test]
fn oracle_bundle_split() {
    run_suite(
        "oracle bundle_split",
        &files_of_kind("oracle", "bundle_split"),
        |file| {
            each_cycle(file, |i, g, w| {
                expect_eq(&format!("cycles[{i}].split"), &g["split"], &w["split"])?;
                // Not compared by the oracle's rules; checks the ConcurrentHashMap order model.
                expect_eq(
                    &format!("cycles[{i}].broker_iteration_order"),
                    &g["broker_iteration_order"],
                    &w["broker_iteration_order"],
                )?;
                Ok(())
            })
        },
    );
}

/// The compared fields of a split decision, as a set.
fn decision_set(decisions: &Value) -> BTreeSet<String> {
    decisions
        .as_array()
        .map(|list| {
            list.iter()
                .map(|d| {
                    json!({
                        "serviceUnit": d["serviceUnit"],
                        "sourceBroker": d["sourceBroker"],
                        "splitServiceUnits": d["splitServiceUnits"],
                        "label": d["label"],
                        "reason": d["reason"],
                    })
                    .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn oracle_split_decision_extensible() {
    run_suite(
        "oracle-extensible split_decision_extensible",
        &files_of_kind("oracle-extensible", "split_decision_extensible"),
        |file| {
            each_cycle(file, |i, g, w| {
                expect_eq(
                    &format!("cycles[{i}].decisions"),
                    decision_set(&g["decisions"]),
                    decision_set(&w["decisions"]),
                )?;
                for key in [
                    "counter_delta",
                    "splitConditionHitCounts",
                    "bundle_iteration_order",
                ] {
                    expect_eq(&format!("cycles[{i}].{key}"), &g[key], &w[key])?;
                }
                Ok(())
            })
        },
    );
}

// ----- pulsar-unit-tests vectors, through the library -----------------------------------------

fn unit_files(dir: &str) -> Vec<PathBuf> {
    vectors_in(&format!("pulsar-unit-tests/{dir}"))
}

fn config_of(vector: &Value) -> LoadBalancerConfig {
    config_from(
        LoadBalancerConfig::for_profile(Profile::Master90cba329),
        vector.get("config"),
        UnknownKeys::Ignore,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn boundary_of(v: &Value) -> Result<u32, String> {
    match v {
        Value::String(s) => {
            lbplan_core::naming::parse_hex_boundary(s).map_err(|e| format!("{s}: {e}"))
        }
        other => other
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("bad boundary {other}")),
    }
}

fn boundaries_of(v: &Value) -> Result<Vec<u32>, String> {
    v.as_array()
        .ok_or("expected a list of boundaries")?
        .iter()
        .map(boundary_of)
        .collect()
}

fn range_names(ranges: &[BundleRange]) -> Vec<String> {
    ranges.iter().map(ToString::to_string).collect()
}

fn check_naming(v: &Value) -> Result<(), String> {
    let expected = &v["expected"];
    let args = &v["args"];
    match v["algorithm"].as_str() {
        Some("NamespaceBundles.defaultPartition") => {
            let n = args["numBundles"].as_u64().ok_or("numBundles")?;
            let n = u32::try_from(n).map_err(|e| e.to_string())?;
            let layout =
                NamespaceBundles::with_default_partition("t/ns", n).map_err(|e| e.to_string())?;
            let data = layout.to_bundles_data();
            expect_eq(
                "BundlesData.boundaries",
                data.boundaries,
                strings(&expected["BundlesData"]["boundaries"]),
            )?;
            expect_eq(
                "BundlesData.numBundles",
                Some(i64::from(data.num_bundles)),
                expected["BundlesData"]["numBundles"].as_i64(),
            )?;
            expect_eq(
                "segment_size",
                Some((1u64 << 32) / u64::from(n)),
                expected["segment_size"].as_u64(),
            )?;
            let ranges: Vec<BundleRange> = layout.ranges().collect();
            let want = expected["bundles"].as_array().ok_or("bundles")?;
            expect_eq("bundle count", ranges.len(), want.len())?;
            for (r, w) in ranges.iter().zip(want) {
                expect_eq("range", Some(r.to_string().as_str()), w["range"].as_str())?;
                expect_eq(
                    &format!("{r} upper inclusive"),
                    Some(r.contains(r.hi)),
                    w["upper_inclusive"].as_bool(),
                )?;
            }
            Ok(())
        }
        Some("NamespaceBundles") => {
            let ns = args["namespace"].as_str().ok_or("namespace")?;
            let layout = NamespaceBundles::new(ns, boundaries_of(&args["partitions"])?)
                .map_err(|e| e.to_string())?;
            expect_eq(
                "bundle_names",
                layout.bundle_names(),
                strings(&expected["bundle_names"]),
            )?;
            let want = expected["bundles"].as_array().ok_or("bundles")?;
            for (r, w) in layout.ranges().zip(want) {
                expect_eq("range", Some(r.to_string().as_str()), w["range"].as_str())?;
                let upper = if r.contains(r.hi) { "closed" } else { "open" };
                expect_eq(&format!("{r} upper"), Some(upper), w["upper"].as_str())?;
                expect_eq(&format!("{r} lower"), Some(r.contains(r.lo)), Some(true))?;
            }
            Ok(())
        }
        Some("ConsistentHashingTopicBundleAssigner") => {
            let cases = expected["cases"].as_array().ok_or("cases")?;
            for case in cases {
                let input = case["topic_input"].as_str().ok_or("topic_input")?;
                let topic = TopicName::parse(input).map_err(|e| e.to_string())?;
                expect_eq(
                    &format!("{input} hashed string"),
                    Some(topic.complete_name()),
                    case["hashed_string"].as_str(),
                )?;
                expect_eq(
                    &format!("{input} crc32"),
                    Some(u64::from(topic.bundle_hash())),
                    case["crc32"].as_u64(),
                )?;
                expect_eq(
                    &format!("{input} crc32_hex"),
                    Some(format!("{:#010x}", crc32(topic.complete_name().as_bytes())).as_str()),
                    case["crc32_hex"].as_str(),
                )?;
                for n in ["n4", "n16", "n32", "n64"] {
                    let layout = NamespaceBundles::new(
                        topic.namespace.as_str(),
                        boundaries_of(&args["partitions"][n])?,
                    )
                    .map_err(|e| e.to_string())?;
                    let range = layout.find_bundle(&topic).map_err(|e| e.to_string())?;
                    expect_eq(
                        &format!("{input} bundle_{n}"),
                        Some(range.to_string().as_str()),
                        case[format!("bundle_{n}")].as_str(),
                    )?;
                    expect_eq(
                        &format!("{input} bundle_index_{n}"),
                        Some(layout.bundle_index_for_hash(topic.bundle_hash()) as u64),
                        case[format!("bundle_index_{n}")].as_u64(),
                    )?;
                }
            }
            Ok(())
        }
        other => Err(format!("unknown naming vector algorithm {other:?}")),
    }
}

#[test]
fn unit_naming() {
    run_suite(
        "pulsar-unit-tests naming",
        &unit_files("naming"),
        check_naming,
    );
}

/// A layout of `namespace` in which `range` is one bundle.
fn layout_containing(namespace: &str, range: BundleRange) -> NamespaceBundles {
    let mut b = vec![0, range.lo, range.hi, u32::MAX];
    b.dedup();
    NamespaceBundles::new(namespace, b).unwrap_or_else(|e| panic!("layout: {e}"))
}

fn range_arg(v: &Value) -> Result<BundleRange, String> {
    match v {
        Value::String(s) => BundleRange::parse(s).map_err(|e| e.to_string()),
        Value::Object(o) => {
            let lo = o.get("lower").ok_or("lower")?;
            let hi = o.get("upper").ok_or("upper")?;
            BundleRange::new(boundary_of(lo)?, boundary_of(hi)?).map_err(|e| e.to_string())
        }
        _ => Err(format!("bad bundle {v}")),
    }
}

fn expect_points(
    what: &str,
    got: &Result<SplitPoints, SplitError>,
    want: &Value,
) -> Result<(), String> {
    if want.get("error").is_some() {
        return match got {
            Err(_) => Ok(()),
            Ok(p) => Err(format!("{what}: expected an error, got {p:?}")),
        };
    }
    let got = got
        .as_ref()
        .map_err(|e| format!("{what}: unexpected error {e}"))?;
    if let Some(set) = want.get("boundaries_set") {
        let want: BTreeSet<u32> = boundaries_of(set)?.into_iter().collect();
        let have: BTreeSet<u32> = got
            .cut_points()
            .unwrap_or_default()
            .iter()
            .copied()
            .collect();
        return expect_eq(what, have, want);
    }
    match want.get("boundaries") {
        Some(Value::Null) => expect_eq(what, got.cut_points(), None),
        Some(list) => expect_eq(
            what,
            got.cut_points().map(<[u32]>::to_vec),
            Some(boundaries_of(list)?),
        ),
        None => Ok(()),
    }
}

fn hashes_of(topics: &Value) -> Vec<u32> {
    strings(topics)
        .iter()
        .map(|t| crc32(t.as_bytes()))
        .collect()
}

fn flow_topics(args: &Value) -> Result<Vec<(u32, Option<TopicRates>)>, String> {
    let stats = &args["topicStats"];
    strings(&args["topics"])
        .iter()
        .map(|t| {
            let s = &stats[t.as_str()];
            let rates = s.is_object().then(|| TopicRates {
                msg_rate_in: s["msgRateIn"].as_f64().unwrap_or(0.0),
                msg_rate_out: s["msgRateOut"].as_f64().unwrap_or(0.0),
                msg_throughput_in: s["msgThroughputIn"].as_f64().unwrap_or(0.0),
                msg_throughput_out: s["msgThroughputOut"].as_f64().unwrap_or(0.0),
            });
            Ok((crc32(t.as_bytes()), rates))
        })
        .collect()
}

/// Each step's effective args: the vector's args overridden by the step's.
fn step_args(v: &Value) -> Vec<(Value, Value)> {
    match (v["steps"].as_array(), v["expected"]["steps"].as_array()) {
        (Some(steps), Some(expected)) => steps
            .iter()
            .zip(expected)
            .map(|(s, e)| {
                let mut args = v["args"].clone();
                if let (Some(a), Some(over)) = (args.as_object_mut(), s["args"].as_object()) {
                    for (k, val) in over {
                        a.insert(k.clone(), val.clone());
                    }
                }
                (args, e.clone())
            })
            .collect(),
        _ => vec![(v["args"].clone(), v["expected"].clone())],
    }
}

fn check_split(v: &Value) -> Result<(), String> {
    let cfg = config_of(v);
    let algorithm = v["algorithm"].as_str().unwrap_or_default();
    for (i, (args, want)) in step_args(v).into_iter().enumerate() {
        let what = format!("step {i}");
        match algorithm {
            "NamespaceBundleFactory.splitBundles" => {
                let ns = args["namespace"].as_str().unwrap_or("t/ns");
                let cases: Vec<Value> = match want["cases"].as_array() {
                    Some(c) => c.clone(),
                    None => vec![json!({})],
                };
                for case in cases {
                    let pick = |k: &str| case.get(k).or_else(|| args.get(k)).cloned();
                    let range = range_arg(&pick("bundle").ok_or("bundle")?)?;
                    let layout = layout_containing(ns, range);
                    let boundaries = match pick("splitBoundaries") {
                        Some(b) => Some(boundaries_of(&b)?),
                        None => None,
                    };
                    let n = pick("numBundles")
                        .and_then(|n| n.as_u64())
                        .and_then(|n| u32::try_from(n).ok())
                        .unwrap_or(2);
                    let got = split_bundles(&layout, range, n, boundaries.as_deref());
                    let expected_result = case.get("result").or_else(|| want.get("result"));
                    if want.get("error").is_some() {
                        if got.is_ok() {
                            return Err(format!("{what}: expected an error, got {got:?}"));
                        }
                        continue;
                    }
                    let split = got.map_err(|e| format!("{what}: {e}"))?;
                    if let Some(r) = expected_result {
                        expect_eq(&what, range_names(&split.children), strings(r))?;
                    }
                    if let Some(d) = v["derived"].get("result") {
                        expect_eq(
                            &format!("{what} derived"),
                            range_names(&split.children),
                            strings(d),
                        )?;
                    }
                    if let Some(c) = want["result_count"].as_u64() {
                        expect_eq("result_count", split.children.len() as u64, c)?;
                    }
                    if want["covers_parent_range"].as_bool() == Some(true) {
                        let first = split.children.first().map(|r| r.lo);
                        let last = split.children.last().map(|r| r.hi);
                        expect_eq(
                            "covers parent",
                            (first, last),
                            (Some(range.lo), Some(range.hi)),
                        )?;
                    }
                    if let Some(c) = want["namespace_bundle_count_after"].as_u64() {
                        // The vector's namespace had the full range as its only bundle.
                        let full = NamespaceBundles::with_default_partition(ns, 1)
                            .map_err(|e| e.to_string())?;
                        let after = split_bundles(&full, range, n, boundaries.as_deref())
                            .map_err(|e| e.to_string())?;
                        expect_eq("bundle count after", after.layout_after.len() as u64, c)?;
                    }
                }
            }
            "range_equally_divide" => {
                let range = range_arg(&args["bundle"])?;
                expect_points(&what, &Ok(range_equally_divide(range)), &want)?;
                for case in v["derived"]["more_cases"].as_array().into_iter().flatten() {
                    let r = range_arg(&case["bundle"])?;
                    let mid = range_equally_divide(r);
                    expect_eq(
                        &format!("{r}"),
                        mid.cut_points().map(<[u32]>::to_vec),
                        Some(boundaries_of(&case["boundaries"])?),
                    )?;
                }
            }
            "topic_count_equally_divide" => {
                let got = Ok(topic_count_equally_divide(&hashes_of(&args["topics"])));
                expect_points(&what, &got, &want)?;
            }
            "specified_positions_divide" => {
                let range = range_arg(&args["bundle"])?;
                let positions: Vec<i64> = args["positions"]
                    .as_array()
                    .map(|l| l.iter().filter_map(Value::as_i64).collect())
                    .unwrap_or_default();
                let topics = strings(&args["topics"]).len();
                let force = args["force"].as_bool().unwrap_or(false);
                let got = specified_positions_divide(range, &positions, topics, force);
                expect_points(&what, &got, &want)?;
            }
            "flow_or_qps_equally_divide" => {
                let got = flow_or_qps_equally_divide(
                    &flow_topics(&args)?,
                    &FlowOrQpsLimits::from_config(&cfg),
                )
                .map_err(|e| e.to_string())?;
                let cuts = got.cut_points().map(<[u32]>::to_vec).unwrap_or_default();
                if let Some(first) = want["first_boundary"].as_u64() {
                    expect_eq(
                        "first boundary",
                        cuts.first().map(|c| u64::from(*c)),
                        Some(first),
                    )?;
                }
                if want.get("property").is_some() {
                    check_flow_property(&args, &cfg, &cuts)?;
                }
                if let Some(d) = v["derived"].get("boundaries") {
                    expect_eq("derived boundaries", cuts, boundaries_of(d)?)?;
                }
            }
            other => return Err(format!("unknown split vector algorithm {other:?}")),
        }
    }
    Ok(())
}

/// "For every returned position p, the topics whose hash lies in [previous position, p) sum to less
/// than the rate limit and the bandwidth limit."
fn check_flow_property(args: &Value, cfg: &LoadBalancerConfig, cuts: &[u32]) -> Result<(), String> {
    let topics = flow_topics(args)?;
    let max_rate = cfg.load_balancer_namespace_bundle_max_msg_rate as f64;
    let max_bw = cfg.load_balancer_namespace_bundle_max_bandwidth_mbytes as f64 * 1_048_576.0;
    let mut previous = 0u32;
    for &p in cuts {
        let (mut rate, mut bw) = (0.0, 0.0);
        for (h, r) in &topics {
            if let Some(r) = r.as_ref().filter(|_| *h >= previous && *h < p) {
                rate += r.msg_rate_in + r.msg_rate_out;
                bw += r.msg_throughput_in + r.msg_throughput_out;
            }
        }
        if !(rate < max_rate && bw < max_bw) {
            return Err(format!(
                "segment [{previous}, {p}) carries {rate} msg/s, {bw} B/s"
            ));
        }
        previous = p;
    }
    Ok(())
}

#[test]
fn unit_split() {
    run_suite("pulsar-unit-tests split", &unit_files("split"), check_split);
}

/// The unit test's broker: owns everything (or nothing), mocked bundle count, no splitting bundles,
/// `getSplitBoundary` mocked to `range_equally_divide`.
struct MockBroker {
    name: String,
    owns_all: bool,
    counts: BTreeMap<String, i64>,
    splitting: Vec<String>,
}

impl ExtensibleSplitInput for MockBroker {
    fn local_broker(&self) -> &str {
        &self.name
    }
    fn is_owner(&self, _bundle: &str) -> bool {
        self.owns_all
    }
    fn namespace_bundle_count(&self, namespace: &str) -> Option<i64> {
        Some(self.counts.get(namespace).copied().unwrap_or(0))
    }
    fn splitting_bundles(&self) -> Vec<String> {
        self.splitting.clone()
    }
    fn split_boundary(&self, _bundle: &str, range: BundleRange) -> Result<SplitPoints, SplitError> {
        Ok(range_equally_divide(range))
    }
}

fn stats_map(v: &Value) -> Result<Vec<(String, NamespaceBundleStats)>, String> {
    v.as_object()
        .ok_or("expected a stats map")?
        .iter()
        .map(|(b, s)| {
            serde_json::from_value(s.clone())
                .map(|s| (b.clone(), s))
                .map_err(|e| format!("{b}: {e}"))
        })
        .collect()
}

fn counts_of(v: &Value) -> BTreeMap<String, i64> {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, n)| n.as_i64().map(|n| (k.clone(), n)))
                .collect()
        })
        .unwrap_or_default()
}

fn check_split_decision(v: &Value) -> Result<(), String> {
    let cfg = config_of(v);
    match v["algorithm"].as_str() {
        Some("BundleSplitterTask") => {
            let mut reports = Vec::new();
            for (broker, data) in v["brokers"].as_object().ok_or("brokers")? {
                reports.push((broker.clone(), stats_map(&data["lastStats"])?));
            }
            let brokers: Vec<BrokerBundleStats<'_>> = reports
                .iter()
                .map(|(b, s)| BrokerBundleStats {
                    broker: b,
                    bundles: s.iter().map(|(n, st)| (n.as_str(), st)).collect(),
                })
                .collect();
            let mut bundle_data: IndexMap<String, BundleData> = IndexMap::new();
            for (name, d) in v["bundles"].as_object().ok_or("bundles")? {
                let d = serde_json::from_value(d.clone()).map_err(|e| format!("{name}: {e}"))?;
                bundle_data.insert(name.clone(), d);
            }
            let counts = counts_of(&v["args"]["namespaceBundleCount"]);
            let plan = find_bundles_to_split(
                &brokers,
                &bundle_data,
                |ns| Some(counts.get(ns).copied().unwrap_or(1)),
                &SplitThresholds::from_config(&cfg),
            );
            let want = &v["expected"];
            if let Some(n) = want["bundlesToSplit_count"].as_u64() {
                expect_eq("bundlesToSplit count", plan.accepted.len() as u64, n)?;
            }
            if let Some(n) = want["bundlesToSplit_count_plus_current_bundle_count"].as_i64() {
                let current: i64 = counts.values().sum();
                expect_eq("count + current", plan.accepted.len() as i64 + current, n)?;
            }
            if let Some(map) = want["bundlesToSplit"].as_object() {
                let got: BTreeMap<String, String> = plan
                    .accepted
                    .iter()
                    .map(|c| (c.bundle.clone(), c.broker.clone()))
                    .collect();
                let want: BTreeMap<String, String> = map
                    .iter()
                    .map(|(k, b)| (k.clone(), b.as_str().unwrap_or_default().to_string()))
                    .collect();
                expect_eq("bundlesToSplit", got, want)?;
            }
            Ok(())
        }
        Some("DefaultNamespaceBundleSplitStrategyImpl") => {
            let args = &v["args"];
            let broker_name = args["thisBroker"].as_str().ok_or("thisBroker")?;
            let stats = stats_map(&v["brokers"][broker_name]["bundleStats_in_iteration_order"])?;
            let broker = MockBroker {
                name: broker_name.to_string(),
                owns_all: args["ownsAllBundles"].as_bool().unwrap_or(true),
                counts: counts_of(&args["namespaceBundleCount"]),
                splitting: strings(&args["bundlesInSplittingState"]),
            };
            let mut strategy = ExtensibleSplitStrategy::new();
            let steps = v["expected"]["steps"].as_array().ok_or("expected.steps")?;
            for (i, want) in steps.iter().enumerate() {
                let cycle = strategy.find_bundles_to_split(&stats, &broker, &cfg);
                let got: BTreeSet<String> = cycle
                    .decisions
                    .iter()
                    .map(|d| {
                        json!({
                            "parent": d.service_unit,
                            "sourceBroker": d.source_broker,
                            "children": range_names(&d.children),
                            "label": "Success",
                            "reason": d.reason.name(),
                        })
                        .to_string()
                    })
                    .collect();
                let want: BTreeSet<String> = want["splits"]
                    .as_array()
                    .ok_or("splits")?
                    .iter()
                    .map(Value::to_string)
                    .collect();
                expect_eq(&format!("step {i} splits"), got, want)?;
            }
            Ok(())
        }
        other => Err(format!("unknown split-decision algorithm {other:?}")),
    }
}

#[test]
fn unit_bundle_split_decision() {
    run_suite(
        "pulsar-unit-tests bundle_split_decision",
        &unit_files("bundle_split_decision"),
        check_split_decision,
    );
}

#[test]
fn cut_points_of_the_reference_examples() {
    // Reference §5.1: the full range in two gives 0x7fffffff; in four 0x3fffffff, 0x7ffffffe, 0xbffffffd.
    assert_eq!(
        split_cut_points(BundleRange::FULL, 2, None),
        Ok(vec![0x7fff_ffff])
    );
    assert_eq!(
        split_cut_points(BundleRange::FULL, 4, None),
        Ok(vec![0x3fff_ffff, 0x7fff_fffe, 0xbfff_fffd])
    );
}
