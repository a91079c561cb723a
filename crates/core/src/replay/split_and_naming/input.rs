//! What these kinds share: the effective configuration and the namespace layout (`numBundles`, or
//! explicit `boundaries` in number or `0x…` text form), read from fields of each kind's input type.

use serde_json::Value;

use crate::config::{LoadBalancerConfig, Profile, json_to_conf_text};
use crate::naming::NamespaceBundles;
use crate::replay::error::ReplayError;
use crate::replay::json::{self, Boundary, ConfigKeys};

/// `master-90cba329` defaults plus the scenario's `config` keys (unknown keys are ignored, as
/// Pulsar's `ServiceConfiguration` would not have them).
pub(super) fn config(
    keys: Option<&ConfigKeys>,
    base: &str,
) -> Result<LoadBalancerConfig, ReplayError> {
    json::config_over(
        LoadBalancerConfig::for_profile(Profile::Master90cba329),
        keys,
        &format!("{base}.config"),
        |_, value| json_to_conf_text(value),
    )
}

/// The namespace layout: explicit `boundaries`, else `numBundles` (the default partition).
pub(super) fn layout(
    namespace: &str,
    boundaries: Option<&[Boundary]>,
    num_bundles: Option<u32>,
    base: &str,
) -> Result<NamespaceBundles, ReplayError> {
    if let Some(list) = boundaries {
        let values = list.iter().map(|b| b.0).collect();
        return NamespaceBundles::new(namespace, values)
            .map_err(|e| ReplayError::malformed(format!("{base}.boundaries"), e.to_string()));
    }
    let path = format!("{base}.numBundles");
    let n = num_bundles.ok_or_else(|| ReplayError::malformed(&path, "missing"))?;
    NamespaceBundles::with_default_partition(namespace, n)
        .map_err(|e| ReplayError::malformed(path, e.to_string()))
}

/// Range strings of a layout.
pub(super) fn range_strings(layout: &NamespaceBundles) -> Vec<Value> {
    layout
        .ranges()
        .map(|r| Value::String(r.to_string()))
        .collect()
}
