//! `lbplan watch`'s parts besides the command: where the metrics may listen (`listen`), the
//! HTTP endpoint that serves them (`server`) and, with `--serve`, the dashboard
//! (`static_files`), and the state one round updates and a scrape reads (`state`). The rules (the next cycle, the live history, the exposition) are core's
//! `watch` module.

pub mod listen;
pub mod server;
pub mod state;
pub mod static_files;
