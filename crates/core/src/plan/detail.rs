//! The strategy's full record behind a plan decision (`detail` in the plan JSON): typed, one variant
//! per way a decision is made, serialised to the same JSON the plan has always carried (each
//! variant's keys are its own, so a reader tells them apart by the keys present; see
//! `docs/plan-model.md`). `reason` is the machine-readable summary; this is everything.

use serde::{Deserialize, Serialize};

use crate::extensible::UnloadDecision;
use crate::modular::ShedReason;
use crate::modular::pipeline::PlacementOutcome;
use crate::reason::DecisionReason;

/// What decided an unload, and how its destination was chosen.
///
/// Untagged: the variants' keys differ, and they are tried in this order when read back (a variant
/// whose keys are a subset of another's comes after it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UnloadDetail {
    /// The leader's shedding: the strategy's rule with its numbers, and the placement pipeline's
    /// record (`{"shedding": …, "placement": …}`).
    Shedding {
        shedding: ShedReason,
        placement: Box<PlacementOutcome>,
    },
    /// An operation whose bundle the placement strategy placed, as the next lookup would
    /// (`{"operation": "manual unload", "placement": …}`).
    Placed {
        operation: PlacedOperation,
        placement: Box<PlacementOutcome>,
    },
    /// An operation that named its `destinationBroker`: the operation's `--op` text
    /// (`{"operation": "unload-bundle=t/ns/0x…_0x…->b2:8080"}`).
    Manual { operation: String },
    /// TransferShedder's decision, as Pulsar's `UnloadDecision` (`{"sourceBroker", "serviceUnit",
    /// "destBroker", "label", "reason"}`).
    Transfer(UnloadDecision),
    /// A step of an `lbplan rebalance` proposal: its numbers are the whole record, so the detail
    /// is the step's `reason` again.
    Rebalance(DecisionReason),
}

/// The operations whose bundles the placement strategy places, by the words the detail names them
/// with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlacedOperation {
    #[serde(rename = "manual unload")]
    ManualUnload,
    #[serde(rename = "namespace unload")]
    NamespaceUnload,
    #[serde(rename = "its broker was removed")]
    RemoveBroker,
}

impl PlacedOperation {
    /// The words the detail and the one-line reason use.
    pub fn words(self) -> &'static str {
        match self {
            PlacedOperation::ManualUnload => "manual unload",
            PlacedOperation::NamespaceUnload => "namespace unload",
            PlacedOperation::RemoveBroker => "its broker was removed",
        }
    }
}

impl UnloadDetail {
    /// The shedding rule that selected the bundle, for an unload the leader's shedding made.
    pub fn shed_reason(&self) -> Option<&ShedReason> {
        match self {
            UnloadDetail::Shedding { shedding, .. } => Some(shedding),
            _ => None,
        }
    }
}

/// What decided a split.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SplitDetail {
    /// `BundleSplitterTask`: every limit the bundle exceeded, as text (`{"triggers": […]}`).
    Automatic { triggers: Vec<String> },
    /// A manual split: the operation's `--op` text (`{"operation": "split-bundle=…"}`).
    Manual { operation: String },
}

#[cfg(test)]
mod tests {
    //! Each variant's JSON is the shape `docs/plan-model.md` documents (the shedding one as the
    //! goldens hold it, `crates/cli/tests/golden/demo-plan.json`; TransferShedder's as the
    //! conformance oracle prints Pulsar's `UnloadDecision`), and reads back as the same variant.

    use serde_json::json;

    use super::*;
    use crate::extensible::UnloadReason;
    use crate::modular::placement::PlacementChoice;
    use crate::modular::shedding::TrafficMetric;
    use crate::reason::ReasonKind;

    fn placement() -> Box<PlacementOutcome> {
        Box::new(PlacementOutcome {
            bundle: "t/ns/0x00000000_0x40000000".into(),
            broker: Some("b2:8080".into()),
            choice: Some(PlacementChoice {
                broker: "b2:8080".into(),
                choice_set: vec!["b2:8080".into()],
                reason: "lowest long-term message rate".into(),
                pick_rejected: false,
                score: Some(100.0),
                runner_up: None,
            }),
            strategy: "LeastLongTermMessageRate".into(),
            stages: Vec::new(),
            stage_counts: Vec::new(),
            overloaded_first_choice: None,
            from_preallocation: false,
        })
    }

    const PLACEMENT_JSON: &str = r#"{"bundle":"t/ns/0x00000000_0x40000000","broker":"b2:8080","choice":{"broker":"b2:8080","choice_set":["b2:8080"],"reason":"lowest long-term message rate","pick_rejected":false,"score":100.0},"strategy":"LeastLongTermMessageRate","stages":[],"overloaded_first_choice":null,"from_preallocation":false}"#;

