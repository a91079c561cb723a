//! What a synthetic cluster is made of: the brokers' hardware and names, the namespaces and their
//! bundle counts, how much of a live export it carries ([`Detail`]) and how traffic is drawn
//! ([`Traffic`]); the named specs (`demo`, `large`, `pr_16059`, `bench`) and their validation.

use super::SyntheticError;

/// One tenant namespace of a synthetic cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceSpec {
    /// `tenant/namespace`.
    pub name: String,
    /// Number of bundles, laid out with the default boundaries for that count.
    pub bundles: u32,
    /// Topics of the namespace, spread evenly over its bundles ([`Traffic::PerNamespace`]).
    pub topics: u32,
    /// Messages per second published into the whole namespace ([`Traffic::PerNamespace`]).
    pub msg_rate_in: f64,
    /// Average payload size in bytes ([`Traffic::PerNamespace`]).
    pub avg_msg_size_bytes: f64,
    /// Consumer fan-out: messages delivered per message published ([`Traffic::PerNamespace`]).
    pub fanout: f64,
}

impl NamespaceSpec {
    /// `count` namespaces `tenant-<n % tenants>/ns-<nnnn>` of `bundles` bundles each, for a
    /// traffic model that draws every bundle's own traffic ([`Traffic::LogUniform`]).
    pub fn numbered(count: u32, tenants: u32, bundles: u32) -> Vec<Self> {
        (0..count)
            .map(|n| Self {
                name: format!("tenant-{}/ns-{n:04}", n % tenants.max(1)),
                bundles,
                topics: 0,
                msg_rate_in: 0.0,
                avg_msg_size_bytes: 0.0,
                fanout: 0.0,
            })
            .collect()
    }
}

/// A broker that receives more bundles than its fair share (the situation shedding exists for).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HotBroker {
    /// Index of the broker (0-based, in broker order).
    pub index: u32,
    /// Probability that a bundle is placed on the hot broker before the uniform pick.
    pub extra_bundle_fraction: f64,
}

/// How much of a live cluster's export the snapshot carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// What an import of a live cluster gives: a heartbeat namespace per broker (`pulsar/<id>`,
    /// on its own broker), the leader's `TimeAverageBrokerData`, `loadManagerClassName` in the
    /// reports, and the NIC speed as `loadBalancerOverrideBrokerNicSpeedGbps` in `broker.conf`.
    Full,
    /// The tenant bundles and the brokers' load numbers only (the simulator's built-in clusters:
    /// the leader derives the rest).
    Bare,
}

/// Traffic spread from each namespace's own totals (the dashboard's demo, the large benchmark
/// cluster): a heavy tail of hot bundles, measurement noise on every sample, cpu that follows the
/// work a broker does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerNamespace {
    /// 0: the bundles of a namespace carry equal traffic; larger: a heavier tail of hot bundles.
    pub skew: f64,
    pub hot_broker: Option<HotBroker>,
    /// Average cpu use over the brokers, as a fraction of the limit; each broker scales with its
    /// traffic, so the hot broker ends above it.
    pub target_avg_cpu_fraction: f64,
}

/// Every bundle's own message rate and message size, log-uniform and independent (so a broker's
/// message rate says little about its NIC usage), scaled so the NIC is the binding resource
/// (apache/pulsar#16059; the simulation benchmark). Exact values, no measurement noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogUniform {
    /// Brokers `0..hot_brokers` start with `hot_share` times the others' share of bundles.
    pub hot_brokers: u32,
    pub hot_share: f64,
    /// Message sizes are log-uniform in `[min_msg_bytes, max_msg_bytes]`.
    pub min_msg_bytes: f64,
    pub max_msg_bytes: f64,
    /// Traffic is scaled so the average broker's `bandwidthOut` usage is this fraction.
    pub mean_bandwidth_out_fraction: f64,
    /// No bundle carries more than this (in + out), to stay under the auto-split bandwidth limit.
    pub max_bundle_mib_per_sec: f64,
}

