//! `exportPlan`: a plan object (as `plan()` returned it, possibly stored and reloaded) rendered as a
//! `pulsar-admin` script, curl REST calls (core `act::export`), or the plan JSON document.

use lbplan_core::act::export::ExportOptions;
use lbplan_core::act::export_format::{
    ExportFormat, UnknownExportFormat, export_plan as export_in,
};
use lbplan_core::plan::{PLAN_FORMAT_VERSION, Plan};
use serde_json::Value;

use serde::Deserialize;

use crate::error::ApiError;
use crate::options::{self, Flag};

/// `exportPlan()`'s options as the caller wrote them (`ExportOptions` in the declarations).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsExportOptions {
    pause_automatic_shedding: Option<Flag>,
    i_know: Option<Flag>,
}

/// Reads a plan object back, naming the path of the first bad field.
pub fn plan_from_value(v: &Value) -> Result<Plan, ApiError> {
    let plan: Plan = serde_path_to_error::deserialize(v).map_err(|e| {
        let at = e.path().to_string();
        let path = if at == "." || at.is_empty() {
            "plan".to_string()
        } else {
            format!("plan.{at}")
        };
        ApiError::at(path, e.into_inner().to_string())
    })?;
    if plan.format_version != PLAN_FORMAT_VERSION {
        return Err(ApiError::at(
            "plan.format_version",
            format!(
                "expected {PLAN_FORMAT_VERSION}, found {}",
                plan.format_version
            ),
        ));
    }
    Ok(plan)
}

/// `options`: `{pauseAutomaticShedding?: boolean, iKnow?: boolean}` (pause `loadBalancerSheddingEnabled`
/// while the script runs, the previous value restored on every exit; acknowledge a `worse` verdict so
/// the script applies without asking for `--i-know`).
pub fn export_plan(plan: &Value, format: &str, options: &Value) -> Result<String, ApiError> {
    let plan = plan_from_value(plan)?;
    let (o, unknown) = options::read::<JsExportOptions>(options)?;
    options::refuse_unknown::<JsExportOptions>(&unknown, "")?;
    let opts = ExportOptions {
        pause_automatic_shedding: o.pause_automatic_shedding.is_some_and(|Flag(b)| b),
        i_know: o.i_know.is_some_and(|Flag(b)| b),
    };
    let format: ExportFormat = format
        .parse()
        .map_err(|e: UnknownExportFormat| ApiError::at("format", e.to_string()))?;
    export_in(&plan, format, opts).map_err(|e| ApiError::at("plan", e.to_string()))
}
