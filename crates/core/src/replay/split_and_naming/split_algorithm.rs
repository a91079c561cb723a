//! `split_algorithm`: one split-bundle admin call on a namespace layout: the algorithm's cut points
//! (`split_boundaries`), then `NamespaceBundleFactory.splitBundles` (`new_bundles`, `bundles_after`).
//! `algorithm: "none"` is a plain `n`-way split (`numBundles_split`).

use serde_json::{Map, Value, json};

use super::input;
use crate::config::LoadBalancerConfig;
use crate::naming::{BundleRange, crc32};
use crate::replay::ReplayError;
use crate::replay::json;
use crate::split::{
    FlowOrQpsLimits, SplitAlgorithm, SplitError, SplitPoints, TopicRates,
    flow_or_qps_equally_divide, range_equally_divide, specified_positions_divide, split_bundles,
    topic_count_equally_divide,
};

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let cfg = input::config(scenario, base)?;
    let namespace = json::string(
        json::required(scenario, "namespace", base)?,
        &format!("{base}.namespace"),
    )?;
    let layout = input::layout(scenario, base, namespace)?;
    let bundle_path = format!("{base}.bundle");
    let bundle_text = json::string(json::required(scenario, "bundle", base)?, &bundle_path)?;
    let target = BundleRange::parse(bundle_text)
        .map_err(|e| ReplayError::malformed(&bundle_path, e.to_string()))?;
    let algorithm_path = format!("{base}.algorithm");
    let algorithm_name = json::string(
        json::required(scenario, "algorithm", base)?,
        &algorithm_path,
    )?;
    let topics = match scenario.get("topics") {
        Some(t) => json::string_list(t, &format!("{base}.topics"))?,
        None => Vec::new(),
    };

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
        let path = format!("{base}.numBundles_split");
        let n = json::required(scenario, "numBundles_split", base)?
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| ReplayError::malformed(&path, "expected a bundle count"))?;
        record_split(&mut out, split_bundles(&layout, target, n, None));
        return Ok(Value::Object(out));
    }

    let algorithm = SplitAlgorithm::from_name(algorithm_name)
        .ok_or_else(|| ReplayError::malformed(&algorithm_path, "unknown split algorithm"))?;
    let points = cut_points(scenario, base, &cfg, algorithm, target, &topics)?;
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
    scenario: &Value,
    base: &str,
    cfg: &LoadBalancerConfig,
    algorithm: SplitAlgorithm,
    target: BundleRange,
    topics: &[String],
) -> Result<Result<SplitPoints, SplitError>, ReplayError> {
    let hashes: Vec<u32> = topics.iter().map(|t| crc32(t.as_bytes())).collect();
    Ok(match algorithm {
        SplitAlgorithm::RangeEquallyDivide => Ok(range_equally_divide(target)),
        SplitAlgorithm::TopicCountEquallyDivide => Ok(topic_count_equally_divide(&hashes)),
        SplitAlgorithm::SpecifiedPositionsDivide
        | SplitAlgorithm::SpecifiedPositionsDivideForce => {
            let path = format!("{base}.positions");
            let positions = match scenario.get("positions") {
                None | Some(Value::Null) => Vec::new(),
                Some(list) => json::array(list, &path)?
                    .iter()
                    .enumerate()
                    .map(|(i, v)| input::long(v, &format!("{path}[{i}]")))
                    .collect::<Result<Vec<i64>, _>>()?,
            };
            let force = algorithm == SplitAlgorithm::SpecifiedPositionsDivideForce;
            specified_positions_divide(target, &positions, topics.len(), force)
        }
        SplitAlgorithm::FlowOrQpsEquallyDivide => {
            let stats_path = format!("{base}.topicStats");
            let stats = match scenario.get("topicStats") {
                Some(s) => Some(json::object(s, &stats_path)?),
                None => None,
            };
            let mut owned = Vec::with_capacity(topics.len());
            for (topic, hash) in topics.iter().zip(&hashes) {
                let rates = match stats.and_then(|s| s.get(topic)) {
                    Some(v) => Some(topic_rates(v, &format!("{stats_path}[{topic:?}]"))?),
                    None => None,
                };
                owned.push((*hash, rates));
            }
            flow_or_qps_equally_divide(&owned, &FlowOrQpsLimits::from_config(cfg))
        }
    })
}

fn topic_rates(value: &Value, path: &str) -> Result<TopicRates, ReplayError> {
    let field = |key: &str| -> Result<f64, ReplayError> {
        match value.get(key) {
            None | Some(Value::Null) => Ok(0.0),
            Some(v) => v.as_f64().ok_or_else(|| {
                ReplayError::malformed(format!("{path}.{key}"), "expected a number")
            }),
        }
    };
    Ok(TopicRates {
        msg_rate_in: field("msgRateIn")?,
        msg_rate_out: field("msgRateOut")?,
        msg_throughput_in: field("msgThroughputIn")?,
        msg_throughput_out: field("msgThroughputOut")?,
    })
}
