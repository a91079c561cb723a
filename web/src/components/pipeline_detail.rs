//! The "placement pipeline" disclosure of a decision's detail pane: the decision's full record
//! (`detail`) laid out readably — the shedding rule's numbers, the placement strategy and the
//! chosen broker, each pipeline stage with how many brokers it left and removed (the removed named,
//! long lists cut), its notes, the strategy's own line; a split's triggers. A plan made at
//! `explain: summary` (the plan worker's) has no details: the disclosure asks the worker for this
//! one decision's when it is opened. Nothing here decides anything: it shows what core recorded.

use std::rc::Rc;

use lbplan_core::modular::pipeline::PlacementOutcome;
use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::{DecisionDetail, DecisionRef, SplitDetail, UnloadDetail};
use yew::prelude::*;

use super::named_text;
use crate::plan_client::Explanation;

/// Asks for one decision's detail; the answer goes to the callback given.
pub type ExplainSource = Callback<(DecisionRef, Callback<Explanation>)>;

/// Removed brokers named per stage before "and N more".
const NAMED: usize = 8;

#[derive(Clone, PartialEq, Properties)]
pub struct PipelineProps {
    pub which: DecisionRef,
    /// The detail the plan carries (`None` in a plan made at `explain: summary`).
    pub detail: Option<DecisionDetail>,
    #[prop_or_default]
    pub explain: Option<ExplainSource>,
    /// The plan's brokers by display name (full ids on hover).
    #[prop_or_default]
    pub names: Rc<BrokerNames>,
}

/// Where the fetched detail stands.
#[derive(Clone, PartialEq)]
enum Fetch {
    Idle,
    Asked,
    Got(Explanation),
}

#[function_component(PipelineDisclosure)]
pub fn pipeline_disclosure(p: &PipelineProps) -> Html {
    let fetch = use_state(|| Fetch::Idle);
    let ontoggle = {
        let (fetch, which, explain) = (fetch.clone(), p.which.clone(), p.explain.clone());
        let has = p.detail.is_some();
        Callback::from(move |e: Event| {
            let open = e
                .target_dyn_into::<web_sys::Element>()
                .is_some_and(|d| d.has_attribute("open"));
            if !open || has || *fetch != Fetch::Idle {
                return;
            }
            let Some(explain) = &explain else {
                return;
            };
            fetch.set(Fetch::Asked);
            let fetch = fetch.clone();
            explain.emit((
                which.clone(),
                Callback::from(move |answer: Explanation| fetch.set(Fetch::Got(answer))),
            ));
        })
    };
    let body = match (&p.detail, &*fetch) {
        (Some(d), _) | (None, Fetch::Got(Ok(Some(d)))) => detail_html(&p.names, d),
        (None, Fetch::Got(Ok(None))) => {
            html! { <p class="muted small">{ "The plan has no such decision any more." }</p> }
        }
        (None, Fetch::Got(Err(e))) => {
            html! { <p class="error-text small">{ format!("The detail could not be made: {e}") }</p> }
        }
        (None, Fetch::Asked) => {
            html! { <p class="busy small" role="status">{ "Explaining this decision…" }</p> }
        }
        (None, Fetch::Idle) if p.explain.is_none() => {
            html! { <p class="muted small">{ "This plan carries no detail for the decision." }</p> }
        }
        (None, Fetch::Idle) => html! {},
    };
    let title = match p.which {
        DecisionRef::Split { .. } => "Split triggers",
        _ => "Placement pipeline",
    };
    html! {
        <details class="pipeline" data-testid="plan-pipeline" {ontoggle}>
            <summary>{ title }</summary>
            <div data-testid="plan-pipeline-body">{ body }</div>
        </details>
    }
}

/// A JSON object's fields as `key value` facts (a shedding rule's, a transfer's numbers).
fn facts(value: &impl serde::Serialize) -> Html {
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(value) else {
        return html! {};
    };
    html! {
        <dl class="facts small">
            { for map.iter().map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                html! { <><dt>{ k.clone() }</dt><dd class="mono">{ v }</dd></> }
            }) }
        </dl>
    }
}

