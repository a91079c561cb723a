//! Plans: what one leader cycle (or a manual what-if) would do to a snapshot, with each decision's
//! reason, each broker's load before and after, and a verdict on the outcome (exports and apply: `crate::act`).

pub(crate) mod after_view;
pub mod balance;
pub mod broker_pairs;
pub mod detail;
pub mod diff;
mod driver;
pub mod engine;
pub mod explain;
mod explain_level;
mod manual_ops;
pub mod model;
mod modular_cycle;
pub mod operations;
pub mod reasons;
pub mod release_reads;
pub mod request;
pub mod split_records;
pub mod splits;
pub mod summary;
mod transfer_cycle;
pub mod verdict;
mod verdict_types;
pub mod verify;
pub(crate) mod working_view;

pub use after_view::AfterStart;
pub use engine::{PlanEngine, explain_decision, make_plan, make_plan_with_fingerprint};
pub use explain::{DecisionDetail, DecisionRef, Explain, Explained};
pub use model::{
    BalanceSummary, BrokerLoadView, PLAN_FORMAT_VERSION, PlacedOperation, Plan, PlannedSplit,
    PlannedUnload, SkipScope, SkippedDecision, SplitDetail, UnloadDetail,
};
pub use request::{MAX_OUTLOOK_CYCLES, PlanError, PlanRequest, check_outlook_cycles};
pub use verdict::{Outcome, Verdict};
