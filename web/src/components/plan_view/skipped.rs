//! The decisions the cycle did not carry out, each with why (a broker below a threshold, a bundle
//! with no other allowed broker): the first [`SKIPPED_SHOWN`] listed, all on request (at 1,000
//! brokers a cycle skips a broker or bundle by the hundred).

use std::rc::Rc;

use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::{Plan, SkipScope};
use yew::prelude::*;

use super::find_button;
use crate::components::named_text;

/// Skipped decisions listed before "Show all" (one line each).
const SKIPPED_SHOWN: usize = 20;

#[derive(Clone, Properties)]
pub struct PlanSkippedProps {
    pub plan: Rc<Result<Plan, String>>,
    pub names: Rc<BrokerNames>,
    /// Shows a bundle on the map; `None`: no map to show it on.
    #[prop_or_default]
    pub on_find: Option<Callback<String>>,
}

impl PartialEq for PlanSkippedProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && Rc::ptr_eq(&self.names, &o.names)
            && self.on_find == o.on_find
    }
}

#[function_component(PlanSkipped)]
pub fn plan_skipped(p: &PlanSkippedProps) -> Html {
    let all_skipped = use_state(|| false);
    let Ok(plan) = &*p.plan else {
        return html! {};
    };
    let names = &p.names;
    html! {
        <>
            if !plan.skipped.is_empty() {
                <h3>{ format!("Skipped decisions ({})", plan.skipped.len()) }</h3>
                <ul data-testid="plan-skipped">
                    { for plan.skipped.iter().take(if *all_skipped { usize::MAX } else { SKIPPED_SHOWN }).map(|s| html! {
                        <li data-kind={s.reason.kind.as_str()} data-scope={s.scope.name()}>
                            { match &s.scope {
                                SkipScope::Cycle => named_text(names, &s.why),
                                SkipScope::Broker { broker } => html! {
                                    <>{ "on " }<span class="mono" title={broker.clone()}>{ names.short(broker).to_string() }</span>{ ": " }{ named_text(names, &s.why) }</>
                                },
                                SkipScope::Bundle { bundle, broker } => html! {
                                    <><span class="mono">{ bundle }</span>{ find_button(bundle, p.on_find.as_ref()) }{ " on " }
                                    <span class="mono" title={broker.clone()}>{ names.short(broker).to_string() }</span>{ ": " }{ named_text(names, &s.why) }</>
                                },
                            } }
                        </li>
                    }) }
                </ul>
                if plan.skipped.len() > SKIPPED_SHOWN {
                    <p class="small">
                        <button type="button" class="link" data-testid="plan-skipped-all" aria-pressed={all_skipped.to_string()}
                            onclick={{ let all = all_skipped.clone(); Callback::from(move |_| all.set(!*all)) }}>
                            { if *all_skipped { "Show the first ".to_string() + &SKIPPED_SHOWN.to_string() }
                              else { format!("Show all {} skipped decisions", plan.skipped.len()) } }
                        </button>
                    </p>
                }
            }
        </>
    }
}
