//! `rebalance::propose` on the large synthetic cluster (1,000 brokers, 200,000 bundles,
//! `SyntheticSpec::large()`) toward `max/mean<=1.15`: the search, the "would Pulsar undo it?" checks
//! (each a plan with the leader running) and the final plan. Target: ≤ 2 s native.
//! Run with `cargo bench -p lbplan-core --bench rebalance`.
//!
//! `LBPLAN_BENCH_REPEAT=N` skips criterion and prints N plain wall-clock timings, with the size of
//! the proposal, this thread's time on a CPU and the time of each phase; with `LBPLAN_BENCH_KNOWN_FINGERPRINT=1` the snapshot's
//! fingerprint is computed once beforehand and passed in, as the dashboard's worker does.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lbplan_core::model::fingerprint::snapshot_fingerprint;
use lbplan_core::rebalance::{
    Goal, RebalanceRequest, propose, propose_with_fingerprint, propose_with_progress,
};
use lbplan_core::synthetic::{SyntheticSpec, generate};

fn request() -> RebalanceRequest {
    RebalanceRequest::new(Goal::MaxOverMean(1.15))
}

/// This thread's time on a CPU so far (Linux' schedstat, ns; 0 where there is none): what stays
/// comparable on a shared machine, where the wall clock counts the time other work held the CPU.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn bench_rebalance(c: &mut Criterion) {
    let snapshot = generate(&SyntheticSpec::large(), 0).expect("synthetic cluster");
    assert_eq!(snapshot.brokers.len(), 1_000);
    let req = request();
    if let Some(repeat) = std::env::var("LBPLAN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let known = std::env::var("LBPLAN_BENCH_KNOWN_FINGERPRINT").is_ok_and(|v| v == "1");
        let fingerprint = known.then(|| snapshot_fingerprint(&snapshot));
        for i in 0..repeat {
            let start = Instant::now();
            let cpu = cpu_ns();
            let mut last = start;
            let mut phases: Vec<String> = Vec::new();
            let mut progress = |phase: &str, done: usize, total: usize| {
                let now = Instant::now();
                phases.push(format!(
                    "{phase} {done}/{total} +{:.0} ms",
                    (now - last).as_secs_f64() * 1e3
                ));
                last = now;
            };
            let p = match &fingerprint {
                Some(f) => propose_with_fingerprint(&snapshot, &req, f.clone(), &mut progress),
                None => propose_with_progress(&snapshot, &req, &mut progress),
            }
            .expect("proposes");
            let on_cpu = cpu_ns().saturating_sub(cpu) as f64 / 1e6;
            println!(
                "run {i}: {:.0} ms, on a CPU {on_cpu:.0} ms; {} moves of {} found, max/mean {:.3} -> {:.3}, goal met {}, fixed point {:?}; {}",
                start.elapsed().as_secs_f64() * 1e3,
                p.chosen_moves,
                p.steps.len(),
                p.balance_before.max_over_mean,
                p.plan.balance_after.max_over_mean,
                p.goal_met,
                p.stick.as_ref().map(|s| s.fixed_point),
                phases.join(", ")
            );
        }
        return;
    }
    let mut group = c.benchmark_group("rebalance");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function(
        "propose_max_over_mean_1_15_1000_brokers_200k_bundles",
        |b| b.iter(|| propose(&snapshot, &req).expect("proposes")),
    );
    // As the dashboard's worker runs it: the loaded snapshot's fingerprint kept, not recomputed.
    let fingerprint = snapshot_fingerprint(&snapshot);
    group.bench_function(
        "propose_known_fingerprint_max_over_mean_1_15_1000_brokers_200k_bundles",
        |b| {
            b.iter(|| {
                propose_with_fingerprint(&snapshot, &req, fingerprint.clone(), &mut |_, _, _| {})
                    .expect("proposes")
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench_rebalance);
criterion_main!(benches);
