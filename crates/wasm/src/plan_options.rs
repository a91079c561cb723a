//! The options object of `plan()` and `simulate()` (`profile`, `settings`, `operations`, `seed`,
//! `leaderCycle`, `outlookCycles`) turned into a core [`PlanRequest`], each bad field named by its
//! path (`options.settings.loadBalancerBrokerOverloadedThresholdPercentage`). Unknown keys are
//! refused so a typo is not silently ignored.

use lbplan_core::config::{Profile, json_to_conf_text};
use lbplan_core::plan::PlanRequest;
use lbplan_core::plan::operations::Operation;
use serde_json::{Map, Value};

use crate::error::{ApiError, kind_of};

/// Largest integer JavaScript numbers hold exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

const KNOWN: &[&str] = &[
    "profile",
    "settings",
    "operations",
    "seed",
    "leaderCycle",
    "outlookCycles",
];

/// `options` of `plan()`; `null`/`undefined` means all defaults (one leader cycle, detected
/// profile, seed 0, 10 outlook cycles). `extra` lists further keys the caller accepts (e.g.
/// `simulate()`'s), which are left for it to read.
pub fn plan_request(options: &Value, extra: &[&str]) -> Result<PlanRequest, ApiError> {
    let mut req = PlanRequest::leader_cycle();
    let map = match options {
        Value::Null => return Ok(req),
        Value::Object(m) => m,
        other => {
            return Err(ApiError::at(
                "options",
                format!("expected an object, found {}", kind_of(other)),
            ));
        }
    };
    if let Some(key) = map
        .keys()
        .find(|k| !KNOWN.contains(&k.as_str()) && !extra.contains(&k.as_str()))
    {
        let mut known: Vec<&str> = KNOWN.to_vec();
        known.extend_from_slice(extra);
        return Err(ApiError::at(
            format!("options.{key}"),
            format!("unknown option (expected one of {})", known.join(", ")),
        ));
    }
    if let Some(p) = present(map, "profile") {
        let text = p.as_str().ok_or_else(|| {
            ApiError::at(
                "options.profile",
                format!("expected a string, found {}", kind_of(p)),
            )
        })?;
        req.profile = Some(Profile::parse(text).ok_or_else(|| {
            ApiError::at(
                "options.profile",
                format!("unknown profile `{text}` (expected 3.x, 4.x, 5.0 or master-90cba329)"),
            )
        })?);
    }
    if let Some(s) = present(map, "settings") {
        req.settings = settings(s)?;
    }
    if let Some(ops) = present(map, "operations") {
        req.operations = operations(ops)?;
    }
    if let Some(seed) = present(map, "seed") {
        req.seed = safe_integer(seed, "options.seed")?;
    }
    if let Some(lc) = present(map, "leaderCycle") {
        req.leader_cycle = lc.as_bool().ok_or_else(|| {
            ApiError::at(
                "options.leaderCycle",
                format!("expected a boolean, found {}", kind_of(lc)),
            )
        })?;
    }
    if let Some(n) = present(map, "outlookCycles") {
        let n = safe_integer(n, "options.outlookCycles")?;
        req.outlook_cycles = u32::try_from(n)
            .map_err(|_| ApiError::at("options.outlookCycles", "expected at most 4294967295"))?;
    }
    Ok(req)
}

/// A key that is present and not `null`/`undefined`.
pub fn present<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

/// A non-negative integer a JavaScript number holds exactly.
pub fn safe_integer(v: &Value, path: &str) -> Result<u64, ApiError> {
    let bad = || {
        ApiError::at(
            path,
            format!(
                "expected a non-negative integer up to {MAX_SAFE_INTEGER}, found {}",
                match v {
                    Value::Number(n) => n.to_string(),
                    other => kind_of(other).to_string(),
                }
            ),
        )
    };
    let n = match v.as_u64() {
        Some(n) => n,
        // JavaScript numbers arrive as f64 when serde-wasm-bindgen cannot prove they are integers.
        None => match v.as_f64() {
            Some(f) if f.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER as f64).contains(&f) => {
                // Exact: an integral f64 in 0..=2^53-1.
                f as u64
            }
            _ => return Err(bad()),
        },
    };
    if n > MAX_SAFE_INTEGER {
        return Err(bad());
    }
    Ok(n)
}

