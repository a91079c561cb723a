//! The split algorithms of `supportedNamespaceBundleSplitAlgorithms`: each returns cut points, or
//! "no split" with why (Pulsar's `null`). `flow_or_qps_equally_divide` lives in its own module.

use std::fmt;

use super::SplitError;
use crate::config::LoadBalancerConfig;
use crate::naming::BundleRange;

/// A split algorithm by its Pulsar name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitAlgorithm {
    RangeEquallyDivide,
    TopicCountEquallyDivide,
    SpecifiedPositionsDivide,
    /// The internal `SPECIFIED_POSITIONS_DIVIDE_FORCE_ALGO`: skips the "at least 2 topics" check.
    SpecifiedPositionsDivideForce,
    FlowOrQpsEquallyDivide,
}

impl SplitAlgorithm {
    pub const ALL: [SplitAlgorithm; 5] = [
        SplitAlgorithm::RangeEquallyDivide,
        SplitAlgorithm::TopicCountEquallyDivide,
        SplitAlgorithm::SpecifiedPositionsDivide,
        SplitAlgorithm::SpecifiedPositionsDivideForce,
        SplitAlgorithm::FlowOrQpsEquallyDivide,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SplitAlgorithm::RangeEquallyDivide => "range_equally_divide",
            SplitAlgorithm::TopicCountEquallyDivide => "topic_count_equally_divide",
            SplitAlgorithm::SpecifiedPositionsDivide => "specified_positions_divide",
            SplitAlgorithm::SpecifiedPositionsDivideForce => "specified_positions_divide_force",
            SplitAlgorithm::FlowOrQpsEquallyDivide => "flow_or_qps_equally_divide",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name.trim())
    }

    /// `getNamespaceBundleSplitAlgorithmByName`: an unknown name falls back to
    /// `defaultNamespaceBundleSplitAlgorithm`, then to `range_equally_divide`.
    pub fn by_name_or_default(name: &str, default_name: &str) -> Self {
        Self::from_name(name)
            .or_else(|| Self::from_name(default_name))
            .unwrap_or(SplitAlgorithm::RangeEquallyDivide)
    }
}

/// The algorithms an operator may ask `split-bundle` for: the names in
/// `supportedNamespaceBundleSplitAlgorithms` that Pulsar knows, in the configured order, each once
/// (the admin path answers 412 to any other name).
pub fn operator_split_algorithms(config: &LoadBalancerConfig) -> Vec<SplitAlgorithm> {
    let mut out = Vec::new();
    for name in &config.supported_namespace_bundle_split_algorithms {
        if let Some(a) = SplitAlgorithm::from_name(name)
            && !out.contains(&a)
        {
            out.push(a);
        }
    }
    out
}

impl fmt::Display for SplitAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an algorithm declined to split (Pulsar returns `null`).
#[derive(Clone, Debug, PartialEq)]
pub enum NoSplitReason {
    /// The bundle owns fewer than 2 topics.
    FewerThanTwoTopics { topics: usize },
    /// No given position lies strictly inside the bundle.
    NoPositionInsideBundle,
    /// Fewer than 2 topics with traffic (flow/QPS).
    FewerThanTwoActiveTopics { active_topics: usize },
    /// Flow/QPS: the bundle is below both limits raised by `flowOrQpsDifferenceThresholdPercentage`.
    NotHotEnough {
        msg_rate_per_sec: f64,
        msg_rate_limit_per_sec: f64,
        throughput_bytes_per_sec: f64,
        throughput_limit_bytes_per_sec: f64,
    },
    /// Flow/QPS found no place where the running sums exceed a limit.
    NoCutPoint,
}

/// Outcome of a split algorithm.
#[derive(Clone, Debug, PartialEq)]
pub enum SplitPoints {
    /// Cut points in the order Pulsar returns them (ascending for every algorithm).
    Split(Vec<u32>),
    NoSplit(NoSplitReason),
}

impl SplitPoints {
    /// The cut points, or `None` for "no split" (an empty list also means no split in Pulsar).
    pub fn cut_points(&self) -> Option<&[u32]> {
        match self {
            SplitPoints::Split(points) if !points.is_empty() => Some(points),
            _ => None,
        }
    }
}

/// `range_equally_divide`: `[lo + (hi - lo) / 2]`. The 1-wide check is the factory's.
pub fn range_equally_divide(range: BundleRange) -> SplitPoints {
    SplitPoints::Split(vec![range.lo + (range.hi - range.lo) / 2])
}

