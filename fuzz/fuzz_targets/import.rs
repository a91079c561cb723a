//! Fuzz target `import`: arbitrary bytes, split into up to eight entries, each named after one of
//! the locations and kinds import recognises, must never panic (errors are fine).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lbplan_core::import::{ImportInput, ImportOptions, import_with};

const NAMES: [&str; 16] = [
    "loadbalance/brokers/10.0.0.1:8080",
    "loadbalance/brokers/10.0.0.2:8080",
    "loadbalance/bundle-data/public/default/0x00000000_0x80000000",
    "loadbalance/bundle-data/public/default/0x80000000_0xffffffff",
    "loadbalance/broker-time-average/10.0.0.1:8080",
    "loadbalance/leader",
    "admin/local-policies/public/default",
    "admin/policies/public/default",
    "admin/clusters/c/failureDomain/d",
    "admin/clusters/c/namespaceIsolationPolicies",
    "conf/broker.conf",
    "topics.txt",
    "snapshot.json",
    "public/default.json",
    "dump.zip",
    "report.json",
];

fuzz_target!(|data: &[u8]| {
    // Entries are separated by 0xFF (never valid UTF-8, so it cannot hide inside text); the first
    // byte of each chunk picks its name.
    let inputs: Vec<ImportInput<'_>> = data
        .split(|&b| b == 0xFF)
        .take(8)
        .filter_map(|chunk| {
            let (&pick, rest) = chunk.split_first()?;
            Some(ImportInput::given(NAMES[usize::from(pick) % NAMES.len()], rest))
        })
        .collect();
    let opts = ImportOptions {
        max_file_bytes: 1 << 20,
        max_total_bytes: 8 << 20,
        max_entries: 1000,
        max_json_values: 10_000,
    };
    let _ = import_with(&inputs, &opts);
});
