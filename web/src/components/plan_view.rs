//! The plan: its verdict first (a banner when it makes the cluster worse), moves, splits (permanent),
//! the outlook of stateful strategies, skipped decisions with why, each broker before and after, and
//! the cluster balance summary — all as the core computed it.

use std::rc::Rc;

use lbplan_core::plan::{BalanceSummary, Plan};
use yew::prelude::*;

use super::VerdictBanner;
use crate::format;

#[derive(Clone, Properties)]
pub struct PlanViewProps {
    pub plan: Rc<Result<Plan, String>>,
    /// Applies a `broker.conf` setting as an edit (the verdict's suggestion); `None`: read-only.
    #[prop_or_default]
    pub on_apply_setting: Option<Callback<(String, String)>>,
}

impl PartialEq for PlanViewProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan) && self.on_apply_setting == o.on_apply_setting
    }
}

fn mib(bytes: f64) -> String {
    format!("{:.2}", bytes / (1024.0 * 1024.0))
}

fn balance(label: &str, b: &BalanceSummary) -> Html {
    html! {
        <tr>
            <th scope="row">{ label }</th>
            <td class="num">{ format::pct(b.max_usage_fraction * 100.0) }</td>
            <td class="num">{ format::pct(b.mean_usage_fraction * 100.0) }</td>
            <td class="num">{ format!("{:.3}", b.max_over_mean) }</td>
            <td class="num">{ format::pct(b.std_usage_fraction * 100.0) }</td>
            <td class="num">{ format!("{}–{}", b.min_bundle_count, b.max_bundle_count) }</td>
        </tr>
    }
}

#[function_component(PlanView)]
pub fn plan_view(p: &PlanViewProps) -> Html {
    let plan = match &*p.plan {
        Ok(plan) => plan,
        Err(e) => {
            return html! {
                <section class="panel plan" data-testid="plan">
                    <h2>{ "Plan" }</h2>
                    <p class="error-text" data-testid="plan-error">{ format!("The plan could not be made: {e}") }</p>
                </section>
            };
        }
    };
    let nothing =
        plan.unloads.is_empty() && plan.splits.is_empty() && plan.topic_unloads.is_empty();
    html! {
        <section class="panel plan" data-testid="plan">
            <h2>{ "Plan" }</h2>
            <VerdictBanner verdict={plan.verdict.clone()} seed={plan.seed}
                on_apply_setting={p.on_apply_setting.clone()} />
            <p class="muted">
                { format!("{} load manager, {} shedding, {} placement, profile {}, seed {}",
                    plan.load_manager, plan.shedding_strategy, plan.placement_strategy, plan.profile, plan.seed) }
            </p>
            if nothing {
                <p data-testid="plan-empty">{ "This cycle moves nothing." }</p>
            }
            if let Some(o) = &plan.outlook {
                <p class="outlook" data-testid="plan-outlook">{ &o.summary }</p>
            }
            if !plan.splits.is_empty() {
                <h3>{ "Splits" }</h3>
                <table class="data">
                    <thead><tr><th scope="col">{ "Bundle" }</th><th scope="col">{ "Broker" }</th><th scope="col">{ "Algorithm" }</th><th scope="col">{ "New bundles" }</th><th scope="col">{ "Reason" }</th></tr></thead>
                    <tbody>
                        { for plan.splits.iter().map(|s| html! {
                            <tr data-testid="plan-split">
                                <th scope="row" class="mono">{ &s.bundle }
                                    if s.permanent { <span class="tag permanent" title="Pulsar cannot merge bundles back">{ "permanent" }</span> }
                                </th>
                                <td class="mono">{ &s.broker }</td>
                                <td>{ &s.algorithm }</td>
                                <td class="mono small">{ s.new_bundles.join(", ") }</td>
                                <td>{ &s.reason_text }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
            if !plan.unloads.is_empty() {
                <h3>{ format!("Moves ({})", plan.unloads.len()) }</h3>
                <div class="table-scroll">
                <table class="data">
                    <thead><tr><th scope="col">{ "Bundle" }</th><th scope="col">{ "From → to" }</th><th scope="col">{ "Reason" }</th><th scope="col" class="num">{ "MiB/s" }</th></tr></thead>
                    <tbody>
                        { for plan.unloads.iter().map(|u| html! {
                            <tr data-testid="plan-move" data-origin={u.origin.clone()}>
                                <th scope="row" class="mono">{ &u.bundle }</th>
                                <td class="mono">{ format!("{} → {}", u.from, u.to.as_deref().unwrap_or("(chosen by Pulsar)")) }
                                    if !u.pass_destination { <span class="muted small">{ " predicted" }</span> }
                                </td>
                                <td>{ &u.reason_text }</td>
                                <td class="num">{ mib(u.bytes_per_sec) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
            }
            if !plan.topic_unloads.is_empty() {
                <h3>{ "Topic unloads" }</h3>
                <ul>{ for plan.topic_unloads.iter().map(|t| html! { <li class="mono">{ t }</li> }) }</ul>
            }
            if !plan.skipped.is_empty() {
                <h3>{ "Skipped decisions" }</h3>
                <ul data-testid="plan-skipped">
                    { for plan.skipped.iter().map(|s| html! { <li><span class="mono">{ &s.bundle }</span>{ format!(" on {}: {}", s.from, s.why) }</li> }) }
                </ul>
            }
            <h3>{ "Balance" }</h3>
            <table class="data" data-testid="plan-balance">
                <thead><tr><th scope="col"></th><th scope="col" class="num">{ "Max" }</th><th scope="col" class="num">{ "Mean" }</th><th scope="col" class="num">{ "Max/mean" }</th><th scope="col" class="num">{ "Std" }</th><th scope="col" class="num">{ "Bundles/broker" }</th></tr></thead>
                <tbody>
                    { balance("Before", &plan.balance_before) }
                    { balance("After", &plan.balance_after) }
                </tbody>
            </table>
            <details>
                <summary>{ "Each broker before and after" }</summary>
                <div class="table-scroll">
                <table class="data">
                    <thead><tr><th scope="col">{ "Broker" }</th><th scope="col" class="num">{ "Weighted max before" }</th><th scope="col" class="num">{ "after" }</th><th scope="col" class="num">{ "Bundles before" }</th><th scope="col" class="num">{ "after" }</th></tr></thead>
                    <tbody>
                        { for plan.broker_pairs().into_iter().map(|pair| html! {
                            <tr>
                                <th scope="row" class="mono">{ pair.broker }</th>
                                <td class="num">{ pair.before.map(|b| format::pct(b.weighted_max_usage_fraction * 100.0)).unwrap_or_else(|| "new".into()) }</td>
                                <td class="num">{ pair.after.map(|a| format::pct(a.weighted_max_usage_fraction * 100.0)).unwrap_or_else(|| "removed".into()) }</td>
                                <td class="num">{ pair.before.map_or(0, |b| b.bundle_count) }</td>
                                <td class="num">{ pair.after.map(|a| a.bundle_count.to_string()).unwrap_or_default() }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
            </details>
        </section>
    }
}
