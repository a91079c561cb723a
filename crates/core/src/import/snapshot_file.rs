//! Our own snapshot file (`lbplan import -o snapshot.json`): the envelope is checked field by field
//! with the same readers as Pulsar's files into [`Parts`], which are then added to [`Collected`] so
//! that a snapshot can be mixed with other exports and re-imports to an identical snapshot. The fast
//! typed reader (`super::fast`) produces the same [`Parts`] and shares [`apply`].

use indexmap::IndexMap;
use serde_json::Value;

use super::broker_conf::check_value;
use super::collect::{Collected, LayoutEntry, LayoutRank, Src};
use super::diag::{Diag, ImportError, WarningKind};
use super::json::{Ctx, JPath, field};
use super::{
    broker_load_data, broker_report, bundle_data, cluster, fields, policies, time_average,
    top_bundles, topic_list,
};
use crate::model::{
    BrokerLoadData, BundleData, LocalBrokerData, NamespaceIsolationPolicy, SNAPSHOT_FORMAT_VERSION,
    TimeAverageBrokerData, TopBundlesLoadData,
};
use crate::naming::BundleName;

pub(crate) const KNOWN: &[&str] = &[
    "format_version",
    "cluster",
    "captured_at_ms",
    "leader_broker",
    "broker_conf",
    "brokers",
    "bundle_data",
    "namespaces",
    "failure_domains",
    "namespace_isolation_policies",
    "recently_unloaded_bundles",
];

/// Everything one snapshot file says, checked, with the map keys as written (for paths).
#[derive(Default)]
pub(crate) struct Parts {
    pub cluster: Option<String>,
    pub leader: Option<String>,
    pub captured_at_ms: Option<i64>,
    pub conf: Vec<(String, String)>,
    pub brokers: Vec<BrokerParts>,
    /// `(key as written, parsed name, data)`.
    pub bundle_data: Vec<(String, BundleName, BundleData)>,
    pub namespaces: Vec<NamespaceParts>,
    pub failure_domains: Vec<(String, Vec<String>)>,
    pub isolation: IndexMap<String, NamespaceIsolationPolicy>,
    /// `(canonical bundle name, unload time)`.
    pub recently_unloaded: Vec<(String, i64)>,
}

pub(crate) struct BrokerParts {
    pub name: String,
    pub report: LocalBrokerData,
    pub time_average: Option<TimeAverageBrokerData>,
    pub load_data: Option<BrokerLoadData>,
    pub top_bundles: Option<TopBundlesLoadData>,
}

pub(crate) struct NamespaceParts {
    pub name: String,
    pub boundaries: Option<Vec<u32>>,
    pub anti_affinity_group: Option<String>,
    /// `Some` when the namespace has a `topics` list (possibly empty).
    pub topics: Option<Vec<String>>,
}

pub(crate) fn parse(
    file: &str,
    v: &Value,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let parts = {
        let mut ctx = Ctx { file, diag };
        read(&mut ctx, v)?
    };
    apply(file, parts, c, diag)
}

/// Checks a snapshot into [`Parts`] (warnings go to the context).
fn read(ctx: &mut Ctx<'_>, v: &Value) -> Result<Parts, ImportError> {
    let root = JPath::ROOT;
    let m = ctx.object(v, &root, "a snapshot")?;
    ctx.check_known(m, KNOWN, &root);
    let pv = root.key("format_version");
    let version = field(m, "format_version")
        .map(|x| ctx.non_negative_i64(x, &pv))
        .transpose()?
        .unwrap_or(0);
    check_version(ctx, version)?;
    let mut parts = Parts::default();
    let s = |ctx: &Ctx<'_>, key: &str| -> Result<Option<String>, ImportError> {
        field(m, key)
            .map(|x| ctx.string(x, &root.key(key)).map(str::to_string))
            .transpose()
    };
    parts.cluster = s(ctx, "cluster")?;
    parts.leader = s(ctx, "leader_broker")?;
    if let Some(t) = field(m, "captured_at_ms") {
        parts.captured_at_ms = Some(ctx.non_negative_i64(t, &root.key("captured_at_ms"))?);
    }
    if let Some(conf) = field(m, "broker_conf") {
        parts.conf = read_conf(ctx, conf)?;
    }
    if let Some(brokers) = field(m, "brokers") {
        let pb = root.key("brokers");
        for (name, b) in ctx.object(brokers, &pb, "a map of brokerId to broker")? {
            parts
                .brokers
                .push(read_broker(ctx, name, b, &pb.key(name))?);
        }
    }
    if let Some(data) = field(m, "bundle_data") {
        let pd = root.key("bundle_data");
        for (name, d) in ctx.object(data, &pd, "a map of bundle name to BundleData")? {
            let pn = pd.key(name);
            let bn = fields::bundle_name(ctx, name, &pn)?;
            let d = bundle_data::parse(ctx, d, &pn)?;
            parts.bundle_data.push((name.clone(), bn, d));
        }
    }
    if let Some(nss) = field(m, "namespaces") {
        let pn = root.key("namespaces");
        for (ns, n) in ctx.object(nss, &pn, "a map of namespace to its layout")? {
            parts
                .namespaces
                .push(read_namespace(ctx, ns, n, &pn.key(ns))?);
        }
    }
    if let Some(fd) = field(m, "failure_domains") {
        parts.failure_domains = read_failure_domains(ctx, fd)?;
    }
    if let Some(iso) = field(m, "namespace_isolation_policies") {
        let pi = root.key("namespace_isolation_policies");
        parts.isolation = cluster::parse_isolation_policies(ctx, iso, &pi)?;
    }
    if let Some(ru) = field(m, "recently_unloaded_bundles") {
        parts.recently_unloaded = read_recently_unloaded(ctx, ru)?;
    }
    Ok(parts)
}

