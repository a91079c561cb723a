//! Plain wall-clock timings of the parts of `make_plan` on the large synthetic cluster (1,000 brokers,
//! 200,000 bundles), to see where a leader-cycle plan spends its time. Not a criterion bench: run with
//! `cargo bench -p lbplan-core --bench plan_phases` (`LBPLAN_BENCH_REPEAT=N`, default 3;
//! `LBPLAN_ONLY_PLAN=1` times only `make_plan_with_fingerprint`, for a profiler). Also times the
//! kept `PlanEngine`: building it, a cycle-only plan and a manual what-if on it
//! (`LBPLAN_ONLY_ENGINE=build|cycle|whatif|whatif_summary|explain`: only that, repeated on one
//! engine, for `perf record`). `whatif_summary` is the what-if as the dashboard sends it
//! (`explain: summary`, details left out); `explain` is the on-demand detail of its manual unload
//! (`plan::explain_decision`). Each timing is wall clock, then this thread's time on a CPU.

use std::borrow::Cow;
use std::time::Instant;

use lbplan_core::config::settings::resolve_config;
use lbplan_core::leader::context::{build_strategies, placement_context};
use lbplan_core::leader::view::load_data_from_snapshot;
use lbplan_core::model::Snapshot;
use lbplan_core::model::fingerprint::snapshot_fingerprint;
use lbplan_core::modular::leader::do_load_shedding;
use lbplan_core::plan::balance::broker_views;
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{
    AfterStart, DecisionRef, Explain, PlanEngine, PlanRequest, explain_decision, make_plan,
    make_plan_with_fingerprint,
};
use lbplan_core::rng::SeededPicker;
use lbplan_core::synthetic::{SyntheticSpec, generate};

/// This thread's time on a CPU so far (Linux' schedstat, ns; 0 where there is none): what stays
/// comparable on a shared machine, where the wall clock counts the time other work held the CPU.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn time<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let cpu = cpu_ns();
    let out = f();
    println!(
        "  {label:<28} {:>9.1} ms, on a CPU {:>9.1} ms",
        start.elapsed().as_secs_f64() * 1e3,
        cpu_ns().saturating_sub(cpu) as f64 / 1e6
    );
    out
}

/// One manual what-if as the dashboard sends it: the first broker's first bundle unloaded and placed
/// by the strategy (`selectBrokerForAssignment`), then the leader's cycle.
fn whatif_request(snapshot: &Snapshot) -> PlanRequest {
    let bundle = snapshot
        .brokers
        .values()
        .find_map(|b| b.local_broker_data.bundles.first().cloned())
        .expect("a bundle");
    PlanRequest {
        operations: vec![Operation::UnloadBundle {
            bundle,
            destination_broker: None,
        }],
        ..PlanRequest::leader_cycle()
    }
}

/// [`whatif_request`] at the dashboard's level: `reason`s as Full's, `detail`s left out.
fn whatif_summary(whatif: &PlanRequest) -> PlanRequest {
    PlanRequest {
        explain: Explain::Summary,
        ..whatif.clone()
    }
}

