//! The plan: its verdict first (a banner when it makes the cluster worse), moves grouped by the
//! broker they leave and splits by namespace (filter, sort; virtualised lists with expandable
//! groups, `grouped_list`; the picked decision's reason in full with its numbers laid out in a pane
//! under the list, `detail`), the outlook of stateful strategies, skipped decisions with why
//! (`skipped`), the balance and each broker's usage before and after (`broker_usage`) — all as the
//! core computed it (`view::plan_lists`). A plan first shown comes in two steps (`staged`).

mod broker_usage;
mod detail;
mod grouped_list;
mod rows;
mod skipped;

use std::collections::HashSet;
use std::rc::Rc;

use lbplan_core::plan::Plan;
use lbplan_core::plan::diff::PlanDiff;
use lbplan_core::plan::summary::broker_names;
use lbplan_core::plan::verdict::rebalance_instead;
use lbplan_core::view::plan_lists::{self, MoveSort};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::VerdictBanner;
use super::pipeline_detail::ExplainSource;
use super::staged::use_steps_shown;
use super::virtual_rows::VirtualRows;
use broker_usage::{PlanBalance, PlanUsage};
use detail::{baseline_diff, move_detail, split_detail};
use grouped_list::{GroupView, ListRows, Picked, list_row};
use skipped::PlanSkipped;

#[derive(Clone, Properties)]
pub struct PlanViewProps {
    pub plan: Rc<Result<Plan, String>>,
    /// Applies a `broker.conf` setting as an edit (the verdict's suggestion); `None`: read-only.
    #[prop_or_default]
    pub on_apply_setting: Option<Callback<(String, String)>>,
    /// "Propose a rebalance instead" on a worse plan's banner (see `VerdictBanner`).
    #[prop_or_default]
    pub on_propose_rebalance: Option<Callback<(String, Option<usize>)>>,
    /// What the edits change against the plan without them (`None` without edits).
    #[prop_or_default]
    pub diff: Option<Rc<PlanDiff>>,
    /// Shows a bundle on the map (its name as Find would read it); `None`: no map to show it on.
    #[prop_or_default]
    pub on_find: Option<Callback<String>>,
    /// Asks the plan worker for one decision's detail, for a plan made without them
    /// (`explain: summary`); `None`: the plan carries its details.
    #[prop_or_default]
    pub explain: Option<ExplainSource>,
    /// Moves listed in the order they are applied at first (a rebalance's steps chain), instead
    /// of by traffic.
    #[prop_or_default]
    pub applied_order: bool,
}

impl PartialEq for PlanViewProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.on_apply_setting == o.on_apply_setting
            && self.on_propose_rebalance == o.on_propose_rebalance
            && self.explain == o.explain
            && self.applied_order == o.applied_order
            && self.on_find == o.on_find
            && match (&self.diff, &o.diff) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

pub(super) fn mib(bytes: f64) -> String {
    format!("{:.2}", bytes / (1024.0 * 1024.0))
}

/// Rows of the moves' and splits' lists, px (fixed: the lists are virtualised).
const PLAN_ROW_PX: u32 = 30;
/// The lists' scroll height once they overflow, px.
const LIST_PX: u32 = 420;

/// The link from a bundle name to the bundle on the map (Find with the bundle's name).
pub fn find_button(bundle: &str, on_find: Option<&Callback<String>>) -> Html {
    let Some(cb) = on_find.cloned() else {
        return html! {};
    };
    let b = bundle.to_string();
    html! {
        <button type="button" class="find-bundle" data-testid="find-bundle" data-bundle={b.clone()}
            title={format!("Show {b} on the bundle map")} aria-label={format!("Show {b} on the bundle map")}
            onclick={Callback::from(move |_| cb.emit(b.clone()))}>
            // A crosshair drawn, not a glyph: U+2316 is missing from common system fonts (an empty box).
            <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
                <circle cx="8" cy="8" r="5" fill="none" stroke="currentColor" stroke-width="1.5" />
                <path d="M8 0v5M8 11v5M0 8h5M11 8h5" stroke="currentColor" stroke-width="1.5" />
            </svg>
        </button>
    }
}

