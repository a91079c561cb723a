//! Properties of the four modular shedding strategies on random clusters: no bundle is unloaded
//! twice in a cycle, every unloaded bundle is the broker's own and not recently unloaded,
//! ThresholdShedder never sheds a broker's sole bundle, and equal inputs give equal outputs.

use std::collections::HashSet;

use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::model::{BundleData, LocalBrokerData, ResourceUsage, TimeAverageMessageData};
use lbplan_core::modular::shedding::{LoadSheddingStrategy, SheddingSelection, shedder_by_name};
use lbplan_core::modular::{BrokerData, LoadData};
use proptest::prelude::*;

const STRATEGIES: [&str; 4] = [
    "ThresholdShedder",
    "OverloadShedder",
    "UniformLoadShedder",
    "AvgShedder",
];

#[derive(Clone, Debug)]
struct BundleSpec {
    rate: f64,
    throughput: f64,
    recently_unloaded: bool,
}

#[derive(Clone, Debug)]
struct BrokerSpec {
    cpu_pct: f64,
    bandwidth_pct: f64,
    bundles: Vec<BundleSpec>,
}

fn bundle_spec() -> impl Strategy<Value = BundleSpec> {
    (
        prop_oneof![Just(0.0), 0.0..5000.0_f64],
        prop_oneof![Just(0.0), 0.0..60.0e6_f64],
        prop::bool::weighted(0.1),
    )
        .prop_map(|(rate, throughput, recently_unloaded)| BundleSpec {
            rate,
            throughput,
            recently_unloaded,
        })
}

fn broker_spec() -> impl Strategy<Value = BrokerSpec> {
    (
        prop_oneof![Just(0.0), 0.0..150.0_f64],
        0.0..120.0_f64,
        prop::collection::vec(bundle_spec(), 0..6),
    )
        .prop_map(|(cpu_pct, bandwidth_pct, bundles)| BrokerSpec {
            cpu_pct,
            bandwidth_pct,
            bundles,
        })
}

/// A cluster; broker throughputs and rates are the sums of their bundles, as reports are.
fn load_data(brokers: &[BrokerSpec]) -> LoadData {
    let mut data = LoadData::default();
    for (i, b) in brokers.iter().enumerate() {
        let name = format!("broker-{i}:8080");
        let mut local = LocalBrokerData {
            cpu: ResourceUsage::new(b.cpu_pct, 100.0),
            bandwidth_in: ResourceUsage::new(b.bandwidth_pct * 1000.0, 100_000.0),
            ..LocalBrokerData::default()
        };
        for (j, s) in b.bundles.iter().enumerate() {
            let bundle = format!("t/ns-{i}/0x{j:08x}_0x{:08x}", j + 1);
            local.msg_rate_in += s.rate / 2.0;
            local.msg_rate_out += s.rate / 2.0;
            local.msg_throughput_in += s.throughput / 2.0;
            local.msg_throughput_out += s.throughput / 2.0;
            local.bundles.push(bundle.clone());
            let window = TimeAverageMessageData {
                msg_rate_in: s.rate / 2.0,
                msg_rate_out: s.rate / 2.0,
                msg_throughput_in: s.throughput / 2.0,
                msg_throughput_out: s.throughput / 2.0,
                // Distinct sample counts keep AvgShedder's by-value keys apart.
                num_samples: i32::try_from(j).unwrap_or(0),
                max_samples: 10,
            };
            data.bundle_data.insert(
                bundle.clone(),
                BundleData {
                    short_term_data: window,
                    long_term_data: window,
                    topics: 1,
                },
            );
            if s.recently_unloaded {
                data.recently_unloaded.insert(bundle, 0);
            }
        }
        data.brokers.insert(
            name,
            BrokerData {
                local,
                ..BrokerData::default()
            },
        );
    }
    data
}

fn config(lower_boundary: bool, low_hits: i64) -> LoadBalancerConfig {
    let mut cfg = LoadBalancerConfig::for_profile(Profile::Master90cba329);
    cfg.lower_boundary_shedding_enabled = lower_boundary;
    cfg.load_balancer_bundle_unload_min_throughput_threshold = 1.0;
    cfg.load_balancer_avg_shedder_hit_count_high_threshold = 1;
    cfg.load_balancer_avg_shedder_hit_count_low_threshold = low_hits;
    cfg.min_unload_message = 100;
    cfg.min_unload_message_throughput = 1024;
    cfg
}

/// Runs `cycles` (a sequence of clusters) on one fresh instance of `name`.
fn run(
    name: &str,
    profile: Profile,
    cfg: &LoadBalancerConfig,
    cycles: &[LoadData],
) -> Vec<Vec<SheddingSelection>> {
    let mut s: Box<dyn LoadSheddingStrategy> = match shedder_by_name(name, profile) {
        Some(s) => s,
        None => panic!("no strategy {name}"),
    };
    cycles
        .iter()
        .map(|d| s.find_bundles_for_unloading(d, cfg))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn no_bundle_twice_and_only_own_fresh_bundles(
        first in prop::collection::vec(broker_spec(), 1..7),
        second in prop::collection::vec(broker_spec(), 1..7),
        lower_boundary in any::<bool>(),
        low_hits in 1_i64..3,
    ) {
        let cfg = config(lower_boundary, low_hits);
        let cycles = [load_data(&first), load_data(&second), load_data(&first)];
        for profile in Profile::ALL {
            for name in STRATEGIES {
                for (c, decisions) in run(name, profile, &cfg, &cycles).iter().enumerate() {
                    let data = &cycles[c];
                    let mut seen = HashSet::new();
                    for d in decisions {
                        prop_assert!(seen.insert(d.bundle.clone()),
                            "{name}/{profile}: {} unloaded twice in cycle {c}", d.bundle);
                        let owner = data.brokers.get(&d.broker);
                        prop_assert!(owner.is_some_and(|b| b.local.bundles.contains(&d.bundle)),
                            "{name}: {} is not on {}", d.bundle, d.broker);
                        prop_assert!(!data.recently_unloaded.contains_key(&d.bundle),
                            "{name}: {} was recently unloaded", d.bundle);
                    }
                }
            }
        }
    }

    #[test]
    fn threshold_shedder_never_sheds_a_sole_bundle(
        first in prop::collection::vec(broker_spec(), 1..7),
        second in prop::collection::vec(broker_spec(), 1..7),
        lower_boundary in any::<bool>(),
    ) {
        let cfg = config(lower_boundary, 2);
        let cycles = [load_data(&first), load_data(&second)];
        for (c, decisions) in run("ThresholdShedder", Profile::Pulsar4x, &cfg, &cycles).iter().enumerate() {
            for d in decisions {
                let n = cycles[c].brokers.get(&d.broker).map_or(0, |b| b.local.bundles.len());
                prop_assert!(n > 1, "cycle {c}: {} shed from {} which has {n} bundle(s)", d.bundle, d.broker);
            }
        }
    }

    #[test]
    fn same_inputs_same_outputs(
        first in prop::collection::vec(broker_spec(), 1..7),
        second in prop::collection::vec(broker_spec(), 1..7),
        lower_boundary in any::<bool>(),
    ) {
        let cfg = config(lower_boundary, 2);
        let cycles = [load_data(&first), load_data(&second), load_data(&second)];
        for profile in Profile::ALL {
            for name in STRATEGIES {
                let a = run(name, profile, &cfg, &cycles);
                let b = run(name, profile, &cfg, &cycles);
                prop_assert_eq!(a, b);
            }
        }
    }
}
