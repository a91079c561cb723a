//! The watch's Prometheus text exposition (format 0.0.4): every family `lbplan_`-prefixed, units
//! in names (`_seconds`, `_ratio`), counters ending `_total`, HELP and TYPE lines, brokers as
//! labels and never bundles. [`FAMILIES`] is the one list of what the watch exposes: the renderer
//! writes only those, and the Grafana dashboard and alert rules are checked against it.

use std::fmt::Write as _;

use super::live::RecentHistory;
use super::next_cycle::NextCycle;
use crate::plan::Outcome;
use crate::plan::model::BalanceSummary;

/// The exposition's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A metric family: name, Prometheus type, help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    pub name: &'static str,
    pub kind: &'static str,
    pub help: &'static str,
}

const fn family(name: &'static str, kind: &'static str, help: &'static str) -> Family {
    Family { name, kind, help }
}

pub const NEXT_UNLOADS: Family = family(
    "lbplan_next_cycle_unloads",
    "gauge",
    "Bundles the leader would unload from this broker at its next cycle, by reason kind (docs/plan-model.md).",
);
pub const NEXT_SPLITS: Family = family(
    "lbplan_next_cycle_splits",
    "gauge",
    "Bundles the leader would split on this broker at its next cycle, by reason kind.",
);
pub const NEXT_VERDICT: Family = family(
    "lbplan_next_cycle_verdict",
    "gauge",
    "1 for the verdict of the next cycle's plan (better, worse, mixed, no_change), 0 for the others.",
);
pub const BALANCE_MAX: Family = family(
    "lbplan_balance_max_usage_ratio",
    "gauge",
    "Highest broker weighted max usage (0-1), before and after the next cycle.",
);
pub const BALANCE_MEAN: Family = family(
    "lbplan_balance_mean_usage_ratio",
    "gauge",
    "Mean broker weighted max usage (0-1), before and after the next cycle.",
);
pub const BALANCE_STD: Family = family(
    "lbplan_balance_std_usage_ratio",
    "gauge",
    "Standard deviation of broker weighted max usage (0-1), before and after the next cycle.",
);
pub const BALANCE_MAX_OVER_MEAN: Family = family(
    "lbplan_balance_max_over_mean_ratio",
    "gauge",
    "Highest broker usage over the mean, before and after the next cycle.",
);
pub const MOVES_HOUR: Family = family(
    "lbplan_history_moves_last_hour",
    "gauge",
    "Bundles that changed owner in the hour before the latest snapshot.",
);
pub const UNEXPLAINED_HOUR: Family = family(
    "lbplan_history_unexplained_moves_last_hour",
    "gauge",
    "Moves in the last hour that neither the replayed leader nor a broker leaving explains.",
);
pub const PING_PONG_HOUR: Family = family(
    "lbplan_history_ping_pong_last_hour",
    "gauge",
    "Returns of a bundle to a broker it left within an hour, the return in the last hour.",
);
pub const HISTORY_SNAPSHOTS: Family = family(
    "lbplan_history_snapshots",
    "gauge",
    "Snapshots the live history keeps (its window).",
);
pub const LAST_GOOD_AGE: Family = family(
    "lbplan_last_good_snapshot_age_seconds",
    "gauge",
    "Seconds since the last snapshot that was collected and planned (NaN before the first).",
);
pub const LAST_GOOD_TIME: Family = family(
    "lbplan_last_good_snapshot_timestamp_seconds",
    "gauge",
    "Capture time of the last good snapshot, seconds since the epoch.",
);
pub const LAST_ROUND_OK: Family = family(
    "lbplan_last_collection_success",
    "gauge",
    "1 when the latest collection round gave a snapshot, 0 when the cluster was down, slow or answered garbage.",
);
pub const ROUNDS: Family = family(
    "lbplan_collection_rounds_total",
    "counter",
    "Collection rounds run.",
);
pub const COLLECTION_ERRORS: Family = family(
    "lbplan_collection_errors_total",
    "counter",
    "Collection rounds that gave no snapshot, by kind (unreachable, import, plan).",
);
pub const RECORDING_ERRORS: Family = family(
    "lbplan_recording_errors_total",
    "counter",
    "Snapshots that could not be written to the series (disk full, I/O error).",
);
pub const RECORDING_PAUSED: Family = family(
    "lbplan_recording_paused",
    "gauge",
    "1 while the series cannot be written (the latest write failed); planning and metrics go on.",
);
pub const SNAPSHOTS_STORED: Family = family(
    "lbplan_series_snapshots",
    "gauge",
    "Snapshots in the stored series after retention.",
);
pub const RELEASE_INFO: Family = family(
    "lbplan_release_info",
    "gauge",
    "The Pulsar release whose load-balancing behaviour the plan used (value 1).",
);

/// Every family the watch exposes, in the order written.
pub const FAMILIES: &[Family] = &[
    NEXT_UNLOADS,
    NEXT_SPLITS,
    NEXT_VERDICT,
    BALANCE_MAX,
    BALANCE_MEAN,
    BALANCE_STD,
    BALANCE_MAX_OVER_MEAN,
    MOVES_HOUR,
    UNEXPLAINED_HOUR,
    PING_PONG_HOUR,
    HISTORY_SNAPSHOTS,
    LAST_GOOD_AGE,
    LAST_GOOD_TIME,
    LAST_ROUND_OK,
    ROUNDS,
    COLLECTION_ERRORS,
    RECORDING_ERRORS,
    RECORDING_PAUSED,
    SNAPSHOTS_STORED,
    RELEASE_INFO,
];

/// The `kind` label values of [`COLLECTION_ERRORS`] (always written, 0 until it happens).
pub const ERROR_KINDS: &[&str] = &["unreachable", "import", "plan"];

