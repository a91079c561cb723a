//! Modular placement strategies (`loadBalancerLoadPlacementStrategy`, §8): which broker gets a bundle.
//!
//! Each strategy receives the candidates in the order Pulsar would iterate its `Set<String>` (see
//! [`crate::naming::java_map_order`]) and returns a [`PlacementChoice`] naming the set it picked among and why.

/// The Java collection order emulation, kept at this path for the callers that name it here.
pub use crate::naming::java_map_order as java_order;
mod least_long_term_message_rate;
mod least_resource_usage_with_weight;
mod round_robin;

use serde::{Deserialize, Serialize};

pub use least_long_term_message_rate::LeastLongTermMessageRate;
pub use least_resource_usage_with_weight::LeastResourceUsageWithWeight;
pub use round_robin::RoundRobinBrokerSelector;

use super::LoadData;
use crate::config::{self, LoadBalancerConfig};
use crate::model::BundleData;
use crate::rng::Picker;

/// A strategy's answer: the broker, the set it picked among at random, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementChoice {
    pub broker: String,
    /// The equally good brokers the pick was made among (one element when deterministic).
    pub choice_set: Vec<String>,
    /// Human-oriented explanation with the numbers compared.
    pub reason: String,
    /// An outside pick was offered and was not in `choice_set`.
    pub pick_rejected: bool,
    /// The winner's score in the strategy's own measure (lower is better), when it scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The best-scoring other candidate: what an operator asks "why not that one?" about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_up: Option<RunnerUp>,
}

/// The second choice of a scoring strategy, with its score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunnerUp {
    pub broker: String,
    pub score: f64,
}

impl PlacementChoice {
    /// Records the winner's score and the lowest-scoring other candidate (the first on ties) from
    /// `(broker, score)` pairs. Non-finite scores (+inf: overloaded) are left out, so the plan's
    /// JSON never holds a null for a number.
    pub fn with_scores<'a>(mut self, scores: impl IntoIterator<Item = (&'a str, f64)>) -> Self {
        // The runner-up's name is copied once, at the end: it improves many times over ~100
        // candidates, and a copy per improvement was most of this function's cost.
        let mut runner_up: Option<(&str, f64)> = None;
        for (broker, score) in scores {
            if !score.is_finite() {
                continue;
            }
            if broker == self.broker {
                self.score = Some(score);
            } else if runner_up.is_none_or(|(_, best)| score < best) {
                runner_up = Some((broker, score));
            }
        }
        self.runner_up = runner_up.map(|(broker, score)| RunnerUp {
            broker: broker.to_string(),
            score,
        });
        self
    }
}

/// How much of a placement decision is explained. Decisions are the same at every level; only the
/// text and the recorded pipeline stages differ. Formatting a reason that lists every candidate costs
/// far more than the decision itself, so callers that make many decisions and read few (the
/// simulation, the plan's look-ahead) ask for less.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PipelineTrace {
    /// No stages, empty reasons.
    Off,
    /// No stages; reasons give the winning numbers without listing every candidate.
    Summary,
    /// Every pipeline stage as counts (how many candidates it left and removed, no names, no
    /// notes) and the strategies' `Summary` reasons: all that the one-line placement reason
    /// (`plan::reasons::describe_placement`) reads. The history replays a cycle per snapshot and
    /// reads only that line.
    Counts,
    /// Every pipeline stage with its candidates and notes, and the strategies' `Summary` reasons.
    Stages,
    /// Every pipeline stage with its candidates and notes; reasons list each candidate's numbers.
    #[default]
    Full,
}

pub trait PlacementStrategy {
    fn name(&self) -> &'static str;

    /// `selectBroker(candidates, bundleData, loadData, conf)`, fully explained.
    fn select_broker(
        &mut self,
        candidates: &[String],
        bundle: &str,
        bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
    ) -> Option<PlacementChoice> {
        self.select_broker_traced(
            candidates,
            bundle,
            bundle_data,
            data,
            cfg,
            picker,
            PipelineTrace::Full,
        )
    }

