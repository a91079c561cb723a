//! The leader's log as a source of the history: the load manager's own lines (the modular
//! leader's shedding and split lines with each strategy's words, the extensible manager's unload
//! and split decisions) read into *observed leader actions* with their exact time, then merged with
//! a series' explanation ([`merge`]). Text (Log4j 2's default pattern, 3.x/4.x/master) and JSON
//! lines are read; everything else is skipped and counted by reason. Memory is bounded: lines are
//! cut at [`MAX_LINE_BYTES`] (the rest skipped and counted) and a log may hold at most
//! [`MAX_ACTIONS`] actions. See `docs/history.md`, "From the leader's log".

pub mod line;
pub mod merge;
pub mod messages;
pub mod reader;
pub mod render;
pub mod time;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use merge::{DEFAULT_CLOCK_TOLERANCE_MS, LeaderLogSection, merge};
pub use reader::{LeaderLog, LogReader, read_bytes};

/// Longest line read (bytes); a longer one is skipped and counted as `too_long`.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Most actions held from all the logs together.
pub const MAX_ACTIONS: usize = 1_000_000;
/// Most strategy explanations kept waiting for their action.
pub const MAX_PENDING_WORDS: usize = 64;

/// What the leader did, as its log says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Unload,
    Split,
}

/// One unload or split the log shows, with where it was read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedAction {
    pub kind: ActionKind,
    /// The log line's time (ms since epoch, its own clock).
    pub at_ms: i64,
    pub bundle: String,
    /// The unloaded bundle's owner (unloads); empty for a split.
    #[serde(default)]
    pub from: String,
    /// The destination the leader chose (`None`: a split, or the extensible manager's empty one).
    #[serde(default)]
    pub to: Option<String>,
    /// The shedding strategy's simple class name as logged (`ThresholdShedder`), or the logger.
    pub strategy: String,
    /// The strategy's own words logged just before, about this broker or bundle.
    #[serde(default)]
    pub words: Option<String>,
    /// The modular split's `unloading` flag.
    #[serde(default)]
    pub unloading: Option<bool>,
    /// A failure line followed it (the unload or split did not happen).
    #[serde(default)]
    pub failed: bool,
    pub file: String,
    /// 1-based line number in `file`.
    pub line: u64,
}

/// How much of one file was read, and why lines were skipped.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LogFileSummary {
    pub file: String,
    pub lines: u64,
    pub actions: usize,
    /// The broker that logged its election in this file (the last one named), if any.
    pub leader: Option<String>,
    /// Time of the first and last event read (the span the log covers).
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
    /// Lines skipped, by reason: `no_timestamp` (stack traces, wrapped text), `garbled` (a
    /// timestamp but not the pattern), `garbled_action` (a load-manager action whose values could
    /// not be read), `too_long`, `not_utf8`.
    pub skipped: BTreeMap<String, u64>,
}

/// Why reading the logs stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LeaderLogError {
    #[error(
        "{file}:{line}: more than {MAX_ACTIONS} leader actions in the logs; give a shorter time range"
    )]
    TooManyActions { file: String, line: u64 },
    #[error("{file}: not a readable gzip file: {why}")]
    Gzip { file: String, why: String },
}

/// Reads whole files (plain or gzip: an upload, the JS API) and merges them into `report`.
pub fn attach_files(
    report: &mut crate::history::HistoryReport,
    files: &[(String, Vec<u8>)],
    tolerance_ms: i64,
) -> Result<(), LeaderLogError> {
    let mut log = LeaderLog::default();
    for (name, bytes) in files {
        read_bytes(&mut log, name, bytes)?;
    }
    attach(report, log, tolerance_ms);
    Ok(())
}

/// Merges `log` into `report` (sorting its actions by time first).
pub fn attach(report: &mut crate::history::HistoryReport, mut log: LeaderLog, tolerance_ms: i64) {
    log.sort();
    report.leader_log = Some(merge(report, &log, tolerance_ms));
}

#[cfg(test)]
mod tests;
