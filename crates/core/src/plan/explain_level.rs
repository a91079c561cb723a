//! How much of each decision's explanation a plan carries (`Explain`) and what a plan made below
//! `Full` says it left out (`Explained`): part of the plan document, which holds the latter.

use serde::{Deserialize, Serialize};

use crate::modular::pipeline::PipelineTrace;

/// How much of each decision's explanation a plan carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Explain {
    /// Every decision's `detail` (the CLI's, the exports', `plan_dump`'s plans).
    #[default]
    Full,
    /// `reason` and `reason_text` exactly as Full gives them, `detail` left out: for interactive
    /// what-ifs, whose details are asked for one decision at a time ([`explain_decision`]).
    Summary,
}

impl Explain {
    /// The level's name (`full`, `summary`), as the JS API and the plan JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Explain::Full => "full",
            Explain::Summary => "summary",
        }
    }

    /// The level named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "full" => Some(Explain::Full),
            "summary" => Some(Explain::Summary),
            _ => None,
        }
    }

    /// The trace level of the plan's own placements (the manual operations' and the first
    /// cycle's; the outlook's cycles run at `Summary` at every level). `Counts` keeps the stage
    /// counts the one-line reason and the structured reason read.
    pub(crate) fn placement_trace(self) -> PipelineTrace {
        match self {
            Explain::Full => PipelineTrace::Full,
            Explain::Summary => PipelineTrace::Counts,
        }
    }
}

/// What a plan made below [`Explain::Full`] left out, and how to get it (`explained` in the plan
/// JSON, absent from a Full plan).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explained {
    /// The level the plan was made at.
    pub level: Explain,
    /// What was left out and how to get it, for a reader of the JSON.
    pub left_out: String,
}

impl Explained {
    pub(super) fn of(level: Explain) -> Self {
        Self {
            level,
            left_out: "every decision's `detail` (null here): plan the same request with explain \
                       `full`, or ask for one decision's detail (`explainDecision` in the JS API)"
                .to_string(),
        }
    }
}
