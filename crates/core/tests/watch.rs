//! The watch's pure part: the history kept live (one explainer carried, its window trimmed)
//! against the batch history of the same simulated series, its retained state bounded over a
//! long run, and the next cycle's counts and exposition against the plan they come from.

use lbplan_core::history::metrics::HOUR_MS;
use lbplan_core::history::{ExplainOptions, HistoryReport, Series, explain};
use lbplan_core::model::Snapshot;
use lbplan_core::plan::{Explain, PlanEngine, PlanRequest};
use lbplan_core::simulate::{
    RunConfig, RunOptions, builtin_scenario, builtin_snapshot, simulate_recording,
};
use lbplan_core::view::timeline::{Timeline, timeline};
use lbplan_core::watch::live::{LiveHistory, recent_of};
use lbplan_core::watch::metrics::{self, Counters, WatchStatus};
use lbplan_core::watch::next_cycle::{NextCycle, NextCycleOptions};

const SEED: u64 = 7;
const THRESHOLD_LLTMR: &str = "loadBalancerLoadSheddingStrategy=ThresholdShedder;\
                               loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate";

/// The #16059 cluster's recorded series (one-minute cycles), its capture times spread `spread`
/// times apart (same snapshots, longer intervals).
fn series(cycles: u32, spread: i64) -> Vec<Snapshot> {
    let scenario = builtin_scenario("pr-16059").unwrap().unwrap();
    let snap = builtin_snapshot("pr-16059").unwrap();
    let (_, mut series) = simulate_recording(
        &snap,
        &scenario,
        &RunConfig::parse(THRESHOLD_LLTMR).unwrap(),
        RunOptions {
            cycles,
            seed: SEED,
            record_broker_usage: false,
            record_ownership: true,
        },
        &mut |_, _| true,
    )
    .unwrap();
    let t0 = series[0].captured_at_ms.unwrap();
    for s in &mut series {
        let t = s.captured_at_ms.unwrap();
        s.captured_at_ms = Some(t0 + (t - t0) * spread);
    }
    series
}

fn opts() -> ExplainOptions {
    ExplainOptions {
        seed: SEED,
        ..ExplainOptions::default()
    }
}

fn batch(series: &[Snapshot]) -> HistoryReport {
    let named = series
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("#{i}"), s.clone()))
        .collect();
    explain(&Series::from_named(named).unwrap(), &opts()).unwrap()
}

/// With a window longer than the series, the live report after each snapshot is the batch
/// history of the snapshots so far: nothing is replayed, the leader's state is carried.
#[test]
fn the_live_history_equals_the_batch_history_of_the_same_snapshots() {
    let series = series(30, 1);
    let mut live = LiveHistory::new(opts(), 24 * HOUR_MS);
    for (i, s) in series.iter().enumerate() {
        live.push(s.clone()).unwrap();
        if i == 9 || i == series.len() - 1 {
            assert_eq!(live.report(), batch(&series[..=i]), "after snapshot {i}");
        }
    }
    let r = live.report();
    assert!(r.summary.moves_seen > 50, "the #16059 cluster sheds");
    assert_eq!(r.summary.unexplained, 0);
}

/// A window shorter than the series: the kept changes are the batch history's from the window's
/// first snapshot on (steps renumbered), and the last hour's counts are the batch's.
#[test]
fn a_trimmed_window_keeps_the_batch_history_of_its_snapshots() {
    // 40 snapshots five minutes apart: 195 minutes, the window (its minimum) 120.
    let series = series(40, 5);
    let mut live = LiveHistory::new(opts(), 0);
    for s in &series {
        live.push(s.clone()).unwrap();
    }
    let full = batch(&series);
    let last = *full.times_ms.last().unwrap();
    let first_kept = full
        .times_ms
        .iter()
        .position(|t| *t >= last - 2 * HOUR_MS)
        .unwrap();
    assert_eq!(first_kept, 15);
    assert_eq!(live.kept(), 25);
    let r = live.report();
    assert_eq!(r.times_ms, full.times_ms[first_kept..]);
    let expected: Vec<_> = full
        .changes
        .iter()
        .filter(|c| c.step >= first_kept)
        .map(|c| {
            let mut c = c.clone();
            c.step -= first_kept;
            c
        })
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(r.changes, expected);
    let (live_hour, batch_hour) = (live.recent(), recent_of(&full, last));
    assert_eq!(live_hour.moves, batch_hour.moves);
    assert_eq!(live_hour.unexplained_moves, batch_hour.unexplained_moves);
    assert_eq!(live_hour.ping_pong, batch_hour.ping_pong);
    // The same reading as the history's answers: returns within an hour, back in the last hour.
    let answered = full
        .answers
        .ping_pong
        .iter()
        .filter(|p| p.back_at_ms > last - HOUR_MS)
        .count() as u64;
    assert_eq!(live_hour.ping_pong, answered);
    assert!(live_hour.moves > 0);
    // The History view's timeline of the window is the one built from its snapshots.
    let view = live.view();
    assert_eq!(view.report, r);
    assert_eq!(
        named_cells(&view.timeline),
        named_cells(&timeline(&series[first_kept..]))
    );
    assert_eq!(view.timeline.times_ms, full.times_ms[first_kept..]);
}

