//! The leader's log's types: the actions read, each file's summary, the merged section the history
//! report carries, and the limits. A leaf: every other file of `leader_log` (and the report) uses
//! it, it uses none of them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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

/// The log part of the history report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LeaderLogSection {
    pub files: Vec<LogFileSummary>,
    /// Actions read from all the files.
    pub actions: usize,
    /// Of those, the ones a failure line followed.
    pub failed: usize,
    pub clock: ClockCheck,
    /// Changes the replay attributed to the leader that the log shows.
    pub confirmed: Vec<MatchedAction>,
    /// Changes the log shows the leader made that the replay did not predict.
    pub not_predicted: Vec<MatchedAction>,
    /// Logged actions with no change in the series.
    pub no_change: Vec<UnmatchedAction>,
    /// Changes the replay attributed to the leader, within the log's time span, that it does not show.
    pub not_logged: Vec<NotLogged>,
    /// Changes attributed to the leader outside the time the logs cover (not checked).
    pub predictions_outside_log: usize,
}

/// How the log's clock compares with the series' capture times.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockCheck {
    /// Actions matched to a change (the estimate's sample).
    pub matched: usize,
    /// Median offset: log time minus the nearest edge of its change's interval (0 inside it);
    /// positive when the log's times are later than the series'.
    pub offset_ms: i64,
    pub tolerance_ms: i64,
    /// `|offset_ms| > tolerance_ms`: the log's times were shifted by `offset_ms` before matching.
    pub disagrees: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchedAction {
    /// Index of the change in the report's `changes`.
    pub change: usize,
    pub step: usize,
    pub from_ms: i64,
    pub at_ms: i64,
    /// The change's cause as the replay named it (`leader_shedding`, `unexplained`, …).
    pub cause: String,
    /// For a move: the destination the log names is where the bundle went (`None`: no
    /// destination logged, or not a move).
    pub destination_as_logged: Option<bool>,
    pub action: LoggedAction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnmatchedAction {
    /// Why the series shows nothing, as far as can be told.
    pub note: String,
    /// The replay predicted it too (it is in `predicted_not_seen`).
    pub predicted: bool,
    pub action: LoggedAction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotLogged {
    pub change: usize,
    pub step: usize,
    pub from_ms: i64,
    pub at_ms: i64,
    pub kind: ActionKind,
    pub bundle: String,
    pub from: String,
}
