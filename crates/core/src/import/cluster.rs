//! Cluster-level metadata: the modular leader (`/loadbalance/leader`, also `GET
//! /admin/v2/brokers/leaderBroker`), failure domains (`/admin/clusters/<c>/failureDomain/<d>`) and
//! namespace isolation policies (`/admin/clusters/<c>/namespaceIsolationPolicies`).

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::diag::ImportError;
use super::json::{Ctx, JPath, field};
use crate::model::{AutoFailoverPolicy, NamespaceIsolationPolicy};

/// `{"brokerId": ..., "serviceUrl": ...}` (exactly the leader-election payload).
pub(crate) fn is_leader(m: &Map<String, Value>) -> bool {
    m.contains_key("serviceUrl") && m.keys().all(|k| k == "brokerId" || k == "serviceUrl")
}

/// The leader's brokerId; from `brokerId`, else the `host:port` of `serviceUrl`.
pub(crate) fn parse_leader(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<String, ImportError> {
    let m = ctx.object(v, p, "a leader {\"brokerId\", \"serviceUrl\"}")?;
    ctx.check_known(m, &["brokerId", "serviceUrl"], p);
    if let Some(id) = field(m, "brokerId") {
        return Ok(ctx.string(id, &p.key("brokerId"))?.to_string());
    }
    let ps = p.key("serviceUrl");
    let url =
        field(m, "serviceUrl").ok_or_else(|| ctx.err(p, "expected `brokerId` or `serviceUrl`"))?;
    let url = ctx.string(url, &ps)?;
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

/// Failure domain `{"brokers": [...]}`.
pub(crate) fn parse_failure_domain(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<Vec<String>, ImportError> {
    let m = ctx.object(v, p, "a failure domain {\"brokers\": [...]}")?;
    ctx.check_known(m, &["brokers"], p);
    match field(m, "brokers") {
        Some(b) => ctx.string_list(b, &p.key("brokers")),
        None => Ok(Vec::new()),
    }
}

/// Whether an object is a map of isolation policies (each value has `namespaces` and `primary`).
pub(crate) fn is_isolation_policies(m: &Map<String, Value>) -> bool {
    !m.is_empty()
        && m.values().all(|v| {
            v.as_object()
                .is_some_and(|o| o.contains_key("namespaces") && o.contains_key("primary"))
        })
}

pub(crate) fn parse_isolation_policies(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<IndexMap<String, NamespaceIsolationPolicy>, ImportError> {
    let m = ctx.object(v, p, "a map of namespace isolation policies")?;
    let mut out = IndexMap::with_capacity(m.len());
    for (name, pol) in m {
        let pp = p.key(name);
        out.insert(name.clone(), parse_isolation_policy(ctx, pol, &pp)?);
    }
    Ok(out)
}

/// Whether an object is one `NamespaceIsolationData`, as `pulsar-admin ns-isolation-policy get
/// CLUSTER POLICY` prints it (without the name map of the metadata-store node).
pub(crate) fn is_isolation_policy(m: &Map<String, Value>) -> bool {
    m.get("namespaces").is_some_and(Value::is_array)
        && m.get("primary").is_some_and(Value::is_array)
}

/// One `NamespaceIsolationData` at `pp`.
pub(crate) fn parse_isolation_policy(
    ctx: &mut Ctx<'_>,
    pol: &Value,
    pp: &JPath<'_>,
) -> Result<NamespaceIsolationPolicy, ImportError> {
    let pp = *pp;
    {
        let o = ctx.object(pol, &pp, "a namespace isolation policy")?;
        ctx.check_known(
            o,
            &["namespaces", "primary", "secondary", "auto_failover_policy"],
            &pp,
        );
        let list = |ctx: &Ctx<'_>, key: &str| -> Result<Vec<String>, ImportError> {
            field(o, key).map_or(Ok(Vec::new()), |l| ctx.string_list(l, &pp.key(key)))
        };
        let mut policy = NamespaceIsolationPolicy {
            namespaces: list(ctx, "namespaces")?,
            primary: list(ctx, "primary")?,
            secondary: list(ctx, "secondary")?,
            auto_failover_policy: None,
        };
        if let Some(a) = field(o, "auto_failover_policy") {
            let pa = pp.key("auto_failover_policy");
            let ao = ctx.object(a, &pa, "an auto failover policy")?;
            ctx.check_known(ao, &["policy_type", "parameters"], &pa);
            let mut afp = AutoFailoverPolicy::default();
            if let Some(t) = field(ao, "policy_type") {
                afp.policy_type = ctx.string(t, &pa.key("policy_type"))?.to_string();
            }
            if let Some(params) = field(ao, "parameters") {
                let ppar = pa.key("parameters");
                for (k, val) in ctx.object(params, &ppar, "a map of text parameters")? {
                    let text = match val {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        other => {
                            return Err(ctx.err(
                                &ppar.key(k),
                                format!(
                                    "expected a string, found {}",
                                    super::json::describe(other)
                                ),
                            ));
                        }
                    };
                    afp.parameters.insert(k.clone(), text);
                }
            }
            policy.auto_failover_policy = Some(afp);
        }
        Ok(policy)
    }
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
