//! How the plan leaves the cluster: the balance before and after, and each broker's weighted
//! max usage before and after as bars, busiest first, with its moves in and out (a virtualised
//! list: 1,000 brokers are 1,000 rows).

use std::rc::Rc;

use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::{BalanceSummary, Plan};
use lbplan_core::view::plan_lists;
use yew::prelude::*;

use super::LIST_PX;
use crate::components::styled::Styled;
use crate::components::virtual_rows::{VirtualRows, aria_row};
use crate::format;

/// Rows of the before/after list, px (two bars a row).
const USAGE_ROW_PX: u32 = 38;

/// One broker's row of the before/after list, owned.
struct UsageView {
    broker: String,
    before_pct: Option<f64>,
    after_pct: Option<f64>,
    moves_in: usize,
    moves_out: usize,
    bundles: (Option<usize>, Option<usize>),
}

#[derive(Clone, Properties)]
pub struct PlanUsageProps {
    pub plan: Rc<Result<Plan, String>>,
    pub names: Rc<BrokerNames>,
}

impl PartialEq for PlanUsageProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan) && Rc::ptr_eq(&self.names, &o.names)
    }
}

#[function_component(PlanUsage)]
pub fn plan_usage(p: &PlanUsageProps) -> Html {
    let Ok(plan) = &*p.plan else {
        return html! {};
    };
    let names = p.names.clone();
    let usage: Rc<Vec<UsageView>> = Rc::new(
        plan_lists::usage_changes(plan)
            .into_iter()
            .map(|r| UsageView {
                bundles: (r.bundles_before, r.bundles_after),
                broker: r.broker.to_string(),
                before_pct: r.before_pct,
                after_pct: r.after_pct,
                moves_in: r.moves_in,
                moves_out: r.moves_out,
            })
            .collect(),
    );
    let scale = usage
        .iter()
        .flat_map(|r| [r.before_pct, r.after_pct])
        .flatten()
        .fold(100.0_f64, f64::max);
    let usage_row = {
        let (usage, names) = (usage.clone(), names.clone());
        Callback::from(move |i: usize| {
            let Some(r) = usage.get(i) else {
                return html! {};
            };
            let bar = |pct: Option<f64>, class: &'static str| match pct {
                Some(v) => html! { <div class="ubar-line">
                <Styled class={classes!("ubar", class)} css={vec![("width", format!("{:.1}%", (v / scale * 100.0).clamp(0.0, 100.0)))]} />
                <span class="value">{ format::pct(v) }</span></div> },
                None => {
                    html! { <div class="ubar-line muted small">{ if class == "before" { "new" } else { "removed" } }</div> }
                }
            };
            html! {
                <tr data-testid="plan-usage-row" data-broker={r.broker.clone()} aria-rowindex={aria_row(i)}>
                    <th scope="row" class="mono" title={r.broker.clone()}>{ names.short(&r.broker).to_string() }</th>
                    <td class="ubar-cell">{ bar(r.before_pct, "before") }{ bar(r.after_pct, "after") }</td>
                    <td class="num">{ r.moves_out }</td>
                    <td class="num">{ r.moves_in }</td>
                    <td class="num">{ r.bundles.0.map(|b| b.to_string()).unwrap_or_default() }</td>
                    <td class="num">{ r.bundles.1.map(|b| b.to_string()).unwrap_or_default() }</td>
                </tr>
            }
        })
    };
    html! {
        <section data-testid="plan-usage">
            <h3>{ format!("Each broker before and after ({})", usage.len()) }</h3>
            <p class="muted small">{ "Weighted max usage (the figure the shedders compare), busiest first; the bar's full width is the larger of 100 % and the highest value." }</p>
            <VirtualRows total={usage.len()} row_height={USAGE_ROW_PX} height={LIST_PX} columns={6}
                label="Each broker's usage before and after" class="data usage-change" row={usage_row}
                head={html! { <>
                    <th scope="col" class="c-broker">{ "Broker" }</th><th scope="col" class="c-bars">{ "Before → after" }</th>
                    <th scope="col" class="num">{ "Moves out" }</th><th scope="col" class="num">{ "in" }</th>
                    <th scope="col" class="num">{ "Bundles before" }</th><th scope="col" class="num">{ "after" }</th>
                </> }} />
        </section>
    }
}

#[derive(Clone, Properties)]
pub struct PlanBalanceProps {
    pub plan: Rc<Result<Plan, String>>,
}

impl PartialEq for PlanBalanceProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
    }
}

/// The cluster's balance before and after the plan.
#[function_component(PlanBalance)]
pub fn plan_balance(p: &PlanBalanceProps) -> Html {
    let Ok(plan) = &*p.plan else {
        return html! {};
    };
    html! {
        <>
            <h3>{ "Balance" }</h3>
            <table class="data" data-testid="plan-balance">
                <thead><tr><th scope="col"></th><th scope="col" class="num">{ "Max" }</th><th scope="col" class="num">{ "Mean" }</th><th scope="col" class="num">{ "Max/mean" }</th><th scope="col" class="num">{ "Std" }</th><th scope="col" class="num">{ "Bundles/broker" }</th></tr></thead>
                <tbody>
                    { balance("Before", &plan.balance_before) }
                    { balance("After", &plan.balance_after) }
                </tbody>
            </table>
        </>
    }
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
