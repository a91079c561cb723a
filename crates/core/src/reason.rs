//! Machine-readable reasons: every plan decision (unload, skip, split, split skip) and every broker
//! a shedder leaves alone carries a [`DecisionReason`] — a stable snake_case `kind` and the numbers
//! that rule compared — so a tool can tell "placement chose the current owner" from
//! "recently unloaded" or "isolation" without parsing text. The kinds are documented in
//! `docs/plan-model.md`; renaming one is a plan `format_version` change.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What decided. Stable names (snake_case in JSON): add kinds, never rename them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    // Unloads the shedding cycle made.
    ThresholdShedder,
    ThresholdShedderLowerBoundary,
    OverloadShedder,
    UniformLoadShedder,
    AvgShedder,
    TransferShedderOverloaded,
    TransferShedderUnderloaded,
    // Unloads an operator asked for.
    ManualUnload,
    ManualUnloadToDestination,
    NamespaceUnload,
    RemoveBroker,
    /// A step of an `lbplan rebalance` proposal (toward the goal, or draining a broker).
    Rebalance,
    // A selected bundle the leader does not move.
    ExcludedNamespace,
    Isolation,
    AntiAffinity,
    NoBrokerAvailable,
    PlacementChoseCurrentOwner,
    // A broker over the strategy's threshold that sheds nothing.
    BelowMinThroughput,
    SoleBundle,
    RecentlyUnloaded,
    NoUnloadableBundle,
    DifferenceBelowThreshold,
    BelowMinUnload,
    NoBundleFits,
    HitCountBelowThreshold,
    NoTopBundles,
    // A whole cycle that does nothing.
    SheddingDisabled,
    SingleBroker,
    TransferShedderSkipped,
    /// Java's TimSort threw "Comparison method violates its general contract!" on AvgShedder's
    /// `(int)` comparator (before apache/pulsar#24954): the shedding run aborts.
    SortContractViolation,
    // Splits.
    SplitThresholdsExceeded,
    ManualSplit,
    SplitDeclined,
}

impl ReasonKind {
    /// The JSON name (`placement_chose_current_owner`).
    pub fn as_str(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// A kind and the numbers it compared, flattened into one JSON object:
/// `{"kind": "below_min_throughput", "need_bytes_per_sec": 1.2e6, …}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionReason {
    pub kind: ReasonKind,
    #[serde(flatten)]
    pub numbers: Map<String, Value>,
}

impl DecisionReason {
    pub fn new(kind: ReasonKind) -> Self {
        Self {
            kind,
            numbers: Map::new(),
        }
    }

    /// Adds one named value (units in the name: `_fraction`, `_pct`, `_bytes_per_sec`).
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.numbers.insert(key.to_string(), value.into());
        self
    }

    /// Adds every field of a serialised object (a strategy's own reason), except `skip`.
    #[must_use]
    pub fn with_fields_of(mut self, value: &impl Serialize, skip: &[&str]) -> Self {
        if let Ok(Value::Object(map)) = serde_json::to_value(value) {
            for (k, v) in map {
                if !skip.contains(&k.as_str()) && k != "kind" {
                    self.numbers.insert(k, v);
                }
            }
        }
        self
    }

    /// A number by name (tests and views).
    pub fn number(&self, key: &str) -> Option<f64> {
        self.numbers.get(key).and_then(Value::as_f64)
    }
}

/// A broker over the strategy's shedding threshold that the last selection shed nothing from, and
/// why (the text with the numbers, and the same as a [`DecisionReason`]): a plan must not leave a
/// broker that looks overloaded unexplained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotShed {
    pub broker: String,
    pub why: String,
    pub reason: DecisionReason,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_snake_case_and_numbers_flat() {
        let r = DecisionReason::new(ReasonKind::PlacementChoseCurrentOwner).with("candidates", 3);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"kind":"placement_chose_current_owner","candidates":3}"#
        );
        let back: DecisionReason =
            serde_json::from_str(r#"{"kind":"recently_unloaded","recently_unloaded":2}"#).unwrap();
        assert_eq!(back.kind, ReasonKind::RecentlyUnloaded);
        assert_eq!(back.number("recently_unloaded"), Some(2.0));
        assert_eq!(
            ReasonKind::BelowMinThroughput.as_str(),
            "below_min_throughput"
        );
    }
}
