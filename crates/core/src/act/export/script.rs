//! The bash around the admin commands, shared by both formats, written so that running the script
//! cannot leave the cluster worse than a failed command would:
//!
//! * `set -euo pipefail`: the first failed command stops the script;
//! * a paused `loadBalancerSheddingEnabled` is put back on every exit (`trap … EXIT`, with INT and
//!   TERM turned into exits): to its previous dynamic value, or by deleting the override when there
//!   was none, so a failed unload no longer leaves shedding off on the whole cluster;
//! * before each unload, `still_owned` asks Pulsar which bundles the source broker owns and skips
//!   (and reports, exit status 3) a bundle that moved since the snapshot;
//! * each step says what it is (step k of n, with the plan's expected effect), that the owner was
//!   checked, the call sent and its result, and the run ends with a summary; `dry-run` does the
//!   same reads and sends nothing.
//!
//! Each format supplies four primitives (`dynamic_config`, `set_shedding`, `unset_shedding`,
//! `owned_bundles`) and renders its own steps.

use std::fmt::Write as _;

use super::calls::{expected_effect, step_calls};
use super::options::{ExportOptions, ScriptFormat};
use super::steps::{Step, comment};
use super::{admin, curl};
use crate::act::names::shell_quote;
use crate::plan::model::Plan;

const SHARED: &str = r#"SKIPPED=()
SHEDDING_RESTORE=""
LBPLAN_DRY_RUN=${LBPLAN_DRY_RUN:-0}
LBPLAN_SENT=0

# lbplan_step K N WHAT: announces step K of N and what the plan expects it to do.
lbplan_step() { echo "step $1 of $2: $3" >&2; }

# lbplan_do COMMAND...: sends one call of the plan and says what happened; in a dry run it only
# says what it would send.
lbplan_do() {
  if [ "$LBPLAN_DRY_RUN" = 1 ]; then
    echo "  dry run, not sent: $*" >&2
    return 0
  fi
  echo "  call sent: $*" >&2
  local status=0
  "$@" || status=$?
  if [ "$status" = 0 ]; then
    LBPLAN_SENT=$((LBPLAN_SENT + 1))
    echo "  result: ok" >&2
  else
    echo "  result: FAILED (exit status $status); stopping" >&2
  fi
  return "$status"
}

lbplan_summary() {
  if [ "$LBPLAN_DRY_RUN" = 1 ]; then
    echo "summary (dry run): $1 step(s) listed, nothing sent, ${#SKIPPED[@]} would be skipped (bundle moved)" >&2
  else
    echo "summary: $LBPLAN_SENT of $1 call(s) sent, ${#SKIPPED[@]} skipped (bundle moved)" >&2
  fi
}

# The unloads first check each bundle's owner, which needs the cluster's name.
require_cluster() {
  : "${PULSAR_CLUSTER:?set PULSAR_CLUSTER to the cluster name (pulsar-admin clusters list)}"
  case "$PULSAR_CLUSTER" in
    . | .. | -* | *[!-=:._A-Za-z0-9]*)
      echo "PULSAR_CLUSTER is not a plain Pulsar cluster name" >&2
      exit 2
      ;;
  esac
}

# Pauses automatic shedding and arms the trap that restores the value it had: a dynamic override
# (true or false), or none (the override is deleted, broker.conf applies again). Only the one value
# is kept: the other dynamic settings never reach a variable that `bash -x` would print.
pause_shedding() {
  if [ "$LBPLAN_DRY_RUN" = 1 ]; then
    echo "dry run: automatic shedding would be paused (loadBalancerSheddingEnabled=false) and restored on exit" >&2
    return 0
  fi
  local previous
  previous=$(dynamic_config | sed -nE '/loadBalancerSheddingEnabled/{s/.*loadBalancerSheddingEnabled"?[[:space:]]*:?[[:space:]]*"?([A-Za-z]*).*/\1/p;q;}')
  case "$previous" in
    true | false) ;;
    "") previous=none ;;
    *)
      echo "cannot read the current loadBalancerSheddingEnabled; nothing was changed" >&2
      exit 1
      ;;
  esac
  SHEDDING_RESTORE=$previous
  trap restore_shedding EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  set_shedding false
}

restore_shedding() {
  local status=$?
  case "$SHEDDING_RESTORE" in
    none)
      unset_shedding || echo "FAILED to delete the loadBalancerSheddingEnabled override: delete it by hand" >&2
      ;;
    true | false)
      set_shedding "$SHEDDING_RESTORE" || echo "FAILED to set loadBalancerSheddingEnabled back to $SHEDDING_RESTORE: set it by hand" >&2
      ;;
  esac
  SHEDDING_RESTORE=""
  exit "$status"
}

# still_owned BUNDLE BROKER [BROKER_IN_URL]: whether BROKER still owns BUNDLE, in the list Pulsar
# prints (`bundle    status` lines, or JSON keys). If it does not, or Pulsar cannot tell, the
# unload is skipped and reported.
still_owned() {
  if owned_bundles "${3:-$2}" | awk -v b="$1" '$1 == b || index($0, "\"" b "\"") { found = 1 } END { exit !found }'; then
    echo "  owner checked: $2 owns $1" >&2
    return 0
  fi
  echo "SKIPPED $1: $2 does not own it any more (or its owner could not be read)" >&2
  SKIPPED+=("$1")
  return 1
}

report_skipped() {
  if [ "${#SKIPPED[@]}" -gt 0 ]; then
    echo "${#SKIPPED[@]} unload(s) skipped because the bundle moved: ${SKIPPED[*]}" >&2
    exit 3
  fi
}
"#;

fn has_unload(steps: &[Step]) -> bool {
    steps.iter().any(|s| matches!(s, Step::Unload { .. }))
}

