//! The options object of `plan()` (`profile`, `settings`, `operations`, `seed`,
//! `leaderCycle`, `outlookCycles`, `explain`) turned into a core [`PlanRequest`], each bad field named by its
//! path (`options.settings.loadBalancerBrokerOverloadedThresholdPercentage`). Unknown keys are
//! refused so a typo is not silently ignored (`options`).

use lbplan_core::config::Profile;
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{DecisionRef, Explain, PlanRequest};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::options::{self, Flag, List, SafeInt, Settings, Text};

pub use crate::options::MAX_SAFE_INTEGER;

/// `plan()`'s options as the caller wrote them (`PlanOptions` in the TypeScript declarations).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlanOptions {
    profile: Option<Text>,
    settings: Option<Settings>,
    operations: Option<List<Text>>,
    seed: Option<SafeInt>,
    leader_cycle: Option<Flag>,
    outlook_cycles: Option<SafeInt>,
    explain: Option<Text>,
    /// Read by `calibration_option` (listed so it is not refused as unknown).
    #[allow(dead_code)]
    calibration: Option<Value>,
}

/// `options` of `plan()`; `null`/`undefined` means all defaults (one leader cycle, detected
/// profile, seed 0, 10 outlook cycles).
pub fn plan_request(options: &Value) -> Result<PlanRequest, ApiError> {
    let (o, unknown) = options::read::<PlanOptions>(options)?;
    options::refuse_unknown::<PlanOptions>(&unknown, "")?;
    let mut req = PlanRequest::leader_cycle();
    if let Some(Text(text)) = o.profile {
        req.profile = Some(profile(&text)?);
    }
    if let Some(Settings(s)) = o.settings {
        req.settings = s;
    }
    if let Some(ops) = o.operations {
        req.operations = operations(ops)?;
    }
    if let Some(SafeInt(seed)) = o.seed {
        req.seed = seed;
    }
    if let Some(Flag(lc)) = o.leader_cycle {
        req.leader_cycle = lc;
    }
    if let Some(SafeInt(n)) = o.outlook_cycles {
        req.outlook_cycles = outlook_cycles(n)?;
    }
    if let Some(Text(level)) = o.explain {
        req.explain = explain(&level)?;
    }
    Ok(req)
}

/// `options.explain`: `full` (every decision's `detail`) or `summary` (details left out).
pub fn explain(level: &str) -> Result<Explain, ApiError> {
    Explain::parse(level).ok_or_else(|| {
        ApiError::at(
            "options.explain",
            format!("unknown level `{level}` (expected full or summary)"),
        )
    })
}

/// `decision` of `explainDecision()`: `{kind: "unload" | "outlook_unload" | "split", bundle}`.
pub fn decision_ref(decision: &Value) -> Result<DecisionRef, ApiError> {
    serde_json::from_value(decision.clone()).map_err(|e| {
        ApiError::at(
            "decision",
            format!(
                "expected {{kind: \"unload\" | \"outlook_unload\" | \"split\", bundle: string}} ({e})"
            ),
        )
    })
}

/// `options.profile`: a Pulsar release (`4.0.7`), a line alias (`4.x`, its newest patch) or
/// `master-90cba329`, resolved by core (an unknown version plans as the nearest known release and
/// the plan's `release_basis` says so).
pub fn profile(text: &str) -> Result<Profile, ApiError> {
    lbplan_core::release::resolve_version(text)
        .map(|m| Profile::of_release(m.release))
        .map_err(|e| ApiError::at("options.profile", e.to_string()))
}

/// `options.outlookCycles` as a cycle count.
pub fn outlook_cycles(n: u64) -> Result<u32, ApiError> {
    lbplan_core::plan::check_outlook_cycles(n).map_err(|e| ApiError::at("options.outlookCycles", e))
}

/// Operations in their text form (`unload-bundle=T/NS/0x…_0x…->HOST:PORT`, `set=KEY=VALUE`, …).
fn operations(list: List<Text>) -> Result<Vec<Operation>, ApiError> {
    list.items("options.operations", "an array of operation strings")?
        .into_iter()
        .enumerate()
        .map(|(i, Text(text))| {
            Operation::parse(&text)
                .map_err(|e| ApiError::at(format!("options.operations[{i}]"), e.to_string()))
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
            plan_request(&Value::Null).unwrap(),
            PlanRequest::leader_cycle()
        );
        assert_eq!(
            plan_request(&json!({})).unwrap(),
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
                "outlookCycles": 3,
                "explain": "summary"
            }),
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
        assert_eq!(r.explain, Explain::Summary);
    }

    #[test]
    fn a_decision_is_its_kind_and_bundle() {
        assert_eq!(
            decision_ref(&json!({"kind": "outlook_unload", "bundle": "t/ns/0x0_0x1"})).unwrap(),
            DecisionRef::OutlookUnload {
                bundle: "t/ns/0x0_0x1".into()
            }
        );
        assert_eq!(
            decision_ref(&json!({"kind": "move", "bundle": "b"}))
                .unwrap_err()
                .path,
            "decision"
        );
        assert_eq!(
            plan_request(&json!({"explain": "none"})).unwrap_err().path,
            "options.explain"
        );
    }

    #[test]
    fn errors_name_the_option() {
        let path = |v: Value| plan_request(&v).unwrap_err().path;
        assert_eq!(path(json!({"seeed": 1})), "options.seeed");
        assert_eq!(path(json!({"seed": -1})), "options.seed");
        assert_eq!(path(json!({"seed": 1.5})), "options.seed");
        assert_eq!(path(json!({"seed": 9007199254740992u64})), "options.seed");
        assert_eq!(path(json!({"profile": "banana"})), "options.profile");
        assert_eq!(path(json!({"settings": {"a": [1]}})), "options.settings.a");
        assert_eq!(
            path(json!({"operations": ["nonsense"]})),
            "options.operations[0]"
        );
        assert_eq!(path(json!({"leaderCycle": "yes"})), "options.leaderCycle");
        assert_eq!(path(json!([1])), "options");
        assert_eq!(
            plan_request(&json!({"seeed": 1})).unwrap_err().message,
            "unknown option (expected one of profile, settings, operations, seed, leaderCycle, \
             outlookCycles, explain, calibration)"
        );
        assert_eq!(
            plan_request(&json!({"profile": "banana"}))
                .unwrap_err()
                .message,
            "`banana` is not a Pulsar version (expected e.g. 4.0.7, 4.1.0-SNAPSHOT, 5.0.0-M1, a line such as 4.x, 4.1 or 5.0, or master-90cba329)"
        );
        assert_eq!(
            plan_request(&json!({"operations": "unload-namespace=a/b"}))
                .unwrap_err()
                .to_string(),
            "options.operations: expected an array of operation strings, found a string"
        );
    }
}
