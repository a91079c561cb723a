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
mod curl;
mod script;

use crate::modular::is_heartbeat_or_sla_namespace;
use crate::naming::BundleRange;

use super::names::{NameError, check_broker, check_bundle, check_topic};
use crate::plan::model::{Plan, PlannedUnload};

pub use curl::{
    RestCall, active_brokers_call, broker_version_call, dynamic_config_call, owned_bundles_call,
    runtime_config_call, unset_shedding_call,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptFormat {
    PulsarAdmin,
    Curl,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Pause automatic shedding (`loadBalancerSheddingEnabled=false`) while the script runs, so it
    /// does not fight a manual rebalance; the previous value is restored on every exit.
    pub pause_automatic_shedding: bool,
    /// The operator already acknowledged a worse verdict (`lbplan plan --i-know`): the script keeps the
    /// verdict in its header but applies without asking for `--i-know` (see `plan::verdict`).
    pub i_know: bool,
}

/// Why a plan cannot be exported: which decision, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("refusing to export {decision}: {source}")]
    Name {
        decision: String,
        #[source]
        source: NameError,
    },
    #[error("refusing to export {decision}: split algorithm `{algorithm}` is not one of Pulsar's")]
    SplitAlgorithm { decision: String, algorithm: String },
}

/// One admin operation, already validated.
enum Step {
    Split {
        namespace: String,
        range: BundleRange,
        algorithm: String,
        positions: Vec<u32>,
        note: String,
    },
    Unload {
        bundle: String,
        namespace: String,
        range: BundleRange,
        /// The broker that must still own the bundle for the unload to go ahead.
        expected_owner: Option<String>,
        destination: Option<String>,
        note: String,
    },
    UnloadTopic {
        domain: String,
        tenant: String,
        namespace: String,
        local: String,
    },
    /// A decision the script does not carry out, with why (a comment in the script).
    Skip {
        note: String,
    },
    SetShedding(bool),
}

/// Comments must stay on one line whatever a reason contains.
fn comment(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn name_error(decision: String) -> impl FnOnce(NameError) -> ExportError {
    move |source| ExportError::Name { decision, source }
}

/// Heartbeat and SLA-monitor namespaces (`pulsar/<host>:<port>`, `sla-monitor/<host>:<port>`, and
/// the V1 forms) belong to one broker: Pulsar always places them there, so unloading one only
/// disturbs that broker's health check, and a drained broker's heartbeat goes away with it.
fn is_broker_own_namespace(bundle: &str) -> bool {
    let namespace = crate::naming::BundleName::namespace_of(bundle);
    is_heartbeat_or_sla_namespace(namespace, true)
}

/// The destination the unload call names. A drain (`remove-broker`) pins the plan's placement:
/// the drained broker is still live while the script runs, so a lookup without a destination
/// could land the bundle back on it.
fn destination_of(u: &PlannedUnload) -> Option<&str> {
    if u.pass_destination || u.origin == "remove-broker" {
        u.to.as_deref()
    } else {
        None
    }
}

fn apply_steps(plan: &Plan) -> Result<Vec<Step>, ExportError> {
    let mut steps = Vec::new();
    for (i, s) in plan.splits.iter().enumerate() {
        let decision = format!(
            "split {} of {} (bundle `{}`)",
            i + 1,
            plan.splits.len(),
            s.bundle.escape_default()
        );
        let (namespace, range) = check_bundle(&s.bundle).map_err(name_error(decision.clone()))?;
        let algorithm = s.algorithm.clone();
        if algorithm.is_empty()
            || !algorithm
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_')
        {
            return Err(ExportError::SplitAlgorithm {
                decision,
                algorithm: algorithm.escape_default().to_string(),
            });
        }
        let positions = if algorithm == "specified_positions_divide" {
            s.boundaries.clone()
        } else {
            Vec::new()
        };
        let note = format!(
            "split {} ({}); PERMANENT: Pulsar cannot merge bundles back",
            s.bundle,
            comment(&s.reason_text)
        );
        steps.push(Step::Split {
            namespace: namespace.to_string(),
            range,
            algorithm,
            positions,
            note,
        });
    }
    for (i, u) in plan.unloads.iter().enumerate() {
        let decision = format!(
            "unload {} of {} (bundle `{}` from `{}`)",
            i + 1,
            plan.unloads.len(),
            u.bundle.escape_default(),
            u.from.escape_default()
        );
        if is_broker_own_namespace(&u.bundle) {
            steps.push(Step::Skip {
                note: format!(
                    "not unloading {} from {}: a heartbeat or SLA-monitor namespace stays on its broker",
                    comment(&u.bundle),
                    comment(&u.from)
                ),
            });
            continue;
        }
        let (namespace, range) = check_bundle(&u.bundle).map_err(name_error(decision.clone()))?;
        check_broker(&u.from).map_err(name_error(decision.clone()))?;
        if let Some(to) = &u.to {
            check_broker(to).map_err(name_error(decision.clone()))?;
        }
        let destination = destination_of(u);
        let note = format!(
            "unload {} from {} to {}{}: {}",
            u.bundle,
            u.from,
            u.to.as_deref().unwrap_or("(broker chosen by Pulsar)"),
            if destination.is_some() || u.to.is_none() {
                ""
            } else {
                " (predicted; Pulsar's next lookup chooses)"
            },
            comment(&u.reason_text)
        );
        steps.push(Step::Unload {
            bundle: u.bundle.clone(),
            namespace: namespace.to_string(),
            range,
            expected_owner: Some(u.from.clone()),
            destination: destination.map(str::to_string),
            note,
        });
    }
    for (i, t) in plan.topic_unloads.iter().enumerate() {
        let decision = format!(
            "topic unload {} of {} (`{}`)",
            i + 1,
            plan.topic_unloads.len(),
            t.escape_default()
        );
        let parts = check_topic(t).map_err(name_error(decision))?;
        steps.push(Step::UnloadTopic {
            domain: parts.domain.to_string(),
            tenant: parts.tenant.to_string(),
            namespace: parts.namespace.to_string(),
            local: parts.local_name.to_string(),
        });
    }
    Ok(steps)
}

/// The unload that moves `bundle` back to `back_to`, expecting it on `expected_owner`.
fn rollback_step(
    decision: String,
    bundle: &str,
    back_to: &str,
    expected_owner: Option<&str>,
) -> Result<Step, ExportError> {
    let (namespace, range) = check_bundle(bundle).map_err(name_error(decision.clone()))?;
    check_broker(back_to).map_err(name_error(decision.clone()))?;
    if let Some(to) = expected_owner {
        check_broker(to).map_err(name_error(decision))?;
    }
    Ok(Step::Unload {
        bundle: bundle.to_string(),
        namespace: namespace.to_string(),
        range,
        expected_owner: expected_owner.map(str::to_string),
        destination: Some(back_to.to_string()),
        note: format!("move {bundle} back to {back_to}"),
    })
}

/// Unloads back to the original owners, in reverse order. Splits cannot be undone.
fn rollback_steps(plan: &Plan) -> Result<Vec<Step>, ExportError> {
    let mut steps = Vec::new();
    for (i, u) in plan.unloads.iter().enumerate().rev() {
        if is_broker_own_namespace(&u.bundle) {
            continue;
        }
        let decision = format!(
            "rollback of unload {} of {} (bundle `{}` back to `{}`)",
            i + 1,
            plan.unloads.len(),
            u.bundle.escape_default(),
            u.from.escape_default()
        );
        steps.push(rollback_step(
            decision,
            &u.bundle,
            &u.from,
            u.to.as_deref(),
        )?);
    }
    Ok(steps)
}

/// What one applied operation is, for a guarded apply ([`crate::act::apply`]): the call, and what
/// to check before it (the expected owner) and after it (the destination).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Split,
    Unload,
    UnloadTopic,
}

