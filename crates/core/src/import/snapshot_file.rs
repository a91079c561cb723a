//! Our own snapshot file (`lbplan import -o snapshot.json`): the envelope is checked field by field
//! with the same readers as Pulsar's files, then decomposed into [`Collected`] so that a snapshot can
//! be mixed with other exports and re-imports to an identical snapshot.

use serde_json::Value;

use super::broker_conf::check_value;
use super::collect::{Collected, LayoutEntry, LayoutRank, Src};
use super::diag::{Diag, ImportError, WarningKind};
use super::json::{Ctx, JPath, field};
use super::{
    broker_load_data, broker_report, bundle_data, cluster, fields, policies, time_average,
    top_bundles, topic_list,
};
use crate::model::SNAPSHOT_FORMAT_VERSION;

const KNOWN: &[&str] = &[
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

/// Whether a JSON object is one of our snapshots.
pub(crate) fn is_snapshot(v: &Value) -> bool {
    v.get("format_version").is_some()
}

pub(crate) fn parse(
    file: &str,
    v: &Value,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let root = JPath::ROOT;
    let mut ctx = Ctx { file, diag };
    let m = ctx.object(v, &root, "a snapshot")?;
    ctx.check_known(m, KNOWN, &root);
    let pv = root.key("format_version");
    let version = field(m, "format_version")
        .map(|x| ctx.non_negative_i64(x, &pv))
        .transpose()?
        .unwrap_or(0);
    if version == 0 || version > i64::from(SNAPSHOT_FORMAT_VERSION) {
        return Err(ctx.err(
            &pv,
            format!(
                "expected format_version 1..={SNAPSHOT_FORMAT_VERSION}, found {version} (written by a \
                 newer lbplan?)"
            ),
        ));
    }
    let s = |ctx: &Ctx<'_>, key: &str| -> Result<Option<String>, ImportError> {
        field(m, key)
            .map(|x| ctx.string(x, &root.key(key)).map(str::to_string))
            .transpose()
    };
    if let Some(name) = s(&ctx, "cluster")? {
        c.set_cluster(name, Src::within(file, "$.cluster".into()), ctx.diag);
    }
    if let Some(leader) = s(&ctx, "leader_broker")? {
        c.set_leader(
            leader,
            Src::within(file, "$.leader_broker".into()),
            ctx.diag,
        );
    }
    if let Some(t) = field(m, "captured_at_ms") {
        c.captured_at_ms = Some(ctx.non_negative_i64(t, &root.key("captured_at_ms"))?);
    }
    if let Some(conf) = field(m, "broker_conf") {
        let pc = root.key("broker_conf");
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
            c.add_conf(key.clone(), text, Src::within(file, pk.render()), ctx.diag);
        }
    }
    if let Some(brokers) = field(m, "brokers") {
        let pb = root.key("brokers");
        for (name, b) in ctx.object(brokers, &pb, "a map of brokerId to broker")? {
            read_broker(&mut ctx, c, name, b, &pb.key(name))?;
        }
    }
    if let Some(data) = field(m, "bundle_data") {
        let pd = root.key("bundle_data");
        for (name, d) in ctx.object(data, &pd, "a map of bundle name to BundleData")? {
            let pn = pd.key(name);
            let bn = fields::bundle_name(&ctx, name, &pn)?;
            let d = bundle_data::parse(&mut ctx, d, &pn)?;
            c.add_bundle_data(bn.namespace, bn.range, Src::within(file, pn.render()), d)?;
        }
    }
    if let Some(nss) = field(m, "namespaces") {
        let pn = root.key("namespaces");
        for (ns, n) in ctx.object(nss, &pn, "a map of namespace to its layout")? {
            read_namespace(&mut ctx, c, ns, n, &pn.key(ns))?;
        }
    }
    if let Some(fd) = field(m, "failure_domains") {
        let pf = root.key("failure_domains");
        for (domain, list) in ctx.object(fd, &pf, "a map of domain to brokerIds")? {
            let pd = pf.key(domain);
            let brokers = ctx.string_list(list, &pd)?;
            c.add_failure_domain(
                domain.clone(),
                brokers,
                Src::within(file, pd.render()),
                ctx.diag,
            );
        }
    }
    if let Some(iso) = field(m, "namespace_isolation_policies") {
        let pi = root.key("namespace_isolation_policies");
        for (name, policy) in cluster::parse_isolation_policies(&mut ctx, iso, &pi)? {
            let src = Src::within(file, pi.key(&name).render());
            c.add_isolation(name, policy, src, ctx.diag);
        }
    }
    if let Some(ru) = field(m, "recently_unloaded_bundles") {
        let pr = root.key("recently_unloaded_bundles");
        for (name, t) in ctx.object(ru, &pr, "a map of bundle name to unload time (ms)")? {
            let pn = pr.key(name);
            let bn = fields::bundle_name(&ctx, name, &pn)?;
            let t = ctx.non_negative_i64(t, &pn)?;
            c.recently_unloaded.insert(bn.to_string(), t);
        }
    }
    c.recognised += 1;
    Ok(())
}

