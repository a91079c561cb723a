//! The admin REST endpoints `collect` calls (prefix `/admin/v2`, reference §10) and checks of the
//! names a server hands back before they are used in URLs and file paths (a tenant named `..` must
//! not write outside the output).

/// What one request fetches; its label is the `what` of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    Clusters,
    Leader,
    RuntimeConfig,
    DynamicConfig,
    Tenants,
    Brokers {
        cluster: String,
    },
    FailureDomains {
        cluster: String,
    },
    IsolationPolicies {
        cluster: String,
    },
    TenantNamespaces {
        tenant: String,
    },
    /// Served by the broker itself: the URL is the broker's own web service.
    LoadReport {
        broker: String,
    },
    Bundles {
        namespace: String,
    },
    Policies {
        namespace: String,
    },
    AntiAffinity {
        namespace: String,
    },
    Topics {
        namespace: String,
    },
}

impl What {
    pub fn label(&self) -> &'static str {
        match self {
            What::Clusters => "clusters",
            What::Leader => "leader",
            What::RuntimeConfig => "runtime_configuration",
            What::DynamicConfig => "dynamic_configuration",
            What::Tenants => "tenants",
            What::Brokers { .. } => "brokers",
            What::FailureDomains { .. } => "failure_domains",
            What::IsolationPolicies { .. } => "namespace_isolation_policies",
            What::TenantNamespaces { .. } => "namespaces",
            What::LoadReport { .. } => "load_report",
            What::Bundles { .. } => "bundles",
            What::Policies { .. } => "policies",
            What::AntiAffinity { .. } => "anti_affinity_group",
            What::Topics { .. } => "topics",
        }
    }

    /// The cluster, tenant, namespace or broker the request is about.
    pub fn subject(&self) -> Option<&str> {
        match self {
            What::Clusters
            | What::Leader
            | What::RuntimeConfig
            | What::DynamicConfig
            | What::Tenants => None,
            What::Brokers { cluster }
            | What::FailureDomains { cluster }
            | What::IsolationPolicies { cluster } => Some(cluster),
            What::TenantNamespaces { tenant } => Some(tenant),
            What::LoadReport { broker } => Some(broker),
            What::Bundles { namespace }
            | What::Policies { namespace }
            | What::AntiAffinity { namespace }
            | What::Topics { namespace } => Some(namespace),
        }
    }

    /// The path below `/admin/v2` (names were checked with [`is_pulsar_name`]).
    pub fn path(&self) -> String {
        match self {
            What::Clusters => "/clusters".to_string(),
            What::Leader => "/brokers/leaderBroker".to_string(),
            What::RuntimeConfig => "/brokers/configuration/runtime".to_string(),
            What::DynamicConfig => "/brokers/configuration/values".to_string(),
            What::Tenants => "/tenants".to_string(),
            What::Brokers { cluster } => format!("/brokers/{cluster}"),
            What::FailureDomains { cluster } => format!("/clusters/{cluster}/failureDomains"),
            What::IsolationPolicies { cluster } => {
                format!("/clusters/{cluster}/namespaceIsolationPolicies")
            }
            What::TenantNamespaces { tenant } => format!("/namespaces/{tenant}"),
            What::LoadReport { .. } => "/broker-stats/load-report".to_string(),
            What::Bundles { namespace } => format!("/namespaces/{namespace}/bundles"),
            What::Policies { namespace } => format!("/namespaces/{namespace}"),
            What::AntiAffinity { namespace } => format!("/namespaces/{namespace}/antiAffinity"),
            // All topics, non-persistent and system topics included: they all occupy bundles.
            What::Topics { namespace } => {
                format!("/namespaces/{namespace}/topics?mode=ALL&includeSystemTopic=true")
            }
        }
    }

    /// The full URL: load reports go to the broker's own web service, everything else to the
    /// admin URL.
    pub fn url(&self, admin_base: &str, broker_scheme: &str) -> String {
        match self {
            What::LoadReport { broker } => {
                format!("{broker_scheme}://{broker}/admin/v2{}", self.path())
            }
            _ => format!("{admin_base}/admin/v2{}", self.path()),
        }
    }

    /// What the snapshot lacks when this is missing (for the report).
    pub fn consequence(&self) -> &'static str {
        match self {
            What::Clusters => {
                "the cluster list is unknown; the cluster is taken from the runtime configuration or --cluster"
            }
            What::Leader => "the modular load manager's leader is unknown",
            What::RuntimeConfig => {
                "broker.conf lacks the broker's settings; the importer uses the profile's defaults"
            }
            What::DynamicConfig => "dynamic configuration overrides are not applied to broker.conf",
            What::Tenants => "no namespace list; pass --namespace TENANT/NS",
            What::Brokers { .. } => {
                "the active brokers are unknown, so no load report could be fetched"
            }
            What::FailureDomains { .. } => {
                "failure domains are missing (domain-aware placement cannot be planned)"
            }
            What::IsolationPolicies { .. } => "namespace isolation policies are missing",
            What::TenantNamespaces { .. } => {
                "this tenant's namespaces are missing from the snapshot"
            }
            What::LoadReport { .. } => {
                "this broker has no load report: the importer cannot place it or its bundles"
            }
            What::Bundles { .. } => {
                "this namespace's bundle boundaries come only from its policies or are inferred"
            }
            What::Policies { .. } => "this namespace's policies are missing",
            What::AntiAffinity { .. } => "this namespace's anti-affinity group is unknown",
            What::Topics { .. } => {
                "this namespace's topics are missing: topic-to-bundle hashing cannot be shown"
            }
        }
    }
}

