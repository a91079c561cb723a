//! Readers for the pieces several Pulsar objects share: `ResourceUsage` (with the rules on negative
//! and zero limits), `NamespaceBundleStats` and bundle names. Each checks typed values ([`typed`]
//! leaves) and names the path.

use super::diag::{ImportError, WarningKind};
use super::json::{Ctx, JPath};
use super::typed::{Leaf, Object, Unknown, json_object};
use crate::model::{BrokerLoadData, LocalBrokerData, NamespaceBundleStats, ResourceUsage};
use crate::naming::{BundleName, BundleRange, parse_bundle_name, push_boundary};
use crate::units::percent_usage;

/// A `ResourceUsage` as read.
#[derive(Default)]
pub(crate) struct RawResource<'a> {
    usage: Option<Leaf<'a>>,
    limit: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawResource, "a resource usage", {
    "usage" => usage,
    "limit" => limit,
}, unknown: unknown);

/// A resource as read: `None` when absent (or `null`).
pub(crate) type RawResourceField<'a> = Option<Object<'a, RawResource<'a>>>;

/// `NamespaceBundleStats` as read, its fields in Pulsar's order.
#[derive(Default)]
pub(crate) struct RawStats<'a> {
    msg_rate_in: Option<Leaf<'a>>,
    msg_throughput_in: Option<Leaf<'a>>,
    msg_rate_out: Option<Leaf<'a>>,
    msg_throughput_out: Option<Leaf<'a>>,
    consumer_count: Option<Leaf<'a>>,
    producer_count: Option<Leaf<'a>>,
    topics: Option<Leaf<'a>>,
    cache_size: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawStats, "NamespaceBundleStats", {
    "msgRateIn" => msg_rate_in,
    "msgThroughputIn" => msg_throughput_in,
    "msgRateOut" => msg_rate_out,
    "msgThroughputOut" => msg_throughput_out,
    "consumerCount" => consumer_count,
    "producerCount" => producer_count,
    "topics" => topics,
    "cacheSize" => cache_size,
}, unknown: unknown);

/// Which resource a `ResourceUsage` is: decides whether a limit of 0 is allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    /// cpu, memory, directMemory: a real broker always reports a positive capacity.
    Capacity,
    /// bandwidthIn/Out: limit 0 is Pulsar's "NIC speed unknown" (the resource then counts as 0 %).
    Bandwidth,
}

/// The five resources of a report, with their kinds.
pub(crate) const RESOURCES: [(&str, Resource); 5] = [
    ("cpu", Resource::Capacity),
    ("memory", Resource::Capacity),
    ("directMemory", Resource::Capacity),
    ("bandwidthIn", Resource::Bandwidth),
    ("bandwidthOut", Resource::Bandwidth),
];

/// Pulsar's marker for "could not sample" (`SystemResourceUsage` starts at −1, a failed cpu read
/// reports −1).
const NOT_SAMPLED: f64 = -1.0;

/// Checks the resource `key` of a report. `Ok(None)` when absent.
///
/// Rules (documented in docs/snapshot-format.md): usage and limit are finite; negative values are
/// errors except Pulsar's −1 marker (warning); limit 0 is an error for cpu/memory/directMemory when
/// usage is positive (Pulsar would silently count the resource as 0 %), a warning otherwise.
pub(crate) fn resource(
    ctx: &mut Ctx<'_>,
    raw: RawResourceField<'_>,
    key: &str,
    kind: Resource,
    p: &JPath<'_>,
) -> Result<Option<ResourceUsage>, ImportError> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    let p = p.key(key);
    let o = raw.get(ctx, &p, "a resource usage {\"usage\", \"limit\"}")?;
    o.unknown.warn(ctx, &p);
    let pu = p.key("usage");
    let pl = p.key("limit");
    let usage = match o.usage {
        Some(v) => ctx.number(&v.value(), &pu)?,
        None => 0.0,
    };
    let limit = match o.limit {
        Some(v) => ctx.number(&v.value(), &pl)?,
        None => 0.0,
    };
    if usage < 0.0 {
        if usage != NOT_SAMPLED {
            return Err(ctx.err(
                &pu,
                format!(
                    "expected a non-negative usage (or -1, Pulsar's \"not sampled\"), found {usage}"
                ),
            ));
        }
        // What Pulsar's percentUsage gives: below 0 % over a positive limit, exactly 0 % when
        // the limit is not positive (`-1`/`-1` is the usual "not sampled" pair).
        let says = if limit > 0.0 {
            format!(
                "Pulsar computes {} %, just below 0",
                percent_usage(usage, limit)
            )
        } else {
            "Pulsar computes exactly 0 % (its percentUsage is 0 when the limit is not above 0)"
                .to_string()
        };
        ctx.warn(
            WarningKind::UnsampledResource,
            &pu,
            format!("usage -1 (Pulsar could not sample it) kept: {says}"),
        );
    }
    if limit < 0.0 {
        if limit != NOT_SAMPLED || usage != NOT_SAMPLED {
            return Err(ctx.err(
                &pl,
                format!("expected a non-negative limit (or -1 with usage -1), found {limit}"),
            ));
        }
    } else if limit == 0.0 {
        match kind {
            Resource::Bandwidth => ctx.warn(
                WarningKind::UnsampledResource,
                &pl,
                "limit 0 (NIC speed unknown): counts as 0 %, as in Pulsar; set \
                 loadBalancerOverrideBrokerNicSpeedGbps to count bandwidth",
            ),
            // Pulsar takes such a report (e.g. directMemory when the JVM's limit was not read)
            // and counts the resource as 0 %: so do we, saying so.
            Resource::Capacity if usage > 0.0 => ctx.warn(
                WarningKind::UnsampledResource,
                &pl,
                format!(
                    "limit 0 with usage {usage}: Pulsar computes 0 % for this resource (its \
                     percentUsage is 0 when the limit is not above 0), so it never counts as \
                     loaded; planned as Pulsar does"
                ),
            ),
            Resource::Capacity => ctx.warn(
                WarningKind::UnsampledResource,
                &pl,
                "no sample (usage 0, limit 0): counts as 0 %",
            ),
        }
    }
    if !percent_usage(usage, limit).is_finite() {
        // Pulsar's percentUsage is a Java float: ∞ (or NaN) here would reach every plan number.
        return Err(ctx.err(
            &pu,
            format!(
                "usage {usage:?} of limit {limit:?} overflows Pulsar's 32-bit percentage (a Java float \
                 holds at most 3.4028235e38): expected a usage and limit a float can hold"
            ),
        ));
    }
    Ok(Some(ResourceUsage::new(usage, limit)))
}

