//! Pulsar naming: bundle ranges and names, namespace and topic names, topic → bundle hashing (CRC-32)
//! and lookup, the default bundle partitioning (§4 of the reference), brokers' heartbeat and SLA-monitor
//! namespaces, plus Java map iteration order for the decisions that depend on it, and the one rule
//! every name must pass before it leaves the planner (`rules`), and the one rule that shortens broker
//! ids for display and reads short names back (`broker_names`).

mod broker_names;
mod bundle_range;
mod crc32;
pub mod java_map_order;
mod namespace_bundles;
mod namespace_name;
pub mod percent;
mod rules;
pub mod sizing;
mod system_namespace;
mod topic_name;

pub use broker_names::{BrokerNames, MAX_SUGGESTIONS, NamePiece, Resolved};
pub use bundle_range::{
    BundleName, BundleRange, NamingError, boundary_text, default_boundaries, parse_bundle_name,
    parse_hex_boundary, push_boundary,
};
pub use crc32::crc32;
pub use java_map_order::{
    JavaHashSet, JavaHashTable, concurrent_hash_map_order, hash_map_hash, hash_map_order,
    java_string_hash,
};
pub use namespace_bundles::{NamespaceBundles, validate_boundaries};
pub use namespace_name::{NamespaceName, is_valid_name_part};
pub use rules::{
    MAX_SEGMENT_LEN, NameError, NameKind, TopicParts, check_broker_id, check_bundle,
    check_imported_namespace, check_namespace, check_segment, check_topic, is_broker_id,
    is_named_entity, is_pulsar_name,
};
pub use system_namespace::{
    BrokerNamespace, SystemNamespaceKind, broker_namespace, is_heartbeat_or_sla_namespace,
    is_sla_or_heartbeat_namespace,
};
pub use topic_name::{PARTITIONED_TOPIC_SUFFIX, TopicDomain, TopicName, partition_index_of};