/// Whether a tenant, namespace or cluster name passes core's naming rule (Pulsar's `NamedEntity`,
/// plus no dot segment or leading `-`), so it is safe as a URL and file path segment.
pub fn is_pulsar_name(s: &str) -> bool {
    lbplan_core::naming::is_pulsar_name(s)
}

/// A V2 namespace `tenant/ns` with both parts plain names.
pub fn parse_namespace(s: &str) -> Option<(String, String)> {
    lbplan_core::naming::check_namespace(s)
        .ok()
        .map(|(t, n)| (t.to_string(), n.to_string()))
}

/// A broker id `host:port` (Pulsar's `<advertisedAddress>:<webServicePort>`; IPv6 in brackets), by
/// core's rule, the one the exports apply.
pub fn is_broker_id(s: &str) -> bool {
    lbplan_core::naming::is_broker_id(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_pulsar_name("public"));
        assert!(is_pulsar_name("my-tenant.v2"));
        assert!(!is_pulsar_name(".."));
        assert!(!is_pulsar_name("a/b"));
        assert!(!is_pulsar_name(""));
        assert_eq!(
            parse_namespace("public/default"),
            Some(("public".into(), "default".into()))
        );
        assert_eq!(parse_namespace("a/b/c"), None);
        assert!(is_broker_id("10.244.2.23:8080"));
        assert!(is_broker_id(
            "broker-0.broker.pulsar.svc.cluster.local:8080"
        ));
        assert!(is_broker_id("[::1]:8080"));
        assert!(!is_broker_id("../../etc:80"));
        assert!(!is_broker_id("host"));
        assert!(!is_broker_id("http://h:80"));
    }

    #[test]
    fn urls() {
        let w = What::Topics {
            namespace: "public/default".into(),
        };
        assert_eq!(
            w.url("http://a:8080", "http"),
            "http://a:8080/admin/v2/namespaces/public/default/topics?mode=ALL&includeSystemTopic=true"
        );
        let l = What::LoadReport {
            broker: "b:8081".into(),
        };
        assert_eq!(
            l.url("http://a:8080", "https"),
            "https://b:8081/admin/v2/broker-stats/load-report"
        );
    }
}
