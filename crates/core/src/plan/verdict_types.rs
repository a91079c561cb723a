//! The verdict's types: the outcome, the metrics that changed, the brokers over the limit, the
//! pattern recognised and the alternatives tried. Part of the plan document, which holds a
//! `Verdict`; `verdict` judges a plan into one.

use serde::{Deserialize, Serialize};

/// The whole plan's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Better,
    Worse,
    /// Some measures improve, others worsen, and none of the rules for "worse" holds.
    Mixed,
    #[default]
    NoChange,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Better => "better",
            Outcome::Worse => "worse",
            Outcome::Mixed => "mixed",
            Outcome::NoChange => "no change",
        }
    }
}

/// One measure before and after.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Better,
    Worse,
    #[default]
    NoChange,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricChange {
    /// `max_usage_fraction`, `max_over_mean` or `std_usage_fraction` (the balance summary's fields).
    pub metric: String,
    pub before: f64,
    pub after: f64,
    /// Lower is better for all three.
    pub change: Change,
}

/// A broker over a limit after the plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BrokerOverLimit {
    pub broker: String,
    /// Weighted max usage before the plan (`None`: the broker was added by the plan).
    pub before_fraction: Option<f64>,
    pub after_fraction: f64,
    /// Over the limit after the plan and not before.
    pub new: bool,
}

/// A recognised pattern behind the outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Pattern {
    /// Several unloads land on one broker, which ends up the busiest or overloaded: the placement
    /// scores every bundle of a cycle on the same leader view, so without preallocation the same
    /// broker wins each time (apache/pulsar#16059).
    ConvergingDestination {
        destination: String,
        unloads: usize,
        /// Unloads of the plan that name a destination.
        of_unloads: usize,
        before_fraction: f64,
        after_fraction: f64,
    },
    /// A broker that receives bundles in this plan is itself shed: later in the same cycle
    /// (`at_cycle` 1) or, per the outlook, at a later cycle.
    ShedAgain {
        broker: String,
        received: usize,
        shed: usize,
        at_cycle: u32,
    },
}

/// One setting changed, the plan made again, and its outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// The `broker.conf` key, verbatim.
    pub key: String,
    pub value: String,
    pub outcome: Outcome,
    pub max_usage_after_fraction: f64,
    pub max_over_mean_after: f64,
    /// The re-planned verdict is not `worse`.
    pub avoids_worse: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub outcome: Outcome,
    /// One line: the outcome and the numbers that decided it.
    pub headline: String,
    /// Why the outcome is `worse` (empty otherwise).
    pub reasons: Vec<String>,
    pub metrics: Vec<MetricChange>,
    /// `loadBalancerBrokerOverloadedThresholdPercentage` / 100, the limit `overloaded` uses.
    pub overloaded_threshold_fraction: f64,
    /// Brokers whose weighted max usage is over the overloaded threshold after the plan.
    pub overloaded: Vec<BrokerOverLimit>,
    /// Brokers above 100 % after the plan.
    pub above_capacity: Vec<BrokerOverLimit>,
    pub patterns: Vec<Pattern>,
    /// For a `worse` plan: single settings tried by re-planning (same snapshot, operations, seed).
    pub alternatives: Vec<Alternative>,
}

impl Verdict {
    pub fn is_worse(&self) -> bool {
        self.outcome == Outcome::Worse
    }

    /// The first alternative whose plan is not worse.
    pub fn suggestion(&self) -> Option<&Alternative> {
        self.alternatives.iter().find(|a| a.avoids_worse)
    }
}
