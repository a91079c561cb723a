//! Cluster-level metadata: the modular leader (`/loadbalance/leader`, also `GET
//! /admin/v2/brokers/leaderBroker`), failure domains (`/admin/clusters/<c>/failureDomain/<d>`) and
//! namespace isolation policies (`/admin/clusters/<c>/namespaceIsolationPolicies`).

use indexmap::IndexMap;
use serde_json::Value;

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use super::typed::{self, Entries, Leaf, List, Object, Unknown, json_object};
use crate::model::{AutoFailoverPolicy, NamespaceIsolationPolicy};

/// The leader-election payload as read.
#[derive(Default)]
pub(crate) struct RawLeader<'a> {
    broker_id: Option<Leaf<'a>>,
    service_url: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawLeader, "a leader", {
    "brokerId" => broker_id,
    "serviceUrl" => service_url,
}, unknown: unknown);

/// A failure domain as read.
#[derive(Default)]
pub(crate) struct RawFailureDomain<'a> {
    brokers: Option<List<'a, Leaf<'a>>>,
    unknown: Unknown<'a>,
}

json_object!(RawFailureDomain, "a failure domain", {
    "brokers" => brokers,
}, unknown: unknown);

/// One `NamespaceIsolationData` as read.
#[derive(Default)]
pub(crate) struct RawIsolationPolicy<'a> {
    namespaces: Option<List<'a, Leaf<'a>>>,
    primary: Option<List<'a, Leaf<'a>>>,
    secondary: Option<List<'a, Leaf<'a>>>,
    auto_failover_policy: Option<Object<'a, RawAutoFailover<'a>>>,
    unknown: Unknown<'a>,
}

json_object!(RawIsolationPolicy, "a namespace isolation policy", {
    "namespaces" => namespaces,
    "primary" => primary,
    "secondary" => secondary,
    "auto_failover_policy" => auto_failover_policy,
}, unknown: unknown);

/// An `AutoFailoverPolicyData` as read.
#[derive(Default)]
pub(crate) struct RawAutoFailover<'a> {
    policy_type: Option<Leaf<'a>>,
    parameters: Option<Object<'a, Entries<'a, Leaf<'a>>>>,
    unknown: Unknown<'a>,
}

json_object!(RawAutoFailover, "an auto failover policy", {
    "policy_type" => policy_type,
    "parameters" => parameters,
}, unknown: unknown);

/// The metadata-store node of isolation policies as read: policy name → policy.
pub(crate) type RawIsolationPolicies<'a> =
    Object<'a, Entries<'a, Object<'a, RawIsolationPolicy<'a>>>>;

/// The leader's brokerId, from the node's text.
pub(crate) fn leader_from_text(ctx: &mut Ctx<'_>, text: &str) -> Result<String, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check_leader(ctx, raw, &JPath::ROOT)
}

/// The leader's brokerId; from `brokerId`, else the `host:port` of `serviceUrl`.
pub(crate) fn check_leader(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawLeader<'_>>,
    p: &JPath<'_>,
) -> Result<String, ImportError> {
    let m = raw.get(ctx, p, "a leader {\"brokerId\", \"serviceUrl\"}")?;
    m.unknown.warn(ctx, p);
    if let Some(id) = m.broker_id {
        return Ok(id.string(ctx, &p.key("brokerId"))?.to_string());
    }
    let ps = p.key("serviceUrl");
    let url = m
        .service_url
        .ok_or_else(|| ctx.err(p, "expected `brokerId` or `serviceUrl`"))?;
    let url = url.string(ctx, &ps)?;
    host_port(url).ok_or_else(|| {
        ctx.err(
            &ps,
            format!("expected a URL http://host:port, found \"{url}\""),
        )
    })
}

/// `host:port` of a URL such as `http://10.0.0.1:8080/` (Pulsar's brokerId form), when it passes
/// the naming rule the exports apply (`[::1]:8080` included).
pub(crate) fn host_port(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let hp = rest.split('/').next()?;
    crate::naming::is_broker_id(hp).then(|| hp.to_string())
}

