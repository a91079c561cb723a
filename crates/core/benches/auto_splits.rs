//! The leader cycle's automatic splits (`BundleSplitterTask`) on the large synthetic cluster
//! (1,000 brokers, 200,000 bundles, `SyntheticSpec::large()`) with `plan_dump`'s split settings
//! (`loadBalancerNamespaceBundleMaxTopics=3`, `loadBalancerNamespaceMaximumBundles=200`):
//! `plan::split_records::auto_splits_step` on the leader view of the snapshot, each iteration on a
//! fresh copy of the snapshot (made outside the timed part). The goal is 50 µs per split.
//! Run with `cargo bench -p lbplan-core --bench auto_splits`.

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use lbplan_core::config::settings::resolve_config;
use lbplan_core::leader::view::load_data_from_snapshot;
use lbplan_core::plan::Plan;
use lbplan_core::plan::split_records::auto_splits_step;
use lbplan_core::synthetic::{SyntheticSpec, generate};

fn bench(c: &mut Criterion) {
    let snapshot = generate(&SyntheticSpec::large(), 0).expect("synthetic cluster");
    // The settings of `plan_dump`'s `splits` case: most bundles exceed the topic limit.
    let settings = [
        ("loadBalancerNamespaceBundleMaxTopics", "3"),
        ("loadBalancerNamespaceMaximumBundles", "200"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    let cfg = resolve_config(&snapshot, None, &settings)
        .expect("config resolves")
        .config;
    let data = load_data_from_snapshot(&snapshot);
    let mut once = Plan::default();
    auto_splits_step(&mut snapshot.clone(), &cfg, &data, &mut once);
    println!(
        "auto_splits: {} splits, {} declined",
        once.splits.len(),
        once.skipped.len()
    );
    let mut group = c.benchmark_group("auto_splits");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("auto_splits_1000_brokers_200k_bundles", |b| {
        b.iter_batched(
            || (snapshot.clone(), Plan::default()),
            |(mut work, mut plan)| {
                auto_splits_step(&mut work, &cfg, &data, &mut plan);
                (work, plan)
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