    /// `selectBroker` with the reason explained at `trace` level: the same choice and the same
    /// picker calls at every level; strategies whose reasons are cheap ignore `trace`.
    #[allow(clippy::too_many_arguments)]
    fn select_broker_traced(
        &mut self,
        candidates: &[String],
        bundle: &str,
        bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        trace: PipelineTrace,
    ) -> Option<PlacementChoice>;

    /// [`Self::select_broker_traced`] over candidates given as positions in `data.brokers`, in
    /// iteration order: what the pipeline passes (its candidate set holds positions), so that
    /// strategies which score brokers read them by position instead of copying and hashing
    /// ~100 names per placement. The same choice, picker calls and reason as the names' call; the
    /// default builds the names and makes it.
    #[allow(clippy::too_many_arguments)]
    fn select_broker_at(
        &mut self,
        candidates: &[usize],
        bundle: &str,
        bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        trace: PipelineTrace,
    ) -> Option<PlacementChoice> {
        let names: Vec<String> = candidates
            .iter()
            .map(|&pos| name_at(data, pos).to_string())
            .collect();
        self.select_broker_traced(&names, bundle, bundle_data, data, cfg, picker, trace)
    }

    /// [`Self::select_broker_at`] within one shedding cycle, with `scores` kept for the cycle (see
    /// [`CycleScores`]): strategies whose score of a broker reads only the cycle's fixed data may
    /// take it from there. The same choice, picker calls and reason; the default ignores `scores`.
    #[allow(clippy::too_many_arguments)]
    fn select_broker_at_cycle(
        &mut self,
        candidates: &[usize],
        bundle: &str,
        bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
        trace: PipelineTrace,
        _scores: &mut CycleScores,
    ) -> Option<PlacementChoice> {
        self.select_broker_at(candidates, bundle, bundle_data, data, cfg, picker, trace)
    }

    fn on_active_brokers_change(&mut self, _active_brokers: &[String]) {}
}

/// Each broker's score by position in `LoadData.brokers`, computed at most once per shedding cycle.
/// Valid only while the brokers' data and the configuration do not change: within one
/// `doLoadShedding`, whose `selectBroker` calls preallocate nothing (the pipeline's
/// `ShedSelectionMemo` holds one). A strategy whose score depends on the bundle must not use it.
#[derive(Debug, Default)]
pub struct CycleScores(Vec<Option<f64>>);

impl CycleScores {
    /// The score of the broker at `pos`, computed by `score` the first time it is asked for.
    pub fn get_or(&mut self, pos: usize, score: impl FnOnce() -> f64) -> f64 {
        if self.0.len() <= pos {
            self.0.resize(pos + 1, None);
        }
        match self.0.get_mut(pos) {
            Some(Some(s)) => *s,
            Some(slot) => *slot.insert(score()),
            // Unreachable after the resize; scoring afresh keeps it panic-free.
            None => score(),
        }
    }
}

/// The name of the broker at `pos` in `data.brokers` (empty when out of range: never, for the
/// pipeline's positions).
pub(crate) fn name_at(data: &LoadData, pos: usize) -> &str {
    data.brokers.get_index(pos).map_or("", |(n, _)| n.as_str())
}

/// Picks uniformly among `choice_set` through the picker (Java: `list.get(random.nextInt(size))`).
/// A single-element set is returned without consulting the picker. `None` when the set is empty.
pub fn pick_among(
    choice_set: Vec<String>,
    reason: String,
    picker: &mut dyn Picker,
) -> Option<PlacementChoice> {
    let (broker, pick_rejected) = match choice_set.as_slice() {
        [] => return None,
        [only] => (only.clone(), false),
        _ => {
            let pick = picker.pick(&choice_set);
            let broker = choice_set
                .get(pick.index)
                .or_else(|| choice_set.first())
                .cloned()?;
            (broker, pick.rejected_outside_pick)
        }
    };
    Some(PlacementChoice {
        broker,
        choice_set,
        reason,
        pick_rejected,
        score: None,
        runner_up: None,
    })
}

