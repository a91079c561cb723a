//! The upgrade preview on the large synthetic cluster (1,000 brokers, 200,000 bundles,
//! `SyntheticSpec::large()`, brokers on 4.x) to 5.0.0 without simulated cycles (`lbplan upgrade
//! --cycles 0`): `upgrade_preview` against the way it was first made (two full `make_plan` leader
//! cycles — each its own fingerprint, leader view, per-decision detail, outlook and verdict
//! alternatives — then `diff_plans`), which is the baseline of the ratio in docs/performance.md.
//! Run with `cargo bench -p lbplan-core --bench upgrade`.
//!
//! `LBPLAN_BENCH_REPEAT=N` skips criterion and prints N plain wall-clock timings of each, for a
//! quick measure on a busy machine.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lbplan_core::config::Profile;
use lbplan_core::model::Snapshot;
use lbplan_core::plan::diff::diff_plans;
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::synthetic::{SyntheticSpec, generate};
use lbplan_core::upgrade::upgrade_preview;

/// The first version's decisions part: two full plans and their diff.
fn two_full_plans(snapshot: &Snapshot, to: Profile) -> bool {
    let today = make_plan(snapshot, &PlanRequest::leader_cycle()).expect("plans");
    let after = make_plan(
        snapshot,
        &PlanRequest {
            profile: Some(to),
            ..PlanRequest::leader_cycle()
        },
    )
    .expect("plans");
    diff_plans(&today, &after)
        .expect("same snapshot")
        .identical_decisions
}

fn preview(snapshot: &Snapshot, to: Profile) -> bool {
    upgrade_preview(snapshot, None, to, 0)
        .expect("previews")
        .decisions
        .identical_decisions
}

fn bench_upgrade(c: &mut Criterion) {
    let snapshot = generate(&SyntheticSpec::large(), 0).expect("synthetic cluster");
    assert_eq!(snapshot.brokers.len(), 1_000);
    let to = Profile::Pulsar50;
    // Both ways compare the same decisions.
    assert_eq!(two_full_plans(&snapshot, to), preview(&snapshot, to));
    if let Some(repeat) = std::env::var("LBPLAN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        for _ in 0..repeat {
            let t = Instant::now();
            two_full_plans(&snapshot, to);
            let before = t.elapsed();
            let t = Instant::now();
            preview(&snapshot, to);
            let after = t.elapsed();
            println!(
                "two full plans + diff: {before:.2?}   upgrade_preview: {after:.2?}   ratio {:.1}",
                before.as_secs_f64() / after.as_secs_f64().max(1e-9)
            );
        }
        return;
    }
    let mut group = c.benchmark_group("upgrade");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("two_full_plans_and_diff_1000_brokers_to_5_0_0", |b| {
        b.iter(|| two_full_plans(&snapshot, to))
    });
    group.bench_function("upgrade_preview_cycles_0_1000_brokers_to_5_0_0", |b| {
        b.iter(|| preview(&snapshot, to))
    });
    group.finish();
}

criterion_group!(benches, bench_upgrade);
criterion_main!(benches);
