//! Namespace sizing: how a namespace's topics (and the load they carry) would spread over N bundles
//! and over the brokers, side by side for several N — Pulsar's bundle-count advice made concrete.
//!
//! Topics land in bundles by CRC-32 of their full name (§4); with
//! `loadBalancerDistributeBundlesEvenlyEnabled` (the default) the placement pipeline keeps only the
//! brokers with the fewest bundles of the namespace, so each broker ends with ⌊N/B⌋ or ⌈N/B⌉ of them.
//! Which bundles end up together depends on load at assignment time, so the busiest broker is
//! bounded by the ⌈N/B⌉ largest bundles landing together (worst case). Load per topic is taken as
//! equal unless per-topic rates are given.

use serde::{Deserialize, Serialize};

use crate::naming::{NamespaceBundles, TopicName, default_boundaries};

/// Pulsar's advice range, the default comparison.
pub const DEFAULT_BUNDLE_COUNTS: [u32; 5] = [4, 16, 32, 64, 128];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizingRow {
    pub bundles: u32,
    pub brokers: usize,
    pub topics: usize,
    pub empty_bundles: usize,
    pub min_topics_per_bundle: usize,
    pub max_topics_per_bundle: usize,
    pub mean_topics_per_bundle: f64,
    /// Share of the namespace's load in its largest bundle (what one unload moves at most).
    pub largest_bundle_load_fraction: f64,
    /// Bundles per broker under even distribution.
    pub min_bundles_per_broker: usize,
    pub max_bundles_per_broker: usize,
    /// Share of the namespace's load on the busiest broker if the ⌈N/B⌉ largest bundles land together.
    pub worst_broker_load_fraction: f64,
    /// Share a broker would carry with a perfectly even spread (1/B, or 1/N when N < B).
    pub ideal_broker_load_fraction: f64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SizingError {
    #[error("topic `{topic}`: {why}")]
    BadTopic { topic: String, why: String },
    #[error("topic `{topic}` is not in namespace `{namespace}`")]
    OtherNamespace { topic: String, namespace: String },
    #[error("bundle count {0} is not between 1 and 2^20")]
    BadBundleCount(u32),
    #[error("there must be at least one broker")]
    NoBrokers,
}

/// Topic names for a namespace given only a count: `persistent://NS/topic-<i>`, each expanded to its
/// partitions when `partitions > 0`.
pub fn synthetic_topics(namespace: &str, count: usize, partitions: u32) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..count {
        let base = format!("persistent://{namespace}/topic-{i}");
        if partitions == 0 {
            out.push(base);
        } else {
            out.extend((0..partitions).map(|p| format!("{base}-partition-{p}")));
        }
    }
    out
}

/// One row per bundle count. `weights` gives each topic's load (same order as `topics`); `None` = equal.
pub fn size_namespace(
    namespace: &str,
    topics: &[String],
    weights: Option<&[f64]>,
    brokers: usize,
    bundle_counts: &[u32],
) -> Result<Vec<SizingRow>, SizingError> {
    if brokers == 0 {
        return Err(SizingError::NoBrokers);
    }
    let mut hashes = Vec::with_capacity(topics.len());
    for t in topics {
        let parsed = TopicName::parse(t).map_err(|e| SizingError::BadTopic {
            topic: t.clone(),
            why: e.to_string(),
        })?;
        if parsed.namespace.to_string() != namespace {
            return Err(SizingError::OtherNamespace {
                topic: t.clone(),
                namespace: namespace.to_string(),
            });
        }
        hashes.push(parsed.bundle_hash());
    }
    let weight = |i: usize| {
        weights
            .and_then(|w| w.get(i).copied())
            .unwrap_or(1.0)
            .max(0.0)
    };
    let total: f64 = (0..hashes.len()).map(weight).sum();
    let mut rows = Vec::with_capacity(bundle_counts.len());
    for &n in bundle_counts {
        if n == 0 || n > (1 << 20) {
            return Err(SizingError::BadBundleCount(n));
        }
        let boundaries = default_boundaries(n).ok_or(SizingError::BadBundleCount(n))?;
        let layout = NamespaceBundles::new(namespace, boundaries)
            .map_err(|_| SizingError::BadBundleCount(n))?;
        let mut count = vec![0usize; n as usize];
        let mut load = vec![0f64; n as usize];
        for (i, h) in hashes.iter().enumerate() {
            let b = layout.bundle_index_for_hash(*h);
            if let (Some(c), Some(l)) = (count.get_mut(b), load.get_mut(b)) {
                *c += 1;
                *l += weight(i);
            }
        }
        let per_broker_max = (n as usize).div_ceil(brokers);
        let per_broker_min = n as usize / brokers;
        let mut sorted = load.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let worst: f64 = sorted.iter().take(per_broker_max).sum();
        let share = |x: f64| if total > 0.0 { x / total } else { 0.0 };
        rows.push(SizingRow {
            bundles: n,
            brokers,
            topics: hashes.len(),
            empty_bundles: count.iter().filter(|c| **c == 0).count(),
            min_topics_per_bundle: count.iter().copied().min().unwrap_or(0),
            max_topics_per_bundle: count.iter().copied().max().unwrap_or(0),
            mean_topics_per_bundle: hashes.len() as f64 / f64::from(n),
            largest_bundle_load_fraction: share(sorted.first().copied().unwrap_or(0.0)),
            min_bundles_per_broker: per_broker_min,
            max_bundles_per_broker: per_broker_max,
            worst_broker_load_fraction: share(worst),
            ideal_broker_load_fraction: 1.0 / (brokers.min(n as usize) as f64),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_hash_layout() {
        // §4.4: my-topic → 0x2bad45f7 (bundle 0 of 4), my-topic-partition-2 → 0xd3452319 (bundle 3 of 4).
        let topics = vec![
            "persistent://public/default/my-topic".to_string(),
            "persistent://public/default/my-topic-partition-2".to_string(),
        ];
        let rows = size_namespace("public/default", &topics, None, 3, &[4]).unwrap();
        let r = &rows[0];
        assert_eq!(
            (
                r.empty_bundles,
                r.min_topics_per_bundle,
                r.max_topics_per_bundle
            ),
            (2, 0, 1)
        );
        assert_eq!(r.largest_bundle_load_fraction, 0.5);
        // 4 bundles over 3 brokers: 1 or 2 each; the busiest could hold both loaded bundles.
        assert_eq!((r.min_bundles_per_broker, r.max_bundles_per_broker), (1, 2));
        assert_eq!(r.worst_broker_load_fraction, 1.0);
        assert!(size_namespace("other/ns", &topics, None, 3, &[4]).is_err());
        assert!(size_namespace("public/default", &topics, None, 3, &[0]).is_err());
    }

    #[test]
    fn more_bundles_spread_many_topics_thinner() {
        let topics = synthetic_topics("t/ns", 1000, 0);
        let rows = size_namespace("t/ns", &topics, None, 12, &DEFAULT_BUNDLE_COUNTS).unwrap();
        assert_eq!(rows.len(), 5);
        assert!(
            rows.windows(2)
                .all(|w| w[1].largest_bundle_load_fraction <= w[0].largest_bundle_load_fraction)
        );
        // With 4 bundles on 12 brokers, 8 brokers get nothing of this namespace and the busiest carries a
        // whole bundle (≥ 1/4 of the load).
        assert!(rows[0].worst_broker_load_fraction >= 0.25);
        assert_eq!(rows[0].ideal_broker_load_fraction, 0.25);
        assert_eq!(synthetic_topics("t/ns", 2, 3).len(), 6);
    }
}
