//! View models for the dashboard: everything it shows that takes a computation (broker rows and
//! their sort order, one broker's detail (why it is hot), namespace summaries, bundle-map geometry, its rasterisation, level of detail
//! and search, the plan's lists (grouped, filtered, flattened for virtual scrolling) and the virtual window's arithmetic, the colour palette, the settings table,
//! share links, simulation charts). The web crate only renders these.

pub mod broker_detail;
pub mod brokers;
pub mod bundle_map;
pub mod lane_colouring;
pub mod map_levels;
pub mod map_search;
pub mod namespaces;
pub mod palette;
pub mod plan_lists;
pub mod settings;
pub mod settings_check;
pub mod share;
pub mod sim_chart;
pub mod snapshot_chunks;
pub mod timeline;
pub mod virtual_window;
