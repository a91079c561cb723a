//! Our own snapshot file (`lbplan import -o snapshot.json`): one typed reader ([`typed`] leaves,
//! the same checks as Pulsar's files, from the text without a tree) into [`Parts`], which are then
//! added to [`Collected`] so that a snapshot can be mixed with other exports and re-imports to an
//! identical snapshot. Unknown keys at any level are warnings naming their JSON path.

use indexmap::IndexMap;

use crate::import::broker_conf::check_value;
use crate::import::broker_load_data::RawBrokerLoadData;
use crate::import::broker_report::RawLocalBrokerData;
use crate::import::bundle_data::RawBundleData;
use crate::import::cluster::RawIsolationPolicies;
use crate::import::collect::{Collected, LayoutEntry, LayoutRank, Src};
use crate::import::diag::{Diag, ImportError, WarningKind};
use crate::import::json::{Ctx, JPath};
use crate::import::policies::RawBundlesData;
use crate::import::time_average::RawTimeAverage;
use crate::import::top_bundles::RawTopBundles;
use crate::import::typed::{self, Entries, Leaf, List, Object, Unknown, json_object};
use crate::import::{
    broker_load_data, broker_report, bundle_data, cluster, fields, policies, time_average,
    top_bundles, topic_list,
};
use crate::model::{
    BrokerLoadData, BrokerSnapshot, BundleData, LocalBrokerData, NamespaceIsolationPolicy,
    SNAPSHOT_FORMAT_VERSION, TimeAverageBrokerData, TopBundlesLoadData,
};
use crate::naming::BundleName;

/// A map of `T` by name, as read.
type RawMap<'a, T> = Option<Object<'a, Entries<'a, T>>>;

/// The snapshot as read (`model::Snapshot`'s fields).
#[derive(Default)]
struct RawSnapshot<'a> {
    format_version: Option<Leaf<'a>>,
    cluster: Option<Leaf<'a>>,
    captured_at_ms: Option<Leaf<'a>>,
    leader_broker: Option<Leaf<'a>>,
    broker_conf: RawMap<'a, Leaf<'a>>,
    brokers: RawMap<'a, Object<'a, RawBroker<'a>>>,
    bundle_data: RawMap<'a, Object<'a, RawBundleData<'a>>>,
    namespaces: RawMap<'a, Object<'a, RawNamespace<'a>>>,
    failure_domains: RawMap<'a, List<'a, Leaf<'a>>>,
    namespace_isolation_policies: Option<RawIsolationPolicies<'a>>,
    recently_unloaded_bundles: RawMap<'a, Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawSnapshot, "a snapshot", {
    "format_version" => format_version,
    "cluster" => cluster,
    "captured_at_ms" => captured_at_ms,
    "leader_broker" => leader_broker,
    "broker_conf" => broker_conf,
    "brokers" => brokers,
    "bundle_data" => bundle_data,
    "namespaces" => namespaces,
    "failure_domains" => failure_domains,
    "namespace_isolation_policies" => namespace_isolation_policies,
    "recently_unloaded_bundles" => recently_unloaded_bundles,
}, unknown: unknown);

/// One broker of the snapshot as read.
#[derive(Default)]
struct RawBroker<'a> {
    local_broker_data: Option<Object<'a, RawLocalBrokerData<'a>>>,
    time_average_broker_data: Option<Object<'a, RawTimeAverage<'a>>>,
    broker_load_data: Option<Object<'a, RawBrokerLoadData<'a>>>,
    top_bundles_load_data: Option<Object<'a, RawTopBundles<'a>>>,
    unknown: Unknown<'a>,
}

json_object!(RawBroker, "a broker", {
    "local_broker_data" => local_broker_data,
    "time_average_broker_data" => time_average_broker_data,
    "broker_load_data" => broker_load_data,
    "top_bundles_load_data" => top_bundles_load_data,
}, unknown: unknown);

/// One namespace of the snapshot as read.
#[derive(Default)]
struct RawNamespace<'a> {
    bundles: Option<Object<'a, RawBundlesData<'a>>>,
    anti_affinity_group: Option<Leaf<'a>>,
    topics: Option<List<'a, Leaf<'a>>>,
    unknown: Unknown<'a>,
}

