//! Brokers' own namespaces as `NamespaceService` recognises them: the heartbeat namespace
//! (`HEARTBEAT_NAMESPACE_PATTERN` `pulsar/[^/]+/([^:]+:\d+)`, V2 `pulsar/([^:]+:\d+)`) and the SLA-monitor
//! namespace (`SLA_NAMESPACE_PATTERN` `sla-monitor/[^/]+/([^:]+:\d+)`), each a full match whose group is
//! the broker (`host:port`). Views use this. The leader's shedding filter, which differs per profile,
//! is [`is_heartbeat_or_sla_namespace`] (the exports skip the same namespaces).

/// Which of a broker's own namespaces a namespace is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemNamespaceKind {
    /// `pulsar/<cluster>/<host:port>` (`HEARTBEAT_NAMESPACE_FMT`).
    HeartbeatV1,
    /// `pulsar/<host:port>` (`HEARTBEAT_NAMESPACE_FMT_V2`).
    HeartbeatV2,
    /// `sla-monitor/<cluster>/<host:port>` (`SLA_NAMESPACE_FMT`).
    SlaMonitor,
}

/// A broker's heartbeat or SLA-monitor namespace and the broker it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrokerNamespace<'a> {
    pub kind: SystemNamespaceKind,
    /// The pattern's group: `host:port`.
    pub broker: &'a str,
}

/// Java's `[^:]+:\d+` as a full match: a non-empty run without `:`, one `:`, then ASCII digits.
/// (`\d` is ASCII-only in Java without `UNICODE_CHARACTER_CLASS`.)
fn host_port(s: &str) -> bool {
    match s.split_once(':') {
        Some((host, port)) => {
            !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// `[^/]+/` then `[^:]+:\d+`: the cluster segment and the broker.
fn cluster_then_broker(rest: &str) -> Option<&str> {
    let (cluster, broker) = rest.split_once('/')?;
    (!cluster.is_empty() && host_port(broker)).then_some(broker)
}

/// `NamespaceService.isSLAOrHeartbeatNamespace`, telling which pattern matched and the broker.
pub fn broker_namespace(namespace: &str) -> Option<BrokerNamespace<'_>> {
    if let Some(rest) = namespace.strip_prefix("sla-monitor/") {
        return cluster_then_broker(rest).map(|broker| BrokerNamespace {
            kind: SystemNamespaceKind::SlaMonitor,
            broker,
        });
    }
    let rest = namespace.strip_prefix("pulsar/")?;
    // V1 first: Java's V2 group `[^:]+` would also swallow `<cluster>/`, and the V1 reading names the
    // broker without it.
    if let Some(broker) = cluster_then_broker(rest) {
        return Some(BrokerNamespace {
            kind: SystemNamespaceKind::HeartbeatV1,
            broker,
        });
    }
    host_port(rest).then_some(BrokerNamespace {
        kind: SystemNamespaceKind::HeartbeatV2,
        broker: rest,
    })
}

/// `NamespaceService.isSLAOrHeartbeatNamespace`.
pub fn is_sla_or_heartbeat_namespace(namespace: &str) -> bool {
    broker_namespace(namespace).is_some()
}

/// Heartbeat (`pulsar/<host>:<port>`) and SLA (`sla-monitor/<host>:<port>`) namespaces, which the
/// leader hides from shedding. With `include_v1_names`, also the V1 forms `pulsar/<cluster>/<host>:<port>`
/// (filtered on 4.0.x, not on master after PIP-457). This is the leader's shedding filter per profile,
/// checked by the conformance vectors (`modular::load_data::hidden_from_shedding`); which namespaces
/// are brokers' own, as `NamespaceService` defines them, is [`broker_namespace`]. Here, below the
/// ports, because the exports skip the same namespaces.
pub fn is_heartbeat_or_sla_namespace(namespace: &str, include_v1_names: bool) -> bool {
    fn v2_host_port(s: &str) -> bool {
        match s.rsplit_once(':') {
            Some((host, port)) => {
                !host.is_empty()
                    && !host.contains(':')
                    && !port.is_empty()
                    && port.chars().all(|c| c.is_ascii_digit())
            }
            None => false,
        }
    }
    for prefix in ["pulsar/", "sla-monitor/"] {
        if let Some(rest) = namespace.strip_prefix(prefix) {
            if !rest.contains('/') && v2_host_port(rest) {
                return true;
            }
            if include_v1_names
                && let Some((cluster, hp)) = rest.split_once('/')
                && !cluster.is_empty()
                && !hp.contains('/')
                && v2_host_port(hp)
            {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names `NamespaceService` builds from `HEARTBEAT_NAMESPACE_FMT` (`pulsar/%s/%s`),
    /// `HEARTBEAT_NAMESPACE_FMT_V2` (`pulsar/%s`) and `SLA_NAMESPACE_FMT` (`sla-monitor/%s/%s`) with
    /// a cluster and a broker id `host:port`.
    #[test]
    fn recognises_pulsars_three_formats_and_names_the_broker() {
        assert_eq!(
            broker_namespace("pulsar/use/broker-1.example.com:8080"),
            Some(BrokerNamespace {
                kind: SystemNamespaceKind::HeartbeatV1,
                broker: "broker-1.example.com:8080"
            })
        );
        assert_eq!(
            broker_namespace("pulsar/10.0.0.1:8080"),
            Some(BrokerNamespace {
                kind: SystemNamespaceKind::HeartbeatV2,
                broker: "10.0.0.1:8080"
            })
        );
        assert_eq!(
            broker_namespace("sla-monitor/use/broker-1.example.com:8080"),
            Some(BrokerNamespace {
                kind: SystemNamespaceKind::SlaMonitor,
                broker: "broker-1.example.com:8080"
            })
        );
    }

    #[test]
    fn refuses_what_the_patterns_do_not_fully_match() {
        // `pulsar/system` is a system namespace, but not a broker's.
        assert!(!is_sla_or_heartbeat_namespace("pulsar/system"));
        // The port is `\d+`: required and numeric.
        assert!(!is_sla_or_heartbeat_namespace("pulsar/broker-1"));
        assert!(!is_sla_or_heartbeat_namespace("pulsar/broker-1:"));
        assert!(!is_sla_or_heartbeat_namespace("pulsar/broker-1:http"));
        // SLA-monitor has no V2 form: the cluster segment is required.
        assert!(!is_sla_or_heartbeat_namespace("sla-monitor/broker-1:8080"));
        // Only the `pulsar` and `sla-monitor` tenants.
        assert!(!is_sla_or_heartbeat_namespace("public/broker-1:8080"));
        assert!(!is_sla_or_heartbeat_namespace("public/default"));
        // `[^/]+` for the cluster: not empty.
        assert!(!is_sla_or_heartbeat_namespace("sla-monitor//broker-1:8080"));
    }
}
