//! The metadata-store layout a snapshot can be read from, in one place: the paths Pulsar keeps its
//! load-balancing nodes at (reference §3: `/loadbalance/brokers/<brokerId>`,
//! `/loadbalance/bundle-data/<tenant>/<ns>/<range>`, `/loadbalance/broker-time-average/<brokerId>`,
//! `/loadbalance/leader`, `/admin/policies/<tenant>/<ns>`, `/admin/local-policies/<tenant>/<ns>`,
//! `/admin/clusters/<cluster>/failureDomain/<domain>`, `/admin/clusters/<cluster>/namespaceIsolationPolicies`),
//! plus the two files of ours beside them (`broker.conf`, `topics/<tenant>/<ns>.json`). The path
//! builders are what `lbplan collect` and the synthetic tree write; [`locate`] is how the importer
//! recognises them, so a path one side writes is always one the other reads.

/// `broker.conf` at the root of a collection (`key=value` lines).
pub const BROKER_CONF: &str = "broker.conf";
/// `/loadbalance/leader`.
pub const LEADER: &str = "loadbalance/leader";

/// `/loadbalance/brokers/<brokerId>`.
pub fn broker_path(broker_id: &str) -> String {
    format!("loadbalance/brokers/{broker_id}")
}

/// `/loadbalance/bundle-data/<tenant>/<ns>/<range>`, from the full bundle name.
pub fn bundle_data_path(bundle: &str) -> String {
    format!("loadbalance/bundle-data/{bundle}")
}

/// `/loadbalance/broker-time-average/<brokerId>`.
pub fn time_average_path(broker_id: &str) -> String {
    format!("loadbalance/broker-time-average/{broker_id}")
}

/// `/admin/policies/<tenant>/<ns>`.
pub fn policies_path(namespace: &str) -> String {
    format!("admin/policies/{namespace}")
}

/// `/admin/local-policies/<tenant>/<ns>`.
pub fn local_policies_path(namespace: &str) -> String {
    format!("admin/local-policies/{namespace}")
}

/// `/admin/clusters/<cluster>/failureDomain/<domain>`.
pub fn failure_domain_path(cluster: &str, domain: &str) -> String {
    format!("admin/clusters/{cluster}/failureDomain/{domain}")
}

/// `/admin/clusters/<cluster>/namespaceIsolationPolicies`.
pub fn isolation_path(cluster: &str) -> String {
    format!("admin/clusters/{cluster}/namespaceIsolationPolicies")
}

/// A namespace's topic list (ours, not a metadata-store node): `topics/<tenant>/<ns>.json`, read back
/// by its shape and `detect::namespace_from_path`.
pub fn topics_path(namespace: &str) -> String {
    format!("topics/{namespace}.json")
}

/// A metadata-store location recognised in a path.
#[derive(Debug, PartialEq, Eq)]
pub enum Location {
    /// `loadbalance/brokers/<brokerId>`.
    Broker(String),
    /// `loadbalance/bundle-data/<tenant>/<ns>/<range>` (the full bundle name).
    BundleData(String),
    /// `loadbalance/broker-time-average/<brokerId>`.
    TimeAverage(String),
    /// `loadbalance/leader`.
    Leader,
    /// `admin/policies/<tenant>/<ns>`.
    Policies(String),
    /// `admin/local-policies/<tenant>/<ns>`.
    LocalPolicies(String),
    /// `admin/clusters/<cluster>/failureDomain/<domain>`.
    FailureDomain { cluster: String, domain: String },
    /// `admin/clusters/<cluster>/namespaceIsolationPolicies`.
    IsolationPolicies { cluster: String },
    /// Some other node under `loadbalance/` or `admin/` (not used by load balancing).
    OtherMetadata,
    /// Not a metadata-store path.
    None,
}

/// Path segments, with `\` as a separator too and `.`/empty segments dropped.
pub(crate) fn segments(path: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(8);
    out.extend(
        path.split(['/', '\\'])
            .filter(|s| !s.is_empty() && *s != "."),
    );
    out
}

/// A node name without the `.json` a dump tool may have added.
pub(crate) fn node_name(seg: &str) -> &str {
    seg.strip_suffix(".json").unwrap_or(seg)
}

