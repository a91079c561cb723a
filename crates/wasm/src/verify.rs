//! `verifyPlan`: did the cluster do what the plan said? A plan object (as `plan()` returned it) and
//! a snapshot taken after it was applied, compared by core's `plan::verify` — the same report as
//! `lbplan verify` and the dashboard's Verify. Options: `appliedAtMs` (when the apply's first call
//! was sent: a touched broker's report older than that is "not yet reported since the apply") and
//! `liveOwners` (`{bundle: broker}` read live from `ownedNamespaces`).

use std::collections::BTreeMap;

use lbplan_core::plan::verify::{Verification, VerifyOptions, verify_with};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::export::plan_from_value;
use crate::options;
use crate::snapshot_input::snapshot_from_value;

/// `verifyPlan()`'s options as the caller wrote them (`VerifyOptions` in the declarations).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsVerifyOptions {
    applied_at_ms: Option<f64>,
    live_owners: Option<BTreeMap<String, String>>,
}

/// The logic behind `verifyPlan`.
pub fn verify_plan(plan: &Value, after: &Value, options: &Value) -> Result<Verification, ApiError> {
    let plan = plan_from_value(plan)?;
    let (after, _warnings) = snapshot_from_value(after)?;
    let (o, unknown) = options::read::<JsVerifyOptions>(options)?;
    options::refuse_unknown::<JsVerifyOptions>(&unknown, "")?;
    let applied_at_ms = match o.applied_at_ms {
        None => None,
        Some(t) if t.is_finite() && t.fract() == 0.0 && t.abs() < 9.0e15 => Some(t as i64),
        Some(t) => {
            return Err(ApiError::at(
                "options.appliedAtMs",
                format!("expected a whole number of ms since the epoch, found {t}"),
            ));
        }
    };
    verify_with(
        &plan,
        &after,
        &VerifyOptions {
            applied_at_ms,
            live_owners: o.live_owners,
        },
    )
    .map_err(|e| ApiError::at("after", e.to_string()))
}
