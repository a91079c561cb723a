//! Namespace layout and policies: `BundlesData` (`pulsar-admin namespaces bundles`), namespace
//! `Policies` (`/admin/policies/<tenant>/<ns>`) and `LocalPolicies` (`/admin/local-policies/...`),
//! from which the bundle boundaries and `namespaceAntiAffinityGroup` are taken.

use serde_json::{Map, Value};

use super::diag::ImportError;
use super::json::{Ctx, JPath, field};
use crate::naming::{default_boundaries, parse_hex_boundary};

/// Most bundles one namespace may have in an import (a `numBundles` of 2^31 must not allocate).
pub const MAX_BUNDLES_PER_NAMESPACE: usize = 1 << 20;

/// What a policies object says about its namespace.
pub(crate) struct NamespacePolicies {
    pub boundaries: Option<Vec<u32>>,
    pub anti_affinity_group: Option<String>,
}

/// Keys that only namespace `Policies` / `LocalPolicies` carry (shape detection).
pub(crate) const DISTINCTIVE: &[&str] = &[
    "namespaceAntiAffinityGroup",
    "bookieAffinityGroup",
    "auth_policies",
    "replication_clusters",
    "backlog_quota_map",
    "message_ttl_in_seconds",
    "deleted",
    "encryption_required",
    "schema_auto_update_compatibility_strategy",
    "latency_stats_sample_rate",
    "migrated",
];

/// `BundlesData`: `{"boundaries": [...], "numBundles": N}`, validated; returns the boundaries.
pub(crate) fn parse_bundles_data(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<Vec<u32>, ImportError> {
    let m = ctx.object(v, p, "a BundlesData {\"boundaries\", \"numBundles\"}")?;
    ctx.check_known(m, &["boundaries", "numBundles"], p);
    let num = field(m, "numBundles")
        .map(|n| ctx.non_negative_i64(n, &p.key("numBundles")))
        .transpose()?;
    let Some(list) = field(m, "boundaries") else {
        // Namespace creation with only `numBundles` uses the default partitioning (§4.5).
        let pn = p.key("numBundles");
        let n = match num {
            Some(n) if n > 0 => n,
            _ => {
                return Err(ctx.err(
                    p,
                    "expected `boundaries` (or a `numBundles` > 0 for the default partitioning)",
                ));
            }
        };
        let n = u32::try_from(n)
            .ok()
            .filter(|&n| n as usize <= MAX_BUNDLES_PER_NAMESPACE)
            .ok_or_else(|| {
                ctx.err(
                    &pn,
                    format!("expected at most {MAX_BUNDLES_PER_NAMESPACE} bundles, found {n}"),
                )
            })?;
        return default_boundaries(n).ok_or_else(|| ctx.err(&pn, "expected numBundles > 0"));
    };
    let pb = p.key("boundaries");
    let arr = ctx.array(list, &pb)?;
    if arr.len() > MAX_BUNDLES_PER_NAMESPACE + 1 {
        return Err(ctx.err(
            &pb,
            format!(
                "expected at most {} boundaries, found {}",
                MAX_BUNDLES_PER_NAMESPACE + 1,
                arr.len()
            ),
        ));
    }
    let mut out: Vec<u32> = Vec::with_capacity(arr.len());
    for (i, b) in arr.iter().enumerate() {
        let pi = pb.index(i);
        let text = ctx.string(b, &pi)?;
        let x = parse_hex_boundary(text)
            .map_err(|e| ctx.err(&pi, format!("expected a boundary 0xXXXXXXXX: {e}")))?;
        if let Some(&prev) = out.last()
            && x <= prev
        {
            return Err(ctx.err(
                &pi,
                format!(
                    "expected boundaries in increasing order: 0x{x:08x} is not above 0x{prev:08x} \
                     (bundle ranges would overlap or be empty)"
                ),
            ));
        }
        out.push(x);
    }
    let (Some(&first), Some(&last)) = (out.first(), out.last()) else {
        return Err(ctx.err(&pb, "expected at least two boundaries, found none"));
    };
    if out.len() < 2 {
        return Err(ctx.err(
            &pb,
            "expected at least two boundaries (0x00000000 and 0xffffffff)",
        ));
    }
    if first != 0 {
        return Err(ctx.err(
            &pb.index(0),
            format!(
                "expected the first boundary to be 0x00000000, found 0x{first:08x} (the bundles \
                 would leave a hole at the start of the hash range)"
            ),
        ));
    }
    if last != u32::MAX {
        return Err(ctx.err(
            &pb.index(out.len() - 1),
            format!(
                "expected the last boundary to be 0xffffffff, found 0x{last:08x} (the bundles would \
                 leave a hole at the end of the hash range)"
            ),
        ));
    }
    if let Some(n) = num
        && n != (out.len() - 1) as i64
    {
        return Err(ctx.err(
            &p.key("numBundles"),
            format!(
                "expected numBundles = number of boundaries - 1 = {}, found {n}",
                out.len() - 1
            ),
        ));
    }
    Ok(out)
}

/// Whether an object looks like namespace policies (has a `bundles` object or a policies-only key).
pub(crate) fn is_policies(m: &Map<String, Value>) -> bool {
    m.get("bundles").is_some_and(Value::is_object) || DISTINCTIVE.iter().any(|k| m.contains_key(*k))
}

/// `Policies` or `LocalPolicies`. Only `bundles` and `namespaceAntiAffinityGroup` are used; the many
/// other policy fields (they vary by Pulsar version) are ignored without warnings.
pub(crate) fn parse_policies(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<NamespacePolicies, ImportError> {
    let m = ctx.object(v, p, "namespace policies")?;
    let boundaries = field(m, "bundles")
        .map(|b| parse_bundles_data(ctx, b, &p.key("bundles")))
        .transpose()?;
    let anti_affinity_group = field(m, "namespaceAntiAffinityGroup")
        .map(|g| {
            ctx.string(g, &p.key("namespaceAntiAffinityGroup"))
                .map(str::to_string)
        })
        .transpose()?;
    Ok(NamespacePolicies {
        boundaries,
        anti_affinity_group,
    })
}

/// Formats boundaries as Pulsar writes them (`0x%08x`).
pub(crate) fn format_boundaries(b: &[u32]) -> Vec<String> {
    b.iter()
        .map(|&x| {
            let mut s = String::with_capacity(10);
            super::fields::push_hex(&mut s, x);
            s
        })
        .collect()
}
