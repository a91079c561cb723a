//! Typed reads of scenario JSON shared by the replay modules. Each names the JSON path of a
//! malformed value in `ReplayError::Malformed` (`$.scenario.cycles[0].brokers[2].cpu`); an optional
//! field that is missing or `null` reads as `None`.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::LoadBalancerConfig;
use crate::model::ResourceUsage;
use crate::replay::ReplayError;

/// A JSON object, or a value that may be one: where the `opt_*` readers look a key up.
pub(crate) trait Fields {
    fn field(&self, key: &str) -> Option<&Value>;
}

impl Fields for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
}

impl Fields for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
}

/// `o[key]` unless it is missing or `null`.
fn present<'a, O: Fields + ?Sized>(o: &'a O, key: &str) -> Option<&'a Value> {
    o.field(key).filter(|v| !v.is_null())
}

pub(crate) fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, ReplayError> {
    v.as_object()
        .ok_or_else(|| ReplayError::malformed(path, "expected an object"))
}

pub(crate) fn array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>, ReplayError> {
    v.as_array()
        .ok_or_else(|| ReplayError::malformed(path, "expected an array"))
}

pub(crate) fn string<'a>(v: &'a Value, path: &str) -> Result<&'a str, ReplayError> {
    v.as_str()
        .ok_or_else(|| ReplayError::malformed(path, "expected a string"))
}

/// `parent[key]`, which must be there.
pub(crate) fn required<'a>(
    parent: &'a Value,
    key: &str,
    parent_path: &str,
) -> Result<&'a Value, ReplayError> {
    parent
        .get(key)
        .ok_or_else(|| ReplayError::malformed(format!("{parent_path}.{key}"), "missing"))
}

/// A list of strings (broker, bundle or topic names).
pub(crate) fn string_list(v: &Value, path: &str) -> Result<Vec<String>, ReplayError> {
    v.as_array()
        .ok_or_else(|| ReplayError::malformed(path, "expected an array of strings"))?
        .iter()
        .enumerate()
        .map(|(i, s)| string(s, &format!("{path}[{i}]")).map(str::to_string))
        .collect()
}

/// A Pulsar JSON object (`NamespaceBundleStats`, `BrokerLoadData`, …) with its own field names,
/// read in place (no copy of the tree); an error names the bad field's path inside it.
pub(crate) fn deserialize<T: DeserializeOwned>(v: &Value, path: &str) -> Result<T, ReplayError> {
    crate::typed_json::from_value(v)
        .map(|r| r.value)
        .map_err(|e| {
            let inner = e.path.strip_prefix('$').unwrap_or(&e.path);
            ReplayError::malformed(format!("{path}{inner}"), e.message)
        })
}

pub(crate) fn opt_object<'a, O: Fields + ?Sized>(
    o: &'a O,
    key: &str,
    path: &str,
) -> Result<Option<&'a Map<String, Value>>, ReplayError> {
    opt_as(o, key, path, Value::as_object, "expected an object")
}

/// `o[key]` read by `read` unless missing or `null`; `expected` says what it should have been.
fn opt_as<'a, O: Fields + ?Sized, T>(
    o: &'a O,
    key: &str,
    path: &str,
    read: impl Fn(&'a Value) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, ReplayError> {
    present(o, key)
        .map(|v| read(v).ok_or_else(|| ReplayError::malformed(format!("{path}.{key}"), expected)))
        .transpose()
}

pub(crate) fn opt_f64<O: Fields + ?Sized>(
    o: &O,
    key: &str,
    path: &str,
) -> Result<Option<f64>, ReplayError> {
    opt_as(o, key, path, Value::as_f64, "expected a number")
}

pub(crate) fn opt_i64<O: Fields + ?Sized>(
    o: &O,
    key: &str,
    path: &str,
) -> Result<Option<i64>, ReplayError> {
    opt_as(o, key, path, Value::as_i64, "expected an integer")
}

pub(crate) fn opt_i32<O: Fields + ?Sized>(
    o: &O,
    key: &str,
    path: &str,
) -> Result<Option<i32>, ReplayError> {
    opt_i64(o, key, path)?
        .map(|n| {
            i32::try_from(n).map_err(|_| {
                ReplayError::malformed(format!("{path}.{key}"), "expected a 32-bit integer")
            })
        })
        .transpose()
}

pub(crate) fn opt_bool<O: Fields + ?Sized>(
    o: &O,
    key: &str,
    path: &str,
) -> Result<Option<bool>, ReplayError> {
    opt_as(o, key, path, Value::as_bool, "expected true or false")
}

/// `{usage, limit}`; missing means `{0, 0}` (0 %).
pub(crate) fn resource_usage<O: Fields + ?Sized>(
    o: &O,
    key: &str,
    path: &str,
) -> Result<ResourceUsage, ReplayError> {
    let Some(v) = present(o, key) else {
        return Ok(ResourceUsage::default());
    };
    let p = format!("{path}.{key}");
    let r = object(v, &p)?;
    Ok(ResourceUsage::new(
        opt_f64(r, "usage", &p)?.unwrap_or(0.0),
        opt_f64(r, "limit", &p)?.unwrap_or(0.0),
    ))
}

/// `cfg` with the scenario's `config` object (`broker.conf` key → JSON value) applied; `conf_text`
/// turns a key's JSON value into its `broker.conf` text.
pub(crate) fn config_over(
    mut cfg: LoadBalancerConfig,
    keys: Option<&Value>,
    path: &str,
    conf_text: impl Fn(&str, &Value) -> String,
) -> Result<LoadBalancerConfig, ReplayError> {
    let Some(keys) = keys else {
        return Ok(cfg);
    };
    let keys = keys
        .as_object()
        .ok_or_else(|| ReplayError::malformed(path, "expected an object of broker.conf keys"))?;
    for (key, value) in keys {
        cfg.set_text(key, &conf_text(key, value))
            .map_err(|e| ReplayError::malformed(format!("{path}.{key}"), e.to_string()))?;
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NamespaceBundleStats;
    use serde_json::json;

    /// A bad field inside a Pulsar object is named by its own path, below the object's.
    #[test]
    fn a_pulsar_object_error_names_the_field() {
        let at = "$.scenario.cycles[0].bundleStats.acme/orders/0x00000000_0x10000000";
        let ok: NamespaceBundleStats = deserialize(&json!({"msgRateIn": 12.5}), at).unwrap();
        assert_eq!(ok.msg_rate_in, 12.5);
        let e = deserialize::<NamespaceBundleStats>(&json!({"msgRateIn": "fast"}), at).unwrap_err();
        assert_eq!(
            e,
            ReplayError::malformed(
                format!("{at}.msgRateIn"),
                "invalid type: string \"fast\", expected f64"
            )
        );
    }
}
