//! The leader: the broker that runs Pulsar's load manager. Its view of the cluster, the state it keeps
//! between cycles (bundle positions, stored bundle data), its memory across cycles and the one `tick`
//! (shedding, placement, splits, the grace list, the picker) that plans, history and the simulator step,
//! with the outlook (further ticks on unchanged load); and the extensible load manager's leader
//! (TransferShedder's cycle with its look-ahead), which plans of such clusters run.

pub mod context;
pub mod error;
pub mod extensible;
pub mod extensible_view;
pub mod memory;
pub mod outlook;
mod positions;
pub mod splitter_task;
pub mod state;
pub mod step;
mod stored_bundles;
mod value_routes;
pub mod view;