/// One operation of a plan with its REST call, in the order [`rest_calls`] sends them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StepCall {
    pub kind: StepKind,
    /// The full bundle name (`tenant/ns/0x..._0x...`); `None` for a topic unload.
    pub bundle: Option<String>,
    /// The broker that owns the bundle in the plan's snapshot.
    pub expected_owner: Option<String>,
    /// The `destinationBroker` the call names, if any.
    pub destination: Option<String>,
    /// Where the plan predicts the bundle lands.
    pub predicted: Option<String>,
    pub call: RestCall,
}

/// The plan's operations, each with its REST call (heartbeat and SLA-monitor bundles left out,
/// as in the scripts).
pub fn step_calls(plan: &Plan) -> Result<Vec<StepCall>, ExportError> {
    let steps = apply_steps(plan)?;
    let mut out = Vec::new();
    let mut unloads = plan
        .unloads
        .iter()
        .filter(|u| !is_broker_own_namespace(&u.bundle));
    let mut splits = plan.splits.iter();
    for step in &steps {
        let Some(call) = curl::rest_call(step) else {
            continue;
        };
        let item = match step {
            Step::Split { .. } => {
                let s = splits.next();
                StepCall {
                    kind: StepKind::Split,
                    bundle: s.map(|s| s.bundle.clone()),
                    expected_owner: s.map(|s| s.broker.clone()),
                    destination: None,
                    predicted: s.map(|s| s.broker.clone()),
                    call,
                }
            }
            Step::Unload {
                bundle,
                expected_owner,
                destination,
                ..
            } => {
                let u = unloads.next();
                StepCall {
                    kind: StepKind::Unload,
                    bundle: Some(bundle.clone()),
                    expected_owner: expected_owner.clone(),
                    destination: destination.clone(),
                    predicted: u.and_then(|u| u.to.clone()),
                    call,
                }
            }
            Step::UnloadTopic { .. } => StepCall {
                kind: StepKind::UnloadTopic,
                bundle: None,
                expected_owner: None,
                destination: None,
                predicted: None,
                call,
            },
            Step::Skip { .. } | Step::SetShedding(_) => continue,
        };
        out.push(item);
    }
    Ok(out)
}

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
