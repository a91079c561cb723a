//! A day of one-minute snapshots of 100 brokers and 10,000 bundles (`builtin:bench`, 1,440
//! snapshots, a few bundles moved each minute), stored as a series and explained: decoding each
//! snapshot from its parts, replaying the leader with its carried state, diffing, attributing.
//! Run with `cargo bench -p lbplan-core --bench history`; the goal is 10 s, native.
//!
//! `LBPLAN_BENCH_REPEAT=N` skips criterion and prints N plain wall-clock timings (each with the
//! leader's view kept across snapshots, then rebuilt from each as before: the ratio), plus the stored
//! series' size against one snapshot's JSON (the storage goal is ~10×), each timing with this
//! thread's time on a CPU. `LBPLAN_BENCH_PHASES=1`
//! first prints where the time goes (decode, leader view, step, diff). `LBPLAN_BENCH_WRITE_SERIES=DIR`
//! only writes the series to `DIR` (for the browser's History bench).

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lbplan_core::history::diff;
use lbplan_core::history::store::{
    Files, HEADER_FILE, PARTS_DIR, SNAPSHOTS_DIR, StoredSeries, encode_snapshot, header_bytes,
};
use lbplan_core::history::{ExplainOptions, Explainer, HistoryReport};
use lbplan_core::leader::context::placement_context;
use lbplan_core::leader::step::CarriedLeader;
use lbplan_core::leader::view::load_data_from_snapshot;
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::builtin_snapshot;

const SNAPSHOTS: usize = 1_440;

/// The series' length: `LBPLAN_BENCH_SNAPSHOTS` (for profiling a shorter run), else a day.
fn snapshots() -> usize {
    std::env::var("LBPLAN_BENCH_SNAPSHOTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SNAPSHOTS)
}
const MOVES_PER_MINUTE: usize = 3;

/// Moves `bundle` (with its stats) from its owner to the next broker in order.
fn move_to_next(s: &mut Snapshot, bundle: &str) {
    let ids: Vec<String> = s.brokers.keys().cloned().collect();
    let Some(from) = ids.iter().position(|id| {
        s.brokers[id]
            .local_broker_data
            .bundles
            .iter()
            .any(|b| b == bundle)
    }) else {
        return;
    };
    let to = (from + 1) % ids.len();
    let local = &mut s.brokers[&ids[from]].local_broker_data;
    local.bundles.retain(|b| b != bundle);
    let stats = local.last_stats.shift_remove(bundle);
    let dst = &mut s.brokers[&ids[to]].local_broker_data;
    dst.bundles.push(bundle.to_string());
    if let Some(st) = stats {
        dst.last_stats.insert(bundle.to_string(), st);
    }
}

/// The stored series and the size of one snapshot's JSON.
fn stored_series() -> (Files, usize) {
    let mut s = builtin_snapshot("bench").expect("built-in snapshot");
    assert_eq!(s.brokers.len(), 100);
    assert_eq!(s.bundle_data.len(), 10_000);
    let one = serde_json::to_vec(&s).expect("serialises").len();
    let names: Vec<String> = s.bundle_data.keys().cloned().collect();
    let t0 = s.captured_at_ms.unwrap_or(0);
    let mut files: Files = vec![(HEADER_FILE.to_string(), header_bytes())];
    let mut known = std::collections::HashSet::new();
    for i in 0..snapshots() {
        s.captured_at_ms = Some(t0 + i as i64 * 60_000);
        let e = encode_snapshot(&s, i as u64, &|id| known.contains(id)).expect("encodes");
        files.push((format!("{SNAPSHOTS_DIR}/{}", e.manifest_name), e.manifest));
        for (name, bytes) in e.parts {
            known.insert(name.trim_end_matches(".json.gz").to_string());
            files.push((format!("{PARTS_DIR}/{name}"), bytes));
        }
        for k in 0..MOVES_PER_MINUTE {
            let b = &names[(i * 7919 + k * 104_729) % names.len()];
            move_to_next(&mut s, b);
        }
    }
    (files, one)
}

/// `rebuild`: the leader's view rebuilt from each snapshot (the baseline) instead of kept.
fn explain_stored(files: &Files, rebuild: bool) -> HistoryReport {
    let mut stored = StoredSeries::open(files).expect("opens");
    let first = stored.next_snapshot().expect("one").expect("decodes");
    let mut ex = Explainer::new(&first, &ExplainOptions::default()).expect("configures");
    if rebuild {
        ex.rebuild_view_each_step();
    }
    ex.push(first).expect("explains");
    while let Some(next) = stored.next_snapshot_with_changes() {
        let (s, changed) = next.expect("decodes");
        if let Some(done) = ex.push_changed(s, changed.as_deref()).expect("explains") {
            stored.recycle(done);
        }
    }
    ex.finish()
}

/// Where one explanation's time goes: decoding snapshots from their parts, the leader's view
/// (`LoadData`, placement context) as a fresh build, the whole carried step (view + cycle), and
/// the diff between consecutive snapshots. Each phase is timed separately on the same series.
fn phases(files: &Files) {
    let mut stored = StoredSeries::open(files).expect("opens");
    let mut decode = Duration::ZERO;
    let mut view = Duration::ZERO;
    let mut step = Duration::ZERO;
    let mut diffing = Duration::ZERO;
    let t = Instant::now();
    let first = stored.next_snapshot().expect("one").expect("decodes");
    decode += t.elapsed();
    let mut leader = CarriedLeader::new(&first, None, &[], 0).expect("configures");
    let mut previous: Option<Snapshot> = None;
    let mut next = Some(first);
    while let Some(s) = next {
        let t = Instant::now();
        let data = load_data_from_snapshot(&s);
        let ctx = placement_context(&s, &data);
        view += t.elapsed();
        drop((data, ctx));
        let t = Instant::now();
        let at = s.captured_at_ms.unwrap_or(0);
        leader.step(&s, at).expect("steps");
        step += t.elapsed();
        if let Some(before) = &previous {
            let t = Instant::now();
            let _ = diff(before, &s);
            diffing += t.elapsed();
        }
        let t = Instant::now();
        if let Some(done) = previous.replace(s) {
            stored.recycle(done);
        }
        next = stored.next_snapshot().map(|r| r.expect("decodes"));
        decode += t.elapsed();
    }
    eprintln!(
        "phases: decode {decode:.2?}; leader view built fresh {view:.2?}; carried step (view + \
         cycle) {step:.2?}; diff {diffing:.2?}"
    );
}

/// Writes the stored series as a series directory: what the browser's History bench
/// (`tests/e2e/history-bench.mjs`, after zipping it) uploads, at the day's scale in seconds where
/// recording it with the simulator takes hours.
fn write_series(dir: &std::path::Path, files: &Files) {
    for (name, bytes) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("creates the series directory");
        }
        std::fs::write(&path, bytes).expect("writes a series file");
    }
    eprintln!(
        "series of {} files written to {}",
        files.len(),
        dir.display()
    );
}

