//! The one home of the rule a name must pass before it leaves the planner: in a collected file
//! path, in an exported `pulsar-admin` script, in an admin REST path. Pulsar's own rules come first
//! (`NamedEntity.checkName`: `[-=:.\w]*` with ASCII `\w`; `NamespaceName.validateNamespaceName`:
//! non-empty parts; `TopicName`: a non-empty local name; a brokerId is `host:port`), plus what is
//! dangerous downstream even where Pulsar accepts it:
//!
//! * `.` and `..` as a whole segment: curl and HTTP servers collapse dot segments, so
//!   `namespaces/acme/../0x…/unload` would reach another endpoint;
//! * a leading `-`: `pulsar-admin` would read the name as an option;
//! * empty segments, control characters, and segments longer than a file name may be (collect
//!   writes one file per name).
//!
//! The importer, the exports, `lbplan collect` and the dashboard all call these functions.

use std::fmt;

use super::{BundleRange, parse_bundle_name};

/// What kind of name failed the rule (for the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Tenant,
    Cluster,
    Namespace,
    Bundle,
    Topic,
    Broker,
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameKind::Tenant => "tenant",
            NameKind::Cluster => "cluster",
            NameKind::Namespace => "namespace",
            NameKind::Bundle => "bundle",
            NameKind::Topic => "topic",
            NameKind::Broker => "broker",
        })
    }
}

/// A name that breaks the rule: which kind, the offending text (escaped so that control
/// characters stay visible and on one line) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} `{value}` is not a valid Pulsar name: {why}")]
pub struct NameError {
    pub kind: NameKind,
    pub value: String,
    pub why: &'static str,
}

fn refuse(kind: NameKind, value: &str, why: &'static str) -> NameError {
    NameError {
        kind,
        value: value.escape_default().to_string(),
        why,
    }
}

/// Longest segment accepted: `NAME_MAX` of common file systems, since collect stores files by name.
pub const MAX_SEGMENT_LEN: usize = 255;

/// `NamedEntity.checkName` alone (Java `^[-=:.\w]*$`, ASCII `\w`): Pulsar's rule, which also
/// accepts the empty string and dot segments. Parsing names the way Pulsar does uses this; anything
/// that leaves the planner uses [`check_segment`].
pub fn is_named_entity(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '=' | ':' | '.' | '_'))
}

/// One tenant, cluster or namespace segment: `NamedEntity.checkName`, non-empty, not `.`/`..`, no
/// leading `-`, at most [`MAX_SEGMENT_LEN`] bytes.
pub fn check_segment(kind: NameKind, s: &str) -> Result<(), NameError> {
    segment(kind, s, true)
}

/// The segment rule with or without the leading-`-` part.
fn segment(kind: NameKind, s: &str, leading_dash_refused: bool) -> Result<(), NameError> {
    if s.is_empty() {
        return Err(refuse(kind, s, "a name segment is empty"));
    }
    if s == "." || s == ".." {
        return Err(refuse(
            kind,
            s,
            "`.` and `..` are path dot segments: a URL with them reaches another endpoint",
        ));
    }
    if leading_dash_refused && s.starts_with('-') {
        return Err(refuse(
            kind,
            s,
            "a leading `-` would be read as an option by pulsar-admin",
        ));
    }
    if s.len() > MAX_SEGMENT_LEN {
        return Err(refuse(kind, s, "a name segment is longer than 255 bytes"));
    }
    if !is_named_entity(s) {
        return Err(refuse(
            kind,
            s,
            "only letters, digits and `-=:._` are allowed (NamedEntity.checkName)",
        ));
    }
    Ok(())
}

