//! Multi-cycle simulation: the modular leader's loop run for N cycles on a snapshot under a load
//! model and scheduled events, with one persistent strategy set, measuring convergence and churn;
//! and the comparison of several configurations on the same inputs. See `docs/simulation.md`.

mod cluster;
pub mod compare;
mod engine;
pub mod error;
mod json_read;
pub mod limits;
pub mod load_model;
pub mod metrics;
mod ownership;
mod record;
pub mod run_config;
pub mod scenario;
pub mod timeline;

pub use compare::{
    Comparison, builtin_scenario, builtin_scenario_names, compare, render_csv, render_cycles_csv,
    render_table, render_table_with,
};
pub use engine::{
    RunOptions, SimulateError, simulate, simulate_recording, simulate_recording_each,
};
pub use error::ScenarioError;
// The built-in clusters are the one synthetic generator's; the simulator names them.
pub use crate::synthetic::{
    BUILTIN_PREFIX, BUILTIN_SNAPSHOTS, UnknownBuiltinSnapshot, builtin_snapshot,
    builtin_snapshot_name, builtin_snapshot_references, resolve_builtin_snapshot,
};
pub use limits::{DEFAULT_SEED, MAX_CYCLES, MAX_EVENTS};
pub use metrics::{CycleDecision, CycleMetrics, RunSummary, SimulationRun};
pub use ownership::OwnershipChange;
pub use run_config::{RunConfig, RunConfigError};
pub use scenario::{SCENARIO_FORMAT_VERSION, Scenario};
pub use timeline::snapshot_after;