/// Counters since the watch started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub rounds: u64,
    /// Per [`ERROR_KINDS`] entry, same order.
    pub collection_errors: [u64; 3],
    pub recording_errors: u64,
}

/// Everything the exposition shows, at one instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WatchStatus {
    /// Now (ms since the epoch), for the age.
    pub now_ms: i64,
    /// The latest good snapshot's next cycle.
    pub next: Option<NextCycle>,
    pub recent: Option<RecentHistory>,
    pub last_good_ms: Option<i64>,
    pub last_round_ok: bool,
    pub counters: Counters,
    pub recording_paused: bool,
    pub snapshots_stored: u64,
}

/// A label value escaped as the exposition format asks (backslash, double quote, newline).
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A sample value: Go's spelling of the non-finite ones.
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else {
        format!("{v}")
    }
}

struct Out(String);

impl Out {
    fn head(&mut self, f: Family) {
        let _ = writeln!(self.0, "# HELP {} {}", f.name, f.help);
        let _ = writeln!(self.0, "# TYPE {} {}", f.name, f.kind);
    }

    fn sample(&mut self, f: Family, labels: &[(&str, &str)], v: f64) {
        self.0.push_str(f.name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (k, val)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let _ = write!(self.0, "{k}=\"{}\"", escape(val));
            }
            self.0.push('}');
        }
        let _ = writeln!(self.0, " {}", number(v));
    }
}

/// The verdict's label value.
pub fn verdict_label(o: Outcome) -> &'static str {
    match o {
        Outcome::Better => "better",
        Outcome::Worse => "worse",
        Outcome::Mixed => "mixed",
        Outcome::NoChange => "no_change",
    }
}

const VERDICTS: [Outcome; 4] = [
    Outcome::Better,
    Outcome::Worse,
    Outcome::Mixed,
    Outcome::NoChange,
];

fn balance(out: &mut Out, f: Family, before: f64, after: f64) {
    out.head(f);
    out.sample(f, &[("when", "before")], before);
    out.sample(f, &[("when", "after")], after);
}

/// The exposition of `status`. Families without a value yet (no good snapshot) are left out,
/// except the counters, the age and the round's success, which say what is wrong.
pub fn render(status: &WatchStatus) -> String {
    let mut out = Out(String::new());
    if let Some(next) = &status.next {
        out.head(NEXT_UNLOADS);
        for ((broker, reason), n) in &next.unloads {
            out.sample(
                NEXT_UNLOADS,
                &[("broker", broker), ("reason", reason)],
                *n as f64,
            );
        }
        out.head(NEXT_SPLITS);
        for ((broker, reason), n) in &next.splits {
            out.sample(
                NEXT_SPLITS,
                &[("broker", broker), ("reason", reason)],
                *n as f64,
            );
        }
        out.head(NEXT_VERDICT);
        for v in VERDICTS {
            let on = if v == next.outcome { 1.0 } else { 0.0 };
            out.sample(NEXT_VERDICT, &[("verdict", verdict_label(v))], on);
        }
        let (b, a): (&BalanceSummary, &BalanceSummary) =
            (&next.balance_before, &next.balance_after);
        balance(
            &mut out,
            BALANCE_MAX,
            b.max_usage_fraction,
            a.max_usage_fraction,
        );
        balance(
            &mut out,
            BALANCE_MEAN,
            b.mean_usage_fraction,
            a.mean_usage_fraction,
        );
        balance(
            &mut out,
            BALANCE_STD,
            b.std_usage_fraction,
            a.std_usage_fraction,
        );
        balance(
            &mut out,
            BALANCE_MAX_OVER_MEAN,
            b.max_over_mean,
            a.max_over_mean,
        );
        out.head(RELEASE_INFO);
        out.sample(
            RELEASE_INFO,
            &[
                ("release", &next.release),
                ("profile", &next.profile),
                ("shedding_strategy", &next.shedding_strategy),
            ],
            1.0,
        );
    }
    if let Some(r) = &status.recent {
        for (f, v) in [
            (MOVES_HOUR, r.moves),
            (UNEXPLAINED_HOUR, r.unexplained_moves),
            (PING_PONG_HOUR, r.ping_pong),
            (HISTORY_SNAPSHOTS, r.snapshots_kept),
        ] {
            out.head(f);
            out.sample(f, &[], v as f64);
        }
    }
    out.head(LAST_GOOD_AGE);
    let age = status.last_good_ms.map_or(f64::NAN, |t| {
        status.now_ms.saturating_sub(t).max(0) as f64 / 1000.0
    });
    out.sample(LAST_GOOD_AGE, &[], age);
    if let Some(t) = status.last_good_ms {
        out.head(LAST_GOOD_TIME);
        out.sample(LAST_GOOD_TIME, &[], t as f64 / 1000.0);
    }
    out.head(LAST_ROUND_OK);
    out.sample(
        LAST_ROUND_OK,
        &[],
        f64::from(u8::from(status.last_round_ok)),
    );
    out.head(ROUNDS);
    out.sample(ROUNDS, &[], status.counters.rounds as f64);
    out.head(COLLECTION_ERRORS);
    for (kind, n) in ERROR_KINDS.iter().zip(status.counters.collection_errors) {
        out.sample(COLLECTION_ERRORS, &[("kind", kind)], n as f64);
    }
    out.head(RECORDING_ERRORS);
    out.sample(
        RECORDING_ERRORS,
        &[],
        status.counters.recording_errors as f64,
    );
    out.head(RECORDING_PAUSED);
    out.sample(
        RECORDING_PAUSED,
        &[],
        f64::from(u8::from(status.recording_paused)),
    );
    out.head(SNAPSHOTS_STORED);
    out.sample(SNAPSHOTS_STORED, &[], status.snapshots_stored as f64);
    out.0
}
