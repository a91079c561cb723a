//! One test per row of the release table (`lbplan_core::release::CHANGES`) that changes a
//! decision: the same input decided on both sides of the row's first release. The numbers are
//! worked from Pulsar's code on each side (the release branches' `AvgShedder`, `UniformLoadShedder`,
//! `NamespaceService` patterns), quoted in each test.

use lbplan_core::config::{LoadBalancerConfig, Profile, UNIFORM_LOAD_SHEDDER};
use lbplan_core::model::{BundleData, LocalBrokerData, ResourceUsage, TimeAverageMessageData};
use lbplan_core::modular::shedding::{AvgShedder, UniformLoadShedder};
use lbplan_core::modular::{BrokerData, LoadData, LoadSheddingStrategy};

fn profile(v: &str) -> Profile {
    Profile::parse(v).unwrap()
}

fn bundle(rate: f64) -> BundleData {
    BundleData {
        short_term_data: TimeAverageMessageData {
            msg_rate_in: rate / 2.0,
            msg_rate_out: rate / 2.0,
            ..TimeAverageMessageData::with_defaults(10)
        },
        ..BundleData::default()
    }
}

/// A broker: name, cpu %, msg rate in (= out), its bundles with their rate (in + out).
type BrokerRow<'a> = (&'a str, f64, f64, &'a [(&'a str, f64)]);

/// Brokers in iteration order.
fn cluster(brokers: &[BrokerRow<'_>]) -> LoadData {
    let mut data = LoadData::default();
    for (name, cpu, rate, bundles) in brokers {
        let local = LocalBrokerData {
            cpu: ResourceUsage::new(*cpu, 100.0),
            msg_rate_in: *rate,
            msg_rate_out: *rate,
            bundles: bundles.iter().map(|(b, _)| b.to_string()).collect(),
            ..LocalBrokerData::default()
        };
        data.brokers.insert(
            name.to_string(),
            BrokerData {
                local,
                ..BrokerData::default()
            },
        );
        for (b, r) in *bundles {
            data.bundle_data.insert(b.to_string(), bundle(*r));
        }
    }
    data
}

/// Runs AvgShedder `cycles` times (its hit counters need two cycles at a high gap) and returns
/// the last cycle's (broker, bundle) selections.
fn avg_shed(version: &str, data: &LoadData, cycles: usize) -> Vec<(String, String)> {
    let p = profile(version);
    let cfg = LoadBalancerConfig::for_profile(p);
    let mut s = AvgShedder::new(p);
    let mut last = Vec::new();
    for _ in 0..cycles {
        last = s.find_bundles_for_unloading(data, &cfg);
    }
    last.into_iter().map(|x| (x.broker, x.bundle)).collect()
}

/// apache/pulsar#24954 (4.0.8, 4.1.2, 4.2.0). Scores (cpu %) 52.5, 52.0, 10.0 for b1, b2, b3 in
/// iteration order. Exact order [b3, b2, b1]: b1 pairs with b3 (gap 42.5 ≥ 40) and sheds. Before the
/// fix, `(int)(52.0 - 52.5) = 0`: TimSort's first run is [b1, b2], binary insertion puts b3 (its
/// `(int)` differences are −42) first → [b3, b1, b2]: b2 pairs with b3 (gap 42.0 ≥ 40) and sheds.
#[test]
fn avg_shedder_comparator_24954() {
    let data = cluster(&[
        (
            "b1:8080",
            52.5,
            15000.0,
            &[("t/ns/0x00000000_0x80000000", 2000.0)],
        ),
        (
            "b2:8080",
            52.0,
            15000.0,
            &[("t/ns/0x80000000_0xffffffff", 2000.0)],
        ),
        ("b3:8080", 10.0, 1500.0, &[]),
    ]);
    for before in ["4.0.0", "4.0.7", "4.1.1"] {
        assert_eq!(
            avg_shed(before, &data, 2),
            [(
                "b2:8080".to_string(),
                "t/ns/0x80000000_0xffffffff".to_string()
            )],
            "{before}"
        );
    }
    for after in ["4.0.8", "4.1.2", "4.2.0", "5.0.0", "master-90cba329"] {
        assert_eq!(
            avg_shed(after, &data, 2),
            [(
                "b1:8080".to_string(),
                "t/ns/0x00000000_0x80000000".to_string()
            )],
            "{after}"
        );
    }
}

/// PIP-457 (apache/pulsar#25275 / #25304, 4.2.0, 5.0.0-M1). Before it `SLA_NAMESPACE_PATTERN` is
/// `sla-monitor/[^/]+/([^:]+:\d+)`: a V2 name `sla-monitor/<host:port>` does not match, so its
/// bundle is offered to the shedder; from 4.2.0 it is hidden. AvgShedder, b1 at 90 % cpu with only
/// the SLA bundle (2000 msg/s), b2 at 10 %.
#[test]
fn v2_sla_monitor_names_are_shed_before_pip457() {
    let sla = "sla-monitor/b1:8080/0x00000000_0xffffffff";
    let data = cluster(&[
        ("b1:8080", 90.0, 15000.0, &[(sla, 2000.0)]),
        ("b2:8080", 10.0, 1500.0, &[]),
    ]);
    for before in ["4.0.0", "4.0.14", "4.1.3"] {
        assert_eq!(
            avg_shed(before, &data, 2),
            [("b1:8080".to_string(), sla.to_string())],
            "{before}"
        );
    }
    for after in ["4.2.0", "5.0.0-M1", "master-90cba329"] {
        assert!(avg_shed(after, &data, 2).is_empty(), "{after}");
    }
}

/// apache/pulsar#21906 (4.1.0, 4.2.0, 5.0.0-M1; never 3.x or 4.0). Two brokers at 6000 and
/// 2000 msg/s (in + out): the gap 200 % exceeds loadBalancerMsgRateDifferenceShedderThreshold 50,
/// need = (int)(4000 × 0.2) = 800 msg/s. The busy broker's bundles carry 1500 and 1000 msg/s:
/// 4.0.x takes a bundle `<= need + 1000` (the 1500 one, then the 1000 one no longer fits at
/// −700 + 1000); 4.1.0 takes none.
#[test]
fn uniform_load_shedder_slack_21906() {
    let data = cluster(&[
        (
            "b1:8080",
            50.0,
            3000.0,
            &[
                ("t/ns/0x00000000_0x80000000", 1500.0),
                ("t/ns/0x80000000_0xffffffff", 1000.0),
            ],
        ),
        (
            "b2:8080",
            50.0,
            1000.0,
            &[("t/b/0x00000000_0xffffffff", 10.0)],
        ),
    ]);
    let shed = |v: &str| {
        let p = profile(v);
        let mut cfg = LoadBalancerConfig::for_profile(p);
        cfg.load_balancer_load_shedding_strategy = UNIFORM_LOAD_SHEDDER.to_string();
        cfg.min_unload_message = 100;
        let mut s = UniformLoadShedder::new(p);
        s.find_bundles_for_unloading(&data, &cfg)
            .into_iter()
            .map(|x| x.bundle)
            .collect::<Vec<_>>()
    };
    for before in ["3.0.17", "3.3.9", "4.0.0", "4.0.14"] {
        assert_eq!(shed(before), ["t/ns/0x00000000_0x80000000"], "{before}");
    }
    for after in ["4.1.0", "4.2.0", "5.0.0-M1", "master-90cba329"] {
        assert!(shed(after).is_empty(), "{after}");
    }
}