pub(crate) fn check_version(ctx: &Ctx<'_>, version: i64) -> Result<(), ImportError> {
    if version == 0 || version > i64::from(SNAPSHOT_FORMAT_VERSION) {
        return Err(ctx.err(
            &JPath::ROOT.key("format_version"),
            format!(
                "expected format_version 1..={SNAPSHOT_FORMAT_VERSION}, found {version} (written by a \
                 newer lbplan?)"
            ),
        ));
    }
    Ok(())
}

/// `$.broker_conf`: load-balancing keys with text (or scalar) values.
pub(crate) fn read_conf(
    ctx: &mut Ctx<'_>,
    conf: &Value,
) -> Result<Vec<(String, String)>, ImportError> {
    let pc = JPath::ROOT.key("broker_conf");
    let mut out = Vec::new();
    for (key, val) in ctx.object(conf, &pc, "a map of broker.conf keys to text values")? {
        let pk = pc.key(key);
        let text = match val {
            Value::Array(_) | Value::Object(_) => {
                return Err(ctx.err(&pk, "expected a text value"));
            }
            other => crate::config::json_to_conf_text(other),
        };
        match check_value(key, &text) {
            Ok(true) => {}
            Ok(false) if key == "clusterName" => {}
            Ok(false) => ctx.warn(
                WarningKind::ConfKeyIgnored,
                &pk,
                format!("`{key}` is not a load-balancing key; kept as given"),
            ),
            Err(e) => return Err(ctx.err(&pk, e)),
        }
        out.push((key.clone(), text));
    }
    Ok(out)
}

/// `$.failure_domains`: domain → brokerIds.
pub(crate) fn read_failure_domains(
    ctx: &mut Ctx<'_>,
    fd: &Value,
) -> Result<Vec<(String, Vec<String>)>, ImportError> {
    let pf = JPath::ROOT.key("failure_domains");
    let mut out = Vec::new();
    for (domain, list) in ctx.object(fd, &pf, "a map of domain to brokerIds")? {
        out.push((domain.clone(), ctx.string_list(list, &pf.key(domain))?));
    }
    Ok(out)
}

/// `$.recently_unloaded_bundles`: bundle → unload time (ms).
pub(crate) fn read_recently_unloaded(
    ctx: &mut Ctx<'_>,
    ru: &Value,
) -> Result<Vec<(String, i64)>, ImportError> {
    let pr = JPath::ROOT.key("recently_unloaded_bundles");
    let mut out = Vec::new();
    for (name, t) in ctx.object(ru, &pr, "a map of bundle name to unload time (ms)")? {
        let pn = pr.key(name);
        let bn = fields::bundle_name(ctx, name, &pn)?;
        out.push((bn.to_string(), ctx.non_negative_i64(t, &pn)?));
    }
    Ok(out)
}

const BROKER_KNOWN: &[&str] = &[
    "local_broker_data",
    "time_average_broker_data",
    "broker_load_data",
    "top_bundles_load_data",
];

fn read_broker(
    ctx: &mut Ctx<'_>,
    name: &str,
    v: &Value,
    p: &JPath<'_>,
) -> Result<BrokerParts, ImportError> {
    let m = ctx.object(v, p, "a broker")?;
    ctx.check_known(m, BROKER_KNOWN, p);
    let pl = p.key("local_broker_data");
    let report = match field(m, "local_broker_data") {
        Some(l) => broker_report::parse_local_broker_data(ctx, l, &pl)?.data,
        None => return Err(ctx.err(&pl, "expected the broker's LocalBrokerData, found nothing")),
    };
    let time_average = field(m, "time_average_broker_data")
        .map(|t| time_average::parse(ctx, t, &p.key("time_average_broker_data")))
        .transpose()?;
    let load_data = field(m, "broker_load_data")
        .map(|t| broker_load_data::parse(ctx, t, &p.key("broker_load_data")))
        .transpose()?;
    let top_bundles = field(m, "top_bundles_load_data")
        .map(|t| top_bundles::parse(ctx, t, &p.key("top_bundles_load_data")))
        .transpose()?;
    Ok(BrokerParts {
        name: name.to_string(),
        report,
        time_average,
        load_data,
        top_bundles,
    })
}

