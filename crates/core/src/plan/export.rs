//! Plan exports an operator can run: a `pulsar-admin` script or the equivalent admin REST calls with
//! curl (§10 of the reference). Both are bash scripts with an `apply` and a `rollback` entry point;
//! every name is validated against Pulsar's naming rules and quoted, so a hostile name in a snapshot
//! is refused instead of executed.

use std::fmt::Write as _;

use super::model::Plan;
use super::names::{NameError, check_broker, check_bundle, check_topic, shell_quote, url_encode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptFormat {
    PulsarAdmin,
    Curl,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Wrap the operations with `loadBalancerSheddingEnabled=false` … `true`, so automatic shedding does
    /// not fight a manual rebalance.
    pub pause_automatic_shedding: bool,
    /// The operator already acknowledged a worse verdict (`lbplan plan --i-know`): the script keeps the
    /// verdict in its header but applies without asking for `--i-know` (see `plan::verdict`).
    pub i_know: bool,
}

/// One admin operation, already validated.
enum Step {
    Split {
        namespace: String,
        range: String,
        algorithm: String,
        positions: Vec<u32>,
        note: String,
    },
    Unload {
        namespace: String,
        range: String,
        destination: Option<String>,
        note: String,
    },
    UnloadTopic {
        domain: String,
        tenant: String,
        namespace: String,
        local: String,
    },
    SetShedding(bool),
}

/// Comments must stay on one line whatever a reason contains.
fn comment(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn apply_steps(plan: &Plan, opts: ExportOptions) -> Result<Vec<Step>, NameError> {
    let mut steps = Vec::new();
    if opts.pause_automatic_shedding {
        steps.push(Step::SetShedding(false));
    }
    for s in &plan.splits {
        let (namespace, range) = check_bundle(&s.bundle)?;
        let algorithm = s.algorithm.clone();
        if !algorithm
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_')
        {
            return Err(NameError::Invalid {
                what: "split algorithm",
                value: algorithm.escape_default().to_string(),
                rule: "one of Pulsar's split algorithm names",
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
            comment(&s.reason)
        );
        steps.push(Step::Split {
            namespace,
            range,
            algorithm,
            positions,
            note,
        });
    }
    for u in &plan.unloads {
        let (namespace, range) = check_bundle(&u.bundle)?;
        check_broker(&u.from)?;
        if let Some(to) = &u.to {
            check_broker(to)?;
        }
        let note = format!(
            "unload {} from {} to {}{}: {}",
            u.bundle,
            u.from,
            u.to.as_deref().unwrap_or("(broker chosen by Pulsar)"),
            if u.pass_destination {
                ""
            } else {
                " (predicted; Pulsar's next lookup chooses)"
            },
            comment(&u.reason)
        );
        steps.push(Step::Unload {
            namespace,
            range,
            destination: if u.pass_destination {
                u.to.clone()
            } else {
                None
            },
            note,
        });
    }
    for t in &plan.topic_unloads {
        let (domain, tenant, namespace, local) = check_topic(t)?;
        steps.push(Step::UnloadTopic {
            domain,
            tenant,
            namespace,
            local,
        });
    }
    if opts.pause_automatic_shedding {
        steps.push(Step::SetShedding(true));
    }
    Ok(steps)
}

/// Unloads back to the original owners, in reverse order. Splits cannot be undone.
fn rollback_steps(plan: &Plan) -> Result<Vec<Step>, NameError> {
    let mut steps = Vec::new();
    for u in plan.unloads.iter().rev() {
        let (namespace, range) = check_bundle(&u.bundle)?;
        check_broker(&u.from)?;
        steps.push(Step::Unload {
            namespace,
            range,
            destination: Some(u.from.clone()),
            note: format!("move {} back to {}", u.bundle, u.from),
        });
    }
    Ok(steps)
}

fn render_pulsar_admin(step: &Step, out: &mut String) {
    match step {
        Step::SetShedding(enabled) => {
            let _ = writeln!(
                out,
                "  \"$PULSAR_ADMIN\" brokers update-dynamic-config --config loadBalancerSheddingEnabled --value {enabled}"
            );
        }
        Step::Split {
            namespace,
            range,
            algorithm,
            positions,
            note,
        } => {
            let _ = writeln!(out, "  # {note}");
            let _ = write!(
                out,
                "  \"$PULSAR_ADMIN\" namespaces split-bundle {} --bundle {} --split-algorithm-name {}",
                shell_quote(namespace),
                shell_quote(range),
                shell_quote(algorithm)
            );
            if !positions.is_empty() {
                let list: Vec<String> = positions.iter().map(u32::to_string).collect();
                let _ = write!(out, " --split-boundaries {}", shell_quote(&list.join(",")));
            }
            out.push('\n');
        }
        Step::Unload {
            namespace,
            range,
            destination,
            note,
        } => {
            let _ = writeln!(out, "  # {note}");
            let _ = write!(
                out,
                "  \"$PULSAR_ADMIN\" namespaces unload {} --bundle {}",
                shell_quote(namespace),
                shell_quote(range)
            );
            if let Some(d) = destination {
                let _ = write!(out, " --destinationBroker {}", shell_quote(d));
            }
            out.push('\n');
        }
        Step::UnloadTopic {
            domain,
            tenant,
            namespace,
            local,
        } => {
            let _ = writeln!(
                out,
                "  \"$PULSAR_ADMIN\" topics unload {}",
                shell_quote(&format!("{domain}://{tenant}/{namespace}/{local}"))
            );
        }
    }
}

/// One admin REST call of a plan, as the curl export and the dashboard's Apply flow make it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RestCall {
    pub method: &'static str,
    /// Path and query under the admin base URL (`/admin/v2/...`), names URL-encoded.
    pub path: String,
    /// JSON body, when the call has one.
    pub body: Option<String>,
    /// What the call does, one line.
    pub note: String,
}

fn rest_call(step: &Step) -> RestCall {
    match step {
        Step::SetShedding(enabled) => RestCall {
            method: "POST",
            path: format!("/admin/v2/brokers/configuration/loadBalancerSheddingEnabled/{enabled}"),
            body: None,
            note: format!("loadBalancerSheddingEnabled={enabled}"),
        },
        Step::Split {
            namespace,
            range,
            algorithm,
            positions,
            note,
        } => RestCall {
            method: "PUT",
            path: format!(
                "/admin/v2/namespaces/{namespace}/{range}/split?unload=false&splitAlgorithmName={}",
                url_encode(algorithm)
            ),
            body: (!positions.is_empty()).then(|| {
                let list: Vec<String> = positions.iter().map(u32::to_string).collect();
                format!("[{}]", list.join(","))
            }),
            note: note.clone(),
        },
        Step::Unload {
            namespace,
            range,
            destination,
            note,
        } => {
            let mut path = format!("/admin/v2/namespaces/{namespace}/{range}/unload");
            if let Some(d) = destination {
                path.push_str(&format!("?destinationBroker={}", url_encode(d)));
            }
            RestCall {
                method: "PUT",
                path,
                body: None,
                note: note.clone(),
            }
        }
        Step::UnloadTopic {
            domain,
            tenant,
            namespace,
            local,
        } => RestCall {
            method: "PUT",
            path: format!(
                "/admin/v2/{domain}/{tenant}/{namespace}/{}/unload",
                url_encode(local)
            ),
            body: None,
            note: format!("unload topic {domain}://{tenant}/{namespace}/{local}"),
        },
    }
}

/// The REST calls that apply a plan, in order (the curl export's `apply` section).
pub fn rest_calls(plan: &Plan, opts: ExportOptions) -> Result<Vec<RestCall>, NameError> {
    Ok(apply_steps(plan, opts)?.iter().map(rest_call).collect())
}

fn render_curl(step: &Step, out: &mut String) {
    let call = rest_call(step);
    match step {
        Step::Split { note, .. } | Step::Unload { note, .. } => {
            let _ = writeln!(out, "  # {note}");
        }
        Step::SetShedding(_) | Step::UnloadTopic { .. } => {}
    }
    match &call.body {
        None => {
            let _ = writeln!(out, "  call {} {}", call.method, shell_quote(&call.path));
        }
        Some(body) => {
            let _ = writeln!(
                out,
                "  call {} {} -H 'Content-Type: application/json' --data {}",
                call.method,
                shell_quote(&call.path),
                shell_quote(body)
            );
        }
    }
}

/// Renders the plan as a runnable bash script (`bash plan.sh` applies, `bash plan.sh rollback` undoes).
pub fn export_script(
    plan: &Plan,
    format: ScriptFormat,
    opts: ExportOptions,
) -> Result<String, NameError> {
    let apply = apply_steps(plan, opts)?;
    let rollback = rollback_steps(plan)?;
    let render: fn(&Step, &mut String) = match format {
        ScriptFormat::PulsarAdmin => render_pulsar_admin,
        ScriptFormat::Curl => render_curl,
    };
    let mut out = String::new();
    out.push_str("#!/usr/bin/env bash\n");
    let _ = writeln!(
        out,
        "# Generated by lbplan from snapshot {} (profile {}, seed {}).",
        comment(&plan.snapshot_fingerprint),
        comment(&plan.profile),
        plan.seed
    );
    out.push_str("# Review before running. `bash THIS_FILE` applies the plan; `bash THIS_FILE rollback` undoes the unloads.\n");
    if !plan.splits.is_empty() {
        out.push_str(
            "# Splits are permanent: Pulsar cannot merge bundles, so rollback cannot undo them.\n",
        );
    }
    out.push_str("set -euo pipefail\n");
    // A plan that makes the cluster worse refuses to apply without --i-know (plan::verdict).
    out.push_str(&super::verdict::script_guard(plan, opts.i_know));
    match format {
        ScriptFormat::PulsarAdmin => {
            out.push_str("PULSAR_ADMIN=\"${PULSAR_ADMIN:-pulsar-admin}\"\n")
        }
        ScriptFormat::Curl => {
            out.push_str(
                ": \"${PULSAR_ADMIN_URL:?set PULSAR_ADMIN_URL, e.g. http://broker-1:8080}\"\n",
            );
            out.push_str("# Optional: PULSAR_TOKEN_FILE=/path/to/token (read at run time, never stored here).\n");
            out.push_str("AUTH=()\n");
            out.push_str("if [ -n \"${PULSAR_TOKEN_FILE:-}\" ]; then AUTH=(-H \"Authorization: Bearer $(cat \"$PULSAR_TOKEN_FILE\")\"); fi\n");
            out.push_str("call() {\n  local method=$1 path=$2; shift 2\n  echo \"$method $path\" >&2\n  curl -sS -f -L -X \"$method\" \"${AUTH[@]}\" \"$@\" \"$PULSAR_ADMIN_URL$path\"\n}\n");
        }
    }
    out.push_str("\napply() {\n");
    if apply.is_empty() {
        out.push_str("  echo 'Nothing to do: the plan has no operations.' >&2\n");
    }
    for s in &apply {
        render(s, &mut out);
    }
    out.push_str("}\n\nrollback() {\n");
    if !plan.splits.is_empty() {
        for s in &plan.splits {
            let _ = writeln!(
                out,
                "  # {} stays split into {}: splits cannot be undone.",
                s.bundle,
                s.new_bundles.join(", ")
            );
        }
    }
    if rollback.is_empty() {
        out.push_str("  echo 'Nothing to roll back.' >&2\n");
    }
    for s in &rollback {
        render(s, &mut out);
    }
    out.push_str("}\n\ncase \"${1:-apply}\" in\n  apply) apply ;;\n  rollback) rollback ;;\n  *) echo \"usage: $0 [apply|rollback]\" >&2; exit 2 ;;\nesac\n");
    Ok(out)
}
