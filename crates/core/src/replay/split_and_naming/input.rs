//! Reading the scenario fields these kinds share: the effective configuration, a namespace layout,
//! and boundaries and positions in either number or `0x…` text form (generic reads: `replay::json`).

use serde_json::Value;

use crate::config::{LoadBalancerConfig, Profile, json_to_conf_text};
use crate::naming::{NamespaceBundles, parse_hex_boundary};
use crate::replay::ReplayError;
use crate::replay::json::{self, array, required};

/// `master-90cba329` defaults plus the scenario's `config` keys (unknown keys are ignored, as
/// Pulsar's `ServiceConfiguration` would not have them).
pub(super) fn config(scenario: &Value, base: &str) -> Result<LoadBalancerConfig, ReplayError> {
    json::config_over(
        LoadBalancerConfig::for_profile(Profile::Master90cba329),
        scenario.get("config"),
        &format!("{base}.config"),
        |_, value| json_to_conf_text(value),
    )
}

/// A Java `long` given as a JSON integer or as text in any `Long.decode` form (`0x…`).
pub(super) fn long(value: &Value, path: &str) -> Result<i64, ReplayError> {
    match value {
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| ReplayError::malformed(path, "expected an integer")),
        Value::String(s) => parse_hex_boundary(s)
            .map(i64::from)
            .map_err(|e| ReplayError::malformed(path, e.to_string())),
        _ => Err(ReplayError::malformed(
            path,
            "expected an integer or 0x… text",
        )),
    }
}

/// A 32-bit hash boundary (integer or `0x…` text).
pub(super) fn boundary(value: &Value, path: &str) -> Result<u32, ReplayError> {
    let v = long(value, path)?;
    u32::try_from(v)
        .map_err(|_| ReplayError::malformed(path, "a boundary must be within 0..=0xffffffff"))
}

/// The namespace layout: `numBundles` (default partition) or explicit `boundaries`.
pub(super) fn layout(
    scenario: &Value,
    base: &str,
    namespace: &str,
) -> Result<NamespaceBundles, ReplayError> {
    if let Some(list) = scenario.get("boundaries") {
        let path = format!("{base}.boundaries");
        let values = array(list, &path)?
            .iter()
            .enumerate()
            .map(|(i, v)| boundary(v, &format!("{path}[{i}]")))
            .collect::<Result<Vec<u32>, _>>()?;
        return NamespaceBundles::new(namespace, values)
            .map_err(|e| ReplayError::malformed(path, e.to_string()));
    }
    let path = format!("{base}.numBundles");
    let n = required(scenario, "numBundles", base)?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| ReplayError::malformed(&path, "expected a bundle count"))?;
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
