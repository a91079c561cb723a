//! What a plan is asked for and what it works on: the request, its errors, and the workspace the
//! manual operations and the leader's cycle edit. A leaf of `plan/`, so the steps of a plan import
//! these types without importing the driver that runs them.

use crate::config::{ConfigError, Profile};
use crate::leader::error::LeaderError;
use crate::leader::memory::LeaderMemory;
use crate::modular::leader::StrategyConfigError;

use super::after_view::AfterView;
use super::explain_level::Explain;
use super::operations::Operation;

/// What the operator asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRequest {
    /// `None`: detect from the brokers' `brokerVersionString`.
    pub profile: Option<Profile>,
    /// `broker.conf` overrides, applied after the snapshot's own values.
    pub settings: Vec<(String, String)>,
    pub operations: Vec<Operation>,
    pub seed: u64,
    /// Run the leader's shedding cycle after the manual operations.
    pub leader_cycle: bool,
    /// Extra cycles to look ahead when the first cycle unloads nothing.
    pub outlook_cycles: u32,
    /// How much of each decision's explanation the plan carries ([`Explain::Full`]: all of it).
    pub explain: Explain,
}

/// The most outlook cycles a plan or a rebalance check looks at (each is a whole leader cycle on
/// the same load): the CLI's `--outlook-cycles` and the JavaScript API's `outlookCycles` refuse
/// more, and the engine never runs more.
pub const MAX_OUTLOOK_CYCLES: u32 = 1000;

/// `n` if a plan may look that many cycles ahead; otherwise why not, stating the cap.
pub fn check_outlook_cycles(n: u64) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| *n <= MAX_OUTLOOK_CYCLES)
        .ok_or_else(|| format!("{n} outlook cycles: at most {MAX_OUTLOOK_CYCLES}"))
}

impl PlanRequest {
    /// One leader cycle with the detected profile, seed 0, a 10-cycle outlook.
    pub fn leader_cycle() -> Self {
        Self {
            profile: None,
            settings: Vec::new(),
            operations: Vec::new(),
            seed: 0,
            leader_cycle: true,
            outlook_cycles: 10,
            explain: Explain::Full,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The plan's leader cannot be configured: a setting, or a strategy.
    #[error(transparent)]
    Leader(#[from] LeaderError),
    #[error("operation `{op}`: {why}")]
    Operation { op: String, why: String },
}

impl From<ConfigError> for PlanError {
    fn from(e: ConfigError) -> Self {
        PlanError::Leader(e.into())
    }
}

impl From<StrategyConfigError> for PlanError {
    fn from(e: StrategyConfigError) -> Self {
        PlanError::Leader(e.into())
    }
}

pub(crate) fn op_error(op: &Operation, why: impl Into<String>) -> PlanError {
    PlanError::Operation {
        op: op.to_string(),
        why: why.into(),
    }
}

/// Everything a cycle works on.
pub(crate) struct Workspace<'s> {
    /// The freshly elected leader the plan runs: its configuration, strategies and picker, which
    /// place the manual operations' bundles and run the cycle and its outlook.
    pub(crate) leader: LeaderMemory,
    /// The cluster as it will be after the plan (the "after" view).
    pub(crate) after: AfterView<'s>,
    pub(crate) now_ms: i64,
    /// The trace level of the plan's own placements (`PlanRequest::explain`).
    pub(crate) trace: crate::modular::pipeline::PipelineTrace,
}
