//! Scratch: writes simulation results (every scenario on the demo snapshot with ownership and
//! per-broker usage recorded, and the bench snapshot) as JSON, to compare two builds byte for byte.
//! `LBPLAN_DUMP_DIR=<dir> cargo bench --bench sim_dump`.

use lbplan_core::simulate::{RunConfig, RunOptions, builtin_scenario, builtin_snapshot, simulate};

fn main() {
    let Some(dir) = std::env::var_os("LBPLAN_DUMP_DIR") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let configs = [
        ("threshold", ""),
        (
            "avg",
            "loadBalancerLoadSheddingStrategy=AvgShedder;loadBalancerLoadPlacementStrategy=AvgShedder",
        ),
        (
            "overload",
            "loadBalancerLoadSheddingStrategy=OverloadShedder",
        ),
        (
            "uniform",
            "loadBalancerLoadSheddingStrategy=UniformLoadShedder;loadBalancerLoadPlacementStrategy=LeastResourceUsageWithWeight",
        ),
        (
            "splits",
            "loadBalancerNamespaceBundleMaxTopics=3;loadBalancerNamespaceMaximumBundles=300",
        ),
    ];
    for (snap_name, scenarios, cycles) in [
        (
            "demo",
            vec![
                "steady",
                "broker-crash",
                "daily-wave",
                "hot-spike",
                "rolling-restart",
            ],
            200,
        ),
        ("pr-16059", vec!["pr-16059"], 200),
        ("bench", vec!["steady"], 150),
    ] {
        let snapshot = builtin_snapshot(snap_name).expect("snapshot");
        for sc in scenarios {
            let scenario = builtin_scenario(sc).expect("scenario").expect("parses");
            for (cname, config) in configs {
                let run = RunConfig::parse(config).expect("config");
                let opts = RunOptions {
                    cycles,
                    seed: 7,
                    record_broker_usage: true,
                    record_ownership: true,
                };
                let out =
                    simulate(&snapshot, &scenario, &run, opts, &mut |_, _| true).expect("runs");
                let text = serde_json::to_string(&out).expect("json");
                std::fs::write(dir.join(format!("{snap_name}-{sc}-{cname}.json")), text)
                    .expect("write");
                println!(
                    "{snap_name}-{sc}-{cname}: {} unloads, {} splits",
                    out.summary.total_unloads, out.summary.total_splits
                );
            }
        }
    }
}
