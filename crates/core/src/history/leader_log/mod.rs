//! The leader's log as a source of the history: the load manager's own lines (the modular
//! leader's shedding and split lines with each strategy's words, the extensible manager's unload
//! and split decisions) read into *observed leader actions* with their exact time, then merged with
//! a series' explanation ([`merge`]). Text (Log4j 2's default pattern, 3.x/4.x/master) and JSON
//! lines are read; everything else is skipped and counted by reason. Memory is bounded: lines are
//! cut at [`MAX_LINE_BYTES`] (the rest skipped and counted) and a log may hold at most
//! [`MAX_ACTIONS`] actions. See `docs/history.md`, "From the leader's log".

pub mod attach;
pub mod line;
pub mod loggers;
pub mod merge;
pub mod messages;
pub mod reader;
pub mod render;
pub mod time;
pub mod types;

pub use attach::{attach, attach_files};
pub use merge::{DEFAULT_CLOCK_TOLERANCE_MS, merge};
pub use reader::{LeaderLog, LogReader, read_bytes};
pub use types::*;

#[cfg(test)]
mod tests;
