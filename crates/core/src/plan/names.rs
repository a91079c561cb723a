//! Validation of the names that go into generated scripts, against Pulsar's naming rules, and shell
//! quoting. A snapshot is untrusted input: a broker or namespace name carrying shell metacharacters
//! must never turn an exported script into an injection.

use crate::naming::{BundleRange, parse_bundle_name};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("refusing to export: {what} `{value}` is not a valid Pulsar name ({rule})")]
    Invalid {
        what: &'static str,
        value: String,
        rule: &'static str,
    },
}

fn invalid(what: &'static str, value: &str, rule: &'static str) -> NameError {
    NameError::Invalid {
        what,
        value: value.escape_default().to_string(),
        rule,
    }
}

/// `NamedEntity.checkName`: tenant and namespace local names match `^[-=:.\w]+$`.
fn is_named_entity(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '=' | ':' | '.'))
}

/// A `tenant/namespace` name.
pub fn check_namespace(ns: &str) -> Result<(), NameError> {
    const RULE: &str = "tenant/namespace, each matching [-=:.A-Za-z0-9_]+";
    match ns.split_once('/') {
        Some((t, n)) if is_named_entity(t) && is_named_entity(n) => Ok(()),
        _ => Err(invalid("namespace", ns, RULE)),
    }
}

/// A full bundle name `tenant/ns/0x%08x_0x%08x`; returns namespace and canonical range text.
pub fn check_bundle(bundle: &str) -> Result<(String, String), NameError> {
    const RULE: &str = "tenant/namespace/0xXXXXXXXX_0xXXXXXXXX";
    let parsed = parse_bundle_name(bundle).map_err(|_| invalid("bundle", bundle, RULE))?;
    check_namespace(&parsed.namespace)?;
    Ok((parsed.namespace, parsed.range.to_string()))
}

/// A bundle range on its own.
pub fn check_range(range: &str) -> Result<String, NameError> {
    BundleRange::parse(range)
        .map(|r| r.to_string())
        .map_err(|_| invalid("bundle range", range, "0xXXXXXXXX_0xXXXXXXXX"))
}

/// A brokerId `host:port` (host: letters, digits, `.`, `-`, `_`; an http(s):// prefix is not allowed).
pub fn check_broker(broker: &str) -> Result<(), NameError> {
    const RULE: &str = "host:port with host in [A-Za-z0-9._-] and a numeric port";
    let Some((host, port)) = broker.rsplit_once(':') else {
        return Err(invalid("broker", broker, RULE));
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    let port_ok = !port.is_empty() && port.len() <= 5 && port.chars().all(|c| c.is_ascii_digit());
    if host_ok && port_ok {
        Ok(())
    } else {
        Err(invalid("broker", broker, RULE))
    }
}

/// A full topic name `persistent://tenant/ns/local` (or `non-persistent://`); returns
/// (domain, tenant, namespace, local name).
pub fn check_topic(topic: &str) -> Result<(String, String, String, String), NameError> {
    const RULE: &str = "persistent://tenant/namespace/topic with printable characters and no quotes, `\\`, `$` or backquotes";
    let bad = || invalid("topic", topic, RULE);
    let (domain, rest) = topic.split_once("://").ok_or_else(bad)?;
    if domain != "persistent" && domain != "non-persistent" {
        return Err(bad());
    }
    let mut parts = rest.splitn(3, '/');
    let (Some(t), Some(n), Some(local)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    if !is_named_entity(t) || !is_named_entity(n) || local.is_empty() {
        return Err(bad());
    }
    let local_ok = local.chars().all(|c| {
        !c.is_control() && !c.is_whitespace() && !matches!(c, '\'' | '"' | '\\' | '$' | '`')
    });
    if !local_ok {
        return Err(bad());
    }
    Ok((
        domain.to_string(),
        t.to_string(),
        n.to_string(),
        local.to_string(),
    ))
}

/// Quotes a (validated) word for POSIX shells.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Percent-encodes a URL path segment or query value (RFC 3986 unreserved characters kept).
pub fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_are_rejected() {
        assert!(check_namespace("public/default").is_ok());
        assert!(check_namespace("public/default; rm -rf /").is_err());
        assert!(check_namespace("pub$(id)/x").is_err());
        assert!(check_broker("broker-1.pulsar.svc:8080").is_ok());
        assert!(check_broker("b1:8080`touch x`").is_err());
        assert!(check_broker("http://b1:8080").is_err());
        assert!(check_bundle("public/default/0x00000000_0x40000000").is_ok());
        assert!(check_bundle("public/de'fault/0x00000000_0x40000000").is_err());
        assert!(check_topic("persistent://public/default/orders-partition-3").is_ok());
        assert!(check_topic("persistent://public/default/x'; reboot; '").is_err());
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
        assert_eq!(url_encode("a b/c"), "a%20b%2Fc");
    }
}