json_object!(RawNamespace, "a namespace", {
    "bundles" => bundles,
    "anti_affinity_group" => anti_affinity_group,
    "topics" => topics,
}, unknown: unknown);

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

/// Our snapshot file read from its text by this reader, checked.
pub(super) fn parts(file: &str, text: &str, diag: &mut Diag) -> Result<Parts, ImportError> {
    let raw = typed::from_text(file, text)?;
    check(&mut Ctx { file, diag }, raw)
}

/// This reader on `text`, `None` on an error or a warning: what [`super::fast_reader`] does not read
/// itself (every member but `brokers` and `bundle_data`, as written).
pub(super) fn check_quiet(file: &str, text: &str) -> Option<Parts> {
    let raw = typed::from_text(file, text).ok()?;
    let mut diag = Diag::default();
    let parts = check(
        &mut Ctx {
            file,
            diag: &mut diag,
        },
        raw,
    )
    .ok()?;
    diag.is_empty().then_some(parts)
}

/// One broker entry of a snapshot (the value of `$.brokers["<id>"]`) from its own text, with the
/// snapshot's checks: the history store keeps each broker entry as a part of its own.
pub(crate) fn broker_entry(ctx: &mut Ctx<'_>, text: &str) -> Result<BrokerSnapshot, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    let b = read_broker(ctx, "", raw, &JPath::ROOT)?;
    Ok(BrokerSnapshot {
        local_broker_data: b.report,
        time_average_broker_data: b.time_average,
        broker_load_data: b.load_data,
        top_bundles_load_data: b.top_bundles,
    })
}

