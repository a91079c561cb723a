//! The plan: its verdict first (a banner when it makes the cluster worse), moves grouped by the
//! broker they leave and splits by namespace (filter, sort; virtualised lists with expandable groups;
//! the picked decision's reason in full with its numbers laid out in a pane under the list), the outlook of stateful strategies, skipped decisions with why, each
//! broker's usage before and after as bars with its moves in and out, and the balance summary — all
//! as the core computed it (`view::plan_lists`).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use lbplan_core::plan::diff::{PlanDiff, against_baseline, describe};
use lbplan_core::plan::summary::broker_names;
use lbplan_core::plan::summary::unload_bytes_per_sec;
use lbplan_core::plan::{BalanceSummary, DecisionDetail, DecisionRef, Plan, SkipScope};
use lbplan_core::reason::DecisionReason;
use lbplan_core::view::plan_lists::{self, FlatRow, MoveSort};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::pipeline_detail::{ExplainSource, PipelineDisclosure};
use super::styled::Styled;
use super::virtual_rows::{VirtualRows, aria_row};
use super::{VerdictBanner, named_text};
use crate::format;
use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::verdict::rebalance_instead;

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

/// Rows of the moves' and splits' lists, px (fixed: the lists are virtualised).
const PLAN_ROW_PX: u32 = 30;
/// Rows of the before/after list, px (two bars a row).
const USAGE_ROW_PX: u32 = 38;
/// The lists' scroll height once they overflow, px.
const LIST_PX: u32 = 420;
/// Skipped decisions listed before "Show all" (one line each; a 1,000-broker cycle skips hundreds).
const SKIPPED_SHOWN: usize = 20;

/// A decision's reason in full (wrapping), with its rule's kind and numbers laid out.
fn reason_detail(names: &BrokerNames, reason: &str, decided: &DecisionReason) -> Html {
    let facts = plan_lists::reason_facts(&serde_json::to_value(decided).unwrap_or_default());
    html! {
        <>
            <p class="reason-text" data-testid="plan-detail-reason">{ named_text(names, reason) }</p>
            if !facts.is_empty() {
                <dl class="facts small" data-testid="plan-detail-numbers">
                    { for facts.into_iter().map(|f| html! { <div><dt>{ f.label }</dt><dd class="mono">{ named_text(names, &f.value) }</dd></div> }) }
                </dl>
            }
        </>
    }
}

/// What the edits change against the plan without them (core's `plan::diff`): counts, both
/// plans' balance, then each added, removed or redirected move and split.
fn baseline_diff(d: &PlanDiff) -> Html {
    let mut lines = describe(d).into_iter();
    let head = lines.next().unwrap_or_default();
    let judged = against_baseline(d);
    let outcome = judged.outcome.name().replace(' ', "-");
    html! {
        <details class="plan-diff" data-testid="plan-diff" open=true
            data-identical={d.identical_decisions.to_string()}>
            <summary>{ format!("What your edits change: {head}") }</summary>
            <p class={classes!("verdict", outcome.clone())} data-testid="plan-vs-baseline" data-outcome={outcome.clone()}>
                { judged.headline }</p>
            <ul class="mono small">
                { for lines.map(|l| html! { <li>{ l }</li> }) }
            </ul>
        </details>
    }
}

/// The decision whose reason the detail pane shows: a move or a split, by bundle.
#[derive(Clone, Debug, PartialEq)]
enum Picked {
    Move(String),
    Split(String),
}

/// One group of a virtualised list, owned (row callbacks outlive a render's borrow of the plan).
struct GroupView {
    /// "move:broker" / "split:namespace": the key the open/closed toggles are kept by.
    key: String,
    name: String,
    /// The summary after the name (counts, traffic).
    tail: String,
    /// The destinations (moves), after the summary.
    after: String,
    /// The items' positions in the plan's `unloads` / `splits`.
    items: Vec<usize>,
}

/// One broker's row of the before/after list, owned.
struct UsageView {
    broker: String,
    before_pct: Option<f64>,
    after_pct: Option<f64>,
    moves_in: usize,
    moves_out: usize,
    bundles: (Option<usize>, Option<usize>),
}