/// `{key: value}` → `broker.conf` text pairs; values may be strings, numbers or booleans (as they
/// would be written in `broker.conf`). Keys are checked by the core when the plan resolves them.
fn settings(v: &Value) -> Result<Vec<(String, String)>, ApiError> {
    let Value::Object(m) = v else {
        return Err(ApiError::at(
            "options.settings",
            format!(
                "expected an object of broker.conf keys to values, found {}",
                kind_of(v)
            ),
        ));
    };
    m.iter()
        .map(|(k, val)| match val {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                Ok((k.clone(), json_to_conf_text(val)))
            }
            other => Err(ApiError::at(
                format!("options.settings.{k}"),
                format!(
                    "expected a string, number or boolean, found {}",
                    kind_of(other)
                ),
            )),
        })
        .collect()
}

/// Operations in their text form (`unload-bundle=T/NS/0x…_0x…->HOST:PORT`, `set=KEY=VALUE`, …).
fn operations(v: &Value) -> Result<Vec<Operation>, ApiError> {
    let Value::Array(items) = v else {
        return Err(ApiError::at(
            "options.operations",
            format!(
                "expected an array of operation strings, found {}",
                kind_of(v)
            ),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = format!("options.operations[{i}]");
            let text = item.as_str().ok_or_else(|| {
                ApiError::at(&path, format!("expected a string, found {}", kind_of(item)))
            })?;
            Operation::parse(text).map_err(|e| ApiError::at(&path, e.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults() {
        assert_eq!(
            plan_request(&Value::Null, &[]).unwrap(),
            PlanRequest::leader_cycle()
        );
        assert_eq!(
            plan_request(&json!({}), &[]).unwrap(),
            PlanRequest::leader_cycle()
        );
    }

    #[test]
    fn every_option() {
        let r = plan_request(
            &json!({
                "profile": "5.0",
                "settings": {"loadBalancerBrokerThresholdShedderPercentage": 5, "loadBalancerSheddingEnabled": true},
                "operations": ["unload-namespace=acme/orders", "set=loadBalancerSheddingEnabled=false"],
                "seed": 42,
                "leaderCycle": false,
                "outlookCycles": 3
            }),
            &[],
        )
        .unwrap();
        assert_eq!(r.profile, Some(Profile::Pulsar50));
        assert_eq!(
            r.settings,
            vec![
                (
                    "loadBalancerBrokerThresholdShedderPercentage".to_string(),
                    "5".to_string()
                ),
                (
                    "loadBalancerSheddingEnabled".to_string(),
                    "true".to_string()
                )
            ]
        );
        assert_eq!(r.operations.len(), 2);
        assert_eq!(r.seed, 42);
        assert!(!r.leader_cycle);
        assert_eq!(r.outlook_cycles, 3);
    }

    #[test]
    fn errors_name_the_option() {
        let path = |v: Value| plan_request(&v, &[]).unwrap_err().path;
        assert_eq!(path(json!({"seeed": 1})), "options.seeed");
        assert_eq!(path(json!({"seed": -1})), "options.seed");
        assert_eq!(path(json!({"seed": 1.5})), "options.seed");
        assert_eq!(path(json!({"seed": 9007199254740992u64})), "options.seed");
        assert_eq!(path(json!({"profile": "2.10"})), "options.profile");
        assert_eq!(path(json!({"settings": {"a": [1]}})), "options.settings.a");
        assert_eq!(
            path(json!({"operations": ["nonsense"]})),
            "options.operations[0]"
        );
        assert_eq!(path(json!({"leaderCycle": "yes"})), "options.leaderCycle");
        assert_eq!(path(json!([1])), "options");
        assert!(plan_request(&json!({"onProgress": 1}), &["onProgress"]).is_ok());
    }
}
