//! The outcome vocabulary of an unload cycle: `UnloadDecision` (`{sourceBroker, serviceUnit, destBroker,
//! label, reason}`) and the `Skip` reasons the `UnloadCounter` records (§9.3).

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

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
///
/// Serialised in the oracle's shape, `{sourceBroker, serviceUnit, destBroker, label, reason}` (the
/// conformance output and the plan's `detail`); `label` is ignored when read back.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
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
}

impl Serialize for UnloadDecision {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("UnloadDecision", 5)?;
        m.serialize_field("sourceBroker", &self.source_broker)?;
        m.serialize_field("serviceUnit", &self.service_unit)?;
        m.serialize_field("destBroker", &self.dest_broker)?;
        m.serialize_field("label", Self::LABEL)?;
        m.serialize_field("reason", self.reason.name())?;
        m.end()
    }
}
