//! The options object of `rebalance()` (`goal`, `maxMoves`, `maxMovesPerBroker`, `drain`, plus
//! `plan()`'s `profile`, `settings`, `seed`, `outlookCycles`) turned into a core
//! [`RebalanceRequest`], each bad field named by its path.

use lbplan_core::rebalance::{Goal, RebalanceRequest};
use serde_json::Value;

use crate::error::{ApiError, kind_of};
use crate::plan_options::{plan_request, present, safe_integer};

const EXTRA: &[&str] = &["goal", "maxMoves", "maxMovesPerBroker", "drain"];

/// `null`/`undefined` means the defaults: `max/mean<=1.15`, no limits, detected profile.
pub fn rebalance_request(options: &Value) -> Result<RebalanceRequest, ApiError> {
    let plan = plan_request(options, EXTRA)?;
    let map = match options {
        Value::Object(m) => Some(m),
        _ => None,
    };
    for key in ["operations", "leaderCycle"] {
        if map.and_then(|m| present(m, key)).is_some() {
            return Err(ApiError::at(
                format!("options.{key}"),
                "not an option of rebalance (it proposes its own operations and always checks the leader)",
            ));
        }
    }
    let mut req = RebalanceRequest::new(Goal::MaxOverMean(1.15));
    req.profile = plan.profile;
    req.settings = plan.settings;
    req.seed = plan.seed;
    req.outlook_cycles = plan.outlook_cycles;
    let Some(map) = map else {
        return Ok(req);
    };
    if let Some(g) = present(map, "goal") {
        let text = g.as_str().ok_or_else(|| {
            ApiError::at(
                "options.goal",
                format!("expected a string, found {}", kind_of(g)),
            )
        })?;
        req.goal = Goal::parse(text).map_err(|e| ApiError::at("options.goal", e.to_string()))?;
    }
    let count = |key: &str| -> Result<Option<usize>, ApiError> {
        match present(map, key) {
            None => Ok(None),
            Some(v) => {
                let path = format!("options.{key}");
                let n = safe_integer(v, &path)?;
                usize::try_from(n)
                    .map(Some)
                    .map_err(|_| ApiError::at(path, "too large"))
            }
        }
    };
    req.limits.max_moves = count("maxMoves")?;
    req.limits.max_moves_per_broker = count("maxMovesPerBroker")?;
    if let Some(d) = present(map, "drain") {
        let Value::Array(list) = d else {
            return Err(ApiError::at(
                "options.drain",
                format!("expected an array of broker ids, found {}", kind_of(d)),
            ));
        };
        for (i, b) in list.iter().enumerate() {
            let id = b.as_str().ok_or_else(|| {
                ApiError::at(
                    format!("options.drain[{i}]"),
                    format!("expected a string, found {}", kind_of(b)),
                )
            })?;
            req.limits.drain.push(id.to_string());
        }
    }
    Ok(req)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_option_and_names_bad_ones() {
        let r = rebalance_request(&json!({
            "goal": "std<=5%", "maxMoves": 10, "maxMovesPerBroker": 2,
            "drain": ["b1:8080"], "settings": {"failureDomainsEnabled": true}, "outlookCycles": 3
        }))
        .unwrap();
        assert_eq!(r.goal, Goal::StdPercent(5.0));
        assert_eq!(r.limits.max_moves, Some(10));
        assert_eq!(r.limits.max_moves_per_broker, Some(2));
        assert_eq!(r.limits.drain, vec!["b1:8080".to_string()]);
        assert_eq!(r.outlook_cycles, 3);
        assert_eq!(
            rebalance_request(&Value::Null).unwrap().goal,
            Goal::MaxOverMean(1.15)
        );
        let e = rebalance_request(&json!({"goal": "p99<=1"})).unwrap_err();
        assert!(e.to_string().contains("options.goal"), "{e}");
        let e = rebalance_request(&json!({"drain": [1]})).unwrap_err();
        assert!(e.to_string().contains("options.drain[0]"), "{e}");
        let e = rebalance_request(&json!({"operations": []})).unwrap_err();
        assert!(e.to_string().contains("options.operations"), "{e}");
    }
}
