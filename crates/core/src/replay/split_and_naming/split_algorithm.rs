//! `split_algorithm`: one split-bundle admin call on a namespace layout: the algorithm's cut points
//! (`split_boundaries`), then `NamespaceBundleFactory.splitBundles` (`new_bundles`, `bundles_after`).
//! `algorithm: "none"` is a plain `n`-way split (`numBundles_split`).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::input;
use crate::config::LoadBalancerConfig;
use crate::naming::{BundleRange, crc32};
use crate::replay::error::ReplayError;
use crate::replay::json::{self, Boundary, ConfigKeys, LongOrText};
use crate::split::{
    FlowOrQpsLimits, SplitAlgorithm, SplitError, SplitPoints, TopicRates,
    flow_or_qps_equally_divide, range_equally_divide, specified_positions_divide, split_bundles,
    topic_count_equally_divide,
};

/// A `kind: "split_algorithm"` scenario.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    config: Option<ConfigKeys>,
    namespace: String,
    num_bundles: Option<u32>,
    boundaries: Option<Vec<Boundary>>,
    /// The bundle to split (`0x…_0x…`).
    bundle: String,
    /// A split algorithm's name, or `none` for a plain `numBundles_split`-way split.
    algorithm: String,
    /// The topics the bundle owns.
    #[serde(default)]
    topics: Vec<String>,
    #[serde(rename = "numBundles_split")]
    num_bundles_split: Option<u32>,
    /// `specified_positions_divide`'s positions.
    positions: Option<Vec<LongOrText>>,
    /// topic → its rates, for `flow_or_qps_equally_divide`.
    topic_stats: Option<IndexMap<String, TopicRatesInput>>,
}

/// A topic's rates; missing = 0.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TopicRatesInput {
    msg_rate_in: Option<f64>,
    msg_rate_out: Option<f64>,
    msg_throughput_in: Option<f64>,
    msg_throughput_out: Option<f64>,
}

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let scenario: Scenario = json::read(scenario, base)?;
    let cfg = input::config(scenario.config.as_ref(), base)?;
    let namespace = scenario.namespace.as_str();
    let layout = input::layout(
        namespace,
        scenario.boundaries.as_deref(),
        scenario.num_bundles,
        base,
    )?;
    let target = BundleRange::parse(&scenario.bundle)
        .map_err(|e| ReplayError::malformed(format!("{base}.bundle"), e.to_string()))?;
    let algorithm_path = format!("{base}.algorithm");
    let algorithm_name = scenario.algorithm.as_str();
    let topics = &scenario.topics;

    let mut out = Map::new();
    out.insert("kind".into(), json!("split_algorithm"));
    out.insert(
        "bundles_before".into(),
        json!(input::range_strings(&layout)),
    );
    out.insert("target".into(), json!(format!("{namespace}/{target}")));
    out.insert("algorithm".into(), json!(algorithm_name));
    let hashes: Map<String, Value> = topics
        .iter()
        .map(|t| (t.clone(), json!(crc32(t.as_bytes()))))
        .collect();
    out.insert("topic_hashes".into(), Value::Object(hashes));

    if layout.position_of(target).is_none() {
        out.insert("result".into(), json!("target_not_found"));
        out.insert("split_boundaries".into(), Value::Null);
        return Ok(Value::Object(out));
    }

    if algorithm_name == "none" {
        let n = scenario
            .num_bundles_split
            .ok_or_else(|| ReplayError::malformed(format!("{base}.numBundles_split"), "missing"))?;
        record_split(&mut out, split_bundles(&layout, target, n, None));
        return Ok(Value::Object(out));
    }

    let algorithm = SplitAlgorithm::from_name(algorithm_name)
        .ok_or_else(|| ReplayError::malformed(&algorithm_path, "unknown split algorithm"))?;
    let points = cut_points(&scenario, &cfg, algorithm, target, topics);
    match points {
        Err(e) => {
            out.insert("result".into(), json!("error"));
            out.insert("error".into(), json!(e.to_string()));
            out.insert("split_boundaries".into(), Value::Null);
        }
        Ok(points) => match points.cut_points() {
            None => {
                out.insert("result".into(), json!("no_split"));
                out.insert("split_boundaries".into(), Value::Null);
            }
            Some(cuts) => {
                out.insert("split_boundaries".into(), json!(cuts));
                let n = u32::try_from(cuts.len() + 1).unwrap_or(u32::MAX);
                record_split(&mut out, split_bundles(&layout, target, n, Some(cuts)));
            }
        },
    }
    Ok(Value::Object(out))
}

fn record_split(
    out: &mut Map<String, Value>,
    result: Result<crate::split::FactorySplit, SplitError>,
) {
    match result {
        Ok(split) => {
            out.insert("result".into(), json!("split"));
            let children: Vec<String> = split.children.iter().map(ToString::to_string).collect();
            out.insert("new_bundles".into(), json!(children));
            out.insert(
                "bundles_after".into(),
                json!(input::range_strings(&split.layout_after)),
            );
        }
        Err(e) => {
            out.insert("result".into(), json!("error"));
            out.insert("error".into(), json!(e.to_string()));
        }
    }
}

/// Runs the algorithm as the admin path does; the owned topics are the scenario's `topics`.
fn cut_points(
    scenario: &Scenario,
    cfg: &LoadBalancerConfig,
    algorithm: SplitAlgorithm,
    target: BundleRange,
    topics: &[String],
) -> Result<SplitPoints, SplitError> {
    let hashes: Vec<u32> = topics.iter().map(|t| crc32(t.as_bytes())).collect();
    match algorithm {
        SplitAlgorithm::RangeEquallyDivide => Ok(range_equally_divide(target)),
        SplitAlgorithm::TopicCountEquallyDivide => Ok(topic_count_equally_divide(&hashes)),
        SplitAlgorithm::SpecifiedPositionsDivide
        | SplitAlgorithm::SpecifiedPositionsDivideForce => {
            let positions: Vec<i64> = scenario.positions.iter().flatten().map(|p| p.0).collect();
            let force = algorithm == SplitAlgorithm::SpecifiedPositionsDivideForce;
            specified_positions_divide(target, &positions, topics.len(), force)
        }
        SplitAlgorithm::FlowOrQpsEquallyDivide => {
            let owned: Vec<(u32, Option<TopicRates>)> = topics
                .iter()
                .zip(&hashes)
                .map(|(topic, hash)| {
                    let rates = scenario
                        .topic_stats
                        .as_ref()
                        .and_then(|s| s.get(topic))
                        .map(|r| TopicRates {
                            msg_rate_in: r.msg_rate_in.unwrap_or(0.0),
                            msg_rate_out: r.msg_rate_out.unwrap_or(0.0),
                            msg_throughput_in: r.msg_throughput_in.unwrap_or(0.0),
                            msg_throughput_out: r.msg_throughput_out.unwrap_or(0.0),
                        });
                    (*hash, rates)
                })
                .collect();
            flow_or_qps_equally_divide(&owned, &FlowOrQpsLimits::from_config(cfg))
        }
    }
}
