//! `lbplan-web`: the planner's dashboard, a Yew client-side app compiled to wasm by trunk.
//!
//! It imports snapshots (files, folders, archives, URLs, a host's text) through `lbplan-core` in
//! its plan worker (one import path, `worker_import`), shows the cluster
//! (overview table, bundle map), makes plans and what-ifs with the core, exports and applies them.
//! It holds no planning logic: every number comes from a core function (`view`, `plan`, `import`).
//! [`embed`] is the entry point, for the standalone page and for embedding (`mount_planner`).

mod app;
#[cfg(feature = "bench")]
pub mod bench;
pub mod components;
pub mod embed;
pub mod format;
pub mod history_client;
pub mod job_worker;
pub mod loader;
pub mod page_trace;
mod panic_banner;
pub mod persist;
pub mod plan_client;
pub mod sim_client;
pub mod sliced;
pub mod state;
pub mod upgrade_client;
pub mod worker_files;
pub mod worker_import;

pub use app::{App, AppProps};

/// Entry point of the standalone page (`index.html`'s `#app`).
pub fn start() {
    embed::start_standalone();
}