    fn round_trip<T>(value: &T, want: &str)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        let text = serde_json::to_string(value).unwrap();
        assert_eq!(text, want);
        let back: T = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, value);
    }

    #[test]
    fn shedding_is_the_rule_then_the_placement() {
        let d = UnloadDetail::Shedding {
            shedding: ShedReason::ThresholdShedder {
                broker_usage_fraction: 0.7,
                avg_usage_fraction: 0.4,
                threshold_fraction: 0.1,
                need_bytes_per_sec: 1000.0,
                bundle_bytes_per_sec: 800.0,
                lower_boundary: false,
            },
            placement: placement(),
        };
        round_trip(
            &d,
            &format!(
                r#"{{"shedding":{{"strategy":"ThresholdShedder","broker_usage_fraction":0.7,"avg_usage_fraction":0.4,"threshold_fraction":0.1,"need_bytes_per_sec":1000.0,"bundle_bytes_per_sec":800.0,"lower_boundary":false}},"placement":{PLACEMENT_JSON}}}"#
            ),
        );
        let uniform = UnloadDetail::Shedding {
            shedding: ShedReason::UniformLoadShedder {
                metric: TrafficMetric::MsgRate,
                max_broker_value: 3000.0,
                min_broker_value: 1.0,
                need: 1000.0,
                bundle_value: 900.0,
            },
            placement: placement(),
        };
        let text = serde_json::to_string(&uniform).unwrap();
        assert!(
            text.starts_with(
                r#"{"shedding":{"strategy":"UniformLoadShedder","metric":"msg_rate","#
            ),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<UnloadDetail>(&text).unwrap(),
            uniform
        );
    }

    #[test]
    fn placed_operations_name_the_operation_then_the_placement() {
        for (op, words) in [
            (PlacedOperation::ManualUnload, "manual unload"),
            (PlacedOperation::NamespaceUnload, "namespace unload"),
            (PlacedOperation::RemoveBroker, "its broker was removed"),
        ] {
            assert_eq!(op.words(), words);
            round_trip(
                &UnloadDetail::Placed {
                    operation: op,
                    placement: placement(),
                },
                &format!(r#"{{"operation":"{words}","placement":{PLACEMENT_JSON}}}"#),
            );
        }
    }

    #[test]
    fn an_unload_to_a_destination_is_the_operation_text() {
        round_trip(
            &UnloadDetail::Manual {
                operation: "unload-bundle=t/ns/0x00000000_0x40000000->b2:8080".into(),
            },
            r#"{"operation":"unload-bundle=t/ns/0x00000000_0x40000000->b2:8080"}"#,
        );
    }

    #[test]
    fn a_transfer_is_pulsars_unload_decision() {
        // The oracle's shape (`tests/conformance/` extensible vectors): label `Success`.
        round_trip(
            &UnloadDetail::Transfer(UnloadDecision {
                source_broker: "b1:8080".into(),
                service_unit: "t/ns/0x00000000_0x40000000".into(),
                dest_broker: Some("b2:8080".into()),
                reason: UnloadReason::Overloaded,
            }),
            r#"{"sourceBroker":"b1:8080","serviceUnit":"t/ns/0x00000000_0x40000000","destBroker":"b2:8080","label":"Success","reason":"Overloaded"}"#,
        );
        round_trip(
            &UnloadDetail::Transfer(UnloadDecision {
                source_broker: "b1:8080".into(),
                service_unit: "t/ns/0x00000000_0x40000000".into(),
                dest_broker: None,
                reason: UnloadReason::Underloaded,
            }),
            r#"{"sourceBroker":"b1:8080","serviceUnit":"t/ns/0x00000000_0x40000000","destBroker":null,"label":"Success","reason":"Underloaded"}"#,
        );
    }

    #[test]
    fn a_rebalance_step_is_its_reason() {
        let r = DecisionReason::new(ReasonKind::Rebalance)
            .with("step", "drain")
            .with("goal", "max/mean<=1.15")
            .with("from_usage_before_fraction", 0.8);
        round_trip(
            &UnloadDetail::Rebalance(r),
            r#"{"kind":"rebalance","step":"drain","goal":"max/mean<=1.15","from_usage_before_fraction":0.8}"#,
        );
    }

    #[test]
    fn splits_name_their_triggers_or_the_operation() {
        round_trip(
            &SplitDetail::Automatic {
                triggers: vec!["topics 6 > loadBalancerNamespaceBundleMaxTopics 5".into()],
            },
            r#"{"triggers":["topics 6 > loadBalancerNamespaceBundleMaxTopics 5"]}"#,
        );
        round_trip(
            &SplitDetail::Manual {
                operation: "split-bundle=t/ns/0x00000000_0x40000000:range_equally_divide".into(),
            },
            r#"{"operation":"split-bundle=t/ns/0x00000000_0x40000000:range_equally_divide"}"#,
        );
    }

    #[test]
    fn a_detail_read_back_is_the_variant_it_was() {
        // `Manual`'s keys are a subset of `Placed`'s: a placed operation must not read as manual.
        let placed = json!({"operation": "namespace unload", "placement": serde_json::to_value(placement()).unwrap()});
        assert!(matches!(
            serde_json::from_value::<UnloadDetail>(placed).unwrap(),
            UnloadDetail::Placed {
                operation: PlacedOperation::NamespaceUnload,
                ..
            }
        ));
    }
}