/// `bundle_data` entries of a snapshot (bundle name → `BundleData`) from their own text, with the
/// snapshot's checks: the history store keeps runs of one namespace's entries as parts.
pub(crate) fn bundle_data_entries(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<IndexMap<String, BundleData>, ImportError> {
    let raw: Object<'_, Entries<'_, Object<'_, RawBundleData<'_>>>> =
        typed::from_text(ctx.file, text)?;
    let root = JPath::ROOT;
    let data = raw.get(ctx, &root, "a map of bundle name to BundleData")?;
    let mut out = IndexMap::with_capacity(data.0.len());
    for (name, d) in data.0 {
        let pn = root.key(&name);
        fields::bundle_name(ctx, &name, &pn)?;
        let d = bundle_data::check(ctx, d, &pn)?;
        out.insert(name.into_owned(), d);
    }
    Ok(out)
}

/// Checks a snapshot into [`Parts`] (warnings go to the context).
fn check(ctx: &mut Ctx<'_>, raw: Object<'_, RawSnapshot<'_>>) -> Result<Parts, ImportError> {
    let root = JPath::ROOT;
    let m = raw.get(ctx, &root, "a snapshot")?;
    m.unknown.warn(ctx, &root);
    let pv = root.key("format_version");
    let version = m
        .format_version
        .map(|x| ctx.non_negative_i64(&x.value(), &pv))
        .transpose()?
        .unwrap_or(0);
    check_version(ctx, version)?;
    let mut parts = Parts::default();
    let s =
        |ctx: &Ctx<'_>, x: Option<Leaf<'_>>, key: &str| -> Result<Option<String>, ImportError> {
            x.map(|x| x.string(ctx, &root.key(key)).map(str::to_string))
                .transpose()
        };
    parts.cluster = s(ctx, m.cluster, "cluster")?;
    parts.leader = s(ctx, m.leader_broker, "leader_broker")?;
    if let Some(t) = m.captured_at_ms {
        parts.captured_at_ms = Some(ctx.non_negative_i64(&t.value(), &root.key("captured_at_ms"))?);
    }
    if let Some(conf) = m.broker_conf {
        parts.conf = read_conf(ctx, conf)?;
    }
    if let Some(brokers) = m.brokers {
        let pb = root.key("brokers");
        for (name, b) in brokers.get(ctx, &pb, "a map of brokerId to broker")?.0 {
            let broker = read_broker(ctx, &name, b, &pb.key(&name))?;
            parts.brokers.push(broker);
        }
    }
    if let Some(data) = m.bundle_data {
        let pd = root.key("bundle_data");
        let data = data.get(ctx, &pd, "a map of bundle name to BundleData")?;
        parts.bundle_data.reserve(data.0.len());
        for (name, d) in data.0 {
            let pn = pd.key(&name);
            let bn = fields::bundle_name(ctx, &name, &pn)?;
            let d = bundle_data::check(ctx, d, &pn)?;
            parts.bundle_data.push((name.into_owned(), bn, d));
        }
    }
    if let Some(nss) = m.namespaces {
        let pn = root.key("namespaces");
        for (ns, n) in nss.get(ctx, &pn, "a map of namespace to its layout")?.0 {
            let namespace = read_namespace(ctx, &ns, n, &pn.key(&ns))?;
            parts.namespaces.push(namespace);
        }
    }
    if let Some(fd) = m.failure_domains {
        let pf = root.key("failure_domains");
        for (domain, list) in fd.get(ctx, &pf, "a map of domain to brokerIds")?.0 {
            let brokers = cluster::strings(ctx, list, &pf.key(&domain))?;
            parts.failure_domains.push((domain.into_owned(), brokers));
        }
    }
    if let Some(iso) = m.namespace_isolation_policies {
        let pi = root.key("namespace_isolation_policies");
        parts.isolation = cluster::check_isolation_policies(ctx, iso, &pi)?;
    }
    if let Some(ru) = m.recently_unloaded_bundles {
        let pr = root.key("recently_unloaded_bundles");
        let ru = ru.get(ctx, &pr, "a map of bundle name to unload time (ms)")?;
        for (name, t) in ru.0 {
            let pn = pr.key(&name);
            let bn = fields::bundle_name(ctx, &name, &pn)?;
            let t = ctx.non_negative_i64(&t.value(), &pn)?;
            parts.recently_unloaded.push((bn.to_string(), t));
        }
    }
    Ok(parts)
}

fn check_version(ctx: &Ctx<'_>, version: i64) -> Result<(), ImportError> {
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
fn read_conf(
    ctx: &mut Ctx<'_>,
    conf: Object<'_, Entries<'_, Leaf<'_>>>,
) -> Result<Vec<(String, String)>, ImportError> {
    let pc = JPath::ROOT.key("broker_conf");
    let conf = conf.get(ctx, &pc, "a map of broker.conf keys to text values")?;
    let mut out = Vec::with_capacity(conf.0.len());
    for (key, val) in conf.0 {
        let pk = pc.key(&key);
        let text = match &val {
            Leaf::Str(s) => s.to_string(),
            Leaf::Other(v) if v.is_array() || v.is_object() => {
                return Err(ctx.err(&pk, "expected a text value"));
            }
            Leaf::Other(v) => crate::config::json_to_conf_text(v),
        };
        match check_value(&key, &text) {
            Ok(true) => {}
            Ok(false) if key == "clusterName" => {}
            Ok(false) => ctx.warn(
                WarningKind::ConfKeyIgnored,
                &pk,
                format!("`{key}` is not a load-balancing key; kept as given"),
            ),
            Err(e) => return Err(ctx.err(&pk, e)),
        }
        out.push((key.into_owned(), text));
    }
    Ok(out)
}

fn read_broker(
    ctx: &mut Ctx<'_>,
    name: &str,
    raw: Object<'_, RawBroker<'_>>,
    p: &JPath<'_>,
) -> Result<BrokerParts, ImportError> {
    let m = raw.get(ctx, p, "a broker")?;
    m.unknown.warn(ctx, p);
    let pl = p.key("local_broker_data");
    let report = match m.local_broker_data {
        Some(l) => broker_report::check_local_broker_data(ctx, l, &pl)?.data,
        None => return Err(ctx.err(&pl, "expected the broker's LocalBrokerData, found nothing")),
    };
    let time_average = m
        .time_average_broker_data
        .map(|t| time_average::check(ctx, t, &p.key("time_average_broker_data")))
        .transpose()?;
    let load_data = m
        .broker_load_data
        .map(|t| broker_load_data::check(ctx, t, &p.key("broker_load_data")))
        .transpose()?;
    let top_bundles = m
        .top_bundles_load_data
        .map(|t| top_bundles::check(ctx, t, &p.key("top_bundles_load_data")))
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
    raw: Object<'_, RawNamespace<'_>>,
    p: &JPath<'_>,
) -> Result<NamespaceParts, ImportError> {
    crate::naming::check_imported_namespace(ns).map_err(|e| ctx.err(p, e.to_string()))?;
    let m = raw.get(ctx, p, "a namespace")?;
    m.unknown.warn(ctx, p);
    let pb = p.key("bundles");
    let boundaries = m
        .bundles
        .map(|b| {
            let b = b.get(ctx, &pb, policies::BUNDLES_DATA)?;
            policies::check_bundles_data(ctx, b, &pb)
        })
        .transpose()?;
    let anti_affinity_group = m
        .anti_affinity_group
        .map(|g| {
            g.string(ctx, &p.key("anti_affinity_group"))
                .map(str::to_string)
        })
        .transpose()?;
    let topics = m
        .topics
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
fn read_topics(
    ctx: &mut Ctx<'_>,
    ns: &str,
    t: List<'_, Leaf<'_>>,
    pt: &JPath<'_>,
) -> Result<Vec<String>, ImportError> {
    let mut out = Vec::new();
    for (topic_ns, topics) in topic_list::check_list(ctx, t, pt)? {
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
pub(super) fn apply(
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

#[cfg(test)]
mod tests {
    //! The one snapshot reader: unknown keys at every level are warnings naming their JSON path,
    //! and a written snapshot reads back to itself without any warning.

    use crate::import::{ImportInput, WarningKind, import};

    const SNAPSHOT: &str = r#"{"format_version": 1, "cluster": "c", "x": 1,
        "brokers": {"b1:8080": {"local_broker_data": {"lastUpdate": 1,
            "cpu": {"usage": 1, "limit": 100}, "y": 2}, "z": 3}},
        "namespaces": {"t/ns": {"bundles": {"numBundles": 2, "v": 4}, "w": 5}}}"#;

    #[test]
    fn unknown_keys_are_warnings_naming_their_path() {
        let out = import(&[ImportInput::given("s.json", SNAPSHOT.as_bytes())]).unwrap();
        let unknown: Vec<String> = out
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::UnknownField)
            .map(|w| format!("{} {}", w.at.clone().unwrap_or_default(), w.message))
            .collect();
        assert_eq!(
            unknown,
            [
                "$ unknown field `x` ignored",
                "$.brokers[\"b1:8080\"] unknown field `z` ignored",
                "$.brokers[\"b1:8080\"].local_broker_data unknown field `y` ignored",
                "$.namespaces[\"t/ns\"] unknown field `w` ignored",
                "$.namespaces[\"t/ns\"].bundles unknown field `v` ignored",
            ]
        );
        // Two bundles of the default partitioning (§4.5).
        assert_eq!(out.snapshot.namespaces["t/ns"].bundles.num_bundles, 2);
        let again = serde_json::to_vec(&out.snapshot).unwrap();
        let back = import(&[ImportInput::given("s2.json", again.as_slice())]).unwrap();
        assert_eq!(back.snapshot, out.snapshot);
        assert!(
            back.warnings
                .iter()
                .all(|w| w.kind != WarningKind::UnknownField),
            "{:?}",
            back.warnings
        );
    }

    #[test]
    fn wrong_shapes_are_refused_with_their_path() {
        let e = import(&[ImportInput::given(
            "s.json",
            br#"{"format_version": 1, "brokers": {"b1:8080": {}}}"#.as_slice(),
        )])
        .unwrap_err()
        .to_string();
        assert!(
            e.ends_with(
                "$.brokers[\"b1:8080\"].local_broker_data: expected the broker's \
                 LocalBrokerData, found nothing"
            ),
            "{e}"
        );
        let e = import(&[ImportInput::given(
            "s.json",
            br#"{"format_version": 1, "failure_domains": {"d": [1]}}"#.as_slice(),
        )])
        .unwrap_err()
        .to_string();
        assert!(
            e.ends_with("$.failure_domains.d[0]: expected a string, found the number 1"),
            "{e}"
        );
        let e = import(&[ImportInput::given(
            "s.json",
            b"{\"format_version\": 1,\n \"brokers\": {".as_slice(),
        )])
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 2") && e.contains("truncated"), "{e}");
    }
}
