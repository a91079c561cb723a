//! Deterministic synthetic clusters, one generator for all of them: the dashboard's demo
//! (committed as `static/demo-snapshot.json`, and `builtin:demo`), the simulator's built-in
//! clusters (`builtin:pr-16059`, `builtin:bench`) and the benchmarks' large cluster, each a
//! [`SyntheticSpec`] and a seed.
//!
//! `spec` says what a cluster is made of; `cluster` is the one skeleton (broker names, bundle
//! tiling, the consistent report / `BundleData` / time-average derivation); `per_namespace` and
//! `log_uniform` are the two traffic models a spec chooses between; `builtin` names the built-in
//! clusters. The same (spec, seed) gives the same bytes on every machine, natively and in wasm:
//! the only transcendental functions are the pure-Rust `libm` crate's. The metadata-store files of
//! a generated cluster are `import::store_files` of its snapshot.

mod builtin;
mod cluster;
mod generated;
mod log_uniform;
mod per_namespace;
pub mod pulsar_metrics;
mod spec;

pub use builtin::{
    BUILTIN_PREFIX, BUILTIN_SNAPSHOTS, UnknownBuiltinSnapshot, builtin_snapshot,
    builtin_snapshot_name, builtin_snapshot_references, resolve_builtin_snapshot,
};
pub use cluster::generate;
pub use spec::{
    Detail, HotBroker, LogUniform, NamespaceSpec, PerNamespace, SyntheticSpec, Traffic,
};

use crate::model::Snapshot;

/// Seed of the committed demo snapshot (`static/demo-snapshot.json`, `builtin:demo`).
pub const DEMO_SEED: u64 = 42;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SyntheticError {
    #[error("a synthetic cluster needs at least one broker")]
    NoBrokers,
    #[error("namespace `{0}` is not of the form tenant/namespace")]
    BadNamespace(String),
    #[error("namespace `{0}` needs at least one bundle")]
    NoBundles(String),
    #[error("namespace `{0}` appears twice")]
    DuplicateNamespace(String),
    #[error("hot broker index {index} is out of range (the spec has {brokers} brokers)")]
    HotBrokerOutOfRange { index: u32, brokers: u32 },
    #[error("`{field}` must be a finite number >= 0, found {value}")]
    BadNumber { field: String, value: f64 },
    #[error(
        "broker domain `{0}` is not a DNS name (lowercase letters, digits, `-` and `.` between labels)"
    )]
    BadBrokerDomain(String),
}

/// The demo cluster (`SyntheticSpec::demo()` with [`DEMO_SEED`]).
pub fn demo() -> Result<Snapshot, SyntheticError> {
    generate(&SyntheticSpec::demo(), DEMO_SEED)
}