/// The lists' filter and the moves' sort.
fn plan_tools(filter: &UseStateHandle<String>, sort: &UseStateHandle<MoveSort>) -> Html {
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            filter.set(super::event_value(&e));
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
    html! {
        <div class="plan-tools" role="search">
            <label>{ "Filter " }
                <input type="search" data-testid="plan-filter" placeholder="bundle, broker or origin"
                    value={(**filter).clone()} oninput={on_filter} />
            </label>
            <label>{ "Sort moves by " }
                <select data-testid="plan-sort" onchange={on_sort}>
                    <option value="throughput" selected={**sort == MoveSort::Throughput}>{ "traffic" }</option>
                    <option value="bundle" selected={**sort == MoveSort::Bundle}>{ "bundle" }</option>
                    <option value="destination" selected={**sort == MoveSort::Destination}>{ "destination" }</option>
                    <option value="applied" selected={**sort == MoveSort::Applied}>{ "order applied" }</option>
                </select>
            </label>
        </div>
    }
}

#[function_component(PlanView)]
pub fn plan_view(p: &PlanViewProps) -> Html {
    let filter = use_state(String::new);
    let sort = use_state(|| {
        if p.applied_order {
            MoveSort::Applied
        } else {
            MoveSort::Throughput
        }
    });
    // Groups the user opened or closed (against their default), by "move:broker" / "split:namespace".
    let toggled = use_state(HashSet::<String>::new);
    let picked = use_state(|| None::<Picked>);
    // A plan first shown comes in two steps a frame apart: the verdict and the lists, then the
    // picked decision's detail, what was skipped and each broker before and after
    // (`staged`: at 1,000 brokers, all at once is one task over the page's 50 ms budget).
    let tail_shown = use_steps_shown(1) >= 1;
    // The plan's brokers by core's one display rule, once per plan; full ids on hover and focus.
    let names = use_memo(Rc::as_ptr(&p.plan) as usize, {
        let plan = p.plan.clone();
        move |_| match &*plan {
            Ok(plan) => broker_names(plan),
            Err(_) => lbplan_core::naming::BrokerNames::default(),
        }
    });
    let on_toggle = {
        let toggled = toggled.clone();
        Callback::from(move |key: String| {
            let mut next = (*toggled).clone();
            if !next.remove(&key) {
                next.insert(key);
            }
            toggled.set(next);
        })
    };
    let on_pick = {
        let picked = picked.clone();
        Callback::from(move |p: Picked| picked.set(Some(p)))
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
    let filtering = !filter.trim().is_empty();
    let move_groups = plan_lists::move_groups(plan, &filter, *sort);
    let moves_shown: usize = move_groups.iter().map(|g| g.moves.len()).sum();
    let split_groups = plan_lists::split_groups(plan, &filter);
    // The groups as owned rows (the row callbacks outlive this render's borrow of the plan): each
    // item is its position in `plan.unloads` / `plan.splits`.
    let move_view: Rc<Vec<GroupView>> = Rc::new(rows::move_groups(plan, &move_groups, &names));
    let split_view: Rc<Vec<GroupView>> = Rc::new(rows::split_groups(plan, &split_groups));
    let flat = |groups: &[GroupView]| {
        let lens: Vec<usize> = groups.iter().map(|g| g.items.len()).collect();
        Rc::new(plan_lists::flat_rows(&lens, |i| {
            plan_lists::group_open(
                groups.len(),
                filtering,
                groups.get(i).is_some_and(|g| toggled.contains(&g.key)),
            )
        }))
    };
    let move_rows = flat(move_view.as_slice());
    let split_rows = flat(split_view.as_slice());
    // The picked decision (by default the first move, and the first split, in the lists' order).
    let first_item = |groups: &[GroupView]| groups.first().and_then(|g| g.items.first().copied());
    let picked_move = match &*picked {
        Some(Picked::Move(b)) => plan.unloads.iter().position(|u| &u.bundle == b),
        _ => None,
    }
    .or_else(|| first_item(move_view.as_slice()));
    let picked_split = match &*picked {
        Some(Picked::Split(b)) => plan.splits.iter().position(|s| &s.bundle == b),
        _ => None,
    }
    .or_else(|| first_item(split_view.as_slice()));
    let row_actions = rows::RowActions {
        names: names.clone(),
        on_pick: on_pick.clone(),
        on_find: p.on_find.clone(),
    };
    let move_row = list_row(
        ListRows {
            groups: move_view.clone(),
            rows: move_rows.clone(),
            plan: p.plan.clone(),
            columns: 5,
            testid: "plan-move-group",
            on_toggle: on_toggle.clone(),
        },
        |g| html! { <span class="mono">{ g.after.clone() }</span> },
        {
            let row = row_actions.clone();
            move |plan: &Plan, at: usize, i: usize| {
                rows::move_row(plan, at, i, picked_move == Some(at), &row)
            }
        },
    );
    let split_row = list_row(
        ListRows {
            groups: split_view.clone(),
            rows: split_rows.clone(),
            plan: p.plan.clone(),
            columns: 5,
            testid: "plan-split-group",
            on_toggle: on_toggle.clone(),
        },
        |_| html! {},
        {
            let row = row_actions.clone();
            move |plan: &Plan, at: usize, i: usize| {
                rows::split_row(plan, at, i, picked_split == Some(at), &row)
            }
        },
    );
    // The move the user picked: its row kept in view when the list changes under it (not the
    // default pick, the first row, in view already: no layout read at a plan's arrival).
    let reveal_move = picked_move
        .filter(|_| matches!(&*picked, Some(Picked::Move(_))))
        .and_then(|at| {
            move_view.iter().enumerate().find_map(|(gi, g)| {
                g.items
                    .iter()
                    .position(|m| *m == at)
                    .and_then(|mi| plan_lists::flat_index(&move_rows, gi, mi))
            })
        });
    // A new plan is a new disclosure (closed, nothing fetched for the old one).
    let plan_serial_key = Rc::as_ptr(&p.plan) as usize;
    let picked_move = picked_move.and_then(|at| plan.unloads.get(at));
    let picked_split = picked_split.and_then(|at| plan.splits.get(at));
    html! {
        <section class="panel plan" data-testid="plan">
            <h2>{ "Plan" }</h2>
            <VerdictBanner verdict={plan.verdict.clone()} seed={plan.seed}
                on_apply_setting={p.on_apply_setting.clone()}
                on_propose_rebalance={p.on_propose_rebalance.clone()}
                rebalance_instead={plan.verdict.is_worse().then(|| rebalance_instead(plan))}
                names={names.clone()} />
            <p class="muted">
                { format!("{} load manager, {} shedding, {} placement, profile {}, seed {}",
                    plan.load_manager, plan.shedding_strategy, plan.placement_strategy, plan.profile, plan.seed) }
            </p>
            if let Some(basis) = plan.prediction_basis() {
                <p class="small" data-testid="plan-prediction-basis">{ basis }</p>
            }
            if let Some(d) = p.diff.as_deref() {
                { baseline_diff(d, &names) }
            }
            if nothing {
                <p data-testid="plan-empty">{ "This cycle moves nothing." }</p>
            }
            if let Some(o) = &plan.outlook {
                <p class="outlook" data-testid="plan-outlook">{ &o.summary }</p>
            }
            if !plan.splits.is_empty() || !plan.unloads.is_empty() {
                { plan_tools(&filter, &sort) }
            }
            if !plan.unloads.is_empty() {
                <h3>{ format!("Moves ({} from {} broker{}{})", plan.unloads.len(), move_view.len(),
                    if move_view.len() == 1 { "" } else { "s" },
                    if filtering { format!(", {} shown", moves_shown) } else { String::new() }) }</h3>
                <VirtualRows total={move_rows.len()} row_height={PLAN_ROW_PX} height={LIST_PX} columns={5}
                    label="Moves, grouped by the broker they leave" class="data plan-table moves"
                    testid="plan-moves" scroll_testid="plan-moves-scroll" row={move_row} reveal={reveal_move}
                    head={rows::moves_head()} />
                if let Some(u) = picked_move.filter(|_| tail_shown) {
                    { move_detail(u, &names, plan_serial_key, p.explain.clone()) }
                }
            }
            if !plan.splits.is_empty() {
                <h3>{ format!("Splits ({} in {} namespace{}, permanent)", plan.splits.len(), split_view.len(),
                    if split_view.len() == 1 { "" } else { "s" }) }</h3>
                <VirtualRows total={split_rows.len()} row_height={PLAN_ROW_PX} height={LIST_PX} columns={5}
                    label="Splits, grouped by namespace" class="data plan-table splits"
                    testid="plan-splits" scroll_testid="plan-splits-scroll" row={split_row}
                    head={rows::splits_head()} />
                if let Some(s) = picked_split.filter(|_| tail_shown) {
                    { split_detail(s, &names, plan_serial_key, p.explain.clone()) }
                }
            }
            if !plan.topic_unloads.is_empty() {
                <h3>{ "Topic unloads" }</h3>
                <ul>{ for plan.topic_unloads.iter().map(|t| html! { <li class="mono">{ t }</li> }) }</ul>
            }
            if tail_shown {
                <PlanSkipped plan={p.plan.clone()} names={names.clone()} on_find={p.on_find.clone()} />
                <PlanBalance plan={p.plan.clone()} />
                <PlanUsage plan={p.plan.clone()} names={names.clone()} />
            } else {
                // Also what the tests and the run panel call a plan in progress.
                <p class="busy small" role="status" data-testid="plan-pending">{ "Laying out the plan…" }</p>
            }
        </section>
    }
}
