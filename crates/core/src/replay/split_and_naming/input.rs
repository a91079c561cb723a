//! Reading the scenario fields these kinds share: the effective configuration, a namespace layout,
//! boundaries and positions in either number or `0x…` text form, and Pulsar stats objects.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::{LoadBalancerConfig, Profile, json_to_conf_text};
use crate::naming::{NamespaceBundles, parse_hex_boundary};
use crate::replay::ReplayError;

/// `master-90cba329` defaults plus the scenario's `config` keys (unknown keys are ignored, as
/// Pulsar's `ServiceConfiguration` would not have them).
pub(super) fn config(scenario: &Value, base: &str) -> Result<LoadBalancerConfig, ReplayError> {
    let mut cfg = LoadBalancerConfig::for_profile(Profile::Master90cba329);
    let Some(keys) = scenario.get("config") else {
        return Ok(cfg);
    };
    let keys = keys
        .as_object()
        .ok_or_else(|| ReplayError::malformed(format!("{base}.config"), "expected an object"))?;
    for (key, value) in keys {
        cfg.set_text(key, &json_to_conf_text(value))
            .map_err(|e| ReplayError::malformed(format!("{base}.config.{key}"), e.to_string()))?;
    }
    Ok(cfg)
}

pub(super) fn object<'a>(
    value: &'a Value,
    path: &str,
) -> Result<&'a Map<String, Value>, ReplayError> {
    value
        .as_object()
        .ok_or_else(|| ReplayError::malformed(path, "expected an object"))
}

pub(super) fn array<'a>(value: &'a Value, path: &str) -> Result<&'a Vec<Value>, ReplayError> {
    value
        .as_array()
        .ok_or_else(|| ReplayError::malformed(path, "expected an array"))
}

pub(super) fn string<'a>(value: &'a Value, path: &str) -> Result<&'a str, ReplayError> {
    value
        .as_str()
        .ok_or_else(|| ReplayError::malformed(path, "expected a string"))
}

pub(super) fn required<'a>(
    parent: &'a Value,
    key: &str,
    parent_path: &str,
) -> Result<&'a Value, ReplayError> {
    parent
        .get(key)
        .ok_or_else(|| ReplayError::malformed(format!("{parent_path}.{key}"), "missing"))
}

/// A list of strings (topic names, bundle names).
pub(super) fn strings(value: &Value, path: &str) -> Result<Vec<String>, ReplayError> {
    array(value, path)?
        .iter()
        .enumerate()
        .map(|(i, v)| string(v, &format!("{path}[{i}]")).map(str::to_string))
        .collect()
}

/// A Pulsar JSON object (`NamespaceBundleStats`, `BundleData`, …) with its field names.
pub(super) fn pulsar_object<T: DeserializeOwned>(
    value: &Value,
    path: &str,
) -> Result<T, ReplayError> {
    serde_json::from_value(value.clone()).map_err(|e| ReplayError::malformed(path, e.to_string()))
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
