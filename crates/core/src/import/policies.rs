//! Namespace layout and policies: `BundlesData` (`pulsar-admin namespaces bundles`), namespace
//! `Policies` (`/admin/policies/<tenant>/<ns>`) and `LocalPolicies` (`/admin/local-policies/...`),
//! from which the bundle boundaries and `namespaceAntiAffinityGroup` are taken. One typed reader
//! ([`typed`] leaves, so the checks below name what they found and where).

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use super::typed::{self, Leaf, List, Object, Unknown, json_object};
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

/// A `BundlesData` object as read: `boundaries` and `numBundles` (a `null` is an absent field, as
/// Jackson reads it), and the keys not read.
#[derive(Default)]
pub(crate) struct RawBundlesData<'a> {
    boundaries: Option<List<'a, Leaf<'a>>>,
    num_bundles: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawBundlesData, "a BundlesData object", {
    "boundaries" => boundaries,
    "numBundles" => num_bundles,
}, unknown: unknown);

/// Namespace `Policies` / `LocalPolicies` as read: only `bundles` and `namespaceAntiAffinityGroup`;
/// the many other policy fields (they vary by Pulsar version) are skipped without warnings.
#[derive(Default)]
struct RawPolicies<'a> {
    bundles: Option<Object<'a, RawBundlesData<'a>>>,
    anti_affinity_group: Option<Leaf<'a>>,
}

json_object!(RawPolicies, "namespace policies", {
    "bundles" => bundles,
    "namespaceAntiAffinityGroup" => anti_affinity_group,
});

pub(crate) const BUNDLES_DATA: &str = "a BundlesData {\"boundaries\", \"numBundles\"}";

/// `BundlesData` read from its text (`pulsar-admin namespaces bundles`), validated.
pub(crate) fn bundles_data_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<Vec<u32>, ImportError> {
    let raw: Object<'_, RawBundlesData<'_>> = typed::from_text(ctx.file, text)?;
    let p = JPath::ROOT;
    check_bundles_data(ctx, raw.get(ctx, &p, BUNDLES_DATA)?, &p)
}

/// The checks on a `BundlesData`: 2 to 2²⁰+1 strictly increasing boundaries from 0x00000000 to
/// 0xffffffff and `numBundles` one less than their count, or only a `numBundles` (the default
/// partitioning).
pub(crate) fn check_bundles_data(
    ctx: &mut Ctx<'_>,
    raw: RawBundlesData<'_>,
    p: &JPath<'_>,
) -> Result<Vec<u32>, ImportError> {
    raw.unknown.warn(ctx, p);
    let num = raw
        .num_bundles
        .map(|n| ctx.non_negative_i64(&n.value(), &p.key("numBundles")))
        .transpose()?;
    let Some(list) = raw.boundaries else {
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
    let arr = list.get(ctx, &pb)?;
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
        let text = b.string(ctx, &pi)?;
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

/// A `Policies` or `LocalPolicies` metadata-store node, read from its text.
pub(crate) fn policies_from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<NamespacePolicies, ImportError> {
    let raw: Object<'_, RawPolicies<'_>> = typed::from_text(ctx.file, text)?;
    check_policies(ctx, raw, &JPath::ROOT)
}

fn check_policies(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawPolicies<'_>>,
    p: &JPath<'_>,
) -> Result<NamespacePolicies, ImportError> {
    let raw = raw.get(ctx, p, "namespace policies")?;
    let pb = p.key("bundles");
    let boundaries = raw
        .bundles
        .map(|b| {
            let b = b.get(ctx, &pb, BUNDLES_DATA)?;
            check_bundles_data(ctx, b, &pb)
        })
        .transpose()?;
    let anti_affinity_group = raw
        .anti_affinity_group
        .map(|g| {
            g.string(ctx, &p.key("namespaceAntiAffinityGroup"))
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
    b.iter().map(|&x| crate::naming::boundary_text(x)).collect()
}

#[cfg(test)]
mod tests {
    //! The typed reader's messages: the expectations follow `json::Ctx`'s wording (what was
    //! expected, what was found, the JSON path).

    use crate::import::{ImportInput, WarningKind, import};

    const REPORT: &str = r#"{"lastUpdate": 1, "cpu": {"usage": 1, "limit": 100}}"#;

    fn run(policies: &str) -> Result<crate::import::Imported, String> {
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", REPORT.as_bytes()),
            ImportInput::in_tree("admin/policies/t/ns", policies.as_bytes()),
        ];
        import(&inputs).map_err(|e| e.to_string())
    }

    #[test]
    fn wrong_types_are_named_with_their_path() {
        let e = run(r#"{"bundles": [1, 2]}"#).unwrap_err();
        assert!(
            e.ends_with(
                "admin/policies/t/ns: $.bundles: expected a BundlesData {\"boundaries\", \
                 \"numBundles\"} (a JSON object), found an array"
            ),
            "{e}"
        );
        let e = run(r#"{"bundles": {"boundaries": ["0x00000000", 7]}}"#).unwrap_err();
        assert!(
            e.ends_with("$.bundles.boundaries[1]: expected a string, found the number 7"),
            "{e}"
        );
        let e = run(r#"{"bundles": {"numBundles": "NaN"}}"#).unwrap_err();
        assert!(
            e.ends_with("$.bundles.numBundles: expected an integer, found NaN"),
            "{e}"
        );
        let e = run(r#"{"namespaceAntiAffinityGroup": {"a": [1]}}"#).unwrap_err();
        assert!(
            e.ends_with("$.namespaceAntiAffinityGroup: expected a string, found an object"),
            "{e}"
        );
        let e = run(r#"[{"bundles": {}}]"#).unwrap_err();
        assert!(
            e.ends_with("$: expected namespace policies (a JSON object), found an array"),
            "{e}"
        );
    }

    #[test]
    fn a_truncated_node_is_named_by_line_and_column() {
        let e = run("{\"bundles\": {\n\"numBundles\": 4").unwrap_err();
        assert!(
            e.contains("line 2, column 15")
                && e.contains(
                    "unexpected end of file: expected more JSON (the file looks truncated)"
                ),
            "{e}"
        );
    }

    #[test]
    fn unknown_bundles_data_keys_are_warned_about_and_other_policy_keys_are_not() {
        let out = run(
            r#"{"bundles": {"numBundles": 2, "x": 1, "y": 2, "x": 3}, "deleted": false,
                "namespaceAntiAffinityGroup": "g", "namespaceAntiAffinityGroup": null}"#,
        )
        .unwrap();
        let unknown: Vec<_> = out
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::UnknownField)
            .map(|w| (w.at.clone().unwrap_or_default(), w.message.clone()))
            .collect();
        assert_eq!(
            unknown,
            [
                (
                    "$.bundles".to_string(),
                    "unknown field `x` ignored".to_string()
                ),
                (
                    "$.bundles".to_string(),
                    "unknown field `y` ignored".to_string()
                ),
            ]
        );
        // Two bundles of the default partitioning: 0x00000000, 0x7fffffff, 0xffffffff (§4.5).
        let ns = out.snapshot.namespaces.get("t/ns").unwrap();
        assert_eq!(ns.bundles.num_bundles, 2);
        // The later `namespaceAntiAffinityGroup` (null: absent) wins, as a parsed tree keeps it.
        assert_eq!(ns.anti_affinity_group, None);
    }
}
