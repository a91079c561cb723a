//! The modular load manager (`ModularLoadManagerImpl`, Pulsar's default): the leader's load data,
//! the shedding strategies, the placement strategies and the candidate pipeline (§6–§8).

pub mod leader;
pub mod load_data;
pub mod pipeline;
mod pipeline_steps;
pub mod placement;
pub mod placement_context;
pub mod placement_explain;
pub mod range_cache;
pub mod shed_memo;
pub mod shedding;

pub use load_data::{BrokerData, BundleDataMap, LoadData};
pub use placement::{PlacementChoice, PlacementStrategy};
pub use shedding::{LoadSheddingStrategy, ShedReason, SheddingSelection};
