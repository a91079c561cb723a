//! The options object of `rebalance()` (`goal`, `maxMoves`, `maxMovesPerBroker`, `drain`,
//! `chosenMoves`, plus
//! `plan()`'s `profile`, `settings`, `seed`, `outlookCycles`) turned into a core
//! [`RebalanceRequest`], each bad field named by its path.

use lbplan_core::rebalance::{Goal, RebalanceRequest};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::options::{self, List, SafeInt, Settings, Text};
use crate::plan_options::{outlook_cycles, profile};

/// `rebalance()`'s options as the caller wrote them (`RebalanceOptions` in the declarations).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RebalanceOptions {
    goal: Option<Text>,
    max_moves: Option<SafeInt>,
    max_moves_per_broker: Option<SafeInt>,
    drain: Option<List<Text>>,
    chosen_moves: Option<SafeInt>,
    profile: Option<Text>,
    settings: Option<Settings>,
    seed: Option<SafeInt>,
    outlook_cycles: Option<SafeInt>,
    /// Read by `calibration_option` (listed so it is not refused as unknown).
    #[allow(dead_code)]
    calibration: Option<Value>,
}

/// `plan()` options that `rebalance()` refuses with a reason rather than as unknown.
const NOT_FOR_REBALANCE: &[&str] = &["operations", "leaderCycle"];

/// `null`/`undefined` means the defaults: `max/mean<=1.15`, no limits, detected profile.
pub fn rebalance_request(options: &Value) -> Result<RebalanceRequest, ApiError> {
    let (o, unknown) = options::read::<RebalanceOptions>(options)?;
    if let Some(u) = unknown
        .iter()
        .find(|u| u.at == "$" && NOT_FOR_REBALANCE.contains(&u.key.as_str()))
    {
        return Err(ApiError::at(
            format!("options.{}", u.key),
            "not an option of rebalance (it proposes its own operations and always checks the leader)",
        ));
    }
    options::refuse_unknown::<RebalanceOptions>(&unknown, "")?;
    let mut req = RebalanceRequest::new(Goal::MaxOverMean(1.15));
    req.load_model = crate::calibration_option::load_model(options)?;
    if let Some(Text(text)) = o.profile {
        req.profile = Some(profile(&text)?);
    }
    if let Some(Settings(s)) = o.settings {
        req.settings = s;
    }
    if let Some(SafeInt(seed)) = o.seed {
        req.seed = seed;
    }
    if let Some(SafeInt(n)) = o.outlook_cycles {
        req.outlook_cycles = outlook_cycles(n)?;
    }
    if let Some(Text(text)) = o.goal {
        req.goal = Goal::parse(&text).map_err(|e| ApiError::at("options.goal", e.to_string()))?;
    }
    let count = |n: Option<SafeInt>, key: &str| -> Result<Option<usize>, ApiError> {
        n.map(|SafeInt(n)| {
            usize::try_from(n).map_err(|_| ApiError::at(format!("options.{key}"), "too large"))
        })
        .transpose()
    };
    req.limits.max_moves = count(o.max_moves, "maxMoves")?;
    req.limits.max_moves_per_broker = count(o.max_moves_per_broker, "maxMovesPerBroker")?;
    req.chosen_moves = count(o.chosen_moves, "chosenMoves")?;
    if let Some(d) = o.drain {
        req.limits.drain = d
            .items("options.drain", "an array of broker ids")?
            .into_iter()
            .map(|Text(id)| id)
            .collect();
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
            "drain": ["b1:8080"], "settings": {"failureDomainsEnabled": true}, "outlookCycles": 3,
            "chosenMoves": 4
        }))
        .unwrap();
        assert_eq!(r.goal, Goal::StdPercent(5.0));
        assert_eq!(r.limits.max_moves, Some(10));
        assert_eq!(r.limits.max_moves_per_broker, Some(2));
        assert_eq!(r.limits.drain, vec!["b1:8080".to_string()]);
        assert_eq!(r.outlook_cycles, 3);
        assert_eq!(r.chosen_moves, Some(4));
        assert_eq!(
            rebalance_request(&Value::Null).unwrap().goal,
            Goal::MaxOverMean(1.15)
        );
        let e = rebalance_request(&json!({"goal": "p99<=1"})).unwrap_err();
        assert!(e.to_string().contains("options.goal"), "{e}");
        let e = rebalance_request(&json!({"drain": [1]})).unwrap_err();
        assert!(e.to_string().contains("options.drain[0]"), "{e}");
        let e = rebalance_request(&json!({"operations": []})).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("options.operations: not an option of rebalance"),
            "{e}"
        );
        let e = rebalance_request(&json!({"maxMove": 3})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "options.maxMove: unknown option (expected one of goal, maxMoves, maxMovesPerBroker, \
             drain, chosenMoves, profile, settings, seed, outlookCycles, calibration)"
        );
        let e = rebalance_request(&json!({"drain": "b1:8080"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "options.drain: expected an array of broker ids, found a string"
        );
    }
}
