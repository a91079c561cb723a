//! `AvgShedder` (§7.4, PIP-364): pairs the most and least loaded brokers from both ends of the score
//! order, sheds after enough consecutive hits, and — being also a placement strategy in Pulsar (one
//! object for both roles) — sends each shed bundle to the broker it was paired with.

use indexmap::IndexMap;

use super::candidates::no_candidate_reason;
use super::candidates::{
    Candidate, java_double_compare, ranked_candidates, short_term_rate, short_term_throughput,
};
use super::java_sort::{int_truncating_compare, java_sort};
use super::{LoadSheddingStrategy, NotShed, ShedReason, SheddingSelection, TrafficMetric};
use crate::config::{LoadBalancerConfig, Profile};
use crate::model::{BundleData, TimeAverageMessageData};
use crate::modular::LoadData;
use crate::modular::placement::{PipelineTrace, PlacementChoice, PlacementStrategy};
use crate::reason::{DecisionReason, ReasonKind};
use crate::rng::Picker;

/// The key of a remembered destination: Pulsar's `Map<BundleData, String>` compares `BundleData`
/// by value (f64 fields by `Double.equals`, i.e. by bits with NaN canonical), so two bundles with
/// identical data share one entry; after apache/pulsar#26246 (5.0 profile) the bundle name is used.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum DestinationKey {
    Name(String),
    Data(BundleDataBits),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct BundleDataBits {
    short_term: WindowBits,
    long_term: WindowBits,
    topics: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct WindowBits {
    max_samples: i32,
    num_samples: i32,
    /// msgThroughputIn, msgThroughputOut, msgRateIn, msgRateOut as `Double.doubleToLongBits`.
    values: [u64; 4],
}

/// `Double.doubleToLongBits`: every NaN maps to the canonical one.
fn java_double_bits(x: f64) -> u64 {
    if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    }
}

impl WindowBits {
    fn of(w: &TimeAverageMessageData) -> Self {
        Self {
            max_samples: w.max_samples,
            num_samples: w.num_samples,
            values: [
                java_double_bits(w.msg_throughput_in),
                java_double_bits(w.msg_throughput_out),
                java_double_bits(w.msg_rate_in),
                java_double_bits(w.msg_rate_out),
            ],
        }
    }
}

impl BundleDataBits {
    fn of(b: &BundleData) -> Self {
        Self {
            short_term: WindowBits::of(&b.short_term_data),
            long_term: WindowBits::of(&b.long_term_data),
            topics: b.topics,
        }
    }
}

#[derive(Clone, Debug)]
pub struct AvgShedder {
    profile: Profile,
    /// `brokerScoreMap` of the last shedding cycle (percent).
    broker_score_pct: IndexMap<String, f64>,
    /// `brokerHitCountForHigh` / `brokerHitCountForLow`: consecutive cycles a broker was paired with
    /// a score gap of at least the high / low threshold.
    hit_count_high: IndexMap<String, i64>,
    hit_count_low: IndexMap<String, i64>,
    /// `bundleBrokerMap`: where a shed (or placed) bundle is to go.
    planned_destinations: IndexMap<DestinationKey, String>,
    /// The high brokers of the last cycle's pairs that shed nothing, and why.
    not_shed: Vec<NotShed>,
}

/// One pair of the cycle: low (destination) and high (source) broker.
struct Pair<'a> {
    low: &'a str,
    high: &'a str,
}

