//! The first cycle of a noise-free simulation is the plan. The same leader looks at the same
//! data, so `lbplan simulate` with the issue's scenario
//! (`{"format_version": 1, "name": "still", "cycles": 1, "load": {"noise_fraction": 0.0}}`) must make
//! the decisions `lbplan plan` makes on the snapshot: the same unloads to the same destinations, the
//! same splits at the same cut points, for the same reasons.
//!
//! The snapshots are generated (`synthetic::generate`) with and without the brokers' `lastStats`
//! (Pulsar's `BundleSplitterTask` and shedders read `lastStats`: without it nothing is split), with
//! split candidates (a topic limit the generated bundles exceed), a namespace isolation policy and
//! an anti-affinity group; and under several shedding / placement strategies and seeds.

use lbplan_core::config::{OVERLOAD_SHEDDER, THRESHOLD_SHEDDER};
use lbplan_core::model::{AutoFailoverPolicy, NamespaceIsolationPolicy, Snapshot};
use lbplan_core::plan::{PlanRequest, make_plan};
use lbplan_core::simulate::{
    CycleDecision, OwnershipChange, RunConfig, RunOptions, Scenario, simulate,
};
use lbplan_core::synthetic::{SyntheticSpec, generate};

/// The scenario of the issue, verbatim.
const STILL: &str =
    r#"{"format_version": 1, "name": "still", "cycles": 1, "load": {"noise_fraction": 0.0}}"#;

const UNIFORM_SHEDDER: &str = "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder";
const LEAST_RESOURCE_USAGE: &str =
    "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight";

/// What a cycle decided, in order: unloads `(bundle, destination)`, splits `(bundle, cut points)`.
#[derive(Debug, PartialEq)]
struct Decided {
    unloads: Vec<(String, String)>,
    splits: Vec<(String, Vec<u32>)>,
    /// `(bundle, reason)` of every unload then every split.
    reasons: Vec<(String, String)>,
}

fn planned(snapshot: &Snapshot, settings: &[(String, String)], seed: u64) -> Decided {
    let req = PlanRequest {
        settings: settings.to_vec(),
        seed,
        outlook_cycles: 0,
        ..PlanRequest::leader_cycle()
    };
    let plan = make_plan(snapshot, &req).expect("plan");
    let unloads: Vec<(String, String)> = plan
        .unloads
        .iter()
        .map(|u| (u.bundle.clone(), u.to.clone().unwrap_or_default()))
        .collect();
    let splits = plan
        .splits
        .iter()
        .map(|s| (s.bundle.clone(), s.boundaries.clone()))
        .collect();
    let reasons = plan
        .unloads
        .iter()
        .map(|u| (u.bundle.clone(), u.reason_text.clone()))
        .chain(
            plan.splits
                .iter()
                .map(|s| (s.bundle.clone(), s.reason_text.clone())),
        )
        .collect();
    Decided {
        unloads,
        splits,
        reasons,
    }
}

fn simulated(snapshot: &Snapshot, settings: &[(String, String)], seed: u64) -> Decided {
    let mut scenario = Scenario::from_json_text(STILL).expect("the issue's scenario parses");
    scenario.settings = settings.to_vec();
    let opts = RunOptions {
        cycles: scenario.cycles.unwrap_or(1),
        seed,
        record_broker_usage: false,
        record_ownership: true,
    };
    let run = simulate(
        snapshot,
        &scenario,
        &RunConfig::default(),
        opts,
        &mut |_, _| true,
    )
    .expect("simulation");
    let first = run.cycles.first().expect("one cycle");
    let mut unloads = Vec::new();
    let mut splits = Vec::new();
    for change in &first.ownership {
        match change {
            OwnershipChange::Owner { bundle, broker } => {
                unloads.push((bundle.clone(), broker.clone().unwrap_or_default()));
            }
            OwnershipChange::Split { bundle, cut_points } => {
                splits.push((bundle.clone(), cut_points.clone()));
            }
        }
    }
    let reasons = first
        .decisions
        .iter()
        .map(|d: &CycleDecision| (d.bundle.clone(), d.reason.clone()))
        .collect();
    Decided {
        unloads,
        splits,
        reasons,
    }
}