/// How the bundles' traffic and the brokers' usage are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Traffic {
    PerNamespace(PerNamespace),
    LogUniform(LogUniform),
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    pub cluster: String,
    pub brokers: u32,
    /// Broker hosts are `broker-<i>.<broker_domain>.svc`, `<i>` zero-padded to the digits of the
    /// last index and at least `broker_digits`.
    pub broker_domain: String,
    pub broker_digits: usize,
    /// Cores per broker: the cpu limit is `100 × cores` (§1).
    pub cores_per_broker: u32,
    /// One NIC of this speed per broker.
    pub nic_speed_gbps: u32,
    pub heap_mib: f64,
    pub direct_memory_mib: f64,
    pub web_service_port: u16,
    pub broker_version: String,
    pub namespaces: Vec<NamespaceSpec>,
    pub detail: Detail,
    pub traffic: Traffic,
    /// The snapshot's capture instant; report timestamps are at or a few seconds before it.
    pub captured_at_ms: i64,
}

impl SyntheticSpec {
    /// The dashboard's demo: 12 brokers, 3 tenants, 5 namespaces of 4 to 64 bundles, one hot broker.
    pub fn demo() -> Self {
        let ns =
            |name: &str, bundles, topics, msg_rate_in, avg_msg_size_bytes, fanout| NamespaceSpec {
                name: name.to_string(),
                bundles,
                topics,
                msg_rate_in,
                avg_msg_size_bytes,
                fanout,
            };
        Self {
            cluster: "demo".to_string(),
            brokers: 12,
            broker_domain: "demo".to_string(),
            broker_digits: 2,
            cores_per_broker: 8,
            nic_speed_gbps: 2,
            heap_mib: 4096.0,
            direct_memory_mib: 4096.0,
            web_service_port: 8080,
            broker_version: "4.0.7".to_string(),
            namespaces: vec![
                ns("acme/orders", 16, 400, 20_000.0, 1024.0, 2.0),
                ns("acme/payments", 8, 64, 5_000.0, 512.0, 3.0),
                ns("globex/telemetry", 64, 2_000, 60_000.0, 300.0, 1.0),
                ns("globex/clickstream", 32, 800, 30_000.0, 2048.0, 1.5),
                ns("initech/billing", 4, 20, 1_000.0, 4096.0, 2.0),
            ],
            detail: Detail::Full,
            traffic: Traffic::PerNamespace(PerNamespace {
                skew: 1.0,
                hot_broker: Some(HotBroker {
                    index: 4,
                    extra_bundle_fraction: 0.15,
                }),
                target_avg_cpu_fraction: 0.35,
            }),
            // 2026-11-30T00:00:00Z: a fixed instant, so the demo never changes by itself.
            captured_at_ms: 1_796_083_200_000,
        }
    }

    /// A benchmark-sized cluster: 1,000 brokers and 200,000 bundles in total (1,000 namespaces of
    /// 199 bundles in 20 tenants, plus one heartbeat bundle per broker).
    pub fn large() -> Self {
        let mut namespaces = Vec::with_capacity(1_000);
        for t in 0..20 {
            for n in 0..50 {
                namespaces.push(NamespaceSpec {
                    name: format!("tenant-{t:02}/ns-{n:02}"),
                    bundles: 199,
                    topics: 796,
                    msg_rate_in: 10_000.0,
                    avg_msg_size_bytes: 1024.0,
                    fanout: 1.5,
                });
            }
        }
        Self {
            cluster: "large".to_string(),
            brokers: 1_000,
            broker_domain: "large".to_string(),
            cores_per_broker: 16,
            nic_speed_gbps: 10,
            heap_mib: 8192.0,
            direct_memory_mib: 8192.0,
            namespaces,
            traffic: Traffic::PerNamespace(PerNamespace {
                skew: 1.0,
                hot_broker: Some(HotBroker {
                    index: 0,
                    extra_bundle_fraction: 0.001,
                }),
                target_avg_cpu_fraction: 0.4,
            }),
            ..Self::demo()
        }
    }

    /// The situation of apache/pulsar#16059 / PIP-181: 136 brokers, 4,352 bundles with message
    /// sizes from 200 B to 200 KB, 14 brokers starting with twice the bundles of the others.
    pub fn pr_16059() -> Self {
        Self {
            cluster: "synthetic".to_string(),
            brokers: 136,
            broker_domain: "pulsar".to_string(),
            broker_digits: 4,
            cores_per_broker: 16,
            nic_speed_gbps: 10,
            heap_mib: 8192.0,
            direct_memory_mib: 8192.0,
            web_service_port: 8080,
            broker_version: "4.0.5".to_string(),
            namespaces: NamespaceSpec::numbered(68, 10, 64),
            detail: Detail::Bare,
            traffic: Traffic::LogUniform(LogUniform {
                hot_brokers: 14,
                hot_share: 2.0,
                min_msg_bytes: 200.0,
                max_msg_bytes: 200.0 * 1024.0,
                mean_bandwidth_out_fraction: 0.45,
                max_bundle_mib_per_sec: 80.0,
            }),
            captured_at_ms: 1_750_000_000_000,
        }
    }

