//! The outputs that must be bit-identical natively and in wasm: plans and per-cycle simulation CSVs
//! of the demo cluster and of a seeded synthetic cluster, under a scenario that exercises every
//! floating-point path of the load model (growth, the daily wave's `sin`, noise, a heap sawtooth).
//! Included by the native test (`crates/core/tests/native_wasm_golden.rs`) and the wasm test
//! (`web/tests/native_wasm.rs`); both compare against the files beside this one.

use lbplan_core::model::Snapshot;
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::simulate::{RunConfig, RunOptions, Scenario, compare, render_cycles_csv};
use lbplan_core::synthetic::{self, HotBroker, PerNamespace, SyntheticSpec, Traffic};

/// A scenario whose load uses `pow` (growth), `sin` (the wave) and seeded noise.
const SCENARIO: &str = r#"{
  "format_version": 1,
  "name": "native-wasm",
  "cycles": 120,
  "load": {
    "growth_pct_per_cycle": 0.35,
    "daily_wave": { "amplitude_fraction": 0.4, "period_minutes": 90, "phase_minutes": 7 },
    "noise_fraction": 0.05,
    "heap": { "min_fraction": 0.3, "max_fraction": 0.85, "period_cycles": 5 }
  }
}"#;

const CONFIGS: [&str; 3] = [
    "name=threshold",
    "name=lruww;loadBalancerLoadPlacementStrategy=org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight",
    "name=avg;loadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.AvgShedder;loadBalancerLoadPlacementStrategy=org.apache.pulsar.broker.loadbalance.impl.AvgShedder",
];

/// A small cluster unlike the demo: more brokers, skewed traffic, the 5.0 profile's version.
fn synthetic_cluster() -> Snapshot {
    let mut spec = SyntheticSpec::demo();
    spec.cluster = "native-wasm".to_string();
    spec.broker_domain = "native-wasm".to_string();
    spec.brokers = 30;
    spec.cores_per_broker = 4;
    spec.traffic = Traffic::PerNamespace(PerNamespace {
        skew: 2.5,
        target_avg_cpu_fraction: 0.55,
        hot_broker: Some(HotBroker {
            index: 4,
            extra_bundle_fraction: 0.15,
        }),
    });
    spec.broker_version = "5.0.0".to_string();
    synthetic::generate(&spec, 20_261_201).expect("the synthetic spec is valid")
}

fn plan_json(snapshot: &Snapshot) -> String {
    let mut req = PlanRequest::leader_cycle();
    req.seed = 7;
    let plan = make_plan(snapshot, &req).expect("the plan runs");
    serde_json::to_string_pretty(&plan).expect("a plan serialises")
}

fn simulation_csv(snapshot: &Snapshot) -> String {
    let scenario = Scenario::from_json_text(SCENARIO).expect("the scenario parses");
    let configs: Vec<RunConfig> = CONFIGS
        .iter()
        .map(|c| RunConfig::parse(c).expect("the configuration parses"))
        .collect();
    let opts = RunOptions {
        cycles: 120,
        seed: 11,
        record_broker_usage: false,
        record_ownership: false,
    };
    let comparison = compare(snapshot, &scenario, &configs, opts, &mut |_, _| true)
        .expect("the simulation runs");
    render_cycles_csv(&comparison)
}

/// `(file name, output)` for every case, in a fixed order.
pub fn outputs() -> Vec<(&'static str, String)> {
    let demo = synthetic::demo().expect("the demo generates");
    let other = synthetic_cluster();
    vec![
        ("demo-plan.json", plan_json(&demo)),
        ("demo-simulation.csv", simulation_csv(&demo)),
        ("synthetic-plan.json", plan_json(&other)),
        ("synthetic-simulation.csv", simulation_csv(&other)),
    ]
}