/// The placement strategies this module implements, by simple or fully qualified class name.
/// `AvgShedder` is not here: it is one object shared with shedding (see `modular::leader`).
pub fn placement_by_name(name: &str) -> Option<Box<dyn PlacementStrategy>> {
    match config::simple_class_name(&config::qualify_strategy_name(name)) {
        "LeastLongTermMessageRate" => Some(Box::new(LeastLongTermMessageRate)),
        "LeastResourceUsageWithWeight" => Some(Box::new(LeastResourceUsageWithWeight::default())),
        "RoundRobinBrokerSelector" => Some(Box::new(RoundRobinBrokerSelector::default())),
        _ => None,
    }
}

/// Formats a number for reasons: integers without a fraction, others with up to 4 decimals.
pub(crate) fn fmt_num(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let mut s = fixed_4(v).unwrap_or_else(|| format!("{v:.4}"));
        let kept = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(kept);
        s
    }
}

/// `format!("{v:.4}")` for a finite `v` below 1e11 in magnitude, by integer arithmetic: the exact
/// binary value times 10⁴, rounded half to even as Rust's exact formatter rounds (which, for
/// most scores, falls back to its slow big-number path). `None` outside that range.
fn fixed_4(v: f64) -> Option<String> {
    if !v.is_finite() || v.abs() >= 1e11 {
        return None;
    }
    let bits = v.to_bits();
    let biased = (bits >> 52) & 0x7ff;
    let fraction = bits & ((1u64 << 52) - 1);
    // v = mantissa · 2^-shift; below 1e11 < 2^37 a normal number's shift is at least 15.
    let (mantissa, shift) = if biased == 0 {
        (fraction, 1074u64)
    } else {
        (fraction | (1u64 << 52), 1075u64.checked_sub(biased)?)
    };
    let scaled = u128::from(mantissa) * 10_000;
    let rounded = if shift == 0 {
        scaled
    } else if shift >= 100 {
        // scaled < 2^67, less than half of 2^shift: rounds to zero.
        0
    } else {
        let quotient = scaled >> shift;
        let rest = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && quotient & 1 == 1) {
            quotient + 1
        } else {
            quotient
        }
    };
    let sign = if v.is_sign_negative() { "-" } else { "" };
    Some(format!(
        "{sign}{}.{:04}",
        rounded / 10_000,
        rounded % 10_000
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The integer path formats exactly as Rust's formatter: ties (dyadic values halfway between
    /// two 4-decimal numbers) round to even, signs and zeros as `{:.4}` prints them, and random
    /// values across the magnitudes scores take.
    #[test]
    fn fixed_4_is_rusts_exact_formatting() {
        let mut values = vec![
            0.0,
            -0.0,
            0.03125,
            0.09375,
            0.15625,
            -0.03125,
            0.5,
            2.5,
            1e-9,
            -1e-9,
            5e-5,
            1.5e-4,
            123_456.789_05,
            99_999_999_999.999,
            f64::MIN_POSITIVE,
            5e-324,
        ];
        let mut rng = SplitMix64::new(17);
        for _ in 0..200_000 {
            let bits = rng.next_u64();
            // Uniform in [0, 1) scaled over 10⁻⁶ … 10¹¹, and halves of odd multiples of 1/32.
            let unit = (bits >> 11) as f64 / (1u64 << 53) as f64;
            let scale = 10f64.powi(i32::try_from(bits % 18).unwrap_or(0) - 6);
            values.push(unit * scale);
            values.push(-unit * scale);
            values.push(f64::from(u32::try_from(bits % 100_000).unwrap_or(0)) / 32.0);
        }
        for v in values {
            assert_eq!(fixed_4(v), Some(format!("{v:.4}")), "{v:e}");
        }
        assert_eq!(fixed_4(1e11), None);
        assert_eq!(fixed_4(f64::NAN), None);
        assert_eq!(fmt_num(0.031_25), "0.0312");
        assert_eq!(fmt_num(-0.000_01), "-0");
    }
}
