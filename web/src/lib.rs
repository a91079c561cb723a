//! `lbplan-web`: the planner's dashboard, a Yew client-side app compiled to wasm by trunk.
//!
//! It loads a snapshot (for now the demo cluster, `static/demo-snapshot.json`), derives what it shows
//! through `lbplan-core` (see [`state`]) and renders it with small components. It holds no planning
//! logic of its own.

mod app;
pub mod components;
pub mod format;
mod panic_banner;
pub mod state;

pub use app::App;

/// Entry point of the page: installs the panic handlers, then mounts [`App`] on `<body>`.
pub fn start() {
    panic_banner::install();
    yew::Renderer::<App>::new().render();
}