/// `topic_count_equally_divide` over the CRC-32 hashes of the topics the broker owns in the bundle
/// (`getLongHashCode` of each name as listed): sorted `h`, `s = h[max(len/2 - 1, 0)]`, `e = h[len/2]`,
/// cut = `s + (e - s) / 2`. Fewer than 2 topics → no split.
pub fn topic_count_equally_divide(topic_hashes: &[u32]) -> SplitPoints {
    if topic_hashes.len() < 2 {
        return SplitPoints::NoSplit(NoSplitReason::FewerThanTwoTopics {
            topics: topic_hashes.len(),
        });
    }
    let mut sorted = topic_hashes.to_vec();
    sorted.sort_unstable();
    let half = sorted.len() / 2;
    let (Some(&start), Some(&end)) = (sorted.get(half.saturating_sub(1)), sorted.get(half)) else {
        return SplitPoints::NoSplit(NoSplitReason::FewerThanTwoTopics {
            topics: sorted.len(),
        });
    };
    // Sorted, so `end >= start`.
    SplitPoints::Split(vec![start + (end - start) / 2])
}

/// `specified_positions_divide` (and its force variant with `force = true`): no positions → error;
/// without `force`, fewer than 2 owned topics → no split; positions sorted (duplicates kept) and only
/// those strictly inside the bundle kept; none left → no split. Positions are Java `long`s, so values
/// outside 0..=0xffffffff are accepted here and filtered out.
pub fn specified_positions_divide(
    range: BundleRange,
    positions: &[i64],
    owned_topics: usize,
    force: bool,
) -> Result<SplitPoints, SplitError> {
    if positions.is_empty() {
        return Err(SplitError::EmptyPositions);
    }
    if !force && owned_topics <= 1 {
        return Ok(SplitPoints::NoSplit(NoSplitReason::FewerThanTwoTopics {
            topics: owned_topics,
        }));
    }
    let mut sorted = positions.to_vec();
    sorted.sort_unstable();
    let inside: Vec<u32> = sorted
        .into_iter()
        .filter(|&p| p > i64::from(range.lo) && p < i64::from(range.hi))
        .filter_map(|p| u32::try_from(p).ok())
        .collect();
    if inside.is_empty() {
        Ok(SplitPoints::NoSplit(NoSplitReason::NoPositionInsideBundle))
    } else {
        Ok(SplitPoints::Split(inside))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Profile;

    /// Reference §5.2/§13: `supportedNamespaceBundleSplitAlgorithms` defaults to
    /// `range_equally_divide,topic_count_equally_divide,specified_positions_divide,flow_or_qps_equally_divide`;
    /// the internal force variant is not among them.
    #[test]
    fn operator_choices_are_the_supported_list() {
        let mut config = LoadBalancerConfig::for_profile(Profile::Pulsar4x);
        let names: Vec<&str> = operator_split_algorithms(&config)
            .into_iter()
            .map(SplitAlgorithm::name)
            .collect();
        assert_eq!(
            names,
            [
                "range_equally_divide",
                "topic_count_equally_divide",
                "specified_positions_divide",
                "flow_or_qps_equally_divide"
            ]
        );
        config
            .set_text(
                "supportedNamespaceBundleSplitAlgorithms",
                "topic_count_equally_divide, no_such_algorithm,range_equally_divide,topic_count_equally_divide",
            )
            .unwrap();
        assert_eq!(
            operator_split_algorithms(&config),
            [
                SplitAlgorithm::TopicCountEquallyDivide,
                SplitAlgorithm::RangeEquallyDivide
            ]
        );
    }

    fn range(lo: u32, hi: u32) -> BundleRange {
        BundleRange::new(lo, hi).unwrap()
    }

    #[test]
    fn range_halves_the_actual_range() {
        // split/range_equally_divide.json: [10, 0xffffffff] → 0x80000004.
        assert_eq!(
            range_equally_divide(range(10, u32::MAX)),
            SplitPoints::Split(vec![0x8000_0004])
        );
        assert_eq!(
            range_equally_divide(BundleRange::FULL),
            SplitPoints::Split(vec![0x7fff_ffff])
        );
    }

    #[test]
    fn topic_count_uses_the_middle_pair() {
        // split/topic_count_equally_divide.json: hashes of "a", "b", "c".
        assert_eq!(
            topic_count_equally_divide(&[3_904_355_907, 1_908_338_681, 112_844_655]),
            SplitPoints::Split(vec![1_010_591_668])
        );
        assert!(matches!(
            topic_count_equally_divide(&[1]),
            SplitPoints::NoSplit(NoSplitReason::FewerThanTwoTopics { topics: 1 })
        ));
    }

    #[test]
    fn positions_filter_and_checks() {
        let r = range(1, 1000);
        let got =
            specified_positions_divide(r, &[-1, 0, 1, 100, 200, 500, 800, 1000, 1100], 2, false);
        assert_eq!(got, Ok(SplitPoints::Split(vec![100, 200, 500, 800])));
        assert_eq!(
            specified_positions_divide(r, &[1, 2], 0, true),
            Ok(SplitPoints::Split(vec![2]))
        );
        assert!(matches!(
            specified_positions_divide(r, &[1, 2], 1, false),
            Ok(SplitPoints::NoSplit(_))
        ));
        assert_eq!(
            specified_positions_divide(r, &[], 2, false),
            Err(SplitError::EmptyPositions)
        );
    }
}