/// The what-if's manual unload, whose detail the dashboard asks for when its row is opened.
fn manual_unload(whatif: &PlanRequest) -> DecisionRef {
    let bundle = match whatif.operations.first() {
        Some(Operation::UnloadBundle { bundle, .. }) => bundle.clone(),
        _ => String::new(),
    };
    DecisionRef::Unload { bundle }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let repeat = std::env::var("LBPLAN_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(3);
    let snapshot = generate(&SyntheticSpec::large(), 0).expect("synthetic cluster");
    let req = PlanRequest::leader_cycle();
    if std::env::var_os("LBPLAN_ONLY_PLAN").is_some() {
        // For a profiler: only the plan, fingerprint precomputed.
        let fp = snapshot_fingerprint(&snapshot);
        for _ in 0..repeat {
            time("make_plan_with_fingerprint", || {
                make_plan_with_fingerprint(&snapshot, &req, fp.clone()).expect("plans")
            });
        }
        return;
    }
    if let Ok(mode) = std::env::var("LBPLAN_ONLY_ENGINE") {
        // For a profiler: the kept engine only (`build`, `cycle` or `whatif` repeated on one engine).
        let fp = snapshot_fingerprint(&snapshot);
        let whatif = whatif_request(&snapshot);
        let summary = whatif_summary(&whatif);
        let one = manual_unload(&whatif);
        let build = || {
            let mut e = PlanEngine::with_fingerprint(Cow::Borrowed(&snapshot), fp.clone());
            e.prepare();
            e
        };
        let mut engine = time("engine: build (view)", build);
        for _ in 0..repeat {
            match mode.as_str() {
                "build" => drop(time("engine: build (view)", build)),
                "whatif" => drop(time("engine: what-if plan", || {
                    engine.plan(&whatif).expect("plans")
                })),
                "whatif_summary" => drop(time("engine: what-if, summary", || {
                    engine.plan(&summary).expect("plans")
                })),
                "explain" => drop(time("engine: explain one unload", || {
                    explain_decision(&mut engine, &summary, &one).expect("plans")
                })),
                _ => drop(time("engine: cycle-only plan", || {
                    engine.plan(&req).expect("plans")
                })),
            }
        }
        return;
    }
    for run in 0..repeat {
        println!("run {run}:");
        let plan = time("make_plan", || make_plan(&snapshot, &req).expect("plans"));
        let fp0 = snapshot_fingerprint(&snapshot);
        time("make_plan_with_fingerprint", || {
            make_plan_with_fingerprint(&snapshot, &req, fp0.clone()).expect("plans")
        });
        let whatif = whatif_request(&snapshot);
        time("make_plan_with_fp what-if", || {
            make_plan_with_fingerprint(&snapshot, &whatif, fp0.clone()).expect("plans")
        });
        // The same what-if with the whole snapshot copied for its "after" view (as plans made it before the overlay).
        time("make_plan_with_fp what-if, whole-copy after view", || {
            PlanEngine::with_fingerprint(Cow::Borrowed(&snapshot), fp0.clone())
                .with_after_start(AfterStart::WholeCopy)
                .plan(&whatif)
                .expect("plans")
        });
        // The kept engine: built once per loaded snapshot, then plans on its kept view.
        let mut engine = time("engine: build (view)", || {
            let mut e = PlanEngine::with_fingerprint(Cow::Borrowed(&snapshot), fp0.clone());
            e.prepare();
            e
        });
        for _ in 0..2 {
            let cycle = time("engine: cycle-only plan", || {
                engine.plan(&req).expect("plans")
            });
            assert!(
                serde_json::to_string(&cycle).ok() == serde_json::to_string(&plan).ok(),
                "the kept engine plans as make_plan"
            );
        }
        let summary = whatif_summary(&whatif);
        let one = manual_unload(&whatif);
        for _ in 0..2 {
            let full = time("engine: what-if plan", || {
                engine.plan(&whatif).expect("plans")
            });
            let light = time("engine: what-if, summary", || {
                engine.plan(&summary).expect("plans")
            });
            let detail = time("engine: explain one unload", || {
                explain_decision(&mut engine, &summary, &one).expect("plans")
            });
            assert_eq!(full.unloads.len(), light.unloads.len());
            assert!(detail.is_some(), "the manual unload is explained");
        }
        println!(
            "  (plan: {} unloads, {} splits)",
            plan.unloads.len(),
            plan.splits.len()
        );
        time("to_vec (old fingerprint)", || {
            serde_json::to_vec(&snapshot).map(|v| v.len()).unwrap_or(0)
        });
        let fp = time("snapshot_fingerprint", || snapshot_fingerprint(&snapshot));
        assert_eq!(fp, plan.snapshot_fingerprint);
        let resolved = time("resolve_config", || {
            resolve_config(&snapshot, None, &[]).expect("resolves")
        });
        let work = time("snapshot.clone", || snapshot.clone());
        let weights = resolved.config.resource_weights();
        time("broker_views", || broker_views(&work, &weights));
        let mut data = time("load_data_from_snapshot", || load_data_from_snapshot(&work));
        let mut ctx = time("placement_context", || placement_context(&work, &data));
        let mut strategies = build_strategies(&resolved.config, resolved.profile).expect("builds");
        let report = time("do_load_shedding (Full)", || {
            do_load_shedding(
                &mut strategies,
                &mut data,
                &mut ctx,
                &resolved.config,
                &mut SeededPicker::new(0),
                work.captured_at_ms.unwrap_or(0),
            )
        });
        time("serialize decisions json", || {
            report
                .unloads
                .iter()
                .map(|u| serde_json::json!({ "shedding": u.shed_reason, "placement": u.placement }))
                .collect::<Vec<_>>()
        });
        time("drop plan", || drop(plan));
        time("drop load data + ctx", || drop((data, ctx)));
        time("drop snapshot copy", || drop(work));
    }
}