/// The five resources of a report in [`RESOURCES`] order, checked as [`resource`] does; a missing
/// one is `{0, 0}` (0 %) with a warning. Read into `into`'s five fields, the one place that pairs
/// the keys with them.
pub(crate) fn resources(
    ctx: &mut Ctx<'_>,
    raw: [RawResourceField<'_>; 5],
    p: &JPath<'_>,
    into: &mut impl HasResources,
) -> Result<(), ImportError> {
    for ((slot, (key, kind)), r) in into.resources_mut().into_iter().zip(RESOURCES).zip(raw) {
        match resource(ctx, r, key, kind, p)? {
            Some(r) => *slot = r,
            None => {
                *slot = ResourceUsage::default();
                ctx.warn(
                    WarningKind::MissingResource,
                    p,
                    format!("no `{key}` sample: {{usage: 0, limit: 0}} assumed (counts as 0 %)"),
                );
            }
        }
    }
    Ok(())
}

/// A Pulsar object with the five resources (`LocalBrokerData`, `BrokerLoadData`).
pub(crate) trait HasResources {
    /// Its resource fields in [`RESOURCES`] order.
    fn resources_mut(&mut self) -> [&mut ResourceUsage; 5];
}

impl HasResources for LocalBrokerData {
    fn resources_mut(&mut self) -> [&mut ResourceUsage; 5] {
        [
            &mut self.cpu,
            &mut self.memory,
            &mut self.direct_memory,
            &mut self.bandwidth_in,
            &mut self.bandwidth_out,
        ]
    }
}

impl HasResources for BrokerLoadData {
    fn resources_mut(&mut self) -> [&mut ResourceUsage; 5] {
        [
            &mut self.cpu,
            &mut self.memory,
            &mut self.direct_memory,
            &mut self.bandwidth_in,
            &mut self.bandwidth_out,
        ]
    }
}

/// `NamespaceBundleStats`: every number finite and ≥ 0.
pub(crate) fn bundle_stats(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawStats<'_>>,
    p: &JPath<'_>,
) -> Result<NamespaceBundleStats, ImportError> {
    let m = raw.get(ctx, p, "NamespaceBundleStats")?;
    m.unknown.warn(ctx, p);
    let mut s = NamespaceBundleStats::default();
    for (key, x, slot) in [
        ("msgRateIn", m.msg_rate_in, &mut s.msg_rate_in),
        (
            "msgThroughputIn",
            m.msg_throughput_in,
            &mut s.msg_throughput_in,
        ),
        ("msgRateOut", m.msg_rate_out, &mut s.msg_rate_out),
        (
            "msgThroughputOut",
            m.msg_throughput_out,
            &mut s.msg_throughput_out,
        ),
    ] {
        if let Some(x) = x {
            *slot = ctx.non_negative(&x.value(), &p.key(key))?;
        }
    }
    for (key, x, slot) in [
        ("consumerCount", m.consumer_count, &mut s.consumer_count),
        ("producerCount", m.producer_count, &mut s.producer_count),
        ("topics", m.topics, &mut s.topics),
        ("cacheSize", m.cache_size, &mut s.cache_size),
    ] {
        if let Some(x) = x {
            *slot = ctx.non_negative_i64(&x.value(), &p.key(key))?;
        }
    }
    Ok(s)
}

/// A full bundle name `tenant/ns/0xXXXXXXXX_0xXXXXXXXX` (any `Long.decode` form; normalised later).
pub(crate) fn bundle_name(
    ctx: &Ctx<'_>,
    text: &str,
    p: &JPath<'_>,
) -> Result<BundleName, ImportError> {
    let name = parse_bundle_name(text).map_err(|_| not_a_bundle_name(ctx, text, p))?;
    crate::naming::check_imported_namespace(BundleName::namespace_of(text))
        .map_err(|e| ctx.err(p, format!("bundle \"{text}\": {e}")))?;
    Ok(name)
}

/// [`bundle_name`]'s check, the name in Pulsar's canonical spelling (`BundleName`'s `Display`)
/// built without `format!`'s machinery: this runs for every bundle of every report (the history
/// decodes a report per changed broker per snapshot).
pub(crate) fn canonical_bundle_name(
    ctx: &Ctx<'_>,
    text: &str,
    p: &JPath<'_>,
) -> Result<String, ImportError> {
    let (namespace, range) =
        BundleName::split(text).ok_or_else(|| not_a_bundle_name(ctx, text, p))?;
    crate::naming::check_imported_namespace(namespace)
        .map_err(|e| ctx.err(p, format!("bundle \"{text}\": {e}")))?;
    Ok(bundle_key(namespace, range))
}

fn not_a_bundle_name(ctx: &Ctx<'_>, text: &str, p: &JPath<'_>) -> ImportError {
    ctx.err(
        p,
        format!(
            "expected a bundle name tenant/namespace/0xXXXXXXXX_0xXXXXXXXX (lower bound below \
             upper), found \"{text}\""
        ),
    )
}

/// A full bundle name's `(namespace, range)` borrowed from it: [`BundleName::split`], the one
/// bundle-name parser, under the name the importer's modules call.
pub(crate) fn split_bundle(name: &str) -> Option<(&str, BundleRange)> {
    BundleName::split(name).filter(|(ns, _)| crate::naming::check_imported_namespace(ns).is_ok())
}

/// `namespace/0x%08x_0x%08x`, the canonical bundle name.
pub(crate) fn bundle_key(namespace: &str, r: BundleRange) -> String {
    let mut s = String::with_capacity(namespace.len() + 22);
    s.push_str(namespace);
    s.push('/');
    push_boundary(&mut s, r.lo);
    s.push('_');
    push_boundary(&mut s, r.hi);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_names_split_and_format_as_pulsar_writes_them() {
        for (name, ns, lo, hi) in [
            (
                "public/default/0x00000000_0xffffffff",
                "public/default",
                0,
                u32::MAX,
            ),
            // Any `Long.decode` spelling is read (and then written canonically).
            (
                "Public/Default/0x0FFFFFFF_0xF0000000",
                "Public/Default",
                0x0fff_ffff,
                0xf000_0000,
            ),
            (
                "prop/cluster/ns/0x12345678_0x9abcdef0",
                "prop/cluster/ns",
                0x1234_5678,
                0x9abc_def0,
            ),
        ] {
            let (got_ns, r) = split_bundle(name).unwrap();
            assert_eq!((got_ns, r.lo, r.hi), (ns, lo, hi), "{name}");
            assert_eq!(bundle_key(ns, r), format!("{ns}/0x{lo:08x}_0x{hi:08x}"));
        }
        for bad in [
            "a/0x0_0x1",
            "/b/0x0_0x1",
            "a//0x0_0x1",
            "a/b/c/",
            "a/b/0x2_0x1",
            "a/b/0x00000000_0x00000000",
        ] {
            assert_eq!(split_bundle(bad), None, "{bad}");
        }
    }

    /// The reports' bundle names are written as `BundleName`'s `Display` writes them, whatever
    /// spelling was read, and refused with the same message.
    #[test]
    fn canonical_bundle_names_are_the_display_of_the_parsed_name() {
        let mut diag = super::super::diag::Diag::default();
        let ctx = Ctx {
            file: "f.json",
            diag: &mut diag,
        };
        let p = JPath::ROOT.key("lastStats");
        for name in [
            "public/default/0x00000000_0xffffffff",
            "Public/Default/0x0FFFFFFF_0xF0000000",
            "prop/cluster/ns/0x12345678_0x9abcdef0",
            "a/b/16_0x20",
            "a/b/#10_0X20",
            "a/b/010_0xffffffff",
        ] {
            let display = bundle_name(&ctx, name, &p).unwrap().to_string();
            assert_eq!(canonical_bundle_name(&ctx, name, &p).unwrap(), display);
        }
        assert_eq!(
            canonical_bundle_name(&ctx, "a/b/16_0x20", &p).unwrap(),
            "a/b/0x00000010_0x00000020"
        );
        for bad in ["a/0x0_0x1", "a/b/0x2_0x1", "a/b/c/"] {
            assert_eq!(
                canonical_bundle_name(&ctx, bad, &p)
                    .unwrap_err()
                    .to_string(),
                bundle_name(&ctx, bad, &p).unwrap_err().to_string(),
            );
        }
    }
}
