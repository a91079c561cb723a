//! `hashTopic`: a topic's complete name, its CRC-32 and the bundle of a namespace layout that holds
//! it (`ConsistentHashingTopicBundleAssigner`, reference §4), as `lbplan hash` prints them.

use lbplan_core::naming::{NamespaceBundles, NamespaceName, TopicName, parse_hex_boundary};
use serde::Serialize;
use serde_json::Value;

use crate::error::{ApiError, kind_of};

/// What `hashTopic` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicHash {
    /// The complete name that is hashed (`persistent://public/default/my-topic`).
    pub topic: String,
    /// Unsigned CRC-32 of the complete name.
    pub hash: u32,
    /// `hash` as `0x%08x`.
    pub hash_hex: String,
    /// The bundle's range, `0x%08x_0x%08x`.
    pub bundle: String,
    /// The full bundle name, `tenant/namespace/range`.
    pub bundle_name: String,
    /// Position of the bundle in the layout (0-based).
    pub bundle_index: usize,
}

/// `boundaries` is a bundle count (the default partition), a list of boundaries (hex strings in any
/// `Long.decode` form, or numbers), or a `BundlesData` object (`{boundaries: [...], numBundles}`).
pub fn hash_topic(namespace: &str, boundaries: &Value, topic: &str) -> Result<TopicHash, ApiError> {
    let ns =
        NamespaceName::parse(namespace).map_err(|e| ApiError::at("namespace", e.to_string()))?;
    let layout = layout(ns.as_str(), boundaries)?;
    let name = TopicName::parse(topic).map_err(|e| ApiError::at("topic", e.to_string()))?;
    let range = layout.find_bundle(&name).map_err(|e| {
        let hint = if topic.contains('/') {
            ""
        } else {
            " (a bare name means public/default; write tenant/namespace/topic)"
        };
        ApiError::at("topic", format!("{e}{hint}"))
    })?;
    let hash = name.bundle_hash();
    Ok(TopicHash {
        topic: name.complete_name().to_string(),
        hash,
        hash_hex: format!("{hash:#010x}"),
        bundle: range.to_string(),
        bundle_name: format!("{}/{range}", ns.as_str()),
        bundle_index: layout.bundle_index_for_hash(hash),
    })
}

fn layout(namespace: &str, v: &Value) -> Result<NamespaceBundles, ApiError> {
    let bad = |path: &str, m: String| ApiError::at(path, m);
    match v {
        Value::Number(n) => {
            let count = n
                .as_u64()
                .and_then(|c| u32::try_from(c).ok())
                .ok_or_else(|| {
                    bad(
                        "boundaries",
                        format!("expected a bundle count from 1 to 4294967295, found {n}"),
                    )
                })?;
            NamespaceBundles::with_default_partition(namespace, count)
                .map_err(|e| bad("boundaries", e.to_string()))
        }
        Value::Array(items) => from_list(namespace, items, "boundaries"),
        Value::Object(m) => match m.get("boundaries") {
            Some(Value::Array(items)) => from_list(namespace, items, "boundaries.boundaries"),
            other => Err(bad(
                "boundaries.boundaries",
                format!(
                    "expected an array of boundaries (BundlesData), found {}",
                    other.map_or("nothing", kind_of)
                ),
            )),
        },
        other => Err(bad(
            "boundaries",
            format!(
                "expected a bundle count, an array of boundaries or a BundlesData object, found {}",
                kind_of(other)
            ),
        )),
    }
}

fn from_list(namespace: &str, items: &[Value], path: &str) -> Result<NamespaceBundles, ApiError> {
    let values = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{path}[{i}]");
            match item {
                Value::String(s) => {
                    parse_hex_boundary(s).map_err(|e| ApiError::at(&at, e.to_string()))
                }
                Value::Number(n) => {
                    n.as_u64()
                        .and_then(|x| u32::try_from(x).ok())
                        .ok_or_else(|| {
                            ApiError::at(&at, format!("`{n}` is not a 32-bit hash boundary"))
                        })
                }
                other => Err(ApiError::at(
                    &at,
                    format!("expected a string or a number, found {}", kind_of(other)),
                )),
            }
        })
        .collect::<Result<Vec<u32>, _>>()?;
    NamespaceBundles::new(namespace, values).map_err(|e| ApiError::at(path, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Reference §4.4 (verified against java.util.zip.CRC32).
    #[test]
    fn worked_examples() {
        let h = hash_topic("public/default", &json!(4), "my-topic").unwrap();
        assert_eq!(h.topic, "persistent://public/default/my-topic");
        assert_eq!(h.hash, 0x2bad45f7);
        assert_eq!(h.hash, 732_775_927);
        assert_eq!(h.hash_hex, "0x2bad45f7");
        assert_eq!(h.bundle, "0x00000000_0x40000000");
        assert_eq!(h.bundle_name, "public/default/0x00000000_0x40000000");
        assert_eq!(h.bundle_index, 0);

        let p = hash_topic(
            "public/default",
            &json!([
                "0x00000000",
                "0x40000000",
                "0x80000000",
                "0xc0000000",
                "0xffffffff"
            ]),
            "persistent://public/default/my-topic-partition-2",
        )
        .unwrap();
        assert_eq!(p.hash, 3_544_523_545);
        assert_eq!(p.bundle, "0xc0000000_0xffffffff");
        assert_eq!(p.bundle_index, 3);

        let n = hash_topic(
            "public/default",
            &json!({"boundaries": ["0x00000000", "0x40000000", "0x80000000", "0xc0000000", "0xffffffff"], "numBundles": 4}),
            "non-persistent://public/default/my-topic",
        )
        .unwrap();
        assert_eq!(n.hash, 2_199_789_898);
        assert_eq!(n.bundle, "0x80000000_0xc0000000");
    }

    #[test]
    fn errors() {
        let e = |ns: &str, b: Value, t: &str| hash_topic(ns, &b, t).unwrap_err();
        assert_eq!(e("nope", json!(4), "my-topic").path, "namespace");
        assert_eq!(e("public/default", json!(0), "my-topic").path, "boundaries");
        assert_eq!(
            e("public/default", json!(-1), "my-topic").path,
            "boundaries"
        );
        assert_eq!(
            e("public/default", json!(["0x0", "zz"]), "my-topic").path,
            "boundaries[1]"
        );
        assert_eq!(
            e("public/default", json!(["0x0", "0x10"]), "my-topic").path,
            "boundaries"
        );
        let other = e("acme/orders", json!(4), "my-topic");
        assert_eq!(other.path, "topic");
        assert!(other.message.contains("bare name"), "{other}");
        assert_eq!(e("public/default", json!(4), "a/b").path, "topic");
    }
}
