//! The plan's verdict at the top of the plan view: a warning banner when the plan leaves the cluster
//! worse balanced (why, the pattern behind it, a button that applies the setting the core found
//! to avoid it, as an edit, and "Propose a rebalance instead", which prefills the rebalance panel
//! for the same cluster and settings), a one-line verdict otherwise, with the core's warnings
//! (`plan::verdict::warnings`) under it whenever there are any. The texts are the core's
//! (`plan::verdict`); this only lays them out.

use std::rc::Rc;

use lbplan_core::config::simple_class_name;
use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::verdict::{
    Outcome, Verdict, describe_alternative, describe_pattern, warnings,
};
use yew::prelude::*;

use super::named_text;

#[derive(Clone, PartialEq, Properties)]
pub struct VerdictBannerProps {
    pub verdict: Verdict,
    pub seed: u64,
    /// Applies `(key, value)` as a `set=` edit; `None` (read-only embedding) hides the button.
    #[prop_or_default]
    pub on_apply_setting: Option<Callback<(String, String)>>,
    /// "Propose a rebalance instead": the goal and move limit core's
    /// `verdict::rebalance_instead` chose, for the rebalance panel; `None` hides the button.
    #[prop_or_default]
    pub on_propose_rebalance: Option<Callback<(String, Option<usize>)>>,
    /// What the rebalance would be prefilled with (core's `verdict::rebalance_instead`).
    #[prop_or_default]
    pub rebalance_instead: Option<(String, Option<usize>)>,
    /// The plan's brokers by display name: the warnings and reasons name brokers by full id.
    #[prop_or_default]
    pub names: Rc<BrokerNames>,
}

fn outcome_class(o: Outcome) -> &'static str {
    match o {
        Outcome::Better => "better",
        Outcome::Worse => "worse",
        Outcome::Mixed => "mixed",
        Outcome::NoChange => "no-change",
    }
}

#[function_component(VerdictBanner)]
pub fn verdict_banner(p: &VerdictBannerProps) -> Html {
    let v = &p.verdict;
    let class = outcome_class(v.outcome);
    if !v.is_worse() {
        // A plan that is not worse still carries the core's warnings (brokers that stay over the
        // threshold, unloads converging on one broker, a destination shed again): the same list
        // the CLI prints under its verdict.
        let warned = warnings(v);
        return html! {
            <div class={classes!("verdict", class)} data-testid="verdict-banner" data-outcome={class}
                data-warnings={warned.len().to_string()}>
                <span data-testid="verdict-headline">{ &v.headline }</span>
                if !warned.is_empty() {
                    <ul class="verdict-warnings small" data-testid="verdict-warnings" role="status">
                        { for warned.iter().map(|w| html! { <li>{ "⚠ " }{ named_text(&p.names, w) }</li> }) }
                    </ul>
                }
            </div>
        };
    }
    let suggestion = v.suggestion().cloned();
    html! {
        <div class="verdict-banner worse" role="alert" data-testid="verdict-banner" data-outcome={class}>
            <strong data-testid="verdict-headline">{ &v.headline }</strong>
            <ul data-testid="verdict-reasons">
                { for v.reasons.iter().map(|r| html! { <li>{ named_text(&p.names, r) }</li> }) }
            </ul>
            if !v.patterns.is_empty() {
                <ul data-testid="verdict-patterns">
                    { for v.patterns.iter().map(|pat| html! { <li>{ named_text(&p.names, &describe_pattern(pat)) }</li> }) }
                </ul>
            }
            { for v.alternatives.iter().filter(|a| !a.avoids_worse).map(|a| html! {
                <p class="small" data-testid="verdict-alternative">{ describe_alternative(a, p.seed) }</p>
            }) }
            if let Some(a) = suggestion {
                <p data-testid="verdict-suggestion">
                    { describe_alternative(&a, p.seed) }
                    if let Some(cb) = p.on_apply_setting.clone() {
                        { " " }
                        <button type="button" data-testid="verdict-apply"
                            data-key={a.key.clone()} data-value={a.value.clone()}
                            onclick={
                                let (key, value) = (a.key.clone(), a.value.clone());
                                move |_| cb.emit((key.clone(), value.clone()))
                            }>
                            { format!("Use {}", simple_class_name(&a.value)) }
                        </button>
                    }
                </p>
            }
            if let (Some(cb), Some((goal, moves))) = (p.on_propose_rebalance.clone(), p.rebalance_instead.clone()) {
                <p data-testid="verdict-rebalance">
                    { format!("Or let the planner find destinations the leader would not undo: a rebalance of this cluster with goal {goal}{}. ",
                        moves.map(|m| format!(", at most {m} moves")).unwrap_or_default()) }
                    <button type="button" class="primary" data-testid="verdict-propose-rebalance"
                        data-goal={goal.clone()}
                        onclick={
                            let goal = goal.clone();
                            move |e: MouseEvent| {
                                cb.emit((goal.clone(), moves));
                                if let Some(el) = e.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()) {
                                    super::nav::go_to_section(&el, "rebalance");
                                }
                            }
                        }>{ "Propose a rebalance instead" }</button>
                </p>
            }
            <p class="small">{ "Applying it (the exported scripts, Apply) is refused unless acknowledged (--i-know, or the typed confirmation)." }</p>
        </div>
    }
}
