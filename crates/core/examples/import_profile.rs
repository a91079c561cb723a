//! Times the import of the benchmark's synthetic cluster (1,000 brokers, 200,000 bundles), wall and
//! CPU time per run, without criterion: for profiling (`perf record ... import_profile meta 3`) and
//! for a quick measurement on a shared machine, where CPU time is steadier than wall time.
//!
//! `cargo run --release -p lbplan-core --example import_profile -- meta|snap|serde [RUNS] [DIVISOR]`
//! (`serde`: serde_json's own typed parse of the snapshot text, the floor for `snap`)
//! (DIVISOR shrinks the cluster, e.g. 10 for 100 brokers and 20,000 bundles under valgrind).

use std::time::Instant;

use lbplan_core::import::store_files::store_files;
use lbplan_core::import::{ImportInput, import};
use lbplan_core::synthetic::{SyntheticSpec, generate};

/// User + system CPU seconds of this process (Linux `/proc/self/stat`; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "meta".to_string());
    let runs: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let divisor: usize = std::env::args()
        .nth(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    let mut spec = SyntheticSpec::large();
    spec.brokers = (spec.brokers / divisor as u32).max(1);
    spec.namespaces
        .truncate((spec.namespaces.len() / divisor).max(1));
    let files = store_files(&generate(&spec, 0).expect("synthetic cluster"));
    let inputs: Vec<ImportInput<'_>> = files
        .iter()
        .map(|(n, b)| ImportInput::in_tree(n.as_str(), b.as_slice()))
        .collect();
    let snapshot = import(&inputs).expect("synthetic cluster imports").snapshot;
    let json = serde_json::to_vec(&snapshot).expect("serializes");
    let snapshot_input = [ImportInput::given("snapshot.json", json.as_slice())];
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_seconds());
        if mode == "serde" {
            // The floor for reading a snapshot: serde_json's typed parse alone.
            let parsed: lbplan_core::model::Snapshot =
                serde_json::from_slice(&json).expect("valid snapshot");
            let (wall, cpu) = (t.elapsed(), cpu_seconds() - c);
            drop(parsed);
            eprintln!("{mode}: wall {wall:.2?}, cpu {cpu:.2} s");
            continue;
        }
        let imported = if mode == "snap" {
            import(&snapshot_input)
        } else {
            import(&inputs)
        }
        .expect("imports");
        let (wall, cpu) = (t.elapsed(), cpu_seconds() - c);
        let warnings = imported.warnings.len();
        drop(imported);
        eprintln!("{mode}: wall {wall:.2?}, cpu {cpu:.2} s ({warnings} warnings)");
    }
}