/// Strings of a typed list, each checked at its index.
pub(crate) fn strings(
    ctx: &Ctx<'_>,
    list: List<'_, Leaf<'_>>,
    p: &JPath<'_>,
) -> Result<Vec<String>, ImportError> {
    let items = list.get(ctx, p)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(item.string(ctx, &p.index(i))?.to_string());
    }
    Ok(out)
}

/// Failure domain `{"brokers": [...]}`, from the node's text.
pub(crate) fn failure_domain_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<Vec<String>, ImportError> {
    let raw: Object<'_, RawFailureDomain<'_>> = typed::from_text(ctx.file, text)?;
    let p = JPath::ROOT;
    let m = raw.get(ctx, &p, "a failure domain {\"brokers\": [...]}")?;
    m.unknown.warn(ctx, &p);
    match m.brokers {
        Some(b) => strings(ctx, b, &p.key("brokers")),
        None => Ok(Vec::new()),
    }
}

/// The map of namespace isolation policies, from the node's text.
pub(crate) fn isolation_policies_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<IndexMap<String, NamespaceIsolationPolicy>, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check_isolation_policies(ctx, raw, &JPath::ROOT)
}

/// The checks on a map of policies: each as [`check_isolation_policy`], at its name.
pub(crate) fn check_isolation_policies(
    ctx: &mut Ctx<'_>,
    raw: RawIsolationPolicies<'_>,
    p: &JPath<'_>,
) -> Result<IndexMap<String, NamespaceIsolationPolicy>, ImportError> {
    let m = raw.get(ctx, p, "a map of namespace isolation policies")?;
    let mut out = IndexMap::with_capacity(m.0.len());
    for (name, pol) in m.0 {
        let policy = check_isolation_policy(ctx, pol, &p.key(&name))?;
        out.insert(name.into_owned(), policy);
    }
    Ok(out)
}

/// One `NamespaceIsolationData` (`pulsar-admin ns-isolation-policy get`), from its text.
pub(crate) fn isolation_policy_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<NamespaceIsolationPolicy, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check_isolation_policy(ctx, raw, &JPath::ROOT)
}

/// One `NamespaceIsolationData` at `pp`: lists of strings, parameters as text.
pub(crate) fn check_isolation_policy(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawIsolationPolicy<'_>>,
    pp: &JPath<'_>,
) -> Result<NamespaceIsolationPolicy, ImportError> {
    let o = raw.get(ctx, pp, "a namespace isolation policy")?;
    o.unknown.warn(ctx, pp);
    let list = |ctx: &Ctx<'_>, l: Option<List<'_, Leaf<'_>>>, key: &str| {
        l.map_or(Ok(Vec::new()), |l| strings(ctx, l, &pp.key(key)))
    };
    let mut policy = NamespaceIsolationPolicy {
        namespaces: list(ctx, o.namespaces, "namespaces")?,
        primary: list(ctx, o.primary, "primary")?,
        secondary: list(ctx, o.secondary, "secondary")?,
        auto_failover_policy: None,
    };
    if let Some(a) = o.auto_failover_policy {
        let pa = pp.key("auto_failover_policy");
        let ao = a.get(ctx, &pa, "an auto failover policy")?;
        ao.unknown.warn(ctx, &pa);
        let mut afp = AutoFailoverPolicy::default();
        if let Some(t) = ao.policy_type {
            afp.policy_type = t.string(ctx, &pa.key("policy_type"))?.to_string();
        }
        if let Some(params) = ao.parameters {
            let ppar = pa.key("parameters");
            for (k, val) in params.get(ctx, &ppar, "a map of text parameters")?.0 {
                let text = match val {
                    Leaf::Str(s) => s.into_owned(),
                    Leaf::Other(Value::Number(n)) => n.to_string(),
                    other => {
                        return Err(ctx.err(
                            &ppar.key(&k),
                            format!("expected a string, found {}", other.describe()),
                        ));
                    }
                };
                afp.parameters.insert(k.into_owned(), text);
            }
        }
        policy.auto_failover_policy = Some(afp);
    }
    Ok(policy)
}

