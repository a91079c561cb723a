//! Splits in a plan: cut points from the chosen algorithm (with the namespace's topic list where the
//! algorithm needs one), the factory's arithmetic, and the snapshot after the split (children share
//! the parent's traffic in proportion to their hash range and stay on the parent's owner).

use crate::config::LoadBalancerConfig;
use crate::model::{BundleData, NamespaceBundleStats, Snapshot, TimeAverageMessageData};
use crate::naming::{BundleRange, NamespaceBundles, TopicName, parse_bundle_name};
use crate::split::{
    SplitAlgorithm, SplitPoints, range_equally_divide, specified_positions_divide, split_bundles,
    topic_count_equally_divide,
};

/// A split ready to apply.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitResult {
    pub namespace: String,
    pub parent: BundleRange,
    pub cut_points: Vec<u32>,
    pub children: Vec<BundleRange>,
    pub layout_after: NamespaceBundles,
}

/// The namespace's layout as the snapshot records it.
pub fn namespace_layout(snapshot: &Snapshot, namespace: &str) -> Result<NamespaceBundles, String> {
    let ns = snapshot
        .namespaces
        .get(namespace)
        .ok_or_else(|| format!("the snapshot has no bundle layout for namespace `{namespace}`"))?;
    NamespaceBundles::from_bundles_data(namespace, &ns.bundles).map_err(|e| e.to_string())
}

/// Hashes of the namespace's known topics that fall in `range` (full names, partitions included).
fn topic_hashes_in(snapshot: &Snapshot, namespace: &str, range: BundleRange) -> Option<Vec<u32>> {
    let topics = snapshot.namespaces.get(namespace)?.topics.as_ref()?;
    let mut hashes: Vec<u32> = topics
        .iter()
        .filter_map(|t| TopicName::parse(t).ok())
        .map(|t| t.bundle_hash())
        .filter(|h| range.contains(*h))
        .collect();
    hashes.sort_unstable();
    Some(hashes)
}

/// Runs `algorithm` on `bundle` and the factory split. `Ok(None)` = the algorithm declines (Pulsar
/// completes the admin call without splitting), with why.
pub fn compute_split(
    snapshot: &Snapshot,
    cfg: &LoadBalancerConfig,
    bundle: &str,
    algorithm: SplitAlgorithm,
    positions: &[u32],
) -> Result<Result<SplitResult, String>, String> {
    let name = parse_bundle_name(bundle).map_err(|e| e.to_string())?;
    if !cfg
        .supported_namespace_bundle_split_algorithms
        .iter()
        .any(|a| a == algorithm.name())
    {
        return Err(format!(
            "`{}` is not in supportedNamespaceBundleSplitAlgorithms (Pulsar answers HTTP 412)",
            algorithm.name()
        ));
    }
    let layout = namespace_layout(snapshot, &name.namespace)?;
    let topics = topic_hashes_in(snapshot, &name.namespace, name.range);
    let points = match algorithm {
        SplitAlgorithm::RangeEquallyDivide => range_equally_divide(name.range),
        SplitAlgorithm::TopicCountEquallyDivide => {
            let hashes = topics.ok_or(
                "topic_count_equally_divide needs the namespace's topic list in the snapshot",
            )?;
            topic_count_equally_divide(&hashes)
        }
        SplitAlgorithm::SpecifiedPositionsDivide
        | SplitAlgorithm::SpecifiedPositionsDivideForce => {
            let owned = topics.map_or_else(|| bundle_topic_count(snapshot, bundle), |h| h.len());
            let positions: Vec<i64> = positions.iter().map(|p| i64::from(*p)).collect();
            specified_positions_divide(
                name.range,
                &positions,
                owned,
                algorithm == SplitAlgorithm::SpecifiedPositionsDivideForce,
            )
            .map_err(|e| e.to_string())?
        }
        SplitAlgorithm::FlowOrQpsEquallyDivide => {
            return Err(
                "flow_or_qps_equally_divide needs per-topic rates, which a snapshot does not carry"
                    .to_string(),
            );
        }
    };
    let cuts = match points {
        SplitPoints::Split(cuts) if !cuts.is_empty() => cuts,
        SplitPoints::Split(_) => {
            return Ok(Err("the algorithm returned no split point".to_string()));
        }
        SplitPoints::NoSplit(why) => return Ok(Err(format!("{why:?}"))),
    };
    let split = split_bundles(&layout, name.range, 0, Some(&cuts)).map_err(|e| e.to_string())?;
    Ok(Ok(SplitResult {
        namespace: name.namespace,
        parent: name.range,
        cut_points: cuts,
        children: split.children,
        layout_after: split.layout_after,
    }))
}

