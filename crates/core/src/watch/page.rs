//! What the dashboard reads from `lbplan watch --serve` to follow it: the small status document
//! polled every interval (`/watch/status.json`), so the page fetches the big snapshot and the
//! History view only when they changed, and when to poll next (the interval, backing off after
//! failures).

use serde::{Deserialize, Serialize};

use super::metrics::WatchStatus;

/// `format_version` of [`PageStatus`].
pub const PAGE_STATUS_FORMAT_VERSION: u32 = 1;

/// The longest wait between two polls while the watch keeps failing to answer.
pub const MAX_POLL_BACKOFF_MS: u64 = 5 * 60_000;

/// `/watch/status.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageStatus {
    pub format_version: u32,
    /// The watch's `--every`.
    pub interval_ms: u64,
    /// Capture time of the snapshot `/watch/latest.json` serves (`None`: none yet).
    pub latest_captured_at_ms: Option<i64>,
    /// Capture time of the latest snapshot in `/watch/history-view.json` (it can differ from the
    /// latest good one: a snapshot that did not plan still joins the history).
    pub history_latest_ms: Option<i64>,
    /// The latest round gave a snapshot (false: the cluster was down, slow or answered garbage).
    pub last_round_ok: bool,
    /// Rounds run.
    pub rounds: u64,
}

impl PageStatus {
    /// The status of a watch collecting every `interval_ms`, from what `/metrics` shows and the
    /// capture times of what it serves.
    pub fn of(
        status: &WatchStatus,
        interval_ms: u64,
        latest_captured_at_ms: Option<i64>,
        history_latest_ms: Option<i64>,
    ) -> Self {
        Self {
            format_version: PAGE_STATUS_FORMAT_VERSION,
            interval_ms,
            latest_captured_at_ms,
            history_latest_ms,
            last_round_ok: status.last_round_ok,
            rounds: status.counters.rounds,
        }
    }
}

/// The wait before the next poll: the watch's interval (a second at least); after `failures`
/// failed polls in a row, doubled per failure up to [`MAX_POLL_BACKOFF_MS`] (a watch that stopped
/// or answers 5xx is not hammered, and is found again once it answers).
pub fn next_poll_ms(interval_ms: u64, failures: u32) -> u64 {
    let base = interval_ms.max(1000);
    if failures == 0 {
        return base;
    }
    let factor = 1u64.checked_shl(failures.min(16)).unwrap_or(u64::MAX);
    base.saturating_mul(factor)
        .min(MAX_POLL_BACKOFF_MS.max(base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_follow_the_interval_and_back_off_after_failures() {
        assert_eq!(next_poll_ms(60_000, 0), 60_000);
        assert_eq!(next_poll_ms(10_000, 1), 20_000);
        assert_eq!(next_poll_ms(10_000, 3), 80_000);
        // Capped at five minutes, however many failures.
        assert_eq!(next_poll_ms(10_000, 5), 300_000);
        assert_eq!(next_poll_ms(10_000, 1000), 300_000);
        // A watch collecting less often than the cap keeps its own interval.
        assert_eq!(next_poll_ms(600_000, 2), 600_000);
        // Never faster than once a second.
        assert_eq!(next_poll_ms(0, 0), 1000);
    }

    #[test]
    fn the_status_reads_rounds_and_reachability_from_the_metrics() {
        let mut w = WatchStatus {
            last_good_ms: Some(5),
            last_round_ok: false,
            ..WatchStatus::default()
        };
        w.counters.rounds = 3;
        let s = PageStatus::of(&w, 30_000, Some(5), Some(9));
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({"format_version": 1, "interval_ms": 30000,
                "latest_captured_at_ms": 5, "history_latest_ms": 9, "last_round_ok": false,
                "rounds": 3})
        );
    }
}