impl AvgShedder {
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            broker_score_pct: IndexMap::new(),
            hit_count_high: IndexMap::new(),
            hit_count_low: IndexMap::new(),
            planned_destinations: IndexMap::new(),
            not_shed: Vec::new(),
        }
    }

    fn key(&self, bundle: &str, data: &BundleData) -> DestinationKey {
        if self.profile.avg_shedder_destinations_by_name() {
            DestinationKey::Name(bundle.to_string())
        } else {
            DestinationKey::Data(BundleDataBits::of(data))
        }
    }

    /// The destination remembered for a bundle (looked up the way the profile keys it).
    pub fn planned_destination(&self, bundle: &str, data: &BundleData) -> Option<&str> {
        self.planned_destinations
            .get(&self.key(bundle, data))
            .map(String::as_str)
    }

    /// The broker's high and low hit counts (0 when absent).
    pub fn hit_counts(&self, broker: &str) -> (i64, i64) {
        (
            self.hit_count_high.get(broker).copied().unwrap_or(0),
            self.hit_count_low.get(broker).copied().unwrap_or(0),
        )
    }

    /// The scores (percent) computed in the last shedding cycle.
    pub fn scores_pct(&self) -> &IndexMap<String, f64> {
        &self.broker_score_pct
    }

    fn score(&self, broker: &str) -> f64 {
        self.broker_score_pct.get(broker).copied().unwrap_or(0.0)
    }

    fn forget_hits(&mut self, a: &str, b: &str) {
        for map in [&mut self.hit_count_high, &mut self.hit_count_low] {
            map.shift_remove(a);
            map.shift_remove(b);
        }
    }

    fn bump(map: &mut IndexMap<String, i64>, broker: &str) {
        let n = map.entry(broker.to_string()).or_insert(0);
        *n = n.saturating_add(1);
    }

    /// Pairs `order[i]` with `order[n-1-i]` while `i <= j` (a middle broker pairs with itself, gap 0)
    /// and updates the hit counters as Pulsar does.
    fn find_pairs<'a>(&mut self, order: &[&'a str], low: f64, high: f64) -> Vec<Pair<'a>> {
        let mut pairs = Vec::new();
        let (mut i, mut j) = (0_usize, order.len());
        while j > 0 && i < j {
            // `j` is one past Pulsar's index so that it never underflows.
            let (Some(&lo), Some(&hi)) = (order.get(i), order.get(j - 1)) else {
                break;
            };
            let gap = self.score(hi) - self.score(lo);
            if gap < low {
                self.forget_hits(hi, lo);
            } else {
                pairs.push(Pair { low: lo, high: hi });
                Self::bump(&mut self.hit_count_low, lo);
                Self::bump(&mut self.hit_count_low, hi);
                if gap < high {
                    self.hit_count_high.shift_remove(hi);
                    self.hit_count_high.shift_remove(lo);
                } else {
                    Self::bump(&mut self.hit_count_high, lo);
                    Self::bump(&mut self.hit_count_high, hi);
                }
            }
            i += 1;
            j -= 1;
        }
        pairs
    }
}

