//! The watch's soak: a day of one-minute snapshots of 100 brokers and 10,000 bundles
//! (`builtin:bench`, a few bundles moved each minute) pushed into the live history with the
//! watch's default six-hour window, asking for the last hour after each as the metrics do. It
//! prints the retained state every six hours (snapshots kept, changes kept): flat once the window
//! is full, which is what "memory stays flat over a day" means here; then criterion times one
//! steady-state round. `cargo bench -p lbplan-core --bench watch_soak`.
//! `LBPLAN_BENCH_SNAPSHOTS=N` shortens the day (profiling); the test `tests/watch.rs` runs a
//! shortened soak in `make test`, asserting the retained state does not grow. It also prints
//! the History view `lbplan watch --serve` publishes each round (`LiveHistory::view`: the
//! report and the window's timeline), its cells, its JSON's size and the time to make and
//! write it.

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use lbplan_core::history::ExplainOptions;
use lbplan_core::history::metrics::HOUR_MS;
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::builtin_snapshot;
use lbplan_core::watch::live::LiveHistory;

const MINUTE_MS: i64 = 60_000;
const MOVES_PER_MINUTE: usize = 3;

fn snapshots() -> usize {
    std::env::var("LBPLAN_BENCH_SNAPSHOTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_440)
}

/// Moves the `n`-th bundle of the first broker that has one to the next broker in order.
fn move_one(s: &mut Snapshot, n: usize) {
    let ids: Vec<String> = s.brokers.keys().cloned().collect();
    let from = n % ids.len();
    let to = (from + 1) % ids.len();
    let local = &mut s.brokers[&ids[from]].local_broker_data;
    if local.bundles.is_empty() {
        return;
    }
    let bundle = local.bundles.remove(n % local.bundles.len());
    let stats = local.last_stats.shift_remove(&bundle);
    let dst = &mut s.brokers[&ids[to]].local_broker_data;
    dst.bundles.push(bundle.clone());
    if let Some(st) = stats {
        dst.last_stats.insert(bundle, st);
    }
}

/// The snapshot of minute `i` (moves applied cumulatively to `s`).
fn next_minute(s: &mut Snapshot, t0: i64, i: usize) -> Snapshot {
    for k in 0..MOVES_PER_MINUTE {
        move_one(s, i * MOVES_PER_MINUTE + k);
    }
    let mut out = s.clone();
    out.captured_at_ms = Some(t0 + i as i64 * MINUTE_MS);
    out
}

fn soak(c: &mut Criterion) {
    let mut s = builtin_snapshot("bench").unwrap();
    let t0 = 1_700_000_000_000i64;
    let mut live = LiveHistory::new(ExplainOptions::default(), 6 * HOUR_MS);
    let started = Instant::now();
    let n = snapshots();
    for i in 0..n {
        live.push(next_minute(&mut s, t0, i)).unwrap();
        let recent = live.recent();
        if (i + 1) % 360 == 0 || i + 1 == n {
            // What the watch published before the History view: the report alone.
            let t = Instant::now();
            let report_len = serde_json::to_vec(&live.report()).unwrap().len();
            let report_ms = t.elapsed().as_secs_f64() * 1000.0;
            let t = Instant::now();
            let view = live.view();
            let json = serde_json::to_vec(&view).unwrap();
            let served_ms = t.elapsed().as_secs_f64() * 1000.0;
            println!(
                "watch soak: minute {:>4}: {} snapshots kept, {} changes kept, {} moves in the \
                 last hour, {:.1} s so far; History view: {} cells, {} KiB of JSON, made and \
                 written in {served_ms:.0} ms (the report alone: {} KiB, {report_ms:.0} ms)",
                i + 1,
                live.kept(),
                view.report.changes.len(),
                recent.moves,
                started.elapsed().as_secs_f64(),
                view.timeline.cell_count(),
                json.len() / 1024,
                report_len / 1024,
            );
        }
    }
    let mut i = n;
    c.bench_function("watch steady-state round (push + last hour)", |b| {
        b.iter(|| {
            live.push(next_minute(&mut s, t0, i)).unwrap();
            i += 1;
            live.recent()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = soak
}
criterion_main!(benches);
