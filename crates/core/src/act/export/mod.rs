//! Plan exports an operator can run: a `pulsar-admin` script or the equivalent admin REST calls with
//! curl (§10 of the reference). Both are bash scripts with an `apply` and a `rollback` entry point.
//!
//! Every name passes the naming rule ([`crate::naming`]) before it is written, and a plan with one
//! bad name is refused whole ([`ExportError`] names the decision), so a hostile snapshot cannot turn
//! a script into an injection or send a call to another endpoint. The scripts are also safe to
//! run: a paused `loadBalancerSheddingEnabled` is restored on every exit, each unload first checks
//! that the source broker still owns the bundle, heartbeat and SLA-monitor namespaces are never
//! moved, and a drain pins each bundle's destination (see [`script`]).

mod admin;
mod calls;
mod curl;
mod options;
mod script;
mod steps;

use super::names::check_bundle;
use crate::plan::model::Plan;
use steps::{Step, apply_steps, name_error, rollback_step, rollback_steps};

pub use calls::{StepCall, StepKind, expected_effect, step_calls};
pub use options::{ExportOptions, ScriptFormat};
pub use steps::ExportError;

pub use curl::{
    RestCall, active_brokers_call, broker_version_call, dynamic_config_call, owned_bundles_call,
    runtime_config_call, unset_shedding_call,
};

/// The call that moves `bundle` from `expected_owner` back to `back_to` (a guarded rollback).
pub fn rollback_call(
    bundle: &str,
    back_to: &str,
    expected_owner: Option<&str>,
) -> Result<RestCall, ExportError> {
    let decision = format!(
        "rollback of bundle `{}` back to `{}`",
        bundle.escape_default(),
        back_to.escape_default()
    );
    let (namespace, range) = check_bundle(bundle).map_err(name_error(decision.clone()))?;
    rollback_step(decision, bundle, back_to, expected_owner)?;
    Ok(curl::unload_call(
        namespace,
        &range,
        Some(back_to),
        format!("move {bundle} back to {back_to}"),
    ))
}

/// The call that sets `loadBalancerSheddingEnabled` (the dynamic configuration).
pub fn set_shedding_call(enabled: bool) -> RestCall {
    curl::shedding_call(enabled)
}

/// The REST calls that apply a plan, in order (the dashboard's Apply flow): with
/// `pause_automatic_shedding`, `loadBalancerSheddingEnabled=false` first and `true` last.
pub fn rest_calls(plan: &Plan, opts: ExportOptions) -> Result<Vec<RestCall>, ExportError> {
    let mut steps = apply_steps(plan)?;
    if opts.pause_automatic_shedding {
        steps.insert(0, Step::SetShedding(false));
        steps.push(Step::SetShedding(true));
    }
    Ok(steps.iter().filter_map(curl::rest_call).collect())
}

/// Renders the plan as a runnable bash script (`bash plan.sh` applies, `bash plan.sh rollback` undoes).
pub fn export_script(
    plan: &Plan,
    format: ScriptFormat,
    opts: ExportOptions,
) -> Result<String, ExportError> {
    let apply = apply_steps(plan)?;
    let rollback = rollback_steps(plan)?;
    Ok(script::render(plan, format, opts, &apply, &rollback))
}
