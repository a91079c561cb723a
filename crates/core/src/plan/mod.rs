//! Plans: what one leader cycle (or a manual what-if) would do to a snapshot, with each decision's
//! reason, each broker's load before and after, a verdict on the outcome, and exports to `pulsar-admin` / admin REST calls.

pub(crate) mod after_view;
pub mod balance;
pub mod broker_pairs;
pub mod detail;
pub mod diff;
pub mod driver;
pub mod engine;
pub mod explain;
pub mod extensible_cycle;
mod manual_ops;
pub mod model;
mod modular_cycle;
pub mod operations;
pub mod reasons;
pub mod splits;
pub mod summary;
mod transfer_cycle;
pub mod verdict;
pub mod verify;
pub(crate) mod working_view;

pub use after_view::AfterStart;
pub use driver::{
    MAX_OUTLOOK_CYCLES, PlanError, PlanRequest, check_outlook_cycles, make_plan,
    make_plan_with_fingerprint,
};
pub use engine::PlanEngine;
pub use explain::{DecisionDetail, DecisionRef, Explain, Explained, explain_decision};
pub use model::{
    BalanceSummary, BrokerLoadView, PLAN_FORMAT_VERSION, PlacedOperation, Plan, PlannedSplit,
    PlannedUnload, SkipScope, SkippedDecision, SplitDetail, UnloadDetail,
};
pub use verdict::{Outcome, Verdict};