/// Each element's position in `all`, by address (groups hold references into the plan's lists).
fn positions<T>(all: &[T]) -> HashMap<*const T, usize> {
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
struct ListRows {
    groups: Rc<Vec<GroupView>>,
    rows: Rc<Vec<FlatRow>>,
    plan: Rc<Result<Plan, String>>,
    columns: usize,
    /// The group header rows' test id.
    testid: &'static str,
    on_toggle: Callback<String>,
}

/// The row callback of a grouped list (moves, splits): one shared prologue — the plan, the flat
/// row, a group's header with its name and summary (then `after_tail`) — and `item` for an item
/// row, given the plan, the item's position in the plan's list and the row's index.
fn list_row(
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
fn pick_button(bundle: &str, picked: bool, pick: Picked, on_pick: &Callback<Picked>) -> Html {
    let onclick = {
        let on_pick = on_pick.clone();
        Callback::from(move |_| on_pick.emit(pick.clone()))
    };
    html! {
        <button type="button" class="link mono" data-testid="plan-pick" aria-pressed={picked.to_string()}
            title="Show this decision's reason and numbers in full" {onclick}>{ bundle.to_string() }</button>
    }
}

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
    // Every skipped decision listed, not the first [`SKIPPED_SHOWN`] (at 1,000 brokers a cycle
    // skips a broker or bundle by the hundred).
    let all_skipped = use_state(|| false);
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
                    <div class="plan-detail" data-testid="plan-detail" data-bundle={u.bundle.clone()} aria-live="polite">
                        <h4><span class="mono">{ &u.bundle }</span>
                            <span class="mono" title={format!("{} → {}", u.from, u.to.as_deref().unwrap_or("(chosen by Pulsar)"))}>
                                { format!(" {} → {}", names.short(&u.from), u.to.as_deref().map_or("(chosen by Pulsar)", |t| names.short(t))) }</span>
                            { format!(" · {} MiB/s · {}", mib(unload_bytes_per_sec(u)), u.origin) }</h4>
                        { reason_detail(&names, &u.reason_text, &u.reason) }
                        <PipelineDisclosure key={format!("u:{}:{}", plan_serial_key, u.bundle)}
                            which={DecisionRef::Unload { bundle: u.bundle.clone() }}
                            detail={u.detail.clone().map(DecisionDetail::Unload)}
                            explain={p.explain.clone()} names={names.clone()} />
                    </div>
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
                    <div class="plan-detail" data-testid="plan-split-detail" data-bundle={s.bundle.clone()} aria-live="polite">
                        <h4><span class="mono">{ &s.bundle }</span>{ " on " }<span class="mono" title={s.broker.clone()}>{ names.short(&s.broker).to_string() }</span>
                            { format!(" · {} · {}", s.algorithm, s.origin) }</h4>
                        if !s.new_bundles.is_empty() {
                            <p class="mono small">{ format!("New bundles: {}", s.new_bundles.join(", ")) }</p>
                        }
                        { reason_detail(&names, &s.reason_text, &s.reason) }
                        <PipelineDisclosure key={format!("s:{}:{}", plan_serial_key, s.bundle)}
                            which={DecisionRef::Split { bundle: s.bundle.clone() }}
                            detail={s.detail.clone().map(DecisionDetail::Split)}
                            explain={p.explain.clone()} names={names.clone()} />
                    </div>
                }
            }
            if !plan.topic_unloads.is_empty() {
                <h3>{ "Topic unloads" }</h3>
                <ul>{ for plan.topic_unloads.iter().map(|t| html! { <li class="mono">{ t }</li> }) }</ul>
            }
            if !plan.skipped.is_empty() {
                <h3>{ format!("Skipped decisions ({})", plan.skipped.len()) }</h3>
                <ul data-testid="plan-skipped">
                    { for plan.skipped.iter().take(if *all_skipped { usize::MAX } else { SKIPPED_SHOWN }).map(|s| html! {
                        <li data-kind={s.reason.kind.as_str()} data-scope={s.scope.name()}>
                            { match &s.scope {
                                SkipScope::Cycle => named_text(&names, &s.why),
                                SkipScope::Broker { broker } => html! {
                                    <>{ "on " }<span class="mono" title={broker.clone()}>{ names.short(broker).to_string() }</span>{ ": " }{ named_text(&names, &s.why) }</>
                                },
                                SkipScope::Bundle { bundle, broker } => html! {
                                    <><span class="mono">{ bundle }</span>{ find_button(bundle, p.on_find.as_ref()) }{ " on " }
                                    <span class="mono" title={broker.clone()}>{ names.short(broker).to_string() }</span>{ ": " }{ named_text(&names, &s.why) }</>
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
            <h3>{ "Balance" }</h3>
            <table class="data" data-testid="plan-balance">
                <thead><tr><th scope="col"></th><th scope="col" class="num">{ "Max" }</th><th scope="col" class="num">{ "Mean" }</th><th scope="col" class="num">{ "Max/mean" }</th><th scope="col" class="num">{ "Std" }</th><th scope="col" class="num">{ "Bundles/broker" }</th></tr></thead>
                <tbody>
                    { balance("Before", &plan.balance_before) }
                    { balance("After", &plan.balance_after) }
                </tbody>
            </table>
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
        </section>
    }
}
