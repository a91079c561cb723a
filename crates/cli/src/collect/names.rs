//! Names an admin server hands back (clusters, tenants, namespaces, failure domains, broker ids)
//! become URL path segments, host names to resolve, file paths, zip entry names and report keys.
//! Before that they are checked: Pulsar's naming rule (`lbplan_core::naming`), no `.` or `..`
//! segment, and never the credential — a server that echoes the token back as a tenant name must
//! not get it written into paths or sent to DNS.

use super::auth::{REDACTED, Redactor};

/// The kind of name, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Cluster,
    Tenant,
    Namespace,
    FailureDomain,
    Broker,
    Leader,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Cluster => "cluster",
            Kind::Tenant => "tenant",
            Kind::Namespace => "namespace",
            Kind::FailureDomain => "failure domain",
            Kind::Broker => "broker",
            Kind::Leader => "leader broker",
        }
    }
}

/// Why a name is not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The name holds the credential; the message never shows it.
    Credential(String),
    /// Not a name Pulsar allows here (or not safe as a path segment).
    Invalid(String),
}

/// Whether a cluster, tenant, namespace part or failure-domain name passes core's naming rule
/// (Pulsar's `NamedEntity.checkName`, plus no `.`/`..` segment, leading `-` or control character), so
/// it is safe as a URL and file path segment.
pub fn is_pulsar_name(s: &str) -> bool {
    lbplan_core::naming::is_pulsar_name(s)
}

/// A V2 namespace `tenant/ns` with both parts plain names, by core's rule.
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

/// Checks a name the server handed back. The credential check comes first so that the message of
/// a refused name never carries the name itself.
pub fn check(kind: Kind, name: &str, redactor: &Redactor) -> Result<(), Refusal> {
    if redactor.reveals(name) {
        return Err(Refusal::Credential(format!(
            "{} name `{REDACTED}` refused: it contains the credential",
            kind.label()
        )));
    }
    let ok = match kind {
        Kind::Cluster | Kind::Tenant | Kind::FailureDomain => is_pulsar_name(name),
        Kind::Namespace => parse_namespace(name).is_some(),
        Kind::Broker => is_broker_id(name),
        Kind::Leader => true,
    };
    if ok {
        return Ok(());
    }
    let why = match kind {
        Kind::Namespace => "not a V2 tenant/namespace name",
        Kind::Broker => "not a host:port broker id",
        _ => "not a plain Pulsar name",
    };
    Err(Refusal::Invalid(format!(
        "{} `{name}` skipped: {why}",
        kind.label()
    )))
}

#[cfg(test)]
mod tests {
    use super::super::auth;
    use super::*;

    fn redactor(token: &str) -> Redactor {
        let (c, _) = auth::load(None, None, Some(token.to_string())).unwrap();
        c.unwrap().redactor()
    }

    #[test]
    fn pulsar_names() {
        assert!(is_pulsar_name("public"));
        assert!(is_pulsar_name("my-tenant.v2"));
        assert!(is_pulsar_name("a=b:c_d"));
        assert!(!is_pulsar_name(".."));
        assert!(!is_pulsar_name("a/b"));
        assert!(!is_pulsar_name(""));
        assert!(!is_pulsar_name("ünï"));
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
        assert!(!is_broker_id("h:99999"));
        assert!(!is_broker_id("h:0"));
    }

    #[test]
    fn a_name_holding_the_credential_is_refused_without_showing_it() {
        let token = "eyJhbGciOiJIUzI1NiJ9.c3ViamVjdA.c2lnbmF0dXJl";
        let r = redactor(token);
        for (kind, name) in [
            (Kind::Tenant, token.to_string()),
            (Kind::Namespace, format!("public/{token}")),
            (Kind::FailureDomain, format!("dom-{token}")),
            (Kind::Broker, format!("{token}:8080")),
        ] {
            let Err(Refusal::Credential(msg)) = check(kind, &name, &r) else {
                panic!("{name} accepted");
            };
            assert!(
                !msg.contains(token) && msg.contains("`<redacted>`"),
                "{msg}"
            );
        }
        assert_eq!(check(Kind::Tenant, "public", &r), Ok(()));
        assert_eq!(
            check(Kind::Tenant, "..", &r),
            Err(Refusal::Invalid(
                "tenant `..` skipped: not a plain Pulsar name".to_string()
            ))
        );
    }
}
