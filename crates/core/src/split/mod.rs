//! Bundle splitting (§5 of the reference): the four split algorithms, the factory's split arithmetic,
//! and the automatic split decisions of the modular (`BundleSplitterTask`) and extensible
//! (`DefaultNamespaceBundleSplitStrategyImpl`) load managers, each decision with a structured reason.

mod algorithms;
mod error;
mod extensible;
mod factory;
mod flow_or_qps;
mod modular;
mod result;
mod thresholds;

pub use algorithms::{
    NoSplitReason, SplitAlgorithm, SplitPoints, operator_split_algorithms, range_equally_divide,
    specified_positions_divide, topic_count_equally_divide,
};
pub use error::SplitError;
pub use extensible::{
    ExtensibleSplitCycle, ExtensibleSplitDecision, ExtensibleSplitInput, ExtensibleSplitSkip,
    ExtensibleSplitStrategy, SplitReason,
};
pub use factory::{FactorySplit, split_bundles, split_cut_points};
pub use flow_or_qps::{FlowOrQpsLimits, TopicRates, flow_or_qps_equally_divide};
pub use modular::{
    BrokerBundleStats, ModularSplitCandidate, ModularSplitPlan, ModularSplitSkip, auto_split_runs,
    find_bundles_to_split,
};
pub use result::SplitResult;
pub use thresholds::{SplitThresholds, SplitTrigger};
