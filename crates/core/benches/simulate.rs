//! 1,000 simulated cycles on 100 brokers and 10,000 bundles (`builtin:bench`), steady load with 2 %
//! noise, the default ThresholdShedder + LeastLongTermMessageRate. Run with
//! `cargo bench -p lbplan-core --bench simulate`; the target is under 1 s, native.

use std::time::Duration;

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
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    for (name, config) in [
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
    ] {
        let run = RunConfig::parse(config).expect("config");
        group.bench_function(name, |b| {
            b.iter(|| simulate(&snapshot, &scenario, &run, opts, &mut |_, _| true).expect("runs"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_simulate);
criterion_main!(benches);
