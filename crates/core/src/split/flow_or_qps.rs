//! `flow_or_qps_equally_divide` (PIP-169): cut a hot bundle wherever the running message rate or
//! throughput of its topics, walked in hash order, would exceed the bundle limits.

use std::collections::HashMap;

use super::{NoSplitReason, SplitError, SplitPoints};
use crate::units::MIB;

/// A topic's rates as `TopicStatsImpl` reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TopicRates {
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub msg_throughput_in: f64,
    pub msg_throughput_out: f64,
}

/// The three settings the algorithm reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowOrQpsLimits {
    /// `loadBalancerNamespaceBundleMaxMsgRate` (a Java `int`).
    pub max_msg_rate_per_sec: i64,
    /// `loadBalancerNamespaceBundleMaxBandwidthMbytes`.
    pub max_bandwidth_mbytes: i64,
    /// `flowOrQpsDifferenceThresholdPercentage`.
    pub difference_threshold_pct: i64,
}

impl FlowOrQpsLimits {
    pub fn from_config(cfg: &crate::config::LoadBalancerConfig) -> Self {
        Self {
            max_msg_rate_per_sec: cfg.load_balancer_namespace_bundle_max_msg_rate,
            max_bandwidth_mbytes: cfg.load_balancer_namespace_bundle_max_bandwidth_mbytes,
            difference_threshold_pct: cfg.flow_or_qps_difference_threshold_percentage,
        }
    }
}

/// `FlowOrQpsEquallyDivideBundleSplitAlgorithm.getSplitBoundary`.
///
/// `owned_topics` are the topics the broker owns in the bundle, in the order it lists them, each with
/// its CRC-32 hash and its stats (`None` when the broker has none). Steps, as in Pulsar:
/// 1. at most one owned topic → no split;
/// 2. topics without stats or with `rate <= 0 && throughput <= 0` are skipped; the others are keyed
///    by hash (a later topic with the same hash overwrites the earlier one's rates, but both hashes
///    stay in the walked list) and summed;
/// 3. fewer than 2 distinct hashes, or both sums below `limit × (1 + d)` → no split;
/// 4. walk the sorted hashes, cutting at `h[i-1] + (h[i] - h[i-1]) / 2 + 1` whenever adding topic `i`
///    would make the running rate `> maxRate` or the running throughput `> maxBandwidth`.
pub fn flow_or_qps_equally_divide(
    owned_topics: &[(u32, Option<TopicRates>)],
    limits: &FlowOrQpsLimits,
) -> Result<SplitPoints, SplitError> {
    if owned_topics.len() <= 1 {
        return Ok(SplitPoints::NoSplit(NoSplitReason::FewerThanTwoTopics {
            topics: owned_topics.len(),
        }));
    }
    // Java: `int * (1 + double)` and `long * MBytes`.
    let diff = limits.difference_threshold_pct as f64 / 100.0;
    let max_rate = limits.max_msg_rate_per_sec as f64;
    let max_bandwidth = limits.max_bandwidth_mbytes as f64 * MIB;

    let mut by_hash: HashMap<u32, (f64, f64)> = HashMap::new();
    let mut hashes: Vec<u32> = Vec::with_capacity(owned_topics.len());
    let (mut bundle_rate, mut bundle_throughput) = (0.0f64, 0.0f64);
    for (hash, rates) in owned_topics {
        let Some(r) = rates else { continue };
        let rate = r.msg_rate_in + r.msg_rate_out;
        let throughput = r.msg_throughput_in + r.msg_throughput_out;
        if rate <= 0.0 && throughput <= 0.0 {
            continue;
        }
        hashes.push(*hash);
        by_hash.insert(*hash, (rate, throughput));
        bundle_throughput += throughput;
        bundle_rate += rate;
    }
    if by_hash.len() < 2 {
        return Ok(SplitPoints::NoSplit(
            NoSplitReason::FewerThanTwoActiveTopics {
                active_topics: by_hash.len(),
            },
        ));
    }
    let rate_gate = max_rate * (1.0 + diff);
    let throughput_gate = max_bandwidth * (1.0 + diff);
    if bundle_rate < rate_gate && bundle_throughput < throughput_gate {
        return Ok(SplitPoints::NoSplit(NoSplitReason::NotHotEnough {
            msg_rate_per_sec: bundle_rate,
            msg_rate_limit_per_sec: rate_gate,
            throughput_bytes_per_sec: bundle_throughput,
            throughput_limit_bytes_per_sec: throughput_gate,
        }));
    }
    hashes.sort_unstable();
    let rates_of = |h: &u32| by_hash.get(h).copied().unwrap_or((0.0, 0.0));
    let Some(first) = hashes.first() else {
        return Ok(SplitPoints::NoSplit(NoSplitReason::NoCutPoint));
    };
    let (mut running_rate, mut running_throughput) = rates_of(first);
    let mut cuts = Vec::new();
    for pair in hashes.windows(2) {
        let [previous, current] = pair else { continue };
        let (rate, throughput) = rates_of(current);
        if running_rate + rate > max_rate || running_throughput + throughput > max_bandwidth {
            // Computed as a Java `long`: can reach 2^32 only with two equal hashes of 0xffffffff.
            let cut = u64::from(*previous) + u64::from(current - previous) / 2 + 1;
            let cut = u32::try_from(cut).map_err(|_| SplitError::BoundaryOutsideBundle {
                boundary: cut,
                range: crate::naming::BundleRange::FULL,
            })?;
            cuts.push(cut);
            running_rate = rate;
            running_throughput = throughput;
        } else {
            running_rate += rate;
            running_throughput += throughput;
        }
    }
    // Pulsar returns the (possibly empty) list; an empty list means "no split" to its caller.
    if cuts.is_empty() {
        Ok(SplitPoints::NoSplit(NoSplitReason::NoCutPoint))
    } else {
        Ok(SplitPoints::Split(cuts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(rate_in: f64, rate_out: f64, thr_in: f64, thr_out: f64) -> Option<TopicRates> {
        Some(TopicRates {
            msg_rate_in: rate_in,
            msg_rate_out: rate_out,
            msg_throughput_in: thr_in,
            msg_throughput_out: thr_out,
        })
    }

    #[test]
    fn first_position_overload_gets_the_plus_one() {
        // split/flow_or_qps_first_position_overload.json (hashes_sorted given by the vector).
        let light = rates(24.5, 25.0, 1000.0, 1000.0);
        let topics = [
            (2_719_968_743, light),
            (1_266_469_074, light),
            (3_530_922_344, light),
            (1_014_757_444, rates(1000.0, 1000.0, 1000.0, 1000.0)),
            (2_775_755_262, light),
        ];
        let limits = FlowOrQpsLimits {
            max_msg_rate_per_sec: 1010,
            max_bandwidth_mbytes: 100,
            difference_threshold_pct: 10,
        };
        let got = flow_or_qps_equally_divide(&topics, &limits).unwrap();
        let SplitPoints::Split(cuts) = got else {
            panic!("expected a split, got {got:?}")
        };
        assert_eq!(cuts.first(), Some(&1_140_613_260));
    }
}
