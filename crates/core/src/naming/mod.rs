//! Pulsar naming: bundle ranges and names, namespaces, topic names, topic → bundle hashing and the
//! default bundle partitioning (§4 of the reference).

mod bundle_range;

pub use bundle_range::{
    BundleName, BundleRange, NamingError, default_boundaries, parse_bundle_name, parse_hex_boundary,
};
