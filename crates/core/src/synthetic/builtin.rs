//! The built-in clusters a snapshot argument can name (`builtin:demo`, `builtin:pr-16059`,
//! `builtin:bench`): generated specs with fixed seeds. `builtin:demo` is the dashboard's demo, the
//! cluster committed as `static/demo-snapshot.json`.

use crate::model::Snapshot;

use super::spec::SyntheticSpec;
use super::{DEMO_SEED, generate};

/// Seeds of the other built-in clusters.
const PR_16059_SEED: u64 = 16059;
const BENCH_SEED: u64 = 7;

pub const BUILTIN_SNAPSHOTS: &[&str] = &["demo", "pr-16059", "bench"];

/// How a built-in snapshot is written where a snapshot is expected (a CLI argument, a scenario's
/// `snapshot`, the JS API's `snapshot`).
pub const BUILTIN_PREFIX: &str = "builtin:";

/// `builtin:NAME` snapshots by name.
pub fn builtin_snapshot(name: &str) -> Option<Snapshot> {
    let (spec, seed) = match name {
        "demo" => (SyntheticSpec::demo(), DEMO_SEED),
        "pr-16059" => (SyntheticSpec::pr_16059(), PR_16059_SEED),
        "bench" => (SyntheticSpec::bench(), BENCH_SEED),
        _ => return None,
    };
    // The built-in specs are valid (tested), so this never drops an error.
    generate(&spec, seed).ok()
}

/// A `builtin:NAME` reference that names no built-in snapshot.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "unknown built-in snapshot `{reference}` (expected {})",
    builtin_snapshot_references()
)]
pub struct UnknownBuiltinSnapshot {
    pub reference: String,
}

/// `builtin:demo, builtin:pr-16059, builtin:bench`.
pub fn builtin_snapshot_references() -> String {
    BUILTIN_SNAPSHOTS
        .iter()
        .map(|n| format!("{BUILTIN_PREFIX}{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The NAME of a `builtin:NAME` reference; `None` when the text is not one (a file, an object).
pub fn builtin_snapshot_name(reference: &str) -> Option<&str> {
    reference.strip_prefix(BUILTIN_PREFIX)
}

/// Resolves a `builtin:NAME` reference to its snapshot. Text without the prefix is `Ok(None)`: the
/// caller reads it as whatever else it accepts (a path, an object).
pub fn resolve_builtin_snapshot(
    reference: &str,
) -> Result<Option<Snapshot>, UnknownBuiltinSnapshot> {
    match builtin_snapshot_name(reference) {
        None => Ok(None),
        Some(name) => builtin_snapshot(name)
            .map(Some)
            .ok_or_else(|| UnknownBuiltinSnapshot {
                reference: reference.escape_default().to_string(),
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO_FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../static/demo-snapshot.json"
    );

    /// `builtin:demo` is the cluster the dashboard shows: the committed file, read by the importer.
    #[test]
    fn builtin_demo_is_the_committed_demo_snapshot() {
        let text = std::fs::read_to_string(DEMO_FILE)
            .unwrap_or_else(|e| panic!("cannot read {DEMO_FILE}: {e}"));
        let committed = crate::import::read_snapshot("demo-snapshot.json", &text)
            .unwrap()
            .snapshot;
        let builtin = resolve_builtin_snapshot("builtin:demo").unwrap().unwrap();
        assert!(
            builtin == committed,
            "builtin:demo differs from {DEMO_FILE}"
        );
        assert_eq!(builtin.brokers.len(), 12);
    }

    #[test]
    fn every_builtin_generates() {
        for name in BUILTIN_SNAPSHOTS {
            assert!(builtin_snapshot(name).is_some(), "{name}");
        }
    }

    #[test]
    fn builtin_references_resolve_or_name_the_choices() {
        assert_eq!(resolve_builtin_snapshot("snapshots/prod.json"), Ok(None));
        assert_eq!(builtin_snapshot_name("builtin:pr-16059"), Some("pr-16059"));
        let e = resolve_builtin_snapshot("builtin:nope").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown built-in snapshot `builtin:nope` (expected builtin:demo, builtin:pr-16059, builtin:bench)"
        );
    }

    /// The simulator's clusters keep their published shapes: the README's pr-16059 table is about
    /// 136 brokers and 4,352 bundles, the benchmark's about 100 and 10,000.
    #[test]
    fn simulator_clusters_have_their_published_sizes() {
        for (name, brokers, bundles) in [("pr-16059", 136, 4_352), ("bench", 100, 10_000)] {
            let s = builtin_snapshot(name).unwrap();
            assert_eq!(s.brokers.len(), brokers, "{name}");
            assert_eq!(s.bundle_data.len(), bundles, "{name}");
            let owned: usize = s
                .brokers
                .values()
                .map(|b| b.local_broker_data.bundles.len())
                .sum();
            assert_eq!(owned, bundles, "{name}");
        }
    }
}