fn small_spec() -> SyntheticSpec {
    SyntheticSpec {
        brokers: 6,
        ..SyntheticSpec::demo()
    }
}

fn without_last_stats(mut s: Snapshot) -> Snapshot {
    for b in s.brokers.values_mut() {
        b.local_broker_data.last_stats.clear();
    }
    s
}

fn with_isolation(mut s: Snapshot) -> Snapshot {
    s.namespace_isolation_policies.insert(
        "orders-on-three".to_string(),
        NamespaceIsolationPolicy {
            namespaces: vec!["acme/orders".to_string()],
            primary: vec!["broker-0[0-2].demo.svc".to_string()],
            secondary: vec!["broker-0[3-4].demo.svc".to_string()],
            auto_failover_policy: Some(AutoFailoverPolicy {
                policy_type: "min_available".to_string(),
                parameters: [("min_limit", "1"), ("usage_threshold", "80")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
        },
    );
    s
}

fn with_anti_affinity(mut s: Snapshot) -> Snapshot {
    for ns in ["acme/payments", "initech/billing"] {
        if let Some(n) = s.namespaces.get_mut(ns) {
            n.anti_affinity_group = Some("spread".to_string());
        }
    }
    s
}

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Settings that make the generated bundles split candidates: `acme/orders` has 25 topics per
/// bundle (400 over 16), `globex/clickstream` 25 (800 over 32), above a limit of 20.
fn split_settings() -> Vec<(String, String)> {
    kv(&[("loadBalancerNamespaceBundleMaxTopics", "20")])
}

fn configurations() -> Vec<Vec<(String, String)>> {
    vec![
        Vec::new(),
        kv(&[("loadBalancerLoadPlacementStrategy", LEAST_RESOURCE_USAGE)]),
        kv(&[
            ("loadBalancerLoadSheddingStrategy", OVERLOAD_SHEDDER),
            ("loadBalancerBrokerOverloadedThresholdPercentage", "30"),
        ]),
        kv(&[("loadBalancerLoadSheddingStrategy", UNIFORM_SHEDDER)]),
        kv(&[("loadBalancerLoadSheddingStrategy", THRESHOLD_SHEDDER)]),
    ]
}

#[test]
fn the_first_cycle_of_a_noise_free_simulation_is_the_plan() {
    let mut compared = 0;
    let mut with_unloads = 0;
    let mut with_splits = 0;
    for gen_seed in 1..=3u64 {
        let base = generate(&small_spec(), gen_seed).expect("synthetic snapshot");
        let snapshots = [
            ("as generated", base.clone()),
            ("no lastStats", without_last_stats(base.clone())),
            ("isolation", with_isolation(base.clone())),
            ("anti-affinity", with_anti_affinity(base.clone())),
            (
                "isolation, anti-affinity, no lastStats",
                without_last_stats(with_anti_affinity(with_isolation(base.clone()))),
            ),
        ];
        for (what, snapshot) in &snapshots {
            for config in configurations() {
                for extra in [Vec::new(), split_settings()] {
                    let settings: Vec<(String, String)> =
                        config.iter().chain(&extra).cloned().collect();
                    for seed in [0u64, 7] {
                        let plan = planned(snapshot, &settings, seed);
                        let sim = simulated(snapshot, &settings, seed);
                        assert_eq!(
                            sim, plan,
                            "snapshot {gen_seed} ({what}), settings {settings:?}, seed {seed}"
                        );
                        compared += 1;
                        with_unloads += usize::from(!plan.unloads.is_empty());
                        with_splits += usize::from(!plan.splits.is_empty());
                    }
                }
            }
        }
    }
    // The comparison covers cycles that act, not only quiet ones.
    assert!(with_unloads > compared / 4, "{with_unloads} of {compared}");
    assert!(with_splits > compared / 8, "{with_splits} of {compared}");
}

#[test]
fn without_last_stats_the_first_cycle_splits_nothing() {
    // The issue's case: reports without `lastStats` give `BundleSplitterTask` nothing to read.
    let snapshot = without_last_stats(generate(&small_spec(), 1).expect("synthetic snapshot"));
    let settings = split_settings();
    assert!(planned(&snapshot, &settings, 0).splits.is_empty());
    assert!(simulated(&snapshot, &settings, 0).splits.is_empty());
    // With the reports' `lastStats` the same limit does split.
    let with = generate(&small_spec(), 1).expect("synthetic snapshot");
    assert!(!simulated(&with, &settings, 0).splits.is_empty());
}

#[test]
fn the_committed_demo_snapshot_first_cycle_is_the_plan() {
    let text = include_str!("../../../static/demo-snapshot.json");
    let snapshot: Snapshot = serde_json::from_str(text).expect("demo snapshot");
    for settings in configurations() {
        for seed in [0u64, 3] {
            assert_eq!(
                simulated(&snapshot, &settings, seed),
                planned(&snapshot, &settings, seed),
                "settings {settings:?}, seed {seed}"
            );
        }
    }
}

/// Files under `dir`, sorted, named relative to `root` (as `lbplan import DIR` reads a tree).
fn tree_files(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut children: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("corpus directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    children.sort();
    for c in children {
        if c.is_dir() {
            tree_files(root, &c, out);
        } else {
            let name = c
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((name, std::fs::read(&c).expect("corpus file")));
        }
    }
}

fn import_files(files: &[(String, Vec<u8>)]) -> Snapshot {
    use lbplan_core::import::{ImportInput, Origin, import};
    use std::borrow::Cow;
    let inputs: Vec<ImportInput<'_>> = files
        .iter()
        .map(|(n, b)| ImportInput {
            name: Cow::Borrowed(n.as_str()),
            bytes: Cow::Borrowed(b.as_slice()),
            origin: Origin::Tree,
            display: None,
        })
        .collect();
    import(&inputs).expect("import").snapshot
}

#[test]
fn imported_metadata_store_trees_first_cycle_is_the_plan() {
    // A metadata-store tree as `lbplan import` reads it (isolation policies, failure domains,
    // stored bundle data), and a generated one.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/import_corpus");
    let mut files = Vec::new();
    tree_files(&root, &root.join("metadata-store"), &mut files);
    let corpus = import_files(&files);
    let generated = import_files(&lbplan_core::import::store_files::store_files(
        &generate(
            &SyntheticSpec {
                brokers: 8,
                namespaces: lbplan_core::synthetic::NamespaceSpec::numbered(6, 3, 16),
                ..SyntheticSpec::bench()
            },
            3,
        )
        .expect("the spec is valid"),
    ));
    let mut acted = 0;
    for (what, snapshot) in [("corpus", &corpus), ("generated", &generated)] {
        assert!(snapshot.brokers.len() > 1, "{what}");
        for config in configurations() {
            for extra in [Vec::new(), split_settings()] {
                let settings: Vec<(String, String)> =
                    config.iter().chain(&extra).cloned().collect();
                for seed in [0u64, 11] {
                    let plan = planned(snapshot, &settings, seed);
                    assert_eq!(
                        simulated(snapshot, &settings, seed),
                        plan,
                        "{what}, settings {settings:?}, seed {seed}"
                    );
                    acted += usize::from(!plan.unloads.is_empty() || !plan.splits.is_empty());
                }
            }
        }
    }
    // Some of these cycles act (unload or split), so the equality is not only of empty plans.
    assert!(acted > 0);
}
