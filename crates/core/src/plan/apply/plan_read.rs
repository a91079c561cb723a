//! Reads the parts of a plan JSON an apply needs (its snapshot fingerprint and decisions), and
//! nothing else: fields it does not use may change shape (a decision's `reason` as text or as a
//! structured object) without breaking an apply. `format_version` is checked first.

use serde_json::Value;

use crate::plan::model::{PLAN_FORMAT_VERSION, Plan, PlannedSplit, PlannedUnload};
use crate::reason::{DecisionReason, ReasonKind};

/// Why a plan JSON cannot be applied: the JSON path and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {what}")]
pub struct PlanReadError {
    pub path: String,
    pub what: String,
}

fn err(path: impl Into<String>, what: impl Into<String>) -> PlanReadError {
    PlanReadError {
        path: path.into(),
        what: what.into(),
    }
}

fn string(v: &Value, path: &str, key: &str) -> Result<String, PlanReadError> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| err(format!("{path}.{key}"), "expected a string"))
}

fn opt_string(v: &Value, path: &str, key: &str) -> Result<Option<String>, PlanReadError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(err(format!("{path}.{key}"), "expected a string or null")),
    }
}

/// A decision's reason as one line: the text, or a structured reason's `text`/`kind`.
/// The decision's one-line text (`reason_text`; a format 2 plan's `reason` string; else the kind).
fn reason_text(v: &Value) -> String {
    match (v.get("reason_text"), v.get("reason")) {
        (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => s.clone(),
        (_, Some(r @ Value::Object(_))) => r
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    }
}

/// The decision's structured reason; `fallback` when the plan JSON's cannot be read (apply needs
/// only the calls, so an unknown kind is no reason to refuse the plan).
fn decision_reason(v: &Value, fallback: ReasonKind) -> DecisionReason {
    v.get("reason")
        .and_then(|r| serde_json::from_value(r.clone()).ok())
        .unwrap_or_else(|| DecisionReason::new(fallback))
}

fn array<'a>(v: &'a Value, key: &str) -> Result<&'a [Value], PlanReadError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(err(format!("$.{key}"), "expected an array")),
    }
}

/// The oldest plan `format_version` apply reads.
const OLDEST_APPLICABLE_FORMAT: u64 = 2;

/// The plan an apply runs, from a plan JSON.
pub fn read_plan(v: &Value) -> Result<Plan, PlanReadError> {
    let version = v
        .get("format_version")
        .and_then(Value::as_u64)
        .ok_or_else(|| err("$.format_version", "missing (is this a plan JSON?)"))?;
    // Format 2 differs from 3 only in how a decision's reason is written, which apply reads either way.
    if !(OLDEST_APPLICABLE_FORMAT..=u64::from(PLAN_FORMAT_VERSION)).contains(&version) {
        return Err(err(
            "$.format_version",
            format!(
                "expected {OLDEST_APPLICABLE_FORMAT} to {PLAN_FORMAT_VERSION}, found {version}"
            ),
        ));
    }
    let mut plan = Plan {
        format_version: PLAN_FORMAT_VERSION,
        snapshot_fingerprint: string(v, "$", "snapshot_fingerprint")?,
        ..Plan::default()
    };
    for (i, s) in array(v, "splits")?.iter().enumerate() {
        let path = format!("$.splits[{i}]");
        let boundaries = match s.get("boundaries") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(j, b)| {
                    b.as_u64()
                        .and_then(|b| u32::try_from(b).ok())
                        .ok_or_else(|| {
                            err(
                                format!("{path}.boundaries[{j}]"),
                                "expected an unsigned 32-bit number",
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(err(format!("{path}.boundaries"), "expected an array")),
        };
        plan.splits.push(PlannedSplit {
            bundle: string(s, &path, "bundle")?,
            broker: string(s, &path, "broker")?,
            algorithm: string(s, &path, "algorithm")?,
            boundaries,
            new_bundles: Vec::new(),
            reason: decision_reason(s, ReasonKind::ManualSplit),
            reason_text: reason_text(s),
            detail: Value::Null,
            permanent: true,
            origin: opt_string(s, &path, "origin")?.unwrap_or_default(),
        });
    }
    for (i, u) in array(v, "unloads")?.iter().enumerate() {
        let path = format!("$.unloads[{i}]");
        plan.unloads.push(PlannedUnload {
            bundle: string(u, &path, "bundle")?,
            from: string(u, &path, "from")?,
            to: opt_string(u, &path, "to")?,
            pass_destination: u
                .get("pass_destination")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            reason: decision_reason(u, ReasonKind::ManualUnload),
            reason_text: reason_text(u),
            detail: Value::Null,
            bytes_per_sec: 0.0,
            msg_per_sec: 0.0,
            origin: opt_string(u, &path, "origin")?.unwrap_or_default(),
        });
    }
    for (i, t) in array(v, "topic_unloads")?.iter().enumerate() {
        plan.topic_unloads.push(
            t.as_str()
                .map(str::to_string)
                .ok_or_else(|| err(format!("$.topic_unloads[{i}]"), "expected a string"))?,
        );
    }
    Ok(plan)
}
