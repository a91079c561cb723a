//! One leader cycle on a large synthetic cluster (1,000 brokers, 200,000 bundles,
//! `SyntheticSpec::large()`): `make_plan` with `PlanRequest::leader_cycle()` (fingerprint, snapshot
//! copy, leader view, shedding, placement with full explanations, auto-split check, outlook);
//! `make_plan_with_fingerprint`, the same with the fingerprint computed once beforehand as the web
//! app and the worker call it; `snapshot_fingerprint` alone; and `do_load_shedding` alone on a
//! prepared `LoadData` (strategy + placement pipeline only), fully explained as the plan driver runs
//! it and untraced (`PipelineTrace::Off`) as the simulation does.
//! Run with `cargo bench -p lbplan-core --bench plan_cycle`; the target is under 50 ms, native.
//!
//! `LBPLAN_BENCH_REPEAT=N` skips criterion and prints N plain wall-clock timings of each, for a
//! quick measure on a busy machine.

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use lbplan_core::config::settings::resolve_config;
use lbplan_core::leader::context::{build_strategies, placement_context};
use lbplan_core::leader::view::load_data_from_snapshot;
use lbplan_core::model::Snapshot;
use lbplan_core::model::fingerprint::snapshot_fingerprint;
use lbplan_core::modular::LoadData;
use lbplan_core::modular::leader::{SheddingCycleReport, StrategySet, do_load_shedding};
use lbplan_core::modular::pipeline::{PipelineTrace, PlacementContext};
use lbplan_core::plan::{PlanRequest, make_plan, make_plan_with_fingerprint};
use lbplan_core::rng::SeededPicker;
use lbplan_core::synthetic::{SyntheticSpec, generate};

/// Everything `do_load_shedding` needs, built once from the snapshot as the plan driver builds it.
struct Prepared {
    cfg: lbplan_core::config::LoadBalancerConfig,
    profile: lbplan_core::config::Profile,
    data: LoadData,
    ctx: PlacementContext,
    now_ms: i64,
}

fn prepare(snapshot: &Snapshot) -> Prepared {
    let resolved = resolve_config(snapshot, None, &[]).expect("config resolves");
    let data = load_data_from_snapshot(snapshot);
    let ctx = placement_context(snapshot, &data);
    Prepared {
        cfg: resolved.config,
        profile: resolved.profile,
        data,
        ctx,
        now_ms: snapshot.captured_at_ms.unwrap_or(0),
    }
}

/// One shedding cycle with fresh strategies (a newly elected leader), on copies of the prepared
/// state; the copies are made by the caller outside the timed part.
fn shed_once(
    p: &Prepared,
    strategies: &mut StrategySet,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
) -> SheddingCycleReport {
    do_load_shedding(
        strategies,
        data,
        ctx,
        &p.cfg,
        &mut SeededPicker::new(0),
        p.now_ms,
    )
}

fn quick(snapshot: &Snapshot, p: &Prepared, repeat: usize) {
    let req = PlanRequest::leader_cycle();
    for i in 0..repeat {
        let start = Instant::now();
        let plan = make_plan(snapshot, &req).expect("plans");
        let plan_ms = start.elapsed().as_secs_f64() * 1e3;
        let mut strategies = build_strategies(&p.cfg, p.profile).expect("strategies");
        let mut data = p.data.clone();
        let mut ctx = p.ctx.clone();
        let start = Instant::now();
        let report = shed_once(p, &mut strategies, &mut data, &mut ctx);
        let shed_ms = start.elapsed().as_secs_f64() * 1e3;
        let mut strategies = build_strategies(&p.cfg, p.profile).expect("strategies");
        let mut data = p.data.clone();
        let mut ctx = p.ctx.clone();
        ctx.trace = PipelineTrace::Off;
        let start = Instant::now();
        shed_once(p, &mut strategies, &mut data, &mut ctx);
        let shed_off_ms = start.elapsed().as_secs_f64() * 1e3;
        println!(
            "run {i}: make_plan {plan_ms:.1} ms ({} unloads, outlook {}), do_load_shedding {shed_ms:.1} ms ({} decisions), untraced {shed_off_ms:.1} ms",
            plan.unloads.len(),
            plan.outlook.is_some(),
            report.decisions.len()
        );
    }
}

fn bench_plan_cycle(c: &mut Criterion) {
    let snapshot = generate(&SyntheticSpec::large(), 0).expect("synthetic cluster");
    assert_eq!(snapshot.brokers.len(), 1_000);
    assert!(snapshot.bundle_data.len() >= 200_000);
    let prepared = prepare(&snapshot);
    if let Some(repeat) = std::env::var("LBPLAN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        quick(&snapshot, &prepared, repeat);
        return;
    }

    let mut group = c.benchmark_group("plan_cycle");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    let req = PlanRequest::leader_cycle();
    group.bench_function("make_plan_leader_cycle_1000_brokers_200k_bundles", |b| {
        b.iter(|| make_plan(&snapshot, &req).expect("plans"))
    });
    // As the web app and the worker call it: the snapshot's fingerprint computed once, at load.
    let fingerprint = snapshot_fingerprint(&snapshot);
    group.bench_function(
        "make_plan_with_fingerprint_leader_cycle_1000_brokers_200k_bundles",
        |b| {
            b.iter(|| {
                make_plan_with_fingerprint(&snapshot, &req, fingerprint.clone()).expect("plans")
            })
        },
    );
    group.bench_function("snapshot_fingerprint_1000_brokers_200k_bundles", |b| {
        b.iter(|| snapshot_fingerprint(&snapshot))
    });
    group.bench_function("do_load_shedding_1000_brokers_200k_bundles", |b| {
        b.iter_batched(
            || {
                (
                    build_strategies(&prepared.cfg, prepared.profile).expect("strategies"),
                    prepared.data.clone(),
                    prepared.ctx.clone(),
                )
            },
            // The state is returned so that criterion drops it outside the timed part.
            |(mut strategies, mut data, mut ctx)| {
                let report = shed_once(&prepared, &mut strategies, &mut data, &mut ctx);
                (report, strategies, data, ctx)
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("do_load_shedding_untraced_1000_brokers_200k_bundles", |b| {
        b.iter_batched(
            || {
                let mut ctx = prepared.ctx.clone();
                ctx.trace = PipelineTrace::Off;
                (
                    build_strategies(&prepared.cfg, prepared.profile).expect("strategies"),
                    prepared.data.clone(),
                    ctx,
                )
            },
            // The state is returned so that criterion drops it outside the timed part.
            |(mut strategies, mut data, mut ctx)| {
                let report = shed_once(&prepared, &mut strategies, &mut data, &mut ctx);
                (report, strategies, data, ctx)
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench_plan_cycle);
criterion_main!(benches);
