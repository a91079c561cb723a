//! 1,000 simulated cycles on 100 brokers and 10,000 bundles (`builtin:bench`), steady load with 2 %
//! noise, the default ThresholdShedder + LeastLongTermMessageRate. Run with
//! `cargo bench -p lbplan-core --bench simulate`; the target is under 1 s, native.
//!
//! `LBPLAN_BENCH_REPEAT=N` skips criterion and prints N plain wall-clock timings of each
//! configuration (`LBPLAN_BENCH_ONLY=<name part>` runs only the matching ones), for a quick measure
//! on a busy machine or under a profiler.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lbplan_core::simulate::{RunConfig, RunOptions, builtin_scenario, builtin_snapshot, simulate};

fn bench_simulate(c: &mut Criterion) {
    let snapshot = builtin_snapshot("bench").expect("built-in snapshot");
    assert_eq!(snapshot.brokers.len(), 100);
    assert_eq!(snapshot.bundle_data.len(), 10_000);
    let scenario = builtin_scenario("steady")
        .expect("built-in scenario")
        .expect("parses");
    let opts = RunOptions {
        cycles: 1000,
        seed: 1,
        record_broker_usage: false,
        record_ownership: false,
    };
    let configs = [
        // The engine alone (load model, reports, leader update, split check, metrics).
        (
            "engine_only_100_brokers_10k_bundles_1000_cycles",
            "loadBalancerSheddingEnabled=false",
        ),
        ("threshold_lltmr_100_brokers_10k_bundles_1000_cycles", ""),
        (
            "avg_shedder_100_brokers_10k_bundles_1000_cycles",
            "loadBalancerLoadSheddingStrategy=AvgShedder;loadBalancerLoadPlacementStrategy=AvgShedder",
        ),
    ];
    if let Some(repeat) = std::env::var("LBPLAN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let only = std::env::var("LBPLAN_BENCH_ONLY").unwrap_or_default();
        for (name, config) in configs.iter().filter(|(n, _)| n.contains(only.as_str())) {
            let run = RunConfig::parse(config).expect("config");
            for _ in 0..repeat {
                let start = Instant::now();
                let out =
                    simulate(&snapshot, &scenario, &run, opts, &mut |_, _| true).expect("runs");
                println!(
                    "{name}: {:.1} ms ({} unloads)",
                    start.elapsed().as_secs_f64() * 1e3,
                    out.summary.total_unloads
                );
            }
        }
        return;
    }
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    for (name, config) in configs {
        let run = RunConfig::parse(config).expect("config");
        group.bench_function(name, |b| {
            b.iter(|| simulate(&snapshot, &scenario, &run, opts, &mut |_, _| true).expect("runs"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_simulate);
criterion_main!(benches);
