//! The plan's grouped, virtualised lists (moves by the broker they leave, splits by namespace):
//! owned group views, the header row that opens or closes a group, the shared row callback, and
//! the bundle button that picks a decision for the detail pane.

use std::collections::HashMap;
use std::rc::Rc;

use lbplan_core::plan::Plan;
use lbplan_core::view::plan_lists::FlatRow;
use yew::prelude::*;

use crate::components::virtual_rows::aria_row;

/// The decision whose reason the detail pane shows: a move or a split, by bundle.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Picked {
    Move(String),
    Split(String),
}

/// One group of a virtualised list, owned (row callbacks outlive a render's borrow of the plan).
pub(super) struct GroupView {
    /// "move:broker" / "split:namespace": the key the open/closed toggles are kept by.
    pub key: String,
    pub name: String,
    /// The summary after the name (counts, traffic).
    pub tail: String,
    /// The destinations (moves), after the summary.
    pub after: String,
    /// The items' positions in the plan's `unloads` / `splits`.
    pub items: Vec<usize>,
}

/// Each element's position in `all`, by address (groups hold references into the plan's lists).
pub(super) fn positions<T>(all: &[T]) -> HashMap<*const T, usize> {
    all.iter()
        .enumerate()
        .map(|(i, x)| (std::ptr::from_ref(x), i))
        .collect()
}

/// A group's header row: its summary on a button that opens or closes it.
fn group_row(
    i: usize,
    columns: usize,
    open: bool,
    testid: &'static str,
    key: &str,
    on_toggle: &Callback<String>,
    summary: Html,
) -> Html {
    let onclick = {
        let on_toggle = on_toggle.clone();
        let key = key.to_string();
        Callback::from(move |_| on_toggle.emit(key.clone()))
    };
    html! {
        <tr class="group-row" data-testid={testid} data-group={key.to_string()} aria-rowindex={aria_row(i)}>
            <th colspan={columns.to_string()} scope="colgroup">
                <button type="button" class="group-toggle" aria-expanded={open.to_string()} {onclick}>
                    <span class="caret" aria-hidden="true">{ if open { "▾ " } else { "▸ " } }</span>
                    { summary }
                </button>
            </th>
        </tr>
    }
}

/// What a grouped list's rows are built from (owned: the row callback outlives a render).
pub(super) struct ListRows {
    pub groups: Rc<Vec<GroupView>>,
    pub rows: Rc<Vec<FlatRow>>,
    pub plan: Rc<Result<Plan, String>>,
    pub columns: usize,
    /// The group header rows' test id.
    pub testid: &'static str,
    pub on_toggle: Callback<String>,
}

/// The row callback of a grouped list (moves, splits): one shared prologue — the plan, the flat
/// row, a group's header with its name and summary (then `after_tail`) — and `item` for an item
/// row, given the plan, the item's position in the plan's list and the row's index.
pub(super) fn list_row(
    l: ListRows,
    after_tail: impl Fn(&GroupView) -> Html + 'static,
    item: impl Fn(&Plan, usize, usize) -> Html + 'static,
) -> Callback<usize, Html> {
    Callback::from(move |i: usize| {
        let plan = match &*l.plan {
            Ok(plan) => plan,
            Err(_) => return html! {},
        };
        match l.rows.get(i) {
            Some(FlatRow::Header { group, open }) => {
                let Some(g) = l.groups.get(*group) else {
                    return html! {};
                };
                group_row(
                    i,
                    l.columns,
                    *open,
                    l.testid,
                    &g.key,
                    &l.on_toggle,
                    html! {
                        <>
                            <span class="mono" data-testid="plan-group-name" title={g.key.split_once(':').map(|(_, n)| n.to_string())}>{ g.name.clone() }</span>
                            { g.tail.clone() }
                            { after_tail(g) }
                        </>
                    },
                )
            }
            Some(FlatRow::Item { group, item: at }) => {
                match l.groups.get(*group).and_then(|g| g.items.get(*at)) {
                    Some(at) => item(plan, *at, i),
                    None => html! {},
                }
            }
            None => html! {},
        }
    })
}

/// A row's bundle as the button that shows its reason in the detail pane.
pub(super) fn pick_button(
    bundle: &str,
    picked: bool,
    pick: Picked,
    on_pick: &Callback<Picked>,
) -> Html {
    let onclick = {
        let on_pick = on_pick.clone();
        Callback::from(move |_| on_pick.emit(pick.clone()))
    };
    html! {
        <button type="button" class="link mono" data-testid="plan-pick" aria-pressed={picked.to_string()}
            title="Show this decision's reason and numbers in full" {onclick}>{ bundle.to_string() }</button>
    }
}