/// The exact text `lbplan generate` writes: pretty JSON and a final newline.
pub fn to_json(snapshot: &Snapshot) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(snapshot)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::{NamespaceBundleStats, TimeAverageBrokerData};
    use crate::naming::{BundleRange, parse_bundle_name};

    const DEMO_FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../static/demo-snapshot.json"
    );

    fn small_spec() -> SyntheticSpec {
        SyntheticSpec {
            brokers: 3,
            namespaces: vec![NamespaceSpec {
                name: "t/ns".to_string(),
                bundles: 3,
                topics: 7,
                msg_rate_in: 300.0,
                avg_msg_size_bytes: 100.0,
                fanout: 2.0,
            }],
            traffic: Traffic::PerNamespace(PerNamespace {
                skew: 1.0,
                hot_broker: None,
                target_avg_cpu_fraction: 0.35,
            }),
            ..SyntheticSpec::demo()
        }
    }

    /// A small cluster of the simulator's model: log-uniform traffic, bare reports.
    fn small_log_uniform() -> SyntheticSpec {
        SyntheticSpec {
            brokers: 7,
            namespaces: NamespaceSpec::numbered(5, 2, 8),
            ..SyntheticSpec::bench()
        }
    }

    fn per_namespace(spec: &mut SyntheticSpec) -> &mut PerNamespace {
        match &mut spec.traffic {
            Traffic::PerNamespace(t) => t,
            Traffic::LogUniform(_) => panic!("not a per-namespace spec"),
        }
    }

    #[test]
    fn demo_matches_committed_file() {
        let expected = std::fs::read_to_string(DEMO_FILE)
            .unwrap_or_else(|e| panic!("cannot read {DEMO_FILE}: {e}"));
        let generated = to_json(&demo().unwrap()).unwrap();
        assert!(
            generated == expected,
            "static/demo-snapshot.json is stale: regenerate it with \
             `cargo run -p lbplan -- generate --spec demo --seed {DEMO_SEED} -o static/demo-snapshot.json`"
        );
    }

    #[test]
    fn demo_has_the_documented_shape() {
        let snap = demo().unwrap();
        assert_eq!(snap.brokers.len(), 12);
        let tenants: std::collections::BTreeSet<&str> = snap
            .namespaces
            .keys()
            .filter(|n| !n.starts_with("pulsar/"))
            .filter_map(|n| n.split('/').next())
            .collect();
        assert_eq!(tenants.len(), 3);
        let user: Vec<i32> = snap
            .namespaces
            .iter()
            .filter(|(n, _)| !n.starts_with("pulsar/"))
            .map(|(_, ns)| ns.bundles.num_bundles)
            .collect();
        assert_eq!(user.len(), 5);
        assert!(user.iter().all(|n| (4..=64).contains(n)));
        // 12 heartbeat bundles + 16 + 8 + 64 + 32 + 4.
        assert_eq!(snap.bundle_data.len(), 12 + 124);
        for id in snap.brokers.keys() {
            let hb = format!("pulsar/{id}/0x00000000_0xffffffff");
            assert!(snap.brokers[id].local_broker_data.bundles.contains(&hb));
        }
        let version = snap.brokers[0]
            .local_broker_data
            .broker_version_string
            .as_deref();
        assert_eq!(version, Some("4.0.7"));
    }

    #[test]
    fn demo_hot_broker_is_the_most_loaded() {
        let snap = demo().unwrap();
        let w = crate::units::ResourceWeights::PULSAR_DEFAULT;
        let usage: Vec<f64> = snap
            .brokers
            .values()
            .map(|b| b.local_broker_data.max_resource_usage_with_weight(&w))
            .collect();
        let hot = usage[4];
        assert!(usage.iter().all(|u| *u <= hot), "{usage:?}");
        let mean = usage.iter().sum::<f64>() / usage.len() as f64;
        // Enough above the mean for ThresholdShedder's default 10 % band to fire.
        assert!(hot > mean + 0.1, "hot {hot} mean {mean}");
        assert!(hot < 1.0);
    }

    #[test]
    fn same_seed_same_snapshot_other_seed_differs() {
        let a = generate(&SyntheticSpec::demo(), 7).unwrap();
        let b = generate(&SyntheticSpec::demo(), 7).unwrap();
        let c = generate(&SyntheticSpec::demo(), 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    fn check_invariants(snap: &Snapshot) {
        // Bundles tile each namespace: layout boundaries match the bundle names, no gap, no overlap.
        let mut by_ns: BTreeMap<String, Vec<BundleRange>> = BTreeMap::new();
        for name in snap.bundle_data.keys() {
            let b = parse_bundle_name(name).unwrap();
            by_ns.entry(b.namespace).or_default().push(b.range);
        }
        assert_eq!(by_ns.len(), snap.namespaces.len());
        for (ns, mut ranges) in by_ns {
            ranges.sort();
            let layout = &snap.namespaces[&ns].bundles;
            assert_eq!(layout.num_bundles as usize, ranges.len(), "{ns}");
            assert_eq!(ranges.first().unwrap().lo, 0, "{ns}");
            assert_eq!(ranges.last().unwrap().hi, u32::MAX, "{ns}");
            for w in ranges.windows(2) {
                assert_eq!(w[0].hi, w[1].lo, "{ns}: gap or overlap");
            }
            let mut bounds: Vec<String> = ranges
                .iter()
                .map(|r| crate::naming::boundary_text(r.lo))
                .collect();
            bounds.push("0xffffffff".to_string());
            assert_eq!(layout.boundaries, bounds, "{ns}");
        }

        // Every bundle is owned by exactly one broker, and every owned bundle has BundleData.
        let mut owners: BTreeMap<&str, usize> = BTreeMap::new();
        for b in snap.brokers.values() {
            let local = &b.local_broker_data;
            assert_eq!(
                local.bundles,
                local.last_stats.keys().cloned().collect::<Vec<_>>()
            );
            for name in &local.bundles {
                *owners.entry(name.as_str()).or_default() += 1;
                assert!(
                    snap.bundle_data.contains_key(name),
                    "{name} has no BundleData"
                );
            }
        }
        assert_eq!(owners.len(), snap.bundle_data.len());
        assert!(owners.values().all(|n| *n == 1));

        // Sums match: the report's totals are its lastStats sums; the leader's aggregate is the sum
        // of the owned bundles' BundleData.
        for b in snap.brokers.values() {
            let local = &b.local_broker_data;
            let sum = |f: fn(&NamespaceBundleStats) -> f64| -> f64 {
                local.last_stats.values().map(f).sum()
            };
            assert_eq!(local.msg_rate_in, sum(|s| s.msg_rate_in));
            assert_eq!(local.msg_rate_out, sum(|s| s.msg_rate_out));
            assert_eq!(local.msg_throughput_in, sum(|s| s.msg_throughput_in));
            assert_eq!(local.msg_throughput_out, sum(|s| s.msg_throughput_out));
            let topics: i64 = local.last_stats.values().map(|s| s.topics).sum();
            assert_eq!(local.num_topics, topics);
            assert_eq!(local.num_bundles as usize, local.bundles.len());
            let expected = TimeAverageBrokerData::from_bundles(
                local.bundles.iter().map(String::as_str),
                &snap.bundle_data,
            );
            if b.local_broker_data.load_manager_class_name.is_some() {
                // Detail::Full: the leader's aggregate is there too.
                assert_eq!(b.time_average_broker_data, Some(expected));
            } else {
                assert_eq!(b.time_average_broker_data, None);
            }
            // Usage is consistent with traffic: within its limits, ingress on the NIC ≥ payload
            // (to the last bit of the kbps conversion).
            assert!(local.cpu.usage > 0.0 && local.cpu.usage < local.cpu.limit);
            assert!(
                local.bandwidth_in.usage * 1000.0 / 8.0 >= local.msg_throughput_in * (1.0 - 1e-12)
            );
            assert!(local.bandwidth_out.usage >= local.bandwidth_in.usage);
        }

        // BundleData topics equal the reported topics of the same bundle.
        for b in snap.brokers.values() {
            for (name, s) in &b.local_broker_data.last_stats {
                assert_eq!(i64::from(snap.bundle_data[name].topics), s.topics);
            }
        }
    }

    #[test]
    fn demo_invariants_hold() {
        check_invariants(&demo().unwrap());
    }

    #[test]
    fn invariants_hold_for_other_seeds_and_shapes() {
        for seed in 0..5 {
            check_invariants(&generate(&small_spec(), seed).unwrap());
        }
        let mut odd = small_spec();
        odd.namespaces[0].bundles = 5; // not a power of two: the last bundle is a little larger
        odd.namespaces[0].topics = 2; // fewer topics than bundles: idle bundles
        check_invariants(&generate(&odd, 1).unwrap());
        // The simulator's model, bare and with the full detail (heartbeat namespaces, the
        // leader's aggregates).
        for seed in 0..3 {
            check_invariants(&generate(&small_log_uniform(), seed).unwrap());
        }
        let full = SyntheticSpec {
            detail: Detail::Full,
            ..small_log_uniform()
        };
        let snap = generate(&full, 4).unwrap();
        assert_eq!(snap.bundle_data.len(), 5 * 8 + 7);
        check_invariants(&snap);
    }

    /// The log-uniform model scales NIC out to the spec's mean with no bundle over the cap, and
    /// hands the hot brokers more bundles.
    #[test]
    fn log_uniform_meets_its_nic_target_and_cap() {
        let spec = SyntheticSpec::bench();
        let Traffic::LogUniform(model) = spec.traffic else {
            panic!("bench is log-uniform");
        };
        let snap = generate(&spec, 7).unwrap();
        let mean_out = snap
            .brokers
            .values()
            .map(|b| {
                b.local_broker_data.bandwidth_out.usage / b.local_broker_data.bandwidth_out.limit
            })
            .sum::<f64>()
            / snap.brokers.len() as f64;
        assert!(
            (mean_out - model.mean_bandwidth_out_fraction).abs() < 1e-3,
            "{mean_out}"
        );
        let cap = model.max_bundle_mib_per_sec * 1024.0 * 1024.0;
        for b in snap.brokers.values() {
            for s in b.local_broker_data.last_stats.values() {
                assert!(s.total_msg_throughput() <= cap * (1.0 + 1e-9));
            }
        }
        let count = |i: usize| snap.brokers[i].local_broker_data.bundles.len();
        let hot: usize = (0..10).map(count).sum();
        let cold: usize = (10..20).map(count).sum();
        assert!(hot > cold * 3 / 2, "hot {hot} cold {cold}");
    }

    #[test]
    fn topics_spread_over_bundles() {
        let snap = generate(&small_spec(), 3).unwrap();
        let topics: Vec<i32> = snap
            .bundle_data
            .iter()
            .filter(|(n, _)| n.starts_with("t/ns/"))
            .map(|(_, d)| d.topics)
            .collect();
        assert_eq!(topics, vec![3, 2, 2]);
    }

    #[test]
    fn bad_specs_are_rejected() {
        let mut s = small_spec();
        s.brokers = 0;
        assert_eq!(generate(&s, 0), Err(SyntheticError::NoBrokers));
        let mut s = small_spec();
        s.namespaces[0].bundles = 0;
        assert!(matches!(generate(&s, 0), Err(SyntheticError::NoBundles(_))));
        let mut s = small_spec();
        s.namespaces[0].name = "no-slash".to_string();
        assert!(matches!(
            generate(&s, 0),
            Err(SyntheticError::BadNamespace(_))
        ));
        let mut s = small_spec();
        per_namespace(&mut s).hot_broker = Some(HotBroker {
            index: 3,
            extra_bundle_fraction: 0.5,
        });
        assert!(matches!(
            generate(&s, 0),
            Err(SyntheticError::HotBrokerOutOfRange { .. })
        ));
        let mut s = small_spec();
        per_namespace(&mut s).skew = f64::NAN;
        assert!(matches!(
            generate(&s, 0),
            Err(SyntheticError::BadNumber { .. })
        ));
    }

    #[test]
    fn large_spec_has_the_documented_size() {
        let s = SyntheticSpec::large();
        let user: u32 = s.namespaces.iter().map(|n| n.bundles).sum();
        assert_eq!(s.brokers, 1_000);
        assert_eq!(user + s.brokers, 200_000);
    }
}