fn read_namespace(
    ctx: &mut Ctx<'_>,
    ns: &str,
    v: &Value,
    p: &JPath<'_>,
) -> Result<NamespaceParts, ImportError> {
    let m = ctx.object(v, p, "a namespace")?;
    ctx.check_known(m, &["bundles", "anti_affinity_group", "topics"], p);
    let boundaries = field(m, "bundles")
        .map(|b| policies::parse_bundles_data(ctx, b, &p.key("bundles")))
        .transpose()?;
    let anti_affinity_group = field(m, "anti_affinity_group")
        .map(|g| {
            ctx.string(g, &p.key("anti_affinity_group"))
                .map(str::to_string)
        })
        .transpose()?;
    let topics = field(m, "topics")
        .map(|t| read_topics(ctx, ns, t, &p.key("topics")))
        .transpose()?;
    Ok(NamespaceParts {
        name: ns.to_string(),
        boundaries,
        anti_affinity_group,
        topics,
    })
}

/// A namespace's `topics`: every topic must be of that namespace.
pub(crate) fn read_topics(
    ctx: &mut Ctx<'_>,
    ns: &str,
    t: &Value,
    pt: &JPath<'_>,
) -> Result<Vec<String>, ImportError> {
    let mut out = Vec::new();
    for (topic_ns, topics) in topic_list::parse_json(ctx, t, pt)? {
        if topic_ns != ns {
            return Err(ctx.err(
                pt,
                format!("expected topics of namespace {ns}, found topics of {topic_ns}"),
            ));
        }
        out.extend(topics);
    }
    Ok(out)
}

/// Adds checked parts to what was collected, naming each source by its JSON path in `file`.
pub(crate) fn apply(
    file: &str,
    parts: Parts,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let root = JPath::ROOT;
    let shared: std::rc::Rc<str> = std::rc::Rc::from(file);
    if let Some(name) = parts.cluster {
        c.set_cluster(name, Src::within(file, "$.cluster".into()), diag);
    }
    if let Some(leader) = parts.leader {
        c.set_leader(leader, Src::within(file, "$.leader_broker".into()), diag);
    }
    if let Some(t) = parts.captured_at_ms {
        c.captured_at_ms = Some(t);
    }
    let pc = root.key("broker_conf");
    for (key, text) in parts.conf {
        let src = Src::within(file, pc.key(&key).render());
        c.add_conf(key, text, src, diag);
    }
    let pb = root.key("brokers");
    for b in parts.brokers {
        let p = pb.key(&b.name);
        let src = |k: &str| Src::shared(&shared, p.key(k).render());
        c.add_broker(b.name.clone(), src("local_broker_data"), b.report)?;
        if let Some(d) = b.time_average {
            c.add_time_average(b.name.clone(), src("time_average_broker_data"), d)?;
        }
        if let Some(d) = b.load_data {
            c.add_load_data(b.name.clone(), src("broker_load_data"), d)?;
        }
        if let Some(d) = b.top_bundles {
            c.add_top_bundles(b.name.clone(), src("top_bundles_load_data"), d)?;
        }
    }
    let pd = root.key("bundle_data");
    for (key, bn, d) in parts.bundle_data {
        let src = Src::shared(&shared, pd.key(&key).render());
        c.add_bundle_data(&bn.namespace, bn.range, src, d)?;
    }
    let pn = root.key("namespaces");
    for n in parts.namespaces {
        let p = pn.key(&n.name);
        if let Some(boundaries) = n.boundaries {
            c.add_layout(
                n.name.clone(),
                LayoutEntry {
                    src: Src::within(file, p.render()),
                    at: p.key("bundles").key("boundaries").render(),
                    rank: LayoutRank::Snapshot,
                    boundaries,
                },
            );
        }
        if let Some(g) = n.anti_affinity_group {
            c.add_anti_affinity(n.name.clone(), Src::within(file, p.render()), g, diag);
        }
        if let Some(topics) = n.topics {
            c.topics.entry(n.name).or_default().extend(topics);
        }
    }
    let pf = root.key("failure_domains");
    for (domain, brokers) in parts.failure_domains {
        let src = Src::within(file, pf.key(&domain).render());
        c.add_failure_domain(domain, brokers, src, diag);
    }
    let pi = root.key("namespace_isolation_policies");
    for (name, policy) in parts.isolation {
        let src = Src::within(file, pi.key(&name).render());
        c.add_isolation(name, policy, src, diag);
    }
    for (name, t) in parts.recently_unloaded {
        c.recently_unloaded.insert(name, t);
    }
    c.recognised += 1;
    Ok(())
}
