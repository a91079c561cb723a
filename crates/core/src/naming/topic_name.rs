//! Topic names (`TopicName`): the forms Pulsar accepts, their normalisation to the complete name
//! `<domain>://<tenant>/<namespace>/<local>` (legacy: `<domain>://<tenant>/<cluster>/<namespace>/<local>`)
//! and the partition suffix `-partition-<i>`. The complete name is what the bundle hash is taken of.

use std::fmt;

use super::{NamespaceName, NamingError, crc32};

pub const PARTITIONED_TOPIC_SUFFIX: &str = "-partition-";

/// `TopicDomain`; parsed case-insensitively, written lower-case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopicDomain {
    Persistent,
    NonPersistent,
}

impl TopicDomain {
    pub fn as_str(self) -> &'static str {
        match self {
            TopicDomain::Persistent => "persistent",
            TopicDomain::NonPersistent => "non-persistent",
        }
    }

    /// `TopicDomain.getEnum`: case-insensitive.
    pub fn parse(text: &str) -> Option<Self> {
        if text.eq_ignore_ascii_case("persistent") {
            Some(TopicDomain::Persistent)
        } else if text.eq_ignore_ascii_case("non-persistent") {
            Some(TopicDomain::NonPersistent)
        } else {
            None
        }
    }
}

/// A parsed topic name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TopicName {
    pub domain: TopicDomain,
    pub namespace: NamespaceName,
    pub local_name: String,
    /// `-partition-<i>` index, when the name carries a canonical one.
    pub partition_index: Option<u32>,
    complete_name: String,
}

impl TopicName {
    /// `TopicName.get(name)`:
    /// * without `://`: `topic` → `persistent://public/default/topic`, `tenant/ns/topic` →
    ///   `persistent://tenant/ns/topic` (parts counted as `StringUtils.split` does, ignoring empty
    ///   ones); any other part count is refused;
    /// * `<domain>://<rest>`: the domain is `persistent` or `non-persistent`; `rest` split on `/` into
    ///   at most 4 parts: 3 parts = `tenant/ns/local`, 4 = legacy `tenant/cluster/ns/local` (the local
    ///   name keeps any further `/`); tenant, cluster and namespace are validated; the local name must
    ///   not be empty.
    pub fn parse(name: &str) -> Result<Self, NamingError> {
        let bad = |why: &str| NamingError::BadTopic {
            name: name.to_string(),
            why: why.to_string(),
        };
        let expanded;
        let complete = if name.contains("://") {
            name
        } else {
            let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
            expanded = match parts.as_slice() {
                [_, _, _] => format!("persistent://{name}"),
                [local] => format!("persistent://public/default/{local}"),
                _ => {
                    return Err(bad(
                        "a short topic name must be <tenant>/<namespace>/<topic> or <topic>",
                    ));
                }
            };
            &expanded
        };
        let Some((domain_text, rest)) = complete.split_once("://") else {
            return Err(bad("missing `://`"));
        };
        let domain = TopicDomain::parse(domain_text)
            .ok_or_else(|| bad("the domain must be `persistent` or `non-persistent`"))?;
        let parts: Vec<&str> = rest.splitn(4, '/').collect();
        let (namespace, local_name) = match parts.as_slice() {
            [tenant, ns, local] => (NamespaceName::from_parts(tenant, None, ns), *local),
            [tenant, cluster, ns, local] => {
                (NamespaceName::from_parts(tenant, Some(cluster), ns), *local)
            }
            _ => return Err(bad("expected <domain>://<tenant>/<namespace>/<topic>")),
        };
        let namespace = namespace.map_err(|e| bad(&e.to_string()))?;
        if local_name.is_empty() {
            return Err(bad("the local topic name is empty"));
        }
        let complete_name = format!("{}://{}/{}", domain.as_str(), namespace, local_name);
        let partition_index = partition_index_of(&complete_name);
        Ok(Self {
            domain,
            namespace,
            local_name: local_name.to_string(),
            partition_index,
            complete_name,
        })
    }

    /// The complete name, the string that is hashed.
    pub fn complete_name(&self) -> &str {
        &self.complete_name
    }

    /// `ConsistentHashingTopicBundleAssigner`: CRC-32 of the complete name's UTF-8 bytes.
    pub fn bundle_hash(&self) -> u32 {
        crc32(self.complete_name.as_bytes())
    }

    /// The partitioned topic this partition belongs to (the name itself when not a partition).
    pub fn partitioned_topic_name(&self) -> &str {
        match (
            self.partition_index,
            self.complete_name.rfind(PARTITIONED_TOPIC_SUFFIX),
        ) {
            (Some(_), Some(at)) => self.complete_name.get(..at).unwrap_or(&self.complete_name),
            _ => &self.complete_name,
        }
    }
}

impl fmt::Display for TopicName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.complete_name)
    }
}

/// `TopicName.getPartitionIndex(String)`: the text after the last `-partition-` must be a canonical
/// non-negative `int` (no sign, no leading zero, no overflow), else the name is not a partition.
pub fn partition_index_of(name: &str) -> Option<u32> {
    let (_, idx) = name.rsplit_once(PARTITIONED_TOPIC_SUFFIX)?;
    let value: i32 = idx.parse().ok()?;
    let value = u32::try_from(value).ok()?;
    (value.to_string() == idx).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms_expand() {
        let t = TopicName::parse("my-topic").unwrap();
        assert_eq!(t.complete_name(), "persistent://public/default/my-topic");
        assert_eq!(t.bundle_hash(), 732_775_927);
        let t = TopicName::parse("acme/orders/a.b.c-3").unwrap();
        assert_eq!(t.complete_name(), "persistent://acme/orders/a.b.c-3");
        assert_eq!(t.bundle_hash(), 2_977_135_299);
        let t = TopicName::parse("NON-PERSISTENT://public/default/my-topic").unwrap();
        assert_eq!(
            t.complete_name(),
            "non-persistent://public/default/my-topic"
        );
        assert_eq!(t.bundle_hash(), 2_199_789_898);
    }

    #[test]
    fn partitions_and_legacy_names() {
        let t = TopicName::parse("persistent://public/default/my-topic-partition-2").unwrap();
        assert_eq!(t.partition_index, Some(2));
        assert_eq!(
            t.partitioned_topic_name(),
            "persistent://public/default/my-topic"
        );
        assert_eq!(t.bundle_hash(), 3_544_523_545);
        assert_eq!(partition_index_of("x-partition-01"), None);
        assert_eq!(partition_index_of("x-partition--1"), None);
        assert_eq!(partition_index_of("x-partition-+1"), None);
        assert_eq!(partition_index_of("x-partition-99999999999"), None);
        let t = TopicName::parse("persistent://t/c/ns/a/b").unwrap();
        assert_eq!(t.namespace.as_str(), "t/c/ns");
        assert_eq!(t.local_name, "a/b");
    }

    #[test]
    fn refused_names() {
        for bad in [
            "",
            "a/b",
            "a/b/c/d",
            "persistent://bad name with spaces",
            "persistent://t/ns/",
            "queue://t/ns/x",
            "persistent://t//x",
            "persistent://bad tenant/ns/x",
        ] {
            assert!(TopicName::parse(bad).is_err(), "{bad}");
        }
    }
}
