//! Typed reads from a `serde_json::Value` that name the JSON path of anything malformed, so a bad
//! scenario file gives `ReplayError::Malformed { path: "$.load.spikes[1].factor", .. }`.

use serde_json::{Map, Value};

use crate::replay::ReplayError;

pub(crate) type Obj = Map<String, Value>;

pub(crate) fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Obj, ReplayError> {
    v.as_object()
        .ok_or_else(|| ReplayError::malformed(path, "expected an object"))
}

/// Rejects keys outside `known` (a typo in a scenario should not be silently ignored).
pub(crate) fn only_keys(o: &Obj, known: &[&str], path: &str) -> Result<(), ReplayError> {
    for key in o.keys() {
        if !known.contains(&key.as_str()) {
            return Err(ReplayError::malformed(
                format!("{path}.{key}"),
                format!("unknown field (expected one of: {})", known.join(", ")),
            ));
        }
    }
    Ok(())
}

pub(crate) fn opt_f64(o: &Obj, key: &str, path: &str) -> Result<Option<f64>, ReplayError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(ReplayError::malformed(
                format!("{path}.{key}"),
                "expected a finite number",
            )),
        },
    }
}

pub(crate) fn opt_u32(o: &Obj, key: &str, path: &str) -> Result<Option<u32>, ReplayError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .map(Some)
            .ok_or_else(|| {
                ReplayError::malformed(
                    format!("{path}.{key}"),
                    "expected a non-negative integer below 2^32",
                )
            }),
    }
}

pub(crate) fn opt_str<'a>(
    o: &'a Obj,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, ReplayError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(ReplayError::malformed(
            format!("{path}.{key}"),
            "expected a string",
        )),
    }
}

pub(crate) fn opt_array<'a>(o: &'a Obj, key: &str, path: &str) -> Result<&'a [Value], ReplayError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a.as_slice()),
        Some(_) => Err(ReplayError::malformed(
            format!("{path}.{key}"),
            "expected an array",
        )),
    }
}

pub(crate) fn string_list(o: &Obj, key: &str, path: &str) -> Result<Vec<String>, ReplayError> {
    opt_array(o, key, path)?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str().map(str::to_string).ok_or_else(|| {
                ReplayError::malformed(format!("{path}.{key}[{i}]"), "expected a string")
            })
        })
        .collect()
}

/// A `broker.conf` value written as JSON: strings verbatim, numbers and booleans in their text form.
pub(crate) fn conf_text(v: &Value, path: &str) -> Result<String, ReplayError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(ReplayError::malformed(
            path,
            "expected a string, number or boolean",
        )),
    }
}
