//! One load model. A plan's predicted usage after its moves equals the
//! noise-free simulation's next cycle (the same loads), per broker and per resource, on every
//! snapshot at hand that the plan unloads from: the dashboard's demo, the built-in scenarios'
//! clusters, generated clusters (with and without `lastStats`, with mixed hardware: a 1-core broker,
//! brokers of 2 and 32 cores, a broker busy with little traffic) under several strategies. The
//! plan predicts with `load::bundle_load` and the simulator writes its reports with its cluster's
//! model; both are `lbplan_core::load`.

use lbplan_core::model::{ResourceUsage, Snapshot};
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::simulate::{
    RunConfig, RunOptions, Scenario, builtin_snapshot, simulate_recording,
};
use lbplan_core::synthetic::{SyntheticSpec, generate};

/// The noise-free scenario of the plan-versus-simulation check, one cycle further: cycle 1's reports follow cycle 0's moves.
const STILL: &str =
    r#"{"format_version": 1, "name": "still", "cycles": 2, "load": {"noise_fraction": 0.0}}"#;

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn configurations() -> Vec<Vec<(String, String)>> {
    vec![
        Vec::new(),
        kv(&[(
            "loadBalancerLoadPlacementStrategy",
            "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight",
        )]),
        kv(&[
            (
                "loadBalancerLoadSheddingStrategy",
                "org.apache.pulsar.broker.loadbalance.impl.OverloadShedder",
            ),
            ("loadBalancerBrokerOverloadedThresholdPercentage", "30"),
        ]),
        kv(&[(
            "loadBalancerLoadSheddingStrategy",
            "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder",
        )]),
    ]
}

/// Mixed hardware: broker 0 has 1 core (its usage kept, so it is far over), broker 1 has 2, broker
/// 2 has 32; broker 3 is busy (90 % of its CPU) with its traffic unchanged.
fn mixed_hardware(mut s: Snapshot) -> Snapshot {
    for (i, b) in s.brokers.values_mut().enumerate() {
        let l = &mut b.local_broker_data;
        match i {
            0 => l.cpu.limit = 100.0,
            1 => l.cpu.limit = 200.0,
            2 => l.cpu.limit = 3200.0,
            3 => l.cpu.usage = 0.9 * l.cpu.limit,
            _ => {}
        }
    }
    s
}

fn without_last_stats(mut s: Snapshot) -> Snapshot {
    for b in s.brokers.values_mut() {
        b.local_broker_data.last_stats.clear();
    }
    s
}

fn snapshots() -> Vec<(String, Snapshot)> {
    let mut out = Vec::new();
    for name in ["demo", "pr-16059"] {
        out.push((
            format!("builtin:{name}"),
            builtin_snapshot(name).expect(name),
        ));
    }
    for seed in 1..=3u64 {
        let spec = SyntheticSpec {
            brokers: 8,
            ..SyntheticSpec::demo()
        };
        let g = generate(&spec, seed).expect("synthetic snapshot");
        out.push((format!("generated {seed}"), g.clone()));
        out.push((
            format!("generated {seed}, no lastStats"),
            without_last_stats(g.clone()),
        ));
        out.push((
            format!("generated {seed}, mixed hardware"),
            mixed_hardware(g),
        ));
    }
    let demo = builtin_snapshot("demo").expect("demo");
    out.push(("demo, mixed hardware".to_string(), mixed_hardware(demo)));
    out
}