/// A cell as (from, to, lo, hi, owner's name, shade).
type NamedCell = (u32, u32, u32, u32, String, u8);

/// A timeline's cells with their owners' names (the brokers' order is first-seen, which a window
/// cut out of a longer series need not share with a build from the window alone).
fn named_cells(t: &Timeline) -> Vec<(String, Vec<NamedCell>)> {
    t.lanes
        .iter()
        .map(|l| {
            let cells = l
                .cells
                .iter()
                .map(|c| {
                    let owner = t.brokers[c.owner as usize].clone();
                    (c.from, c.to, c.lo, c.hi, owner, c.shade)
                })
                .collect();
            (l.namespace.clone(), cells)
        })
        .collect()
}

/// The shortened soak: the same snapshots pushed lap after lap (times always later) keep the
/// same number of snapshots and no more changes than the first full window held.
#[test]
fn retained_state_does_not_grow_over_a_long_run() {
    let series = series(30, 5);
    let lap_ms = 30 * 5 * 60_000;
    let mut live = LiveHistory::new(opts(), 0);
    let (mut most_changes, mut most_cells) = (0, 0);
    for lap in 0..6i64 {
        for s in &series {
            let mut s = s.clone();
            s.captured_at_ms = s.captured_at_ms.map(|t| t + lap * lap_ms);
            live.push(s).unwrap();
        }
        let kept = live.kept();
        let changes = live.report().changes.len();
        let view = live.view();
        if lap == 1 {
            most_changes = changes;
            most_cells = view.timeline.cell_count();
        }
        if lap >= 1 {
            assert_eq!(kept, 25, "lap {lap}");
            assert_eq!(view.timeline.times_ms.len(), 25, "lap {lap}");
            // The timeline holds the window's cells only.
            let cells = view.timeline.cell_count();
            assert!(cells <= most_cells * 2, "lap {lap}: {cells} cells");
            assert!(changes <= most_changes * 2, "lap {lap}: {changes} changes");
        }
    }
}

/// An older snapshot is refused; the history is unchanged.
#[test]
fn a_snapshot_older_than_the_latest_is_refused() {
    let series = series(3, 1);
    let mut live = LiveHistory::new(opts(), 0);
    live.push(series[2].clone()).unwrap();
    let err = live.push(series[0].clone()).unwrap_err();
    assert!(err.to_string().contains("before the latest"), "{err}");
    assert_eq!(live.kept(), 1);
}

/// The next cycle is the plan's: its unloads per source broker and reason kind add up to the
/// plan's, and the exposition carries them with the verdict and the release.
#[test]
fn the_next_cycle_counts_the_plans_decisions() {
    let snap = builtin_snapshot("pr-16059").unwrap();
    let plan = PlanEngine::new(snap.clone())
        .plan(&PlanRequest {
            explain: Explain::Summary,
            ..PlanRequest::leader_cycle()
        })
        .unwrap();
    let next = NextCycle::of_snapshot(snap, &NextCycleOptions::default()).unwrap();
    assert_eq!(next.unload_count(), plan.unloads.len() as u64);
    assert!(next.unload_count() > 0, "the #16059 cluster sheds at once");
    for u in &plan.unloads {
        assert!(
            next.unloads
                .contains_key(&(u.from.clone(), u.reason.kind.as_str()))
        );
    }
    assert_eq!(next.outcome, plan.verdict.outcome);
    let text = metrics::render(&WatchStatus {
        now_ms: 10_000,
        next: Some(next.clone()),
        last_good_ms: Some(4_000),
        last_round_ok: true,
        counters: Counters {
            rounds: 3,
            collection_errors: [1, 0, 0],
            recording_errors: 0,
        },
        ..WatchStatus::default()
    });
    let verdict = metrics::verdict_label(plan.verdict.outcome);
    assert!(text.contains(&format!(
        "lbplan_next_cycle_verdict{{verdict=\"{verdict}\"}} 1\n"
    )));
    assert!(
        text.contains("lbplan_last_good_snapshot_age_seconds 6\n"),
        "{text}"
    );
    assert!(text.contains("lbplan_collection_errors_total{kind=\"unreachable\"} 1\n"));
    assert!(text.contains(&format!("release=\"{}\"", next.release)));
    let sum: f64 = text
        .lines()
        .filter(|l| l.starts_with("lbplan_next_cycle_unloads{"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(sum, plan.unloads.len() as f64);
    // Every family written is in the one list, with its HELP and TYPE.
    for f in metrics::FAMILIES {
        if text.contains(&format!("\n{} ", f.name)) || text.contains(&format!("\n{}{{", f.name)) {
            assert!(text.contains(&format!("# TYPE {} {}\n", f.name, f.kind)));
        }
    }
}
