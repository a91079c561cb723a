//! Import of Pulsar exports (load reports, bundle data, policies, `broker.conf`, topic lists,
//! metadata-store trees and archives) into one validated [`crate::model::Snapshot`], with warnings.
//! The only module besides `replay` that knows Pulsar's wire formats as they come from a cluster.
