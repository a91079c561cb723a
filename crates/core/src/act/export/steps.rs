//! A plan's decisions as validated admin steps, in the order the scripts and the REST calls carry
//! them out, and their rollback; a decision with a bad name refuses the whole export.

use crate::act::names::{NameError, check_broker, check_bundle, check_topic};
use crate::naming::BundleRange;
use crate::naming::is_heartbeat_or_sla_namespace;
use crate::plan::model::{Plan, PlannedUnload};

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
pub(super) enum Step {
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
pub(super) fn comment(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

pub(super) fn name_error(decision: String) -> impl FnOnce(NameError) -> ExportError {
    move |source| ExportError::Name { decision, source }
}

/// Heartbeat and SLA-monitor namespaces (`pulsar/<host>:<port>`, `sla-monitor/<host>:<port>`, and
/// the V1 forms) belong to one broker: Pulsar always places them there, so unloading one only
/// disturbs that broker's health check, and a drained broker's heartbeat goes away with it.
pub(super) fn is_broker_own_namespace(bundle: &str) -> bool {
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

pub(super) fn apply_steps(plan: &Plan) -> Result<Vec<Step>, ExportError> {
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
pub(super) fn rollback_step(
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
pub(super) fn rollback_steps(plan: &Plan) -> Result<Vec<Step>, ExportError> {
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
