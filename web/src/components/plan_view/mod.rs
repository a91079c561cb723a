//! The plan: its verdict first (a banner when it makes the cluster worse), moves grouped by the
//! broker they leave and splits by namespace (filter, sort; virtualised lists with expandable
//! groups, `grouped_list`; the picked decision's reason in full with its numbers laid out in a pane
//! under the list, `detail`), the outlook of stateful strategies, skipped decisions with why
//! (`skipped`), the balance and each broker's usage before and after (`broker_usage`) — all as the
//! core computed it (`view::plan_lists`).

mod broker_usage;
mod detail;
mod grouped_list;
mod skipped;

use std::collections::HashSet;
use std::rc::Rc;

use lbplan_core::plan::Plan;
use lbplan_core::plan::diff::PlanDiff;
use lbplan_core::plan::summary::{broker_names, unload_bytes_per_sec};
use lbplan_core::plan::verdict::rebalance_instead;
use lbplan_core::view::plan_lists::{self, MoveSort};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::pipeline_detail::ExplainSource;
use super::virtual_rows::{VirtualRows, aria_row};
use super::{VerdictBanner, named_text};
use broker_usage::{PlanBalance, PlanUsage};
use detail::{baseline_diff, move_detail, split_detail};
use grouped_list::{GroupView, ListRows, Picked, list_row, pick_button, positions};
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
    // The plan's brokers by core's one display rule, once per plan; full ids on hover and focus.
    let names = use_memo(Rc::as_ptr(&p.plan) as usize, {
        let plan = p.plan.clone();
        move |_| match &*plan {
            Ok(plan) => broker_names(plan),
            Err(_) => lbplan_core::naming::BrokerNames::default(),
        }
    });
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
    let move_view: Rc<Vec<GroupView>> = Rc::new({
        let at = positions(&plan.unloads);
        move_groups
            .iter()
            .map(|g| {
                let n = g.moves.len();
                let to: Vec<&str> = g
                    .destinations
                    .iter()
                    .map(|d| d.map_or("(chosen by Pulsar)", |d| names.short(d)))
                    .collect();
                GroupView {
                    key: format!("move:{}", g.from),
                    name: names.short(g.from).to_string(),
                    tail: format!(
                        " · {n} move{} · {} MiB/s → ",
                        if n == 1 { "" } else { "s" },
                        mib(g.bytes_per_sec)
                    ),
                    after: to.join(", "),
                    items: g
                        .moves
                        .iter()
                        .filter_map(|u| at.get(&std::ptr::from_ref(*u)).copied())
                        .collect(),
                }
            })
            .collect()
    });
    let split_view: Rc<Vec<GroupView>> = Rc::new({
        let at = positions(&plan.splits);
        split_groups
            .iter()
            .map(|g| {
                let n = g.splits.len();
                GroupView {
                    key: format!("split:{}", g.namespace),
                    name: g.namespace.clone(),
                    tail: format!(" · {n} split{}", if n == 1 { "" } else { "s" }),
                    after: String::new(),
                    items: g
                        .splits
                        .iter()
                        .filter_map(|s| at.get(&std::ptr::from_ref(*s)).copied())
                        .collect(),
                }
            })
            .collect()
    });
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
            let on_pick = on_pick.clone();
            let (names, on_find) = (names.clone(), p.on_find.clone());
            move |plan: &Plan, at: usize, i: usize| {
                let Some(u) = plan.unloads.get(at) else {
                    return html! {};
                };
                let is_picked = picked_move == Some(at);
                let to = u.to.as_deref();
                html! {
                    <tr data-testid="plan-move" data-origin={u.origin.clone()} data-from={u.from.clone()}
                        data-to={to.unwrap_or_default().to_string()}
                        aria-rowindex={aria_row(i)} class={classes!(is_picked.then_some("selected"))}>
                        <th scope="row">{ pick_button(&u.bundle, is_picked, Picked::Move(u.bundle.clone()), &on_pick) }
                            { find_button(&u.bundle, on_find.as_ref()) }</th>
                        <td class="mono" data-testid="plan-move-from" title={u.from.clone()}>{ names.short(&u.from).to_string() }</td>
                        <td class="mono" data-testid="plan-move-to" title={to.unwrap_or("the next lookup chooses").to_string()}>
                            { to.map_or("(chosen by Pulsar)", |t| names.short(t)).to_string() }
                            if !u.pass_destination { <span class="muted small">{ " predicted" }</span> }
                        </td>
                        <td class="num">{ mib(unload_bytes_per_sec(u)) }</td>
                        <td class="reason">{ named_text(&names, &u.reason_text) }</td>
                    </tr>
                }
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
            let on_pick = on_pick.clone();
            let (names, on_find) = (names.clone(), p.on_find.clone());
            move |plan: &Plan, at: usize, i: usize| {
                let Some(s) = plan.splits.get(at) else {
                    return html! {};
                };
                let is_picked = picked_split == Some(at);
                html! {
                    <tr data-testid="plan-split" aria-rowindex={aria_row(i)} class={classes!(is_picked.then_some("selected"))}>
                        <th scope="row">{ pick_button(&s.bundle, is_picked, Picked::Split(s.bundle.clone()), &on_pick) }
                            { find_button(&s.bundle, on_find.as_ref()) }
                            if s.permanent { <span class="tag permanent" title="Pulsar cannot merge bundles back">{ "permanent" }</span> }
                        </th>
                        <td class="mono" title={s.broker.clone()}>{ names.short(&s.broker).to_string() }</td>
                        <td>{ s.algorithm.clone() }</td>
                        <td class="mono small">{ s.new_bundles.join(", ") }</td>
                        <td class="reason">{ named_text(&names, &s.reason_text) }</td>
                    </tr>
                }
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
                            <option value="applied" selected={*sort == MoveSort::Applied}>{ "order applied" }</option>
                        </select>
                    </label>
                </div>
            }
            if !plan.unloads.is_empty() {
                <h3>{ format!("Moves ({} from {} broker{}{})", plan.unloads.len(), move_view.len(),
                    if move_view.len() == 1 { "" } else { "s" },
                    if filtering { format!(", {} shown", moves_shown) } else { String::new() }) }</h3>
                <VirtualRows total={move_rows.len()} row_height={PLAN_ROW_PX} height={LIST_PX} columns={5}
                    label="Moves, grouped by the broker they leave" class="data plan-table moves"
                    testid="plan-moves" scroll_testid="plan-moves-scroll" row={move_row} reveal={reveal_move}
                    head={html! { <>
                        <th scope="col" class="c-bundle">{ "Bundle" }</th><th scope="col" class="c-from">{ "From" }</th>
                        <th scope="col" class="c-to">{ "To" }</th>
                        <th scope="col" class="num c-rate">{ "MiB/s" }</th><th scope="col" class="c-reason">{ "Reason" }</th>
                    </> }} />
                if let Some(u) = picked_move {
                    { move_detail(u, &names, plan_serial_key, p.explain.clone()) }
                }
            }
            if !plan.splits.is_empty() {
                <h3>{ format!("Splits ({} in {} namespace{}, permanent)", plan.splits.len(), split_view.len(),
                    if split_view.len() == 1 { "" } else { "s" }) }</h3>
                <VirtualRows total={split_rows.len()} row_height={PLAN_ROW_PX} height={LIST_PX} columns={5}
                    label="Splits, grouped by namespace" class="data plan-table splits"
                    testid="plan-splits" scroll_testid="plan-splits-scroll" row={split_row}
                    head={html! { <>
                        <th scope="col" class="c-bundle">{ "Bundle" }</th><th scope="col" class="c-broker">{ "Broker" }</th>
                        <th scope="col" class="c-algo">{ "Algorithm" }</th><th scope="col" class="c-new">{ "New bundles" }</th>
                        <th scope="col" class="c-reason">{ "Reason" }</th>
                    </> }} />
                if let Some(s) = picked_split {
                    { split_detail(s, &names, plan_serial_key, p.explain.clone()) }
                }
            }
            if !plan.topic_unloads.is_empty() {
                <h3>{ "Topic unloads" }</h3>
                <ul>{ for plan.topic_unloads.iter().map(|t| html! { <li class="mono">{ t }</li> }) }</ul>
            }
            <PlanSkipped plan={p.plan.clone()} names={names.clone()} on_find={p.on_find.clone()} />
            <PlanBalance plan={p.plan.clone()} />
            <PlanUsage plan={p.plan.clone()} names={names.clone()} />
        </section>
    }
}