/// A namespace as read from an export (a snapshot, a broker's report, a metadata path): every
/// segment (`tenant/namespace`, or a legacy `tenant/cluster/namespace`) passes [`check_segment`]
/// but for the leading `-`, which Pulsar accepts (an export that must pass it to `pulsar-admin`
/// refuses it there). So `acme/..`, `acme/` or `ac me/x` never enter a snapshot.
pub fn check_imported_namespace(ns: &str) -> Result<(), NameError> {
    let parts: Vec<&str> = ns.split('/').collect();
    let kinds: &[NameKind] = match parts.len() {
        2 => &[NameKind::Tenant, NameKind::Namespace],
        3 => &[NameKind::Tenant, NameKind::Cluster, NameKind::Namespace],
        _ => {
            return Err(refuse(
                NameKind::Namespace,
                ns,
                "expected tenant/namespace (or tenant/cluster/namespace)",
            ));
        }
    };
    for (part, kind) in parts.iter().zip(kinds) {
        segment(*kind, part, false)?;
    }
    Ok(())
}

/// Whether `s` passes [`check_segment`].
pub fn is_pulsar_name(s: &str) -> bool {
    check_segment(NameKind::Namespace, s).is_ok()
}

/// A V2 namespace `tenant/namespace`; returns both parts. Legacy `tenant/cluster/namespace` names
/// are refused: the exports and collect speak the `/admin/v2` API only.
pub fn check_namespace(ns: &str) -> Result<(&str, &str), NameError> {
    let Some((tenant, local)) = ns.split_once('/') else {
        return Err(refuse(NameKind::Namespace, ns, "expected tenant/namespace"));
    };
    if local.contains('/') {
        return Err(refuse(
            NameKind::Namespace,
            ns,
            "expected tenant/namespace (legacy tenant/cluster/namespace names are not supported)",
        ));
    }
    check_segment(NameKind::Tenant, tenant)?;
    check_segment(NameKind::Namespace, local)?;
    Ok((tenant, local))
}

/// A full bundle name `tenant/namespace/0xXXXXXXXX_0xXXXXXXXX`; returns the namespace and range.
pub fn check_bundle(bundle: &str) -> Result<(&str, BundleRange), NameError> {
    let parsed = parse_bundle_name(bundle).map_err(|_| {
        refuse(
            NameKind::Bundle,
            bundle,
            "expected tenant/namespace/0xXXXXXXXX_0xXXXXXXXX",
        )
    })?;
    // `parse_bundle_name` takes the namespace as the text before the last `/`.
    let namespace = super::BundleName::namespace_of(bundle);
    check_namespace(namespace)?;
    Ok((namespace, parsed.range))
}

/// A brokerId `host:port` (Pulsar's `<advertisedAddress>:<webServicePort>`): a DNS name or IPv4
/// address (`[A-Za-z0-9._-]`, not `.`/`..`, no leading `-`) or an IPv6 address in brackets
/// (`[::1]:8080`), and a port 1..=65535 (nothing listens on port 0). A URL (`http://…`) is not a brokerId.
pub fn check_broker_id(broker: &str) -> Result<(), NameError> {
    const WHY: &str = "expected host:port (IPv6 as [address]:port)";
    let bad = |why| Err(refuse(NameKind::Broker, broker, why));
    let Some((host, port)) = broker.rsplit_once(':') else {
        return bad(WHY);
    };
    let port_ok = !port.is_empty()
        && port.len() <= 5
        && port.bytes().all(|b| b.is_ascii_digit())
        && port.parse::<u32>().is_ok_and(|p| (1..=65_535).contains(&p));
    if !port_ok {
        return bad("the port must be a number 1..65535");
    }
    if let Some(inner) = host.strip_prefix('[') {
        let Some(addr) = inner.strip_suffix(']') else {
            return bad(WHY);
        };
        let addr_ok = addr.contains(':')
            && addr
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
        return if addr_ok {
            Ok(())
        } else {
            bad("an IPv6 address in brackets has only hex digits, `:` and `.`")
        };
    }
    if host.is_empty() || host == "." || host == ".." {
        return bad(WHY);
    }
    if host.starts_with('-') {
        return bad("a leading `-` would be read as an option by pulsar-admin");
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    {
        return bad("a host has only letters, digits and `.-_` (IPv6 goes in brackets)");
    }
    Ok(())
}

/// Whether `s` passes [`check_broker_id`].
pub fn is_broker_id(s: &str) -> bool {
    check_broker_id(s).is_ok()
}

/// A checked V2 topic name, split as the admin API addresses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicParts<'a> {
    /// `persistent` or `non-persistent`.
    pub domain: &'a str,
    pub tenant: &'a str,
    pub namespace: &'a str,
    pub local_name: &'a str,
}