impl LoadSheddingStrategy for AvgShedder {
    fn name(&self) -> &'static str {
        "AvgShedder"
    }

    fn find_bundles_for_unloading(
        &mut self,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
    ) -> Vec<SheddingSelection> {
        let min_throughput = cfg.min_unload_message_throughput as f64;
        let min_msg = cfg.min_unload_message as f64;
        let max_unload = cfg.max_unload_percentage;
        let low_threshold = cfg.load_balancer_avg_shedder_low_threshold as f64;
        let high_threshold = cfg.load_balancer_avg_shedder_high_threshold as f64;
        let hit_high_needed = cfg.load_balancer_avg_shedder_hit_count_high_threshold;
        let hit_low_needed = cfg.load_balancer_avg_shedder_hit_count_low_threshold;
        let weights = cfg.resource_weights();
        self.not_shed.clear();

        self.broker_score_pct.clear();
        let mut order: Vec<&str> = Vec::with_capacity(data.brokers.len());
        for (name, broker) in &data.brokers {
            order.push(name.as_str());
            let score = broker.local.max_resource_usage_with_weight(&weights) * 100.0;
            self.broker_score_pct.insert(name.clone(), score);
        }
        if self.profile.behaviour().avg_shedder_exact_comparator {
            // Stable sort by `Double.compare` of the scores (ties keep iteration order).
            order.sort_by(|a, b| java_double_compare(self.score(a), self.score(b)));
        } else {
            // Before apache/pulsar#24954 (4.0.8 / 4.1.2 / 4.2.0): `sorted((o1, o2) -> (int)
            // (o1.getValue() - o2.getValue()))`, run by Java's TimSort; scores within one point
            // compare equal, and an inconsistent order can make TimSort throw, which aborts the run.
            let scores = &self.broker_score_pct;
            let score = |b: &str| scores.get(b).copied().unwrap_or(0.0);
            if java_sort(&mut order, |a, b| {
                int_truncating_compare(score(a), score(b))
            })
            .is_err()
            {
                self.not_shed.push(NotShed {
                    broker: String::new(),
                    why: "AvgShedder sheds nothing this cycle: sorting the brokers by (int)(score difference) \
                          violated the comparator contract and Java's TimSort threw \
                          IllegalArgumentException (fixed by apache/pulsar#24954)"
                        .to_string(),
                    reason: DecisionReason::new(ReasonKind::SortContractViolation)
                        .with("brokers", order.len()),
                });
                return Vec::new();
            }
        }

        let pairs = self.find_pairs(&order, low_threshold, high_threshold);
        if pairs.is_empty() {
            self.hit_count_high.clear();
            self.hit_count_low.clear();
            return Vec::new();
        }

        let mut out = Vec::new();
        for pair in pairs {
            let (high_lo, low_lo) = self.hit_counts(pair.low);
            let (high_hi, low_hi) = self.hit_counts(pair.high);
            let high_hit = high_lo >= hit_high_needed || high_hi >= hit_high_needed;
            let low_hit = low_lo >= hit_low_needed || low_hi >= hit_low_needed;
            let (high_score, low_score) = (self.score(pair.high), self.score(pair.low));
            let over = format!(
                "AvgShedder sheds nothing from {}: paired with {} (score {high_score:.1} vs {low_score:.1}, gap ≥ loadBalancerAvgShedderLowThreshold = {low_threshold}), but",
                pair.high, pair.low
            );
            let paired = |kind: ReasonKind| {
                DecisionReason::new(kind)
                    .with("low_broker", pair.low)
                    .with("high_score_pct", high_score)
                    .with("low_score_pct", low_score)
                    .with("low_threshold_pct", low_threshold)
                    .with("high_threshold_pct", high_threshold)
            };
            if !high_hit && !low_hit {
                let high_count = high_lo.max(high_hi);
                let low_count = low_lo.max(low_hi);
                self.not_shed.push(NotShed {
                    broker: pair.high.to_string(),
                    why: format!(
                        "{over} consecutive cycles with a gap ≥ loadBalancerAvgShedderHighThreshold = {high_threshold}: {high_count} < loadBalancerAvgShedderHitCountHighThreshold = {hit_high_needed}; with a gap ≥ the low threshold: {low_count} < loadBalancerAvgShedderHitCountLowThreshold = {hit_low_needed}"
                    ),
                    reason: paired(ReasonKind::HitCountBelowThreshold)
                        .with("hit_count_high", high_count)
                        .with("hit_count_high_threshold", hit_high_needed)
                        .with("hit_count_low", low_count)
                        .with("hit_count_low_threshold", hit_low_needed),
                });
                continue;
            }
            self.forget_hits(pair.low, pair.high);

            let (Some(low), Some(high)) = (data.brokers.get(pair.low), data.brokers.get(pair.high))
            else {
                continue;
            };
            let min_rate = low.local.msg_rate_in + low.local.msg_rate_out;
            let max_rate = high.local.msg_rate_in + high.local.msg_rate_out;
            let min_tp = low.local.msg_throughput_in + low.local.msg_throughput_out;
            let max_tp = high.local.msg_throughput_in + high.local.msg_throughput_out;
            let rate_need = (max_rate - min_rate) * max_unload;
            let tp_need = (max_tp - min_tp) * max_unload;

            let (metric, mut need, value_of): (_, _, fn(&BundleData) -> f64) = if rate_need
                > min_msg
            {
                (TrafficMetric::MsgRate, rate_need, short_term_rate)
            } else if tp_need > min_throughput {
                (TrafficMetric::MsgThroughput, tp_need, short_term_throughput)
            } else {
                self.not_shed.push(NotShed {
                        broker: pair.high.to_string(),
                        why: format!(
                            "{over} {max_unload} × the message-rate gap = {rate_need:.0} msg/s is not above minUnloadMessage = {min_msg} and {max_unload} × the throughput gap = {tp_need:.0} B/s is not above minUnloadMessageThroughput = {min_throughput}"
                        ),
                        reason: paired(ReasonKind::BelowMinUnload)
                            .with("msg_rate_need", rate_need)
                            .with("min_unload_message", min_msg)
                            .with("msg_throughput_need", tp_need)
                            .with("min_unload_message_throughput", min_throughput),
                    });
                continue;
            };
            // Pulsar only warns when the high broker has a single bundle; it still sheds it.
            let candidates: Vec<Candidate<'_>> = ranked_candidates(
                data,
                self.profile.filters_v1_heartbeat_names(),
                &high.local,
                value_of,
            );
            let before = out.len();
            let first_need = need;
            let smallest = candidates
                .iter()
                .map(|c| c.value)
                .filter(|v| *v > 0.0)
                .fold(f64::INFINITY, f64::min);
            let none_left = candidates.is_empty();
            for c in candidates {
                if c.value > 0.0 && c.value <= need {
                    out.push(SheddingSelection {
                        broker: pair.high.to_string(),
                        bundle: c.name.to_string(),
                        reason: ShedReason::AvgShedder {
                            low_broker: pair.low.to_string(),
                            high_score_pct: self.score(pair.high),
                            low_score_pct: self.score(pair.low),
                            hit: if high_hit { "high" } else { "low" }.to_string(),
                            metric,
                            need,
                            bundle_value: c.value,
                        },
                    });
                    let key = self.key(c.name, c.data);
                    self.planned_destinations.insert(key, pair.low.to_string());
                    need += -c.value;
                }
            }
            if out.len() == before {
                let reason = if none_left {
                    no_candidate_reason(
                        data,
                        self.profile.filters_v1_heartbeat_names(),
                        &high.local,
                    )
                } else {
                    paired(ReasonKind::NoBundleFits)
                        .with("need", first_need)
                        .with("smallest_bundle_value", smallest)
                };
                self.not_shed.push(NotShed {
                    broker: pair.high.to_string(),
                    why: format!(
                        "{over} no bundle with traffic fits in the {first_need:.0} left to move"
                    ),
                    reason,
                });
            }
        }
        out
    }

    fn not_shed(&self) -> Vec<NotShed> {
        self.not_shed.clone()
    }
}

