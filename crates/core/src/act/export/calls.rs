//! Each step of a plan with the REST call that carries it out, for a guarded apply, and the one
//! line saying what a step is expected to do (the scripts' comments and the apply's log).

use super::curl::{self, RestCall};
use super::steps::{ExportError, Step, apply_steps, is_broker_own_namespace};
use crate::plan::model::Plan;

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

/// One line for what a step is expected to do: the bundle, from → to, and the usage before → after
/// of the brokers it touches, from the plan's prediction (after the whole plan, weighted max).
pub fn expected_effect(plan: &Plan, step: &StepCall) -> String {
    let bundle = step.bundle.as_deref().unwrap_or("");
    let usages = |brokers: &[Option<&str>]| {
        let parts: Vec<String> = brokers
            .iter()
            .flatten()
            .filter_map(|b| usage(plan, b))
            .collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!(
                "; predicted usage {} (weighted max, after the whole plan)",
                parts.join(", ")
            )
        }
    };
    match step.kind {
        StepKind::Split => format!(
            "split {bundle} on {} (permanent){}",
            step.expected_owner.as_deref().unwrap_or("?"),
            usages(&[step.expected_owner.as_deref()])
        ),
        StepKind::Unload => format!(
            "move {bundle}: {} → {}{}",
            step.expected_owner.as_deref().unwrap_or("?"),
            step.predicted
                .as_deref()
                .unwrap_or("(a broker Pulsar chooses)"),
            usages(&[step.expected_owner.as_deref(), step.predicted.as_deref()])
        ),
        StepKind::UnloadTopic => format!("unload the topic of {}", step.call.path),
    }
}

/// A broker's weighted max usage before and after the whole plan, as the plan predicts it.
fn usage(plan: &Plan, broker: &str) -> Option<String> {
    let find = |v: &[crate::plan::model::BrokerLoadView]| {
        v.iter()
            .find(|b| b.broker == broker)
            .map(|b| format!("{:.1}%", b.weighted_max_usage_fraction * 100.0))
    };
    match (find(&plan.brokers_before), find(&plan.brokers_after)) {
        (None, None) => None,
        (b, a) => Some(format!(
            "{broker} {} → {}",
            b.unwrap_or_else(|| "(new)".to_string()),
            a.unwrap_or_else(|| "(gone)".to_string())
        )),
    }
}