fn bundle_topic_count(snapshot: &Snapshot, bundle: &str) -> usize {
    let from_stats = snapshot
        .brokers
        .values()
        .find_map(|b| b.local_broker_data.last_stats.get(bundle).map(|s| s.topics));
    let topics = from_stats
        .or_else(|| {
            snapshot
                .bundle_data
                .get(bundle)
                .map(|d| i64::from(d.topics))
        })
        .unwrap_or(0);
    usize::try_from(topics).unwrap_or(0)
}

fn range_fraction(child: BundleRange, parent: BundleRange) -> f64 {
    let width = |r: BundleRange| (u64::from(r.hi) - u64::from(r.lo)) as f64;
    let parent_width = width(parent);
    if parent_width > 0.0 {
        width(child) / parent_width
    } else {
        0.0
    }
}

fn scale_stats(s: &NamespaceBundleStats, f: f64) -> NamespaceBundleStats {
    let scale_i = |v: i64| (v as f64 * f).round() as i64;
    NamespaceBundleStats {
        msg_rate_in: s.msg_rate_in * f,
        msg_throughput_in: s.msg_throughput_in * f,
        msg_rate_out: s.msg_rate_out * f,
        msg_throughput_out: s.msg_throughput_out * f,
        consumer_count: scale_i(s.consumer_count),
        producer_count: scale_i(s.producer_count),
        topics: scale_i(s.topics),
        cache_size: scale_i(s.cache_size),
    }
}

fn scale_window(w: &TimeAverageMessageData, f: f64) -> TimeAverageMessageData {
    TimeAverageMessageData {
        msg_throughput_in: w.msg_throughput_in * f,
        msg_throughput_out: w.msg_throughput_out * f,
        msg_rate_in: w.msg_rate_in * f,
        msg_rate_out: w.msg_rate_out * f,
        ..*w
    }
}

/// Replaces the parent by its children in the snapshot: layout, owner's bundle list and stats, and
/// bundle data (each child gets the parent's numbers scaled by its share of the range).
pub fn apply_split(snapshot: &mut Snapshot, split: &SplitResult) {
    let parent_name = format!("{}/{}", split.namespace, split.parent);
    let child_names: Vec<(String, f64)> = split
        .children
        .iter()
        .map(|c| {
            (
                format!("{}/{}", split.namespace, c),
                range_fraction(*c, split.parent),
            )
        })
        .collect();
    if let Some(ns) = snapshot.namespaces.get_mut(&split.namespace) {
        ns.bundles = split.layout_after.to_bundles_data();
    }
    for broker in snapshot.brokers.values_mut() {
        let local = &mut broker.local_broker_data;
        let Some(pos) = local.bundles.iter().position(|b| *b == parent_name) else {
            continue;
        };
        local.bundles.remove(pos);
        let parent_stats = local.last_stats.shift_remove(&parent_name);
        for (offset, (child, f)) in child_names.iter().enumerate() {
            local.bundles.insert(pos + offset, child.clone());
            if let Some(s) = &parent_stats {
                local.last_stats.insert(child.clone(), scale_stats(s, *f));
            }
        }
        local.num_bundles = local.bundles.len() as i64;
        broker.time_average_broker_data = None;
    }
    if let Some(data) = snapshot.bundle_data.shift_remove(&parent_name) {
        for (child, f) in &child_names {
            let scaled = BundleData {
                short_term_data: scale_window(&data.short_term_data, *f),
                long_term_data: scale_window(&data.long_term_data, *f),
                topics: (f64::from(data.topics) * f).round() as i32,
            };
            snapshot.bundle_data.insert(child.clone(), scaled);
        }
    }
}
