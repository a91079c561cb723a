//! The plan: its verdict first (a banner when it makes the cluster worse), moves grouped by the
//! broker they leave and splits by namespace (filter, sort, a page at a time; reasons in full with
//! their numbers laid out), the outlook of stateful strategies, skipped decisions with why, each
//! broker's usage before and after as bars with its moves in and out, and the balance summary — all
//! as the core computed it (`view::plan_lists`).

use std::collections::HashMap;
use std::rc::Rc;

use lbplan_core::plan::diff::{PlanDiff, describe};
use lbplan_core::plan::summary::unload_bytes_per_sec;
use lbplan_core::plan::{BalanceSummary, Plan, SkipScope};
use lbplan_core::reason::DecisionReason;
use lbplan_core::view::plan_lists::{self, MoveSort, PAGE_ROWS};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::VerdictBanner;
use super::styled::Styled;
use crate::format;

#[derive(Clone, Properties)]
pub struct PlanViewProps {
    pub plan: Rc<Result<Plan, String>>,
    /// Applies a `broker.conf` setting as an edit (the verdict's suggestion); `None`: read-only.
    #[prop_or_default]
    pub on_apply_setting: Option<Callback<(String, String)>>,
    /// What the edits change against the plan without them (`None` without edits).
    #[prop_or_default]
    pub diff: Option<Rc<PlanDiff>>,
}

impl PartialEq for PlanViewProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.on_apply_setting == o.on_apply_setting
            && match (&self.diff, &o.diff) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
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

/// Groups open by default up to this many (more: their summaries first, open one to read it).
const OPEN_GROUPS: usize = 12;
/// Brokers listed before "show more", and the before/after table open by default up to this many.
const OPEN_BROKERS: usize = 30;
/// Groups listed before "show more".
const GROUP_PAGE: usize = 50;

/// A decision's reason in full (wrapping), with its rule's kind and numbers laid out under "numbers".
fn reason_cell(reason: &str, decided: &DecisionReason) -> Html {
    let facts = plan_lists::reason_facts(&serde_json::to_value(decided).unwrap_or_default());
    html! {
        <>
            <span class="reason-text">{ reason.to_string() }</span>
            if !facts.is_empty() {
                <details class="reason-facts">
                    <summary>{ "numbers" }</summary>
                    <dl class="facts small">
                        { for facts.into_iter().map(|f| html! { <div><dt>{ f.label }</dt><dd class="mono">{ f.value }</dd></div> }) }
                    </dl>
                </details>
            }
        </>
    }
}

/// What the edits change against the plan without them (core's `plan::diff`): counts, both
/// plans' balance, then each added, removed or redirected move and split.
fn baseline_diff(d: &PlanDiff) -> Html {
    let mut lines = describe(d).into_iter();
    let head = lines.next().unwrap_or_default();
    html! {
        <details class="plan-diff" data-testid="plan-diff" open=true
            data-identical={d.identical_decisions.to_string()}>
            <summary>{ format!("What your edits change: {head}") }</summary>
            <ul class="mono small">
                { for lines.map(|l| html! { <li>{ l }</li> }) }
            </ul>
        </details>
    }
}

/// "Show more" under a paged list.
fn more_button(
    pages: &UseStateHandle<HashMap<String, usize>>,
    key: String,
    limit: usize,
    total: usize,
) -> Html {
    let onclick = {
        let pages = pages.clone();
        Callback::from(move |_| {
            let mut next = (*pages).clone();
            next.insert(key.clone(), limit + PAGE_ROWS);
            pages.set(next);
        })
    };
    html! {
        <button type="button" class="more" data-testid="plan-more" {onclick}>
            { format!("Show {} more ({limit} of {total} shown)", PAGE_ROWS.min(total - limit)) }</button>
    }
}