/// This thread's time on a CPU so far (Linux' schedstat, ns; 0 where there is none): what stays
/// comparable on a shared machine, where the wall clock counts the time other work held the CPU.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn bench_history(c: &mut Criterion) {
    let (files, one) = stored_series();
    if let Some(dir) = std::env::var_os("LBPLAN_BENCH_WRITE_SERIES") {
        write_series(std::path::Path::new(&dir), &files);
        return;
    }
    if std::env::var("LBPLAN_BENCH_PHASES").is_ok() {
        phases(&files);
    }
    if let Some(repeat) = std::env::var("LBPLAN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        let stored: usize = files.iter().map(|(_, b)| b.len()).sum();
        eprintln!(
            "stored series: {stored} bytes for {} snapshots; one snapshot's JSON: {one} \
             bytes ({:.2}x)",
            snapshots(),
            stored as f64 / one as f64
        );
        for _ in 0..repeat {
            let t = Instant::now();
            let cpu = cpu_ns();
            let r = explain_stored(&files, false);
            let kept = t.elapsed();
            let kept_cpu = cpu_ns().saturating_sub(cpu) as f64 / 1e9;
            let t = Instant::now();
            let cpu = cpu_ns();
            let baseline = explain_stored(&files, true);
            let rebuilt = t.elapsed();
            let rebuilt_cpu = cpu_ns().saturating_sub(cpu) as f64 / 1e9;
            assert_eq!(r, baseline, "the kept view changed the report");
            eprintln!(
                "explained {} snapshots, {} changes in {kept:.2?} (leader's view kept; on a CPU \
                 {kept_cpu:.2} s); {rebuilt:.2?} with the view rebuilt each snapshot (on a CPU \
                 {rebuilt_cpu:.2} s; {:.2}x)",
                r.summary.snapshots,
                r.changes.len(),
                rebuilt.as_secs_f64() / kept.as_secs_f64()
            );
        }
        return;
    }
    let mut group = c.benchmark_group("history");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(60));
    group.bench_function("explain_1440_snapshots_100_brokers_10k_bundles", |b| {
        b.iter(|| explain_stored(&files, false))
    });
    group.finish();
}

criterion_group!(benches, bench_history);
criterion_main!(benches);