/// A full V2 topic name `persistent://tenant/namespace/local` (or `non-persistent://`). Pulsar
/// accepts nearly any local name; refused here are the empty name, `.`/`..`, a `/` (Pulsar would
/// read a legacy `tenant/cluster/namespace/local` name, another topic), control characters,
/// whitespace and the characters shells treat specially (`'"\$` and backquote).
pub fn check_topic(topic: &str) -> Result<TopicParts<'_>, NameError> {
    let bad = |why| refuse(NameKind::Topic, topic, why);
    let (domain, rest) = topic
        .split_once("://")
        .ok_or_else(|| bad("expected persistent://tenant/namespace/topic"))?;
    if domain != "persistent" && domain != "non-persistent" {
        return Err(bad("the domain must be `persistent` or `non-persistent`"));
    }
    let mut parts = rest.splitn(3, '/');
    let (Some(tenant), Some(namespace), Some(local_name)) =
        (parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("expected persistent://tenant/namespace/topic"));
    };
    check_segment(NameKind::Tenant, tenant)?;
    check_segment(NameKind::Namespace, namespace)?;
    if local_name.is_empty() {
        return Err(bad("the local topic name is empty"));
    }
    if local_name == "." || local_name == ".." {
        return Err(bad(
            "`.` and `..` are path dot segments: a URL with them reaches another endpoint",
        ));
    }
    if local_name.contains('/') {
        return Err(bad(
            "a `/` in the local name makes Pulsar read a legacy tenant/cluster/namespace/topic name",
        ));
    }
    let local_ok = local_name.chars().all(|c| {
        !c.is_control() && !c.is_whitespace() && !matches!(c, '\'' | '"' | '\\' | '$' | '`')
    });
    if !local_ok {
        return Err(bad(
            "the local name has a control character, whitespace, a quote, `\\`, `$` or a backquote",
        ));
    }
    Ok(TopicParts {
        domain,
        tenant,
        namespace,
        local_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_follow_named_entity_and_refuse_dangerous_ones() {
        for ok in ["public", "my-tenant.v2", "a=b:c_d", "0x00000000", "ns.."] {
            assert!(is_pulsar_name(ok), "{ok}");
        }
        for bad in ["", ".", "..", "-ns", "a/b", "a b", "ünï", "a\nb", "a\u{0}"] {
            assert!(!is_pulsar_name(bad), "{bad:?}");
        }
        assert!(is_pulsar_name(&"a".repeat(255)));
        assert!(!is_pulsar_name(&"a".repeat(256)));
        // Pulsar's own rule accepts the empty string and dot segments: parsing keeps it.
        assert!(is_named_entity("") && is_named_entity(".."));
    }

    #[test]
    fn broker_ids_accept_ipv6_in_brackets() {
        for ok in [
            "10.244.2.23:8080",
            "broker-0.broker.pulsar.svc.cluster.local:8080",
            "[::1]:8080",
            "[fe80::1:2]:443",
            "[::ffff:10.0.0.1]:8080",
        ] {
            assert!(is_broker_id(ok), "{ok}");
        }
        for bad in [
            "host",
            "http://h:80",
            "../../etc:80",
            "..:80",
            "-h:80",
            "h:",
            "h:99999",
            "[::1:8080",
            "[]:8080",
            "[g::1]:8080",
            "::1:8080",
            "b1:8080`touch x`",
        ] {
            assert!(!is_broker_id(bad), "{bad}");
        }
    }
}