fn read_broker(
    ctx: &mut Ctx<'_>,
    c: &mut Collected,
    name: &str,
    v: &Value,
    p: &JPath<'_>,
) -> Result<(), ImportError> {
    let file = ctx.file;
    let m = ctx.object(v, p, "a broker")?;
    ctx.check_known(
        m,
        &[
            "local_broker_data",
            "time_average_broker_data",
            "broker_load_data",
            "top_bundles_load_data",
        ],
        p,
    );
    let pl = p.key("local_broker_data");
    let report = match field(m, "local_broker_data") {
        Some(l) => broker_report::parse_local_broker_data(ctx, l, &pl)?.data,
        None => return Err(ctx.err(&pl, "expected the broker's LocalBrokerData, found nothing")),
    };
    c.add_broker(name.to_string(), Src::within(file, pl.render()), report)?;
    if let Some(t) = field(m, "time_average_broker_data") {
        let pt = p.key("time_average_broker_data");
        let d = time_average::parse(ctx, t, &pt)?;
        c.add_time_average(name.to_string(), Src::within(file, pt.render()), d)?;
    }
    if let Some(t) = field(m, "broker_load_data") {
        let pt = p.key("broker_load_data");
        let d = broker_load_data::parse(ctx, t, &pt)?;
        c.add_load_data(name.to_string(), Src::within(file, pt.render()), d)?;
    }
    if let Some(t) = field(m, "top_bundles_load_data") {
        let pt = p.key("top_bundles_load_data");
        let d = top_bundles::parse(ctx, t, &pt)?;
        c.add_top_bundles(name.to_string(), Src::within(file, pt.render()), d)?;
    }
    Ok(())
}

fn read_namespace(
    ctx: &mut Ctx<'_>,
    c: &mut Collected,
    ns: &str,
    v: &Value,
    p: &JPath<'_>,
) -> Result<(), ImportError> {
    let file = ctx.file;
    let m = ctx.object(v, p, "a namespace")?;
    ctx.check_known(m, &["bundles", "anti_affinity_group", "topics"], p);
    if let Some(b) = field(m, "bundles") {
        let pb = p.key("bundles");
        let boundaries = policies::parse_bundles_data(ctx, b, &pb)?;
        c.add_layout(
            ns.to_string(),
            LayoutEntry {
                src: Src::within(file, p.render()),
                at: pb.key("boundaries").render(),
                rank: LayoutRank::Snapshot,
                boundaries,
            },
        );
    }
    if let Some(g) = field(m, "anti_affinity_group") {
        let pg = p.key("anti_affinity_group");
        let g = ctx.string(g, &pg)?.to_string();
        c.add_anti_affinity(ns.to_string(), Src::within(file, p.render()), g, ctx.diag);
    }
    if let Some(t) = field(m, "topics") {
        let pt = p.key("topics");
        for (topic_ns, topics) in topic_list::parse_json(ctx, t, &pt)? {
            if topic_ns != ns {
                return Err(ctx.err(
                    &pt,
                    format!("expected topics of namespace {ns}, found topics of {topic_ns}"),
                ));
            }
            c.topics.entry(ns.to_string()).or_default().extend(topics);
        }
        c.topics.entry(ns.to_string()).or_default();
    }
    Ok(())
}