/// `names`, the first [`NAMED`] of them, then "and N more".
fn some_names(names: &[String], display: &BrokerNames) -> String {
    let shown: Vec<&str> = names.iter().take(NAMED).map(|n| display.short(n)).collect();
    match names.len().saturating_sub(NAMED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

fn placement_html(names: &BrokerNames, o: &PlacementOutcome) -> Html {
    let chosen = o.broker.as_deref().unwrap_or("no broker available");
    html! {
        <>
            <p data-testid="plan-pipeline-strategy">
                <strong>{ o.strategy.clone() }</strong>{ " chose " }<span class="mono" title={chosen.to_string()}>{ names.short(chosen).to_string() }</span>
                if o.from_preallocation { <span class="muted">{ " (preallocated)" }</span> }
            </p>
            if !o.stages.is_empty() {
                <table class="data small" data-testid="plan-pipeline-stages">
                    <thead><tr><th scope="col">{ "Stage" }</th><th scope="col" class="num">{ "Left" }</th>
                        <th scope="col" class="num">{ "Removed" }</th><th scope="col">{ "Removed brokers, notes" }</th></tr></thead>
                    <tbody>
                        { for o.stages.iter().map(|s| html! {
                            <tr data-testid="plan-pipeline-stage" data-stage={s.stage.clone()}>
                                <th scope="row" class="mono">{ s.stage.clone() }</th>
                                <td class="num">{ s.remaining.len() }</td>
                                <td class="num">{ s.removed.len() }</td>
                                <td class="mono small" title={s.removed.join(", ")}>{ some_names(&s.removed, names) }
                                    if let Some(n) = &s.note { <div class="muted">{ n.clone() }</div> }
                                </td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
            if let Some(c) = &o.choice {
                <p class="small" data-testid="plan-pipeline-choice">{ format!("{}: ", o.strategy) }{ named_text(names, &c.reason) }</p>
            }
            if let Some(first) = &o.overloaded_first_choice {
                <p class="small">{ "First choice " }{ named_text(names, &first.broker) }{ " was overloaded (" }{ named_text(names, &first.reason) }{ "); chosen again among the policy-only set." }</p>
            }
        </>
    }
}

fn detail_html(names: &BrokerNames, d: &DecisionDetail) -> Html {
    match d {
        DecisionDetail::Unload(UnloadDetail::Shedding {
            shedding,
            placement,
        }) => html! {
            <>
                <h5>{ "Shedding rule" }</h5>
                { facts(shedding) }
                <h5>{ "Placement" }</h5>
                { placement_html(names, placement) }
            </>
        },
        DecisionDetail::Unload(UnloadDetail::Placed {
            operation,
            placement,
        }) => html! {
            <>
                <p>{ format!("Placed for a {}.", operation.words()) }</p>
                { placement_html(names, placement) }
            </>
        },
        DecisionDetail::Unload(UnloadDetail::Manual { operation }) => html! {
            <p>{ "The operation chose the destination: " }<span class="mono">{ operation.clone() }</span></p>
        },
        DecisionDetail::Unload(UnloadDetail::Transfer(decision)) => html! {
            <><h5>{ "TransferShedder's decision" }</h5>{ facts(decision) }</>
        },
        DecisionDetail::Unload(UnloadDetail::Rebalance(reason)) => facts(reason),
        DecisionDetail::Split(SplitDetail::Automatic { triggers }) => html! {
            <ul data-testid="plan-pipeline-triggers">
                { for triggers.iter().map(|t| html! { <li>{ t.clone() }</li> }) }
            </ul>
        },
        DecisionDetail::Split(SplitDetail::Manual { operation }) => html! {
            <p>{ "A manual split: " }<span class="mono">{ operation.clone() }</span></p>
        },
    }
}
