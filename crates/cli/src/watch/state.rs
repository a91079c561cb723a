//! What one watch round changes: the shared [`WatchStatus`] a scrape reads, the live history and
//! the stored series. A round's outcome (a snapshot, or why none) is applied here so the loop in
//! `cmd_watch` only keeps time; a failure of one part (the disk, the plan) never stops the others.

use lbplan_core::model::Snapshot;
use lbplan_core::watch::live::LiveHistory;
use lbplan_core::watch::metrics::ERROR_KINDS;
use lbplan_core::watch::next_cycle::{NextCycle, NextCycleOptions};

use super::server::{Published, Shared, lock};
use crate::series_store::SeriesWriter;

/// Why a round gave no snapshot (the `kind` label of `lbplan_collection_errors_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundError {
    /// Nothing answered, or too little to make a snapshot of.
    Unreachable,
    /// The answers did not import (garbage, a cluster mid-change).
    Import,
}

/// The watch's state between rounds.
pub struct Watcher {
    pub shared: Shared,
    pub history: LiveHistory,
    pub plan_opts: NextCycleOptions,
    pub series: SeriesWriter,
    pub stored: u64,
}

/// What a round did, in words for the progress line.
pub struct RoundNote(pub String);

fn count(shared: &Shared, f: impl FnOnce(&mut lbplan_core::watch::metrics::WatchStatus)) {
    f(&mut lock(&shared.status));
}

fn published(bytes: Vec<u8>, at_ms: Option<i64>) -> Option<Published> {
    Some(Published {
        bytes: std::sync::Arc::new(bytes),
        at_ms,
    })
}

/// With `--serve`: the latest good snapshot, as the page fetches it.
fn publish_latest(shared: &Shared, snapshot: &Snapshot) {
    if shared.dist.is_some()
        && let Ok(bytes) = serde_json::to_vec(snapshot)
    {
        *lock(&shared.latest) = published(bytes, snapshot.captured_at_ms);
    }
}

/// With `--serve`: the live history's report and its History view, as the page fetches them.
fn publish_history(shared: &Shared, history: &LiveHistory) {
    if shared.dist.is_none() {
        return;
    }
    let view = history.view();
    let at = history.latest_ms();
    if let Ok(bytes) = serde_json::to_vec(&view.report) {
        *lock(&shared.history) = published(bytes, at);
    }
    if let Ok(bytes) = serde_json::to_vec(&view) {
        *lock(&shared.history_view) = published(bytes, at);
    }
}

fn kind_index(kind: &str) -> usize {
    ERROR_KINDS.iter().position(|k| *k == kind).unwrap_or(0)
}

impl Watcher {
    /// A round that gave no snapshot: counted; everything recorded and shown stays.
    pub fn failed_round(&mut self, why: RoundError) {
        let kind = match why {
            RoundError::Unreachable => "unreachable",
            RoundError::Import => "import",
        };
        count(&self.shared, |s| {
            s.counters.rounds += 1;
            if let Some(n) = s.counters.collection_errors.get_mut(kind_index(kind)) {
                *n += 1;
            }
            s.last_round_ok = false;
        });
    }

    /// A round's snapshot: stored (a refused write pauses recording, nothing half-written stays),
    /// planned, and pushed to the live history.
    pub fn good_round(&mut self, snapshot: Snapshot) -> RoundNote {
        let at = snapshot.captured_at_ms;
        let mut notes = Vec::new();
        let stored = match self.series.append(&snapshot) {
            Ok(bytes) => {
                self.stored += 1;
                notes.push(format!("stored ({bytes} bytes new)"));
                true
            }
            Err(e) => {
                // The round's files are not in the series; the next round starts clean.
                self.series.abandon();
                notes.push(format!("not stored, recording paused: {e}"));
                false
            }
        };
        let planned = NextCycle::of_snapshot(snapshot.clone(), &self.plan_opts);
        if planned.is_ok() {
            publish_latest(&self.shared, &snapshot);
        }
        let pushed = self.history.push(snapshot);
        publish_history(&self.shared, &self.history);
        let recent = self.history.recent();
        let stored_now = self.stored;
        match &planned {
            Ok(next) => notes.push(format!(
                "next cycle: {} unload(s), {} split(s), verdict {}",
                next.unload_count(),
                next.splits.values().sum::<u64>(),
                next.outcome.name()
            )),
            Err(e) => notes.push(format!("not planned: {e}")),
        }
        if let Err(e) = &pushed {
            notes.push(format!("history: {e}"));
        }
        count(&self.shared, |s| {
            s.counters.rounds += 1;
            s.last_round_ok = true;
            if !stored {
                s.counters.recording_errors += 1;
            }
            s.recording_paused = !stored;
            s.snapshots_stored = stored_now;
            s.recent = Some(recent);
            match planned {
                Ok(next) => {
                    s.next = Some(next);
                    s.last_good_ms = at;
                }
                Err(_) => {
                    if let Some(n) = s.counters.collection_errors.get_mut(kind_index("plan")) {
                        *n += 1;
                    }
                }
            }
        });
        RoundNote(notes.join("; "))
    }

    /// After a restart: the series' latest stored snapshot, already pushed to the live history,
    /// planned so the metrics carry on (with its true age) before the first round ends.
    pub fn resume_from(&mut self, latest: Snapshot) {
        let at = latest.captured_at_ms;
        let planned = NextCycle::of_snapshot(latest.clone(), &self.plan_opts);
        publish_latest(&self.shared, &latest);
        publish_history(&self.shared, &self.history);
        let recent = self.history.recent();
        let stored = self.stored;
        count(&self.shared, |s| {
            s.recent = Some(recent);
            s.snapshots_stored = stored;
            if let Ok(next) = planned {
                s.next = Some(next);
                s.last_good_ms = at;
            }
        });
    }

    /// Retention: snapshots before `cutoff_ms` deleted (manifests now, their parts when `sweep`).
    pub fn retain(&mut self, cutoff_ms: i64, sweep: bool) -> Result<String, String> {
        let expired = self
            .series
            .expire_before(cutoff_ms)
            .map_err(|e| e.to_string())?;
        self.stored = self.stored.saturating_sub(expired as u64);
        let swept = if sweep {
            self.series.sweep_parts().map_err(|e| e.to_string())?
        } else {
            0
        };
        let stored = self.stored;
        count(&self.shared, |s| s.snapshots_stored = stored);
        Ok(format!(
            "retention: {expired} snapshot(s) and {swept} part(s) deleted"
        ))
    }
}
