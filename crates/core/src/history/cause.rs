//! Why a change happened, as the history names it: the type every part of the history reads (the
//! report, its numbers, the answers, the text), apart from `explain`, which decides it.

use serde::{Deserialize, Serialize};

/// Why a change happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Cause {
    /// The replayed leader unloaded the bundle in the cycle on the earlier snapshot;
    /// `predicted_to` is where its placement sent it.
    LeaderShedding {
        predicted_to: String,
        destination_agrees: bool,
        reason: String,
    },
    /// `BundleSplitterTask` on the earlier snapshot chose this bundle.
    AutomaticSplit { reason: String },
    /// The owner left the cluster; lookups re-assigned its bundle.
    BrokerLeft { broker: String },
    /// The bundle's namespace was created; this is its first owner.
    NamespaceCreated { namespace: String },
    /// A membership or namespace change itself: seen, not caused by the leader.
    Observed,
    /// No modelled cause: a manual unload or split, a client lookup of an unowned bundle, or a
    /// model gap.
    Unexplained { why: String },
}

impl Cause {
    pub fn name(&self) -> &'static str {
        match self {
            Cause::LeaderShedding { .. } => "leader_shedding",
            Cause::AutomaticSplit { .. } => "automatic_split",
            Cause::BrokerLeft { .. } => "broker_left",
            Cause::NamespaceCreated { .. } => "namespace_created",
            Cause::Observed => "observed",
            Cause::Unexplained { .. } => "unexplained",
        }
    }
}
