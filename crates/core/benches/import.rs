//! Import of a large synthetic cluster (`SyntheticSpec::large()`: 1,000 brokers, 200,000 bundles):
//! from its metadata-store files (`import::store_files`: one per broker report, time average,
//! bundle-data node and layout) and from the snapshot JSON it produces.
//! Run with `cargo bench -p lbplan-core --bench import`; the target is under 1 s each, native.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use lbplan_core::import::store_files::store_files;
use lbplan_core::import::{ImportInput, import};
use lbplan_core::model::Snapshot;
use lbplan_core::synthetic::{SyntheticSpec, generate};

fn bench_import(c: &mut Criterion) {
    let files = store_files(&generate(&SyntheticSpec::large(), 0).expect("synthetic cluster"));
    let inputs: Vec<ImportInput<'_>> = files
        .iter()
        .map(|(n, b)| ImportInput::in_tree(n.as_str(), b.as_slice()))
        .collect();
    let total: usize = files.iter().map(|(_, b)| b.len()).sum();
    let snapshot = import(&inputs).expect("synthetic cluster imports").snapshot;
    assert_eq!(snapshot.brokers.len(), 1000);
    assert_eq!(snapshot.bundle_data.len(), 200_000);
    let json = serde_json::to_vec(&snapshot).expect("serializes");
    eprintln!(
        "synthetic cluster: {} files, {} MB; snapshot {} MB",
        files.len(),
        total / 1_000_000,
        json.len() / 1_000_000
    );

    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("metadata_store_1000_brokers_200k_bundles", |b| {
        b.iter(|| import(&inputs).expect("imports"))
    });
    let snap_input = [ImportInput::given("snapshot.json", json.as_slice())];
    group.bench_function("snapshot_json_1000_brokers_200k_bundles", |b| {
        b.iter(|| import(&snap_input).expect("imports"))
    });
    // What the outline pass (`detect::peek`) costs on that file: one serde_json pass skipping
    // every value, which is what it does below the top level (see import/mod.rs on the passes).
    group.bench_function("snapshot_json_skip_pass", |b| {
        b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(&json).expect("valid JSON"))
    });
    // The floor for reading a snapshot: serde_json's own typed parse of the same text into
    // the same `Snapshot`, without the importer's validation, warnings and JSON paths.
    group.bench_function("snapshot_json_serde_typed_parse", |b| {
        b.iter(|| serde_json::from_slice::<Snapshot>(&json).expect("valid snapshot"))
    });
    group.finish();
}

criterion_group!(benches, bench_import);
criterion_main!(benches);