fn usages(local: &lbplan_core::model::LocalBrokerData) -> [(&'static str, ResourceUsage); 5] {
    [
        ("cpu", local.cpu),
        ("memory", local.memory),
        ("direct_memory", local.direct_memory),
        ("bandwidth_in", local.bandwidth_in),
        ("bandwidth_out", local.bandwidth_out),
    ]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn a_plans_predicted_usage_is_the_noise_free_simulations_next_cycle() {
    let scenario = Scenario::from_json_text(STILL).expect("scenario");
    let mut compared = 0;
    let mut plans_with_unloads = 0;
    let mut over_100 = 0;
    for (what, snapshot) in snapshots() {
        for settings in configurations() {
            let req = PlanRequest {
                settings: settings.clone(),
                outlook_cycles: 0,
                ..PlanRequest::leader_cycle()
            };
            let plan = make_plan(&snapshot, &req).expect("plan");
            if plan.unloads.is_empty() {
                continue;
            }
            plans_with_unloads += 1;
            let mut sc = scenario.clone();
            sc.settings = settings.clone();
            let opts = RunOptions {
                cycles: 2,
                seed: 0,
                record_broker_usage: false,
                record_ownership: false,
            };
            let (_, series) =
                simulate_recording(&snapshot, &sc, &RunConfig::default(), opts, &mut |_, _| {
                    true
                })
                .expect("simulation");
            let next = series.get(1).expect("cycle 1 recorded");
            for after in &plan.brokers_after {
                let b = next
                    .brokers
                    .get(&after.broker)
                    .unwrap_or_else(|| panic!("{what}: {} not simulated", after.broker));
                let predicted = [
                    after.cpu_pct,
                    after.memory_pct,
                    after.direct_memory_pct,
                    after.bandwidth_in_pct,
                    after.bandwidth_out_pct,
                ];
                for ((resource, u), p) in usages(&b.local_broker_data).into_iter().zip(predicted) {
                    let simulated = u.percent_usage();
                    assert!(
                        close(p, simulated),
                        "{what} {settings:?}: {} {resource}: plan {p} %, simulation {simulated} %",
                        after.broker
                    );
                    if resource == "cpu" && p > 100.0 {
                        over_100 += 1;
                    }
                    compared += 1;
                }
            }
        }
    }
    // Every kind of snapshot planned unloads somewhere, and the comparison covered them all.
    assert!(
        plans_with_unloads >= 20,
        "{plans_with_unloads} plans with unloads"
    );
    assert!(compared >= 1000, "{compared} usages compared");
    // The 1-core broker stays over capacity in the prediction and in the simulation alike.
    assert!(over_100 > 0);
}

/// The simulator's absurd states came from its own cost rule (a byte moved to a
/// broker cost what that broker's CPU over its traffic said, which explodes on a broker busy with
/// little traffic). With the one model a move carries work, never makes it: over 40 cycles of
/// ThresholdShedder + LeastLongTermMessageRate (the pattern that moves the most), on mixed hardware
/// with a busy broker, the cluster's CPU in cores and NIC in bytes/s stay what the snapshot reports.
#[test]
fn moves_carry_work_and_never_make_it() {
    let scenario = Scenario::from_json_text(
        r#"{"format_version": 1, "name": "still", "cycles": 40, "load": {"noise_fraction": 0.0}}"#,
    )
    .expect("scenario");
    let config = RunConfig::parse(
        "name=t;loadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder;\
         loadBalancerLoadPlacementStrategy=org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate",
    )
    .expect("config");
    let snapshot = mixed_hardware(builtin_snapshot("demo").expect("demo"));
    let opts = RunOptions {
        cycles: 40,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let (run, series) =
        simulate_recording(&snapshot, &scenario, &config, opts, &mut |_, _| true).expect("run");
    assert!(
        run.summary.total_unloads > 10,
        "{}",
        run.summary.total_unloads
    );
    let total = |s: &Snapshot| {
        s.brokers.values().fold([0.0; 3], |mut t, b| {
            let l = &b.local_broker_data;
            t[0] += l.cpu.usage;
            t[1] += l.bandwidth_in.usage;
            t[2] += l.bandwidth_out.usage;
            t
        })
    };
    let start = total(&snapshot);
    for (cycle, s) in series.iter().enumerate() {
        let now = total(s);
        for r in 0..3 {
            assert!(
                (now[r] - start[r]).abs() <= 1e-9 * start[r].max(1.0),
                "cycle {cycle}: resource {r} {} → {}",
                start[r],
                now[r]
            );
        }
    }
    // No broker is asked for more than the whole cluster's CPU work on its own cores.
    let cores_min = snapshot
        .brokers
        .values()
        .map(|b| b.local_broker_data.cpu.limit)
        .fold(f64::INFINITY, f64::min);
    assert!(run.summary.peak_max_usage_fraction <= start[0] / cores_min);
}

/// A cluster genuinely over capacity is still flagged: traffic growing 10 % a cycle outgrows
/// every broker's NIC and CPU, and the run says from which cycle.
#[test]
fn a_cluster_over_capacity_is_still_flagged() {
    let scenario = Scenario::from_json_text(
        r#"{"format_version": 1, "name": "growth", "cycles": 40, "load": {"noise_fraction": 0.0, "growth_pct_per_cycle": 10}}"#,
    )
    .expect("scenario");
    let opts = RunOptions {
        cycles: 40,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let snapshot = builtin_snapshot("demo").expect("demo");
    let run = lbplan_core::simulate::simulate(
        &snapshot,
        &scenario,
        &RunConfig::default(),
        opts,
        &mut |_, _| true,
    )
    .expect("run");
    assert!(run.summary.cycles_over_capacity > 0);
    assert!(run.summary.first_cycle_over_capacity.is_some());
    assert!(run.summary.over_capacity_text().is_some());
}

/// Brokers at known speeds: every broker's CPU is 5 % idle plus `factor × ρ × throughput`, and the
/// simulator runs them with those factors (`load.cpu_cost_factors`), so a bundle moved to a slow
/// broker costs it more cores. The series it records (30 cycles, 30 % noise, the default
/// strategies moving bundles) is what `lbplan history --calibrate` fits: the fit recovers the
/// factors.
#[test]
fn calibration_recovers_the_brokers_known_speeds() {
    use lbplan_core::load::calibration::fit;
    let mut snapshot = builtin_snapshot("demo").expect("demo");
    let factors = [2.0, 0.5, 1.5];
    let ids: Vec<String> = snapshot.brokers.keys().cloned().collect();
    let bytes =
        |l: &lbplan_core::model::LocalBrokerData| l.msg_throughput_in + l.msg_throughput_out;
    let total: f64 = snapshot
        .brokers
        .values()
        .map(|b| bytes(&b.local_broker_data))
        .sum();
    // ρ: cpu units (percent of a core) per byte/s, so the average broker is at 30 % of 8 cores.
    let rho = 0.25 * 800.0 / (total / ids.len() as f64);
    let mut spec = String::from(
        r#"{"format_version": 1, "cycles": 30, "load": {"noise_fraction": 0.3, "cpu_cost_factors": {"#,
    );
    for (i, b) in snapshot.brokers.values_mut().enumerate() {
        let f = factors.get(i).copied().unwrap_or(1.0);
        let l = &mut b.local_broker_data;
        l.cpu.usage = 0.05 * l.cpu.limit + f * rho * bytes(l);
    }
    for (i, f) in factors.iter().enumerate() {
        spec.push_str(&format!(
            "{}\"{}\": {f}",
            if i > 0 { ", " } else { "" },
            ids[i]
        ));
    }
    spec.push_str("}}}");
    let scenario = Scenario::from_json_text(&spec).expect("scenario");
    let opts = RunOptions {
        cycles: 30,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let (run, series) = simulate_recording(
        &snapshot,
        &scenario,
        &RunConfig::default(),
        opts,
        &mut |_, _| true,
    )
    .expect("run");
    assert!(run.summary.total_unloads > 0);
    let calibration = fit(&series);
    assert!(
        calibration.not_fitted.is_empty(),
        "{:?}",
        calibration.not_fitted
    );
    for (i, id) in ids.iter().enumerate() {
        let want = factors.get(i).copied().unwrap_or(1.0);
        let got = calibration.cpu_cost_factors[id];
        assert!(
            (got - want).abs() < 1e-6,
            "{id}: fitted {got}, ran at {want}"
        );
    }
    // Planned with the calibration, a move to a slow broker costs it more cores, and the plan's
    // prediction is the next cycle of the simulation with the same factors.
    let model = calibration.model();
    let still = spec.replace("\"noise_fraction\": 0.3", "\"noise_fraction\": 0.0");
    let mut still = Scenario::from_json_text(&still).expect("scenario");
    still.cycles = Some(2);
    let (mut planned, mut moved_to_other_speed) = (0, 0);
    for at in &series {
        let plan = lbplan_core::plan::PlanEngine::new(at.clone())
            .with_load_model(model.clone())
            .plan(&PlanRequest {
                outlook_cycles: 0,
                ..PlanRequest::leader_cycle()
            })
            .expect("plan");
        if plan.unloads.is_empty() {
            continue;
        }
        planned += 1;
        let opts = RunOptions {
            cycles: 2,
            seed: 0,
            record_broker_usage: false,
            record_ownership: false,
        };
        let (_, next) =
            simulate_recording(at, &still, &RunConfig::default(), opts, &mut |_, _| true)
                .expect("run");
        for u in &plan.unloads {
            let to = u.to.as_deref().unwrap_or("");
            if (model.cpu_factor(&u.from) - model.cpu_factor(to)).abs() > 0.1 {
                moved_to_other_speed += 1;
            }
        }
        for after in &plan.brokers_after {
            let sim = next[1].brokers[&after.broker]
                .local_broker_data
                .cpu
                .percent_usage();
            assert!(
                close(after.cpu_pct, sim),
                "{}: plan {} simulation {sim}",
                after.broker,
                after.cpu_pct
            );
        }
    }
    assert!(
        planned > 0 && moved_to_other_speed > 0,
        "{planned} {moved_to_other_speed}"
    );
}

/// `history` measures the model on every move of a series: on a noise-free simulated series (the
/// same loads, the model the simulator writes its reports with) every prediction is the next
/// snapshot's report.
#[test]
fn history_measures_the_model_on_every_move() {
    use lbplan_core::history::{ExplainOptions, Series, explain};
    let scenario = Scenario::from_json_text(
        r#"{"format_version": 1, "name": "still", "cycles": 12, "load": {"noise_fraction": 0.0}}"#,
    )
    .expect("scenario");
    let config = RunConfig::parse(
        "name=t;loadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder;\
         loadBalancerLoadPlacementStrategy=org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate",
    )
    .expect("config");
    let opts = RunOptions {
        cycles: 12,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let snapshot = mixed_hardware(builtin_snapshot("demo").expect("demo"));
    let (_, series) =
        simulate_recording(&snapshot, &scenario, &config, opts, &mut |_, _| true).expect("run");
    let series = Series { snapshots: series };
    let report = explain(&series, &ExplainOptions::default()).expect("history");
    let m = &report.load_model;
    assert!(m.moves > 5, "{m:?}");
    let cpu = m
        .resources
        .iter()
        .find(|r| r.resource == "cpu")
        .expect("cpu");
    assert_eq!(cpu.within_3_points_fraction, 1.0, "{m:?}");
    assert!(cpu.mean_abs_error_points < 1e-3, "{m:?}");
    assert!(
        m.lines()[1].contains("within ±3 points on 100 %"),
        "{:?}",
        m.lines()
    );
}