    /// The simulation benchmark's size: 100 brokers and 10,000 bundles (625 namespaces of 16).
    pub fn bench() -> Self {
        Self {
            brokers: 100,
            namespaces: NamespaceSpec::numbered(625, 10, 16),
            traffic: Traffic::LogUniform(LogUniform {
                hot_brokers: 10,
                hot_share: 2.0,
                min_msg_bytes: 256.0,
                max_msg_bytes: 64.0 * 1024.0,
                mean_bandwidth_out_fraction: 0.45,
                max_bundle_mib_per_sec: 80.0,
            }),
            ..Self::pr_16059()
        }
    }

    /// The spec for a name accepted by `lbplan generate --spec`.
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "demo" => Some(Self::demo()),
            "large" => Some(Self::large()),
            "pr-16059" => Some(Self::pr_16059()),
            "bench" => Some(Self::bench()),
            _ => None,
        }
    }

    /// The names [`Self::by_name`] accepts.
    pub const NAMES: &'static [&'static str] = &["demo", "large", "pr-16059", "bench"];

    pub(super) fn validate(&self) -> Result<(), SyntheticError> {
        if self.brokers == 0 {
            return Err(SyntheticError::NoBrokers);
        }
        if !is_dns_name(&self.broker_domain) {
            return Err(SyntheticError::BadBrokerDomain(self.broker_domain.clone()));
        }
        match &self.traffic {
            Traffic::PerNamespace(t) => {
                if let Some(hot) = t.hot_broker {
                    if hot.index >= self.brokers {
                        return Err(SyntheticError::HotBrokerOutOfRange {
                            index: hot.index,
                            brokers: self.brokers,
                        });
                    }
                    check_number(
                        "hot_broker.extra_bundle_fraction",
                        hot.extra_bundle_fraction,
                    )?;
                }
                check_number("skew", t.skew)?;
                check_number("target_avg_cpu_fraction", t.target_avg_cpu_fraction)?;
            }
            Traffic::LogUniform(t) => {
                check_number("hot_share", t.hot_share)?;
                check_number("min_msg_bytes", t.min_msg_bytes)?;
                check_number("max_msg_bytes", t.max_msg_bytes)?;
                check_number("mean_bandwidth_out_fraction", t.mean_bandwidth_out_fraction)?;
                check_number("max_bundle_mib_per_sec", t.max_bundle_mib_per_sec)?;
            }
        }
        check_number("heap_mib", self.heap_mib)?;
        check_number("direct_memory_mib", self.direct_memory_mib)?;
        let mut seen = std::collections::HashSet::new();
        for ns in &self.namespaces {
            let mut parts = ns.name.split('/');
            let well_formed = matches!(
                (parts.next(), parts.next(), parts.next()),
                (Some(t), Some(n), None) if !t.is_empty() && !n.is_empty()
            );
            if !well_formed {
                return Err(SyntheticError::BadNamespace(ns.name.clone()));
            }
            if ns.bundles == 0 {
                return Err(SyntheticError::NoBundles(ns.name.clone()));
            }
            if !seen.insert(ns.name.as_str()) {
                return Err(SyntheticError::DuplicateNamespace(ns.name.clone()));
            }
            check_number("msg_rate_in", ns.msg_rate_in)?;
            check_number("avg_msg_size_bytes", ns.avg_msg_size_bytes)?;
            check_number("fanout", ns.fanout)?;
        }
        Ok(())
    }
}

fn check_number(field: &str, value: f64) -> Result<(), SyntheticError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(SyntheticError::BadNumber {
            field: field.to_string(),
            value,
        })
    }
}

/// A host name's domain part as Kubernetes and DNS write it: labels of lowercase letters, digits
/// and inner `-`, joined by `.` (so the generated broker ids are ones a cluster could have).
fn is_dns_name(domain: &str) -> bool {
    !domain.is_empty()
        && domain.len() <= 200
        && domain.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}