#[function_component(PlanView)]
pub fn plan_view(p: &PlanViewProps) -> Html {
    let filter = use_state(String::new);
    let sort = use_state(|| MoveSort::Throughput);
    let pages = use_state(HashMap::<String, usize>::new);
    let groups_shown = use_state(|| GROUP_PAGE);
    let brokers_shown = use_state(|| OPEN_BROKERS.max(GROUP_PAGE));
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            {
                filter.set(i.value());
            }
        })
    };
    let on_sort = {
        let sort = sort.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .and_then(|s| MoveSort::parse(&s.value()))
            {
                sort.set(v);
            }
        })
    };
    let more_groups = {
        let groups_shown = groups_shown.clone();
        Callback::from(move |_| groups_shown.set(*groups_shown + GROUP_PAGE))
    };
    let more_brokers = {
        let brokers_shown = brokers_shown.clone();
        Callback::from(move |_| brokers_shown.set(*brokers_shown + GROUP_PAGE))
    };
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
    let move_groups = plan_lists::move_groups(plan, &filter, *sort);
    let moves_shown: usize = move_groups.iter().map(|g| g.moves.len()).sum();
    let split_groups = plan_lists::split_groups(plan, &filter);
    let open_groups = move_groups.len() <= OPEN_GROUPS || !filter.trim().is_empty();
    let usage = plan_lists::usage_changes(plan);
    let scale = usage
        .iter()
        .flat_map(|r| [r.before_pct, r.after_pct])
        .flatten()
        .fold(100.0_f64, f64::max);
    let bundle_counts: HashMap<&str, (Option<usize>, Option<usize>)> = plan
        .broker_pairs()
        .into_iter()
        .map(|p| {
            (
                p.broker,
                (
                    p.before.map(|b| b.bundle_count),
                    p.after.map(|a| a.bundle_count),
                ),
            )
        })
        .collect();
    html! {
        <section class="panel plan" data-testid="plan">
            <h2>{ "Plan" }</h2>
            <VerdictBanner verdict={plan.verdict.clone()} seed={plan.seed}
                on_apply_setting={p.on_apply_setting.clone()} />
            <p class="muted">
                { format!("{} load manager, {} shedding, {} placement, profile {}, seed {}",
                    plan.load_manager, plan.shedding_strategy, plan.placement_strategy, plan.profile, plan.seed) }
            </p>
            if let Some(d) = p.diff.as_deref() {
                { baseline_diff(d) }
            }
            if nothing {
                <p data-testid="plan-empty">{ "This cycle moves nothing." }</p>
            }
            if let Some(o) = &plan.outlook {
                <p class="outlook" data-testid="plan-outlook">{ &o.summary }</p>
            }
            if !plan.splits.is_empty() || !plan.unloads.is_empty() {
                <div class="plan-tools" role="search">
                    <label>{ "Filter " }
                        <input type="search" data-testid="plan-filter" placeholder="bundle, broker or origin"
                            value={(*filter).clone()} oninput={on_filter} />
                    </label>
                    <label>{ "Sort moves by " }
                        <select data-testid="plan-sort" onchange={on_sort}>
                            <option value="throughput" selected={*sort == MoveSort::Throughput}>{ "traffic" }</option>
                            <option value="bundle" selected={*sort == MoveSort::Bundle}>{ "bundle" }</option>
                            <option value="destination" selected={*sort == MoveSort::Destination}>{ "destination" }</option>
                        </select>
                    </label>
                </div>
            }
            if !plan.unloads.is_empty() {
                <h3>{ format!("Moves ({} from {} broker{}{})", plan.unloads.len(), move_groups.len(),
                    if move_groups.len() == 1 { "" } else { "s" },
                    if filter.trim().is_empty() { String::new() } else { format!(", {} shown", moves_shown) }) }</h3>
                { for move_groups.iter().take(*groups_shown).map(|g| {
                    let key = format!("move:{}", g.from);
                    let limit = pages.get(&key).copied().unwrap_or(PAGE_ROWS);
                    let to: Vec<&str> = g.destinations.iter().map(|d| d.unwrap_or("(chosen by Pulsar)")).collect();
                    html! {
                        <details class="plan-group" open={open_groups} data-testid="plan-move-group" data-broker={g.from.to_string()}>
                            <summary>
                                <span class="mono">{ g.from }</span>
                                { format!(" · {} move{} · {} MiB/s → ", g.moves.len(), if g.moves.len() == 1 { "" } else { "s" }, mib(g.bytes_per_sec)) }
                                <span class="mono">{ to.join(", ") }</span>
                            </summary>
                            <div class="table-scroll">
                            <table class="data plan-table">
                                <thead><tr><th scope="col">{ "Bundle" }</th><th scope="col">{ "From → to" }</th><th scope="col" class="num">{ "MiB/s" }</th><th scope="col">{ "Reason" }</th></tr></thead>
                                <tbody>
                                    { for g.moves.iter().take(limit).map(|u| html! {
                                        <tr data-testid="plan-move" data-origin={u.origin.clone()}>
                                            <th scope="row" class="mono">{ &u.bundle }</th>
                                            <td class="mono">{ format!("{} → {}", u.from, u.to.as_deref().unwrap_or("(chosen by Pulsar)")) }
                                                if !u.pass_destination { <span class="muted small">{ " predicted" }</span> }
                                            </td>
                                            <td class="num">{ mib(unload_bytes_per_sec(u)) }</td>
                                            <td class="reason">{ reason_cell(&u.reason_text, &u.reason) }</td>
                                        </tr>
                                    }) }
                                </tbody>
                            </table>
                            </div>
                            if g.moves.len() > limit {
                                { more_button(&pages, key, limit, g.moves.len()) }
                            }
                        </details>
                    }
                }) }
                if move_groups.len() > *groups_shown {
                    <button type="button" data-testid="plan-more-groups" onclick={more_groups.clone()}>
                        { format!("Show more brokers ({} of {} shown)", *groups_shown, move_groups.len()) }</button>
                }
            }
            if !plan.splits.is_empty() {
                <h3>{ format!("Splits ({} in {} namespace{}, permanent)", plan.splits.len(), split_groups.len(),
                    if split_groups.len() == 1 { "" } else { "s" }) }</h3>
                { for split_groups.iter().take(*groups_shown).map(|g| {
                    let key = format!("split:{}", g.namespace);
                    let limit = pages.get(&key).copied().unwrap_or(PAGE_ROWS);
                    html! {
                        <details class="plan-group" open={split_groups.len() <= OPEN_GROUPS} data-testid="plan-split-group">
                            <summary><span class="mono">{ &g.namespace }</span>
                                { format!(" · {} split{}", g.splits.len(), if g.splits.len() == 1 { "" } else { "s" }) }</summary>
                            <div class="table-scroll">
                            <table class="data plan-table">
                                <thead><tr><th scope="col">{ "Bundle" }</th><th scope="col">{ "Broker" }</th><th scope="col">{ "Algorithm" }</th><th scope="col">{ "New bundles" }</th><th scope="col">{ "Reason" }</th></tr></thead>
                                <tbody>
                                    { for g.splits.iter().take(limit).map(|s| html! {
                                        <tr data-testid="plan-split">
                                            <th scope="row" class="mono">{ &s.bundle }
                                                if s.permanent { <span class="tag permanent" title="Pulsar cannot merge bundles back">{ "permanent" }</span> }
                                            </th>
                                            <td class="mono">{ &s.broker }</td>
                                            <td>{ &s.algorithm }</td>
                                            <td class="mono small">{ s.new_bundles.join(", ") }</td>
                                            <td class="reason">{ reason_cell(&s.reason_text, &s.reason) }</td>
                                        </tr>
                                    }) }
                                </tbody>
                            </table>
                            </div>
                            if g.splits.len() > limit {
                                { more_button(&pages, key, limit, g.splits.len()) }
                            }
                        </details>
                    }
                }) }
                if split_groups.len() > *groups_shown {
                    <button type="button" onclick={more_groups.clone()}>
                        { format!("Show more namespaces ({} of {} shown)", *groups_shown, split_groups.len()) }</button>
                }
            }
            if !plan.topic_unloads.is_empty() {
                <h3>{ "Topic unloads" }</h3>
                <ul>{ for plan.topic_unloads.iter().map(|t| html! { <li class="mono">{ t }</li> }) }</ul>
            }
            if !plan.skipped.is_empty() {
                <h3>{ "Skipped decisions" }</h3>
                <ul data-testid="plan-skipped">
                    { for plan.skipped.iter().map(|s| html! {
                        <li data-kind={s.reason.kind.as_str()} data-scope={s.scope.name()}>
                            { match &s.scope {
                                SkipScope::Cycle => html! { { &s.why } },
                                SkipScope::Broker { broker } => html! {
                                    <>{ "on " }<span class="mono">{ broker }</span>{ format!(": {}", s.why) }</>
                                },
                                SkipScope::Bundle { bundle, broker } => html! {
                                    <><span class="mono">{ bundle }</span>{ " on " }<span class="mono">{ broker }</span>{ format!(": {}", s.why) }</>
                                },
                            } }
                        </li>
                    }) }
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
            <details open={usage.len() <= OPEN_BROKERS} data-testid="plan-usage">
                <summary>{ format!("Each broker before and after ({})", usage.len()) }</summary>
                <p class="muted small">{ "Weighted max usage (the figure the shedders compare), busiest first; the bar's full width is the larger of 100 % and the highest value." }</p>
                <div class="table-scroll">
                <table class="data usage-change">
                    <thead><tr><th scope="col">{ "Broker" }</th><th scope="col">{ "Before → after" }</th><th scope="col" class="num">{ "Moves out" }</th><th scope="col" class="num">{ "in" }</th><th scope="col" class="num">{ "Bundles before" }</th><th scope="col" class="num">{ "after" }</th></tr></thead>
                    <tbody>
                        { for usage.iter().take(*brokers_shown).map(|r| {
                            let bar = |pct: Option<f64>, class: &'static str| match pct {
                                Some(v) => html! { <div class="ubar-line">
                                    <Styled class={classes!("ubar", class)} css={vec![("width", format!("{:.1}%", (v / scale * 100.0).clamp(0.0, 100.0)))]} />
                                    <span class="value">{ format::pct(v) }</span></div> },
                                None => html! { <div class="ubar-line muted small">{ if class == "before" { "new" } else { "removed" } }</div> },
                            };
                            let bundles = bundle_counts.get(r.broker).copied().unwrap_or((None, None));
                            html! {
                                <tr data-testid="plan-usage-row" data-broker={r.broker.to_string()}>
                                    <th scope="row" class="mono">{ r.broker }</th>
                                    <td class="ubar-cell">{ bar(r.before_pct, "before") }{ bar(r.after_pct, "after") }</td>
                                    <td class="num">{ r.moves_out }</td>
                                    <td class="num">{ r.moves_in }</td>
                                    <td class="num">{ bundles.0.map(|b| b.to_string()).unwrap_or_default() }</td>
                                    <td class="num">{ bundles.1.map(|b| b.to_string()).unwrap_or_default() }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                </div>
                if usage.len() > *brokers_shown {
                    <button type="button" onclick={more_brokers}>{ format!("Show more brokers ({} of {} shown)", *brokers_shown, usage.len()) }</button>
                }
            </details>
        </section>
    }
}