/// Java's `String.compareTo`: lexicographic over UTF-16 code units.
fn java_string_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

impl PlacementStrategy for AvgShedder {
    fn name(&self) -> &'static str {
        "AvgShedder"
    }

    /// `selectBroker`: the planned destination when it is a candidate; otherwise a uniformly random
    /// candidate (Pulsar hashes a random int onto the name-sorted list), which is then remembered.
    fn select_broker_traced(
        &mut self,
        candidates: &[String],
        bundle: &str,
        bundle_data: &BundleData,
        _data: &LoadData,
        _cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        _trace: PipelineTrace,
    ) -> Option<PlacementChoice> {
        let key = self.key(bundle, bundle_data);
        let planned = self.planned_destinations.get(&key).cloned();
        if let Some(dest) = planned.as_ref().filter(|d| candidates.contains(d)) {
            return Some(PlacementChoice {
                broker: dest.clone(),
                choice_set: vec![dest.clone()],
                reason: format!(
                    "AvgShedder: {bundle} was shed towards {dest}, its paired low-load broker"
                ),
                pick_rejected: false,
                score: None,
                runner_up: None,
            });
        }
        let mut sorted: Vec<String> = candidates.to_vec();
        sorted.sort_by(|a, b| java_string_cmp(a, b));
        sorted.dedup();
        if sorted.is_empty() {
            return None;
        }
        let pick = picker.pick(&sorted);
        let broker = sorted.get(pick.index).or_else(|| sorted.first())?.clone();
        self.planned_destinations.insert(key, broker.clone());
        let why = match planned {
            Some(dest) => format!("its planned destination {dest} is not a candidate"),
            None => "no destination was planned for it".to_string(),
        };
        Some(PlacementChoice {
            broker,
            reason: format!(
                "AvgShedder: {bundle}: {why}; random pick among {} candidates sorted by name",
                sorted.len()
            ),
            choice_set: sorted,
            pick_rejected: pick.rejected_outside_pick,
            score: None,
            runner_up: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LocalBrokerData, ResourceUsage};
    use crate::modular::BrokerData;
    use crate::rng::SeededPicker;

    /// Two brokers at 90 % and 10 % cpu (gap 80 ≥ high threshold 40), 30000 vs 3000 msg/s, with two
    /// bundles of identical data on the busy one.
    fn cluster() -> LoadData {
        let mut data = LoadData::default();
        let bundle = BundleData {
            short_term_data: TimeAverageMessageData {
                msg_rate_in: 1000.0,
                msg_rate_out: 1000.0,
                ..TimeAverageMessageData::with_defaults(10)
            },
            ..BundleData::default()
        };
        for (name, cpu, rate, bundles) in [
            ("b1:8080", 90.0, 15000.0, vec!["t/ns/a", "t/ns/b"]),
            ("b2:8080", 10.0, 1500.0, vec![]),
        ] {
            let local = LocalBrokerData {
                cpu: ResourceUsage::new(cpu, 100.0),
                msg_rate_in: rate,
                msg_rate_out: rate,
                bundles: bundles.iter().map(|b| b.to_string()).collect(),
                ..LocalBrokerData::default()
            };
            data.brokers.insert(
                name.to_string(),
                BrokerData {
                    local,
                    ..BrokerData::default()
                },
            );
        }
        data.bundle_data.insert("t/ns/a".into(), bundle);
        data.bundle_data.insert("t/ns/b".into(), bundle);
        data
    }

    #[test]
    fn sheds_on_second_high_hit_and_plans_the_low_broker() {
        let cfg = LoadBalancerConfig::for_profile(Profile::Master90cba329);
        let data = cluster();
        let mut s = AvgShedder::new(Profile::Master90cba329);
        assert!(s.find_bundles_for_unloading(&data, &cfg).is_empty());
        assert_eq!(s.hit_counts("b1:8080"), (1, 1));
        let out = s.find_bundles_for_unloading(&data, &cfg);
        // need = (30000 - 3000) * 0.2 = 5400 msg/s: both 2000 msg/s bundles fit.
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|d| d.broker == "b1:8080"));
        assert_eq!(s.hit_counts("b1:8080"), (0, 0));
        let planned = s.planned_destination("t/ns/a", &data.bundle_data["t/ns/a"]);
        assert_eq!(planned, Some("b2:8080"));
    }

    #[test]
    fn destinations_by_value_collide_and_by_name_do_not() {
        let data = cluster();
        let bundle = data.bundle_data["t/ns/a"];
        let cfg = LoadBalancerConfig::for_profile(Profile::Pulsar4x);
        let candidates = vec!["b1:8080".to_string(), "b2:8080".to_string()];
        // apache/pulsar#26246: 4.0.14, 4.2.5, 5.0.0-M2.
        let sides = [
            ("4.0.13", true),
            ("4.0.14", false),
            ("4.2.4", true),
            ("4.2.5", false),
            ("5.0.0-M1", true),
            ("5.0.0", false),
        ];
        for (version, shared) in sides {
            let profile = Profile::parse(version).unwrap();
            let mut s = AvgShedder::new(profile);
            let mut picker = SeededPicker::new(3);
            let first = s
                .select_broker(&candidates, "t/ns/a", &bundle, &data, &cfg, &mut picker)
                .map(|c| c.broker);
            // Remembered: the same bundle goes to the same broker, deterministically.
            let again = s.select_broker(&candidates, "t/ns/a", &bundle, &data, &cfg, &mut picker);
            assert_eq!(again.as_ref().map(|c| c.broker.clone()), first);
            assert_eq!(again.map(|c| c.choice_set.len()), Some(1));
            // Another bundle with identical data shares the entry only when keyed by value.
            assert_eq!(s.planned_destination("t/ns/b", &bundle).is_some(), shared);
        }
    }

    #[test]
    fn random_fallback_picks_among_sorted_candidates() {
        let data = cluster();
        let cfg = LoadBalancerConfig::for_profile(Profile::Pulsar50);
        let mut s = AvgShedder::new(Profile::Pulsar50);
        let candidates = vec!["z:1".to_string(), "a:1".to_string(), "m:1".to_string()];
        let mut picker = SeededPicker::new(0);
        let choice = s
            .select_broker(
                &candidates,
                "t/ns/x",
                &BundleData::default(),
                &data,
                &cfg,
                &mut picker,
            )
            .map(|c| c.choice_set);
        assert_eq!(
            choice,
            Some(vec![
                "a:1".to_string(),
                "m:1".to_string(),
                "z:1".to_string()
            ])
        );
        assert!(
            s.select_broker(
                &[],
                "t/ns/y",
                &BundleData::default(),
                &data,
                &cfg,
                &mut picker
            )
            .is_none()
        );
    }
}