/// Whether every non-empty line is a brokerId (`host:port`, Pulsar's name rule), as `pulsar-admin
/// brokers list CLUSTER` prints (`broker-1:8080`). A `broker.conf` line `key: value` fails the rule
/// (its "port" is not a number), so this runs before the `broker.conf` check.
pub(crate) fn looks_like_brokers_list(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if !crate::naming::is_broker_id(t) {
            return false;
        }
        any = true;
    }
    any
}

#[cfg(test)]
mod tests {
    //! Unknown keys of the cluster nodes become warnings naming their JSON path; values as read.

    use crate::import::{ImportInput, WarningKind, import};

    const REPORT: &str = r#"{"lastUpdate": 1, "cpu": {"usage": 1, "limit": 100}}"#;

    #[test]
    fn unknown_keys_are_named_by_path() {
        let leader = r#"{"serviceUrl": "http://b1:8080", "x": 1}"#;
        let domain = r#"{"brokers": ["b1:8080"], "y": 1}"#;
        let iso = r#"{"p1": {"namespaces": ["t/.*"], "primary": ["b1.*"], "z": 1,
            "auto_failover_policy": {"policy_type": "min_available",
            "parameters": {"min_limit": 1, "usage_threshold": "80"}, "w": 1}}}"#;
        let one = r#"{"namespaces": ["u/.*"], "primary": ["b1.*"], "v": []}"#;
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", REPORT.as_bytes()),
            ImportInput::in_tree("loadbalance/leader", leader.as_bytes()),
            ImportInput::in_tree("admin/clusters/c1/failureDomain/d1", domain.as_bytes()),
            ImportInput::in_tree(
                "admin/clusters/c1/namespaceIsolationPolicies",
                iso.as_bytes(),
            ),
            ImportInput::given("p2.json", one.as_bytes()),
        ];
        let out = import(&inputs).unwrap();
        let unknown: Vec<String> = out
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::UnknownField)
            .map(|w| {
                format!(
                    "{} {} {}",
                    w.file,
                    w.at.clone().unwrap_or_default(),
                    w.message
                )
            })
            .collect();
        assert_eq!(
            unknown,
            [
                "loadbalance/leader $ unknown field `x` ignored",
                "admin/clusters/c1/failureDomain/d1 $ unknown field `y` ignored",
                "admin/clusters/c1/namespaceIsolationPolicies $.p1 unknown field `z` ignored",
                "admin/clusters/c1/namespaceIsolationPolicies $.p1.auto_failover_policy \
                 unknown field `w` ignored",
                "p2.json $ unknown field `v` ignored",
            ]
        );
        let s = &out.snapshot;
        assert_eq!(s.leader_broker.as_deref(), Some("b1:8080"));
        let p1 = s.namespace_isolation_policies.get("p1").unwrap();
        let afp = p1.auto_failover_policy.as_ref().unwrap();
        assert_eq!(
            afp.parameters.get("min_limit").map(String::as_str),
            Some("1")
        );
        assert_eq!(
            s.namespace_isolation_policies.get("p2").unwrap().namespaces,
            ["u/.*"]
        );
    }

    #[test]
    fn a_parameter_that_is_not_text_is_refused_with_its_path() {
        let iso = r#"{"p1": {"namespaces": [], "primary": [],
            "auto_failover_policy": {"parameters": {"min_limit": [1]}}}}"#;
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", REPORT.as_bytes()),
            ImportInput::in_tree(
                "admin/clusters/c1/namespaceIsolationPolicies",
                iso.as_bytes(),
            ),
        ];
        let e = import(&inputs).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "$.p1.auto_failover_policy.parameters.min_limit: expected a string, found an array"
            ),
            "{e}"
        );
    }
}
