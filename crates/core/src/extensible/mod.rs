//! The extensible load manager (`ExtensibleLoadManagerImpl`): load statistics, TransferShedder, its
//! placement and top-K bundle reports (§9 of the reference).
//!
//! Strategies here see only model types (`BrokerLoadData`, `TopBundlesLoadData`) and take the clock
//! (`now_ms`) and randomness (`rng::Picker`) from the caller.

pub mod decision;
pub mod filters;
pub mod load_stats;
pub mod placement;
pub mod top_k;
pub mod transfer_shedder;

pub use decision::{SkipReason, UnloadDecision, UnloadReason};
pub use filters::{
    CandidateBrokers, PolicyInputs, apply_broker_filters, apply_filters_for_bundle,
    is_transferable_with_filters,
};
pub use load_stats::LoadStats;
pub use placement::{ExtensiblePlacement, least_resource_usage_choice_set, select_broker};
pub use top_k::{TopKFilter, top_k_bundles};
pub use transfer_shedder::{
    PermissiveChecks, SheddingInput, SheddingOutcome, TransferShedder, UnloadChecks,
};