/// Where a path sits in a metadata-store tree. The tree may be nested anywhere (`dump/loadbalance/…`),
/// use `\\` separators, and name nodes with a `.json` suffix, as dump tools write them.
pub fn locate(path: &str) -> Location {
    let segs = segments(path);
    let mut other = false;
    for (i, seg) in segs.iter().enumerate() {
        let rest = segs.get(i + 1..).unwrap_or(&[]);
        match (*seg, rest) {
            ("loadbalance", ["brokers", id]) => return Location::Broker(node_name(id).to_string()),
            ("loadbalance", ["broker-time-average", id]) => {
                return Location::TimeAverage(node_name(id).to_string());
            }
            ("loadbalance", ["leader"]) | ("loadbalance", ["leader.json"]) => {
                return Location::Leader;
            }
            ("loadbalance", ["bundle-data", ns @ .., range]) if (2..=3).contains(&ns.len()) => {
                // One allocation (this runs once per bundle of a dump).
                let mut name = String::with_capacity(path.len());
                for part in ns {
                    name.push_str(part);
                    name.push('/');
                }
                name.push_str(node_name(range));
                return Location::BundleData(name);
            }
            ("admin", ["policies", ns @ ..]) if (2..=3).contains(&ns.len()) => {
                return Location::Policies(namespace_of(ns));
            }
            ("admin", ["local-policies", ns @ ..]) if (2..=3).contains(&ns.len()) => {
                return Location::LocalPolicies(namespace_of(ns));
            }
            ("admin", ["clusters", c, "failureDomain", d]) => {
                return Location::FailureDomain {
                    cluster: c.to_string(),
                    domain: node_name(d).to_string(),
                };
            }
            ("admin", ["clusters", c, iso]) if node_name(iso) == "namespaceIsolationPolicies" => {
                return Location::IsolationPolicies {
                    cluster: c.to_string(),
                };
            }
            ("loadbalance" | "admin", [_, ..]) => other = true,
            _ => {}
        }
    }
    if other {
        Location::OtherMetadata
    } else {
        Location::None
    }
}

fn namespace_of(parts: &[&str]) -> String {
    let mut out: Vec<&str> = parts.to_vec();
    if let Some(last) = out.last_mut() {
        *last = node_name(last);
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::detect::namespace_from_path;

    /// Every path a writer builds is recognised as the node it is, with Pulsar's names.
    #[test]
    fn built_paths_are_recognised() {
        assert_eq!(
            locate(&broker_path("10.0.0.1:8080")),
            Location::Broker("10.0.0.1:8080".into())
        );
        assert_eq!(
            locate(&bundle_data_path("public/default/0x00000000_0x40000000")),
            Location::BundleData("public/default/0x00000000_0x40000000".into())
        );
        assert_eq!(
            locate(&time_average_path("10.0.0.1:8080")),
            Location::TimeAverage("10.0.0.1:8080".into())
        );
        assert_eq!(locate(LEADER), Location::Leader);
        assert_eq!(
            locate(&policies_path("public/default")),
            Location::Policies("public/default".into())
        );
        assert_eq!(
            locate(&local_policies_path("public/default")),
            Location::LocalPolicies("public/default".into())
        );
        assert_eq!(
            locate(&failure_domain_path("standalone", "zone-a")),
            Location::FailureDomain {
                cluster: "standalone".into(),
                domain: "zone-a".into()
            }
        );
        assert_eq!(
            locate(&isolation_path("standalone")),
            Location::IsolationPolicies {
                cluster: "standalone".into()
            }
        );
        assert_eq!(locate(&topics_path("public/default")), Location::None);
        assert_eq!(
            namespace_from_path(&topics_path("public/default")).as_deref(),
            Some("public/default")
        );
        assert_eq!(locate(BROKER_CONF), Location::None);
    }

    /// Reference §3's absolute paths, nested in a dump directory, with the `.json` a dump tool adds.
    #[test]
    fn pulsars_own_paths_in_a_dump() {
        assert_eq!(
            locate("/dump/loadbalance/brokers/broker-1.example.com:8080.json"),
            Location::Broker("broker-1.example.com:8080".into())
        );
        assert_eq!(
            locate("dump\\loadbalance\\bundle-data\\t\\ns\\0x00000000_0xffffffff"),
            Location::BundleData("t/ns/0x00000000_0xffffffff".into())
        );
        assert_eq!(
            locate("/loadbalance/resource-quota/default"),
            Location::OtherMetadata
        );
    }
}