/// What step `step` is expected to do, one line: the plan's prediction when `effects` has it
/// (`effects` holds one line per acting step, in order), else the step's own note.
fn effect_of(step: &Step, k: usize, effects: &[String]) -> String {
    effects.get(k).cloned().unwrap_or_else(|| match step {
        Step::Split { note, .. } | Step::Unload { note, .. } | Step::Skip { note } => note.clone(),
        Step::UnloadTopic {
            domain,
            tenant,
            namespace,
            local,
        } => format!("unload topic {domain}://{tenant}/{namespace}/{local}"),
        Step::SetShedding(v) => format!("loadBalancerSheddingEnabled={v}"),
    })
}

fn section(
    out: &mut String,
    name: &str,
    steps: &[Step],
    opts: ExportOptions,
    render: fn(&Step, &mut String),
    preamble: &[String],
    effects: &[String],
) {
    let _ = writeln!(out, "\n{name}() {{");
    for line in preamble {
        let _ = writeln!(out, "  {line}");
    }
    let unloads = has_unload(steps);
    if unloads {
        out.push_str("  require_cluster\n");
    }
    let acts = steps.iter().any(|s| !matches!(s, Step::Skip { .. }));
    if opts.pause_automatic_shedding && acts {
        out.push_str("  pause_shedding\n");
    }
    if !acts {
        let what = if name == "apply" {
            "Nothing to do: the plan has no operations."
        } else {
            "Nothing to roll back."
        };
        let _ = writeln!(out, "  echo '{what}' >&2");
    }
    let total = steps
        .iter()
        .filter(|s| !matches!(s, Step::Skip { .. }))
        .count();
    let mut k = 0;
    for s in steps {
        if !matches!(s, Step::Skip { .. }) {
            let _ = writeln!(
                out,
                "  lbplan_step {} {total} {}",
                k + 1,
                shell_quote(&comment(&effect_of(s, k, effects)))
            );
            k += 1;
        }
        render(s, out);
    }
    if acts {
        let _ = writeln!(out, "  lbplan_summary {total}");
    }
    if unloads {
        out.push_str("  report_skipped\n");
    }
    out.push_str("}\n");
}

pub(super) fn render(
    plan: &Plan,
    format: ScriptFormat,
    opts: ExportOptions,
    apply: &[Step],
    rollback: &[Step],
) -> String {
    let (primitives, render): (&str, fn(&Step, &mut String)) = match format {
        ScriptFormat::PulsarAdmin => (admin::PRIMITIVES, admin::render_step),
        ScriptFormat::Curl => (curl::PRIMITIVES, curl::render_step),
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
    let _ = writeln!(
        out,
        "# Cluster: {}. Snapshot captured {}; its age is checked when the script runs.",
        comment(
            plan.cluster
                .as_deref()
                .unwrap_or("(not named by the snapshot)")
        ),
        plan.snapshot_captured_at_ms
            .map(crate::calendar::utc)
            .unwrap_or_else(|| "at an unknown time".to_string())
    );
    let _ = writeln!(
        out,
        "# Verdict: {}: {}",
        plan.verdict.outcome.name(),
        comment(&plan.verdict.headline)
    );
    out.push_str("# Review before running. `bash THIS_FILE` applies the plan; `bash THIS_FILE dry-run` prints each step and checks each owner without changing anything; `bash THIS_FILE rollback` undoes the unloads.\n");
    if !plan.splits.is_empty() {
        out.push_str(
            "# Splits are permanent: Pulsar cannot merge bundles, so rollback cannot undo them.\n",
        );
    }
    if has_unload(apply) || has_unload(rollback) {
        out.push_str(
            "# Each unload first checks that the source broker still owns the bundle (set PULSAR_CLUSTER);\n\
             # a bundle that moved is skipped and reported, and the script then exits with status 3.\n",
        );
    }
    if opts.pause_automatic_shedding {
        out.push_str(
            "# Automatic shedding is paused while the script runs and restored on every exit.\n",
        );
    }
    out.push_str("set -euo pipefail\n");
    // The safety policy (act::safety): the verdict and context first; a worse or stale plan
    // refuses to apply without --i-know.
    out.push_str(&crate::act::safety::script_guard(plan, opts.i_know));
    out.push_str(primitives);
    out.push_str(SHARED);
    out.push_str(&crate::act::safety::script_profile_check(plan));
    // Each acting step's expected effect (bundle, from → to, predicted usage), in the apply order.
    let effects: Vec<String> = step_calls(plan)
        .map(|calls| calls.iter().map(|c| expected_effect(plan, c)).collect())
        .unwrap_or_default();
    let _ = writeln!(out, "# Steps, with what the plan predicts each does:");
    for (k, e) in effects.iter().enumerate() {
        let _ = writeln!(out, "#   {} of {}: {}", k + 1, effects.len(), comment(e));
    }
    section(&mut out, "apply", apply, opts, render, &[], &effects);
    let permanent: Vec<String> = plan
        .splits
        .iter()
        .map(|s| {
            format!(
                "# {} stays split into {}: splits cannot be undone.",
                comment(&s.bundle),
                comment(&s.new_bundles.join(", "))
            )
        })
        .collect();
    section(
        &mut out,
        "rollback",
        rollback,
        opts,
        render,
        &permanent,
        &[],
    );
    out.push_str("\ncase \"${1:-apply}\" in\n  apply) lbplan_check_profile; apply ;;\n  dry-run) LBPLAN_DRY_RUN=1; lbplan_check_profile; apply ;;\n  rollback) rollback ;;\n  *) echo \"usage: $0 [apply|dry-run|rollback] [--i-know]\" >&2; exit 2 ;;\nesac\n");
    out
}
