//! The plan's explanations beside its lists: a picked decision's reason in full with its numbers
//! laid out, and what the operator's edits change against the plan without them.

use std::rc::Rc;

use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::diff::{PlanDiff, against_baseline, describe};
use lbplan_core::plan::summary::unload_bytes_per_sec;
use lbplan_core::plan::{DecisionDetail, DecisionRef, PlannedSplit, PlannedUnload};
use lbplan_core::reason::DecisionReason;
use lbplan_core::view::plan_lists;
use yew::prelude::*;

use super::mib;
use crate::components::named_text;
use crate::components::pipeline_detail::{ExplainSource, PipelineDisclosure};

/// A decision's reason in full (wrapping), with its rule's kind and numbers laid out.
fn reason_detail(names: &BrokerNames, reason: &str, decided: &DecisionReason) -> Html {
    let facts = plan_lists::reason_facts(&serde_json::to_value(decided).unwrap_or_default());
    html! {
        <>
            <p class="reason-text" data-testid="plan-detail-reason">{ named_text(names, reason) }</p>
            if !facts.is_empty() {
                <dl class="facts small" data-testid="plan-detail-numbers">
                    { for facts.into_iter().map(|f| html! { <div><dt>{ f.label }</dt><dd class="mono">{ named_text(names, &f.value) }</dd></div> }) }
                </dl>
            }
        </>
    }
}

/// What the edits change against the plan without them (core's `plan::diff`): counts, both
/// plans' balance, then each added, removed or redirected move and split.
pub(super) fn baseline_diff(d: &PlanDiff, names: &BrokerNames) -> Html {
    let mut lines = describe(d).into_iter();
    let head = lines.next().unwrap_or_default();
    let judged = against_baseline(d);
    let outcome = judged.outcome.name().replace(' ', "-");
    html! {
        <details class="plan-diff" data-testid="plan-diff" open=true
            data-identical={d.identical_decisions.to_string()}>
            <summary>{ format!("What your edits change: {head}") }</summary>
            <p class={classes!("verdict", outcome.clone())} data-testid="plan-vs-baseline" data-outcome={outcome.clone()}>
                { judged.headline }</p>
            <ul class="mono small">
                // Brokers by display name, each full id on hover (as in the reasons).
                { for lines.map(|l| html! { <li>{ named_text(names, &l) }</li> }) }
            </ul>
        </details>
    }
}

/// The picked move's pane: its route, traffic and origin, the reason in full, and the placement's
/// pipeline on request (`plan_serial_key`: a new plan is a new disclosure, closed).
pub(super) fn move_detail(
    u: &PlannedUnload,
    names: &Rc<BrokerNames>,
    plan_serial_key: usize,
    explain: Option<ExplainSource>,
) -> Html {
    html! {
        <div class="plan-detail" data-testid="plan-detail" data-bundle={u.bundle.clone()} aria-live="polite">
            <h4><span class="mono">{ &u.bundle }</span>
                <span class="mono" title={format!("{} → {}", u.from, u.to.as_deref().unwrap_or("(chosen by Pulsar)"))}>
                    { format!(" {} → {}", names.short(&u.from), u.to.as_deref().map_or("(chosen by Pulsar)", |t| names.short(t))) }</span>
                { format!(" · {} MiB/s · {}", mib(unload_bytes_per_sec(u)), u.origin) }</h4>
            { reason_detail(names, &u.reason_text, &u.reason) }
            <PipelineDisclosure key={format!("u:{}:{}", plan_serial_key, u.bundle)}
                which={DecisionRef::Unload { bundle: u.bundle.clone() }}
                detail={u.detail.clone().map(DecisionDetail::Unload)}
                explain={explain} names={names.clone()} />
        </div>
    }
}

/// The picked split's pane: its owner, algorithm, new bundles and reason, the pipeline on request.
pub(super) fn split_detail(
    s: &PlannedSplit,
    names: &Rc<BrokerNames>,
    plan_serial_key: usize,
    explain: Option<ExplainSource>,
) -> Html {
    html! {
        <div class="plan-detail" data-testid="plan-split-detail" data-bundle={s.bundle.clone()} aria-live="polite">
            <h4><span class="mono">{ &s.bundle }</span>{ " on " }<span class="mono" title={s.broker.clone()}>{ names.short(&s.broker).to_string() }</span>
                { format!(" · {} · {}", s.algorithm, s.origin) }</h4>
            if !s.new_bundles.is_empty() {
                <p class="mono small">{ format!("New bundles: {}", s.new_bundles.join(", ")) }</p>
            }
            { reason_detail(names, &s.reason_text, &s.reason) }
            <PipelineDisclosure key={format!("s:{}:{}", plan_serial_key, s.bundle)}
                which={DecisionRef::Split { bundle: s.bundle.clone() }}
                detail={s.detail.clone().map(DecisionDetail::Split)}
                explain={explain} names={names.clone()} />
        </div>
    }
}
