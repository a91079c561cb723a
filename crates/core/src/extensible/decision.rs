//! The outcome vocabulary of an unload cycle: `UnloadDecision` (`{sourceBroker, serviceUnit, destBroker,
//! label, reason}`) and the `Skip` reasons the `UnloadCounter` records (§9.3).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a bundle is moved (`UnloadDecision.Reason` for a `Success`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum UnloadReason {
    Overloaded,
    Underloaded,
}

/// Why a cycle made no decision (`UnloadCounter` `Skip/<reason>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SkipReason {
    NoBrokers,
    NoLoadData,
    OutDatedData,
    CoolDown,
    HitCount,
    NoBundles,
}

impl SkipReason {
    /// Pulsar's enum constant name.
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::NoBrokers => "NoBrokers",
            SkipReason::NoLoadData => "NoLoadData",
            SkipReason::OutDatedData => "OutDatedData",
            SkipReason::CoolDown => "CoolDown",
            SkipReason::HitCount => "HitCount",
            SkipReason::NoBundles => "NoBundles",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl UnloadReason {
    pub fn name(self) -> &'static str {
        match self {
            UnloadReason::Overloaded => "Overloaded",
            UnloadReason::Underloaded => "Underloaded",
        }
    }
}

/// One planned move. `dest_broker` is `None` for a plain unload (`loadBalancerTransferEnabled=false`),
/// in which case the bundle is re-assigned by placement later. Every decision TransferShedder returns
/// carries the label `Success`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnloadDecision {
    pub source_broker: String,
    pub service_unit: String,
    pub dest_broker: Option<String>,
    pub reason: UnloadReason,
}

impl UnloadDecision {
    /// The label Pulsar attaches to every returned decision.
    pub const LABEL: &'static str = "Success";

    /// The oracle's JSON shape: `{sourceBroker, serviceUnit, destBroker, label, reason}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "sourceBroker": self.source_broker,
            "serviceUnit": self.service_unit,
            "destBroker": self.dest_broker,
            "label": Self::LABEL,
            "reason": self.reason.name(),
        })
    }
}
