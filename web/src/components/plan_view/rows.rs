//! The plan's two lists as the page shows them: moves grouped by the broker they leave and splits
//! by namespace (core's `view::plan_lists` groups, here as owned `GroupView`s, since the row
//! callbacks outlive a render's borrow of the plan), one table row per decision, and each list's
//! header.

use std::rc::Rc;

use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::Plan;
use lbplan_core::plan::summary::unload_bytes_per_sec;
use lbplan_core::view::plan_lists::{MoveGroup, SplitGroup};
use yew::prelude::*;

use super::super::named_text;
use super::super::virtual_rows::aria_row;
use super::grouped_list::{GroupView, Picked, pick_button, positions};
use super::{find_button, mib};

/// The move groups as listed: each item is its position in `plan.unloads`.
pub(super) fn move_groups(
    plan: &Plan,
    groups: &[MoveGroup],
    names: &BrokerNames,
) -> Vec<GroupView> {
    let at = positions(&plan.unloads);
    groups
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
}

/// The split groups as listed: each item is its position in `plan.splits`.
pub(super) fn split_groups(plan: &Plan, groups: &[SplitGroup]) -> Vec<GroupView> {
    let at = positions(&plan.splits);
    groups
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
}

/// What every row of both lists names brokers with and reports to.
#[derive(Clone)]
pub(super) struct RowActions {
    pub names: Rc<BrokerNames>,
    pub on_pick: Callback<Picked>,
    pub on_find: Option<Callback<String>>,
}

/// Row `i` of the moves list: the move at `at` in `plan.unloads`.
pub(super) fn move_row(
    plan: &Plan,
    at: usize,
    i: usize,
    is_picked: bool,
    row: &RowActions,
) -> Html {
    let (names, on_pick, on_find) = (&*row.names, &row.on_pick, row.on_find.as_ref());
    let Some(u) = plan.unloads.get(at) else {
        return html! {};
    };
    let to = u.to.as_deref();
    html! {
        <tr data-testid="plan-move" data-origin={u.origin.clone()} data-from={u.from.clone()}
            data-to={to.unwrap_or_default().to_string()}
            aria-rowindex={aria_row(i)} class={classes!(is_picked.then_some("selected"))}>
            <th scope="row">{ pick_button(&u.bundle, is_picked, Picked::Move(u.bundle.clone()), on_pick) }
                { find_button(&u.bundle, on_find) }</th>
            <td class="mono" data-testid="plan-move-from" title={u.from.clone()}>{ names.short(&u.from).to_string() }</td>
            <td class="mono" data-testid="plan-move-to" title={to.unwrap_or("the next lookup chooses").to_string()}>
                { to.map_or("(chosen by Pulsar)", |t| names.short(t)).to_string() }
                if !u.pass_destination { <span class="muted small">{ " predicted" }</span> }
            </td>
            <td class="num">{ mib(unload_bytes_per_sec(u)) }</td>
            <td class="reason">{ named_text(names, &u.reason_text) }</td>
        </tr>
    }
}

/// Row `i` of the splits list: the split at `at` in `plan.splits`.
pub(super) fn split_row(
    plan: &Plan,
    at: usize,
    i: usize,
    is_picked: bool,
    row: &RowActions,
) -> Html {
    let (names, on_pick, on_find) = (&*row.names, &row.on_pick, row.on_find.as_ref());
    let Some(s) = plan.splits.get(at) else {
        return html! {};
    };
    html! {
        <tr data-testid="plan-split" aria-rowindex={aria_row(i)} class={classes!(is_picked.then_some("selected"))}>
            <th scope="row">{ pick_button(&s.bundle, is_picked, Picked::Split(s.bundle.clone()), on_pick) }
                { find_button(&s.bundle, on_find) }
                if s.permanent { <span class="tag permanent" title="Pulsar cannot merge bundles back">{ "permanent" }</span> }
            </th>
            <td class="mono" title={s.broker.clone()}>{ names.short(&s.broker).to_string() }</td>
            <td>{ s.algorithm.clone() }</td>
            <td class="mono small">{ s.new_bundles.join(", ") }</td>
            <td class="reason">{ named_text(names, &s.reason_text) }</td>
        </tr>
    }
}

/// The moves list's header cells.
pub(super) fn moves_head() -> Html {
    html! { <>
        <th scope="col" class="c-bundle">{ "Bundle" }</th><th scope="col" class="c-from">{ "From" }</th>
        <th scope="col" class="c-to">{ "To" }</th>
        <th scope="col" class="num c-rate">{ "MiB/s" }</th><th scope="col" class="c-reason">{ "Reason" }</th>
    </> }
}

/// The splits list's header cells.
pub(super) fn splits_head() -> Html {
    html! { <>
        <th scope="col" class="c-bundle">{ "Bundle" }</th><th scope="col" class="c-broker">{ "Broker" }</th>
        <th scope="col" class="c-algo">{ "Algorithm" }</th><th scope="col" class="c-new">{ "New bundles" }</th>
        <th scope="col" class="c-reason">{ "Reason" }</th>
    </> }
}
