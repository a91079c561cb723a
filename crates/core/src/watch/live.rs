//! The history explained as a watch's snapshots arrive: one [`Explainer`] carried from snapshot to
//! snapshot (the leader's state goes on, nothing is replayed), its kept window trimmed to
//! `window_ms` so memory stays flat over days, and the last hour's moves, unexplained moves and
//! ping-pong read from it for the metrics. The History view's timeline of the same window is kept
//! beside it ([`LiveView`]: what `lbplan watch --serve` and an embedding page's pushed snapshots
//! show in the dashboard's History section).

use crate::history::metrics::{HOUR_MS, returns, seen_moves};
use crate::history::{Cause, ExplainOptions, Explainer, HistoryReport};
use crate::model::Snapshot;
use crate::plan::PlanError;
use crate::view::timeline::{Timeline, TimelineBuilder};

/// `format_version` of [`LiveView`].
pub const LIVE_VIEW_FORMAT_VERSION: u32 = 1;

/// What the dashboard's History section shows of a live history: the kept window's report and
/// its per-namespace timeline (the `HistoryView` an uploaded series gives).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LiveView {
    pub format_version: u32,
    pub report: HistoryReport,
    pub timeline: Timeline,
}

/// The shortest window a live history keeps: a return counted in the last hour may have left
/// its first broker up to an hour before.
pub const MIN_WINDOW_MS: i64 = 2 * HOUR_MS;

/// The window kept unless told otherwise (`lbplan watch --history-window`'s default).
pub const DEFAULT_WINDOW_MS: i64 = 6 * HOUR_MS;

/// What the history says about the hour before the latest snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecentHistory {
    /// Bundles that changed owner (`history::metrics::seen_moves`, whatever the cause).
    pub moves: u64,
    /// Of those, the ones no modelled cause explains (a manual unload, a client lookup, a gap).
    pub unexplained_moves: u64,
    /// Returns of a bundle to a broker it left within an hour, the return in the last hour.
    pub ping_pong: u64,
    /// Snapshots the live history keeps.
    pub snapshots_kept: u64,
}

/// Why a snapshot did not join the live history.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error(
        "$.captured_at_ms: {at} is before the latest snapshot's ({latest_ms}); a live history only grows"
    )]
    OutOfOrder { at: i64, latest_ms: i64 },
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// A history that grows one snapshot at a time over a bounded window.
pub struct LiveHistory {
    opts: ExplainOptions,
    window_ms: i64,
    explainer: Option<Explainer>,
    timeline: TimelineBuilder,
    latest_ms: Option<i64>,
}

impl LiveHistory {
    /// Keeps the snapshots of the last `window_ms` (at least [`MIN_WINDOW_MS`]).
    pub fn new(opts: ExplainOptions, window_ms: i64) -> Self {
        Self {
            opts,
            window_ms: window_ms.max(MIN_WINDOW_MS),
            explainer: None,
            timeline: TimelineBuilder::new(),
            latest_ms: None,
        }
    }

    /// The next snapshot in time order (its `captured_at_ms`): explained against the one before,
    /// then the window trimmed. A snapshot older than the latest is refused (a series only grows).
    pub fn push(&mut self, snapshot: Snapshot) -> Result<(), LiveError> {
        let at = snapshot.captured_at_ms.unwrap_or(0);
        if let Some(latest_ms) = self.latest_ms.filter(|l| at < *l) {
            return Err(LiveError::OutOfOrder { at, latest_ms });
        }
        let explainer = match &mut self.explainer {
            Some(e) => e,
            None => self
                .explainer
                .insert(Explainer::new(&snapshot, &self.opts)?),
        };
        explainer.push(snapshot)?;
        if let Some(latest) = explainer.latest() {
            self.timeline.push(latest);
        }
        self.latest_ms = Some(at);
        let cutoff = at.saturating_sub(self.window_ms);
        explainer.forget_before(cutoff);
        self.timeline.forget_before(cutoff);
        Ok(())
    }

    /// The kept window's report, as `lbplan history` gives it for the same snapshots (the
    /// window's first step renumbered 0).
    pub fn report(&self) -> HistoryReport {
        self.explainer
            .as_ref()
            .map_or_else(HistoryReport::empty, Explainer::report_so_far)
    }

    /// The kept window's report and timeline, as the History view shows an uploaded series of
    /// the same snapshots.
    pub fn view(&self) -> LiveView {
        LiveView {
            format_version: LIVE_VIEW_FORMAT_VERSION,
            report: self.report(),
            timeline: self.timeline.current(),
        }
    }

    /// The capture time of the latest snapshot pushed.
    pub fn latest_ms(&self) -> Option<i64> {
        self.latest_ms
    }

    /// Snapshots kept.
    pub fn kept(&self) -> usize {
        self.explainer.as_ref().map_or(0, Explainer::kept_snapshots)
    }

    /// The hour before the latest snapshot (read from the changes kept, without building the
    /// whole report).
    pub fn recent(&self) -> RecentHistory {
        match &self.explainer {
            Some(e) => recent_of(e.changes_so_far(), self.latest_ms.unwrap_or(0)),
            None => RecentHistory::default(),
        }
    }
}

/// The hour up to `latest_ms` of `report` (only its changes are read).
pub fn recent_of(report: &HistoryReport, latest_ms: i64) -> RecentHistory {
    let since = latest_ms.saturating_sub(HOUR_MS);
    let mut out = RecentHistory {
        snapshots_kept: report.times_ms.len() as u64,
        ..RecentHistory::default()
    };
    let moves = seen_moves(report);
    for m in moves.iter().filter(|m| m.at_ms > since) {
        out.moves += 1;
        if report
            .changes
            .get(m.change)
            .is_some_and(|c| matches!(c.cause, Cause::Unexplained { .. }))
        {
            out.unexplained_moves += 1;
        }
    }
    // A return is a move back to a broker its bundle left within the hour (the answers' ping-pong).
    out.ping_pong = returns(&moves, HOUR_MS)
        .iter()
        .filter(|(back, _)| moves.get(*back).is_some_and(|m| m.at_ms > since))
        .count() as u64;
    out
}
